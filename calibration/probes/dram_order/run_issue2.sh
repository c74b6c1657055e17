#!/bin/bash
# calibration/probes/dram_order, fourth call: sched/phases.cu `clean all issue2` (raw5/phases_issue2.txt.gz):
# the clock after the stores may take none of their registers (checked in the SASS printed
# below) and 8 blocks a SM (ptxas -v: registers and spills in raw5/build.txt).
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/dramorder}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/phases calibration/probes/scheduler/phases.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
grep -A1 "Li0ELi2E\|Li1ELi2E\|Li0ELi0E" "$O/build.txt" | grep -E "Compiling|registers|spill" | head -12
cuobjdump -sass /tmp/phases | gzip > "$O/phases_issue2.sass.gz"
cuobjdump -sass /tmp/phases | awk '/Function : .*Li0ELi2E/,/EXIT/' | grep -E "STS|CS2R|BAR|LDG|MOV|FMUL" | head -24
/tmp/phases clean all issue2 | gzip > "$O/phases_issue2.txt.gz"; echo "phases issue2 rc ${PIPESTATUS[0]}"
