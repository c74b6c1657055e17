#!/usr/bin/env python3
"""Functional expectations of the draw (what the probe's dumps must show) and their canonical
form, shared by predict.py (which commits their hashes before the call) and compare.py (which
hashes what the device printed). Standard library only; the rules are model.py's.

Canonical forms (one string each, hashed with sha1, 16 hex digits kept):
  regs   LDSM / TMA read-back: every lane's registers r0..r(n-1) as %08x, lane order
  words  STSM / LDGSTS: every word the probe printed (not the sentinel 0xEEEEEEEE) as off:%08x
  tile   TMA: every word of the dumped window (from the 1024-aligned base) as off:%08x"""
import hashlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
import model  # noqa: E402

SENT = 0xEE


def h(s):
    return hashlib.sha1(s.encode()).hexdigest()[:16]


def gbyte(b):
    """The cp.async source buffer: 32-bit word i holds i | 0x00800000."""
    w = b // 4
    return ((w | 0x00800000) >> (8 * (b % 4))) & 0xFF


def regs_str(regs):
    return " ".join("%08x" % r for lane in regs for r in lane)


def words_str(bytemap):
    """{byte: value} -> the words the probe prints (bytes not written stay 0xEE)."""
    words = {}
    for b, v in bytemap.items():
        words.setdefault(b - b % 4, [SENT] * 4)[b % 4] = v
    out = []
    for off in sorted(words):
        w = words[off]
        val = w[0] | (w[1] << 8) | (w[2] << 16) | (w[3] << 24)
        if val != 0xEEEEEEEE:
            out.append("%d:%08x" % (off, val))
    return " ".join(out)


# ------------------------------------------------------------------ LDSM / STSM / LDGSTS
def mat_expect(kind, offs):
    if kind.startswith("ldsm"):
        return regs_str(model.ldsm_regs(offs, kind, lambda b: (b // 2) & 0xFFFF))
    w16 = model.stsm_writes(offs, kind, lambda t, j, hh: t * 8 + 2 * j + hh)
    bm = {}
    for off, v in w16.items():
        bm[off], bm[off + 1] = v & 0xFF, v >> 8
    return words_str(bm)


def cp_expect(kind, d, s, z, winner="last"):
    """The shared bytes after the copy; winner: which lane's copy stays where lanes share a
    destination ('last' = the highest lane: model.py; 'first' = the lowest, the alternative)."""
    if winner == "last":
        bm = model.ldgsts_writes(kind, d, s, z, gbyte)
    else:
        rd = [-1] * 32
        seen = set()
        for l in range(32):
            if d[l] >= 0 and d[l] not in seen:
                seen.add(d[l])
                rd[l] = d[l]
        bm = model.ldgsts_writes(kind, rd, s, z, gbyte)
    return words_str(bm)


# ------------------------------------------------------------------ TMA
def tma_geom(p):
    es = 4 if p["dtype"] == "u32" else 2
    inner = p["B"][0] * es
    rows = p["B"][1] * p["B"][2]
    return es, inner, rows


def tma_value(p, k0, k1, k2):
    """The element the box's (k0, k1, k2) holds after the load: the tensor's, or 0 out of bounds."""
    es = 4 if p["dtype"] == "u32" else 2
    g = [p["c"][0] + k0, p["c"][1] + k1, p["c"][2] + k2]
    if any(g[i] < 0 or g[i] >= p["D"][i] for i in range(3)):
        return 0
    off = g[0] * es + g[1] * p["P"][0] + g[2] * p["P"][1]
    j = off // es
    return (j & 0xFFFF) if es == 2 else (j | 0x40000000)


def tma_bytes(p, layout="abs"):
    """{byte offset from the 1024-aligned base: value} of the loaded tile; layout 'abs': the
    swizzle follows the shared address bits (model.tma_offset with base = tile_off), 'rel': it
    restarts at the tile's start."""
    es, inner, rows = tma_geom(p)
    toff = p["tile_off"]
    base = toff if layout == "abs" else 0
    out = {}
    for k2 in range(p["B"][2]):
        for k1 in range(p["B"][1]):
            row = k1 + k2 * p["B"][1]
            for k0 in range(p["B"][0]):
                v = tma_value(p, k0, k1, k2)
                o = toff + model.tma_offset(row, k0 * es, inner, p["swz"], base)
                for i in range(es):
                    out[o + i] = (v >> (8 * i)) & 0xFF
    return out


def dump_bytes(p):
    es, inner, rows = tma_geom(p)
    n = p["tile_off"] + model.tma_tile_bytes(rows, inner, p["swz"])
    return min(32768, -(-n // 128) * 128)


def tma_tile_str(p, layout="abs"):
    bm = tma_bytes(p, layout)
    out = []
    for off in range(0, dump_bytes(p), 4):
        w = [bm.get(off + i, SENT) for i in range(4)]
        out.append("%d:%08x" % (off, w[0] | (w[1] << 8) | (w[2] << 16) | (w[3] << 24)))
    return " ".join(out)


def tma_regs_str(p, layout="abs"):
    """The read-back registers: LDSM x4 (fragment layout of model.ldsm_regs) or LDS.128 (4 words)
    at tile + o[lane]."""
    bm = tma_bytes(p, layout)
    toff = p["tile_off"]

    def byte(b):
        return bm.get(b, SENT)

    if "ldsm" in p["mode"]:
        regs = model.ldsm_regs(p["o"], "ldsm.x4", lambda b: byte(toff + b) | (byte(toff + b + 1) << 8))
    else:
        regs = []
        for t in range(32):
            a = toff + p["o"][t]
            regs.append([byte(a + 4 * j) | (byte(a + 4 * j + 1) << 8) | (byte(a + 4 * j + 2) << 16)
                         | (byte(a + 4 * j + 3) << 24) for j in range(4)])
    return regs_str(regs)


# ------------------------------------------------------------------ pattern files
def load_patterns(folder=HERE):
    pats = {}
    for line in open(os.path.join(folder, "patterns.txt")):
        f = line.split()
        p = {"kind": f[1], "o": [int(v) for v in f[2:34]]}
        if f[1].startswith(("ca.", "cg.")):
            p["s"] = [int(v) for v in f[34:66]]
            p["z"] = [int(v) for v in f[66:98]]
            p["warm"] = int(f[98])
        pats[f[0]] = p
    for line in open(os.path.join(folder, "tma_patterns.txt")):
        f = line.split()
        pats[f[0]] = {"kind": "tma", "dtype": f[1], "rank": int(f[2]),
                      "D": [int(f[3]), int(f[4]), int(f[5])], "P": [int(f[6]), int(f[7])],
                      "B": [int(f[8]), int(f[9]), int(f[10])], "swz": f[11], "tile_off": int(f[12]),
                      "c": [int(f[13]), int(f[14]), int(f[15])], "mode": f[16],
                      "o": [int(v) for v in f[17:49]]}
    for line in open(os.path.join(folder, "mbar_patterns.txt")):
        f = line.split()
        pats[f[0]] = {"kind": "mbar", "k": int(f[2])}
    return pats
