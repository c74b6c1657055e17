#!/usr/bin/env python3
"""calibration/probes/scheduler: section 18's L1 question from raw/flood6.txt (flood.cu's `dram_ca` mode):
eight lines from DRAM inside a 32-way flood, loaded with ld.global.ca (allocating in L1) and
.cg; per rep the sorted load-to-use times, the steps between pairs, and how late the last line
is against the median without the flood.

    python3 calibration/probes/scheduler/flood6.py > calibration/probes/scheduler/flood6_summary.txt
"""
import collections, os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw", "flood6.txt")
d = collections.defaultdict(list)
for line in open_text(RAW):
    f = line.split()
    d[(f[0], int(f[2]), int(f[5]))].append(int(f[f.index("load") + 1]))
for kind in ("cg", "ca"):
    steps, last = [], []
    for rep in range(5):
        a, b = sorted(d[(kind, rep, 0)]), sorted(d[(kind, rep, 64)])
        pairs = [(b[2 * k] + b[2 * k + 1]) / 2 for k in range(4)]
        st = [pairs[k + 1] - pairs[k] for k in range(3)]
        steps += st
        last.append(b[-1] - statistics.median(a))
        print(f"{kind} rep {rep}: no flood {a}  flood {b}  steps {[round(x) for x in st]}")
    print(f"{kind}: step between pairs median {statistics.median(steps):.0f}, last line late by"
          f" {statistics.median(last):.0f} (median over reps)")
