#!/bin/bash
# ldgsts_draw3 on the device (H200, or H100: the same SM), from the repository root, $OUT empty:
#   OUT=$OUT bash calibration/draws/ldgsts_draw3/run.sh
# Builds calibration/probes/ldgsts_tma3/ldgsts.cu, checks the SASS has LDGSTS.*.ZFILL, runs
# every launch of patterns.txt once with the functional dump (no ncu), then one ncu process over
# all 60 with the probe's metric list. Everything in $OUT/ldgsts_draw3/ and
# $OUT/ldgsts_draw3.tar.gz. Budget about 60 s; every command under timeout.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
P=$D/../../probes/ldgsts_tma3
OUT=${OUT:-$PWD/out_ldgsts_draw3}; R=$OUT/ldgsts_draw3; mkdir -p "$R"
W=$(mktemp -d); cp "$P/ldgsts.cu" "$P/metrics_ldgsts.txt" "$D/patterns.txt" "$W/"; cd "$W" || exit 2
pack() { tar czf "$OUT/ldgsts_draw3.tar.gz" -C "$OUT" ldgsts_draw3 2>/dev/null; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
timeout 90 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o ldgsts ldgsts.cu > "$R/build.txt" 2>&1
echo "build rc=$?" | tee "$R/log.txt"
timeout 30 cuobjdump -sass ldgsts | grep -o "LDGSTS[.A-Z0-9]*" | sort | uniq -c > "$R/sass_ldgsts.txt"
cat "$R/sass_ldgsts.txt" | tr '\n' ' '; echo
timeout 30 ./ldgsts dump patterns.txt - > "$R/dump.txt" 2> "$R/dump.err"
echo "dump rc=$? $(grep -c '^L ' "$R/dump.txt") launches" | tee -a "$R/log.txt"
gzip -f "$R/dump.txt"
timeout 150 ncu --clock-control none --cache-control all --metrics "$(cat metrics_ldgsts.txt)" \
  --csv --print-units base ./ldgsts one patterns.txt - > "$R/ncu.csv" 2> "$R/ncu.err"
echo "ncu rc=$? $(grep -c '^L ' "$R/ncu.csv") launches" | tee -a "$R/log.txt"
gzip -f "$R/ncu.csv"
cp "$D/predictions.tsv" "$R/"
pack
python3 "$D/compare.py" "$R" 2>&1 | tail -12
