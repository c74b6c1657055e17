#!/bin/bash
# Device run of calibration/probes/wmma_layout (repository root; OUT an empty folder): the WMMA
# fragments' elements per lane, the SASS of wmma.load/mma/store, ncu's shared counters of the
# ld<LD> kernels. ~1 minute. Everything lands in $OUT/wmma_layout/all.tgz (one file).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_wmma}; R=$(mktemp -d)/wmma_layout; mkdir -p "$R" "$OUT/wmma_layout"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 300 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/w" wmma_layout.cu > "$R/build.txt" 2>&1; echo "build rc=$?" | tee "$R/log.txt"
cuobjdump -sass "$B/w" > "$R/wmma.sass" 2>&1
grep -oE "(HMMA|LDSM|LDS|STS|LDG)[.A-Z0-9_]*" "$R/wmma.sass" | sort | uniq -c > "$R/sass_ops.txt"
timeout 120 "$B/w" > "$R/device.txt" 2> "$R/run.err"; echo "run rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
grep "^N\|^E\|^ld" "$R/device.txt" | tee -a "$R/log.txt"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,gpc__cycles_elapsed.max
timeout 200 ncu --kernel-name regex:ld --metrics "$M" --csv "$B/w" > "$R/ncu_ld.csv" 2> "$R/ncu.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
(cd "$(dirname "$R")" && tar czf "$OUT/wmma_layout/all.tgz" wmma_layout)
