#!/bin/bash
# The model's predictions for every launch of out_of_family2, to be made by the CHANGED model
# right before the device runs it and committed before the call:
#   bash calibration/draws/out_of_family2/predict.sh [WARPSIM] [OUT.tsv]
# WARPSIM: the warpsim binary (default target/release/warpsim of the repository root, else
# `warpsim` on PATH); OUT: default predictions.tsv beside this script. NOVERIFY=1 skips the CPU
# references (faster; the references were all checked once, see README). Needs NVRTC:
# WARPSIM_NVRTC (default: target/nvrtc-wheel/... of the repository root, else
# /work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12, where they exist).
# About 2-4 minutes on 2 busy cores (README). Exit 1 if any launch fails or does not verify.
set -u
D=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$D/../../.." && pwd)
WS=${1:-$ROOT/target/release/warpsim}
[ -x "$WS" ] || WS=$(command -v warpsim)
OUTF=${2:-$D/predictions.tsv}
if [ -z "${WARPSIM_NVRTC:-}" ]; then
  for L in "$ROOT/target/nvrtc-wheel/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" /work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12; do
    if [ -e "$L" ]; then export WARPSIM_NVRTC=$L; break; fi
  done
fi
echo "warpsim: $WS ($(sha256sum "$WS" | cut -c1-16); $("$WS" --version 2>/dev/null | head -1))" >&2
V=""; [ "${NOVERIFY:-0}" = 1 ] && V=--no-verify
exec nice -n 10 python3 "$D/predict.py" "$WS" "$OUTF" $V
