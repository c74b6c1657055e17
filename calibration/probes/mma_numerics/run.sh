#!/bin/bash
# Device run of calibration/probes/mma_numerics (repository root; OUT an empty folder): the
# mma.sync forms' D words on two random draws (host.cu), the tensor pipe's latency and
# throughput (clock64), the SASS of each, and programs/cuda/tensor/mma_gemm.cu at 1024^3
# (time, error, ncu counters). ~2 minutes.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_mma_numerics}; R=$OUT/mma_numerics; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/host" host.cu > "$R/build_host.txt" 2>&1; echo "host build rc=$?" | tee "$R/log.txt"
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/gemm" gemm.cu > "$R/build_gemm.txt" 2>&1; echo "gemm build rc=$?" | tee -a "$R/log.txt"
cuobjdump -sass "$B/host" > "$R/host.sass" 2>&1
cuobjdump -sass "$B/gemm" > "$R/gemm.sass" 2>&1
grep -oE "(HMMA|IMMA|DMMA|HGMMA)[.A-Z0-9]*" "$R/host.sass" | sort | uniq -c > "$R/mma_sass_ops.txt"
timeout 120 "$B/host" > "$R/device.txt" 2> "$R/host.err"; echo "host rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
grep "^T\|^E" "$R/device.txt" | tee -a "$R/log.txt"
timeout 120 "$B/gemm" > "$R/gemm.txt" 2>&1; echo "gemm rc=$?" | tee -a "$R/log.txt"; cat "$R/gemm.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_ldgsts.sum,smsp__average_warp_latency_per_inst_issued.ratio,smsp__pcsamp_warps_issue_stalled_short_scoreboard.sum,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle.sum,smsp__pcsamp_warps_issue_stalled_wait.sum,smsp__pcsamp_warps_issue_stalled_barrier.sum,smsp__pcsamp_warps_issue_stalled_long_scoreboard.sum
timeout 240 ncu --metrics "$M" --csv "$B/gemm" > "$R/ncu_gemm.csv" 2> "$R/ncu_gemm.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
tail -5 "$R/ncu_gemm.err"
