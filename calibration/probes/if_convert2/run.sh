#!/bin/bash
# Device run of if_convert2 (README.md): builds kernels.cu, dumps its SASS (what ptxas did with
# each `if`: check_sass.py), runs it once, then Nsight Compute's issued warp instructions and
# cycles of each launch. Everything under $OUT/raw/, tarred into $OUT/if_convert2.tgz. About a
# minute. Predictions: predictions.tsv (committed first).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_if_convert2}; R=$OUT/raw; mkdir -p "$R"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 200 nvcc -O3 -arch=sm_90 -lineinfo -o "$B/k" "$D/kernels.cu" > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
timeout 60 cuobjdump -sass "$B/k" > "$R/kernels.sass" 2>&1; echo "sass rc=$?" | tee -a "$R/log.txt"
python3 "$D/check_sass.py" "$R/kernels.sass" > "$R/sass_check.tsv" 2>&1; echo "check rc=$?" | tee -a "$R/log.txt"
timeout 60 "$B/k" > "$R/run.txt" 2>&1; echo "run rc=$?: $(cat "$R/run.txt")" | tee -a "$R/log.txt"
M=smsp__inst_executed.sum,sm__cycles_active.avg,gpc__cycles_elapsed.max
timeout 300 ncu --metrics "$M" --csv "$B/k" > "$R/ncu.csv" 2> "$R/ncu.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
(cd "$OUT" && tar czf if_convert2.tgz raw)
