#!/usr/bin/env python3
"""`share timed` → per K (sub-partitions flooding) and T: the timed load's issue-to-use, p10 /
p50 / p90 over SM-launches, and its issue (p50).

    python3 calibration/probes/queue_share/timed.py raw/timed.txt
"""
import collections, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

d = collections.defaultdict(list)
for line in open_text(sys.argv[1]):
    t = line.split()
    if t[0] == "timed":
        d[(int(t[1]), int(t[2]))].append((int(t[5]), int(t[6]) - int(t[5])))
for k in sorted(d):
    v = sorted(x for _, x in d[k])
    i = sorted(a for a, _ in d[k])
    n = len(v)
    print(f"K {k[0]} T {k[1]}: issued at p50 {i[n // 2]}, issue to use p10 {v[n // 10]} p50 {v[n // 2]} p90 {v[9 * n // 10]} ({n} SM-launches)")
