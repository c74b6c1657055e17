#!/bin/bash
# H200 campaign for calibration/probes/tlb (first-touch latency by 2 MiB region) and calibration/draws/loops
# draw 3 (sum_stride). Run from the repository root: OUT=/some/dir bash calibration/probes/tlb/run.sh
set -u
OUT=${OUT:-$PWD/out_tlb}; mkdir -p "$OUT/tlb"; R=$OUT/tlb
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d)
nvcc -O3 -arch=sm_90 -o "$W/tlb" calibration/probes/tlb/tlb.cu > "$R/build.txt" 2>&1 || { cat "$R/build.txt"; exit 1; }
cuobjdump -sass "$W/tlb" | grep -E "LDG|CS2R|S2UR|clock" > "$R/tlb_sass.txt"
"$W/tlb" plain > "$R/plain.txt" 2>&1
ncu --clock-control none --cache-control all --metrics gpc__cycles_elapsed.max "$W/tlb" ncu > "$R/ncu.txt" 2>&1
ncu --clock-control none --cache-control none --metrics gpc__cycles_elapsed.max "$W/tlb" ncu > "$R/ncu_nocache.txt" 2>&1
CFG=configs3.txt OUT=$OUT bash calibration/draws/loops/run.sh
mv "$OUT/loops" "$OUT/loops3"
