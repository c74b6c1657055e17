#!/bin/bash
# H200 (or H100) run of the out-of-family validation set 2: builds ooff2.cu, dumps and
# summarises its SASS, runs every launch of launches.tsv once with its CPU check, then Nsight
# Compute per launch (time, cycles, instructions, shared wavefronts / conflicts / instructions
# incl. atomics, stall reasons) in chunks. No Source-page stage (out_of_family1 had one).
# Run from the repository root: `OUT=/some/dir bash calibration/draws/out_of_family2/run.sh`.
# Everything goes under $OUT/out_of_family2, packed into $OUT/out_of_family2.tar.gz after every
# stage. Hard budget: 200 s (BUDGET=... to change it); a chunk whose estimate does not fit is
# skipped and the log says so. Every command runs under `timeout`.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_out_of_family2}; mkdir -p "$OUT"
BUDGET=${BUDGET:-200}
START=$(date +%s)
R=$OUT/out_of_family2; mkdir -p "$R"
W=$(mktemp -d); cp "$D/ooff2.cu" "$D/launches.tsv" "$W/"; cd "$W" || exit 2
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
log() { echo "$*" | tee -a "$R/log.txt"; }
stage() { log "=== $(date -u +%T) +$(el)s $*"; }
pack() { tar czf "$OUT/out_of_family2.tar.gz" -C "$OUT" out_of_family2 2>/dev/null; }
cp "$D/launches.tsv" "$R/"; cp "$D/predictions.tsv" "$D"/baseline_model_*.tsv "$R/" 2>/dev/null

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
head -1 "$R/env.txt"

stage build
timeout 150 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o ooff2 ooff2.cu > "$R/build.txt" 2>&1
rc=$?
if [ $rc -ne 0 ]; then log "BUILD FAILED rc=$rc"; grep -m 8 -i error "$R/build.txt" | cut -c1-160; pack; exit 1; fi
timeout 30 cuobjdump -sass ooff2 > "$R/ooff2.sass" 2>&1
timeout 20 python3 "$D/check_sass.py" "$R/ooff2.sass" > "$R/sass_check.txt" 2>&1
grep -E 'NOTE|UNEXPECTED|sass_check' "$R/sass_check.txt" | head -6
gzip -f "$R/ooff2.sass"
pack

stage run: every launch once, CPU checks
timeout 60 ./ooff2 launches.tsv all check > "$R/run.txt" 2> "$R/run_launches.txt"
log "run rc=$?: $(grep -c $'\tok$' "$R/run.txt") ok, $(grep -c WRONG "$R/run.txt") WRONG, $(grep -c unchecked "$R/run.txt") unchecked (of $(( $(wc -l < launches.tsv) - 1 )))"
grep WRONG "$R/run.txt" | head -5
grep -v '^LAUNCH' "$R/run_launches.txt" | tail -3
pack

# Metrics: those of the conflict_cost probe (all known to this ncu: first call of session 2026-12),
# the shared atomics' wavefronts and conflicts (calibration/kernels2), then if this ncu takes them
# the atomics' instruction count and thread-instruction counts. Tried on one launch first.
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping tex_throttle imc_miss"
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active"
for op in ld st; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
M="$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"
for s in $STALLS; do M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"
MX="$M,smsp__thread_inst_executed.sum,smsp__thread_inst_executed_pred_on.sum,smsp__sass_inst_executed_op_shared_atom.sum"
stage ncu metric test
awk -F'\t' 'NR == 1 || $1 == "dhist_v0_g132"' launches.tsv > one.tsv
try() {
  timeout 40 ncu --clock-control none --print-units base --csv --metrics "$1" --log-file "$R/ncu_test.csv" \
    ./ooff2 one.tsv all > /dev/null 2> "$R/ncu_test.err"
  grep -q "$2" "$R/ncu_test.csv" 2>/dev/null && grep -q gpu__time_duration "$R/ncu_test.csv"
}
if try "$MX" smsp__sass_inst_executed_op_shared_atom; then
  M=$MX; log "metrics: all (atomics' instructions, thread instructions)"
elif try "$M" l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom; then
  log "metrics: base set with atomics' wavefronts"
else
  M=${M%,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum*}
  log "metrics: base set only"; tail -3 "$R/ncu_test.csv" "$R/ncu_test.err"
fi
echo "$M" > "$R/metrics_used.txt"
pack

# Chunks of at most 36 launches in launches.tsv's order, while the budget lasts.
RATE=0.5
awk -F'\t' 'NR == 1 { h = $0; next } { n++; f = "all." int((n - 1) / 36) + 1 ".tsv"; if (!(f in s)) { print h > f; s[f] = 1 } print > f }' launches.tsv
ncu_chunk() {
  local c=$1 n est t0 t1 lim rc
  n=$(( $(wc -l < "$c.tsv") - 1 ))
  est=$(python3 -c "print(int(4 + $n * $RATE + 0.999))")
  if [ $(( $(el) + est )) -gt $(( BUDGET - 10 )) ]; then
    log "SKIP ncu $c: $n launches, estimated ${est}s, $(left)s left"; return
  fi
  lim=$(( $(left) - 8 ))
  echo "=== $(date -u +%T) +$(el)s ncu $c: $n launches, estimated ${est}s, limit ${lim}s" >> "$R/log.txt"
  t0=$(date +%s)
  timeout -k 5 $lim ncu --clock-control none --print-units base --csv --metrics "$M" \
    --log-file "$R/ncu_$c.csv" ./ooff2 "$c.tsv" all > "$R/ncu_${c}_run.txt" 2> "$R/launches_$c.txt"
  rc=$?
  t1=$(date +%s)
  RATE=$(python3 -c "print(round(max(0.1, ($t1 - $t0 - 3) / max(1, $n)), 2))")
  t1=$(date +%s)
  log "ncu $c: $n launches, rc=$rc, $(( t1 - t0 ))s (+$(el)s; $RATE s a launch)"
  pack
}
for c in $(ls all.*.tsv | sort -t. -k2 -n | sed 's/\.tsv$//'); do ncu_chunk "$c"; done

stage parse and compare
cp "$D"/*.py "$R/" 2>/dev/null
timeout 30 python3 "$D/parse.py" "$R" "$R" 2>&1 | tee -a "$R/log.txt" | head -6
P=""; for f in "$D/predictions.tsv" "$D"/baseline_model_*.tsv; do [ -f "$f" ] && P="$P $f"; done
if [ -n "$P" ]; then
  timeout 30 python3 "$D/compare.py" "$R/measured.tsv" "$R/compare.txt" $P 2>&1 | tee "$R/summary.txt" | head -12
else
  log "no predictions beside run.sh: compare skipped"
fi
stage done
pack
ls -la "$OUT/out_of_family2.tar.gz"
rm -rf "$W"
