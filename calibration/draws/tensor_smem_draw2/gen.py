#!/usr/bin/env python3
"""The second random validation draw of the tensor_smem rules (issue #41), after
tensor_smem_draw1 (its RESULT.md): LDGSTS and TMA only, smaller, never run before.
Deterministic: seed SEED below; `python3 gen.py` rewrites the same files.

patterns.txt      `name kind d0 … d31 s0 … s31 z0 … z31 warm`  cp.async ca.4 ca.8 ca.16 cg.16 and
                                                            their .z forms (z: src-size per lane;
                                                            = the width for kinds without .z)
tma_patterns.txt  `name dtype rank D0 D1 D2 P1 P2 B0 B1 B2 swizzle tile_off c0 c1 c2 mode o0 … o31`
                  as draw1's, but the innermost coordinate c0 x element size a multiple of 16
                  bytes (draw1's TMA part faulted on the first box where it was not)
mbar_patterns.txt empty (the mbarrier controls are not repeated)
lists/*.txt       launch lists in priority order (run.sh): cp, tma, tma_risky, srcpage
Families: LDGSTS 72 (+ 8 all-inactive controls, one per kernel; families as draw1's), TMA 20
boxes (each swizzle mode 5 times) + 4 risky: 2 swizzled tiles not 1024-aligned (as draw1's) and 2
boxes whose innermost coordinate is NOT 16-byte aligned (predicted to fault: the confirmation of
draw1's probe error), each dumped in its own process. No pattern repeats one of the first call's
or draw1's (checked)."""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE = os.path.join(HERE, "..", "..", "probes", "tensor_smem")
sys.path.insert(0, PROBE)
import model  # noqa: E402

SEED = 41_2026_12_05_02
rng = random.Random(SEED)
L = range(32)
SMEM = 65536          # the one-warp kernels' shared window
GLOBAL = 1 << 20      # the cp.async source buffer

P = {}       # name -> line
ORDER = {}   # list -> [names]
OLD = set()  # the first call's patterns (kind and offsets), filled by main()


def fresh(fields):
    """True unless these fields repeat a first-call pattern (such a draw is drawn again)."""
    return " ".join(str(x) for x in fields) not in OLD


def add(lst, name, fields):
    assert name not in P, name
    P[name] = " ".join([name] + [str(x) for x in fields])
    ORDER.setdefault(lst, []).append(name)


