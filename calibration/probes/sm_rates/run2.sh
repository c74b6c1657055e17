#!/bin/bash
# Calibration campaign, call 2: fixed pointer chase (cache-hit latency under load), stream
# bandwidth by bytes in flight, pure issue rate of memory instructions, a second held-out set,
# two more ncu runs of everything (noise), and ncu's per-instruction Source page for the 7.
# Run from the repository root on the device machine as `bash .devwork/run2.sh`.
cd "$(dirname "$0")" || exit 2
W=work2; mkdir -p $W
pack() { tar czf "$OUT/results2.tar.gz" $W 2>/dev/null; }
stage() { echo "=== $(date -u +%T) $*"; }
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -q -d CLOCK > $W/clocks_before.txt 2>&1
stage build
for p in queue gmem heldout; do
  ( nvcc -O3 -arch=sm_90 -Xptxas -v -o $W/$p $p.cu > $W/ptxas_$p.txt 2>&1 && cuobjdump -sass $W/$p > $W/$p.sass ) &
done
wait; grep -h error $W/ptxas_*.txt; pack
stage queue; ./$W/queue $W/queue.tsv; grep "^# issue" $W/queue.tsv; pack
stage gmem;  ./$W/gmem $W/gmem.tsv; cat $W/gmem.tsv; pack
STALLS="barrier short_scoreboard mio_throttle long_scoreboard lg_throttle wait not_selected selected no_instruction drain math_pipe_throttle branch_resolving dispatch_stall misc membar sleeping tex_throttle imc_miss"
OK=$(cat metrics_used.txt)
NCU="ncu --clock-control none --print-units base --csv --metrics $OK"
K="transpose|matmul|sgemm|reduce_k|vectors_k|divergence_k"
stage ncu ho2
$NCU -k regex:"$K" --log-file $W/ncu_ho2.csv ./$W/heldout ho2 2> $W/ho2_launches.txt; tail -1 $W/ho2_launches.txt; pack
for r in 2 3; do
  stage ncu all rep $r
  $NCU -k regex:"$K" --log-file $W/ncu_all_rep$r.csv ./$W/heldout all 2> $W/all_launches_rep$r.txt; pack
  $NCU -k regex:"$K" --log-file $W/ncu_ho2_rep$r.csv ./$W/heldout ho2 2> $W/ho2_launches_rep$r.txt; pack
done
stage ncu source page
ncu --clock-control none --section SourceCounters --section WarpStateStats -k regex:"transpose|matmul" -c 7 \
  --page source --print-source sass --csv ./$W/heldout orig > $W/ncu_source_orig.csv 2> $W/ncu_source_err.txt
echo "source page rc $? lines $(wc -l < $W/ncu_source_orig.csv)"; head -c 600 $W/ncu_source_orig.csv; tail -3 $W/ncu_source_err.txt
pack
nvidia-smi -q -d CLOCK > $W/clocks_after.txt 2>&1
stage done; ls -la $W; pack
