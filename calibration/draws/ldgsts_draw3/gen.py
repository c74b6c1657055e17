#!/usr/bin/env python3
"""ldgsts_draw3: a fresh random draw of cp.async launches with a src-size operand (LDGSTS.ZFILL),
made after the .cg zero-fill rule of crates/smem/src/async_copy.rs was changed from
calibration/probes/ldgsts_tma3's data. Writes patterns.txt (the probe's format: name kind, 32
shared destinations (-1 inactive), 32 global byte sources, 32 src-sizes, warm=0).

    python3 gen.py          (seed below; never re-draw after the predictions are committed)
"""
import os
import random

SEED = 20261206_3
HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = [("cg.16.z", 36), ("ca.16.z", 10), ("ca.8.z", 7), ("ca.4.z", 7)]


def dsts(r, w):
    fam = r.choice(["contig", "stride", "samebank", "perm", "random", "few"])
    base = r.randrange(0, 4096 // w) * w
    if fam == "contig":
        d = [base + t * w for t in range(32)]
    elif fam == "stride":
        k = r.choice([2, 3, 4, 8])
        d = [base + t * w * k for t in range(32)]
    elif fam == "samebank":
        d = [base + t * 128 for t in range(32)]
    elif fam == "perm":
        slots = list(range(r.choice([32, 64, 128])))
        r.shuffle(slots)
        d = [base + s * w for s in slots[:32]]
    elif fam == "random":
        d = [r.randrange(0, 8192 // w) * w for _ in range(32)]
    else:
        few = [r.randrange(0, 4096 // w) * w for _ in range(4)]
        d = [r.choice(few) for _ in range(32)]
    if r.random() < 0.3:  # some lanes inactive
        keep = r.randrange(8, 32)
        off = set(r.sample(range(32), 32 - keep))
        d = [-1 if t in off else x for t, x in enumerate(d)]
    return fam, d


def srcs(r, w):
    fam = r.choice(["coal", "same", "lines", "stride", "random", "fewlines"])
    base = r.randrange(0, (1 << 19) // 128) * 128 + r.randrange(0, 128 // w) * w
    if fam == "coal":
        s = [base + t * w for t in range(32)]
    elif fam == "same":
        s = [base] * 32
    elif fam == "lines":
        s = [base + t * 128 for t in range(32)]
    elif fam == "stride":
        k = r.choice([2, 3, 4, 8])
        s = [base + t * w * k for t in range(32)]
    elif fam == "random":
        s = [r.randrange(0, 65536 // w) * w for _ in range(32)]
    else:
        lines = [r.randrange(0, 512) * 128 for _ in range(4)]
        s = [r.choice(lines) + r.randrange(0, 128 // w) * w for _ in range(32)]
    return fam, s


def sizes(r, w):
    fam = r.choice(["full", "zero", "half", "perlane", "mixed"])
    if fam == "full":
        z = [w] * 32
    elif fam == "zero":
        z = [0] * 32
    elif fam == "half":
        z = [w // 2] * 32
    elif fam == "perlane":
        z = [r.randrange(0, w + 1) for _ in range(32)]
    else:
        z = [r.choice([0, w]) for _ in range(32)]
    return fam, z


def main():
    r = random.Random(SEED)
    lines = []
    for kind, n in KINDS:
        w = int(kind.split(".")[1])
        for i in range(n):
            df, d = dsts(r, w)
            sf, s = srcs(r, w)
            zf, z = sizes(r, w)
            name = f"r_{kind.replace('.', '')}_{i:02d}_{df}_{sf}_{zf}"
            lines.append(" ".join([name, kind] + [str(x) for x in d + s + z] + ["0"]))
    open(os.path.join(HERE, "patterns.txt"), "w").write("\n".join(lines) + "\n")
    print(f"{len(lines)} launches -> patterns.txt")


if __name__ == "__main__":
    main()
