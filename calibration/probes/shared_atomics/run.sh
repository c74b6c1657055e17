#!/bin/bash
# The whole H200 campaign of calibration/probes/shared_atomics in one call (about 4-6 minutes): build, SASS
# (per probe kernel, the shared/atomic instructions ptxas emitted), functional results (`val`),
# Nsight Compute counters of every pattern (`one`, chunks of 100 launches), clock64 throughput.
# Run from the repository root: `bash calibration/probes/shared_atomics/run.sh`; everything goes under $OUT.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_atomics2}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); cd "$W" || exit 2
cp "$D/probe.cu" "$D/probe_patterns.txt" "$D/throughput.txt" .
START=$(date +%s)
el() { echo $(( $(date +%s) - START )); }
stage() { echo "=== $(date -u +%T) +$(el)s $*" | tee -a "$OUT/log.txt"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

stage build
nvcc -O3 -arch=sm_90 -std=c++17 -o probe probe.cu > "$OUT/build.txt" 2>&1 || { cat "$OUT/build.txt"; exit 1; }
cuobjdump -sass probe > sass.txt 2>&1
gzip -c sass.txt > "$OUT/sass.txt.gz"
# Per `one<K,W>` kernel, its shared-memory and atomic instructions in order (opcode only).
awk '/Function :/ { f = $3; next }
     f ~ /^_Z3one/ && /(ATOMS|LDS|STS|ATOM|RED|CAS|POPC|BSSY|BRA|MATCH|VOTE)/ {
       s = $0; sub(/.*\*\/ +/, "", s); sub(/ +\/\*.*/, "", s); print f "\t" s }' sass.txt > "$OUT/sass_one.tsv"
cut -f1 "$OUT/sass_one.tsv" | uniq -c | head -40
grep -E 'ATOMS' "$OUT/sass_one.tsv" | awk -F'\t' '{split($2, a, " "); print $1, a[1]}' | sort -u | head -60

stage val
./probe val probe_patterns.txt - > "$OUT/val.tsv" 2> "$OUT/val.err"
echo "val rc=$? $(grep -c '^V' "$OUT/val.tsv") lines"

stage ncu
M="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed.sum"
echo "$M" > "$OUT/metrics.txt"
awk '{print $1}' probe_patterns.txt > all.txt
split -l 100 -d all.txt chunk_
for c in chunk_*; do
  e=$(el)
  if [ "$e" -gt 330 ]; then echo "skip $c (time)" | tee -a "$OUT/skipped.txt"; continue; fi
  timeout $(( 380 - e )) ncu --clock-control none --cache-control none --metrics "$M" --csv \
    --print-units base ./probe one probe_patterns.txt $c > ncu_$c.csv 2> ncu_$c.err
  echo "$c rc=$? +$(el)s $(grep -c '^L ' ncu_$c.csv) launches" | tee -a "$OUT/log.txt"
  gzip -c ncu_$c.csv > "$OUT/ncu_$c.csv.gz"; cp ncu_$c.err "$OUT/"
done

stage throughput
if [ "$(el)" -lt 370 ]; then
  timeout $(( 400 - $(el) )) ./probe thr probe_patterns.txt throughput.txt > "$OUT/throughput.tsv" 2>&1
  nvidia-smi --query-gpu=clocks.sm --format=csv >> "$OUT/throughput.tsv"
fi
stage done
grep -h 'shared_op_atom.sum' ncu_chunk_00.csv | head -6
rm -rf "$W"
