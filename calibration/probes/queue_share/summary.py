#!/usr/bin/env python3
"""share.cu's output → per D and sub-partition, p50 over SM-launches of the mean over its 3
warps of: first LDS issued, last LDS issued, end (all data back), cycles from the block's t0;
and the share of sub-partition 1 among LDS issued between its 10th and sub-partition 0's last.

    python3 calibration/probes/queue_share/summary.py raw/share.txt
"""
import collections, os, statistics as st, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (raw/share.txt is kept gzipped)

runs = collections.defaultdict(dict)
for line in open_text(sys.argv[1]):
    t = line.split()
    if t[0] != "share":
        continue
    d, rep, sm, w = int(t[1]), int(t[2]), int(t[3]), int(t[4])
    c = [int(x) for x in t[6:-1]]
    runs[(d, rep, sm)][w] = (c, int(t[-1]))

for d in sorted({k[0] for k in runs}):
    rows = collections.defaultdict(list)
    shares = []
    for (dd, rep, sm), ws in runs.items():
        if dd != d:
            continue
        for sp in (0, 1):
            mine = [ws[w] for w in ws if w % 4 == sp]
            rows[(sp, "first")].append(st.mean(c[0] for c, _ in mine))
            rows[(sp, "last")].append(st.mean(c[-1] for c, _ in mine))
            rows[(sp, "end")].append(st.mean(e for _, e in mine))
        i0 = sorted(x for w in ws if w % 4 == 0 for x in ws[w][0])
        i1 = sorted(x for w in ws if w % 4 == 1 for x in ws[w][0])
        if len(i1) > 10:
            lo, hi = i1[9], i0[-1]
            n0 = sum(lo < x <= hi for x in i0)
            n1 = sum(lo < x <= hi for x in i1)
            if n0 + n1:
                shares.append(n1 / (n0 + n1))
    n = len(rows[(0, "end")])
    for sp in (0, 1):
        print(f"D {d} sp {sp}: first {st.median(rows[(sp, 'first')]):.0f} last-issue "
              f"{st.median(rows[(sp, 'last')]):.0f} end {st.median(rows[(sp, 'end')]):.0f} ({n} SM-launches)")
    if shares:
        print(f"D {d}: sub-partition 1's share of the LDS issued while both flood p50 {st.median(shares):.2f}")
