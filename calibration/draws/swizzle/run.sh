#!/bin/bash
# H200 campaign for calibration/draws/swizzle (run from the repository root: OUT=dir bash calibration/draws/swizzle/run.sh).
# Builds swz.cu (ptxas -v, SASS) and runs launches.tsv twice under Nsight Compute (cold caches,
# unlocked clocks, as the other campaigns). L=launches2 for the second draw (files ncu2_*).
set -u
OUT=${OUT:-$PWD/out_swizzle}; R=$OUT/swizzle; mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); D=calibration/draws/swizzle; L=${L:-launches}; P=${L#launches}
nvcc -O3 -arch=sm_90 -Xptxas -v -o "$W/swz" $D/swz.cu > "$R/ptxas.txt" 2>&1 || { cat "$R/ptxas.txt"; exit 1; }
cuobjdump -sass "$W/swz" > "$R/swz.sass"
M=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio,launch__registers_per_thread
for s in barrier short_scoreboard mio_throttle long_scoreboard wait; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
for r in 1 2; do
  ncu --clock-control none --cache-control all --print-units base --csv --metrics $M -k regex:'transpose|matmul|sgemm' \
    "$W/swz" $D/$L.tsv > "$R/ncu${P}_$r.csv" 2> "$R/launches${P}_$r.txt"
  echo "ncu $r rc=$?" >> "$R/run.txt"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv >> "$R/run.txt"
