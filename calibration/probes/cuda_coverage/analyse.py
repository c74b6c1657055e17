#!/usr/bin/env python3
"""Analysis of the first H200 call (raw/cuda_coverage.tar.gz): every number the README's
"Results" and "Implementation specs" sections cite, recomputed from the raw files, and the
test fixtures (fixtures/) the implementation copies into tests/fixtures.

    analyse.py [RAW]            report (RAW: the unpacked cuda_coverage/ folder, or the
                                 .tar.gz; default raw/cuda_coverage.tar.gz beside this file)
    analyse.py fixtures [RAW]   (re)writes fixtures/ from RAW

Standard library only. The hardware rules below (`hw_*`) are the spec: each is checked here
against every measured value.
"""
import csv
import gzip
import io
import os
import re
import sys
import tarfile
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import parse as P  # noqa: E402  (the PTX references of the first call)

M32, M64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF


# ---------------------------------------------------------------- raw access

class Raw:
    """The files of cuda_coverage/ (a folder, or the archive read in memory)."""

    def __init__(self, path):
        self.files = {}
        if os.path.isdir(path):
            for n in os.listdir(path):
                with open(os.path.join(path, n), "rb") as f:
                    self.files[n] = f.read()
        else:
            with tarfile.open(path) as t:
                for m in t.getmembers():
                    if m.isfile():
                        self.files[os.path.basename(m.name)] = t.extractfile(m).read()

    def text(self, name):
        b = self.files.get(name)
        if b is None:
            return ""
        if name.endswith(".gz"):
            b = gzip.decompress(b)
        return b.decode(errors="replace")

    def lines(self, name):
        return self.text(name).splitlines()


# ---------------------------------------------------------------- bit ops: the H200's rules

def shr64(a, n):
    return a >> n if n < 64 else 0


def shl64(a, n):
    return (a << n) & M64 if n < 64 else 0


def mask64(n):
    return M64 if n >= 64 else (1 << n) - 1


def sar64(a, n):
    return (P.sx(a, 64) >> min(n, 64)) & M64


def hw_bfe_u64(a, pos, ln):
    """bfe.u64 as the H200 runs it: pos and len are the whole 32-bit operands (PTX says & 0xff)."""
    return shr64(a, pos) & mask64(ln)


def hw_bfe_s64(a, pos, ln):
    """bfe.s64: arithmetic shift by pos (>= 64: the sign), then sign-extend from bit len-1."""
    if ln == 0:
        return 0
    x = sar64(a, pos)
    if ln >= 64:
        return x
    return P.sx(x & mask64(ln), ln) & M64


def hw_bfi_b64(a, b, pos, ln):
    """bfi.b64: mask = ((1 << len) - 1) << pos on the whole 32-bit operands (shifts >= 64 give 0)."""
    m = shl64(mask64(ln), pos)
    return (b & ~m & M64) | (shl64(a, pos) & m)


def hw_mad_hi_sat_s32(a, b, c):
    """mad.hi.sat.s32: no saturation (ptxas 12.6 and 13.0 emit IMAD.WIDE a*b + (c << 32))."""
    return (((P.sx(a, 32) * P.sx(b, 32)) >> 32) + P.sx(c, 32)) & M32


def hw_bitop(name, a, b, c, d):
    """The H200's value of op `name` (gen_warp.BITOPS), where it differs from the first call's
    reference; else that reference (testp.normal: the reference was wrong, see the README)."""
    c32, d32 = c & M32, d & M32
    op = name.split("(")[0]
    if op == "bfe.u64":
        return hw_bfe_u64(a, c32, d32)
    if op == "bfe.s64":
        return hw_bfe_s64(a, c32, d32)
    if op == "bfi.b64":
        return hw_bfi_b64(a, b, c32, d32)
    if op == "mad.hi.sat.s32":
        return hw_mad_hi_sat_s32(a & M32, b & M32, c32)
    if op.startswith("testp.normal."):
        # PTX ISA (testp): "As a special case, positive and negative zero are considered
        # normal numbers."
        cls = P.f32_class(a & M32) if op.endswith("f32") else P.f64_class(a)
        return int(cls in ("normal", "zero"))
    return P.ref_bitop(name, a, b, c, d)


