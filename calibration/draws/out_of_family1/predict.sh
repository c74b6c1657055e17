#!/bin/bash
# The model's predictions for every launch of this set (issue 38 item 3), to be made by the
# CHANGED model right before the H200 runs it and committed before the call:
#   bash calibration/draws/out_of_family1/predict.sh [WARPSIM] [OUT.tsv]
# WARPSIM: the warpsim binary (default target/release/warpsim of the repository root, else
# `warpsim` on PATH); OUT: default predictions.tsv beside this script. NOVERIFY=1 skips the CPU
# references (faster; the references were all checked once, see README). Needs NVRTC:
# WARPSIM_NVRTC (default /work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 where it exists).
# About 4-8 minutes on 2 busy cores. Exit 1 if any launch fails or does not verify.
set -u
D=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$D/../../.." && pwd)
WS=${1:-$ROOT/target/release/warpsim}
[ -x "$WS" ] || WS=$(command -v warpsim)
OUTF=${2:-$D/predictions.tsv}
if [ -z "${WARPSIM_NVRTC:-}" ] && [ -e /work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12 ]; then
  export WARPSIM_NVRTC=/work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12
fi
echo "warpsim: $WS ($(sha256sum "$WS" | cut -c1-16); $("$WS" --version 2>/dev/null | head -1))" >&2
V=""; [ "${NOVERIFY:-0}" = 1 ] && V=--no-verify
exec nice -n 10 python3 "$D/predict.py" "$WS" "$OUTF" $V
