#!/usr/bin/env python3
"""calibration/probes/queue_turns: raw/rr.txt.gz and raw/young.txt.gz (arb.cu). rr: once the queue is full,
the cycles between a warp's consecutive LDS issues (median over warps and SMs: W warps each
waiting its turn, 32 cycles a 32-way load on two servers, predict 32 W), whether the order
in which the warps take their turns repeats round after round, and how many LDS each warp had
issued before the first longer gap (not the queue's depth: calibration/README.md, section 20). young: the young block's
fourth shared store, |difference| between two warps of one sub-partition and of two, and its
spread over the block (p50 over SMs and reps).

    python3 calibration/probes/queue_turns/summary.py > calibration/probes/queue_turns/summary.txt
"""
import collections, gzip, os, statistics as st, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

HERE = os.path.dirname(os.path.abspath(__file__))
rr = collections.defaultdict(dict)
for line in gzip.open(os.path.join(HERE, "raw", "rr.txt.gz"), "rt"):
    t = line.split()
    W, rep, sm, w = map(int, t[1:5])
    rr[(W, rep, sm)][w] = list(map(int, t[5:]))
for W in (4, 8, 16):
    gaps, same_order, before = [], 0, []
    n = 0
    for (w_, rep, sm), ws in rr.items():
        if w_ != W or len(ws) != W:
            continue
        n += 1
        for c in ws.values():
            gaps += [c[i + 1] - c[i] for i in range(8, 31)]
            before.append(next((i + 1 for i in range(31) if c[i + 1] - c[i] > 40), 32))
        orders = []
        for k in (10, 20, 30):
            orders.append(tuple(sorted(ws, key=lambda w: ws[w][k])))
        same_order += orders[0] == orders[1] == orders[2]
    print(f"rr W={W:2d}: gap between a warp's LDS p50 {st.median(gaps)} (32 W = {32 * W}), "
          f"turn order the same at LDS 10, 20, 30 on {same_order} of {n} SM-launches, "
          f"LDS issued before the first wait p50 {st.median(before)} (x W = {st.median(before) * W})")
yo = collections.defaultdict(dict)
for line in gzip.open(os.path.join(HERE, "raw", "young.txt.gz"), "rt"):
    t = line.split()
    delay, rep, sm, role, w, t0 = map(int, t[1:7])
    yo[(delay, rep, sm)][(role, w)] = list(map(int, t[7:]))
for delay in (1500, 4000):
    same, other, spread = [], [], []
    for k, v in yo.items():
        if k[0] != delay:
            continue
        y = [(w, c[-1]) for (r, w), c in v.items() if r == 1]
        if len(y) != 8:
            continue
        for i in range(8):
            for j in range(i + 1, 8):
                (same if y[i][0] % 4 == y[j][0] % 4 else other).append(abs(y[i][1] - y[j][1]))
        spread.append(max(c for _, c in y) - min(c for _, c in y))
    print(f"young delay {delay}: 4th STS |diff| same sub-partition {st.mean(same):.0f}, other {st.mean(other):.0f}; "
          f"spread over the block p50 {st.median(spread)}")
# sp (raw/sp.txt, `arb sp 0|1`): one conflict-free load timed from issue to use by warps 1-3
# (sub-partitions 1-3), spinning 800, 1,200, 1,600 cycles first, while sub-partition 0 alone
# (mode 0) or every sub-partition (mode 1) floods.
sp = collections.defaultdict(list)
for line in open_text(os.path.join(HERE, "raw", "sp.txt")):
    t = line.split()
    sp[(int(t[1]), int(t[4]))].append(int(t[6]) - int(t[5]))
for (mode, w), v in sorted(sp.items()):
    v.sort()
    print(f"sp mode {mode} warp {w} (spins {400 + 400 * w}): issue to use p10 {v[len(v) // 10]} "
          f"p50 {v[len(v) // 2]} p90 {v[9 * len(v) // 10]} ({len(v)} SM-launches)")
