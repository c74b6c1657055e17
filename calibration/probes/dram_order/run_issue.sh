#!/bin/bash
# calibration/probes/dram_order, third call: sched/phases.cu with a clean L2 and tS at the stores' issue
# (raw4/phases_issue.txt.gz), the SASS to check that the clock after the stores waits for nothing.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/dramorder}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/phases calibration/probes/scheduler/phases.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/phases | gzip > "$O/phases_issue.sass.gz"
/tmp/phases clean all issue | gzip > "$O/phases_issue.txt.gz"; echo "phases issue rc ${PIPESTATUS[0]}"
cuobjdump -sass /tmp/phases | awk '/Function : .*Li0ELb1E/,/EXIT/' | grep -E "STS|CS2R|BAR|LDG|FADD|FMUL" | head -30
