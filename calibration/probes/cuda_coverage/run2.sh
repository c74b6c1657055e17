#!/bin/bash
# Second H200 call for calibration/probes/cuda_coverage (README "Open after this call"): the
# constant cache's hit throughput (const.cu thr2) and associativity (assoc), with Nsight
# Compute's idc counters on a few of those launches (ncu2). Budget 30 s, checked here. Run
# from the repository root:   OUT=/some/empty/dir bash calibration/probes/cuda_coverage/run2.sh
# Everything goes under $OUT/cuda_coverage2, packed into $OUT/cuda_coverage2.tar.gz after
# every stage; a summary of ~600 characters goes to stdout.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_cuda_coverage2}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
T=cuda_coverage2
R=$OUT/$T; mkdir -p "$R"
W=$(mktemp -d); cd "$W" || exit 2
START=$(date +%s); BUDGET=${BUDGET:-30}
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
stage() { echo "=== +$(el)s $*" >> "$R/log.txt"; }
pack() { tar czf "$OUT/$T.tar.gz" -C "$OUT" "$T" 2>/dev/null; }
run() {
  local name=$1 t=$2 l; shift 2
  l=$(left)
  if [ "$l" -lt 4 ]; then echo "SKIP $name (${l}s left)" >> "$R/log.txt"; return 99; fi
  [ "$t" -gt $(( l - 2 )) ] && t=$(( l - 2 ))
  timeout -k 2 "$t" "$@"; local rc=$?
  echo "$name rc=$rc +$(el)s" >> "$R/log.txt"
  return $rc
}
cp "$D"/const.cu . || exit 2
stage env
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
stage build
run build_const 25 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o const const.cu > "$R/build_const.txt" 2>&1
cuobjdump -sass const > const.sass 2>&1
echo "k_thr2 LDC c[0x3][R]: $(awk '/Function : _Z6k_thr2/{p=1;next} /Function :/{p=0} p' const.sass | grep -cE 'LDC R[0-9]+, c\[0x3\]\[R')" > "$R/sass_check.txt"
gzip -9 -c const.sass > "$R/const.sass.gz"
pack
stage runs
if [ -x ./const ]; then
  run const_thr2 8 ./const thr2 > "$R/const_thr2.tsv" 2> "$R/const_thr2.err"
  run const_assoc 8 ./const assoc > "$R/const_assoc.tsv" 2> "$R/const_assoc.err"
  pack
  M=gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed_op_ldc.sum,idc__requests.sum,idc__requests_lookup_hit.sum,idc__requests_lookup_miss.sum,idc__request_cycles_active.sum,sm__idc_divergent_instruction_replays.sum,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  run ncu_const2 15 ncu --clock-control none --metrics "$M" --csv --print-units base \
      --log-file "$R/ncu_const2.csv" ./const ncu2 > "$R/ncu_const2_launches.txt" 2> "$R/ncu_const2.err"
fi
pack
stage done
{
  echo "cuda_coverage2: $(head -1 "$R/env.txt") | $(el)s, skipped $(grep -c SKIP "$R/log.txt")"
  echo "thr2 W=32 cyc/warp-LDC (hits), D@stride: $(awk -F'\t' '$1=="thr2" && $2==32 {printf "%s@%s:%s ", $3, $4, $8}' "$R/const_thr2.tsv" 2>/dev/null)"
  echo "thr2 D=1 by W: $(awk -F'\t' '$1=="thr2" && $3==1 {printf "W%s:%s ", $2, $8}' "$R/const_thr2.tsv" 2>/dev/null)"
  echo "assoc cyc/LDC N@S: $(awk -F'\t' '$1=="assoc" {printf "%s@%s:%s ", $2, $3, $6}' "$R/const_assoc.tsv" 2>/dev/null)"
  echo "ncu idc miss per launch: $(grep -E '"idc__requests_lookup_miss.sum"' "$R/ncu_const2.csv" 2>/dev/null | awk -F'","' '{printf "%s ", $NF}' | tr -d '"')"
} | tee "$R/summary.txt"
pack
rm -rf "$W"
