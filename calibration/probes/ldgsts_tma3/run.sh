#!/bin/bash
# calibration/probes/ldgsts_tma3: the two questions tensor_smem_draw2's RESULT.md left open.
#  (1) LDGSTS with zero-fill (cp.async .ca/.cg 4/8/16 with a src-size operand): 278 launches, one
#      factor at a time (src-size pattern, destination, source, .ca/.cg, width; references without
#      src-size; all-inactive controls), ncu per launch with tensor_smem_draw1's metric list, the
#      Source page of 12, a functional dump of all. Predictions (warpsim today): predictions.tsv.
#  (2) TMA with a negative box coordinate: 63 cases (2-D/3-D, -1/-4/-16/-17 on each dimension,
#      swizzle none/128B, innermost 16-byte aligned or not, controls at 0 and over the upper edge,
#      draw2's faulting boxes verbatim), each case and mode (L load, S store, LS both) in its own
#      process. Hypotheses: PREDICTION.md.
# Run on the device machine from the repository root, $OUT an empty folder:
#   OUT=$OUT bash calibration/probes/ldgsts_tma3/run.sh
# Everything lands in $OUT/ldgsts_tma3/ and $OUT/ldgsts_tma3.tar.gz (re-packed after every stage).
# Budget 150 s including the builds, checked by the script (a stage that does not fit is skipped
# and logged in log.txt); stdout about 1.2 KB.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_ldgsts_tma3}; mkdir -p "$OUT"
R=$OUT/ldgsts_tma3; mkdir -p "$R/tma"
W=$(mktemp -d); cd "$W" || exit 2
cp "$D"/ldgsts.cu "$D"/tma_neg.cu "$D"/ldgsts_patterns.txt "$D"/tma_cases.txt "$D"/metrics_ldgsts.txt . && cp -r "$D"/lists .
START=$(date +%s)
END=138            # hard budget 150 s, minus summarize (<= 8 s), packing and the summary
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( END - $(el) )); }
log() { echo "$*" >> "$R/log.txt"; }
stage() { log "=== $(date -u +%T) +$(el)s $*"; }
pack() { timeout 10 tar czf "$OUT/ldgsts_tma3.tar.gz" -C "$OUT" ldgsts_tma3 2>/dev/null; }
cap() { local t=$(( $(left) - 2 )); [ $t -gt $1 ] && t=$1; [ $t -lt 1 ] && t=1; echo $t; }
# ncu_chunk LIST NEED: one ncu process over the LDGSTS launches of LIST, if NEED seconds are left
ncu_chunk() {
  local c=$1 need=$2 o; o=$(basename "$1" .txt)
  [ -x ./ldgsts ] || return 0
  if [ "$(left)" -lt "$need" ]; then log "skip ncu $o: $(wc -l < "$c") launches (time)"; return 0; fi
  timeout "$(cap 70)" ncu --clock-control none --cache-control all --metrics "$(cat metrics_ldgsts.txt)" \
    --csv --print-units base ./ldgsts one ldgsts_patterns.txt "$c" > "$R/ncu_$o.csv" 2> "$R/ncu_$o.err"
  log "ncu $o rc=$? +$(el)s $(grep -c '^L ' "$R/ncu_$o.csv") of $(wc -l < "$c") launches"
  gzip -f "$R/ncu_$o.csv"; pack
}
# tma_mode MODE LIST: each case of LIST in its own process
tma_mode() {
  local mode=$1 n rc
  [ -x ./tma_neg ] || { log "skip tma $mode (no binary)"; return 0; }
  for n in $(cat "$2"); do
    if [ "$(left)" -lt 3 ]; then log "skip tma $n $mode (time)"; continue; fi
    timeout 5 ./tma_neg tma_cases.txt "$n" "$mode" > "$R/tma/${n}_$mode.txt" 2>&1; rc=$?
    echo "$n $mode $rc" >> "$R/tma_rc.txt"
  done
  local all ran flt; all=$(grep -c " $mode " "$R/tma_rc.txt"); ran=$(grep -c " $mode 0\$" "$R/tma_rc.txt")
  flt=$(grep -c " $mode 3\$" "$R/tma_rc.txt")
  log "tma $mode +$(el)s: $ran ran, $flt faulted, $(( all - ran - flt )) other of $all"
  pack
}
grep -v '^#' tma_cases.txt | awk '{print $1}' > all_tma.txt

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1

