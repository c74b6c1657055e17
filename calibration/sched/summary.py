#!/usr/bin/env python3
"""calibration/sched: the tables of calibration/README.md section 17 from raw/.

    python3 calibration/sched/summary.py > calibration/sched/summary.txt
"""
import collections, os

RAW = os.path.join(os.path.dirname(os.path.abspath(__file__)), "raw")


def sections(path, kinds):
    """{header: [fields of each line]} for the lines of `kinds`, under each '# rep ...' header."""
    out, cur = collections.defaultdict(list), None
    for line in open(os.path.join(RAW, path)):
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
    for line in open(os.path.join(RAW, path)):
        f = line.split()
        if f[1] != "0":
            continue
        sw = f[6] if f[5] == "swap" else "0"
        vals = [int(f[i + 1]) for i, x in enumerate(f) if x in ("load", "sts", "lds4", "load2")]
        acc[(f[2], int(f[4]), sw)].append(vals)
    for (l, fl, sw), v in sorted(acc.items()):
        m = [sum(c) / len(c) for c in zip(*v)]
        print(f"  {l} flood {fl:2d} swap {sw}: load {m[0]:5.0f}  sts {m[1]:4.0f}  lds4 {m[2]:4.0f}  load2 {m[3]:5.0f}")


if __name__ == "__main__":
    ends("clocks.txt")
    ends("clocks2.txt")
    mm("clocks2.txt")
    phases("clocks2.txt", "tr", "t0, the barrier arrival, its release, the last store")
    flood("flood.txt")
    flood("flood2.txt")
