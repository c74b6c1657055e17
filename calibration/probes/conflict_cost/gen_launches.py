#!/usr/bin/env python3
"""Writes launches.tsv: every launch of the conflict-cost campaign, one a line, in the order and
groups run.sh profiles them (the host program of probe.cu reads the same file; predict.py runs
warpsim on the same rows through ports/<kernel>.ron).

Columns: label, kernel (probe.cu's name as NVRTC's name expression), grid, block, dynamic shared
bytes, a, b, c (the kernel's three int arguments), x length, out length (floats), group.

Groups, in run.sh's order of priority: classic (Harris's reductions, the Blelloch scan), lvl1
(the one-level probes at one block), tree (the tree alone), src (Source pages of a few launches,
copies of rows above), mod (the `%` loop, many-wave overlap), lvl2 (blocks per SM, repetition
slopes), clock (per-level clock64, nvcc only, no ncu).

Usage: python3 gen_launches.py > launches.tsv
"""

import sys

SMS = 132
rows = []


def add(label, kernel, grid, block, smem, a, b, c, xlen, outlen, group):
    rows.append((label, kernel, grid, block, smem, a, b, c, xlen, outlen, group))


def padded(n):
    """Floats of a tree's or scan's shared array with one pad word per 32."""
    return n + n // 32


