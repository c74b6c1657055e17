#!/bin/bash
# calibration/probes/tensor_smem: the shared-memory side of LDSM/STSM, LDGSTS (cp.async), TMA and
# the bulk copy on the H200 (issue #41 item 1, first call: the pattern families).
# Run on the device machine from the repository root, $OUT an empty folder:
#   bash calibration/probes/tensor_smem/run.sh
# Everything lands in $OUT/tensor_smem.tar.gz (re-packed after every stage). Budget: 240 s,
# checked by the script itself (stages that do not fit are skipped and logged in log.txt).
# Stages: env; build (+ the .b8 ldmatrix/stmatrix forms tried for sm_90/sm_90a/sm_100a) and SASS
# check; ncu --query-metrics and metric selection; functional dumps (no ncu); ncu per launch, in
# chunks of 100 in priority order: m_core_00 (LDSM/STSM), c_core_00 (LDGSTS), tma, mix (+ its
# Source page), the rest of m_core and c_core, m_extra, the Source page of a few launches, risky
# patterns (dumped one process each, profiled if they did not fault); parse + compare summary.
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_tensor_smem}; mkdir -p "$OUT"
W=$(mktemp -d); cd "$W" || exit 2
R=$W/tensor_smem; mkdir -p "$R"
cp "$D"/probe.cu "$D"/b8_forms.cu "$D"/patterns.txt "$D"/tma_patterns.txt "$D"/*.py "$D"/predictions.tsv .
cp -r "$D"/lists .
START=$(date +%s)
END=220            # hard budget 240 s, minus parse (<= 10 s), compare (<= 5 s), packing, summary
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( END - $(el) )); }
log() { echo "$*" >> "$R/log.txt"; }
stage() { log "=== $(date -u +%T) +$(el)s $*"; }
pack() { tar czf "$OUT/tensor_smem.tar.gz" -C "$W" tensor_smem 2>/dev/null; }
# run_chunk CHUNK METRICS CACHE [MODE]: ncu over the launches listed in the file CHUNK
# (lists/*.txt split into chunks of 100: chunk_<list>_NN), one ncu process per chunk
run_chunk() {
  local c=$1 metrics=$2 cache=$3 mode=${4:-one} pfile=patterns.txt
  [ "$mode" = tma ] && pfile=tma_patterns.txt
  [ -f "$c" ] || return 0
  local L; L=$(left)
  if [ "$L" -lt 15 ]; then log "skip $c: $(wc -l < "$c") launches (time)"; return 0; fi
  local to=$(( L - 5 )); [ $to -gt 120 ] && to=120
  timeout $to ncu --clock-control none --cache-control "$cache" --metrics "$(cat "$R/metrics_$metrics.txt")" \
    --csv --print-units base ./probe "$mode" "$pfile" "$c" > "$R/ncu_${c#chunk_}.csv" 2> "$R/ncu_${c#chunk_}.err"
  local rc=$?
  log "$c rc=$rc +$(el)s $(grep -c '^L ' "$R/ncu_${c#chunk_}.csv") of $(wc -l < "$c") launches"
  gzip -f "$R/ncu_${c#chunk_}.csv"
  pack
}
for l in m_core c_core tma m_extra; do split -l 100 -d "lists/$l.txt" chunk_${l}_; done

{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1

stage build
mkdir -p b8
( for F in 1 2 3 4 5 6; do for A in sm_90 sm_90a sm_100a; do
    ( timeout 60 nvcc -gencode arch=compute_${A#sm_},code=$A -cubin -DFORM=$F -o b8/${F}_${A}.cubin b8_forms.cu \
        > b8/${F}_${A}.log 2>&1; echo "rc=$?" >> b8/${F}_${A}.log ) &
  done; done; wait ) &
B8=$!
timeout 150 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o probe probe.cu -lcuda > "$R/build.txt" 2>&1
rc=$?
NO_TMA=0
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(el)" -lt 60 ]; then
  # fallback: the same probe without the driver API (TMA launches then skip themselves)
  log "build rc=$rc; retrying with -DNO_TMA, without -lcuda"
  timeout 90 nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -DNO_TMA -o probe probe.cu > "$R/build_notma.txt" 2>&1
  rc=$?; NO_TMA=1
fi
if [ $rc -ne 0 ]; then
  kill $B8 2>/dev/null
  log "BUILD FAILED rc=$rc"; echo "tensor_smem: BUILD FAILED rc=$rc"; head -c 1500 "$R/build.txt"; pack; exit 1
fi
for i in $(seq 40); do kill -0 $B8 2>/dev/null || break; sleep 1; done
kill $B8 2>/dev/null && log "b8 forms: stopped (time)"
for F in 1 2 3 4 5 6; do for A in sm_90 sm_90a sm_100a; do
  echo "--- FORM $F $A"; head -4 b8/${F}_${A}.log 2>/dev/null | grep -v '^rc='; grep '^rc=' b8/${F}_${A}.log 2>/dev/null || echo "rc=none"
done; done > "$R/b8_forms.txt"
log "b8 forms (FORM arch rc): $(awk '/^--- FORM/{f=$3" "$4} /^rc=/{printf "%s %s; ", f, substr($0,4)}' "$R/b8_forms.txt")"
cuobjdump -sass probe > "$R/probe.sass" 2>&1
python3 sass_check.py "$R/probe.sass" > "$R/sass_check.txt" 2>&1
grep -E 'MISSING|sass_check' "$R/sass_check.txt" >> "$R/log.txt"
gzip -f "$R/probe.sass"
pack

stage query metrics
timeout 60 ncu --query-metrics > "$R/query_metrics.txt" 2>&1
python3 select_metrics.py "$R/query_metrics.txt" "$R" >> "$R/log.txt" 2>&1
gzip -f "$R/query_metrics.txt"
pack

stage functional dumps
timeout 30 ./probe dump patterns.txt lists/dump_m.txt > "$R/dump_m.txt" 2>&1; log "dump_m rc=$?"
timeout 30 ./probe dump patterns.txt lists/dump_c.txt > "$R/dump_c.txt" 2>&1; log "dump_c rc=$?"
timeout 20 ./probe tmadump tma_patterns.txt lists/dump_tma.txt > "$R/dump_tma.txt" 2>&1; TMA_RC=$?; log "dump_tma rc=$TMA_RC"
[ $NO_TMA -eq 1 ] && TMA_RC=99
pack

# the first chunk of each group first (each list is in priority order), then the rest
stage ncu m_core_00, c_core_00, tma
run_chunk chunk_m_core_00 mat none
run_chunk chunk_c_core_00 cp all
# a TMA launch that faulted or hung in the dump is not profiled (nor is mix, which holds one)
if [ $TMA_RC -eq 0 ]; then run_chunk chunk_tma_00 tma all tma; else log "skip tma: dump_tma rc=$TMA_RC"; fi
stage mix: counters and Source page
cap() { local t=$(( $(left) - 5 )); [ $t -gt $1 ] && t=$1; echo $t; }
if [ "$(left)" -gt 25 ] && [ $TMA_RC -eq 0 ]; then
  timeout "$(cap 40)" ncu --clock-control none --cache-control all --metrics "$(cat "$R/metrics_all.txt")" --csv --print-units base \
    ./probe mix > "$R/ncu_mix.csv" 2> "$R/ncu_mix.err"; log "mix counters rc=$? +$(el)s"
  if [ "$(left)" -gt 15 ]; then
  timeout "$(cap 40)" ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
    ./probe mix > "$R/source_mix.csv" 2> "$R/source_mix.err"; log "mix source page rc=$? +$(el)s"
  fi
else log "skip mix (time or TMA)"; fi
pack
stage ncu rest of m_core and c_core
for c in chunk_m_core_0[1-9]; do run_chunk $c mat none; done
for c in chunk_c_core_0[1-9]; do run_chunk $c cp all; done
stage ncu m_extra
for c in chunk_m_extra_*; do run_chunk $c mat none; done
stage source page of a few launches
if [ "$(left)" -gt 30 ]; then
  timeout $(( $(left) - 10 )) ncu --clock-control none --section SourceCounters --page source --print-source sass --csv \
    ./probe one patterns.txt lists/srcpage.txt > "$R/source_srcpage.csv" 2> "$R/source_srcpage.err"
  log "srcpage rc=$? +$(el)s"; gzip -f "$R/source_srcpage.csv"
else log "skip srcpage (time)"; fi
pack
stage risky patterns: a dump each in its own process, then ncu over those that did not fault
mkdir -p "$R/risky"; : > risky_ok.txt
for n in $(cat lists/risky.txt); do
  if [ "$(left)" -lt 12 ]; then log "skip $n (time)"; continue; fi
  echo "$n" > one.txt
  timeout 10 ./probe dump patterns.txt one.txt > "$R/risky/${n}_dump.txt" 2>&1; rc=$?
  if [ $rc -eq 0 ]; then echo "$n" >> risky_ok.txt; log "$n: dump rc=0 +$(el)s"
  else log "$n: dump rc=$rc ($(grep -m1 '^E' "$R/risky/${n}_dump.txt" | cut -c1-80)) +$(el)s"; fi
done
if [ -s risky_ok.txt ] && [ "$(left)" -gt 12 ]; then
  timeout $(( $(left) - 5 )) ncu --clock-control none --cache-control none --metrics "$(cat "$R/metrics_mat.txt")" --csv \
    --print-units base ./probe one patterns.txt risky_ok.txt > "$R/ncu_risky.csv" 2> "$R/ncu_risky.err"
  log "risky ncu rc=$? +$(el)s $(grep -c '^L ' "$R/ncu_risky.csv") of $(wc -l < risky_ok.txt)"
fi
pack

stage parse
timeout 10 python3 parse.py "$R" "$R/tables" > "$R/parse.txt" 2>&1; log "parse rc=$?"
timeout 5 python3 compare.py "$R/tables/measured.tsv" predictions.tsv > "$R/tables/compare.txt" 2>&1
pack
stage done
echo "--- tensor_smem ($(el)s): $(grep -m1 'NVIDIA' "$R/env.txt" | cut -c1-40); $(sed -n 3p "$R/env.txt" | cut -c1-50); $(tail -1 "$R/env.txt" | cut -c1-60)"
echo "$(grep -h 'sass_check:' "$R/log.txt"); metrics: $(grep -E '^(mat|cp|tma|all):' "$R/log.txt" | cut -d' ' -f1,2 | tr '\n' ' ')"
awk '/^--- FORM/{a=$4} /^rc=/{r[a]=r[a]" "substr($0,4)} END{printf "b8 forms 1-6 rc:"; for (k in r) printf " %s:%s;", k, r[k]; print ""}' "$R/b8_forms.txt"
grep -E '^chunk|^mix|^srcpage|^dump|^skip' "$R/log.txt" | sed -E 's/^chunk_//; s/ launches//; s/rc=0 //' | awk '{printf "%s; ", $0} END {print ""}' | cut -c1-600
echo "risky: $(grep -c 'dump rc=0' "$R/log.txt") ran ($(grep -h '^risky ncu' "$R/log.txt")); faulted: $(grep -E '^risky.*dump rc=[1-9]' "$R/log.txt" | cut -d: -f1 | tr '\n' ' ')"
head -4 "$R/parse.txt" | cut -c1-160
grep -E '^(==|  [a-z])' "$R/tables/compare.txt" | grep -v 'natural rule misses' | head -16 | cut -c1-120
rm -rf "$W"