stage build
( timeout 90 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o ldgsts ldgsts.cu > "$R/build_ldgsts.txt" 2>&1; echo "rc=$?" >> "$R/build_ldgsts.txt" ) &
( timeout 90 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o tma_neg tma_neg.cu -lcuda > "$R/build_tma.txt" 2>&1; echo "rc=$?" >> "$R/build_tma.txt" ) &
wait
log "build +$(el)s: ldgsts $(tail -1 "$R/build_ldgsts.txt"), tma_neg $(tail -1 "$R/build_tma.txt")"
for b in ldgsts tma_neg; do
  [ -x ./$b ] && timeout 20 cuobjdump -sass ./$b > "$R/$b.sass" 2>&1
done
timeout 10 python3 "$D"/summarize.py sass "$R"/*.sass > "$R/sass_check.txt" 2>&1
grep -E 'MISSING|sass_check' "$R/sass_check.txt" >> "$R/log.txt"
gzip -f "$R"/*.sass 2>/dev/null
pack
if [ ! -x ./ldgsts ] && [ ! -x ./tma_neg ]; then
  echo "ldgsts_tma3: BUILD FAILED"; head -c 1200 "$R/build_ldgsts.txt"; rm -rf "$W"; exit 1
fi

stage "ldgsts functional dump (no ncu)"
if [ -x ./ldgsts ]; then
  timeout 20 ./ldgsts dump ldgsts_patterns.txt - > "$R/dump_ldgsts.txt" 2>&1; log "dump rc=$? +$(el)s"
  gzip -f "$R/dump_ldgsts.txt"; pack
fi

stage "tma L: the load alone, every case"
tma_mode L all_tma.txt
stage "ncu ldgsts chunk 0: controls, every src-size pattern"
ncu_chunk lists/ldgsts_0.txt 24
stage "tma S: the store alone, every case"
tma_mode S all_tma.txt
stage "ncu ldgsts chunk 1: destination x source, src-size w/2 and 0"
ncu_chunk lists/ldgsts_1.txt 24
stage "tma LS: load then store (draw2's path), 18 cases"
tma_mode LS lists/tma_ls.txt
stage "ncu ldgsts chunk 2: references without src-size, .cg src-size 16"
ncu_chunk lists/ldgsts_2.txt 16
stage "source page"
if [ -x ./ldgsts ] && [ "$(left)" -gt 9 ]; then
  timeout "$(cap 25)" ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
    ./ldgsts one ldgsts_patterns.txt lists/srcpage.txt > "$R/source_srcpage.csv" 2> "$R/source_srcpage.err"
  log "srcpage rc=$? +$(el)s"; gzip -f "$R/source_srcpage.csv"
else log "skip srcpage (time)"; fi
( cd "$R/tma" && timeout 10 tar czf ../tma_out.tar.gz . ) && rm -rf "$R/tma"
pack

stage summarize
timeout 8 python3 "$D"/summarize.py "$R" --out "$R/tables" > "$R/summary.txt" 2>&1; log "summarize rc=$?"
stage done
pack
echo "--- ldgsts_tma3 ($(el)s): $(grep -m1 'NVIDIA' "$R/env.txt" | cut -c1-40); $(grep -m1 release "$R/env.txt" | cut -c1-40)"
grep -h 'sass_check:' "$R/log.txt"
grep -E '^(build|dump|ncu|tma|srcpage|skip)' "$R/log.txt" | sed -E 's/ launches//; s/rc=0 //' | awk '{printf "%s; ", $0} END {print ""}' | cut -c1-300
grep -v "^tables:" "$R/summary.txt" | head -c 950
rm -rf "$W"
