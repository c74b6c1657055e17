#!/usr/bin/env python3
"""calibration/probes/scheduler: section 18's check from raw/flood5.txt (flood.cu's `dram` mode): eight
timed warps' lines come back from DRAM inside a flood of WAYS-way conflicted shared loads. Per
rep, the eight load-to-use times sorted, paired (2k, 2k+1), and the steps between the pairs'
means; the rule (one line per server between two instructions, two servers) predicts pairs a
step of 2 x WAYS cycles apart.

    python3 calibration/probes/scheduler/flood5.py > calibration/probes/scheduler/flood5_summary.txt
"""
import collections, os, statistics, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw", "flood5.txt")
d = collections.defaultdict(list)
for line in open_text(RAW):
    f = line.split()
    d[(int(f[1]), int(f[3]), int(f[6]))].append(int(f[f.index("load") + 1]))
for ways in (32, 16, 8):
    steps, spread = [], []
    for rep in range(5):
        b = sorted(d[(ways, rep, 64)])
        pairs = [(b[2 * k] + b[2 * k + 1]) / 2 for k in range(4)]
        st = [pairs[k + 1] - pairs[k] for k in range(3)]
        steps += st
        spread += [b[2 * k + 1] - b[2 * k] for k in range(4)]
        print(f"ways {ways:2d} rep {rep}: no flood {sorted(d[(ways, rep, 0)])}  flood {b}  steps {[round(x) for x in st]}")
    print(f"ways {ways:2d}: step between pairs median {statistics.median(steps):.0f} (predicted {2 * ways}),"
          f" within a pair median {statistics.median(spread):.0f}")
