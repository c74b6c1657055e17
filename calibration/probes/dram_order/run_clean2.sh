#!/bin/bash
# calibration/probes/dram_order, second call: the idle DRAM latency probe (dramlat/) and the padded
# transpose's read half (spread/) with and without dirty lines in L2 (DRAMLAT_CLEAN,
# SPREAD_CLEAN); outputs in raw3/. From the repository root on the device machine.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/dramorder}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/dramlat calibration/probes/dram_latency/dramlat.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
nvcc -O3 -arch=sm_90 -o /tmp/spread calibration/probes/dram_spread/spread.cu >> "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
for c in 1 0; do
  DRAMLAT_CLEAN=$c /tmp/dramlat /tmp/dramlat_$c.tsv; echo "dramlat clean=$c rc $?"
  gzip -c /tmp/dramlat_$c.tsv > "$O/dramlat_clean$c.tsv.gz"
  python3 calibration/probes/dram_latency/analyze.py /tmp/dramlat_$c.tsv > "$O/dramlat_clean$c.txt" 2>&1
  for n in 256 1024 4096; do SPREAD_CLEAN=$c /tmp/spread $n /tmp/spread_${c}_$n.csv; done > "$O/spread_clean$c.txt"; echo "spread clean=$c rc $?"
  gzip -c /tmp/spread_${c}_1024.csv > "$O/spread_clean${c}_n1024.csv.gz"
  gzip -c /tmp/spread_${c}_256.csv > "$O/spread_clean${c}_n256.csv.gz"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$O/gpu.txt"
