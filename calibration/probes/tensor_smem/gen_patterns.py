#!/usr/bin/env python3
"""Writes the pattern families of the tensor_smem probe (deterministic; fixed seed).

patterns.txt      `name kind o0 … o31` for ldsm.*/stsm.*/lds.128/sts.128 (lane byte offsets)
                  `name kind d0 … d31 s0 … s31 srcsize warm` for cp.async kinds
                  (ca.4 ca.8 ca.16 cg.16, their .z forms with a src-size operand, ca.16.wall)
tma_patterns.txt  `name cfg mode x0 y0 o0 … o31` (cfg: none 32B 64B 128B 128Bi64; mode:
                  '+'-joined init mbar load store bulk ldsm lds128 lds32; o: read-back offsets)
lists/*.txt       the launch lists run.sh hands to the probe, in priority order:
                  m_core (LDSM/STSM families), c_core (LDGSTS), tma (TMA, under ncu),
                  m_extra (pseudo-random exploration, LDS.128/STS.128 controls),
                  dump_m, dump_c, dump_tma (functional truth, no ncu), srcpage (Source page of
                  a few launches), risky_* (one process each: may fault)
Every pattern is exploration for the rule (no held-out validation set in this call)."""
import os
import random

from rules import cute_swizzle_bytes, tma_swizzle

L = range(32)
rng = random.Random(20261204)
HERE = os.path.dirname(os.path.abspath(__file__))

P = {}        # name -> line
ORDER = {}    # list name -> [names]


def add(lst, name, kind, offs, extra=None):
    assert name not in P, name
    assert len(offs) == 32
    f = [name, kind] + [str(o) for o in offs]
    if extra is not None:
        f += [str(x) for x in extra]
    P[name] = " ".join(f)
    ORDER.setdefault(lst, []).append(name)


