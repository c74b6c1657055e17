#!/usr/bin/env python3
"""calibration/probes/dram_order: the probes with and without the memset's dirty lines in L2 (run_clean.sh
-> raw2/, run_clean2.sh -> raw3/, run_issue.sh -> raw4/, run_issue2.sh -> raw5/). Prints, for order.cu, the summary of summary.py; for
sched/phases.cu (every SM's warps), per block place on its SM (1 = oldest) the mean over blocks
of: data in (tD), stores left (tS - tD), a warp's wait for its block's last store (max tS - tS),
the spread of the block's data (max - min tD) and of its stores (max - min tS), and |tS| differences
between two warps of one sub-partition against two of different ones.

    python3 calibration/probes/dram_order/clean.py > calibration/probes/dram_order/clean.txt
"""
import collections, gzip, os, statistics as st, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def phases(path):
    rows = collections.defaultdict(list)
    rep = pad = None
    for line in gzip.open(path, "rt"):
        t = line.split()
        if t[0] == "#":
            rep, pad = int(t[2]), int(t[4])
            continue
        sm, b, w = int(t[1]), int(t[5]), int(t[7])
        t0, ta, td, ts, tb, te = map(int, t[8:14])
        rows[(pad, rep, sm, b)].append((w, t0, td, ts))
    return rows


def table(rows, pad):
    by_sm = collections.defaultdict(list)
    for k, v in rows.items():
        if k[0] == pad:
            by_sm[(k[1], k[2])].append((min(r[1] for r in v), v))
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for blocks in by_sm.values():
        blocks.sort(key=lambda x: x[0])
        for i, (_, v) in enumerate(blocks[:8]):
            d = out[i + 1]
            last = max(r[3] for r in v)
            d["data"].append(st.mean(r[2] for r in v))
            d["stores"].append(st.mean(r[3] - r[2] for r in v))
            d["wait"].append(st.mean(last - r[3] for r in v))
            d["data spread"].append(max(r[2] for r in v) - min(r[2] for r in v))
            d["store spread"].append(last - min(r[3] for r in v))
            for a in range(len(v)):
                for b in range(a + 1, len(v)):
                    same = v[a][0] % 4 == v[b][0] % 4
                    d["same sp" if same else "other sp"].append(abs(v[a][3] - v[b][3]))
    return out


for mode in ("clean", "dirty"):
    print(f"== order.cu, {mode} L2")
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(HERE, "summary.py"), os.path.join(HERE, "raw2", f"order_{mode}.txt.gz")], check=True)
for mode, path in (("clean", "raw2/phases_clean.txt.gz"), ("dirty", "raw2/phases_dirty.txt.gz"),
                   ("clean, `issue` variant", "raw4/phases_issue.txt.gz"),
                   ("clean, `issue2` variant (tS at the stores' issue)", "raw5/phases_issue2.txt.gz")):
    rows = phases(os.path.join(HERE, path))
    for pad in (0, 1):
        print(f"== phases.cu, {'padded' if pad else 'naive'} transpose n=1024, {mode} L2: mean over all SMs and 3 reps, by place 1-8")
        t = table(rows, pad)
        for q in ("data", "stores", "wait", "data spread", "store spread", "same sp", "other sp"):
            print(f"  {q:13s}" + "".join(f"{st.mean(t[p][q]):7.0f}" for p in range(1, 9)))
