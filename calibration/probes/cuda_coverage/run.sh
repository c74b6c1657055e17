#!/bin/bash
# H200 campaign for issue 37 items 1 and 4 (calibration/probes/cuda_coverage/README.md):
# constant memory (latency, divergence, misses, throughput, ncu counters), shuffles from lanes
# outside the member mask, the reduce6 technique, bar.red/redux/match/bit-op values, and the
# SASS of the ptxas merge families (compile only). Budget: 120 s, checked here (stages that
# do not fit are skipped and logged). Run from the repository root:
#   OUT=/some/empty/dir bash calibration/probes/cuda_coverage/run.sh
# Everything goes under $OUT/cuda_coverage, packed into $OUT/cuda_coverage.tar.gz after
# every stage; a short summary (parse.py summary) goes to stdout.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_cuda_coverage}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
T=cuda_coverage
R=$OUT/$T; mkdir -p "$R"
W=$(mktemp -d); cd "$W" || exit 2
START=$(date +%s); BUDGET=${BUDGET:-112}
el() { echo $(( $(date +%s) - START )); }
left() { echo $(( BUDGET - $(el) )); }
stage() { echo "=== +$(el)s $*" >> "$R/log.txt"; }
pack() { tar czf "$OUT/$T.tar.gz" -C "$OUT" "$T" 2>/dev/null; }
# run NAME SECONDS CMD...: runs CMD under timeout (never more than the time left), logs rc.
run() {
  local name=$1 t=$2 l; shift 2
  l=$(left)
  if [ "$l" -lt 4 ]; then echo "SKIP $name (${l}s left)" >> "$R/log.txt"; return 99; fi
  [ "$t" -gt $(( l - 2 )) ] && t=$(( l - 2 ))
  timeout -k 2 "$t" "$@"; local rc=$?
  echo "$name rc=$rc +$(el)s" >> "$R/log.txt"
  return $rc
}
cp "$D"/const.cu "$D"/warp_host.cu "$D"/warp.ptx "$D"/merge_cuda.cu "$D"/streams.py \
   "$D"/gen_warp.py . || exit 2
for f in merge_family merge_heldout_1 merge_heldout_2 merge_cuda_nvrtc; do zcat "$D/$f.ptx.gz" > $f.ptx; done

stage env
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ptxas --version | tail -1; ncu --version | tail -1; } > "$R/env.txt" 2>&1
python3 gen_warp.py --bitops > "$R/bitops_names.txt"

stage build "(in parallel)"
NV="nvcc -O3 -arch=sm_90 -lineinfo -std=c++17"
( run build_const 70 $NV -o const const.cu > "$R/build_const.txt" 2>&1
  cuobjdump -sass const > const.sass 2>&1 ) &
( run build_warp 70 $NV -o warp_host warp_host.cu -lcuda > "$R/build_warp.txt" 2>&1
  cuobjdump -sass warp_host > warp_host.sass 2>&1 ) &
( run ptxas_warp 30 ptxas -arch=sm_90 -O3 warp.ptx -o warp.cubin > "$R/build_warp_ptx.txt" 2>&1
  cuobjdump -sass warp.cubin > warp.sass 2>&1 ) &
( for f in merge_family merge_heldout_1 merge_heldout_2 merge_cuda_nvrtc; do
    run ptxas_$f 40 ptxas -arch=sm_90 -O3 $f.ptx -o $f.cubin > "$R/build_$f.txt" 2>&1
    cuobjdump -sass $f.cubin > $f.sass 2>&1
    python3 streams.py sass $f.sass > "$R/$f.ptxas.stream"
    gzip -9 -c $f.sass > "$R/$f.sass.gz"
  done
  run nvcc_merge_cuda 60 $NV -cubin -o merge_cuda.cubin merge_cuda.cu > "$R/build_merge_cuda.txt" 2>&1
  cuobjdump -sass merge_cuda.cubin > merge_cuda.sass 2>&1
  python3 streams.py sass merge_cuda.sass > "$R/merge_cuda.nvcc.stream"
  gzip -9 -c merge_cuda.sass > "$R/merge_cuda.nvcc.sass.gz"
  run nvcc_merge_cuda_ptx 40 nvcc -O3 -arch=sm_90 -std=c++17 -ptx -o merge_cuda.nvcc.ptx merge_cuda.cu >> "$R/build_merge_cuda.txt" 2>&1
  gzip -9 -c merge_cuda.nvcc.ptx > "$R/merge_cuda.nvcc.ptx.gz" ) &
