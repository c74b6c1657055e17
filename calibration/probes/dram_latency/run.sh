#!/bin/bash
# Runs the DRAM latency probe on the device machine: bash calibration/probes/dram_latency/run.sh (OUT=dir)
set -e
cd "$(dirname "$0")"
OUT=${OUT:-raw}
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -o /tmp/dramlat dramlat.cu
cuobjdump -sass /tmp/dramlat | grep -A80 "Function : _Z5chase" | head -120 > "$OUT/chase.sass"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/env.txt"
/tmp/dramlat /tmp/dramlat.tsv
gzip -c /tmp/dramlat.tsv > "$OUT/dramlat.tsv.gz"
python3 analyze.py /tmp/dramlat.tsv > "$OUT/summary.txt" || true
