#!/bin/bash
# H200 campaign for calibration/draws/loops: builds run_loops.cu, dumps the SASS of loop_loads.ptx
# (ptxas -arch=sm_90), runs configs.txt's launches once plainly and once under Nsight Compute
# (cold caches, unlocked clocks, as the other campaigns). Run from the repository root:
# OUT=/some/dir [CFG=configs2.txt] bash calibration/draws/loops/run.sh (CFG: the draw, default configs.txt)
set -u
OUT=${OUT:-$PWD/out_loops}; mkdir -p "$OUT/loops"; R=$OUT/loops
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d)
nvcc -o "$W/run_loops" calibration/draws/loops/run_loops.cu -lcuda > "$R/build.txt" 2>&1 || { cat "$R/build.txt"; exit 1; }
ptxas -arch=sm_90 -o "$W/l.cubin" tests/fixtures/ptx/loop_loads.ptx && cuobjdump -sass "$W/l.cubin" > "$R/loop_loads.sass"
"$W/run_loops" tests/fixtures/ptx/loop_loads.ptx calibration/draws/loops/${CFG:-configs.txt} > "$R/run.txt" 2>&1
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__inst_executed.sum,smsp__average_warp_latency_per_inst_issued.ratio
for s in long_scoreboard wait no_instruction barrier selected; do M=$M,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio; done
ncu --clock-control none --cache-control all --metrics $M --csv "$W/run_loops" tests/fixtures/ptx/loop_loads.ptx calibration/draws/loops/${CFG:-configs.txt} > "$R/ncu.csv" 2> "$R/ncu.err"
echo "ncu rc=$?" >> "$R/run.txt"
