#!/usr/bin/env python3
"""The template draws: warpsim's predictions (DIR/model.tsv, written before the H200 ran the draw)
against the H200 (DIR/raw/ncu_1.csv and raw/ncu_2.csv: two ncu runs, the mean of the two), and
the stamped transpose's barrier waits; writes DIR/measured.tsv.

    python3 calibration/lib/template_draw/compare.py [--dir DIR] [other_model.tsv ...]

--dir DIR: the draw's folder (calibration/draws/draw5); default draw4's. The raw files are not
in the tree: calibration/lib/restore_raw.sh DIR brings them back (calibration/drive.py compare
does it first).
"""
import csv, glob, gzip, math, os, re, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import CAL  # noqa: E402
from ncu import measured  # noqa: E402

HERE = os.path.join(CAL, "draws", "draw4")
if sys.argv[1:2] == ["--dir"]:
    HERE = os.path.abspath(sys.argv[2])
    del sys.argv[1:3]
RAW = os.path.join(HERE, "raw")


def stalls(x):
    return {s: x.get(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio", 0.0)
            for s in ("barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "drain")}


runs = [measured(os.path.join(RAW, f"ncu_{r}.csv")) for r in (1, 2)]
names = [r["name"] for r in csv.DictReader(open(os.path.join(HERE, "launches.tsv")), delimiter="\t")]
# The H200's numbers, for tests/timing.rs: the mean of the two runs.
with open(os.path.join(HERE, "measured.tsv"), "w") as f:
    f.write("name\telapsed_cycles\tsm_active_cycles_avg\n")
    for i, n in enumerate(names):
        el = sum(x[i]["gpc__cycles_elapsed.max"] for x in runs) / 2
        sm = sum(x[i]["sm__cycles_active.avg"] for x in runs) / 2
        f.write(f"{n}\t{el:.1f}\t{sm:.1f}\n")
models = [os.path.join(HERE, "model.tsv")] + sys.argv[1:]
for path in models:
    m = list(csv.DictReader(open(path), delimiter="\t"))
    print(f"== {os.path.relpath(path, HERE)}: model / H200 (elapsed, SM active: the mean of 2 ncu runs); stalls model vs H200")
    le, ls, li, w15 = [], [], [], [0, 0]
    for i, r in enumerate(m):
        el = sum(x[i]["gpc__cycles_elapsed.max"] for x in runs) / 2
        sm = sum(x[i]["sm__cycles_active.avg"] for x in runs) / 2
        e = float(r["elapsed_cycles"]) / el
        s = float(r["sm_active_cycles_avg"]) / sm
        le.append(abs(math.log(e)))
        ls.append(abs(math.log(s)))
        w15[0] += abs(e - 1) <= 0.15
        w15[1] += abs(s - 1) <= 0.15
        h = stalls(runs[0][i])
        st = " ".join(f"{k[:5]} {float(r['stall_' + k]):.1f}/{v:.1f}" for k, v in h.items() if v >= 1 or float(r["stall_" + k]) >= 1)
        # (Issued instructions, where the model's table has them: draw7 on.)
        inst = runs[0][i].get("smsp__inst_executed.sum")
        if r.get("issued_warp_instructions") and inst:
            li.append(abs(math.log(float(r["issued_warp_instructions"]) / inst)))
            st = f"inst {float(r['issued_warp_instructions']) / inst:4.2f}  " + st
        print(f"{r['name']:30} {e:5.2f} {s:5.2f}   {st}")
    n = len(m)
    print(f"mean |log ratio|: elapsed {sum(le) / n:.3f}, SM active {sum(ls) / n:.3f}; within 15%: {w15[0]} and {w15[1]} of {n}"
          + (f"; issued instructions {sum(li) / len(li):.3f}" if li else "") + "\n")

print("== stamped padded transpose (L2 clean): wait for the block's last warp, cycles a warp")
stamps = sorted((int(re.search(r"stamp_n(\d+)", p)[1]), p) for p in glob.glob(os.path.join(RAW, "stamp_n*.csv.gz")))
for n, p in stamps:
    blocks = {}
    for r in csv.DictReader(gzip.open(p, "rt")):
        blocks.setdefault(int(r["block"]), []).append(int(r["t0"]) + int(r["load_latency"]))
    wait = [max(ws) - w for ws in blocks.values() for w in ws]
    spread = sorted(max(ws) - min(ws) for ws in blocks.values())
    print(f"N={n:5}: mean wait {sum(wait) / len(wait):.0f}, completion spread in a block p50 {spread[len(spread) // 2]}")
