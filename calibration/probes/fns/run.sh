#!/bin/bash
# Device run of calibration/probes/fns (repository root; OUT an empty folder): build, SASS
# (the FNS-like instruction ptxas emits), the values. About 10 s.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_fns}; R=$OUT/fns; mkdir -p "$R"
W=$(mktemp -d); cp "$D/fns.cu" "$W/"; cd "$W" || exit 2
{ nvidia-smi -L; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
timeout 120 nvcc -O3 -arch=sm_90 -o fns fns.cu > "$R/build.txt" 2>&1
cuobjdump -sass fns | grep -E "^\s+/\*[0-9a-f]{4}\*/" | sed 's/ *\/\* 0x[0-9a-f]* \*\///' > "$R/fns.sass"
timeout 60 ./fns > "$R/values.txt" 2> "$R/run.err"; echo "run rc=$?" | tee "$R/log.txt"
wc -l "$R/values.txt" | tee -a "$R/log.txt"
gzip -f "$R/values.txt"
