#!/bin/bash
# The whole H200 campaign in one call: build, SASS, metric query, clock64 throughput, ncu counters.
# Run from the repo root as `bash .devwork/narrow/run.sh` (device tool, carry .devwork).
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/narrow; mkdir -p $W; R=$W/res; mkdir -p $R
START=$(date +%s)
cd $W
cp $D/probe.cu $D/probe_patterns.txt $D/throughput.txt .
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; nvcc --version | tail -2; ncu --version | tail -1; } > $R/env.txt 2>&1
cat $R/env.txt
nvcc -O3 -arch=sm_90 -std=c++17 -o probe probe.cu 2> $R/build.txt || { cat $R/build.txt; tar czf $OUT/res.tar.gz -C $W res; exit 1; }
cuobjdump -sass probe > $R/sass.txt
echo "build+sass $(( $(date +%s) - START ))s"
ncu --query-metrics > $R/query_metrics.txt 2>&1
grep -iE 'shared|atom' $R/query_metrics.txt > $R/query_shared.txt
M=""
for m in l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st \
         l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom l1tex__data_pipe_lsu_wavefronts_mem_shared_op_red \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st \
         l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_red \
         l1tex__data_pipe_lsu_wavefronts_mem_shared l1tex__data_bank_conflicts_pipe_lsu_mem_shared \
         smsp__sass_inst_executed_op_shared_ld smsp__sass_inst_executed_op_shared_st smsp__sass_inst_executed_op_shared_atom \
         smsp__inst_executed_op_shared_atom smsp__inst_executed_op_shared_red smsp__inst_executed; do
  if grep -qE "^$m( |$)" $R/query_metrics.txt; then M="$M,$m.sum"; fi
done
M=${M#,}
echo "metrics: $M" | tee $R/metrics.txt
./probe thr probe_patterns.txt throughput.txt > $R/throughput.tsv 2>&1
echo "throughput done $(( $(date +%s) - START ))s, $(wc -l < $R/throughput.tsv) lines"
awk '{print $1}' probe_patterns.txt > all.txt
split -l 100 -d all.txt chunk_
for c in chunk_*; do
  el=$(( $(date +%s) - START ))
  if [ $el -gt 400 ]; then echo "skip $c (time)"; echo "$c" >> $R/skipped.txt; continue; fi
  timeout $(( 480 - el )) ncu --clock-control none --cache-control none --metrics "$M" --csv --print-units base \
     ./probe one probe_patterns.txt $c > $R/ncu_$c.csv 2> $R/ncu_$c.err
  echo "$c rc=$? $(( $(date +%s) - START ))s"
done
tar czf $OUT/res.tar.gz -C $W res
grep -cE '^"' $R/ncu_chunk_*.csv
grep -E 'ATOMS|LDS|STS|RED|ATOM' $R/sass.txt | sed -E 's/.*\*\/ +//; s/ +\/\*.*//' | awk '{print $1, $2}' | sort | uniq -c | sort -rn | head -40