def bitops(raw):
    names = [x.strip() for x in raw.lines("bitops_names.txt") if x.strip()]
    rows = []
    for ln in raw.lines("bitops.tsv"):
        f = ln.split("\t")
        if f[0] != "B":
            continue
        a, b, c, d = (int(x, 16) for x in f[2:6])
        rows.append((int(f[1]), a, b, c, d, [int(x, 16) for x in f[6:]]))
    return names, rows


def report_bitops(raw, o):
    names, rows = bitops(raw)
    o.append(f"== bit ops: {len(names)} ops x {len(rows)} tuples")
    tot_ref = tot_hw = 0
    for j, n in enumerate(names):
        ref = sum(P.ref_bitop(n, *r[1:5]) == r[5][j] for r in rows)
        hw = sum(hw_bitop(n, *r[1:5]) == r[5][j] for r in rows)
        tot_ref += ref
        tot_hw += hw
        if ref != len(rows) or hw != len(rows):
            small = [r for r in rows if (r[3] & M32) < 256 and (r[4] & M32) < 256]
            sref = sum(P.ref_bitop(n, *r[1:5]) == r[5][j] for r in small)
            o.append(f"  {n:24s} PTX text {ref:3d}/{len(rows)} (of them pos,len < 256: {sref}/{len(small)}); "
                     f"the H200 rule {hw}/{len(rows)}")
    o.append(f"  all: PTX text {tot_ref}/{len(names) * len(rows)}, H200 rules {tot_hw}/{len(names) * len(rows)}")


# ---------------------------------------------------------------- shuffles: the H200's rule

def hw_shfl(scen, mode, mask, b, c, bmode, v):
    """The H200's d and p per lane (None: the lane did not execute). The rule: PTX's source lane
    j and range test; j out of range: own value; j in range and executing this same SHFL (a
    member, or in another group that executes it in the same instruction, scenario A): j's
    value; j not executing it (outside the branch, predicated off, exited): 0. p = in range."""
    execd = [True] * 32 if scen in ("F", "A") else [bool(mask >> l & 1) for l in range(32)]
    d, p = [None] * 32, [None] * 32
    for l in range(32):
        if not execd[l]:
            continue
        j, ok = P.shfl_source(mode, l, b + l if bmode else b, c)
        j &= 31
        if not ok:
            d[l] = v[l]
        elif execd[j]:
            d[l] = v[j]
        else:
            d[l] = 0
        p[l] = int(ok)
    return d, p


def shfl_rows(raw):
    out = []
    for name in sorted(raw.files):
        if not (name.startswith("shfl_") and name.endswith(".tsv")):
            continue
        for ln in raw.lines(name):
            f = ln.split("\t")
            if len(f) < 10 or f[0] != "S":
                continue
            out.append((f[1], f[2], int(f[3], 16), int(f[4]), int(f[5], 16), int(f[6]),
                        [int(x, 16) for x in f[7].split()], [int(x) for x in f[8]],
                        [int(x, 16) for x in f[9].split()], ln))
    return out


def report_shfl(raw, o):
    rows = shfl_rows(raw)
    c = Counter()
    for scen, mode, mask, b, cc, bmode, d, p, v, _ in rows:
        # v is each lane's value after the kernel; the source value is the A-value (B2/B3's
        # rewrite happens in lanes outside the mask only, after which they are not read)
        k_id = (v[0] >> 8) & 0xFFFF
        vA = [0xA0000000 | (k_id << 8) | l for l in range(32)]
        hd, hp = hw_shfl(scen, mode, mask, b, cc, bmode, vA)
        for l in range(32):
            if hd[l] is None:
                continue
            c[(scen, "d", hd[l] == d[l])] += 1
            if p[l] != 9:
                c[(scen, "p", hp[l] == p[l])] += 1
    o.append("== shuffles: the H200 rule (source if it executes the same SHFL, else 0; out of range: own) per scenario")
    for scen in sorted({k[0] for k in c}):
        dd = (c[(scen, "d", True)], c[(scen, "d", True)] + c[(scen, "d", False)])
        pp = (c[(scen, "p", True)], c[(scen, "p", True)] + c[(scen, "p", False)])
        o.append(f"  {scen:3s} d {dd[0]}/{dd[1]}  p {pp[0]}/{pp[1]}" + ("  (no predicate: CUDA intrinsics)" if pp[1] == 0 else ""))
    r6 = [ln for ln in raw.lines("reduce6.tsv") if ln.startswith("R6\t")]
    o.append("  reduce6: " + "; ".join(" ".join(x.split("\t")[1:4]) for x in r6))


