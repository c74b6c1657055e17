#!/bin/bash
# calibration/probes/source_page: ncu's Source page (PC sampling of warp stall reasons per SASS
# instruction) of the 7 kernels of tests/fixtures/h200/kernels_timing.tsv, sampled every 32
# cycles (--warp-sampling-interval 0) and every 256 (3), with the kernel-level stall metrics of the
# same binary. calibration/draws/whole_kernels/raw2's Source page used ncu's default interval: 695 samples for the
# naive transpose (7.5 us), too few to place its stalls.
# Run on the device machine from the repository root: bash calibration/probes/source_page/run.sh
# (writes to $OUT; raw/ here holds what came back).
cd "$(dirname "$0")/../../.." || exit 2   # the repository root
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/srcpage}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
ncu --version >> "$O/gpu.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/heldout calibration/draws/whole_kernels/heldout.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/heldout | gzip > "$O/heldout.sass.gz"
for iv in 0 3; do
  echo "=== $(date -u +%T) source page, interval $iv"
  ncu --clock-control none --section SourceCounters --section WarpStateStats \
      --warp-sampling-interval $iv --warp-sampling-buffer-size 536870912 \
      -k regex:"transpose|matmul" -c 7 --page source --print-source sass --csv \
      /tmp/heldout orig > "$O/source_iv$iv.csv" 2> "$O/source_iv${iv}_err.txt"
  echo "rc $? lines $(wc -l < "$O/source_iv$iv.csv")"; tail -2 "$O/source_iv${iv}_err.txt"
done
gzip -f "$O"/source_iv*.csv
echo "=== $(date -u +%T) kernel-level metrics"
ncu --clock-control none --print-units base --csv --metrics "$(cat calibration/probes/sm_rates/raw1/metrics_used.txt)" \
    -k regex:"transpose|matmul" -c 7 /tmp/heldout orig > "$O/metrics.csv" 2> "$O/metrics_err.txt"
echo "rc $? lines $(wc -l < "$O/metrics.csv")"
ls -la "$O"
