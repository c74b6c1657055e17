#!/bin/bash
# The timing model's cycles per load of a dependent shared-load chain, one warp, N-way conflicted
# loads: (SM-active cycles at 256 loads - at 64) / 192, for the RON program and for the same
# kernel from CUDA. Usage: WARPSIM_NVRTC=... bash run.sh [WARPSIM]
WS=${1:-/work/bin/warpsim}
cd "$(dirname "$0")" || exit 2
for p in chain.ron chain_cuda.ron; do
  for n in 1 2 8 32; do
    a=$("$WS" run "$p" -D N=$n -D R=64 --format json | python3 -c "import json,sys; t=json.load(sys.stdin)['timing']; print(t['sm_active_cycles_avg']*t['sms'])")
    b=$("$WS" run "$p" -D N=$n -D R=256 --format json | python3 -c "import json,sys; t=json.load(sys.stdin)['timing']; print(t['sm_active_cycles_avg']*t['sms'])")
    python3 -c "print('$p N=$n: %.1f cycles a load (H200: 21 + 2N = %d, plus the address arithmetic)' % (($b - $a) / 192, 21 + 2 * $n))"
  done
done
