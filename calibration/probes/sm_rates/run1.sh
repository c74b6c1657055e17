#!/bin/bash
# Calibration campaign, call 1: build the probes on the H200, run the clock64 microbenchmarks,
# then ncu over the queue probe and the whole kernels (original 7 + held-out).
# Run from the repository root on the device machine as `bash .devwork/run1.sh`; everything it
# writes goes to .devwork/work/ and is packed into $OUT/results1.tar.gz after every stage.
cd "$(dirname "$0")" || exit 2
W=work; mkdir -p $W
pack() { tar czf "$OUT/results1.tar.gz" $W 2>/dev/null; }
stage() { echo "=== $(date -u +%T) $*"; }
export PATH=/usr/local/cuda/bin:$PATH
{ nvidia-smi; nvidia-smi -q -d CLOCK; nvcc --version; ncu --version; } > $W/env.txt 2>&1
stage build
for p in lat queue gmem disp heldout; do
  ( nvcc -O3 -arch=sm_90 -Xptxas -v -o $W/$p $p.cu > $W/ptxas_$p.txt 2>&1 \
    && cuobjdump -sass $W/$p > $W/$p.sass ) &
done
wait
ls -la $W; grep -h "error" $W/ptxas_*.txt
pack
stage lat;   ./$W/lat $W/lat.tsv;     pack
stage queue; ./$W/queue $W/queue.tsv; pack
stage disp;  ./$W/disp $W/disp.tsv;   pack
stage gmem;  ./$W/gmem $W/gmem.tsv;   pack
cat $W/lat.tsv; grep -v "^chase" $W/gmem.tsv | head -5; grep "^stream" $W/gmem.tsv; grep "^chase" $W/gmem.tsv | awk '$6==1'

stage metrics
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping tex_throttle imc_miss"
M="gpu__time_duration.sum gpc__cycles_elapsed.max sm__cycles_active.avg sm__cycles_active.max smsp__average_warp_latency_per_inst_issued.ratio smsp__inst_executed.sum smsp__cycles_active.avg launch__registers_per_thread launch__grid_size launch__block_size launch__occupancy_limit_registers launch__occupancy_limit_shared_mem launch__occupancy_limit_warps launch__occupancy_limit_blocks sm__warps_active.avg.pct_of_peak_sustained_active l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum smsp__sass_inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum lts__t_sector_hit_rate.pct dram__bytes_read.sum dram__bytes_write.sum smsp__inst_executed_pipe_lsu.sum sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"
for s in $STALLS; do M="$M smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
ncu --query-metrics --chip gh100 > $W/ncu_query.txt 2>&1
OK=""; BAD=""
for m in $M; do b=${m%.*}; b=${b%.pct_of_peak_sustained_active}; b=${b%.pct_of_peak_sustained_elapsed}
  if grep -q "^$b[[:space:]]" $W/ncu_query.txt || grep -q "^${b%.*}[[:space:]]" $W/ncu_query.txt; then OK="$OK,$m"; else BAD="$BAD $m"; fi
done
n_ok=$(echo "$OK" | tr ',' '\n' | grep -c .); n_all=$(echo $M | wc -w)
echo "metrics ok $n_ok of $n_all; not in query list:$BAD" | tee $W/metrics_check.txt
if [ "$n_ok" -lt $((n_all / 2)) ]; then OK=$(echo $M | tr ' ' ','); echo "query format unknown: using all" | tee -a $W/metrics_check.txt; fi
OK=${OK#,}; echo "$OK" > $W/metrics_used.txt
NCU="ncu --clock-control none --print-units base --csv --metrics $OK"

stage ncu heldout
$NCU -k regex:'transpose|matmul|sgemm|reduce_k|vectors_k|divergence_k' --log-file $W/ncu_heldout.csv ./$W/heldout all 2> $W/heldout_launches.txt
if ! grep -q gpu__time_duration $W/ncu_heldout.csv; then
  echo "ncu heldout failed; retrying with the core metrics"; cat $W/ncu_heldout.csv | tail -5
  CORE="gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__average_warp_latency_per_inst_issued.ratio,smsp__inst_executed.sum,launch__registers_per_thread"
  for s in $STALLS; do CORE="$CORE,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"; done
  OK=$CORE; NCU="ncu --clock-control none --csv --metrics $OK"
  $NCU -k regex:'transpose|matmul|sgemm|reduce_k|vectors_k|divergence_k' --log-file $W/ncu_heldout.csv ./$W/heldout all 2> $W/heldout_launches.txt
fi
tail -3 $W/ncu_heldout.csv; tail -2 $W/heldout_launches.txt; pack
stage ncu orig repeat x2
for r in 2 3; do
  $NCU -k regex:'transpose|matmul' --log-file $W/ncu_orig_rep$r.csv ./$W/heldout orig 2> $W/orig_launches_rep$r.txt
done
pack
stage ncu queue
$NCU -k regex:qprobe --log-file $W/ncu_queue.csv ./$W/queue $W/queue_under_ncu.tsv; pack
stage ncu lat
$NCU -k regex:lat --log-file $W/ncu_lat.csv ./$W/lat $W/lat_under_ncu.tsv; pack
stage done
ls -la $W
