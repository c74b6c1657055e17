#!/bin/bash
# Device call of calibration/probes/const_cold (issue 37: the cost of a cold constant line).
# From the repository root:  OUT=/some/empty/dir bash calibration/probes/const_cold/run.sh
# Stages (each under timeout, inside BUDGET=105 s; what does not fit is skipped and logged):
# build (nvcc, cuobjdump -sass, where ULDC/LDC sit against LDG and the clocks), clock (in-kernel
# clock64 around the first constant use: cold / again / flush launches, 3 rounds), ncu metrics
# (per launch, each config once, caches flushed by ncu), ncu Source page (SASS, stall samples
# every 32 cycles, each config once), ncu pcsamp metrics (the sampled stall counters; a separate
# pass, so that a name this ncu lacks loses only it), and the metrics again (repeatability). Everything goes under $OUT/const_cold, packed
# into $OUT/const_cold.tar.gz after each stage; at the end the folder keeps only its small
# summary files (the device returns at most 8 files; CC_KEEP_TREE=1 keeps all). stdout < 1,500 chars.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_const_cold}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
T=const_cold; R=$OUT/$T; mkdir -p "$R"
W=$(mktemp -d); cd "$W" || exit 2
START=$(date +%s); BUDGET=${BUDGET:-105}
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
stage() { echo "=== +$(el)s $*" >> "$R/log.txt"; }
pack() { tar czf "$OUT/$T.tar.gz" -C "$OUT" "$T" 2>/dev/null; }
run() {  # run NAME SECONDS CMD...: CMD under timeout (never past the budget), rc logged
  local name=$1 t=$2 l; shift 2
  l=$(left)
  if [ "$l" -lt 5 ]; then echo "SKIP $name (${l}s left)" >> "$R/log.txt"; return 99; fi
  [ "$t" -gt $(( l - 3 )) ] && t=$(( l - 3 ))
  timeout -k 2 "$t" "$@"; local rc=$?
  echo "$name rc=$rc +$(el)s" >> "$R/log.txt"
  return $rc
}
cp "$D/const_cold.cu" "$D/configs_gen.h" "$D/configs.tsv" "$D/summarize.py" . || exit 2
cp "$D/predictions.tsv" "$R/predictions.tsv" 2>/dev/null

stage env
{ timeout 10 nvidia-smi -L; timeout 10 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
  timeout 10 nvcc --version | tail -2; timeout 10 ncu --version | tail -1; } > "$R/env.txt" 2>&1

stage build
run build 60 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o const_cold const_cold.cu > "$R/build.txt" 2>&1
if [ -x ./const_cold ]; then
  run sass 15 cuobjdump -sass const_cold > const_cold.sass 2>&1
  gzip -9 -c const_cold.sass > "$R/const_cold.sass.gz"
  run sass_order 10 python3 summarize.py sass const_cold.sass > "$R/sass_order.tsv" 2> "$R/sass_order.err"
  run list 10 ./const_cold list > "$R/launches.txt" 2>&1
fi
pack

stage clock
[ -x ./const_cold ] && run clock 25 ./const_cold clock 3 "$R/clock.tsv" > "$R/clock_run.txt" 2>&1
pack

stage ncu metrics
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_elapsed.avg,sm__cycles_active.avg,sm__cycles_active.max"
M="$M,smsp__cycles_active.avg,smsp__inst_executed.sum,smsp__warps_launched.sum,smsp__average_warp_latency_per_inst_issued.ratio"
M="$M,smsp__inst_executed_op_ldc.sum,idc__requests.sum,idc__requests_lookup_miss.sum,sm__idc_divergent_instruction_replays.sum,smsp__imc_requests.sum"
for s in imc_miss long_scoreboard short_scoreboard wait no_instruction lg_throttle mio_throttle drain selected not_selected math_pipe_throttle branch_resolving dispatch_stall misc barrier; do
  M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
echo "$M" > "$R/metrics_used.txt"
[ -x ./const_cold ] && run ncu_metrics 35 ncu --clock-control none --metrics "$M" --csv --print-units base \
    ./const_cold ncu 1 > "$R/ncu_metrics.csv" 2> "$R/ncu_metrics.err"
pack

stage ncu source page
if [ -x ./const_cold ] && [ "$(left)" -gt 15 ]; then
  run ncu_source 40 ncu --clock-control none --section SourceCounters --warp-sampling-interval 0 \
      --warp-sampling-buffer-size 536870912 --page source --print-source sass --csv ./const_cold ncu 1 \
      > source.csv 2> "$R/ncu_source.err"
  gzip -9 -c source.csv > "$R/source.csv.gz"
  echo "source page: $(wc -l < source.csv) lines" >> "$R/log.txt"
else echo "SKIP ncu_source ($(left)s left)" >> "$R/log.txt"; fi
pack

stage ncu pcsamp metrics
P="smsp__pcsamp_sample_count,smsp__pcsamp_warps_issue_stalled_imc_miss,smsp__pcsamp_warps_issue_stalled_long_scoreboard"
P="$P,smsp__pcsamp_warps_issue_stalled_short_scoreboard,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_no_instructions"
P="$P,smsp__average_warp_latency_issue_stalled_imc_miss.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__warps_launched.sum"
echo "$P" > "$R/metrics_pcsamp.txt"
[ -x ./const_cold ] && [ "$(left)" -gt 20 ] && run ncu_pcsamp 15 ncu --clock-control none --warp-sampling-interval 0 \
    --metrics "$P" --csv --print-units base ./const_cold ncu 1 > "$R/ncu_pcsamp.csv" 2> "$R/ncu_pcsamp.err"
pack

stage "ncu metrics again, for repeatability"
[ -x ./const_cold ] && [ "$(left)" -gt 25 ] && run ncu_metrics2 20 ncu --clock-control none --metrics "$M" --csv \
    --print-units base ./const_cold ncu 1 > "$R/ncu_metrics2.csv" 2> "$R/ncu_metrics2.err"
pack

stage summary
timeout 20 python3 summarize.py table "$R" > "$R/compare.tsv" 2> "$R/summary.err"
timeout 10 python3 summarize.py brief "$R" > "$R/summary.txt" 2>> "$R/summary.err"
echo "const_cold: $(el)s; skipped $(grep -c SKIP "$R/log.txt"); rc: $(grep -o '^[a-z_0-9]* rc=[0-9]*' "$R/log.txt" | sed 's/ rc=/=/' | tr '\n' ' ')" >> "$R/summary.txt"
pack
if [ "${CC_KEEP_TREE:-0}" != 1 ]; then  # the whole tree is in the tarball; keep 6 small files here
  find "$R" -type f ! -name summary.txt ! -name log.txt ! -name env.txt ! -name compare.tsv \
       ! -name sass_order.tsv ! -name clock.tsv -delete
fi
head -c 1450 "$R/summary.txt"
rm -rf "$W"
