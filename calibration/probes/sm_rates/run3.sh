#!/bin/bash
# Calibration campaign, call 3: issue cost of memory instructions (mixed with FFMA, wide
# accesses, LDS next to LDG on one sub-partition) and ncu's drain stall of warps that exit
# with stores outstanding. Run as `bash .devwork/run3.sh` from the repository root.
cd "$(dirname "$0")" || exit 2
W=work3; mkdir -p $W
pack() { tar czf "$OUT/results3.tar.gz" $W 2>/dev/null; }
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 -Xptxas -v -o $W/probe2 probe2.cu > $W/ptxas_probe2.txt 2>&1 && cuobjdump -sass $W/probe2 > $W/probe2.sass
grep error $W/ptxas_probe2.txt
./$W/probe2 $W/mix.tsv; cat $W/mix.tsv; pack
OK=$(cat metrics_used.txt)
ncu --clock-control none --print-units base --csv --metrics $OK -k regex:drain --log-file $W/ncu_drain.csv ./$W/probe2 drain
grep -c drain $W/ncu_drain.csv; pack
