#!/bin/bash
# calibration/probes/dram_order: order.cu and sched/phases.cu with and without the memset's dirty lines in
# L2 (raw/order_clean.txt.gz, order_dirty.txt.gz, phases_clean.txt.gz, phases_dirty.txt.gz; every
# SM's warps for phases). From the repository root on the device machine.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/dramorder}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/order calibration/probes/dram_order/order.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
nvcc -O3 -arch=sm_90 -o /tmp/phases calibration/probes/scheduler/phases.cu >> "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/phases | gzip > "$O/phases_clean.sass.gz"
for mode in clean dirty; do
  /tmp/order $mode | gzip > "$O/order_$mode.txt.gz"; echo "order $mode rc ${PIPESTATUS[0]}"
  /tmp/phases $mode all | gzip > "$O/phases_$mode.txt.gz"; echo "phases $mode rc ${PIPESTATUS[0]}"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
