#!/bin/bash
# ptxas's shared-access merging, checked: compiles each input with the user's own CUDA toolkit
# (ptxas for .ptx, nvcc -cubin for .cu; -arch=sm_90 -O3, as the H200 campaigns), dumps the SASS
# with cuobjdump, and compares every kernel's sequence of LDS/STS/ATOMS and widths with the
# stream warpsim's merge model produced (a checked-in file from `compare_sass.py --dump`), one
# line per kernel: "stream matches SASS" or the first difference. Not run in CI; ships no NVIDIA
# binary. Needs CUDA 12 or later on PATH or in /usr/local/cuda/bin, and python3.
#
#   bash calibration/probes/ptxas_streams/compare_sass.sh [SRC[=STREAM] ...]
#
# Run from the repository root. Default inputs: NVRTC's PTX of the classic kernels and of the
# reference kernels, nvcc's PTX of the classic kernels (the measured build), and classic.cu
# itself through nvcc, each against its stream in calibration/probes/ptxas_streams/streams/. Everything goes
# under $OUT (default ./out_sass): <name>.sass, <name>.compare.txt, summary.txt. About a minute.
set -u
R=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$PWD/out_sass}; mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
S=$R/streams
if [ $# -eq 0 ]; then
  set -- "programs/cuda/classic.ptx=$S/classic_nvrtc.stream" \
         "tests/fixtures/h200/classic/classic.ptx=$S/classic_nvcc.stream" \
         "programs/cuda/kernels.ptx=$S/kernels_nvrtc.stream" \
         "calibration/draws/classic/classic.cu=$S/classic_nvcc.stream" \
         "tests/fixtures/ptx/merge.ptx=tests/fixtures/ptx/merge_tests.stream" \
         "programs/cuda/kernels.cu=$S/kernels_nvrtc.stream" \
         "programs/cuda/histogram.ptx=$S/histogram_nvrtc.stream"
fi
{ ptxas --version | tail -2; nvcc --version | tail -1; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
: > "$OUT/summary.txt"
for arg in "$@"; do
  src=${arg%%=*}; stream=${arg#*=}; [ "$stream" = "$arg" ] && stream=""
  ext=${src##*.}; name=$(echo "$src" | tr "/." "__")
  cub="$OUT/$name.cubin"
  case "$ext" in
    ptx) ptxas -arch=sm_90 -O3 "$src" -o "$cub" > "$OUT/$name.build.txt" 2>&1 ;;
    cu) nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -cubin -o "$cub" "$src" > "$OUT/$name.build.txt" 2>&1 ;;
    *) echo "$src: give a .ptx or a .cu" | tee -a "$OUT/summary.txt"; continue ;;
  esac || { echo "$src: build failed (see $name.build.txt)" | tee -a "$OUT/summary.txt"; continue; }
  cuobjdump -sass "$cub" > "$OUT/$name.sass" 2>&1
  rm -f "$cub"
  if [ -n "$stream" ] && [ -f "$stream" ]; then
    python3 "$R/compare_sass.py" --sass "$OUT/$name.sass" --stream "$stream" > "$OUT/$name.compare.txt" 2>&1
    echo "== $src vs $(basename "$stream")" | tee -a "$OUT/summary.txt"
    tee -a "$OUT/summary.txt" < "$OUT/$name.compare.txt"
  else
    python3 "$R/compare_sass.py" --sass "$OUT/$name.sass" > "$OUT/$name.compare.txt" 2>&1
    echo "== $src: SASS stream only (no stream file $stream)" | tee -a "$OUT/summary.txt"
  fi
done
