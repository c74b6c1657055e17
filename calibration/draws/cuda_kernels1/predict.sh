#!/bin/bash
# warpsim's predictions for cuda_kernels1: run right before the H200 call, with the warpsim that
# implements issue 37, and commit predictions.tsv (and pred/*.json) before the call.
#   bash calibration/draws/cuda_kernels1/predict.sh [WARPSIM] [PTXDIR]
# from the repository root. WARPSIM: the binary (default target/release/warpsim); NVRTC as
# warpsim needs it (WARPSIM_NVRTC). With PTXDIR (after the call: the raw archive's ptx/, nvcc
# 13's PTX of each kernel file), the same launches run on that PTX (`ptx:` launch files in
# pred_ptx/) and go to predictions_ptx.tsv: what warpsim makes of the device compiler's PTX,
# which separates front-end differences (NVRTC vs nvcc) from model errors.
set -u
D=$(cd "$(dirname "$0")" && pwd)
WS=${1:-target/release/warpsim}
PTXDIR=${2:-}
[ -x "$WS" ] || { echo "no warpsim binary at $WS"; exit 2; }
"$WS" --version > /dev/null 2>&1 || true
if [ -n "$PTXDIR" ]; then
  P=$D/pred_ptx; L=$P/launches; OUTTSV=$D/predictions_ptx.tsv
  rm -rf "$P"; mkdir -p "$L"
  python3 "$D/predict.py" ptxlaunches "$PTXDIR" "$L" || exit 2
else
  P=$D/pred; L=$D/launches; OUTTSV=$D/predictions.tsv
  rm -rf "$P"; mkdir -p "$P"
fi
for f in "$L"/*.cu.ron; do
  n=$(basename "$f" .cu.ron)
  timeout 900 "$WS" run "$f" --format json > "$P/$n.json" 2> "$P/$n.err"
  echo $? > "$P/$n.rc"
  echo "$n rc=$(cat "$P/$n.rc")"
done
python3 "$D/predict.py" tsv "$P" > "$OUTTSV"
{ echo "# warpsim $("$WS" --version 2>/dev/null | head -1), $(git -C "$D" rev-parse --short HEAD 2>/dev/null), $(date -u +%F)"
  awk -F'\t' 'NR > 1 { n++; a += ($3 == "yes"); v += ($4 == "yes") } END { print "# " n " launches: accepted " a ", verified " v }' "$OUTTSV"; } \
  | tee -a "$OUTTSV.log"
# the JSON keeps per-instruction rows; compress it (pred*/ is kept with the predictions)
gzip -9f "$P"/*.json
