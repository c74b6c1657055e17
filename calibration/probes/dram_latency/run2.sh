#!/bin/bash
# Second call (2026-12-02): the idle configurations with chains confined to 2, 16 and 1,024 MiB
# of the buffer (OUT=dir bash calibration/probes/dram_latency/run2.sh): does a read's spread depend on the
# distance between reads (the TLB) or is it the DRAM's own?
set -e
cd "$(dirname "$0")"
OUT=${OUT:-raw2}
mkdir -p "$OUT"
nvcc -O3 -arch=sm_90 -o /tmp/dramlat dramlat.cu
for r in 2 16 1024; do
  /tmp/dramlat /tmp/region_$r.tsv $r
  gzip -c /tmp/region_$r.tsv > "$OUT/region_$r.tsv.gz"
  echo "== region $r MiB"; python3 analyze.py /tmp/region_$r.tsv
done > "$OUT/summary.txt"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$OUT/summary.txt"
