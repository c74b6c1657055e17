#!/bin/bash
# Device run of calibration/probes/printf_fmt (repository root; OUT an empty folder): build with
# nvcc, run once (the printf text on stdout), compare with warpsim's predictions.txt. ~15 s.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_printf_fmt}; R=$OUT/printf_fmt; mkdir -p "$R"
W=$(mktemp -d); cp "$D/printf_fmt.cu" "$W/"; cd "$W" || exit 2
{ nvidia-smi -L; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
timeout 120 nvcc -O3 -arch=sm_90 -o printf_fmt printf_fmt.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
timeout 60 ./printf_fmt > "$R/device.txt" 2> "$R/run.err"; echo "run rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
python3 "$D/compare.py" "$R/device.txt" "$D/predictions.txt" | tee "$R/compare.txt" | tail -15
