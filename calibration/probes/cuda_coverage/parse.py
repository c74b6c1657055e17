#!/usr/bin/env python3
"""Reads what run.sh brought back (the folder cuda_coverage/ of cuda_coverage.tar.gz).

    parse.py summary RAW       the short summary run.sh prints (under 2,000 characters)
    parse.py report RAW        everything, as text: constant-cache tables, each shuffle case
                               classified, every bit/warp-op value against the PTX reference
                               below, merge streams against ptxas 12.6, rule.py and the model
    parse.py metrics LISTING   (run.sh) the Nsight Compute metrics to collect, comma-joined,
                               from `ncu --query-metrics` output
    parse.py selftest          the references below on hand-computed cases

Standard library only (the device machine has no other packages).
"""
import gzip
import os
import re
import statistics
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF


def opn(path):
    if os.path.exists(path):
        return open(path, errors="replace")
    if os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", errors="replace")
    return None


def lines(path):
    f = opn(path)
    return [] if f is None else f.read().splitlines()


# ---------------------------------------------------------------- PTX references (the spec)

def sx(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def bfe(a, pos, ln, bits, signed):
    msb = bits - 1
    pos &= 0xFF
    ln &= 0xFF
    sbit = 0 if (not signed or ln == 0) else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if (i < ln and pos + i <= msb) else sbit
        d |= bit << i
    return d


def bfi(a, b, pos, ln, bits):
    msb = bits - 1
    pos &= 0xFF
    ln &= 0xFF
    f = b & ((1 << bits) - 1)
    i = 0
    while i < ln and pos + i <= msb:
        f = (f & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
        i += 1
    return f


def prmt(a, b, c, mode):
    src = [(a >> (8 * i)) & 0xFF for i in range(4)] + [(b >> (8 * i)) & 0xFF for i in range(4)]
    if mode is None:
        d = 0
        for i in range(4):
            sel = (c >> (4 * i)) & 0xF
            byte = src[sel & 7]
            if sel & 8:
                byte = 0xFF if byte & 0x80 else 0
            d |= byte << (8 * i)
        return d
    s = c & 3
    tab = {
        "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
        "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
        "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
        "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
        "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
    }[mode][s]
    return sum(src[tab[i]] << (8 * i) for i in range(4))


def f32_class(x):
    e, m = (x >> 23) & 0xFF, x & 0x7FFFFF
    if e == 0xFF:
        return "nan" if m else "inf"
    if e == 0:
        return "zero" if m == 0 else "sub"
    return "normal"


def f64_class(x):
    e, m = (x >> 52) & 0x7FF, x & ((1 << 52) - 1)
    if e == 0x7FF:
        return "nan" if m else "inf"
    if e == 0:
        return "zero" if m == 0 else "sub"
    return "normal"


def testp(cls, kind):
    return int({"finite": cls in ("normal", "sub", "zero"), "infinite": cls == "inf",
                "number": cls != "nan", "notanumber": cls == "nan", "normal": cls == "normal",
                "subnormal": cls == "sub"}[kind])


def f32v(x, ftz=False):
    import struct
    if ftz and f32_class(x) == "sub":
        x &= 0x80000000
    return struct.unpack("<f", struct.pack("<I", x & M32))[0]


def bfind(a, bits, signed, shiftamt):
    v = a & ((1 << bits) - 1)
    if signed and v >> (bits - 1):
        v = ~v & ((1 << bits) - 1)
    if v == 0:
        return M32
    p = v.bit_length() - 1
    return (bits - 1 - p) if shiftamt else p


def sat32(v):
    return max(-(1 << 31), min((1 << 31) - 1, v))


def ref_bitop(name, a, b, c, d):
    """The value PTX specifies for op `name` of gen_warp.BITOPS (u64 as stored)."""
    a32, b32, c32, d32 = a & M32, b & M32, c & M32, d & M32
    op = name.split("(")[0]
    if op == "bfi.b32":
        return bfi(a32, b32, c32, d32, 32)
    if op == "bfi.b64":
        return bfi(a, b, c32, d32, 64)
    if op.startswith("bfe."):
        t = op[4:]
        bits = 32 if t.endswith("32") else 64
        r = bfe(a if bits == 64 else a32, c32, d32, bits, t[0] == "s")
        return r
    if op.startswith("prmt.b32"):
        mode = op[9:] or None
        return prmt(a32, b32, c32, mode)
    if op in ("mad.hi.u32", "mad.hi.s32", "mad.hi.sat.s32"):
        if op == "mad.hi.u32":
            return (((a32 * b32) >> 32) + c32) & M32
        hi = (sx(a32, 32) * sx(b32, 32)) >> 32
        r = hi + sx(c32, 32)
        return (sat32(r) if "sat" in op else r) & M32
    if op == "mad.hi.u64":
        return (((a * b) >> 64) + c) & M64
    if op == "mad.hi.s64":
        return (((sx(a, 64) * sx(b, 64)) >> 64) + sx(c, 64)) & M64
    if op == "mul.hi.u64":
        return (a * b) >> 64
    if op == "mul.hi.s64":
        return ((sx(a, 64) * sx(b, 64)) >> 64) & M64
    if op == "mad.lo.u64":
        return (a * b + c) & M64
    if op == "mad.wide.s32":
        return (sx(a32, 32) * sx(b32, 32) + c) & M64
    if op == "clz.b64":
        return 64 - a.bit_length()
    if op == "brev.b64":
        return int(format(a, "064b")[::-1], 2)
    if op == "popc.b64":
        return bin(a).count("1")
    if op == "bfind.u64":
        return bfind(a, 64, False, False)
    if op == "bfind.s64":
        return bfind(a, 64, True, False)
    if op == "bfind.shiftamt.u64":
        return bfind(a, 64, False, True)
    if op.startswith("testp."):
        _, kind, t = op.split(".")
        cls = f32_class(a32) if t == "f32" else f64_class(a)
        return testp(cls, kind)
    if op.startswith("setp."):
        parts = op.split(".")
        cmp, ftz = parts[1], "ftz" in parts
        comb = next((x for x in parts if x in ("and", "or", "xor")), None)
        t = parts[-1]
        if t == "f32":
            x, y = f32v(a32, ftz), f32v(b32, ftz)
            nan = x != x or y != y
            r = {"lt": (not nan) and x < y, "eq": (not nan) and x == y, "ltu": nan or x < y}[cmp]
        else:
            x, y = (a32, b32) if t == "u32" else (sx(a32, 32), sx(b32, 32))
            r = {"lt": x < y, "ge": x >= y}[cmp]
        pc = c32 & 1
        if "!(c&1)" in name:
            pc ^= 1
        if name.endswith("|q"):
            r = not r
        if comb == "and":
            r = r and pc
        elif comb == "or":
            r = r or pc
        elif comb == "xor":
            r = bool(r) != bool(pc)
        return int(bool(r))
    if op == "min.s64":
        return min(sx(a, 64), sx(b, 64)) & M64
    if op.startswith("shf."):
        _, lr, mode, _ = op.split(".")
        n = (c32 & 31) if mode == "wrap" else min(c32, 32)
        x = (b32 << 32) | a32
        return ((x << n) >> 32) & M32 if lr == "l" else (x >> n) & M32
    if op == "cnot.b32":
        return int(a32 == 0)
    if op.startswith("szext."):
        _, mode, t = op.split(".")
        n = (c32 & 31) if mode == "wrap" else min(c32, 32)
        if n == 0:
            return 0
        v = a32 & ((1 << n) - 1)
        if t == "s32" and (v >> (n - 1)) & 1:
            v |= M32 & ~((1 << n) - 1)
        return v
    if op.startswith("bmsk."):
        mode = op.split(".")[1]
        pos, ln = (c32 & 31, d32 & 31) if mode == "wrap" else (min(c32, 32), min(d32, 32))
        return ((((1 << ln) - 1) << pos)) & M32
    if op.startswith("dp4a."):
        ta, tb = op.split(".")[1:3]
        s = sx(c32, 32) if (ta == "s32" or tb == "s32") else c32
        for i in range(4):
            x, y = (a32 >> (8 * i)) & 0xFF, (b32 >> (8 * i)) & 0xFF
            s += (sx(x, 8) if ta == "s32" else x) * (sx(y, 8) if tb == "s32" else y)
        return s & M32
    if op.startswith("dp2a."):
        hl, ta, tb = op.split(".")[1:4]
        s = sx(c32, 32) if (ta == "s32" or tb == "s32") else c32
        base = 2 if hl == "hi" else 0
        for i in range(2):
            x, y = (a32 >> (16 * i)) & 0xFFFF, (b32 >> (8 * (base + i))) & 0xFF
            s += (sx(x, 16) if ta == "s32" else x) * (sx(y, 8) if tb == "s32" else y)
        return s & M32
    return None


def shfl_source(mode, lane, b, c):
    """PTX shfl.sync: (source lane j, in range)."""
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    max_l = (lane & seg) | (cval & ~seg & 31)
    min_l = lane & seg
    if mode == "up":
        j = lane - bval
        return j, j >= max_l
    if mode == "down":
        j = lane + bval
        return j, j <= max_l
    if mode == "bfly":
        j = lane ^ bval
        return j, j <= max_l
    j = min_l | (bval & ~seg & 31)
    return j, j <= max_l


# ---------------------------------------------------------------- parsers

def parse_shfl(raw):
    """Per shuffle row: the classification of each executing lane's result."""
    out = []
    for path in sorted(os.listdir(raw)) if os.path.isdir(raw) else []:
        if not path.startswith("shfl_") or not path.endswith(".tsv"):
            continue
        for ln in lines(os.path.join(raw, path)):
            f = ln.split("\t")
            if len(f) < 10 or f[0] != "S":
                continue
            scen, mode, mask, b, c, bmode = f[1], f[2], int(f[3], 16), int(f[4]), int(f[5], 16), int(f[6])
            d = [int(x, 16) for x in f[7].split()]
            p = [int(x) for x in f[8]]
            v = [int(x, 16) for x in f[9].split()]
            out.append((scen, mode, mask, b, c, bmode, d, p, v))
    return out


def classify_shfl(rows):
    """Counts per (scenario, mode, where the source was, what came back)."""
    cnt = Counter()
    examples = {}
    for scen, mode, mask, b, c, bmode, d, p, v in rows:
        k_id = (v[0] >> 8) & 0xFFFF if v else 0
        execd = [True] * 32 if scen in ("F", "A") else [bool(mask >> l & 1) for l in range(32)]
        group = [(mask >> l & 1) for l in range(32)]
        for l in range(32):
            if not execd[l]:
                continue
            bl = b + l if bmode else b
            j, ok = shfl_source(mode, l, bl, c)
            vA = lambda x: 0xA0000000 | (k_id << 8) | x
            vB = lambda x: 0xB0000000 | (k_id << 8) | x
            got = d[l]
            if not ok:
                where = "range"
            elif scen == "F":
                where = "member"
            elif scen == "A":
                where = "member" if group[j & 31] == group[l] else "other_group"
            else:
                where = "member" if group[j & 31] else ("exited" if scen == "E" else "outside")
            jj = j & 31
            if got == vA(jj) and jj != l:
                what = "source"
            elif got == vA(l):
                what = "own"
            elif got == vB(jj):
                what = "source_B"
            elif got == 0:
                what = "zero"
            else:
                what = "other"
            pexp = int(ok)
            pk = "p_na" if p[l] == 9 else ("p_ok" if p[l] == pexp else f"p={p[l]}")
            cnt[(scen, mode, where, what, pk)] += 1
            key = (scen, mode, where, what)
            if key not in examples:
                examples[key] = f"mask {mask:08x} b {b}{'+lane' if bmode else ''} c {c:04x} lane {l} <- {jj}: {got:08x}"
    return cnt, examples


def parse_tsv(path, tag):
    return [ln.split("\t") for ln in lines(path) if ln.startswith(tag + "\t")]


def check_bitops(raw):
    names = [x for x in lines(os.path.join(raw, "bitops_names.txt")) if x]
    bad, total, skipped = [], 0, Counter()
    for f in parse_tsv(os.path.join(raw, "bitops.tsv"), "B"):
        a, b, c, d = (int(x, 16) for x in f[2:6])
        for name, got in zip(names, f[6:]):
            want = ref_bitop(name, a, b, c, d)
            if want is None:
                skipped[name] += 1
                continue
            total += 1
            if want != int(got, 16):
                bad.append((name, a, b, c, d, int(got, 16), want))
    return names, bad, total, skipped


def check_redux(raw):
    rows = parse_tsv(os.path.join(raw, "redux.tsv"), "V")
    vals = {}
    bad, total = [], 0
    for f in rows:
        mask, vs, field = int(f[1], 16), int(f[2]), f[3]
        xs = [int(x, 16) for x in f[4].split()]
        if field == "vals":
            vals[(mask, vs)] = xs
            continue
        v = vals.get((mask, vs))
        if v is None:
            continue
        mem = [l for l in range(32) if mask >> l & 1]
        v64 = [((l % 2) << 32) | v[l] for l in range(32)]
        for l in range(32):
            if l not in mem:
                want = 0xEEEEEEEE
            elif field.startswith("redux."):
                op, t = field.split(".")[1:3]
                ms = [v[m] for m in mem]
                sv = [sx(x, 32) for x in ms]
                want = {"add": sum(ms) & M32, "min": (min(sv) if t == "s32" else min(ms)) & M32,
                        "max": (max(sv) if t == "s32" else max(ms)) & M32,
                        "and": _fold(ms, lambda x, y: x & y), "or": _fold(ms, lambda x, y: x | y),
                        "xor": _fold(ms, lambda x, y: x ^ y)}[op]
            elif field in ("match.any.b32", "match.any.b64"):
                src = v if field.endswith("b32") else v64
                want = sum(1 << m for m in mem if src[m] == src[l])
            elif field in ("match.all.b32", "match.all.b64"):
                src = v if field.endswith("b32") else v64
                want = mask if all(src[m] == src[l] for m in mem) else 0
            elif field.endswith(".pred"):
                src = v if "b32" in field else v64
                want = int(all(src[m] == src[l] for m in mem))
            elif field == "activemask":
                want = mask
            else:
                continue
            total += 1
            if xs[l] != want:
                bad.append((field, mask, vs, l, xs[l], want))
    return bad, total


def _fold(xs, f):
    r = xs[0]
    for x in xs[1:]:
        r = f(r, x)
    return r


def check_barred(raw):
    bad, total = [], 0
    for f in parse_tsv(os.path.join(raw, "barred.tsv"), "R"):
        words = [int(x, 16) for x in f[1].split()]
        pred = [(words[t // 32] >> (t % 32)) & 1 for t in range(128)]
        field, val = f[2], f[3]
        neg = field.endswith("_not")
        pr = [x ^ 1 for x in pred] if neg else pred
        want = {"popc": sum(pr), "and": int(all(pr)), "or": int(any(pr))}[field.replace("_not", "")]
        total += 1
        got = int(val.split()[1]) if val.startswith("all ") else None
        if got != want:
            bad.append((f[1], field, val[:60], want))
    return bad, total


def const_tables(raw):
    lat = parse_tsv(os.path.join(raw, "const_lat.tsv"), "lat")
    thr = parse_tsv(os.path.join(raw, "const_thr.tsv"), "thr")
    imm = parse_tsv(os.path.join(raw, "const_imm.tsv"), "imm")
    steps = parse_tsv(os.path.join(raw, "const_steps.tsv"), "steps")
    return lat, thr, imm, steps


def merge_compare(raw):
    """(family, against, same, total) for ptxas 13 (device) vs the others."""
    res = []
    for fam in ("merge_family", "merge_heldout_1", "merge_heldout_2", "merge_cuda_nvrtc"):
        dev = read_stream(os.path.join(raw, f"{fam}.ptxas.stream"))
        if not dev:
            continue
        for other, path in [("ptxas12.6", os.path.join(HERE, "local", f"{fam}.ptxas126.stream")),
                            ("rule", os.path.join(HERE, f"{fam}.rule.stream")),
                            ("model", os.path.join(HERE, f"{fam}.model.stream"))]:
            o = read_stream(path)
            if not o:
                continue
            keys = [k for k in o if k in dev and o[k] and o[k][0] not in ("NOT_PREDICTED", "REFUSED")]
            same = sum(Counter(o[k]) == Counter(dev[k]) for k in keys)
            res.append((fam, other, same, len(keys), [k for k in keys if Counter(o[k]) != Counter(dev[k])]))
    # the H200's own pipeline (nvcc 13: its NVVM and its ptxas) against NVRTC 12.6's PTX
    # through the same ptxas: where the PTX that warpsim sees differs from what ran
    nv = read_stream(os.path.join(raw, "merge_cuda.nvcc.stream"))
    dev = read_stream(os.path.join(raw, "merge_cuda_nvrtc.ptxas.stream"))
    keys = [k for k in nv if k in dev]
    if keys:
        res.append(("merge_cuda nvcc13", "nvrtc12.6+ptxas13", sum(Counter(nv[k]) == Counter(dev[k]) for k in keys),
                    len(keys), [k for k in keys if Counter(nv[k]) != Counter(dev[k])]))
    return res


def read_stream(path):
    out = {}
    for ln in lines(path):
        if ln.strip() and not ln.startswith("#"):
            k, _, rest = ln.partition("\t")
            out[k] = rest.split()
    return out


# ---------------------------------------------------------------- outputs

def summary(raw):
    o = []
    env = lines(os.path.join(raw, "env.txt"))
    o.append("cuda_coverage: " + " | ".join(x.strip() for x in env[:1] + env[2:3] + [e for e in env if "release" in e][:1]))
    lat, thr, imm, steps = const_tables(raw)
    if lat:
        div = {(int(f[4]), int(f[5]), int(f[6])): float(f[9]) for f in lat if f[1] == "div"}
        ws = {(int(f[2]), int(f[3])): float(f[9]) for f in lat if f[1] == "ws"}
        o.append("LDC lat by D (stride 64B): " + " ".join(f"{D}:{div.get((D, 64, 0), 0):.0f}" for D in (1, 2, 4, 8, 16, 32)))
        o.append("LDC lat by D (stride 4B): " + " ".join(f"{D}:{div.get((D, 4, 0), 0):.0f}" for D in (1, 2, 4, 8, 16, 32)))
        o.append("LDC lat by WS (64B stride): " + " ".join(f"{w // 1024 if w >= 1024 else w}{'K' if w >= 1024 else ''}:{ws.get((w, 64), 0):.0f}" for w in (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)))
    if thr:
        t = {(int(f[1]), int(f[2]), int(f[3])): float(f[7]) for f in thr}
        o.append("LDC thr W=32 cyc/warp-LDC by D (64B): " + " ".join(f"{D}:{t.get((32, D, 64), 0):.2f}" for D in (1, 2, 4, 8, 16, 32)))
    if imm:
        o.append("const operand per FFMA (launch 2): " + " ".join(f"K{f[1]}{f[2][0]}:{float(f[7]):.2f}" for f in imm))
    if steps:
        med = {}
        for f in steps:
            med[(f[1], int(f[2]))] = statistics.median(int(x) for x in f[3:]) if len(f) > 3 else 0
        o.append("steps median c/step: " + " ".join(f"{k[0][:10]}{k[1]}:{v:.0f}" for k, v in med.items()))
    rows = parse_shfl(raw)
    if rows:
        cnt, _ = classify_shfl(rows)
        agg = defaultdict(Counter)
        for (scen, mode, where, what, pk), n in cnt.items():
            if where not in ("member", "range"):
                agg[(scen, where)][what] += n
        sane = sum(n for (s, m, w, what, pk), n in cnt.items() if w in ("member", "range") and what in ("source", "own") and pk in ("p_ok", "p_na"))
        allm = sum(n for (s, m, w, what, pk), n in cnt.items() if w in ("member", "range"))
        o.append(f"shfl members/out-of-range as PTX says: {sane}/{allm}")
        o.append("shfl from outside: " + "; ".join(f"{s}/{w}: " + ",".join(f"{k}={v}" for k, v in c.most_common(3)) for (s, w), c in sorted(agg.items())))
    r6 = parse_tsv(os.path.join(raw, "reduce6.tsv"), "R6")
    if r6:
        o.append("reduce6: " + " ".join(f"{f[1]}{f[2][0]}:{f[3].split()[1]}/{f[3].split()[3]}" for f in r6))
    names, bad, total, skipped = check_bitops(raw)
    if total:
        o.append(f"bitops: {total - len(bad)}/{total} equal the PTX reference; differing ops: " + ",".join(sorted(Counter(b[0] for b in bad))[:8]))
    bad, total = check_redux(raw)
    if total:
        o.append(f"redux/match/activemask: {total - len(bad)}/{total} as reference: " + ",".join(sorted(Counter(b[0] for b in bad))))
    bad, total = check_barred(raw)
    if total:
        o.append(f"bar.red: {total - len(bad)}/{total} as reference")
    for fam, other, same, n, _ in merge_compare(raw):
        o.append(f"{fam} ptxas13 vs {other}: {same}/{n}")
    nm = lines(os.path.join(raw, "ncu_metrics_used.txt"))
    if nm:
        o.append(f"ncu metrics: {len(nm[0].split(','))} ({sum('idc' in m for m in nm[0].split(','))} idc)")
    text = "\n".join(o)
    return text[:1990]


def report(raw):
    o = [summary(raw), ""]
    lat, thr, imm, steps = const_tables(raw)
    o.append("== LDC latency (cycles per dependent load; `kind ws`: stride chain over a working set; `div`: D distinct addresses)")
    for f in lat:
        o.append("  " + " ".join(f[1:]))
    o.append("== LDC throughput (SM cycles per warp-level LDC)")
    for f in thr:
        o.append("  " + " ".join(f[1:]))
    o.append("== constant operands (cycles per FFMA, three launches)")
    for f in imm:
        o.append("  " + " ".join(f[1:]))
    o.append("== per-step latencies (first 16 steps, then the median)")
    for f in steps:
        xs = [int(x) for x in f[3:]]
        o.append(f"  {f[1]} pass {f[2]}: {' '.join(map(str, xs[:16]))} ... median {statistics.median(xs) if xs else 0}")
    rows = parse_shfl(raw)
    cnt, ex = classify_shfl(rows)
    o.append("== shuffles: (scenario, mode, where the source was, what came back, predicate) count; an example")
    for k, n in sorted(cnt.items()):
        o.append(f"  {' '.join(k)}: {n}    e.g. {ex.get(k[:4], '')}")
    names, bad, total, skipped = check_bitops(raw)
    o.append(f"== bit ops: {total - len(bad)}/{total} equal the reference; not checked: {dict(skipped)}")
    for b in bad[:200]:
        o.append("  %s a=%x b=%x c=%x d=%x got %x want %x" % b)
    bad, total = check_redux(raw)
    o.append(f"== redux/match/activemask: {total - len(bad)}/{total}")
    for b in bad[:100]:
        o.append("  %s mask %08x set %d lane %d got %x want %x" % b)
    bad, total = check_barred(raw)
    o.append(f"== bar.red: {total - len(bad)}/{total}")
    for b in bad:
        o.append("  " + str(b))
    o.append("== merge streams: ptxas 13 (device) against ptxas 12.6, rule.py, the current model")
    for fam, other, same, n, diff in merge_compare(raw):
        o.append(f"  {fam} vs {other}: {same}/{n}; differ: {' '.join(diff[:40])}")
    return "\n".join(o)


def pick_metrics(listing):
    """Exact metric names from `ncu --query-metrics --query-metrics-mode all` (or base names
    from the default listing, then .sum is appended to counters)."""
    names = []
    for ln in lines(listing):
        m = re.match(r"^\s*([a-z0-9_]+__[A-Za-z0-9_.]+)", ln)
        if m:
            names.append(m.group(1))
    full = any("." in n for n in names)
    have = set(names)
    want = ["gpu__time_duration.sum", "sm__cycles_active.avg", "smsp__inst_executed.sum",
            "smsp__average_warp_latency_per_inst_issued.ratio"]
    for s in ("imc_miss", "short_scoreboard", "mio_throttle", "no_instruction", "wait", "long_scoreboard",
              "lg_throttle", "math_pipe_throttle", "branch_resolving", "not_selected", "selected", "dispatch_stall"):
        want.append(f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio")
    pat = re.compile(r"(^idc__|__idc|imc|_ldc|ldc_|op_const|constant|_uldc)")
    extra = []
    if full:
        bases = defaultdict(list)
        for n in names:
            if pat.search(n) and "pcsamp" not in n:
                base, _, suf = n.partition(".")
                bases[base].append(suf)
        for base, sufs in sorted(bases.items()):
            for pref in ("sum", "ratio", "avg.pct_of_peak_sustained_elapsed", "max", "avg"):
                if pref in sufs:
                    extra.append(f"{base}.{pref}")
                    break
        got = [w for w in want if w in have] + extra
    else:
        for n in names:
            if pat.search(n) and "pcsamp" not in n:
                extra.append(n + (".ratio" if n.endswith("ratio") or "pct" in n else ".sum"))
        bases = set(names)
        got = [w for w in want if w.partition(".")[0] in bases] + extra
    seen, out = set(), []
    for g in got:
        if g not in seen:
            seen.add(g)
            out.append(g)
    return ",".join(out[:48])


def selftest():
    assert bfe(0x12345678, 4, 8, 32, False) == 0x67
    assert bfe(0x80000000, 28, 8, 32, True) == 0xFFFFFFF8
    assert bfe(0x12345678, 0, 0, 32, True) == 0
    assert bfi(0xF, 0, 4, 4, 32) == 0xF0
    assert bfi(0xF, 0x1, 40, 4, 32) == 0x1
    assert prmt(0x33221100, 0x77665544, 0x3210, None) == 0x33221100
    assert prmt(0x33221100, 0x77665544, 0x7654, None) == 0x77665544
    assert prmt(0x80221100, 0, 0x8888 | 0x3333, None) == 0xFFFFFFFF
    assert prmt(0x33221100, 0x77665544, 1, "f4e") == 0x44332211
    assert prmt(0x33221100, 0x77665544, 0, "b4e") == 0x55667700
    assert shfl_source("down", 0, 16, 0x1F) == (16, True)
    assert shfl_source("down", 20, 16, 0x1F) == (36, False)
    assert shfl_source("up", 3, 4, 0) == (-1, False)
    assert shfl_source("idx", 13, 3, 0x181F) == (11, True)
    assert shfl_source("bfly", 5, 1, 0x1F) == (4, True)
    assert ref_bitop("clz.b64(a)", 1, 0, 0, 0) == 63
    assert ref_bitop("bfind.s64(a)", M64, 0, 0, 0) == M32
    assert ref_bitop("testp.subnormal.f32(a)", 1, 0, 0, 0) == 1
    assert ref_bitop("setp.lt.ftz.f32(a,b)", 0, 1, 0, 0) == 0
    assert ref_bitop("setp.lt.f32(a,b)", 0, 1, 0, 0) == 1
    assert ref_bitop("mad.hi.sat.s32(a,b,c)", 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0) == 0x7FFFFFFF
    assert ref_bitop("dp4a.u32.u32(a,b,c)", 0x01020304, 0x01010101, 5, 0) == 15
    print("selftest ok")


def main(argv):
    if not argv:
        sys.exit(__doc__)
    if argv[0] == "summary":
        print(summary(argv[1]))
    elif argv[0] == "report":
        print(report(argv[1]))
    elif argv[0] == "metrics":
        print(pick_metrics(argv[1]))
    elif argv[0] == "selftest":
        selftest()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