# ---------------------------------------------------------------- constant memory

def hw_ldc_latency(D, miss):
    """LDC latency (cycles, issue to use, one warp) for D distinct addresses: all hitting the
    2 KiB constant cache, or all missing it and hitting the second level (const_lat.tsv)."""
    return 98 + 81 * (D - 1) if miss else 28 + 11 * (D - 1)


class LRU:
    def __init__(self, sets, ways, line=64):
        self.sets, self.ways, self.line = sets, ways, line
        self.s = [[] for _ in range(sets)]

    def access(self, addr):
        ln = addr // self.line
        s = self.s[ln % self.sets]
        if ln in s:
            s.remove(ln)
            s.append(ln)
            return True
        s.append(ln)
        if len(s) > self.ways:
            s.pop(0)
        return False


def sim_ws(cache, ws, stride, steps=2048):
    o, hits = 0, 0
    for _ in range(steps):  # warm pass
        cache.access(o)
        o = (o + stride) % ws
    lat = 0
    for _ in range(steps):
        h = cache.access(o)
        lat += hw_ldc_latency(1, not h)
        o = (o + stride) % ws
    return lat / steps


def sim_div(cache, D, ls):
    addrs = [g * ls for g in range(D)]
    for a in addrs:
        cache.access(a)
    res = [cache.access(a) for a in addrs]
    if all(res):
        return hw_ldc_latency(D, False)
    if not any(res):
        return hw_ldc_latency(D, True)
    return None  # mixed: no law measured


GEOMS = OrderedDict([("4-way x 8 sets", (8, 4)), ("2-way x 16 sets", (16, 2)), ("8-way x 4 sets", (4, 8)),
                     ("fully associative (32 lines)", (1, 32)), ("direct-mapped (32 lines)", (32, 1))])


def report_const(raw, o):
    lat = [ln.split("\t") for ln in raw.lines("const_lat.tsv") if ln.startswith("lat\t")]
    o.append("== constant memory: LDC latency laws (const_lat.tsv)")
    n_ok = n = 0
    for f in lat:
        kind, ws, st, D, ls, blk = f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6])
        got = float(f[9])
        if kind == "div":
            span = (D - 1) * ls + 4
            want = hw_ldc_latency(D, span > 2048 and ls >= 128)
            n += 1
            n_ok += abs(got - want) < 0.1
    o.append(f"  div rows: hit 28 + 11(D-1), miss 98 + 81(D-1): {n_ok}/{n} within 0.1 cycle")
    o.append("  cache geometry (64-byte lines, 2 KiB, LRU): rows whose measured latency the geometry predicts")
    for gname, (sets, ways) in GEOMS.items():
        ok = tot = 0
        for f in lat:
            kind, ws, st, D, ls, blk = f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6])
            got = float(f[9])
            if kind == "ws":
                want = sim_ws(LRU(sets, ways), ws, st)
            else:
                want = sim_div(LRU(sets, ways), D, ls) if not blk else hw_ldc_latency(D, False)
            tot += 1
            ok += want is not None and abs(got - want) < 0.1
        # the throughput probe's 8 chains 4 KiB apart: ncu saw mostly misses (idc tag misses)
        c = LRU(sets, ways)
        addrs = [4096 * k for k in range(8)]
        for a in addrs:
            c.access(a)
        thr_miss = not all(c.access(a) for a in addrs)
        o.append(f"    {gname:30s} {ok}/{tot} latency rows; 8 chains 4 KiB apart miss: {'yes' if thr_miss else 'no'} (ncu: yes)")
    thr = [ln.split("\t") for ln in raw.lines("const_thr.tsv") if ln.startswith("thr\t")]
    o.append("  throughput probe (SM cycles per warp-level LDC; 8 chains 4 KiB apart: IDC set conflicts, so these are misses):")
    for ls in ("64", "4"):
        o.append(f"    lane stride {ls:>2s} B, W=32: " + " ".join(f"D{f[2]}:{float(f[7]):.1f}" for f in thr if f[1] == "32" and f[3] == ls))
    imm = [ln.split("\t") for ln in raw.lines("const_imm.tsv") if ln.startswith("imm\t")]
    o.append("  constant operands (ULDC.64 + 2 FFMA ... UR): cycles per FFMA, launches 1/2/3")
    for f in imm:
        o.append(f"    K={f[1]:>4s} {f[2]:9s} {f[6]} {f[7]} {f[8]}")
    steps = [ln.split("\t") for ln in raw.lines("const_steps.tsv") if ln.startswith("steps\t")]
    o.append("  per-step latencies (64-byte steps; a new 256-byte line every 4th step): median of the line-opening steps / the others")
    import statistics
    for f in steps:
        t = [int(x) for x in f[3:]]
        big = [x for x in t if x > 120]
        rest = [x for x in t if x <= 120]
        o.append(f"    {f[1]:26s} pass {f[2]}: opening {statistics.median(big) if big else '-':>6} "
                 f"(n {len(big):3d}, {min(big) if big else '-'}-{max(big) if big else '-'}), others {statistics.median(rest) if rest else '-'}")
    # ncu
    rows = [r for r in csv.reader(io.StringIO(raw.text("ncu_const.csv"))) if len(r) == 15 and r[0] != "ID"]
    T = {}
    for r in rows:
        T.setdefault(r[12], {})[int(r[0])] = r[14].replace(",", "")
    L = [ln.split(" ", 2) for ln in raw.lines("ncu_const_launches.txt") if ln.startswith("L ")]
    o.append("  Nsight Compute (ncu_const.csv): per launch LDC, idc requests, replays, divergent LDCs, idc misses, gcc requests/misses to L2")
    for _, i, what in L:
        i = int(i)
        g = lambda m: T.get(m, {}).get(i, "-")
        o.append(f"    L{i:<2d} {what:28s} ldc {g('smsp__inst_executed_op_ldc.sum'):>6} idc_req {g('idc__requests.sum'):>6} "
                 f"replays {g('sm__idc_divergent_instruction_replays.sum'):>6} div_inst {g('sm__idc_divergent_instructions.sum'):>6} "
                 f"idc_miss {g('idc__requests_lookup_miss.sum'):>6} gcc_req {g('gcc__cache_requests_type_constant.sum'):>6} "
                 f"gcc2xbar {g('gcc__gcc2xbar_requests_type_constant.sum'):>4} imc_req {g('smsp__imc_requests.sum'):>4}")


