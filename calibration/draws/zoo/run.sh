#!/bin/bash
# H200 campaign for the zoo (calibration/draws/zoo/zoo.cu + zoo_headers.cu): ordinary CUDA kernels
# that warpsim's CUDA path was not built on. Builds zoo.cu with nvcc as the other campaigns do,
# dumps the SASS, runs every launch of main() once, then Nsight Compute: per launch the shared
# counters (wavefronts, bank conflicts, instructions for ld/st/atom), time and stall reasons; and
# the Source page (per SASS instruction) of every launch in one CSV.
# Run from the repository root: `OUT=/some/dir bash calibration/draws/zoo/run.sh` (everything goes under
# $OUT/zoo, packed into $OUT/zoo.tar.gz after every stage). About 2-4 minutes.
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_zoo}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); cd "$W" || exit 2
mkdir -p zoo histogram_fp16; cp "$D"/zoo.cu "$D"/zoo_headers.cu zoo/; cp "$D/../histogram_fp16/common.h" histogram_fp16/
cd zoo
START=$(date +%s)
R=$OUT/zoo; mkdir -p "$R"
el() { echo $(( $(date +%s) - START )); }
stage() { echo "=== $(date -u +%T) +$(el)s $*" | tee -a "$R/log.txt"; }
pack() { tar czf "$OUT/zoo.tar.gz" -C "$OUT" zoo 2>/dev/null; }
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
cat "$R/env.txt"

stage build
nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o zoo zoo.cu > "$R/build.txt" 2>&1
rc=$?; grep -E 'error|registers|Function' "$R/build.txt" | head -80
if [ $rc -ne 0 ]; then echo "BUILD FAILED rc=$rc" | tee -a "$R/log.txt"; cat "$R/build.txt"; pack; exit 1; fi
cuobjdump -sass zoo > "$R/zoo.sass" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -ptx -o "$R/zoo_nvcc.ptx" zoo.cu > /dev/null 2>&1
grep -E 'Function :|LDS|STS|ATOMS|BAR|SHFL|VOTE|POPC|LDL|STL|CALL|RET' "$R/zoo.sass" > "$R/zoo_mem_sass.txt"
grep -E 'Function :|LDS|STS|ATOMS' "$R/zoo.sass" | sed -E 's/.*\*\/ +//; s/ +\/\*.*//' | awk '/Function/{print; next}{print "   ", $1}' | uniq -c | head -150
pack

stage run
./zoo > "$R/run.txt" 2>&1; echo "run rc=$?" >> "$R/run.txt"; cat "$R/run.txt"
pack

stage ncu totals
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping"
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum"
for op in ld st atom; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
for s in $STALLS; do M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
echo "$M" > "$R/metrics_used.txt"
ncu --clock-control none --print-units base --csv --metrics "$M" --log-file "$R/ncu_totals.csv" ./zoo > "$R/ncu_totals_run.txt" 2> "$R/ncu_totals.err"
grep -E 'wavefronts_mem_shared_op|bank_conflicts_pipe_lsu_mem_shared_op|sass_inst_executed_op_shared' "$R/ncu_totals.csv" \
  | awk -F'","' '{printf "%-4s %-34s %-60s %s\n", $1, substr($5,1,34), $(NF-2), $NF}' | sed 's/"//g' | head -240
pack

stage ncu source page, all launches
ncu --clock-control none --section SourceCounters --page source --print-source sass --csv ./zoo \
    > "$R/source_all.csv" 2> "$R/source_all.err"
echo "source_all: $(wc -l < "$R/source_all.csv") lines" | tee -a "$R/log.txt"
pack

stage done
ls -la "$R"
rm -rf "$W"
