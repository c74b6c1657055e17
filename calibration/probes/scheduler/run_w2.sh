#!/bin/bash
# calibration/probes/scheduler, section 18: does each line of a load of 8 bytes a lane (2 lines) take a
# turn of its own? flood.cu dram_w2 -> raw/flood7.txt. Written before it ran: if one turn a
# load (as the model has it), the eight warps' data land in pairs ~64 cycles apart, the last
# ~250 late; if one a line, sixteen turns: eight steps of ~64, the last ~500 late.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/land}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/flood calibration/probes/scheduler/flood.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/flood | gzip > "$O/flood7.sass.gz"
/tmp/flood dram_w2 > "$O/flood7.txt"; echo "flood rc $?"
