#!/bin/bash
# Device run of calibration/probes/wgmma (repository root or anywhere; OUT an empty folder):
# every form's D words on seeds 11 and 12 (host.cu with forms.cu, sm_90a), the GEMMs of
# programs/cuda/tensor/wgmma_gemm.cu and wgmma_tma.cu at 1024^3 (gemm.cu: checked, timed,
# profiled), and the SASS of both, tarred into $OUT/wgmma.tgz as raw/ (untar it in this
# folder). ~3 minutes. Predictions: predictions.txt (tests/wgmma.rs), predictions_gemm.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_wgmma}; R=$OUT/raw; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 400 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 -o "$B/host" host.cu > "$R/build_host.txt" 2>&1; echo "host build rc=$?" | tee "$R/log.txt"
timeout 400 nvcc -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 -o "$B/gemm" gemm.cu -lcuda > "$R/build_gemm.txt" 2>&1; echo "gemm build rc=$?" | tee -a "$R/log.txt"
for x in host gemm; do
    cuobjdump -sass "$B/$x" > "$R/$x.sass" 2>&1
    awk '/Function :/ {f = $3} match($0, /(HGMMA|QGMMA|IGMMA|WARPGROUP|LDS|STS|BAR)[.A-Z0-9_]*/) {print f, substr($0, RSTART, RLENGTH)}' "$R/$x.sass" | sort | uniq -c > "$R/${x}_sass_ops.txt"
done
timeout 120 "$B/host" 11 12 > "$R/device.txt" 2> "$R/host.err"; echo "host rc=$? $(wc -l < "$R/device.txt") lines" | tee -a "$R/log.txt"
grep "^E" "$R/device.txt" | tee -a "$R/log.txt"
timeout 120 "$B/gemm" > "$R/gemm.txt" 2>&1; echo "gemm rc=$?" | tee -a "$R/log.txt"; cat "$R/gemm.txt" | tee -a "$R/log.txt"
# Nsight: do the tensor cores' reads show in the shared-memory counters? (warpsim counts only
# the warps' stores); elapsed and active cycles and issued instructions of the three launches.
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_reads.sum,l1tex__data_bank_writes.sum
timeout 240 ncu --metrics "$M" --csv "$B/gemm" once > "$R/ncu_gemm.csv" 2> "$R/ncu_gemm.err"; echo "ncu rc=$?" | tee -a "$R/log.txt"
tail -3 "$R/ncu_gemm.err"
gzip -f "$R/host.sass" "$R/gemm.sass"
(cd "$OUT" && tar czf wgmma.tgz raw)
