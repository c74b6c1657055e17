#!/bin/bash
# calibration/probes/scheduler, section 18's check (after the rule was fixed): flood.cu's DRAM lines under
# floods of 8-, 16- and 32-way conflicted loads (raw/flood5.txt, flood5.sass.gz), and draw10
# (calibration/lib/template_draw/run.sh). Run on the device machine from the repository root.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/land}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/flood calibration/probes/scheduler/flood.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/flood | gzip > "$O/flood5.sass.gz"
/tmp/flood dram > "$O/flood5.txt"; echo "flood rc $?"
DRAW=calibration/draws/draw10 STAMP=" " OUT="$O" bash calibration/lib/template_draw/run.sh; echo "draw rc $?"
ls -la "$O" "$O/draw10"
# The rule's prediction, written before this ran (the unit test data_coming_back_in_a_flood_...
# at 32 ways: losses 64 60 120 116 178 178 240 240): eight lines land in pairs, a step of one
# instruction (2 x WAYS cycles) apart, so the loss against no flood scales with WAYS: mean about
# 150 / 75 / 37 cycles and largest about 240 / 120 / 60 for 32 / 16 / 8 ways.
