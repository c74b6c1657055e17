#!/bin/bash
# H200 campaign for the classic kernels (issue 13, item 8): build classic.cu, dump its SASS (plain
# and with line info), run it once with its CPU checks, then Nsight Compute: the kernels' totals
# (shared wavefronts, bank conflicts and instructions, time, cycles, stall reasons) in one run,
# and per kernel a SourceCounters report whose Source page (per SASS instruction: executions,
# shared wavefronts, N-way conflicts, stall samples) goes to CSV.
# Run from the repository root: `OUT=/some/dir bash calibration/draws/classic/run.sh`; everything goes
# under $OUT (default ./out_classic) and is packed into $OUT/classic.tar.gz after every stage.
# Whole campaign: about 3-4 minutes (budget 8).
set -u
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_classic}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); cd "$W" || exit 2
cp "$D/classic.cu" .
START=$(date +%s)
R=$OUT/classic; mkdir -p "$R"
el() { echo $(( $(date +%s) - START )); }
stage() { echo "=== $(date -u +%T) +$(el)s $*" | tee -a "$R/log.txt"; }
pack() { tar czf "$OUT/classic.tar.gz" -C "$OUT" classic 2>/dev/null; }
KERNELS="reduce_shfl scan_hillis_steele scan_blelloch scan_blelloch_cf stencil5 conv2d_tiled softmax_row nbody_tile bitonic_sort_shared radix_split4"

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv
  nvcc --version | tail -2; ncu --version | tail -1; } > "$R/env.txt" 2>&1
cat "$R/env.txt"

stage build
nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -Xptxas -v -o classic classic.cu > "$R/build.txt" 2>&1
rc=$?; cat "$R/build.txt" | grep -E 'error|warning|registers|Function' | head -40
if [ $rc -ne 0 ]; then echo "BUILD FAILED rc=$rc" | tee -a "$R/log.txt"; cat "$R/build.txt"; pack; exit 1; fi
cuobjdump -sass classic > "$R/classic.sass" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -cubin -o classic.cubin classic.cu > /dev/null 2>&1 \
  && { nvdisasm -g -c classic.cubin > "$R/classic_lines.sass" 2>&1 || nvdisasm classic.cubin > "$R/classic_lines.sass" 2>&1; }
nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -ptx -o "$R/classic.ptx" classic.cu > /dev/null 2>&1
# The shared-memory and barrier instructions of each kernel, in order (the porting guide's view).
grep -E 'Function :|LDS|STS|ATOMS|BAR|SHFL|VOTE|POPC|LDG|STG|BRA|EXIT' "$R/classic.sass" > "$R/classic_mem_sass.txt"
grep -E 'Function :|LDS|STS|ATOMS' "$R/classic.sass" | sed -E 's/.*\*\/ +//; s/ +\/\*.*//' | awk '/Function/{print; next}{print "   ", $1, $2}' | uniq -c | head -120
pack

stage run
./classic > "$R/run.txt" 2> "$R/run_launches.txt"; echo "run rc=$?" >> "$R/run.txt"
cat "$R/run.txt" "$R/run_launches.txt"
pack

stage ncu totals
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping tex_throttle imc_miss"
M="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__warps_active.avg.pct_of_peak_sustained_active"
for op in ld st atom; do
  M="$M,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_$op.sum,smsp__sass_inst_executed_op_shared_$op.sum"
done
M="$M,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
M="$M,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_pipe_lsu.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"
for s in $STALLS; do M="$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
echo "$M" > "$R/metrics_used.txt"
NCU="ncu --clock-control none --print-units base --csv"
$NCU --metrics "$M" --log-file "$R/ncu_totals.csv" ./classic > "$R/ncu_totals_run.txt" 2> "$R/ncu_totals.err"
if ! grep -q gpu__time_duration "$R/ncu_totals.csv" 2>/dev/null; then
  echo "ncu totals failed; retrying with the core list" | tee -a "$R/log.txt"; tail -5 "$R/ncu_totals.csv" "$R/ncu_totals.err"
  M2=$(echo "$M" | tr ',' '\n' | grep -E 'duration|cycles|l1tex__data|sass_inst_executed_op_shared|stalled|inst_executed.sum' | paste -sd,)
  echo "$M2" > "$R/metrics_used.txt"
  $NCU --metrics "$M2" --log-file "$R/ncu_totals.csv" ./classic > "$R/ncu_totals_run.txt" 2>> "$R/ncu_totals.err"
fi
grep -E 'wavefronts_mem_shared_op|bank_conflicts_pipe_lsu_mem_shared_op|sass_inst_executed_op_shared|gpc__cycles_elapsed' "$R/ncu_totals.csv" \
  | awk -F'","' '{printf "%-22s %-60s %s\n", $5, $(NF-2), $NF}' | sed 's/"//g' | head -150
pack

stage ncu source pages
for k in $KERNELS; do
  if [ "$(el)" -gt 420 ]; then echo "skip $k (time)" | tee -a "$R/log.txt"; continue; fi
  ncu --clock-control none --section SourceCounters --section WarpStateStats --section LaunchStats --import-source yes \
      -k "regex:^${k}\$" -c 1 -f -o "$R/rep_$k" ./classic "$k" > "$R/rep_$k.log" 2>&1
  ncu -i "$R/rep_$k.ncu-rep" --page source --csv --print-source sass > "$R/source_$k.csv" 2> "$R/source_$k.err" \
    || ncu -i "$R/rep_$k.ncu-rep" --page source --csv > "$R/source_$k.csv" 2>> "$R/source_$k.err"
  ncu -i "$R/rep_$k.ncu-rep" --page details --csv > "$R/details_$k.csv" 2>&1
  echo "$k: $(wc -l < "$R/source_$k.csv") source lines, +$(el)s" | tee -a "$R/log.txt"
  pack
done

stage ncu source page, all kernels in one go, no report file
if [ "$(el)" -lt 360 ]; then
  ncu --clock-control none --section SourceCounters --page source --print-source sass --csv ./classic \
      > "$R/source_all.csv" 2> "$R/source_all.err"
  echo "source_all: $(wc -l < "$R/source_all.csv") lines" | tee -a "$R/log.txt"
fi
pack

stage done
ls -la "$R"
rm -rf "$W"
