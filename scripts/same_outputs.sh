#!/usr/bin/env bash
# Compares two warpsim binaries on every command, byte for byte: `run` (JSON and table, on
# every shipped program under programs/, RON, PTX and CUDA launches, and on what-if GPUs,
# sampled timing, racecheck, SVG and timeline files), `check` (with and without `--code`),
# `access` (every trace of tests/fixtures/h200, every format, other geometries), `explain`
# (loads, stores, atomics, masks, geometries), `sweep` and `advise` (table, CSV, JSON, SVG), and
# a set of errors (stderr and exit status). Only wall-clock fields are taken out: the JSON
# report's `emulator` object and the table's `emulator:` line; and the intended changes listed
# below (`intended`) are applied to the base's output.
#
# Usage: scripts/same_outputs.sh BASE_BINARY NEW_BINARY [OUTDIR] [--quick]
#   --quick: skip the slowest runs (large grids) for a fast check while working.
# A case whose arguments contain ` || ` runs the left side with the base binary and the right
# side with the new one (the same question asked with flags only the new binary has).
# Exit status 0 when every output is identical; the differing cases are listed.
set -u
# Arguments are split on spaces and never globbed (`tid*2`).
set -f
base=$1; new=$2; out=${3:-/tmp/same_outputs}; quick=${4:-}
base=$(realpath "$base"); new=$(realpath "$new")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export WARPSIM_NVRTC=${WARPSIM_NVRTC:-/work/nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12}
export NO_COLOR=1
# Each binary gets its own NVRTC cache, filled by the same compilations.
rm -rf "$out"; mkdir -p "$out/base" "$out/new" "$out/gpu" "$out/cache/base" "$out/cache/new"
preset=crates/machine/presets/h200.ron
[ -f "$preset" ] || preset=$(find crates -name h200.ron -path '*presets*' | head -1)
# What-if machines: fewer SMs; twice the shared servers and 64 banks; 128 warps an SM.
sed 's/sms: 132,/sms: 8,/' "$preset" > "$out/gpu/small.ron"
sed -e 's/servers: 2,/servers: 4,/' -e 's/banks: 32,/banks: 64,/' "$preset" > "$out/gpu/wide.ron"
sed -e 's/warps: 64, /warps: 128,/' -e 's/threads: 2048,/threads: 4096,/' "$preset" > "$out/gpu/big.ron"
# Only the bank count changed: `--gpu banks64.ron` asks what `--banks 64` asks.
sed 's/banks: 32,/banks: 64,/' "$preset" > "$out/gpu/banks64.ron"
G=$out/gpu

# Strips the wall-clock parts of an output file in place.
strip() {
  python3 - "$1" <<'EOF'
import json, re, sys
p = sys.argv[1]
t = open(p, encoding="utf-8", errors="replace").read()
try:
    d = json.loads(t)
    if isinstance(d, dict):
        d.pop("emulator", None)
    t = json.dumps(d, indent=1, sort_keys=True) + "\n"
except ValueError:
    t = "".join(l for l in t.splitlines(True) if not re.match(r"\s*emulator\b", l))
open(p, "w").write(t)
EOF
}

cases=()
add() { cases+=("$*"); }

# ---- run and check: every shipped program ----------------------------------------------
while IFS= read -r f; do
  add "run $f --format json"
  add "check $f"
  add "check $f --code"
done < <(find programs -name '*.ron' | sort)
for f in programs/transpose.ron programs/matmul.ron programs/histogram.ron programs/cuda/kernels.cu.ron; do
  [ -f "$f" ] && add "run $f"
done
# Variants: defines, registers, what-if GPUs, sampled timing, no timing, racecheck, geometry.
for r in \
  "transpose.ron -D N=256" "transpose.ron -D N=256 -D PAD=1" "transpose.ron -D N=256 -D SWIZZLE=1" \
  "transpose.ron -D N=1024 -D PAD=1" "transpose.ron -D N=1024 -D SWIZZLE=1" "transpose.ron -D N=1024 --regs 28" \
  "transpose.ron -D N=512 --gpu $G/small.ron" "transpose.ron -D N=512 --gpu $G/wide.ron" \
  "transpose.ron -D N=512 --gpu $G/big.ron" "matmul.ron --gpu $G/small.ron" "transpose_f64.ron -D PAD=1" \
  "matmul.ron --regs 28" "matmul.ron -D TRANS_A=1 --regs 29" "matmul.ron -D TRANS_A=1 -D PAD=1 --regs 30" \
  "sgemm_4x4.ron --regs 28" "transpose.ron -D N=2048 --sample 4" "transpose.ron -D N=1024 --sample 1" \
  "transpose.ron --no-timing" "matmul.ron --no-timing --no-verify" "histogram.ron --racecheck" \
  "transpose.ron --racecheck" "transpose.ron --banks 16" "transpose.ron --bank-bytes 8" \
  "transpose.ron --banks 64 --bank-bytes 8 --no-timing" "matmul.ron --max-steps 100000" \
  "transpose.ron --shared-limit 65536" "cuda/kernels.cu.ron --no-merge" "transpose.ron --gpu h200"
