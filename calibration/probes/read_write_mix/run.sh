#!/bin/bash
# OUT=dir bash calibration/probes/read_write_mix/run.sh: every (MODE, K) under ncu, cold caches, unlocked clocks.
set -u
OUT=${OUT:-$PWD/out_rwmix}; mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d)
nvcc -O3 -arch=sm_90 -Xptxas -v -o "$W/rwmix" calibration/probes/read_write_mix/rwmix.cu > "$OUT/ptxas.txt" 2>&1 || { cat "$OUT/ptxas.txt"; exit 1; }
cuobjdump -sass "$W/rwmix" | grep -E "Function|LDG|STG" > "$OUT/sass_ldg_stg.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warps_issue_stalled_drain_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__inst_executed.sum
for mode in 0 1 2; do for k in 1 2 4 8 16; do
  ncu --clock-control none --cache-control all --launch-skip 1 --launch-count 1 --print-units base --csv --metrics $M \
    "$W/rwmix" $mode $k 2>/dev/null | grep -v "^==" | sed "s/^/$mode,$k,/"
done; done > "$OUT/ncu.csv"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/env.txt"
