#!/usr/bin/env python3
"""calibration/probes/scheduler: section 18's wide-load question from raw/flood7.txt (flood.cu's `dram_w2`
mode): eight warps each load 2 lines (8 bytes a lane) from DRAM inside a 32-way flood. Per rep
the sorted load-to-use times with and without the flood, and the span from the first landing to
the last (one turn a load: ~3 steps of 64 cycles; one turn a line: ~7).

    python3 calibration/probes/scheduler/flood7.py > calibration/probes/scheduler/flood7_summary.txt
"""
import collections, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw", "flood7.txt")
d = collections.defaultdict(list)
for line in open_text(RAW):
    f = line.split()
    d[(int(f[2]), int(f[5]))].append(int(f[f.index("load") + 1]))
for rep in range(5):
    a, b = sorted(d[(rep, 0)]), sorted(d[(rep, 64)])
    print(f"rep {rep}: no flood {a}  flood {b}  first to last {b[-1] - b[0]}")