do add "run programs/$r --format json"; done
if [ "$quick" != --quick ]; then
  for r in "transpose.ron -D N=4096" "transpose.ron -D N=4096 -D PAD=1" "matmul.ron -D N=512 --sample 6"; do
    add "run programs/$r --format json"
  done
fi
add "run programs/transpose.ron --svg @OUT@/t.svg --format json"
add "run programs/transpose.ron -D N=256 --timeline @OUT@/tl.json --format json"
add "run programs/matmul.ron -D N=128 --timeline @OUT@/tl.json --no-verify --format json"

# ---- access: every trace, every format, other geometries --------------------------------
for t in tests/fixtures/h200/*patterns.txt; do
  for fmt in json tsv table; do add "access $t --format $fmt"; done
done
add "access tests/fixtures/h200/patterns.txt --format tsv --banks 64"
add "access tests/fixtures/h200/patterns.txt --format json --bank-bytes 8"
add "access tests/fixtures/h200/narrow_patterns.txt --format tsv --banks 16 --bank-bytes 16"
add "access tests/fixtures/h200/patterns.txt --format tsv --banks 64 || access tests/fixtures/h200/patterns.txt --format tsv --gpu $G/banks64.ron"
add "access tests/fixtures/h200/patterns.txt --format tsv || access tests/fixtures/h200/patterns.txt --format tsv --gpu h200"

# ---- explain ---------------------------------------------------------------------------
for e in "tid" "tid*2" "0" "(tid%4)*32" "tid*32" "tid*33" "tid*32+5" "tid*33+5" "tid^1" \
         "(tid/8)*64+(tid%8)" "tid*3" "-tid" "tid*17%32"; do
  add "explain $e"
done
add "explain tid --width 8"
add "explain tid*2 --width 8"
add "explain tid --width 16"
add "explain tid --width 1"
add "explain tid*3 --width 2"
add "explain tid*2 --op st"
add "explain tid*32 --mask 0x0000ffff"
add "explain tid*2 --banks 16"
add "explain tid*2 --bank-bytes 8"
add "explain tid*2 --banks 64 --bank-bytes 8"
add "explain tid%4 --op atom.add"
add "explain tid --op atom.add.f32"
add "explain tid%2 --op red.popc"
add "explain tid --op atom.cas --width 8"
add "explain tid*32 --op atom.min --mask 0xff"
add "explain tid*2 --banks 64 || explain tid*2 --gpu $G/banks64.ron"
add "explain tid*32 || explain tid*32 --gpu h200"

# ---- sweep and advise --------------------------------------------------------------------
for fmt in json csv table; do
  add "sweep programs/transpose.ron -D N=256 -D PAD=0..1 --banks 16,32 --bank-bytes 4,8 --format $fmt"
  add "advise programs/transpose.ron -D N=256 --format $fmt"
done
add "advise programs/matmul.ron -D N=128 --format json"
add "sweep programs/transpose.ron -D N=256 -D PAD=0,1 --svg @OUT@/s.svg --format json"
add "sweep programs/histogram.ron --format json"
add "sweep programs/matmul.ron -D N=128 -D TRANS_A=0,1 --no-verify --format csv"
add "sweep programs/cuda/kernels.cu.ron --format json"
add "advise programs/transpose_f64.ron --format json"
add "advise programs/transpose.ron -D N=256 --banks 64 --format json"
add "advise programs/transpose.ron -D N=256 --max-pad 4 --no-verify --format csv"
add "advise programs/transpose.ron -D N=256 --banks 64 --format json || advise programs/transpose.ron -D N=256 --gpu $G/banks64.ron --format json"
add "sweep programs/transpose.ron -D N=256 --banks 64 --format json || sweep programs/transpose.ron -D N=256 --gpu $G/banks64.ron --format json"
add "run programs/transpose.ron --banks 64 --format json || run programs/transpose.ron --gpu $G/banks64.ron --format json"

# ---- errors (stderr and exit status) ---------------------------------------------------
for f in tests/bad/*.ron; do add "run $f"; done
add "run programs/transpose.ron --sample 5"
add "run programs/transpose.ron --banks 0"
add "run programs/transpose.ron --bank-bytes 3"
add "run programs/transpose.ron --gpu nosuch"
add "run programs/transpose.ron -D N"
add "run programs/transpose.ron -D N=x"
add "run programs/transpose.ron --shared-limit 1024"
add "run nosuch.ron"
add "access tests/fixtures/h200/patterns.txt --banks 0"
add "access nosuch.txt"
add "explain tid --bank-bytes 3"
add "explain tid+"
add "explain tid*2 --width 3"
add "sweep programs/transpose.ron --banks 0"
add "sweep programs/transpose.ron -D PAD=3..1"
add "advise programs/transpose.ron --max-pad 5000"
add "advise programs/cuda/kernels.cu.ron"
add "advise programs/transpose.ron --bank-bytes 3"

# Intended changes since 59296a5, applied to the base binary's output before comparing (each
# a sed expression; nothing else may differ):
# * the GPU description moved from crates/timing/presets/ to crates/machine/presets/, and the
#   help of an unreadable --gpu names the new place;
# * a bank geometry is checked in one place (warpsim_machine::Machine::resolve), whose error
#   points at the machine (`h200: invalid bank geometry: ...`) for every command, where `run`,
#   `sweep` and `advise` named the program and `access`/`explain` nothing.
intended=(
  -e 's#crates/timing/presets/h200.ron#crates/machine/presets/h200.ron#g'
  -E -e 's#^  x ([^ :]+: )?invalid bank geometry: #  x h200: invalid bank geometry: #'
)
fail=0; i=0; nd=0; ns=0
for c in "${cases[@]}"; do
  i=$((i+1))
  bargs=${c%% || *}; nargs=${c##* || }
  if [ "$bargs" != "$nargs" ] && ! "$new" ${nargs%% *} --help 2>/dev/null | grep -q -- '--gpu'; then
    # The new binary has no --gpu for this command yet: nothing to compare.
    echo "skip  $i $c (no --gpu in the new binary)"; ns=$((ns+1)); continue
  fi
  for b in base new; do
    bin=$base; a=$bargs
    [ $b = new ] && { bin=$new; a=$nargs; }
    a=${a//@OUT@/$out/$b}
    mkdir -p "$out/$b"
    rm -f "$out/$b/t.svg" "$out/$b/tl.json" "$out/$b/s.svg"
    # shellcheck disable=SC2086
    s0=$(date +%s.%N)
    WARPSIM_CACHE=$out/cache/$b timeout 600 "$bin" $a >"$out/$b/$i.out" 2>"$out/$b/$i.err" </dev/null
    echo "$(echo "$(date +%s.%N) - $s0" | bc) $b $c" >>"$out/times"
    echo "exit $?" >>"$out/$b/$i.err"
    strip "$out/$b/$i.out"
    for f in t.svg tl.json s.svg; do
      [ -f "$out/$b/$f" ] && mv "$out/$b/$f" "$out/$b/$i.$f"
    done
  done
  same=1
  set +f; bf=("$out/base/$i".*); nf=("$out/new/$i".*); set -f
  [ ${#bf[@]} = ${#nf[@]} ] || same=0
  for f in "${bf[@]}"; do
    g=$out/new/${f##*/}
    # Paths of the output folder differ between the two sides.
    if ! cmp -s <(sed "s#$out/base#OUT#g" "$f" | sed "${intended[@]}") <(sed "s#$out/new#OUT#g" "$g" 2>/dev/null); then same=0; fi
  done
  if [ $same = 1 ]; then
    [ -n "${VERBOSE:-}" ] && echo "same  $i $c"
  else
    echo "DIFF  $i $c"; fail=1; nd=$((nd+1))
  fi
done
if [ $fail = 0 ]; then
  echo "IDENTICAL: all $((${#cases[@]}-ns)) cases compared (stdout, stderr, exit status, files); $ns skipped"
else
  echo "$nd of ${#cases[@]} cases differ (outputs in $out/base and $out/new)"
fi
exit $fail