# ---------------------------------------------------------------- merge

def streams(text):
    d = OrderedDict()
    for ln in text.splitlines():
        if "\t" in ln:
            k, v = ln.split("\t", 1)
            d[k] = v.split()
    return d


def report_merge(raw, o):
    o.append("== merge: static streams, ptxas 13.0 (device) against ptxas 12.6 (local/), rule.py, warpsim's model")
    for fam in ("merge_family", "merge_heldout_1", "merge_heldout_2", "merge_cuda_nvrtc"):
        dev = streams(raw.text(fam + ".ptxas.stream"))
        loc = streams(open(os.path.join(HERE, "local", fam + ".ptxas126.stream")).read())
        mod = streams(open(os.path.join(HERE, fam + ".model.stream")).read())
        rp = os.path.join(HERE, fam + ".rule.stream")
        rule = streams(open(rp).read()) if os.path.exists(rp) else {}
        eq = lambda a, b: sorted(a) == sorted(b)
        s126 = sum(eq(dev[k], loc.get(k, [])) for k in dev)
        pr = [k for k in dev if rule.get(k, ["NOT_PREDICTED"]) != ["NOT_PREDICTED"]]
        sr = sum(eq(dev[k], rule[k]) for k in pr)
        sm = sum(eq(dev[k], mod.get(k, [])) for k in dev)
        o.append(f"  {fam:18s} = ptxas 12.6 {s126}/{len(dev)}; rule.py {sr}/{len(pr)} predicted; model {sm}/{len(dev)}")
    nv = streams(raw.text("merge_cuda.nvcc.stream"))
    nr = streams(raw.text("merge_cuda_nvrtc.ptxas.stream"))
    diff = [k for k in nv if not sorted(nv[k]) == sorted(nr.get(k, []))]
    o.append(f"  merge_cuda: nvcc 13 (its own PTX) = NVRTC 12.6 PTX + ptxas 13 on {len(nv) - len(diff)}/{len(nv)}; differ: {' '.join(diff)}")
    for k in diff:
        cn = Counter(nv[k])
        cr = Counter(nr.get(k, []))
        o.append(f"    {k}: nvcc13 {dict(cn)} (static; its d loop kept) vs NVRTC 12.6 {dict(cr)}")
    ptx13 = raw.text("merge_cuda.nvcc.ptx.gz")
    r32 = len(re.findall(r"(ld|st)\.shared\.[^\n]*\[%r\d", ptx13))
    r64 = len(re.findall(r"(ld|st)\.shared\.[^\n]*\[%rd\d", ptx13))
    o.append(f"  nvcc 13's PTX: shared accesses through 32-bit registers {r32}, through 64-bit {r64} "
             f"(NVRTC 12.6's: all through 64-bit %rd)")


