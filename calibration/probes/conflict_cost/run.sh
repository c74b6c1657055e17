#!/bin/bash
# H200 campaign for issue 38 items 1-2 (what a bank conflict costs in reductions and scans): builds
# probe.cu, dumps and checks its SASS, runs every launch of launches.tsv once with its CPU checks,
# the per-level clock64 launches, then Nsight Compute per group in order of priority (per-launch
# metrics: time, cycles, instructions, shared wavefronts and conflicts, stall reasons), and the
# Source page (per SASS instruction) of the `src` launches. Keeps to its budget by itself: a group
# whose estimated time does not fit is skipped (said in the log and the summary).
# Run from the repository root: `OUT=/some/dir bash calibration/probes/conflict_cost/run.sh`.
# Everything goes under $OUT/conflict_cost, packed into $OUT/conflict_cost.tar.gz after every
# stage. Budget: 200 s (BUDGET=... to change it).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_conflict_cost}; mkdir -p "$OUT"
BUDGET=${BUDGET:-200}
START=$(date +%s)
R=$OUT/conflict_cost; mkdir -p "$R"
W=$(mktemp -d); cp "$D/probe.cu" "$D/launches.tsv" "$W/"; cd "$W" || exit 2
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
log() { echo "$*" | tee -a "$R/log.txt"; }
stage() { log "=== $(date -u +%T) +$(el)s $*"; }
pack() { tar czf "$OUT/conflict_cost.tar.gz" -C "$OUT" conflict_cost 2>/dev/null; }
cp "$D/launches.tsv" "$D/predictions.tsv" "$D/hypotheses.tsv" "$R/" 2>/dev/null

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
head -1 "$R/env.txt"; tail -1 "$R/env.txt"

stage build
timeout 120 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o probe probe.cu > "$R/build.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then log "BUILD FAILED rc=$rc"; tail -30 "$R/build.txt"; pack; exit 1; fi
grep -E 'error|warning' "$R/build.txt" | head -5
timeout 30 cuobjdump -sass probe > "$R/probe.sass" 2>&1
python3 "$D/check_sass.py" "$R/probe.sass" > "$R/sass_check.txt" 2>&1
grep -E 'UNEXPECTED|sass_check' "$R/sass_check.txt" | head -8
pack

stage run: every launch once, CPU checks
timeout 60 ./probe launches.tsv classic,lvl1,tree,mod,lvl2 > "$R/run.txt" 2> "$R/run_launches.txt"
log "run rc=$?: $(grep -c $'\tok$' "$R/run.txt") ok, $(grep -c WRONG "$R/run.txt") WRONG, $(grep -c unchecked "$R/run.txt") unchecked"
grep WRONG "$R/run.txt" | head -5
tail -3 "$R/run_launches.txt" | grep -v '^LAUNCH'
timeout 30 ./probe launches.tsv clock clock > "$R/clock.txt" 2> "$R/clock_launches.txt"
log "clock rc=$?: $(grep -c '^CLOCK' "$R/clock.txt") launches"
pack

# Metrics: those of calibration/classic (all known to this ncu) and, if this ncu takes them, the
# thread-instruction counts (predicated-on share). Tried on one launch first.
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping tex_throttle imc_miss"
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active"
for op in ld st; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
M="$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"
for s in $STALLS; do M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
MX="$M,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum"
stage ncu metric test
head -2 launches.tsv > one.tsv
timeout 40 ncu --clock-control none --print-units base --csv --metrics "$MX" --log-file "$R/ncu_test.csv" \
  ./probe one.tsv classic > /dev/null 2> "$R/ncu_test.err"
if grep -q smsp__thread_inst_executed_pred_on "$R/ncu_test.csv" 2>/dev/null && grep -q gpu__time_duration "$R/ncu_test.csv"; then
  M=$MX; log "metrics: with thread-instruction counts"
else
  log "metrics: without thread-instruction counts"; tail -3 "$R/ncu_test.csv" "$R/ncu_test.err"
fi
echo "$M" > "$R/metrics_used.txt"
pack

# Chunks of at most 45 launches, profiled in order of priority (the two decisive groups in turn,
# then the rest) while the budget lasts; seconds per launch measured as they go (first guess 0.5).
RATE=0.5
CH=45
for g in classic lvl1 tree src mod lvl2; do
  awk -F'\t' -v g="$g" -v ch=$CH 'NR == 1 { h = $0; next } $11 == g { n++; f = g "." int((n - 1) / ch) + 1 ".tsv"; if (!(f in s)) { print h > f; s[f] = 1 } print > f }' launches.tsv
done
chunks() { ls "$1".*.tsv 2>/dev/null | sort -t. -k2 -n | sed 's/\.tsv$//'; }
ORDER=$(paste -d' ' <(chunks classic) <(chunks lvl1) | tr ' ' '\n' | grep .; for g in tree src mod lvl2; do chunks $g; done)
ncu_chunk() {
  local c=$1 g=${1%%.*} n est t0 t1 lim rc
  n=$(( $(wc -l < "$c.tsv") - 1 ))
  est=$(python3 -c "print(int(3 + $n * $RATE + 0.999))")
  if [ $(( $(el) + est )) -gt $(( BUDGET - 8 )) ]; then
    log "SKIP ncu $c: $n launches, estimated ${est}s, $(left)s left"; return
  fi
  lim=$(( $(left) - 6 ))
  echo "=== $(date -u +%T) +$(el)s ncu $c: $n launches, estimated ${est}s, limit ${lim}s" >> "$R/log.txt"
  t0=$(date +%s)
  if [ "$g" = src ]; then
    timeout -k 5 $lim ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
      ./probe "$c.tsv" src > "$R/source_$c.csv" 2> "$R/launches_$c.txt"
    rc=$?
  else
    timeout -k 5 $lim ncu --clock-control none --print-units base --csv --metrics "$M" \
      --log-file "$R/ncu_$c.csv" ./probe "$c.tsv" "$g" > "$R/ncu_${c}_run.txt" 2> "$R/launches_$c.txt"
    rc=$?
  fi
  t1=$(date +%s)
  [ "$g" != src ] && RATE=$(python3 -c "print(round(max(0.1, ($t1 - $t0 - 2) / max(1, $n)), 2))")
  log "ncu $c: $n launches, rc=$rc, $(( t1 - t0 ))s (+$(el)s; $RATE s a launch)"
  pack
}
echo "chunks: $(echo $ORDER)" >> "$R/log.txt"
for c in $ORDER; do ncu_chunk "$c"; done

stage parse and compare
cp "$D"/*.py "$R/" 2>/dev/null
python3 "$D/parse.py" "$R" "$R" 2>&1 | tee -a "$R/log.txt" | head -8
python3 "$D/compare.py" "$R/measured.tsv" "$D/predictions.tsv" "$R/compare.txt" 2>&1 | tee "$R/summary.txt"
stage done
gzip -f "$R/probe.sass" 2>/dev/null
pack
ls -la "$OUT/conflict_cost.tar.gz"
rm -rf "$W"
