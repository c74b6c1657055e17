#!/usr/bin/env python3
"""calibration/probes/dram_order: from raw/order.txt.gz, per pattern and rep: the loads' latency (tD - tA)
over all warps (quantiles), the spread within a block (max - min over its 8 warps; quantiles over
blocks), and how much of the latency the block's place on its SM (its order of arrival, 1-8)
explains: the mean latency of each place.

    python3 calibration/probes/dram_order/summary.py > calibration/probes/dram_order/summary.txt
    python3 calibration/probes/dram_order/summary.py calibration/probes/dram_order/raw2/order_clean.txt.gz
"""
import collections, gzip, os, statistics, sys

RAW = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw", "order.txt.gz")
NAMES = {0: "transpose", 1: "sequential", 2: "random"}
runs = collections.defaultdict(list)
for line in gzip.open(RAW, "rt"):
    p, rep, b, w, sm, t0, ta, td = map(int, line.split())
    runs[(p, rep)].append((b, w, sm, t0, ta, td))


def q(v, ps=(0.01, 0.1, 0.5, 0.9, 0.99)):
    v = sorted(v)
    return " ".join(f"{v[min(len(v) - 1, int(p * len(v)))]:5d}" for p in ps)


for (p, rep), rows in sorted(runs.items()):
    lat = [td - ta for _, _, _, _, ta, td in rows]
    blocks = collections.defaultdict(list)
    start = collections.defaultdict(list)
    for b, w, sm, t0, ta, td in rows:
        blocks[b].append(td - ta)
        start[b].append((sm, t0))
    spread = [max(v) - min(v) for v in blocks.values()]
    # A block's place on its SM: its blocks ordered by their earliest start.
    by_sm = collections.defaultdict(list)
    for b, v in start.items():
        by_sm[v[0][0]].append((min(t for _, t in v), b))
    place = {}
    for sm, bs in by_sm.items():
        for k, (_, b) in enumerate(sorted(bs)):
            place[b] = k + 1
    per_place = collections.defaultdict(list)
    for b, v in blocks.items():
        per_place[place[b]].extend(v)
    pm = " ".join(f"{k}:{statistics.mean(v):5.0f}" for k, v in sorted(per_place.items()))
    print(f"{NAMES[p]:10s} rep {rep}: latency p1 p10 p50 p90 p99 {q(lat)} | spread in a block {q(spread)} | mean by place {pm}")
