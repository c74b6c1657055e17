#!/bin/bash
# Device run of calibration/probes/wmma_numerics' third part (repository root or anywhere; OUT an
# empty folder): the new WMMA shapes' D words on a fresh draw (seeds 9, 10; shapes_host.cu with
# shapes.cu), every fragment element of layout_more2.cu, and the SASS of both (HMMA/IMMA/LDSM
# per kernel), all tarred into $OUT/wmma_shapes.tgz as raw2/ (untar it in this folder). ~2
# minutes. Predictions: predictions_shapes.txt, predictions_layout_more2.txt (tests/wmma_shapes.rs).
set -u
export PATH=/usr/local/cuda/bin:$PATH
D=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_wmma_shapes}; R=$OUT/raw2; mkdir -p "$R"
cd "$D" || exit 2
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; nvcc --version | tail -1; } > "$R/env.txt" 2>&1
B=$(mktemp -d)
timeout 400 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/shapes" shapes_host.cu > "$R/build_shapes.txt" 2>&1; echo "shapes build rc=$?" | tee "$R/log.txt"
timeout 400 nvcc -O3 -arch=sm_90 -std=c++17 -o "$B/more2" layout_more2.cu > "$R/build_more2.txt" 2>&1; echo "more2 build rc=$?" | tee -a "$R/log.txt"
for x in shapes more2; do
    cuobjdump -sass "$B/$x" > "$R/$x.sass" 2>&1
    # Per kernel: the tensor-core and fragment-load instructions ptxas made.
    awk '/Function :/ {f = $3} match($0, /(HMMA|IMMA|LDSM|LDS|STS|LDG|STG|PRMT)[.A-Z0-9]*/) {print f, substr($0, RSTART, RLENGTH)}' "$R/$x.sass" | sort | uniq -c > "$R/${x}_sass_ops.txt"
done
timeout 120 "$B/shapes" 9 10 > "$R/shapes.txt" 2> "$R/shapes.err"; echo "shapes rc=$? $(wc -l < "$R/shapes.txt") lines" | tee -a "$R/log.txt"
grep "^X\|^E" "$R/shapes.txt" | tee -a "$R/log.txt"
timeout 120 "$B/more2" > "$R/layout_more2.txt" 2> "$R/more2.err"; echo "more2 rc=$? $(wc -l < "$R/layout_more2.txt") lines" | tee -a "$R/log.txt"
grep "^N\|^E" "$R/layout_more2.txt" | tee -a "$R/log.txt"
gzip -f "$R/shapes.sass" "$R/more2.sass"
(cd "$OUT" && tar czf wmma_shapes.tgz raw2)
