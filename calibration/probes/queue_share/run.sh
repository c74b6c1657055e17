#!/bin/bash
# calibration/probes/queue_share on the H200: build, SASS, run (raw/share.txt), summary on stdout.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/share}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/share calibration/probes/queue_share/share.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/share | gzip > "$O/share.sass.gz"
cuobjdump -sass /tmp/share | grep -E "LDS|CS2R|S2UR|BAR|FADD" | head -20
/tmp/share > "$O/share.txt"; echo "share rc $?"
python3 calibration/probes/queue_share/summary.py "$O/share.txt"
