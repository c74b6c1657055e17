#!/bin/bash
# Calibration campaign, call 6: do shared and global memory instructions share one queue?
# Run as `bash .devwork/run6.sh` from the repository root.
cd "$(dirname "$0")" || exit 2
W=work6; mkdir -p $W
export PATH=/usr/local/cuda/bin:$PATH
nvcc -O3 -arch=sm_90 -Xptxas -v -o $W/probe3 probe3.cu > $W/ptxas_probe3.txt 2>&1 && cuobjdump -sass $W/probe3 > $W/probe3.sass
grep error $W/ptxas_probe3.txt
./$W/probe3 $W/mixq.tsv && cat $W/mixq.tsv
tar czf "$OUT/results6.tar.gz" $W/mixq.tsv $W/ptxas_probe3.txt $W/probe3.sass
