#!/bin/bash
# calibration/probes/queue_turns, second call: `arb sp 0` and `arb sp 1` (raw/sp.txt), the SASS (raw/sp.sass.gz).
export PATH=/usr/local/cuda/bin:$PATH
O=${OUT:-/tmp/arb}; mkdir -p "$O"
nvcc -O3 -arch=sm_90 -o /tmp/arb calibration/probes/queue_turns/arb.cu > "$O/build.txt" 2>&1 || { cat "$O/build.txt"; exit 1; }
cuobjdump -sass /tmp/arb | gzip > "$O/sp.sass.gz"
for m in 0 1; do /tmp/arb sp $m; done > "$O/sp.txt"; echo "sp rc $?"
cuobjdump -sass /tmp/arb | awk '/Function : _Z3spq/,/EXIT/' | grep -E "LDS|CS2R|FADD|BRA|BAR" | head -40
python3 - "$O/sp.txt" <<'PY'
import sys, collections, statistics as st
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    t = l.split(); d[(int(t[1]), int(t[4]))].append(int(t[6]) - int(t[5]))
for k in sorted(d): v = sorted(d[k]); print("mode %d warp %d: load issue-to-use p10 %d p50 %d p90 %d" % (k + (v[len(v)//10], v[len(v)//2], v[9*len(v)//10])))
PY