wait
for f in const.sass warp_host.sass warp.sass; do [ -s $f ] && gzip -9 -c $f > "$R/$f.gz"; done
# The instructions the probes rely on, per kernel (count of each opcode of interest).
awk '/Function :/ { f = $3; next }
     f && /(LDC|ULDC|SHFL|WARPSYNC|BAR\.RED|REDUX|MATCH|VOTE|CS2R|FFMA|BMSK|PRMT|SGXT|FLO|POPC|BREV|LOP3|SHF|IDP|IMAD\.HI|FSETP|DSETP)/ {
       s = $0; sub(/.*\*\/ +/, "", s); sub(/ +\/\*.*/, "", s); split(s, a, " ");
       op = a[1]; if (op ~ /^@/) op = a[2]; n[f "\t" op]++ }
     END { for (k in n) print k "\t" n[k] }' const.sass warp.sass warp_host.sass 2>/dev/null | sort > "$R/sass_ops.tsv"
grep -E 'LDC(\.64)? R[0-9]+, c\[0x3\]\[R[0-9]+\]' const.sass | head -3 > "$R/sass_check.txt"
echo "k_lat dependent LDC c[0x3][R]: $(awk '/Function : _Z5k_lat/{p=1;next} /Function :/{p=0} p' const.sass | grep -cE 'LDC R[0-9]+, c\[0x3\]\[R')" >> "$R/sass_check.txt"
echo "k_imm<1024,true> ULDC/LDC of c[0x3]: $(awk '/Function : _Z5k_immILi1024ELb1/{p=1;next} /Function :/{p=0} p' const.sass | grep -cE 'c\[0x3\]')" >> "$R/sass_check.txt"
pack

stage runs
if [ -x ./const ]; then
  run const_lat 20 ./const lat > "$R/const_lat.tsv" 2> "$R/const_lat.err"
  run const_steps 20 ./const steps > "$R/const_steps.tsv" 2> "$R/const_steps.err"
  run const_thr 20 ./const thr > "$R/const_thr.tsv" 2> "$R/const_thr.err"
  run const_imm 15 ./const imm > "$R/const_imm.tsv" 2> "$R/const_imm.err"
else echo "const: not built" >> "$R/log.txt"; fi
pack
if [ -x ./warp_host ] && [ -s warp.cubin ]; then
  for s in F P B B2 B3 E A C; do
    run shfl_$s 10 ./warp_host warp.cubin shfl $s > "$R/shfl_$s.tsv" 2> "$R/shfl_$s.err"
  done
  run barred 10 ./warp_host warp.cubin barred > "$R/barred.tsv" 2> "$R/barred.err"
  run redux 10 ./warp_host warp.cubin redux > "$R/redux.tsv" 2> "$R/redux.err"
  run bitops 10 ./warp_host warp.cubin bitops "$(wc -l < "$R/bitops_names.txt")" > "$R/bitops.tsv" 2> "$R/bitops.err"
fi
[ -x ./warp_host ] && run reduce6 15 ./warp_host - reduce6 > "$R/reduce6.tsv" 2> "$R/reduce6.err"
pack

stage ncu
if [ -x ./const ] && [ "$(left)" -gt 25 ]; then
  run ncu_query 20 ncu --query-metrics --query-metrics-mode all > ncu_query.txt 2>&1 \
    || run ncu_query_base 15 ncu --query-metrics > ncu_query.txt 2>&1
  grep -iE 'idc|imc|ldc|const' ncu_query.txt | head -300 > "$R/ncu_query_const.txt"
  M=$(python3 "$D/parse.py" metrics ncu_query.txt)
  [ -z "$M" ] && M="gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum"
  echo "$M" > "$R/ncu_metrics_used.txt"
  run ncu_const 40 ncu --clock-control none --metrics "$M" --csv --print-units base \
      --log-file "$R/ncu_const.csv" ./const ncu > "$R/ncu_const_launches.txt" 2> "$R/ncu_const.err"
  if ! grep -q '"' "$R/ncu_const.csv" 2>/dev/null || grep -q ERROR "$R/ncu_const.csv" "$R/ncu_const.err"; then
    # a metric that could not be collected: again with the plain ones only
    M=gpu__time_duration.sum,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio
    echo "fallback: $M" >> "$R/ncu_metrics_used.txt"
    run ncu_const_fallback 25 ncu --clock-control none --metrics "$M" --csv --print-units base \
        --log-file "$R/ncu_const_fallback.csv" ./const ncu > /dev/null 2> "$R/ncu_const_fallback.err"
  fi
else echo "ncu: skipped ($(left)s left)" >> "$R/log.txt"; fi
pack

stage done
python3 "$D/parse.py" summary "$R" > "$R/summary.txt" 2> "$R/summary.err"
python3 "$D/parse.py" report "$R" > "$R/report.txt" 2>> "$R/summary.err"
pack
cat "$R/summary.txt"
echo "cuda_coverage: $(el)s; log: $(grep -c . "$R/log.txt") lines, skipped: $(grep -c SKIP "$R/log.txt")"
rm -rf "$W"
