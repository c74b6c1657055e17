#!/bin/bash
# H200 campaign of a template draw (written for draw4; run from the repository root:
# OUT=dir bash calibration/lib/template_draw/run.sh).
# Builds draw.cu (ptxas -v, SASS), runs launches.tsv twice under Nsight Compute (cold caches,
# unlocked clocks, as the other campaigns) and the stamped transpose at four sizes.
# Another draw: DRAW=calibration/draws/draw5 STAMP="N1 N2 ..." (its launches.tsv, results in $OUT/draw5).
set -u
DRAW=${DRAW:-calibration/draws/draw4}; STAMP=${STAMP:-1024 1536 2048 4096}
OUT=${OUT:-$PWD/out_draw4}; R=$OUT/$(basename "$DRAW"); mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); D=calibration/lib/template_draw
nvcc -O3 -arch=sm_90 -Xptxas -v -o "$W/draw" $D/draw.cu > "$R/ptxas.txt" 2>&1 || { cat "$R/ptxas.txt"; exit 1; }
cuobjdump -sass "$W/draw" > "$R/draw.sass"
for n in $STAMP; do "$W/draw" stamp $n "$R/stamp_n$n.csv"; done > "$R/stamp.txt" 2>&1
gzip -f "$R"/stamp_n*.csv
M=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum
for s in barrier short_scoreboard mio_throttle long_scoreboard lg_throttle drain dispatch_stall; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for r in 1 2; do
  ncu --clock-control none --cache-control all --print-units base --csv --metrics $M -k regex:'transpose|matmul|sgemm' \
    "$W/draw" $DRAW/launches.tsv > "$R/ncu_$r.csv" 2> "$R/launches_$r.txt"
  echo "ncu $r rc=$?" >> "$R/stamp.txt"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$R/stamp.txt"
