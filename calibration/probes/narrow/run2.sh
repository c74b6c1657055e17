#!/bin/bash
# Second call: the clock64 throughput probe again, with volatile ld/st (ptxas merged the first
# campaign's repeated plain ld/st) and each warp in its own 4 KiB of shared memory (no contention
# between warps on the atomics' words).
set -u
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/narrow; mkdir -p $W/res; cd $W
cp $D/probe.cu $D/probe_patterns.txt $D/throughput.txt .
nvcc -O3 -arch=sm_90 -std=c++17 -DTHR_VOLATILE -o probe_v probe.cu 2> res/build_v.txt || { cat res/build_v.txt; exit 1; }
cuobjdump -sass probe_v > res/sass_v.txt
./probe_v thr probe_patterns.txt throughput.txt > res/throughput.tsv 2>&1
nvidia-smi --query-gpu=clocks.sm --format=csv >> res/throughput_clock.txt
tar czf $OUT/res2.tar.gz -C $W res
grep -c '^T' res/throughput.tsv
grep -E 'ld_u8_(stride1|bank0_32words)|st_u16_(stride1|bank0_32words)|atom_add_f32_(tid|const0)' res/throughput.tsv
