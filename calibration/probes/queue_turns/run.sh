#!/bin/bash
# calibration/probes/queue_turns on the H200, from the repository root: the SASS and raw/*.txt.gz.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/arb}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/arb calibration/probes/queue_turns/arb.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/arb | gzip > "$O/arb.sass.gz"
cuobjdump -sass /tmp/arb | grep -cE "LDS|STS|CS2R|S2R" 
for w in 4 8 16; do /tmp/arb rr $w; done | gzip > "$O/rr.txt.gz"; echo "rr rc $?"
for d in 1500 4000; do /tmp/arb young $d; done | gzip > "$O/young.txt.gz"; echo "young rc $?"
cuobjdump -sass /tmp/arb | grep -E "Function|LDS|STS|CS2R|S2R|S2UR|BAR|ATOM" | head -80
