#!/bin/bash
# Device run of calibration/probes/wgmma_draw (repository root or anywhere; OUT an empty folder):
# every drawn form's D words on seeds 21 and 22 (host.cu with draw.cu, sm_90a), then Nsight
# Compute's op_gmma counters of each form's launch (seed 21), and the SASS; tarred into
# $OUT/wgmma_draw.tgz as raw/ (untar it in this folder). ~2 minutes. Predictions:
# predictions.txt (tests/wgmma.rs, wgmma_draw_gives_the_committed_predictions).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_wgmma_draw}; R=$OUT/raw; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 500 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 -o "$B/host" host.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
cuobjdump -sass "$B/host" > "$R/host.sass" 2>&1
awk '/Function :/ {f = $3} match($0, /(HGMMA|QGMMA|IGMMA|WARPGROUP)[.A-Z0-9_x]*/) {print f, substr($0, RSTART, RLENGTH)}' "$R/host.sass" | sort | uniq -c > "$R/sass_ops.txt"
timeout 120 "$B/host" 21 22 > "$R/device.txt" 2> "$R/host.err"; echo "host rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
grep "^E" "$R/device.txt" | tee -a "$R/log.txt"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_bank_reads.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
timeout 300 ncu --metrics "$M" --csv "$B/host" 21 > "$R/ncu.csv" 2> "$R/ncu.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
tail -3 "$R/ncu.err"
gzip -n -f "$R/device.txt" "$R/host.sass"
(cd "$OUT" && tar czf wgmma_draw.tgz raw)
