#!/usr/bin/env bash
# On the H200 (device tool): build, keep the SASS, run N = 256, 1024, 4096 (raw rows of the
# last of 3 runs of each N in $OUT).
set -eu
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o /tmp/spread spread.cu
cuobjdump -sass /tmp/spread > "$OUT/spread.sass"
for n in 256 1024 4096; do /tmp/spread $n "$OUT/raw_n$n.csv"; done | tee "$OUT/summary.txt"
gzip "$OUT"/raw_n*.csv
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/summary.txt"
