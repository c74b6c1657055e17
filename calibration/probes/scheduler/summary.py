#!/usr/bin/env python3
"""calibration/probes/scheduler: the tables of calibration/README.md section 17 from raw/.

    python3 calibration/probes/scheduler/summary.py > calibration/probes/scheduler/summary.txt
"""
import collections, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (large raw files are kept gzipped)

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw")


def sections(path, kinds):
    """{header: [fields of each line]} for the lines of `kinds`, under each '# rep ...' header."""
    out, cur = collections.defaultdict(list), None
    for line in open_text(os.path.join(RAW, path)):
        if line.startswith("#"):
            cur = line[2:].strip()
        elif line.split()[0] in kinds:
            out[cur].append(line.split())
    return out


def ends(path):
    print(f"== {path}: alu/lds, each warp's end (t1) by sub-partition (warp % 4), earliest first")
    for head, rows in sections(path, ("alu", "lds")).items():
        if not head.startswith("rep 0"):
            continue
        blocks = sorted({int(f[3]) for f in rows})
        print(" ", head)
        for b in blocks:
            for sp in range(4):
                ws = sorted((int(f[-1]), int(f[5])) for f in rows if int(f[3]) == b and int(f[5]) % 4 == sp)
                print(f"    block {b:3d} sp {sp}: " + " ".join(f"w{w}:{t}" for t, w in ws))


def phases(path, kind, label):
    print(f"== {path}: {kind}, per block on the SM: [min max] of {label}")
    for head, rows in sections(path, (kind,)).items():
        print(" ", head)
        blocks = collections.defaultdict(list)
        for f in rows:
            blocks[int(f[3])].append([int(x) for x in f[7:]])
        for b, ws in sorted(blocks.items(), key=lambda kv: min(w[0] for w in kv[1])):
            print(f"    block {b:4d}: " + "  ".join(f"[{min(c):6d} {max(c):6d}]" for c in zip(*ws)))


def mm(path):
    print(f"== {path}: mm, per barrier arrival k (odd: after the tile loads, even: after the 64-LDS loop):"
          " spread (last - first) / mean wait (last - mean)")
    for head, rows in sections(path, ("mm",)).items():
        ws = [[int(x) for x in f[8:]] for f in rows]
        cols = list(zip(*ws))
        print(f"  {head[:5]}: " + " ".join(f"{k + 1}:{max(c) - min(c)}/{max(c) - sum(c) / len(c):.0f}" for k, c in enumerate(cols)))


def flood(path):
    print(f"== {path}: mean cycles over the 8 timed warps, rep 0")
    acc = collections.defaultdict(list)
    for line in open_text(os.path.join(RAW, path)):
        f = line.split()
        if f[1] != "0":
            continue
        key = dict(zip(f[5::2], f[6::2]))
        vals = [int(key[x]) for x in ("load", "sts", "lds4", "load2")]
        acc[(f[2], int(f[4]), key.get("swap", "0"), key.get("delay", "0"))].append(vals)
    for (l, fl, sw, dl), v in sorted(acc.items()):
        m = [sum(c) / len(c) for c in zip(*v)]
        print(f"  {l} flood {fl:2d} swap {sw} delay {dl:>4}: load {m[0]:5.0f}  sts {m[1]:4.0f}  lds4 {m[2]:5.0f}  load2 {m[3]:5.0f}")


def phases_tr(path):
    print(f"== {path}: per block on the SM, [min max] of t0, loads issued, data in, stores issued"
          " (the clock after them waits for the last store to read its register), end;"
          " then the means of (data in - t0) and (stores - data in)")
    for head, rows in sections(path, ("tr",)).items():
        print(" ", head)
        blocks = collections.defaultdict(list)
        for f in rows:
            blocks[int(f[3])].append([int(x) for x in f[6:]])
        for b, ws in sorted(blocks.items(), key=lambda kv: min(w[0] for w in kv[1])):
            cols = [c for k, c in enumerate(zip(*ws)) if k != 4]  # tB: the clock after the barrier does not wait for it
            dw = sum(w[2] - w[0] for w in ws) / len(ws)
            sw = sum(w[3] - w[2] for w in ws) / len(ws)
            print(f"    block {b:4d}: " + "  ".join(f"[{min(c):5d} {max(c):5d}]" for c in cols) + f"  data {dw:5.0f}  stores {sw:5.0f}")


if __name__ == "__main__":
    ends("clocks.txt")
    ends("clocks2.txt")
    mm("clocks2.txt")
    phases("clocks2.txt", "tr", "t0, the barrier arrival, its release, the last store")
    flood("flood.txt")
    flood("flood2.txt")
    flood("flood3.txt")
    flood("flood4.txt")
    phases_tr("phases.txt")
