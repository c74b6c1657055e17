#!/bin/bash
# Calibration campaign, call 4: the queue probe again, with runs that start from empty queues
# (modes 10..14). Run as `bash .devwork/run4.sh` from the repository root.
cd "$(dirname "$0")" || exit 2
W=work4; mkdir -p $W
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 -Xptxas -v -o $W/queue queue.cu > $W/ptxas_queue.txt 2>&1 && cuobjdump -sass $W/queue > $W/queue.sass
grep error $W/ptxas_queue.txt
./$W/queue $W/queue.tsv
OK=$(cat metrics_used.txt)
ncu --clock-control none --print-units base --csv --metrics $OK -k regex:qprobe --log-file $W/ncu_queue.csv ./$W/queue $W/queue_under_ncu.tsv
tar czf "$OUT/results4.tar.gz" $W/queue.tsv $W/ncu_queue.csv $W/ptxas_queue.txt
echo done
