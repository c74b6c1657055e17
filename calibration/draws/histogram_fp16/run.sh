#!/bin/bash
# H200 campaign for the histogram and half-precision kernels (issue 14): build, SASS, run,
# Nsight Compute shared-memory counters per kernel, and per-instruction counters from the
# Source page. Run from the repository root: `bash calibration/draws/histogram_fp16/run.sh`; everything
# goes under $OUT (default ./out_kernels2). Whole campaign: about 2 minutes.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_kernels2}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); cd "$W" || exit 2
cp "$D"/*.cu "$D"/common.h .
START=$(date +%s)
stage() { echo "=== $(date -u +%T) +$(( $(date +%s) - START ))s $*" | tee -a "$OUT/log.txt"; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

stage build
for p in histogram fp16; do
  nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o $p $p.cu > "$OUT/build_$p.txt" 2>&1 || { cat "$OUT/build_$p.txt"; }
  cuobjdump -sass $p > "$OUT/$p.sass" 2>&1
  # The shared-memory, global and atomic instructions of each kernel, in order.
  grep -E 'Function :|LDS|STS|ATOMS|ATOM|RED|LDG|STG|BAR' "$OUT/$p.sass" > "$OUT/${p}_mem_sass.txt"
done
cat "$OUT"/build_*.txt | grep -E 'error|registers|Function' | head -20

stage run
mkdir -p "$OUT/dump"
./histogram 2>&1 | tee "$OUT/run_histogram.txt"
DUMP="$OUT/dump" ./fp16 2>&1 | tee "$OUT/run_fp16.txt"

M="gpu__time_duration.sum,sm__cycles_active.avg"
for op in ld st atom; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum"
  M="$M,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum"
  M="$M,smsp__sass_inst_executed_op_shared_$op.sum"
done
M="$M,smsp__inst_executed_op_shared_atom.sum,smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__inst_executed.sum"
NCU="ncu --clock-control none --cache-control none --print-units base --csv"

stage ncu metrics
$NCU --metrics "$M" ./histogram > "$OUT/ncu_histogram.csv" 2> "$OUT/ncu_histogram.err"
$NCU --metrics "$M" ./fp16 > "$OUT/ncu_fp16.csv" 2> "$OUT/ncu_fp16.err"
# Retry without the optional instruction counters if Nsight refused the list.
for p in histogram fp16; do
  if ! grep -q gpu__time_duration "$OUT/ncu_$p.csv"; then
    echo "retry $p with the core list" | tee -a "$OUT/log.txt"
    M2=$(echo "$M" | tr ',' '\n' | grep -E 'duration|cycles_active|l1tex|sass_inst_executed_op_shared' | paste -sd,)
    $NCU --metrics "$M2" ./$p > "$OUT/ncu_$p.csv" 2>> "$OUT/ncu_$p.err"
  fi
done

stage ncu source counters
for k in histogram:histogram256 histogram:histogram256_inc histogram:histogram256_f32 \
         fp16:hgemm_tile fp16:hgemm_tile_h; do
  p=${k%%:*}; kn=${k#*:}
  ncu --clock-control none --cache-control none --section SourceCounters --import-source yes \
      -k "regex:^${kn}\$" -c 1 -f -o "$OUT/rep_$kn" ./$p > "$OUT/rep_$kn.log" 2>&1
  ncu -i "$OUT/rep_$kn.ncu-rep" --page source --csv --print-source sass > "$OUT/source_$kn.csv" 2> "$OUT/source_$kn.err" \
    || ncu -i "$OUT/rep_$kn.ncu-rep" --page source --csv > "$OUT/source_$kn.csv" 2>> "$OUT/source_$kn.err"
  echo "$kn: $(wc -l < "$OUT/source_$kn.csv") source lines" | tee -a "$OUT/log.txt"
done
# Also the whole details page of each report (the metric values, in case the source page is short).
for r in "$OUT"/rep_*.ncu-rep; do ncu -i "$r" --page details --csv > "${r%.ncu-rep}_details.csv" 2>&1; done

stage done
grep -E '"(histogram|hgemm)' "$OUT"/ncu_*.csv | grep -E 'wavefronts|conflicts|sass_inst' | \
  awk -F'","' '{print $5, $(NF-2), $NF}' | head -60
rm -rf "$W"
