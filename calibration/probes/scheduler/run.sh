#!/bin/bash
# calibration/probes/scheduler: the warp scheduler's policy from per-warp clocks (sched.cu), plus the probes'
# SASS. Run on the device machine from the repository root: bash calibration/probes/scheduler/run.sh
# (raw/clocks.txt and clocks_long.txt came from the first version of sched.cu, without the
# multi-block configurations and tr, whose mm lines its dump dropped; raw/clocks2.txt, ncu.csv and
# sched.sass.gz from this one; raw/flood.txt from flood.cu before its swap setting, flood2.txt
# before its delay setting, flood3.txt before its DRAM lines, flood4.txt and flood.sass.gz from this one before its ways setting (run_land.sh: flood5.txt; run_ca.sh: flood6.txt; run_w2.sh: flood7.txt); phases.txt, phases.sass.gz. summary.py makes summary.txt from raw/.)
cd "$(dirname "$0")" || exit 2
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/sched}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$O/gpu.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/sched sched.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/sched | gzip > "$O/sched.sass.gz"
/tmp/sched 64 3 > "$O/clocks2.txt"; echo "rc $?"
ncu --clock-control none --csv --metrics gpc__cycles_elapsed.max,sm__cycles_active.avg,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio \
  -k regex:"tr|mm" /tmp/sched 64 1 > "$O/ncu.csv" 2> "$O/ncu_err.txt"; echo "ncu rc $?"
ls -la "$O"
# flood.cu: other warps' memory instructions under a flood of conflicted shared loads.
nvcc -O3 -arch=sm_90 -o /tmp/flood flood.cu >> "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/flood | gzip > "$O/flood.sass.gz"
/tmp/flood > "$O/flood4.txt"; echo "flood rc $?"
# phases.cu: the naive and padded transposes with a clock read between their phases.
nvcc -O3 -arch=sm_90 -o /tmp/phases phases.cu >> "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/phases | gzip > "$O/phases.sass.gz"
/tmp/phases > "$O/phases.txt"; echo "phases rc $?"
