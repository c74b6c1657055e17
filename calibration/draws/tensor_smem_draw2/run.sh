#!/bin/bash
# calibration/draws/tensor_smem_draw2: the second random validation draw of the tensor_smem rules
# (issue #41), after tensor_smem_draw1's RESULT.md: 72 LDGSTS (+ 8 all-inactive controls), 20 TMA
# boxes (innermost coordinate 16-byte aligned) + 4 risky (2 tiles not 1024-aligned, 2 boxes whose
# innermost coordinate is not 16-byte aligned: predicted to fault), drawn by gen.py (seed in it);
# predictions.tsv was committed before this call.
# Run on the device machine from the repository root, $OUT an empty folder:
#   bash calibration/draws/tensor_smem_draw2/run.sh
# Everything lands in $OUT/tensor_smem_draw2.tar.gz (re-packed after every stage). Budget: 100 s,
# checked by the script itself (no ncu chunk starts or runs past END; stages that do not fit are
# skipped and logged in log.txt); the stdout summary is about 1.5 KB.
# Stages: env; build + SASS check; functional dumps (no ncu; each TMA box in its own process, so
# that a fault costs one box); ncu per launch: LDGSTS, TMA load+read-back+store and the load alone
# over the boxes whose dump did not fault; the Source page of 10 LDGSTS launches; the risky TMA
# boxes (dumped one process each, profiled if they did not fault); parse + compare.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_tensor_smem_draw2}; mkdir -p "$OUT"
W=$(mktemp -d); cd "$W" || exit 2
R=$W/tensor_smem_draw2; mkdir -p "$R"
# the probe, its SASS check and metric lists are draw1's (unchanged)
cp "$D"/../tensor_smem_draw1/probe.cu "$D"/../tensor_smem_draw1/metrics_*.txt "$D"/*.txt "$D"/*.tsv . && cp -r "$D"/lists .
START=$(date +%s)
END=86             # hard budget 100 s, minus parse (<= 6 s), compare (<= 4 s), packing, summary
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( END - $(el) )); }
log() { echo "$*" >> "$R/log.txt"; }
stage() { log "=== $(date -u +%T) +$(el)s $*"; }
pack() { tar czf "$OUT/tensor_smem_draw2.tar.gz" -C "$W" tensor_smem_draw2 2>/dev/null; }
cap() { local t=$(( $(left) - 3 )); [ $t -gt $1 ] && t=$1; echo $t; }
# run_chunk LIST-CHUNK OUTNAME METRICS CACHE MODE PATTERNS [EXTRA]: one ncu process over the
# launches listed in the file
run_chunk() {
  local c=$1 o=$2 metrics=$3 cache=$4 mode=$5 pfile=$6; shift 6
  [ -s "$c" ] || return 0
  if [ "$(left)" -lt 8 ]; then log "skip $o: $(wc -l < "$c") launches (time)"; return 0; fi
  timeout "$(cap 60)" ncu --clock-control none --cache-control "$cache" --metrics "$(cat "metrics_$metrics.txt")" \
    --csv --print-units base ./probe "$mode" "$pfile" "$c" "$@" > "$R/ncu_$o.csv" 2> "$R/ncu_$o.err"
  local rc=$?
  log "$o rc=$rc +$(el)s $(grep -c '^L ' "$R/ncu_$o.csv") of $(wc -l < "$c") launches"
  gzip -f "$R/ncu_$o.csv"
  pack
}
split -l 100 -d lists/cp.txt chunk_cp_

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1

stage build
timeout 90 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o probe probe.cu -lcuda > "$R/build.txt" 2>&1
rc=$?
NO_TMA=0
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(el)" -lt 40 ]; then
  log "build rc=$rc; retrying with -DNO_TMA, without -lcuda"
  timeout 60 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -DNO_TMA -o probe probe.cu > "$R/build_notma.txt" 2>&1
  rc=$?; NO_TMA=1
fi
if [ $rc -ne 0 ]; then
  log "BUILD FAILED rc=$rc"; echo "tensor_smem_draw2: BUILD FAILED rc=$rc"; head -c 1500 "$R/build.txt"; pack; rm -rf "$W"; exit 1
fi
log "build ok +$(el)s (NO_TMA=$NO_TMA)"
cuobjdump -sass probe > "$R/probe.sass" 2>&1
python3 "$D"/../tensor_smem_draw1/sass_check.py "$R/probe.sass" > "$R/sass_check.txt" 2>&1
grep -E 'MISSING|sass_check' "$R/sass_check.txt" >> "$R/log.txt"
gzip -f "$R/probe.sass"
pack

stage functional dumps
timeout 20 ./probe dump patterns.txt lists/cp.txt > "$R/dump_cp.txt" 2>&1; log "dump_cp rc=$?"
mkdir -p "$R/tma"; : > tma_ok.txt
if [ $NO_TMA -eq 0 ]; then
  for n in $(cat lists/tma.txt); do
    if [ "$(left)" -lt 40 ]; then log "skip dump $n (time)"; continue; fi
    echo "$n" > one.txt
    timeout 6 ./probe tmadump tma_patterns.txt one.txt > "$R/tma/${n}_dump.txt" 2>&1; rc=$?
    [ $rc -eq 0 ] && echo "$n" >> tma_ok.txt
    log "tmadump $n rc=$rc$( [ $rc -ne 0 ] && echo " ($(grep -m1 '^E' "$R/tma/${n}_dump.txt" | cut -c1-60))")"
  done
fi
cat "$R"/tma/*_dump.txt > "$R/dump_tma.txt" 2>/dev/null; rm -rf "$R/tma"
log "dump_tma: $(wc -l < tma_ok.txt) of $(wc -l < lists/tma.txt) boxes without a fault"
gzip -f "$R/dump_cp.txt" "$R/dump_tma.txt"
pack

stage ncu: LDGSTS, TMA
for c in chunk_cp_0[0-9]; do run_chunk $c ${c#chunk_} cp all one patterns.txt; done
run_chunk tma_ok.txt tma_full tma all tma tma_patterns.txt
run_chunk tma_ok.txt tma_load tma all tma tma_patterns.txt -m load

stage source page
if [ "$(left)" -gt 15 ]; then
  timeout "$(cap 25)" ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
    ./probe one patterns.txt lists/srcpage.txt > "$R/source_srcpage.csv" 2> "$R/source_srcpage.err"
  log "srcpage rc=$? +$(el)s"; gzip -f "$R/source_srcpage.csv"
else log "skip srcpage (time)"; fi
pack

stage risky TMA: a tmadump each in its own process, then ncu over those that did not fault
mkdir -p "$R/risky"; : > risky_ok.txt
if [ $NO_TMA -eq 0 ]; then
  for n in $(cat lists/tma_risky.txt); do
    if [ "$(left)" -lt 8 ]; then log "skip $n (time)"; continue; fi
    echo "$n" > one.txt
    timeout 8 ./probe tmadump tma_patterns.txt one.txt > "$R/risky/${n}_dump.txt" 2>&1; rc=$?
    if [ $rc -eq 0 ]; then echo "$n" >> risky_ok.txt; log "$n: dump rc=0 +$(el)s"
    else log "$n: dump rc=$rc ($(grep -m1 '^E' "$R/risky/${n}_dump.txt" | cut -c1-80)) +$(el)s"; fi
  done
fi
run_chunk risky_ok.txt risky tma all tma tma_patterns.txt
run_chunk risky_ok.txt risky_load tma all tma tma_patterns.txt -m load
pack

stage "ncu: exploration launches, explore.py, not scored: .ca grids, .cg rotations and strides"
run_chunk lists/explore.txt cp_90 cp all one explore_patterns.txt


stage parse
timeout 8 python3 "$D"/parse.py "$R" "$R/tables" > "$R/parse.txt" 2>&1; log "parse rc=$?"
timeout 6 python3 "$D"/compare.py "$R/tables" predictions.tsv > "$R/tables/compare.txt" 2>&1; log "compare rc=$?"
pack
stage done
pack
echo "--- tensor_smem_draw2 ($(el)s): $(grep -m1 'NVIDIA' "$R/env.txt" | cut -c1-40); $(tail -1 "$R/env.txt" | cut -c1-50)"
grep -h 'sass_check:' "$R/log.txt"
grep -E '^(cp_|tma_|risky |srcpage|dump_|skip|build)' "$R/log.txt" | sed -E 's/ launches//; s/rc=0 //' | awk '{printf "%s; ", $0} END {print ""}' | cut -c1-500
echo "risky: $(grep -c 'dump rc=0' "$R/log.txt") ran; faulted: $(grep -E '^d2_tma_risky.*dump rc=[1-9]' "$R/log.txt" | cut -d: -f1 | tr '\n' ' ')"
head -2 "$R/parse.txt" | cut -c1-160
grep -E '^  (ldsm|stsm|ldgsts|lds|sts|tma|mbar|mat|cp|source|errors|alt)' "$R/tables/compare.txt" \
  | grep -E 'wf/bc|all five|measured|tma|mbar|source|words|regs|errors|alt_' | grep -v 'cache_access\|cache_bypass' \
  | sed -E 's/ +/ /g; s/: right where it differs( from the rule| from M1)?//; s/ \((lowest|swizzle)[^)]*\)//; s/wavefronts/wf/g' \
  | head -42 | cut -c1-100
rm -rf "$W"