# ---------------------------------------------------------------- fixtures

SHFL_MASKS = {0x000000FF, 0x55555555, 0x80000001}
REDUX_MASKS = {"ffffffff", "55555555", "80000001"}


def write_fixtures(raw):
    fx = os.path.join(HERE, "fixtures")
    os.makedirs(fx, exist_ok=True)
    names, rows = bitops(raw)
    with open(os.path.join(fx, "bitops_h200.tsv"), "w") as f:
        f.write("# H200 (ptxas 13.0, sm_90) values of the bit ops of gen_warp.BITOPS: one line per input tuple;\n"
                "# columns: tuple, a, b, c, d (hex u64), then one hex u64 result per op in this order:\n")
        f.write("# " + "\t".join(names) + "\n")
        for t, a, b, c, d, v in rows:
            f.write("\t".join([str(t)] + [f"{x:x}" for x in (a, b, c, d)] + [f"{x:x}" for x in v]) + "\n")
    with open(os.path.join(fx, "shfl_h200.tsv"), "w") as f:
        f.write("# H200 shuffles (warp.ptx's shfl_<mode>_<scenario>): scenario B (lanes outside the mask branch\n"
                "# around it; P, B2, B3, C and E gave the same values), A (all lanes execute it, lanes outside the\n"
                "# mask M naming ~M) and F (all lanes, full mask), masks 000000ff 55555555 80000001. Lane l's source\n"
                "# value is 0xA0000000 | config << 8 | l. Columns: scenario mode mask b c b_plus_lane (1: lane l\n"
                "# passes b + l) config d[32] (hex; lanes that did not execute it hold whatever the kernel left)\n"
                "# p[32] (9: did not execute it)\n")
        for scen, mode, mask, b, c, bmode, d, p, v, ln in shfl_rows(raw):
            if scen in ("A", "B", "F") and mask in SHFL_MASKS:
                x = ln.split("\t")
                f.write("\t".join(x[1:7] + [f"{(v[0] >> 8) & 0xFFFF:x}"] + x[7:9]) + "\n")
    with open(os.path.join(fx, "redux_h200.tsv"), "w") as f:
        f.write("# H200 redux.sync / match.sync / activemask (warp.ptx's redux_match): lanes outside the mask\n"
                "# branch around; columns: mask set op per-lane results (hex; match .pred: value then p)\n")
        for ln in raw.lines("redux.tsv"):
            x = ln.split("\t")
            if len(x) > 2 and x[1] in REDUX_MASKS:
                f.write(ln + "\n")
    with open(os.path.join(fx, "barred_h200.tsv"), "w") as f:
        f.write("# H200 bar.red (warp.ptx's barred, 128 threads): predicate words, op, result\n")
        f.write(raw.text("barred.tsv"))
    with open(os.path.join(fx, "const_h200.tsv"), "w") as f:
        f.write("# H200 constant-memory latencies (const.cu lat, one warp, cycles per dependent LDC)\n")
        f.write("\n".join(ln for ln in raw.lines("const_lat.tsv")) + "\n")
    for n in sorted(os.listdir(fx)):
        print(f"fixtures/{n}: {os.path.getsize(os.path.join(fx, n))} bytes")


def main(argv):
    fix = bool(argv) and argv[0] == "fixtures"
    if fix:
        argv = argv[1:]
    raw = Raw(argv[0] if argv else os.path.join(HERE, "raw", "cuda_coverage.tar.gz"))
    if fix:
        write_fixtures(raw)
        return
    o = []
    report_bitops(raw, o)
    report_shfl(raw, o)
    report_const(raw, o)
    report_merge(raw, o)
    print("\n".join(o))


if __name__ == "__main__":
    main(sys.argv[1:])
