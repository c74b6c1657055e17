#!/bin/bash
# Device run of calibration/probes/attention at other sizes (a fresh test of the timing model's
# look-ahead fix, 0ace4ee, which was found on this kernel at N = 8192): both variants at
# N = 2048 and 4096 (32 and 64 blocks: less than one wave), checked and timed (host.cu), then
# Nsight Compute's cycles, issued instructions and shared counters; tarred into
# $OUT/attention_sizes.tgz as raw_sizes/. ~2 minutes. Predictions: predictions_sizes.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_attention}; R=$OUT/raw_sizes; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o "$B/host" host.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
for n in 2048 4096; do
    timeout 200 "$B/host" run $n > "$R/host_$n.txt" 2>&1; echo "host $n rc=$?" | tee -a "$R/log.txt"; cat "$R/host_$n.txt" | tee -a "$R/log.txt"
    timeout 200 ncu --metrics "$M" --csv "$B/host" once $n > "$R/ncu_$n.csv" 2> "$R/ncu_$n.err"; echo "ncu $n rc=$?" | tee -a "$R/log.txt"
done
(cd "$OUT" && tar czf attention_sizes.tgz raw_sizes)
