#!/bin/bash
# Device run of calibration/probes/wmma_numerics (repository root; OUT an empty folder): the
# WMMA forms' D words on a fresh random draw (seeds 5, 6; host.cu), their SASS, and
# programs/cuda/tensor/wmma_gemm.cu at 1024^3 (time, error, ncu counters), all tarred into
# $OUT/wmma_numerics.tgz (the device tool returns few files). ~2 minutes.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_wmma_numerics}; R=$OUT/wmma_numerics; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/host" host.cu > "$R/build_host.txt" 2>&1; echo "host build rc=$?" | tee "$R/log.txt"
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/gemm" gemm.cu > "$R/build_gemm.txt" 2>&1; echo "gemm build rc=$?" | tee -a "$R/log.txt"
cuobjdump -sass "$B/host" > "$R/host.sass" 2>&1
cuobjdump -sass "$B/gemm" > "$R/gemm.sass" 2>&1
grep -oE "(HMMA|IMMA|LDSM|LDS|STS|LDG|STG)[.A-Z0-9]*" "$R/host.sass" | sort | uniq -c > "$R/host_sass_ops.txt"
grep -oE "(HMMA|IMMA|LDSM|LDS|STS|LDG|STG)[.A-Z0-9]*" "$R/gemm.sass" | sort | uniq -c > "$R/gemm_sass_ops.txt"
timeout 120 "$B/host" 5 6 > "$R/device.txt" 2> "$R/host.err"; echo "host rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
grep "^X\|^E" "$R/device.txt" | tee -a "$R/log.txt"
timeout 120 "$B/gemm" > "$R/gemm.txt" 2>&1; echo "gemm rc=$?" | tee -a "$R/log.txt"; cat "$R/gemm.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,gpu__time_duration.sum,smsp__average_warp_latency_per_inst_issued.ratio
timeout 240 ncu --metrics "$M" --csv "$B/gemm" > "$R/ncu_gemm.csv" 2> "$R/ncu_gemm.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
tail -3 "$R/ncu_gemm.err"
# The fragments not measured before (layout_more.cu): a measurement, no prediction.
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/more" layout_more.cu > "$R/build_more.txt" 2>&1; echo "more build rc=$?" | tee -a "$R/log.txt"
timeout 60 "$B/more" > "$R/layout_more.txt" 2> "$R/more.err"; echo "more rc=$? $(wc -l < "$R/layout_more.txt") lines" | tee -a "$R/log.txt"
grep "^N\|^E" "$R/layout_more.txt" | tee -a "$R/log.txt"
(cd "$OUT" && tar czf wmma_numerics.tgz wmma_numerics)
