#!/bin/bash
# The second device call of calibration/probes/mma_numerics (repository root; OUT an empty
# folder): a fresh draw (seeds 3 and 4) of every form's D words, predicted by warpsim with the
# adder fitted on seed 1 and the fp8 path derived from the SASS (predictions_draw2.txt, committed
# before this call). ~1 minute.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_mma_draw2}; R=$OUT/mma_draw2; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/host" host.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
timeout 120 "$B/host" 3 4 | grep -v "^T" > "$R/device.txt" 2> "$R/host.err"; echo "host rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
