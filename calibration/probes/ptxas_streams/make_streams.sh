#!/bin/bash
# warpsim's shared-access streams (after the merge model) of the shipped PTX, for
# compare_sass.sh: calibration/probes/ptxas_streams/streams/{classic_nvrtc,classic_nvcc,kernels_nvrtc,histogram_nvrtc}.stream.
# Run from the repository root after `cargo build --release`; add --no-merge to see the PTX
# as written (written to streams/*.nomerge.stream instead).
set -eu
W=${WARPSIM:-target/release/warpsim}
S=calibration/probes/ptxas_streams/streams; mkdir -p "$S"
ext=stream; [ "${1:-}" = "--no-merge" ] && ext=nomerge.stream
T=$(mktemp -d)
# The classic launches, with nvcc's PTX of the measured build in place of NVRTC's.
for f in programs/cuda/classic/*.ron; do
  sed "s@\"../classic.ptx\"@\"$PWD/tests/fixtures/h200/classic/classic.ptx\"@" "$f" > "$T/$(basename "$f")"
done
py() { python3 calibration/probes/ptxas_streams/compare_sass.py --dump --warpsim "$W" "$@"; }
py ${1:-} programs/cuda/classic/*.ron > "$S/classic_nvrtc.$ext"
py ${1:-} "$T"/*.ron > "$S/classic_nvcc.$ext"
py ${1:-} $(grep -l "ptx:" programs/cuda/*.ron) > "$S/kernels_nvrtc.$ext"
py ${1:-} programs/cuda/histogram/*.ron > "$S/histogram_nvrtc.$ext"
rm -rf "$T"
wc -l "$S"/*."$ext"
