#!/bin/bash
# Device run of calibration/probes/attention (repository root or anywhere; OUT an empty folder):
# programs/cuda/tensor/flash_attn.cu's two variants at N = 8192 (host.cu: checked, timed, then
# Nsight Compute's shared counters, cycles and issued instructions) and their SASS, tarred into
# $OUT/attention.tgz as raw/ (untar it in this folder). ~2 minutes. Predictions: predictions.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_attention}; R=$OUT/raw; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o "$B/host" host.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
cuobjdump -sass "$B/host" > "$R/host.sass" 2>&1
awk '/Function :/ {f = $3} match($0, /(HMMA|LDSM|LDS|STS|LDG|STG|SHFL|MUFU|BAR)[.A-Z0-9_]*/) {print f, substr($0, RSTART, RLENGTH)}' "$R/host.sass" | sort | uniq -c > "$R/sass_ops.txt"
timeout 200 "$B/host" > "$R/host.txt" 2>&1; echo "host rc=$?" | tee -a "$R/log.txt"; cat "$R/host.txt" | tee -a "$R/log.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_st.sum
timeout 240 ncu --metrics "$M" --csv "$B/host" once > "$R/ncu.csv" 2> "$R/ncu.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
tail -3 "$R/ncu.err"
gzip -f "$R/host.sass"
(cd "$OUT" && tar czf attention.tgz raw)