def mat(fn, n=4):
    """Lane offsets of an access whose matrix m, row r is at fn(m, r); lanes past 8n continue
    the formula (as a kernel computing every lane's address would)."""
    return [fn(t // 8, t % 8) for t in L]


MKINDS = ["x1", "x2", "x4"]


def kname(op, x, trans):
    return f"{op}.{x}" + (".trans" if trans else "")


# ------------------------------------------------------------------ LDSM / STSM families
def matrix_families():
    core = "m_core"
    for op in ("ldsm", "stsm"):
        # F2: stacked matrices, row stride S (S=16: contiguous)
        strides = [16, 32, 48, 64, 80, 96, 112, 128, 144, 160, 192, 256, 272, 288, 384, 512, 528]
        for x in MKINDS:
            for S in strides:
                add(core, f"{op}_{x}_stride{S}", kname(op, x, False), mat(lambda m, r: (m * 8 + r) * S))
        for x in MKINDS:
            for S in ([16, 128, 144] if x != "x4" else [16, 32, 64, 128, 144, 256]):
                add(core, f"{op}_{x}t_stride{S}", kname(op, x, True), mat(lambda m, r: (m * 8 + r) * S))
        # F3: the 16x16 A-fragment order (m0 rows 0-7 | m1 rows 8-15 | m2, m3: +16 bytes)
        for S in (32, 64, 128, 256, 144, 80):
            for tr in (False, True):
                add(core, f"{op}_x4{'t' if tr else ''}_afrag{S}", kname(op, "x4", tr),
                    mat(lambda m, r: ((m % 2) * 8 + r) * S + (m // 2) * 16))
        # F4: complementary matrices (distinct banks within a pair: H1 and H4 differ)
        add(core, f"{op}_x2_inter32", kname(op, "x2", False), mat(lambda m, r: r * 32 + (m % 2) * 16 + (m // 2) * 256))
        add(core, f"{op}_x4_inter32", kname(op, "x4", False), mat(lambda m, r: r * 32 + (m % 2) * 16 + (m // 2) * 256))
        add(core, f"{op}_x4_inter64", kname(op, "x4", False), mat(lambda m, r: r * 64 + m * 16))
        add(core, f"{op}_x4_inter128", kname(op, "x4", False), mat(lambda m, r: r * 128 + m * 16))
        add(core, f"{op}_x4_half64", kname(op, "x4", False), mat(lambda m, r: (r % 4) * 16 + (r // 4) * 128 + m * 64))
        # F6: repeated rows (several lanes one row address)
        for x in MKINDS:
            add(core, f"{op}_{x}_pairs", kname(op, x, False), [(t // 2) * 16 for t in L])
        add(core, f"{op}_x4_quads", kname(op, "x4", False), [(t // 4) * 16 for t in L])
        add(core, f"{op}_x4_rowpermat", kname(op, "x4", False), [(t // 8) * 16 for t in L])
        add(core, f"{op}_x4_pairs128", kname(op, "x4", False), [(t // 2) * 128 for t in L])
        add(core, f"{op}_x4_pairs256", kname(op, "x4", False), [(t // 2) * 256 for t in L])
        add(core, f"{op}_x4_xor2", kname(op, "x4", False), [(t & ~2) * 16 for t in L])
        add(core, f"{op}_x4_xor2s128", kname(op, "x4", False), [(t & ~2) * 128 for t in L])
        add(core, f"{op}_x4_m1eqm0", kname(op, "x4", False), [((t % 8) + (t // 16) * 8) * 16 for t in L])
        add(core, f"{op}_x2_m1eqm0", kname(op, "x2", False), [(t % 8) * 16 for t in L])
        add(core, f"{op}_x4_m1eqm0s128", kname(op, "x4", False), [((t % 8) + (t // 16) * 8) * 128 for t in L])
        add(core, f"{op}_x4_half_rows", kname(op, "x4", False), [((t % 4) + (t // 8) * 4) * 16 for t in L])
        add(core, f"{op}_x4t_pairs", kname(op, "x4", True), [(t // 2) * 16 for t in L])
        add(core, f"{op}_x4t_pairs128", kname(op, "x4", True), [(t // 2) * 128 for t in L])
        # F7: broadcast (one address for the whole warp)
        for x in MKINDS:
            add(core, f"{op}_{x}_bcast", kname(op, x, False), [1024] * 32)
        add(core, f"{op}_x4t_bcast", kname(op, "x4", True), [1024] * 32)
        # F8: unused lanes (x1: 8-31, x2: 16-31) given other addresses: cost nothing if ignored
        add(core, f"{op}_x1_unused_bank0", kname(op, "x1", False), [t * 16 if t < 8 else 4096 + t * 128 for t in L])
        add(core, f"{op}_x1_used128_unused_contig", kname(op, "x1", False), [t * 128 if t < 8 else 8192 + t * 16 for t in L])
        add(core, f"{op}_x1_unused_far", kname(op, "x1", False), [t * 16 if t < 8 else 60000 + (t % 8) * 16 - (t // 8) * 1024 for t in L])
        add(core, f"{op}_x1_unused_same", kname(op, "x1", False), [t * 16 if t < 8 else 2048 for t in L])
        add(core, f"{op}_x2_unused_bank0", kname(op, "x2", False), [t * 16 if t < 16 else 4096 + t * 128 for t in L])
        add(core, f"{op}_x2_unused_pairs", kname(op, "x2", False), [t * 16 if t < 16 else 4096 + ((t - 16) // 2) * 128 for t in L])
        add(core, f"{op}_x1t_unused_bank0", kname(op, "x1", True), [t * 16 if t < 8 else 4096 + t * 128 for t in L])
        add(core, f"{op}_x2t_unused_bank0", kname(op, "x2", True), [t * 16 if t < 16 else 4096 + t * 128 for t in L])
        # F9: lane order
        add(core, f"{op}_x4_rev_in_mat", kname(op, "x4", False), mat(lambda m, r: (m * 8 + 7 - r) * 16))
        add(core, f"{op}_x4_perm5", kname(op, "x4", False), [((t * 5) % 32) * 16 for t in L])
        add(core, f"{op}_x4_mats_rev", kname(op, "x4", False), mat(lambda m, r: ((3 - m) * 8 + r) * 16))
        add(core, f"{op}_x4_perm5s128", kname(op, "x4", False), [((t * 5) % 32) * 128 for t in L])
        # F11: start offsets
        add(core, f"{op}_x4_contig_at16", kname(op, "x4", False), [16 + t * 16 for t in L])
        add(core, f"{op}_x4_stride128_at1040", kname(op, "x4", False), [1040 + t * 128 for t in L])
        add(core, f"{op}_x4_stride144_at48", kname(op, "x4", False), [48 + t * 144 for t in L])
        # F5: XOR swizzles (CuTe Swizzle<B,M,3> on b16 element indices) of tiles with 64- or
        # 128-byte rows: stacked column chunk 0 (x1 x2 x4), A-fragment order (x4, also .trans)
        for rb in (64, 128):
            for b in (1, 2, 3):
                for mm in (3, 4):
                    sw = lambda o: cute_swizzle_bytes(o, b, mm, 3)
                    tag = f"sw{b}{mm}3_r{rb}"
                    xs = MKINDS if op == "ldsm" else ["x4"]
                    for x in xs:
                        add(core, f"{op}_{x}_{tag}_col0", kname(op, x, False), mat(lambda m, r: sw((m * 8 + r) * rb)))
                    add(core, f"{op}_x4_{tag}_afrag", kname(op, "x4", False),
                        mat(lambda m, r: sw(((m % 2) * 8 + r) * rb + (m // 2) * 16)))
                    if op == "ldsm":
                        add(core, f"{op}_x4t_{tag}_afrag", kname(op, "x4", True),
                            mat(lambda m, r: sw(((m % 2) * 8 + r) * rb + (m // 2) * 16)))
                    if rb == 128 and op == "ldsm":
                        # k-step 1 of the A fragment (chunks 2, 3)
                        add(core, f"{op}_x4_{tag}_afrag_k1", kname(op, "x4", False),
                            mat(lambda m, r: sw(((m % 2) * 8 + r) * rb + (2 + m // 2) * 16)))

    # extra: pseudo-random exploration and LDS.128 / STS.128 with the same lane addresses
    ex = "m_extra"
    for op in ("ldsm", "stsm"):
        for x in MKINDS:
            for i in range(6 if op == "ldsm" else 4):
                add(ex, f"{op}_{x}_rnd{i}", kname(op, x, False), [rng.randrange(256) * 16 for _ in L])
            for i in range(2):
                add(ex, f"{op}_{x}_rndrow{i}", kname(op, x, False), [rng.randrange(8) * 128 + rng.randrange(8) * 16 for _ in L])
        for i in range(2):
            add(ex, f"{op}_x4t_rnd{i}", kname(op, "x4", True), [rng.randrange(256) * 16 for _ in L])
    controls = ["x4_stride16", "x4_stride32", "x4_stride64", "x4_stride128", "x4_stride144", "x4_stride256",
                "x4_afrag128", "x4_inter32", "x4_inter64", "x4_half64", "x4_pairs", "x4_quads", "x4_rowpermat",
                "x4_pairs128", "x4_xor2", "x4_m1eqm0", "x4_bcast", "x4_rnd0", "x4_rnd1", "x4_perm5s128",
                "x4_sw333_r128_afrag", "x4_sw233_r64_afrag"]
    for c in controls:
        for op, ctl in (("ldsm", "lds.128"), ("stsm", "sts.128")):
            src = f"{op}_{c}"
            if src not in P:
                continue
            offs = [int(v) for v in P[src].split()[2:34]]
            add(ex, f"{ctl.replace('.', '')}_{c}", ctl, offs)
    # x1 / x2 as LDS.128 with the unused lanes inactive
    for c, n in (("x1_stride128", 8), ("x2_stride128", 16), ("x1_unused_bank0", 8)):
        offs = [int(v) for v in P[f"ldsm_{c}"].split()[2:34]]
        add(ex, f"lds128_{c}_masked", "lds.128", [o if t < n else -1 for t, o in enumerate(offs)])


# ------------------------------------------------------------------ LDGSTS families
def cp_families():
    core = "c_core"

    def dst_families(w):
        f = {}
        f["contig"] = [t * w for t in L]
        f["stride2"] = [t * 2 * w for t in L]
        f["stride4"] = [t * 4 * w for t in L]
        f["stride128B"] = [t * 128 for t in L]
        f["stride256B"] = [t * 256 for t in L]
        f["mod4x128"] = [(t % 4) * 128 + (t // 4) * w for t in L]
        f["same"] = [256] * 32
        f["pairs"] = [(t // 2) * w for t in L]
        f["rev"] = [(31 - t) * w for t in L]
        f["perm7"] = [((t * 7) % 32) * w for t in L]
        f["half"] = [t * w if t < 16 else -1 for t in L]
        f["even"] = [t * w if t % 2 == 0 else -1 for t in L]
        f["one"] = [64 if t == 5 else -1 for t in L]
        if w == 16:
            # a 128-byte-row tile filled 16 bytes a lane: row t%8 (column-major), plain and
            # XOR-swizzled (chunk ^ row), and the row-major swizzled fill
            f["colmajor"] = [(t % 8) * 128 + (t // 8) * 16 for t in L]
            f["colmajor_swz"] = [(t % 8) * 128 + (((t // 8) ^ (t % 8)) & 7) * 16 for t in L]
            f["rowmajor_swz"] = [(t // 8) * 128 + (((t % 8) ^ (t // 8)) & 7) * 16 for t in L]
            f["qw_mod4"] = [((t % 4) * 8 + t // 4) * 16 for t in L]
        return f

    def src_of(name, w, d):
        if name == "coal":
            return [t * w if d[t] >= 0 else 0 for t in L]
        if name == "scatter":   # 32 distinct 128-byte lines
            return [t * 256 for t in L]
        if name == "rev":
            return [(31 - t) * w for t in L]
        if name == "same":
            return [512] * 32
        raise ValueError(name)

    kinds = ["ca.4", "ca.8", "ca.16", "cg.16"]
    for k in kinds:
        w = int(k.split(".")[1])
        for dn, d in dst_families(w).items():
            s = src_of("coal", w, d)
            add(core, f"cp_{k.replace('.', '')}_{dn}_coal", k, d, s + [w, 0])
        for dn in ("contig", "stride128B", "mod4x128"):
            d = dst_families(w)[dn]
            for sn in ("scatter", "rev", "same"):
                s = src_of(sn, w, d)
                add(core, f"cp_{k.replace('.', '')}_{dn}_{sn}", k, d, s + [w, 0])
        # L1 hit (.ca only: .cg bypasses L1)
        if k.startswith("ca"):
            for dn in ("contig", "stride128B"):
                d = dst_families(w)[dn]
                add(core, f"cp_{k.replace('.', '')}_{dn}_coal_warm", k, d, src_of("coal", w, d) + [w, 1])
        # zero-fill: src-size 0, half, full
        zk = k + ".z"
        for dn in ("contig", "stride128B"):
            d = dst_families(w)[dn]
            for ss in sorted({0, w // 2, w}):
                add(core, f"cp_{zk.replace('.', '')}_{dn}_src{ss}", zk, d, src_of("coal", w, d) + [ss, 0])
    d = [t * 16 for t in L]
    add(core, "cp_ca16wall_contig_coal", "ca.16.wall", d, [t * 16 for t in L] + [16, 0])
    d = [t * 128 for t in L]
    add(core, "cp_ca16wall_stride128B_coal", "ca.16.wall", d, [t * 16 for t in L] + [16, 0])


# ------------------------------------------------------------------ TMA launches
TMA_RB = {"none": 128, "32B": 32, "64B": 64, "128B": 128, "128Bi64": 64}


def tma_families():
    lst = "tma"
    z = [0] * 32
    T = []

    def tadd(name, cfg, mode, offs=z, x0=0, y0=0, lists=(lst,)):
        line = " ".join([name, cfg, mode, str(x0), str(y0)] + [str(o) for o in offs])
        assert name not in P
        P[name] = line
        T.append(name)
        for l_ in lists:
            ORDER.setdefault(l_, []).append(name)

    tadd("tma_ctl_nothing", "none", "none")
    tadd("tma_ctl_init", "none", "init")
    tadd("tma_ctl_mbar", "none", "mbar")
    for cfg in ("none", "32B", "64B", "128B"):
        rb = TMA_RB[cfg]
        sw = lambda o: tma_swizzle(o, cfg)
        chunks = rb // 16
        # ldmatrix x4, A-fragment order: rows (m%2)*8+r, chunk m//2 (of a 32-byte row: chunks 0, 1)
        afrag = [((t // 8) % 2 * 8 + t % 8) * rb + ((t // 8) // 2 % chunks) * 16 for t in L]
        row128 = [(t // chunks) * rb + (t % chunks) * 16 for t in L]
        col32 = [t * rb for t in L]
        tadd(f"tma_{cfg}_load", cfg, "load")
        tadd(f"tma_{cfg}_load_ldsm_sw", cfg, "load+ldsm", [sw(o) for o in afrag])
        tadd(f"tma_{cfg}_load_lds128_sw", cfg, "load+lds128", [sw(o) for o in row128])
        tadd(f"tma_{cfg}_load_lds32col_sw", cfg, "load+lds32", [sw(o) for o in col32])
        if cfg != "none":
            tadd(f"tma_{cfg}_load_ldsm_naive", cfg, "load+ldsm", afrag)
            tadd(f"tma_{cfg}_load_lds32col_naive", cfg, "load+lds32", col32)
        tadd(f"tma_{cfg}_store", cfg, "store")
        tadd(f"tma_{cfg}_load_store", cfg, "load+store")
    tadd("tma_128Bi64_load", "128Bi64", "load")
    tadd("bulk_8k", "none", "bulk")
    tadd("bulk_8k_lds128", "none", "bulk+lds128", [t * 16 for t in L])
    # functional dumps (no ncu): the tile as TMA wrote it, box at (0,0) and at (64,5)
    for cfg in ("none", "32B", "64B", "128B", "128Bi64"):
        tadd(f"tmadump_{cfg}_00", cfg, "load+store", lists=("dump_tma",))
        tadd(f"tmadump_{cfg}_64_5", cfg, "load+store", x0=64, y0=5, lists=("dump_tma",))
    tadd("tmadump_bulk", "none", "bulk", lists=("dump_tma",))
    return T


# ------------------------------------------------------------------ functional dumps, srcpage, risky
def misc_lists():
    dm = ORDER.setdefault("dump_m", [])
    for op in ("ldsm", "stsm"):
        for x in MKINDS:
            for tr in ("", "t"):
                dm.append(f"{op}_{x}{tr}_stride16" if f"{op}_{x}{tr}_stride16" in P else None)
                dm.append(f"{op}_{x}{tr}_stride144" if f"{op}_{x}{tr}_stride144" in P else None)
        dm += [f"{op}_x4_afrag128", f"{op}_x4t_afrag128", f"{op}_x4_sw333_r128_afrag", f"{op}_x4_perm5",
               f"{op}_x4_pairs", f"{op}_x4_m1eqm0", f"{op}_x1_unused_bank0", f"{op}_x4_bcast", f"{op}_x4t_pairs"]
    ORDER["dump_m"] = [n for n in dm if n]
    dc = ORDER.setdefault("dump_c", [])
    for n in ("cp_ca4_contig_coal", "cp_ca8_perm7_coal", "cp_ca16_contig_coal", "cp_cg16_colmajor_swz_coal",
              "cp_ca16_same_coal", "cp_ca4_same_coal", "cp_ca16_contig_scatter", "cp_ca4z_contig_src0",
              "cp_ca4z_contig_src2", "cp_ca8z_contig_src4", "cp_ca16z_contig_src8", "cp_cg16z_contig_src0",
              "cp_cg16z_contig_src8", "cp_ca16_pairs_coal"):
        assert n in P, n
        dc.append(n)
    ORDER["srcpage"] = ["ldsm_x1_stride16", "ldsm_x4_stride128", "ldsm_x4_pairs", "ldsm_x1_unused_bank0",
                        "ldsm_x4t_stride256", "stsm_x4_stride64", "stsm_x2_pairs", "stsm_x4_bcast",
                        "cp_ca4_contig_coal", "cp_ca16_stride128B_coal", "cp_cg16_contig_scatter",
                        "cp_ca16z_contig_src0"]
    for n in ORDER["srcpage"]:
        assert n in P, n
    # risky: each its own process (a fault kills only that one); dumped first, ncu only if no fault
    r = "risky"
    add(r, "risky_ldsm_x1_unused_oob", "ldsm.x1", [t * 16 if t < 8 else 0x100000 + t * 16 for t in L])
    add(r, "risky_ldsm_x2_unused_oob", "ldsm.x2", [t * 16 if t < 16 else 0x100000 + t * 16 for t in L])
    add(r, "risky_stsm_x1_unused_oob", "stsm.x1", [t * 16 if t < 8 else 0x100000 + t * 16 for t in L])
    add(r, "risky_ldsm_x1_unused_mis4", "ldsm.x1", [t * 16 if t < 8 else t * 16 + 4 for t in L])
    add(r, "risky_ldsm_x4_rows_mis8", "ldsm.x4", [t * 16 + 8 for t in L])
    add(r, "risky_ldsm_x4_rows_mis4", "ldsm.x4", [t * 16 + 4 for t in L])
    add(r, "risky_stsm_x4_rows_mis8", "stsm.x4", [t * 16 + 8 for t in L])
    add(r, "risky_ldsm_x4_stride136", "ldsm.x4", [t * 136 for t in L])


def tier(name):
    """Priority of an m_core / c_core launch (run.sh profiles the lists in this order, so the most
    decisive patterns come first if time runs short)."""
    import re
    if name.startswith("cp_"):
        if name.endswith("_coal") and not name.endswith("_warm"):
            return 0
        return 1 if re.search(r"_(scatter|rev|same)$|_src\d+$", name) else 2
    if "_sw" in name:
        return 2
    if re.search(r"_x\dt_", name) or "afrag" in name:
        return 1
    if re.search(r"_stride(16|32|64|128|144|256)$", name) or re.search(
            r"_(pairs|quads|rowpermat|bcast|unused|inter|m1eqm0|xor2|half)", name):
        return 0
    if "_stride" in name:
        return 1
    return 3


def check():
    """Every offset in range and aligned (risky_* excepted: they test exactly that)."""
    for n, line in P.items():
        f = line.split()
        if n.startswith("risky_"):
            continue
        if f[1] in ("none", "32B", "64B", "128B", "128Bi64"):
            offs = [int(v) for v in f[5:37]]
            assert all(0 <= o < 8192 and o % 16 == 0 or "lds32" in f[2] and o % 4 == 0 for o in offs), n
            continue
        kind = f[1]
        offs = [int(v) for v in f[2:34]]
        if kind.startswith(("ca.", "cg.")):
            w = int(kind.split(".")[1])
            src = [int(v) for v in f[34:66]]
            for d, s_ in zip(offs, src):
                if d >= 0:
                    assert d % w == 0 and d + w <= 65536 and s_ % w == 0 and 0 <= s_ < (1 << 20) - 16, n
        else:
            assert all(o % 16 == 0 and 0 <= o <= 65536 - 16 for o in offs if o >= 0), n
            assert kind.startswith(("lds", "sts")) or all(o >= 0 for o in offs), n


def main():
    matrix_families()
    cp_families()
    tma = set(tma_families())
    misc_lists()
    check()
    for lst in ("m_core", "c_core"):
        ORDER[lst].sort(key=tier)
    with open(os.path.join(HERE, "patterns.txt"), "w") as f:
        for n, line in P.items():
            if n not in tma:
                f.write(line + "\n")
    with open(os.path.join(HERE, "tma_patterns.txt"), "w") as f:
        for n in P:
            if n in tma:
                f.write(P[n] + "\n")
    os.makedirs(os.path.join(HERE, "lists"), exist_ok=True)
    for lst, names in ORDER.items():
        with open(os.path.join(HERE, "lists", lst + ".txt"), "w") as f:
            f.write("\n".join(names) + "\n")
    for lst, names in ORDER.items():
        print(f"{lst:8s} {len(names):4d}")


if __name__ == "__main__":
    main()
