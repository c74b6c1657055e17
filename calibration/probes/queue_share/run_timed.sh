#!/bin/bash
# calibration/probes/queue_share, second call: `share timed` (raw/timed.txt), summary on stdout.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/share}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/share calibration/probes/queue_share/share.cu > "$O/build_timed.txt" 2>&1 || { cat "$O/build_timed.txt"; exit 1; }
cuobjdump -sass /tmp/share | gzip > "$O/timed.sass.gz"
cuobjdump -sass /tmp/share | awk '/Function : _Z5timed/,/EXIT/' | grep -E "LDS|CS2R|FADD|BAR" | head -12
/tmp/share timed > "$O/timed.txt"; echo "timed rc $?"
python3 calibration/probes/queue_share/timed.py "$O/timed.txt"