# ------------------------------------------------------------------ LDSM / STSM
def row_family(n):
    """(family name, rows[0..8n)) of one random row-address family for n matrices."""
    fam = rng.choice(["stride", "stride", "padded", "tile", "tile", "cute", "cute", "random",
                      "random", "window", "dups", "perm", "mixed", "pairs"])
    base = 16 * rng.randrange(0, 64)
    if fam == "stride":
        s = 16 * rng.randint(1, 40)
        rows = [base + i * s for i in range(8 * n)]
    elif fam == "padded":
        s = 16 * (rng.choice([2, 4, 8, 16, 32]) + rng.choice([1, -1, 2, 3]))
        rows = [base + i * s for i in range(8 * n)]
    elif fam == "tile":
        # rows of a 2-D tile with pitch P; matrix m at a random (row block, 16-byte column)
        P = 16 * rng.randint(2, 40)
        cols = P // 16
        rows = []
        for m in range(n):
            rb, cb = rng.randrange(0, 4), rng.randrange(0, cols)
            rows += [base + (rb * 8 + r) * P + cb * 16 for r in range(8)]
    elif fam == "cute":
        # CuTe Swizzle<B,M,S> on the b16 element index of a row-major tile of pitch P elements;
        # matrices in A-fragment order (m%2: rows +8, m/2: columns +8) at a random corner
        b, m_, s = rng.randint(1, 3), rng.randint(3, 5), rng.randint(3, 6)
        pe = 8 * rng.choice([4, 8, 16, 32, 64])
        r0, c0 = rng.randrange(0, 16), 8 * rng.randrange(0, pe // 8 - 1)
        rows = []
        for m in range(n):
            for r in range(8):
                e = (r0 + (m % 2) * 8 + r) * pe + c0 + (m // 2) * 8
                rows.append(model_cute(e, b, m_, s) * 2)
    elif fam == "random":
        rows = [16 * rng.randrange(0, SMEM // 16) for _ in range(8 * n)]
    elif fam == "window":
        w = rng.choice([256, 512, 1024, 2048, 4096])
        b0 = 16 * rng.randrange(0, (SMEM - w) // 16)
        rows = [b0 + 16 * rng.randrange(0, w // 16) for _ in range(8 * n)]
    elif fam == "dups":
        s = 16 * rng.randint(1, 24)
        rows = [base + i * s for i in range(8 * n)]
        for _ in range(rng.randint(1, 4 * n)):
            i, j = rng.randrange(8 * n), rng.randrange(8 * n)
            if rng.random() < 0.6:
                j = (i // 8) * 8 + rng.randrange(8)    # inside the same matrix
            rows[i] = rows[j]
    elif fam == "perm":
        s = 16 * rng.randint(1, 24)
        rows = [base + i * s for i in range(8 * n)]
        rng.shuffle(rows)
    elif fam == "pairs":
        # rows i and i^q on one address throughout (q = 1 or 2): LDS.128's rule 3 would halve
        # the phases, one phase per matrix does not
        q = rng.choice([1, 2])
        _, src = row_family(n)
        rows = [src[i & ~q] for i in range(8 * n)]
    else:   # mixed: each matrix from its own family
        rows = []
        for m in range(n):
            rows += row_family(1)[1]
    return fam, [r % SMEM for r in rows]


def model_cute(x, b, m, s):
    yyy = ((1 << b) - 1) << (m + s)
    return x ^ ((x & yyy) >> s)


def matrix_draws(count):
    i = 0
    while i < count:
        op = rng.choice(["ldsm", "stsm"])
        x = rng.choice(["x1", "x2", "x4", "x4"])
        trans = rng.random() < 0.35
        kind = f"{op}.{x}" + (".trans" if trans else "")
        n = int(x[1])
        fam, rows = row_family(n)
        # unused lanes (x1: 8-31, x2: 16-31): given anything a kernel might compute
        un = rng.choice(["continue", "zero", "random", "conflict", "far"])
        offs = list(rows)
        for t in range(8 * n, 32):
            if un == "continue":
                offs.append(rows[t % (8 * n)])
            elif un == "zero":
                offs.append(0)
            elif un == "random":
                offs.append(16 * rng.randrange(0, SMEM // 16))
            elif un == "conflict":
                offs.append(128 * rng.randrange(0, SMEM // 128))
            else:
                offs.append(0x100000 + 16 * t)   # outside the window: never read (first call)
        if not fresh([kind] + offs):
            continue
        add("mat", f"d2_{op}_{x}{'t' if trans else ''}_{fam}_{i:03d}", [kind] + offs)
        i += 1


# ------------------------------------------------------------------ LDGSTS
def dst_family(w):
    fam = rng.choice(["contig", "stride", "stride", "dups", "perm", "xorfill", "xorfill", "colmajor",
                      "random", "window", "rowswz", "mod"])
    base = w * rng.randrange(0, 256)
    if fam == "contig":
        d = [base + t * w for t in L]
    elif fam == "stride":
        s = w * rng.randint(2, 40)
        d = [base + t * s for t in L]
    elif fam == "dups":
        d = [base + t * w for t in L]
        for _ in range(rng.randint(1, 12)):
            d[rng.randrange(32)] = d[rng.randrange(32)]
    elif fam == "perm":
        d = [base + t * w for t in L]
        rng.shuffle(d)
    elif fam == "xorfill":
        # a tile of 128-byte rows (row pitch 128 or 256) filled in lane order, the 16-byte chunk
        # index XOR (row * k) % 8
        k, pitch = rng.randint(1, 7), rng.choice([128, 256])
        d = []
        for t in L:
            e = t * w
            row, ch, sub = e // 128, (e % 128) // 16, e % 16
            d.append(base * 8 + row * pitch + ((ch ^ (row * k)) % 8) * 16 + sub)
    elif fam == "colmajor":
        d = [base * 4 + (t % 8) * 128 + (t // 8) * 16 for t in L]
        if rng.random() < 0.5:
            d = [(x & ~127) + ((((x % 128) // 16) ^ ((x // 128) % 8)) * 16) for x in d]
    elif fam == "random":
        d = [w * rng.randrange(0, SMEM // w) for _ in L]
    elif fam == "window":
        win = rng.choice([128, 256, 512, 1024])
        b0 = w * rng.randrange(0, (SMEM - win) // w)
        d = [b0 + w * rng.randrange(0, win // w) for _ in L]
    elif fam == "rowswz":
        d = [base * 4 + (t // 8) * 128 + (((t % 8) ^ rng.randrange(8)) % 8) * 16 for t in L]
        d = [x - x % w for x in d]
    else:   # mod: (t % k) * K + (t / k) * w
        k = rng.choice([2, 4, 8])
        K = rng.choice([64, 128, 256, 384])
        d = [base + (t % k) * K + (t // k) * w for t in L]
    d = [x % SMEM for x in d]
    d = [x - x % w for x in d]
    return fam, d


def src_family(w):
    fam = rng.choice(["coal", "coal", "stride", "rot", "xor", "permline", "lines", "random", "same",
                      "few", "rev", "sectors"])
    base = 128 * rng.randrange(0, 4096)
    if fam == "coal":
        s = [base + t * w for t in L]
    elif fam == "stride":
        st = rng.choice([2 * w, 4 * w, 32, 64, 128, 256, 48, 80])
        st = max(w, st - st % w)
        s = [base + t * st for t in L]
    elif fam == "rot":      # coalesced, rotated by k chunks inside each 128-byte line
        k = rng.randrange(1, 128 // w)
        per = 128 // w
        s = [base + (t // per) * 128 + (((t % per) + k) % per) * w for t in L]
    elif fam == "xor":      # coalesced, chunk index XOR m inside each line
        per = 128 // w
        m = rng.randrange(1, per)
        s = [base + (t // per) * 128 + (((t % per) ^ m) % per) * w for t in L]
    elif fam == "permline":  # a random permutation of the lanes inside each line
        per = 128 // w
        s = []
        for g in range(32 // per):
            idx = list(range(per))
            rng.shuffle(idx)
            s += [base + g * 128 + i * w for i in idx]
        s = s[:32]
    elif fam == "lines":    # each lane its own line, at a random place in it
        s = [base + t * 128 * rng.randint(1, 4) + w * rng.randrange(0, 128 // w) for t in L]
    elif fam == "random":
        s = [w * rng.randrange(0, (GLOBAL - 4096) // w) for _ in L]
    elif fam == "same":
        s = [base + w * rng.randrange(0, 128 // w)] * 32
    elif fam == "few":
        pool = [base + w * rng.randrange(0, 1024 // w) for _ in range(rng.randint(2, 6))]
        s = [rng.choice(pool) for _ in L]
    elif fam == "rev":
        s = [base + (31 - t) * w for t in L]
    else:   # sectors: lane t in sector t of a 1 KiB block, random place inside the sector
        s = [base + t * 32 + w * rng.randrange(0, 32 // w) if w <= 32 else base + t * 32 for t in L]
    s = [x % (GLOBAL - 4096) for x in s]
    return fam, [x - x % w for x in s]


def cp_draws(count):
    kinds = ["ca.4"] * 3 + ["ca.8"] * 3 + ["ca.16"] * 5 + ["cg.16"] * 9
    for i in range(count):
        k = rng.choice(kinds)
        w = int(k.split(".")[1])
        z = rng.random() < 0.4
        dfam, d = dst_family(w)
        sfam, s = src_family(w)
        act = rng.random()
        if act < 0.25:
            p = rng.choice([0.5, 0.75, 0.9])
            d = [x if rng.random() < p else -1 for x in d]
            if all(x < 0 for x in d):
                d[rng.randrange(32)] = 0
        sizes = [w] * 32
        zname = ""
        if z:
            k += ".z"
            mode = rng.choice(["zero", "half", "full", "lanes", "lanes", "lanes"])
            if mode == "zero":
                sizes = [0] * 32
            elif mode == "half":
                sizes = [w // 2] * 32
            elif mode == "lanes":
                sizes = [rng.choice([0, w // 2, w, w]) for _ in L]
                if w == 16:
                    sizes = [rng.choice([0, 4, 8, 12, 16, 16]) for _ in L]
            zname = "_z" + mode
        warm = 1 if k.startswith("ca") and rng.random() < 0.12 else 0
        s = [x if dd >= 0 else 0 for x, dd in zip(s, d)]
        name = f"d2_cp_{k.replace('.', '')}_{dfam}_{sfam}{zname}{'_warm' if warm else ''}_{i:03d}"
        add("cp", name, [k] + d + s + sizes + [warm])


def cp_controls():
    for k in ["ca.4", "ca.8", "ca.16", "cg.16", "ca.4.z", "ca.8.z", "ca.16.z", "cg.16.z"]:
        w = int(k.split(".")[1])
        add("cp", f"d2_ctl_{k.replace('.', '')}_none", [k] + [-1] * 32 + [0] * 32 + [w] * 32 + [0])


def lds_sts_controls():
    for i in range(6):
        op = ["lds.128", "sts.128"][i % 2]
        _, rows = row_family(rng.choice([1, 2, 4]))
        offs = [rows[t % len(rows)] if rng.random() < 0.6 else -1 for t in L]
        if all(o < 0 for o in offs):
            offs[0] = 0
        add("mat", f"d2_ctl_{op.replace('.', '')}_masked_{i}", [op] + offs)


# ------------------------------------------------------------------ TMA
ES = {"u16": 2, "u32": 4}


def tma_draws(count, risky):
    made = 0
    while made < count + risky:
        r = made >= count
        dtype = rng.choice(["u16", "u16", "u32"])
        es = ES[dtype]
        # every swizzle mode 5 times (risky ones: a swizzled mode); rank 1 only unswizzled
        swz = ["none", "32B", "64B", "128B"][made % 4] if not r else ["32B", "64B", "128B", "128B"][made % 4]
        rank = rng.choice([2, 2, 2, 3]) if swz != "none" or r else rng.choice([1, 2, 2, 3])
        span = model.SPAN[swz]
        # box inner bytes: a multiple of 16, at most the span (swizzled) or 256 elements
        maxin = span if span else min(256 * es, 512)
        inner = 16 * rng.randint(1, maxin // 16)
        B0 = inner // es
        B1 = rng.choice([2, 5, 8, 13, 16, 24, 32, 48, 64, 64, 96, 128]) if rank >= 2 else 1
        B2 = rng.choice([1, 2, 3, 4]) if rank == 3 else 1
        rows = B1 * B2
        if model.tma_tile_bytes(rows, inner, swz) > 24576:
            continue
        D0 = B0 + rng.randint(0, 96)
        P1 = -(-D0 * es // 16) * 16 + 16 * rng.randint(0, 3)
        D1 = B1 + rng.randint(0, 40) if rank >= 2 else 1
        P2 = P1 * D1 + 16 * rng.randint(0, 2)
        D2 = max(B2, B2 + rng.randint(0, 3)) if rank == 3 else 1
        foot = P2 * D2 if rank == 3 else P1 * D1 if rank == 2 else D0 * es
        if dtype == "u16" and foot // 2 >= 60000 or foot > (1 << 18):
            continue
        # origin: inside, or hanging over an edge (out-of-bounds elements are filled with 0)
        def coord(D, B):
            if rng.random() < 0.2:
                return rng.choice([-rng.randint(1, B), D - B + rng.randint(1, B)])
            return rng.randint(0, D - B)
        # the innermost coordinate in bytes a multiple of 16 (draw1's TMA part faulted where it
        # was not); the last 2 risky boxes are deliberately 1 element off (predicted: a fault)
        q = 16 // es
        c0 = (coord(D0, B0) // q) * q
        unal = r and made - count >= 2
        if unal:
            c0 += 1
        c1 = coord(D1, B1) if rank >= 2 else 0
        c2 = coord(D2, B2) if rank == 3 else 0
        tile_off = 0 if not r or unal else rng.choice([128, 256, 384, 512, 640, 768, 896])
        # read-back: LDSM x4 of a 16x16 b16 fragment (u16 boxes with >= 16 rows and >= 32
        # bytes a row), else LDS.128 of 32 random 16-byte chunks of the tile (the chunks the
        # layout puts data in)
        if dtype == "u16" and rows >= 16 and inner >= 32:
            rr = rng.randrange(0, rows - 15)
            cc = 16 * rng.randrange(0, inner // 16 - 1)
            offs = [model.tma_offset(rr + (t // 8 % 2) * 8 + t % 8, cc + (t // 16) * 16, inner, swz, tile_off)
                    for t in L]
            rb = "ldsm"
        else:
            offs = [model.tma_offset(rng.randrange(rows), 16 * rng.randrange(inner // 16), inner, swz, tile_off)
                    for t in L]
            rb = "lds128"
        name = f"d2_tma_{('risky_c0unal_' if unal else 'risky_') if r else ''}{dtype}_r{rank}_{swz}_i{inner}_b{B1}x{B2}_{made:02d}"
        add("tma" if not r else "tma_risky", name,
            [dtype, rank, D0, D1, D2, P1, P2, B0, B1, B2, swz, tile_off, c0, c1, c2, f"load+{rb}+store"] + offs)
        made += 1


MBAR = [(0, "nothing"), (1, "init x1"), (2, "init x4 (4 barriers)"), (3, "init + fence.mbarrier_init"),
        (4, "init + arrive x1"), (5, "init(count 4) + arrive x4"), (6, "init + arrive + test_wait x1"),
        (7, "init + arrive + test_wait x8"), (8, "fence.proxy.async x4"), (9, "init(count 32) + 32 lanes arrive"),
        (10, "init + arrive.expect_tx 0 + try_wait")]


def mbar_controls():
    for k, what in MBAR:
        add("mbar", f"d2_mbar_{k:02d}", ["mbar", k])


# ------------------------------------------------------------------ checks and lists
def first_call_patterns():
    """The first call's and draw1's patterns (kind and fields)."""
    seen = set()
    for path in (os.path.join(PROBE, "patterns.txt"), os.path.join(HERE, "..", "tensor_smem_draw1", "patterns.txt"),
                 os.path.join(HERE, "..", "tensor_smem_draw1", "tma_patterns.txt")):
        for line in open(path):
            f = line.split()
            seen.add(" ".join(f[1:]))
    return seen


def check():
    for n, line in P.items():
        f = line.split()
        assert "_ctl_" in n or " ".join(f[1:]) not in OLD, f"{n} repeats a first-call or draw1 pattern"
        kind = f[1]
        if kind.startswith(("ldsm", "stsm")):
            offs = [int(v) for v in f[2:34]]
            nm = model.mat_n(kind)
            assert model.mat_fault(offs, kind) is None, n
            assert all(o % 16 == 0 for o in offs[:8 * nm]), n
        elif kind.startswith(("lds", "sts")):
            offs = [int(v) for v in f[2:34]]
            assert all(o < 0 or (o % 16 == 0 and o + 16 <= SMEM) for o in offs), n
        elif kind.startswith(("ca.", "cg.")):
            w = int(kind.split(".")[1])
            d = [int(v) for v in f[2:34]]
            s = [int(v) for v in f[34:66]]
            z = [int(v) for v in f[66:98]]
            for dd, ss, zz in zip(d, s, z):
                if dd >= 0:
                    assert dd % w == 0 and dd + w <= SMEM and ss % w == 0 and 0 <= ss <= GLOBAL - 16 and 0 <= zz <= w, n
            assert len(f) == 99, n


def main():
    OLD.update(first_call_patterns())
    cp_draws(72)
    cp_controls()
    tma_draws(20, 4)
    ORDER.setdefault("mat", [])
    ORDER.setdefault("mbar", [])
    check()
    # lists: chunks by group; the Source page of a few LDGSTS and LDSM launches
    cp = ORDER["cp"]
    ctl = [n for n in cp if "_ctl_" in n]
    rest = [n for n in cp if "_ctl_" not in n]
    ORDER["cp"] = ctl + rest
    ORDER["srcpage"] = [n for n in rest if "cg16" in n][:4] + [n for n in rest if "ca" in n][:6]
    with open(os.path.join(HERE, "patterns.txt"), "w") as f:
        for n in ORDER["mat"] + ORDER["cp"]:
            f.write(P[n] + "\n")
    with open(os.path.join(HERE, "tma_patterns.txt"), "w") as f:
        for n in ORDER["tma"] + ORDER["tma_risky"]:
            f.write(P[n] + "\n")
    with open(os.path.join(HERE, "mbar_patterns.txt"), "w") as f:
        for n in ORDER["mbar"]:
            f.write(P[n] + "\n")
    os.makedirs(os.path.join(HERE, "lists"), exist_ok=True)
    for lst, names in ORDER.items():
        with open(os.path.join(HERE, "lists", lst + ".txt"), "w") as f:
            f.write("".join(n + "\n" for n in names))
    for lst, names in ORDER.items():
        print(f"{lst:10s} {len(names):4d}")


if __name__ == "__main__":
    main()
