#!/usr/bin/env python3
"""Writes the probe's inputs (standard library only; deterministic, seed below):

  ldgsts_patterns.txt  one LDGSTS launch a line, draw2's format:
                       name kind d0..d31 s0..s31 z0..z31 warm
                       kind ca.4 ca.8 ca.16 cg.16 (no src-size operand) or ca.4.z ca.8.z ca.16.z
                       cg.16.z (src-size operand, per lane z); d: shared destination (-1: lane
                       inactive), s: global source byte offset, z: src-size (bytes read; the rest
                       of the cp-size is zero-filled); warm is always 0 here
  lists/ldgsts_0.txt   ncu chunks, in priority order (run.sh profiles them in this order)
  lists/ldgsts_1.txt
  lists/ldgsts_2.txt
  lists/srcpage.txt    the launches whose Source page is printed (the Ideal and tag columns)
  tma_cases.txt        one TMA case a line:
                       name dtype rank D0 D1 D2 P1 P2 B0 B1 B2 swizzle tile_off c0 c1 c2
                       (P1/P2: byte strides of dimensions 1 and 2; tile_off: the tile's offset
                       from the 1024-aligned base); run.sh runs each case in its own process in
                       the modes L (load alone), S (store alone), LS (load then store: the path
                       tensor_smem_draw2's tmadump took)
  lists/tma_ls.txt     the cases also run in mode LS

LDGSTS names: z_<kind>_<dst>_<src>_<size>  (block A/B/E/D, a .z instruction) and
              n_<kind>_<dst>_<src>          (block C, the same addresses without src-size)
              ctl_<kind>                    (all lanes inactive: the kernel's own wavefronts)
  dst  contig  d = t*w           samebank  d = t*128 (one bank group, 32-way)
       stride2 d = t*2w          same      d = 0 for every lane       random  (seeded)
  src  coal    s = S + t*w       same      s = S for every lane
       lines   s = S + t*128     random    (seeded, w-aligned)
  size full (w) zero (0) half (w/2) q1 (w/4) q3 (3w/4) lane0 (lane 0: 0, the rest w) lane31
       even (even lanes 0, odd w) lo16 (lanes 0-15: 0) phase0 (the lanes of the first
       phase, 32/16/8 lanes for w 4/8/16: 0) mixed (lane t: [0, w/2, w, w][t%4])
       evenhalf (even lanes w/2, odd w)"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
L = range(32)
SEED = 20261206
SMEM = 65536
GLOBAL = 1 << 20
S0 = 65536          # the source base (global byte offset, 4 KiB aligned)

ZKINDS = ["ca.4.z", "ca.8.z", "ca.16.z", "cg.16.z"]
NKINDS = ["ca.4", "ca.8", "ca.16", "cg.16"]
SIZES = ["full", "zero", "half", "q1", "q3", "lane0", "lane31", "even", "lo16", "phase0", "mixed", "evenhalf"]
DSTS = ["contig", "samebank", "stride2", "same", "random"]
SRCS = ["coal", "same", "lines", "random"]


def width(kind):
    return int(kind.split(".")[1])


def dst(fam, w, rng):
    if fam == "contig":
        return [t * w for t in L]
    if fam == "samebank":
        return [t * 128 for t in L]
    if fam == "stride2":
        return [t * 2 * w for t in L]
    if fam == "same":
        return [0] * 32
    return [w * rng.randrange(0, 16384 // w) for _ in L]


def src(fam, w, rng):
    if fam == "coal":
        return [S0 + t * w for t in L]
    if fam == "same":
        return [S0] * 32
    if fam == "lines":
        return [S0 + t * 128 for t in L]
    return [w * rng.randrange(0, (GLOBAL - 4096) // w) for _ in L]


def sizes(fam, w):
    g = {4: 32, 8: 16, 16: 8}[w]
    f = {
        "full": lambda t: w, "zero": lambda t: 0, "half": lambda t: w // 2, "q1": lambda t: w // 4,
        "q3": lambda t: 3 * w // 4, "lane0": lambda t: 0 if t == 0 else w,
        "lane31": lambda t: 0 if t == 31 else w, "even": lambda t: 0 if t % 2 == 0 else w,
        "lo16": lambda t: 0 if t < 16 else w, "phase0": lambda t: 0 if t < g else w,
        "mixed": lambda t: [0, w // 2, w, w][t % 4], "evenhalf": lambda t: w // 2 if t % 2 == 0 else w,
    }[fam]
    return [f(t) for t in L]


def main():
    rng = random.Random(SEED)
    # one random destination / source list per width, shared by every case of that width (so
    # that a .z case and its reference without src-size have the same addresses)
    rdst = {w: dst("random", w, rng) for w in (4, 8, 16)}
    rsrc = {w: src("random", w, rng) for w in (4, 8, 16)}

    def D(fam, w):
        return rdst[w] if fam == "random" else dst(fam, w, None)

    def S(fam, w):
        return rsrc[w] if fam == "random" else src(fam, w, None)

    pats, seen = {}, set()
    chunks = [[], [], []]

    def add(chunk, name, kind, d, s, z):
        if name in pats:
            return
        pats[name] = (kind, d, s, z)
        chunks[chunk].append(name)

    for k in ZKINDS + NKINDS:
        w = width(k)
        add(0, f"ctl_{k.replace('.', '')}", k, [-1] * 32, [0] * 32, [w] * 32)
    # A: every src-size pattern, on two address patterns
    for base in (("contig", "coal"), ("samebank", "coal")):
        for k in ZKINDS:
            w = width(k)
            for sz in SIZES:
                add(0, f"z_{k.replace('.', '')}_{base[0]}_{base[1]}_{sz}", k, D(base[0], w), S(base[1], w), sizes(sz, w))
    # B: every destination x source pattern, half the bytes read
    for k in ZKINDS:
        w = width(k)
        for df in DSTS:
            for sf in SRCS:
                add(1, f"z_{k.replace('.', '')}_{df}_{sf}_half", k, D(df, w), S(sf, w), sizes("half", w))
    # E: the same, nothing read (src-size 0), the 16-byte kinds
    for k in ("ca.16.z", "cg.16.z"):
        for df in DSTS:
            for sf in SRCS:
                add(1, f"z_{k.replace('.', '')}_{df}_{sf}_zero", k, D(df, 16), S(sf, 16), sizes("zero", 16))
    # C: the references without src-size on the same addresses (16-byte kinds: every pair;
    # ca.4/ca.8: four pairs)
    for k in NKINDS:
        w = width(k)
        pairs = [(df, sf) for df in DSTS for sf in SRCS] if w == 16 else \
            [("contig", "coal"), ("samebank", "coal"), ("contig", "same"), ("random", "same")]
        for df, sf in pairs:
            add(2, f"n_{k.replace('.', '')}_{df}_{sf}", k, D(df, w), S(sf, w), [w] * 32)
    # D: .cg with src-size = 16 everywhere (does the operand alone change the count?)
    for df in DSTS:
        for sf in SRCS:
            add(2, f"z_cg16z_{df}_{sf}_full", "cg.16.z", D(df, 16), S(sf, 16), sizes("full", 16))

    for name, (k, d, s, z) in pats.items():
        w = width(k)
        for dd, ss, zz in zip(d, s, z):
            assert dd < 0 or (dd % w == 0 and dd + w <= SMEM), name
            assert ss % w == 0 and 0 <= ss <= GLOBAL - 16 and 0 <= zz <= w, name
    os.makedirs(os.path.join(HERE, "lists"), exist_ok=True)
    with open(os.path.join(HERE, "ldgsts_patterns.txt"), "w") as f:
        for name, (k, d, s, z) in pats.items():
            f.write(" ".join([name, k] + [str(x) for x in d + s + z] + ["0"]) + "\n")
    for i, c in enumerate(chunks):
        with open(os.path.join(HERE, "lists", f"ldgsts_{i}.txt"), "w") as f:
            f.write("".join(n + "\n" for n in c))
    srcpage = ["z_cg16z_random_same_half", "z_cg16z_contig_coal_half", "z_cg16z_contig_coal_zero",
               "z_cg16z_samebank_coal_even", "z_ca16z_contig_coal_half", "z_ca16z_samebank_coal_zero",
               "z_ca8z_contig_coal_mixed", "z_ca4z_samebank_coal_half", "n_cg16_random_same",
               "n_ca16_contig_coal", "z_cg16z_contig_coal_full", "z_ca4z_contig_coal_lane0"]
    assert all(n in pats for n in srcpage)
    with open(os.path.join(HERE, "lists", "srcpage.txt"), "w") as f:
        f.write("".join(n + "\n" for n in srcpage))

    # ------------------------------------------------------------------ TMA
    cases = []

    def tma(name, dtype, rank, D3, B3, swz, c3, tile_off=0, P=None):
        es = 4 if dtype == "u32" else 2
        if P is None:
            P = (D3[0] * es, D3[0] * es * D3[1])
        cases.append([name, dtype, rank, *D3, *P, *B3, swz, tile_off, *c3])

    for swz in ("none", "128B"):
        s = "sw" if swz != "none" else "ns"
        # 2-D: u32 64 x 40, box 32 x 24 (128-byte rows: the 128B swizzle's span)
        D2, B2 = (64, 40, 1), (32, 24, 1)
        tma(f"r2_{s}_ctl0", "u32", 2, D2, B2, swz, (0, 0, 0))
        tma(f"r2_{s}_ctl_in", "u32", 2, D2, B2, swz, (8, 4, 0))
        tma(f"r2_{s}_upper", "u32", 2, D2, B2, swz, (48, 36, 0))
        for c in (-1, -4, -16, -17):
            tma(f"r2_{s}_c0_m{-c}", "u32", 2, D2, B2, swz, (c, 4, 0))
        for c in (-1, -4, -16, -17):
            tma(f"r2_{s}_c1_m{-c}", "u32", 2, D2, B2, swz, (8, c, 0))
        tma(f"r2_{s}_both_m4", "u32", 2, D2, B2, swz, (-4, -4, 0))
        tma(f"r2_{s}_c0_p1", "u32", 2, D2, B2, swz, (1, 4, 0))
        tma(f"r2_{s}_c0_p17", "u32", 2, D2, B2, swz, (17, 4, 0))
        tma(f"r2_{s}_c1_fullneg", "u32", 2, D2, B2, swz, (8, -24, 0))
        tma(f"r2_{s}_c1_fullpos", "u32", 2, D2, B2, swz, (8, 40, 0))
        # 3-D: u32 64 x 40 x 12, box 32 x 24 x 8 (c2 -16/-17: the box wholly below 0 in dim 2)
        D3, B3 = (64, 40, 12), (32, 24, 8)
        tma(f"r3_{s}_ctl0", "u32", 3, D3, B3, swz, (0, 0, 0))
        tma(f"r3_{s}_upper", "u32", 3, D3, B3, swz, (48, 36, 10))
        for c in (-4, -17):
            tma(f"r3_{s}_c0_m{-c}", "u32", 3, D3, B3, swz, (c, 2, 1))
        for c in (-1, -4, -16, -17):
            tma(f"r3_{s}_c1_m{-c}", "u32", 3, D3, B3, swz, (8, c, 1))
        for c in (-1, -4, -16, -17):
            tma(f"r3_{s}_c2_m{-c}", "u32", 3, D3, B3, swz, (8, 2, c))
    # tensor_smem_draw2's five faulting boxes and its two innermost-unaligned risky boxes, verbatim
    # (calibration/draws/tensor_smem_draw2/tma_patterns.txt: dims, strides, box, swizzle, origin)
    d2 = os.path.join(HERE, "..", "..", "draws", "tensor_smem_draw2", "tma_patterns.txt")
    want = {"d2_tma_u32_r3_64B_i48_b128x1_02", "d2_tma_u16_r2_32B_i32_b96x1_05", "d2_tma_u32_r3_64B_i16_b24x1_06",
            "d2_tma_u16_r2_none_i48_b128x1_08", "d2_tma_u16_r2_128B_i112_b13x1_15",
            "d2_tma_risky_c0unal_u32_r2_128B_i48_b8x1_22", "d2_tma_u16_r2_64B_i64_b128x1_14"}
    got = set()
    for line in open(d2):
        f = line.split()
        if not f or f[0] not in want:
            continue
        got.add(f[0])
        name, dtype, rank = f[0], f[1], int(f[2])
        Dd, P, B = tuple(map(int, f[3:6])), tuple(map(int, f[6:8])), tuple(map(int, f[8:11]))
        swz, toff, c = f[11], int(f[12]), tuple(map(int, f[13:16]))
        tma("d2_" + name[len("d2_tma_"):], dtype, rank, Dd, B, swz, c, toff, P)
    assert got == want, want - got
    with open(os.path.join(HERE, "tma_cases.txt"), "w") as f:
        f.write("# name dtype rank D0 D1 D2 P1 P2 B0 B1 B2 swizzle tile_off c0 c1 c2 (gen.py)\n")
        for c in cases:
            f.write(" ".join(str(x) for x in c) + "\n")
    ls = [c[0] for c in cases if c[0].startswith("d2_")] + \
        [f"{r}_{s}_{x}" for r in ("r2", "r3") for s in ("ns", "sw") for x in ("ctl0", "c1_m4")] + \
        ["r2_ns_upper", "r2_ns_c0_m4", "r2_sw_c0_m1"]
    with open(os.path.join(HERE, "lists", "tma_ls.txt"), "w") as f:
        f.write("".join(n + "\n" for n in ls))
    print(f"ldgsts: {len(pats)} launches in chunks of {[len(c) for c in chunks]}; tma: {len(cases)} cases, "
          f"{len(ls)} also in mode LS")


if __name__ == "__main__":
    main()
