#!/bin/bash
# calibration/probes/scheduler, section 18: does a line that allocates in L1 (ld.global.ca) take more turns
# of the shared pipe than one that does not (.cg)? flood.cu dram_ca -> raw/flood6.txt.
# Written before it ran: with one turn a line, .ca lands as .cg (pairs ~64 cycles apart, the
# last pair ~250 late); with two (the L1's fill, then the read to registers), the last line
# ~500 late and pairs ~128 apart.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/land}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/flood calibration/probes/scheduler/flood.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/flood | gzip > "$O/flood6.sass.gz"
/tmp/flood dram_ca > "$O/flood6.txt"; echo "flood rc $?"