# ---- classic: Harris's reductions --------------------------------------------------------
def reductions(blocks):
    for B in blocks:
        per_sm = min(32, 2048 // B)
        grids = [("g1", SMS), ("wave", SMS * per_sm), ("n4M", (1 << 22) // B)]
        kernels = [("reduce1", 0), ("reduce1p", 0), ("reduce1p", -1), ("reduce2", 0)]
        if B != 1024:
            kernels = [("reduce0", 0)] + kernels + [("reduce3", 0)]
        for gname, G in grids:
            for k, pad in kernels:
                grid = G // 2 if k == "reduce3" and gname == "n4M" else G
                per = B * (2 if k == "reduce3" else 1)
                smem = 4 * (padded(B) if k == "reduce1p" else B)
                name = k + (f"_pad{1 if pad else 0}" if k == "reduce1p" else "")
                add(f"{name}_b{B}_{gname}", k, grid, B, smem, pad, 0, 0, grid * per, grid, "classic")


# ---- classic: the Blelloch scan ---------------------------------------------------------
def scans(blocks):
    for B in blocks:
        n = 2 * B
        per_sm = 2048 // B
        for gname, G in (("g1", SMS), ("wave", SMS * per_sm), ("w8", 8 * SMS * per_sm)):
            for k, mask, name in (("prescan<0>", 0, "scan_cf0"), ("prescan<1>", 0, "scan_cf1"),
                                  ("prescan<2>", 0, "scan_rt0"), ("prescan<2>", -1, "scan_rt1")):
                add(f"{name}_n{n}_{gname}", k, G, B, 4 * padded(n), n, mask, 0, G * n, G * n,
                    "classic")


# ---- lvl: one level repeated ------------------------------------------------------------
def lvl(group, kind, warps, wact, ways, reps=64, per_sm=1):
    nld, st, chain, sync, dep = kind
    k = f"lvl<{nld},{st},{chain},{sync},{dep}>"
    grid = 1 if per_sm == 1 else SMS * per_sm
    label = f"lvl{nld}{st}c{chain}y{sync}d{dep}_w{warps}_a{wact}_n{ways}_k{per_sm}_r{reps}"
    add(label, k, grid, 32 * warps, 0, ways, wact, reps, 64, grid * 32, group)


LEVEL = (2, 1, 0, 1, 0)  # two loads, their sum stored, a barrier: a reduction's level
WAYS = (1, 2, 4, 8, 16, 32)


def lvl1():
    # A: one warp: latency anchors and what one warp's instructions do to each other.
    for n in WAYS:
        lvl("lvl1", (1, 0, 0, 0, 1), 1, 1, n)    # dependent LDS chain (21 + 2N)
    for n in WAYS:
        lvl("lvl1", (2, 0, 0, 0, 1), 1, 1, n)    # two independent loads, then their sum
    for n in (1, 4, 8, 32):
        lvl("lvl1", (4, 0, 0, 0, 1), 1, 1, n)    # four
    for n in (1, 8, 32):
        lvl("lvl1", (1, 1, 0, 0, 1), 1, 1, n)    # load, store to it, load again
        lvl("lvl1", (0, 1, 0, 0, 0), 1, 1, n)    # stores only
        lvl("lvl1", (0, 1, 0, 1, 0), 1, 1, n)    # a store and a barrier
    for n in WAYS:
        lvl("lvl1", LEVEL, 1, 1, n)
    # B: the level with every warp of the block working.
    for w in (2, 4, 8, 16, 32):
        for n in WAYS:
            lvl("lvl1", LEVEL, w, w, n)
    # C: fewer warps working than the block holds (a tree's late levels).
    for a in (1, 2, 4):
        for n in (1, 4, 8, 32):
            lvl("lvl1", LEVEL, 8, a, n)
    for a in (1, 4, 16):
        for n in (1, 8, 32):
            lvl("lvl1", LEVEL, 32, a, n)
    # D: a dependent chain between the loads and the store.
    for chain in (4, 16):
        for w in (1, 4, 32):
            for n in (1, 8, 32):
                lvl("lvl1", (2, 1, chain, 1, 0), w, w, n)
    # E: no barrier: the next level's loads wait for this one's value (d1) or only for the
    # store before them (d0).
    for w in (1, 4, 8, 32):
        for n in (1, 8, 32):
            lvl("lvl1", (2, 1, 0, 0, 1), w, w, n)
    for w in (4, 32):
        for n in (1, 8, 32):
            lvl("lvl1", (2, 1, 0, 0, 0), w, w, n)
    # Stores with a barrier, many warps; stores alone, 32 warps (the pipe's rate).
    for w in (8, 32):
        for n in (1, 8, 32):
            lvl("lvl1", (0, 1, 0, 1, 0), w, w, n)
    for n in (1, 8, 32):
        lvl("lvl1", (0, 1, 0, 0, 0), 32, 32, n)


def lvl2():
    # F: blocks per SM.
    for w in (1, 4, 8):
        for k in (2, 4, 8):
            for n in (1, 8, 32):
                lvl("lvl2", LEVEL, w, w, n, per_sm=k)
    # G: 16 repetitions against the 64 above: the per-repetition slope.
    for w in (1, 8, 32):
        for n in (1, 8, 32):
            lvl("lvl2", LEVEL, w, w, n, reps=16)
    for n in (1, 32):
        lvl("lvl2", (1, 0, 0, 0, 1), 1, 1, n, reps=16)
        lvl("lvl2", (2, 0, 0, 0, 1), 1, 1, n, reps=16)


# ---- tree: the reduction tree alone ---------------------------------------------------------
def tree(group, k, B, grid, pad, reps, label):
    add(label, k, grid, B, 4 * padded(B), pad, 0, reps, 64, grid, group)


TREES = (("tree<1,1,0>", 0, "t1y1_pad0"), ("tree<1,1,0>", -1, "t1y1_pad1"), ("tree<0,1,0>", 0, "t0y1"),
         ("tree<1,0,0>", 0, "t1y0_pad0"), ("tree<1,0,0>", -1, "t1y0_pad1"), ("tree<0,0,0>", 0, "t0y0"))


def trees():
    for B in (64, 256, 1024):
        per_sm = min(32, 2048 // B)
        for gname, G in (("g1", 1), ("full", SMS * per_sm)):
            for k, pad, name in TREES:
                tree("tree", k, B, G, pad, 8, f"{name}_b{B}_{gname}_r8")
    for gname, G in (("g1", 1), ("full", SMS * 8)):
        for k, pad, name in (("tree<1,1,8>", 0, "t1y1c8_pad0"), ("tree<1,1,8>", -1, "t1y1c8_pad1"),
                             ("tree<0,1,8>", 0, "t0y1c8")):
            tree("tree", k, 256, G, pad, 8, f"{name}_b256_{gname}_r8")


# ---- mod: the `%` loop; many-wave overlap -------------------------------------------------
def mod():
    add("modloop0_g4", "modloop<0>", 4, 64, 0, 8, 2, 7, 64, 4 * 64, "mod")
    for G in (1024, 16384):
        for m in range(5):
            add(f"modloop{m}_g{G}", f"modloop<{m}>", G, 64, 0, 8, 2, 7, 64, G * 64, "mod")
    # The same 2^20 threads in blocks of 256 and 1024: whether the H200's time is the loop's or
    # the churn of 16,384 blocks of two warps.
    for m in (0, 3):
        for B in (256, 1024):
            G = (1 << 20) // B
            add(f"modloop{m}_b{B}_g{G}", f"modloop<{m}>", G, B, 0, 8, 2, 7, 64, G * B, "mod")
    # The tree alone and the global traffic alone, at the reductions' many-wave grid (B 256).
    G = (1 << 22) // 256
    for k, pad, name in TREES[:3]:
        tree("mod", k, 256, G, pad, 1, f"{name}_b256_n4M_r1")
    add("ldonly_b256_n4M", "ldonly", G, 256, 0, 0, 0, 0, G * 256, G * 256, "mod")
    add("ldonly_b256_wave", "ldonly", SMS * 8, 256, 0, 0, 0, 0, SMS * 8 * 256, SMS * 8 * 256, "mod")


# ---- src: Source pages (copies of rows above, own labels) ---------------------------------
def src():
    want = ["reduce1_b256_wave", "reduce1p_pad0_b256_wave", "reduce1p_pad1_b256_wave",
            "reduce2_b256_wave", "scan_rt0_n512_wave", "scan_rt1_n512_wave",
            "t1y1_pad0_b256_g1_r8", "t1y1_pad1_b256_g1_r8", "t0y1_b256_g1_r8",
            "lvl21c0y1d0_w8_a1_n8_k1_r64",
            "modloop0_g16384", "modloop1_g16384"]
    by = {r[0]: r for r in rows}
    for w in want:
        r = by[w]
        rows.append(("src_" + r[0],) + r[1:10] + ("src",))


# ---- clock: per-level clock64 (nvcc only) ----------------------------------------------------
def clock():
    for B in (256, 1024):
        for gname, G in (("g1", SMS), ("wave", SMS * (2048 // B))):
            for k, pad, name in (("treeclk<1>", 0, "clk1_pad0"), ("treeclk<1>", -1, "clk1_pad1"),
                                 ("treeclk<0>", 0, "clk0")):
                add(f"{name}_b{B}_{gname}", k, G, B, 4 * padded(B), pad, 0, 0, G * B, G * 32,
                    "clock")


def main():
    # Most decisive first (run.sh profiles in chunks in this order while its budget lasts).
    reductions((256,))
    scans((256,))
    reductions((128, 1024))
    scans((512, 1024))
    lvl1()
    trees()
    mod()
    lvl2()
    src()
    clock()
    labels = [r[0] for r in rows]
    assert len(labels) == len(set(labels)), "duplicate labels"
    out = sys.stdout
    out.write("label\tkernel\tgrid\tblock\tsmem\ta\tb\tc\txlen\toutlen\tgroup\n")
    for r in rows:
        out.write("\t".join(str(v) for v in r) + "\n")


if __name__ == "__main__":
    main()
