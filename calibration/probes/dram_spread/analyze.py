#!/usr/bin/env python3
"""calibration/probes/dram_spread: per-block spread of the warps' load completion, from raw/raw_nN.csv.gz.

    python3 calibration/probes/dram_spread/analyze.py

The kernel's own `barrier_wait` column is not a barrier wait: `BAR.SYNC.DEFER_BLOCKING` lets
the clock read after it issue before the barrier releases (2 cycles for every warp). The wait
a warp would have is the block's last completion (t0 + load_latency) minus its own.
"""
import csv, gzip, os

HERE = os.path.dirname(os.path.abspath(__file__))


def q(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


for n in (256, 1024, 4096):
    rows = list(csv.DictReader(gzip.open(os.path.join(HERE, "raw", f"raw_n{n}.csv.gz"), "rt")))
    blocks = {}
    for r in rows:
        blocks.setdefault(int(r["block"]), []).append((int(r["t0"]), int(r["load_latency"])))
    start, done, wait, lat = [], [], [], []
    for ws in blocks.values():
        t0 = [w[0] for w in ws]
        t1 = [w[0] + w[1] for w in ws]
        start.append(max(t0) - min(t0))
        done.append(max(t1) - min(t1))
        wait += [max(t1) - x for x in t1]
        lat += [w[1] for w in ws]
    print(f"N={n:5} blocks {len(blocks):6} | warp load latency p10/p50/p90 {q(lat, .1)}/{q(lat, .5)}/{q(lat, .9)}"
          f" | block: first-load spread p50 {q(start, .5)}, completion spread p10/p50/p90"
          f" {q(done, .1)}/{q(done, .5)}/{q(done, .9)} | wait for the block's last warp: mean"
          f" {sum(wait) / len(wait):.0f}")

# Which warps wait alike: the deviation of a warp's completion from its block's mean, correlated
# with that of the same warp (same rows) in the block whose tile column is bx ^ k: its 128-byte
# lines are the neighbours at 128 * k bytes. Lines of one aligned 256 bytes (k = 1) wait alike;
# lines further apart do not: DRAM queues by address, in 256-byte chunks spread over channels.


def corr(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sx = sum((x - mx) ** 2 for x in xs) ** 0.5
    sy = sum((y - my) ** 2 for y in ys) ** 0.5
    return sxy / (sx * sy)


for n in (1024, 4096):
    rows = list(csv.DictReader(gzip.open(os.path.join(HERE, "raw", f"raw_n{n}.csv.gz"), "rt")))
    nbx = n // 32
    blocks = {}
    for r in rows:
        blocks.setdefault(int(r["block"]), []).append((int(r["warp"]), int(r["t0"]) + int(r["load_latency"])))
    dev = {}
    for b, ws in blocks.items():
        m = sum(d for _, d in ws) / len(ws)
        for w, d in ws:
            dev[(b, w)] = d - m
    out = []
    for k in (1, 2, 4, 8, 16):
        xs, ys = [], []
        for (b, w), v in dev.items():
            by, bx = divmod(b, nbx)
            o = (by * nbx + (bx ^ k), w)
            if not bx & k and o in dev:
                xs.append(v)
                ys.append(dev[o])
        out.append(f"{128 * k} B: {corr(xs, ys):.2f}")
    print(f"N={n:5} correlation of completion (less the block's mean) with the same rows' lines at: " + ", ".join(out))
