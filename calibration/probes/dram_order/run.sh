#!/bin/bash
# calibration/probes/dram_order: order.cu on the H200 (raw/order.txt.gz, order.sass.gz). From the repository root.
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/dramorder}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/order calibration/probes/dram_order/order.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/order | gzip > "$O/order.sass.gz"
/tmp/order | gzip > "$O/order.txt.gz"; echo "order rc ${PIPESTATUS[0]}"
