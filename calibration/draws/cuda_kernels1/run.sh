#!/bin/bash
# H200 call for calibration/draws/cuda_kernels1 (issue 37 item 5): 26 launches of public CUDA
# kernel techniques re-implemented here, on warpsim's inputs (host.cu), each checked against a
# CPU reference; Nsight Compute per launch (shared counters per op, instructions, cycles,
# constant-cache counters, stall reasons) and the Source page of every launch; the SASS, and
# nvcc's own PTX of every kernel file (for warpsim runs on the device compiler's PTX).
# Hard budget 150 s (BUDGET=140 for the stages, checked here; what does not fit is skipped and
# logged). Run from the repository root:
#   OUT=/some/empty/dir bash calibration/draws/cuda_kernels1/run.sh
# Everything goes under $OUT/cuda_kernels1, packed into $OUT/cuda_kernels1.tar.gz after every
# stage; a summary of < 2,000 characters goes to stdout.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_cuda_kernels1}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
T=cuda_kernels1
R=$OUT/$T; mkdir -p "$R"
W=$(mktemp -d); cd "$W" || exit 2
START=$(date +%s); BUDGET=${BUDGET:-140}
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
stage() { echo "=== +$(el)s $*" >> "$R/log.txt"; }
pack() { tar czf "$OUT/$T.tar.gz" -C "$OUT" "$T" 2>/dev/null; }
# run NAME SECONDS CMD...: CMD under timeout (never past the budget), rc logged.
run() {
  local name=$1 t=$2 l; shift 2
  l=$(left)
  if [ "$l" -lt 4 ]; then echo "SKIP $name (${l}s left)" >> "$R/log.txt"; return 99; fi
  [ "$t" -gt $(( l - 2 )) ] && t=$(( l - 2 ))
  timeout -k 2 "$t" "$@"; local rc=$?
  echo "$name rc=$rc +$(el)s" >> "$R/log.txt"
  return $rc
}
cp "$D"/*.cu "$D"/launches_gen.h "$D"/summarize.py . || exit 2

stage env
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1

stage build "(in parallel)"
NV="nvcc -O3 -arch=sm_90 -lineinfo -std=c++17"
( run build_host 100 $NV -Xptxas -v -o host host.cu > "$R/build.txt" 2>&1
  cuobjdump -sass host > host.sass 2>&1 ) &
for k in k_const k_warp k_cg k_sort k_gemm k_rows k_hist; do
  ( run ptx_$k 60 $NV -ptx -o $k.nvcc.ptx $k.cu > "$R/build_ptx_$k.txt" 2>&1 ) &
done
wait
mkdir -p "$R/ptx"
for k in k_*.nvcc.ptx; do [ -s "$k" ] && gzip -9 -c "$k" > "$R/ptx/$k.gz"; done
[ -s host.sass ] && gzip -9 -c host.sass > "$R/host.sass.gz"
# the instructions each kernel is here for (SASS opcodes, per kernel)
awk '/Function :/ { f = $3; next }
     f && /[A-Z]/ { s = $0; sub(/.*\*\/ +/, "", s); sub(/ +\/\*.*/, "", s); split(s, a, " ");
       op = a[1]; if (op ~ /^@/) op = a[2]; if (op !~ /^[A-Z]/) next;
       if (s ~ /c\[0x3\]/) op = op "[c3]"; n[f "\t" op]++ }
     END { for (k in n) print k "\t" n[k] }' host.sass 2>/dev/null | sort > "$R/sass_ops.tsv"
python3 summarize.py sasscheck "$R/sass_ops.tsv" > "$R/sass_check.txt" 2>&1
pack

stage run
if [ -x ./host ]; then
  run host 40 ./host > "$R/run.txt" 2> "$R/run.err"
else echo "host: not built" >> "$R/log.txt"; fi
pack

stage ncu metrics
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio"
for op in ld st atom; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
M="$M,smsp__inst_executed_op_ldc.sum,idc__requests.sum,idc__requests_lookup_miss.sum,sm__idc_divergent_instruction_replays.sum,smsp__imc_requests.sum"
for s in barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall membar imc_miss misc sleeping; do
  M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
echo "$M" > "$R/metrics_used.txt"
if [ -x ./host ]; then
  run ncu_metrics 45 ncu --clock-control none --metrics "$M" --csv --print-units base \
      --log-file "$R/ncu_metrics.csv" ./host > "$R/ncu_metrics_run.txt" 2> "$R/ncu_metrics.err"
fi
pack

stage ncu source page
if [ -x ./host ] && [ "$(left)" -gt 15 ]; then
  run ncu_source $(( $(left) - 8 )) ncu --clock-control none --section SourceCounters --page source \
      --print-source sass --csv ./host > source.csv 2> "$R/ncu_source.err"
  gzip -9 -c source.csv > "$R/source.csv.gz"
  echo "source page: $(wc -l < source.csv) lines" >> "$R/log.txt"
else echo "ncu source: skipped ($(left)s left)" >> "$R/log.txt"; fi
pack

stage done
python3 summarize.py summary "$R" > "$R/summary.txt" 2> "$R/summary.err"
python3 summarize.py measured "$R" > "$R/measured.tsv" 2>> "$R/summary.err"
pack
cat "$R/summary.txt"
echo "cuda_kernels1: $(el)s; skipped: $(grep -c SKIP "$R/log.txt")"
rm -rf "$W"
