#!/usr/bin/env bash
# Runs a fixed set of programs with two warpsim binaries and compares their JSON reports
# (the wall-clock `emulator` object aside) and two --timeline files byte for byte.
# Usage: scripts/timing_same.sh BASE_BINARY NEW_BINARY [OUTDIR]
# Exit status 0 when every output is identical.
set -u
base=$1; new=$2; out=${3:-/tmp/timing_same}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export WARPSIM_NVRTC=${WARPSIM_NVRTC:-/tmp/nvall/nvidia/cuda_nvrtc/lib/libnvrtc.so.12}
rm -rf "$out"; mkdir -p "$out/base" "$out/new" "$out/gpu"
# What-if machines: fewer SMs; twice the shared servers and 64 banks; 128 warps an SM.
sed 's/sms: 132,/sms: 8,/' crates/timing/presets/h200.ron > "$out/gpu/small.ron"
sed -e 's/servers: 2,/servers: 4,/' -e 's/banks: 32,/banks: 64,/' crates/timing/presets/h200.ron > "$out/gpu/wide.ron"
sed -e 's/warps: 64, /warps: 128,/' -e 's/threads: 2048,/threads: 4096,/' crates/timing/presets/h200.ron > "$out/gpu/big.ron"
runs=(
  "transpose.ron -D N=256"
  "transpose.ron -D N=256 -D PAD=1"
  "transpose.ron -D N=256 -D SWIZZLE=1"
  "transpose.ron -D N=1024"
  "transpose.ron -D N=1024 -D PAD=1"
  "transpose.ron -D N=1024 -D SWIZZLE=1"
  "transpose.ron -D N=1024 --regs 28"
  "transpose.ron -D N=512 --gpu $out/gpu/small.ron"
  "transpose.ron -D N=512 --gpu $out/gpu/wide.ron"
  "transpose.ron -D N=512 --gpu $out/gpu/big.ron"
  "matmul.ron --gpu $out/gpu/small.ron"
  "transpose_f64.ron"
  "transpose_f64.ron -D PAD=1"
  "matmul.ron"
  "matmul.ron --regs 28"
  "matmul.ron -D TRANS_A=1"
  "matmul.ron -D TRANS_A=1 --regs 29"
  "matmul.ron -D TRANS_A=1 -D PAD=1 --regs 30"
  "bank_patterns.ron"
  "hgemm_tile.ron"
  "hgemm_tile_h.ron"
  "histogram.ron"
  "histogram_f32.ron"
  "histogram_inc.ron"
  "sgemm_4x4.ron"
  "sgemm_4x4.ron --regs 28"
  # Sampled timing: by default (N=4096 is 16 waves) and asked for.
  "transpose.ron -D N=4096"
  "transpose.ron -D N=4096 -D PAD=1"
  "transpose.ron -D N=2048 --sample 4"
  "matmul.ron -D N=512 --sample 6"
)
for f in programs/classic/*.ron programs/examples/*.ron; do runs+=("${f#programs/}"); done
for f in cg_reduce copySharedMem dbl_stencil float2_transpose_0 half_tile local_array matrixMul_32 prescan reduce6_f64 softmax_row transposeDiagonal uchar_hist xor_swizzle_transpose; do
  runs+=("cuda/zoo/$f.ron")
done
fail=0; i=0
for r in "${runs[@]}"; do
  i=$((i+1))
  # shellcheck disable=SC2086
  for b in base new; do
    bin=$base; [ $b = new ] && bin=$new
    timeout 300 "$bin" run programs/$r --format json --no-verify 2>"$out/$b/$i.err" \
      | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("emulator",None); print(json.dumps(d,indent=1,sort_keys=True))' > "$out/$b/$i.json" 2>>"$out/$b/$i.err"
  done
  if cmp -s "$out/base/$i.json" "$out/new/$i.json" && [ -s "$out/new/$i.json" ]; then
    echo "same  $i $r"
  else
    echo "DIFF  $i $r"; fail=1
  fi
done
for t in "transpose.ron -D N=256" "matmul.ron -D N=128"; do
  i=$((i+1))
  # shellcheck disable=SC2086
  "$base" run programs/$t --no-verify --timeline "$out/base/tl$i.json" >/dev/null 2>&1
  # shellcheck disable=SC2086
  "$new" run programs/$t --no-verify --timeline "$out/new/tl$i.json" >/dev/null 2>&1
  if cmp -s "$out/base/tl$i.json" "$out/new/tl$i.json" && [ -s "$out/new/tl$i.json" ]; then
    echo "same  timeline $t"
  else
    echo "DIFF  timeline $t"; fail=1
  fi
done
[ $fail = 0 ] && echo "ALL SAME (${#runs[@]} reports, 2 timelines)"
exit $fail
