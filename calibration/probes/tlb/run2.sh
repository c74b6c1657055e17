#!/bin/bash
# Second H200 campaign: calibration/probes/tlb's probe_sms (first loads on every SM) under Nsight
# Compute's cache flush, and calibration/draws/loops draw 3 (sum_stride).
# Run from the repository root: OUT=/some/dir bash calibration/probes/tlb/run2.sh
set -u
OUT=${OUT:-$PWD/out_tlb}; mkdir -p "$OUT/tlb2"; R=$OUT/tlb2
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d)
nvcc -O3 -arch=sm_90 -o "$W/tlb" calibration/probes/tlb/tlb.cu > "$R/build.txt" 2>&1 || { cat "$R/build.txt"; exit 1; }
cuobjdump -sass "$W/tlb" | grep -E "Function|LDG|CS2R|S2R" > "$R/tlb_sass.txt"
ncu --clock-control none --cache-control all --metrics gpc__cycles_elapsed.max "$W/tlb" sms > "$R/ncu_sms.txt" 2>&1
"$W/tlb" sms > "$R/plain_sms.txt" 2>&1
CFG=configs3.txt OUT=$OUT bash calibration/draws/loops/run.sh
mv "$OUT/loops" "$OUT/loops3"
