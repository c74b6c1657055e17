#!/bin/bash
# Device run of calibration/probes/int_pipes (from the repository root; OUT an empty folder):
# build, SASS opcode counts per kernel, then ncu per mode (the second launch of each).
# Everything under $OUT/int_pipes (packed into $OUT/int_pipes.tar.gz). About 60 s.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_int_pipes}; R=$OUT/int_pipes; mkdir -p "$R"
W=$(mktemp -d); cp "$D/int_pipes.cu" "$W/"; cd "$W" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.max.sm --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
timeout 120 nvcc -O3 -arch=sm_90 -lineinfo -o int_pipes int_pipes.cu > "$R/build.txt" 2>&1 || { echo build failed; cat "$R/build.txt"; }
cuobjdump -sass int_pipes > int_pipes.sass 2>&1
gzip -c int_pipes.sass > "$R/int_pipes.sass.gz"
# opcode counts per kernel (the mnemonic's first part)
awk '/Function :/ {k=$3} /\/\*[0-9a-f]+\*\// {for (i=1;i<=NF;i++) if ($i ~ /^[A-Z][A-Z0-9_.]+$/ && $i != "PT") {split($i, a, "."); n[k" "a[1]]++; break}} END {for (x in n) print x, n[x]}' int_pipes.sass | sort > "$R/sass_ops.txt"
M=sm__cycles_active.avg,sm__cycles_elapsed.max,smsp__inst_executed.sum,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_fmalite.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
for m in 0 1 2 3 4 5 6 7; do
  timeout 60 ncu --launch-skip 1 --launch-count 1 --metrics "$M" --csv --print-units base ./int_pipes $m > "$R/ncu_$m.csv" 2> "$R/ncu_$m.err"
  echo "mode $m rc=$?"
done | tee "$R/log.txt"
python3 "$D/summarize.py" "$R" | tee "$R/summary.txt"
tar czf "$OUT/int_pipes.tar.gz" -C "$OUT" int_pipes
