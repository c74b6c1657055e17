#!/bin/bash
# Device run of calibration/probes/tma_swizzle (repository root; OUT an empty folder):
#  (1) host.cu: where a TMA tensor copy puts each element of its box in shared memory, per
#      swizzle mode, out-of-bound fills (none; f32 NaN), narrow boxes, a 3-D box, boxes below the
#      swizzle's alignment (cases.txt; one process for all, then each case left without a line
#      alone: a fault loses the context) -> device.txt, compared with predictions.txt here;
#  (2) tile_host.cu: programs/cuda/tensor/tma_tile<0|128> and mbar_pipeline<0|1> checked and
#      timed, then ncu's shared counters of one launch each (all metrics in one ncu; if ncu
#      refuses, one ncu per metric group; then a few measured-only extras) -> tile.txt,
#      ncu_tile*.csv;
#  SASS of both with the TMA/SYNCS/LDS/LDGSTS opcodes counted per kernel. Everything lands in
#  $OUT/tma_swizzle/ and $OUT/tma_swizzle.tgz (re-packed after each stage). ~1-2 minutes; every
#  step has a timeout and the whole stays under 280 s; rc of each step in log.txt.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_tma_swizzle}; R=$OUT/tma_swizzle; mkdir -p "$R"
cd "$D" || exit 2
START=$(date +%s)
el() { echo $(( $(date +%s) - START )); }
log() { echo "$* (+$(el)s)" | tee -a "$R/log.txt"; }
# cap N: N seconds, or what is left of the 280 s budget (at least 1)
cap() { local t=$(( 280 - $(el) )); [ "$t" -gt "$1" ] && t=$1; [ "$t" -lt 1 ] && t=1; echo "$t"; }
pack() { (cd "$OUT" && timeout 20 tar czf tma_swizzle.tgz tma_swizzle); }
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)

timeout 150 nvcc -O3 -arch=sm_90a -std=c++17 -o "$B/host" host.cu -lcuda > "$R/build_host.txt" 2>&1 &
P1=$!
timeout 150 nvcc -O3 -arch=sm_90a -std=c++17 -o "$B/tile_host" tile_host.cu -lcuda > "$R/build_tile.txt" 2>&1 &
P2=$!
wait $P1; log "host build rc=$?"
wait $P2; log "tile_host build rc=$?"
[ -x "$B/host" ] || tail -15 "$R/build_host.txt"
[ -x "$B/tile_host" ] || tail -15 "$R/build_tile.txt"
OPS='(UTMA[A-Z]*|UBLKCP|SYNCS|LDSM|LDS|LDGSTS|LDGDEPBAR|DEPBAR|ARRIVES|STS)[.A-Z0-9_]*'
for b in host tile_host; do
  [ -x "$B/$b" ] || continue
  timeout "$(cap 60)" cuobjdump -sass "$B/$b" > "$R/$b.sass" 2>&1; log "$b cuobjdump rc=$?"
  # per kernel: count opcode
  awk -v ops="$OPS" '/Function :/ {f = $3}
    { s = $0; while (match(s, "[ \t]" ops)) { c[f " " substr(s, RSTART + 1, RLENGTH - 1)]++; s = substr(s, RSTART + RLENGTH) } }
    END { for (k in c) print k, c[k] }' "$R/$b.sass" | sort > "$R/${b}_sass_ops.txt"
done
cat "$R"/*_sass_ops.txt 2>/dev/null | awk '{c[$2] += $3} END {for (k in c) printf "%s %d; ", k, c[k]; print ""}'
pack

# (1) the boxes
: > "$R/device.txt"
if [ -x "$B/host" ]; then
  timeout "$(cap 60)" "$B/host" cases.txt > "$R/device.txt" 2> "$R/host.err"; log "host (all cases) rc=$?"
  for n in $(grep -v '^#' cases.txt | awk 'NF {print $1}'); do
    grep -qE "^case $n |^# $n (ENCODE|FAULT|USAGE)" "$R/device.txt" && continue
    [ $(( 280 - $(el) )) -lt 3 ] && { log "skip host $n (time)"; continue; }
    timeout "$(cap 15)" "$B/host" cases.txt "$n" >> "$R/device.txt" 2>> "$R/host.err"; log "host $n alone rc=$?"
  done
  log "host: $(grep -c '^case ' "$R/device.txt") case lines of $(grep -v '^#' cases.txt | awk 'NF' | wc -l)"
  grep -E '^# [^ ]+ (FAULT|TIMEOUT|ENCODE|USAGE)' "$R/device.txt" | tee -a "$R/log.txt"
  timeout 30 python3 compare.py "$R" > "$R/compare.txt" 2>&1; log "compare rc=$?"
  grep -E '^boxes|ALL EQUAL|DIFF|MISSING|predicted ->|alt:|refuses' "$R/compare.txt" | head -60
fi
pack

# (2) counters
if [ -x "$B/tile_host" ]; then
  timeout "$(cap 60)" "$B/tile_host" > "$R/tile.txt" 2>&1; log "tile_host rc=$?"; cat "$R/tile.txt"
  G1=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,gpu__time_duration.sum
  G2=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum
  G3=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  G4=smsp__sass_inst_executed_op_ldgsts.sum
  G5=l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  timeout "$(cap 120)" ncu --metrics "$G1,$G2,$G3,$G4,$G5" --csv --print-units base "$B/tile_host" once \
    > "$R/ncu_tile.csv" 2> "$R/ncu_tile.err"; rc=$?; log "ncu all metrics rc=$rc"
  if [ $rc -ne 0 ] || ! grep -q '^"' "$R/ncu_tile.csv"; then
    tail -5 "$R/ncu_tile.err"
    mv "$R/ncu_tile.csv" "$R/ncu_tile_failed.csv.txt"
    i=1
    for g in "$G1" "$G2" "$G3" "$G4" "$G5"; do
      timeout "$(cap 60)" ncu --metrics "$g" --csv --print-units base "$B/tile_host" once \
        > "$R/ncu_tile_g$i.csv" 2> "$R/ncu_tile_g$i.err"; log "ncu group $i ($g) rc=$?"
      i=$((i + 1))
    done
  fi
  # measured only (no prediction): bank reads/writes (TMA's writes show there), the misc op
  # (SYNCS?), the Source-page LDGSTS wavefronts warpsim reports for cp.async
  G6=l1tex__data_bank_writes.sum,l1tex__data_bank_reads.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
  timeout "$(cap 60)" ncu --metrics "$G6" --csv --print-units base "$B/tile_host" once \
    > "$R/ncu_tile_extra.csv" 2> "$R/ncu_tile_extra.err"; log "ncu extra metrics rc=$?"
  timeout 30 python3 compare.py "$R" > "$R/compare.txt" 2>&1; log "compare rc=$?"
  sed -n '/^counters/,$p' "$R/compare.txt" | head -90
fi
log "done"
pack
rm -rf "$B"
