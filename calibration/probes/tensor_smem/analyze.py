#!/usr/bin/env python3
"""The first device call against the fixed rules of model.py: every counter of every launch and
every functional dump (standard library only).

usage: analyze.py [raw/tensor_smem.tar.gz]  > analysis.txt
Reads the archive as it came back (tables/measured.tsv was made on the device by parse.py; the
dumps are re-read here). Prints, per instruction kind and counter, how many launches the fixed
rule reproduces exactly, every miss, the functional checks (LDSM registers, STSM words with the
winner rule, LDGSTS bytes with the winner rule, TMA tiles under model.tma_offset) and the
TMA / mbarrier counters."""
import csv
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model  # noqa: E402
from parse import load_patterns, open_src, src_byte  # noqa: E402


def iv(r, c):
    try:
        return int(float(r.get(c, "")))
    except ValueError:
        return None


def counters(files, pats):
    rows = list(csv.DictReader(io.StringIO(files["tables/measured.tsv"]), delimiter="\t"))
    res = {}   # (group, counter) -> [ok, total, misses]

    def check(group, counter, name, pred, meas):
        e = res.setdefault((group, counter), [0, 0, []])
        e[1] += 1
        if pred == meas:
            e[0] += 1
        else:
            e[2].append(f"{name}: model {pred} measured {meas}")

    base = {}   # the cp harness's own shared wavefronts (hw total minus the LDGSTS's)
    for r in rows:
        name, kind = r["name"], r["kind"]
        p = pats.get(name)
        if p is None:
            continue
        if kind.startswith(("ldsm", "stsm")):
            c = model.mat_cost(p["o"], kind)
            op, hw = ("ldsm", "ld") if kind.startswith("ldsm") else ("stsm", "st")
            g = f"{op} ({r['group']})"
            check(g, f"sass_{op} wf/bc", name, (c["wf"], c["bc"]), (iv(r, f"sass_{op}_wf"), iv(r, f"sass_{op}_bc")))
            check(g, f"hw_{hw} wf/bc", name, (c["wf"], c["bc"]), (iv(r, f"hw_{hw}_wf"), iv(r, f"hw_{hw}_bc")))
        elif kind.startswith(("ca.", "cg.")):
            size = p["srcsize"] if kind.split(".")[-1] == "z" else None
            c = model.ldgsts(kind, p["o"], p["s"], size)
            typ = kind.split(".")[0] + (".z" if kind.endswith(".z") else "")
            g = f"ldgsts {typ}"
            check(g, "sass_ldgsts wf/bc", name, (c["sass_wf"], c["sass_bc"]), (iv(r, "sass_ldgsts_wf"), iv(r, "sass_ldgsts_bc")))
            sub = "cache_access" if typ.startswith("ca") else "cache_bypass"
            check(g, f"sass_ldgsts_{sub} wf/bc", name, (c["sass_wf"], c["sass_bc"]),
                  (iv(r, f"sass_ldgsts_{sub}_wf"), iv(r, f"sass_ldgsts_{sub}_bc")))
            check(g, "sectors (smsp__sass_l1tex_t_sectors_..._ldgsts)", name, c["sectors"],
                  iv(r, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts"))
            check(g, "hw_ldgsts bc", name, c["hw_bc"], iv(r, "hw_ldgsts_bc"))
            check(g, "hw_bc total", name, c["hw_bc"], iv(r, "hw_bc"))
            check(g, "hw_ld / hw_st wf (0)", name, (0, 0), (iv(r, "hw_ld_wf"), iv(r, "hw_st_wf")))
            base.setdefault((p["warm"],), []).append(iv(r, "hw_wf") - c["hw_wf"])
        elif kind in ("lds.128", "sts.128"):
            from rules import house
            wf, bc, _ = house(p["o"], 16, kind[:2])
            hw = "ld" if kind == "lds.128" else "st"
            check(kind, f"hw_{hw} wf/bc (house rule)", name, (wf, bc), (iv(r, f"hw_{hw}_wf"), iv(r, f"hw_{hw}_bc")))
    out = ["== counters: launches the fixed rule (model.py) reproduces exactly"]
    for (g, c), (ok, n, miss) in sorted(res.items()):
        out.append(f"  {g:24s} {c:52s} {ok:4d} / {n}")
        for m in miss[:8]:
            out.append(f"      miss {m}")
    out.append("  cp harness: hw_wf total minus the LDGSTS's hw_wf (the kernel's own shared wavefronts): " +
               ", ".join(f"warm={k[0]}: {sorted(set(v))}" for k, v in sorted(base.items())))
    return out


def dumps(files):
    regs, words, tiles = {}, {}, {}
    for fn in ("dump_m.txt", "dump_c.txt", "dump_tma.txt"):
        for l in files.get(fn, "").splitlines():
            f = l.split()
            if not f:
                continue
            if f[0] == "R":
                regs.setdefault(f[1], {})[int(f[2])] = [int(x, 16) for x in f[3:7]]
            elif f[0] == "W":
                words.setdefault(f[1], {})[int(f[2])] = int(f[3], 16)
            elif f[0] == "T":
                for j, x in enumerate(f[3:]):
                    v = int(x, 16)
                    tiles.setdefault(f[1], {})[int(f[2]) + 4 * j] = v & 0xFFFF
                    tiles[f[1]][int(f[2]) + 4 * j + 2] = v >> 16
    return regs, words, tiles


def functional(files, pats):
    regs, words, tiles = dumps(files)
    out = ["== functional dumps against model.py"]
    tally = {}

    def put(kind, ok, name, detail=""):
        e = tally.setdefault(kind, [0, 0, []])
        e[1] += 1
        e[0] += ok
        if not ok:
            e[2].append(f"{name} {detail}")

    for name, lanes in regs.items():
        p = pats[name]
        exp = model.ldsm_regs(p["o"], p["kind"], lambda b: (b // 2) & 0xFFFF)
        n = model.mat_n(p["kind"])
        bad = sum(1 for t in range(32) for i in range(n) if lanes.get(t, [None] * 4)[i] != exp[t][i])
        put("ldsm registers", bad == 0, name, f"{bad} registers differ")
    for name, w in words.items():
        p = pats[name]
        got = {}
        for off, v in w.items():
            for i in range(4):
                got[off + i] = (v >> (8 * i)) & 0xFF
        if p["kind"].startswith("stsm"):
            exp16 = model.stsm_writes(p["o"], p["kind"], lambda t, j, h: t * 8 + 2 * j + h)
            exp = {}
            for off, v in exp16.items():
                exp[off], exp[off + 1] = v & 0xFF, v >> 8
            kind = "stsm words (winner: last matrix, lowest row)"
        else:
            size = p["srcsize"] if p["kind"].endswith(".z") else None
            exp = model.ldgsts_writes(p["kind"], p["o"], p["s"], size, src_byte)
            kind = "ldgsts bytes (winner: highest lane)"
        bad = [b for b in set(exp) | set(got) if exp.get(b, 0xEE) != got.get(b, 0xEE)]
        put(kind, not bad, name, f"{len(bad)} bytes differ")
    TMA_CFG = {"none": ("none", 128), "32B": ("32B", 32), "64B": ("64B", 64), "128B": ("128B", 128),
               "128Bi64": ("128B", 64)}
    for name, t in tiles.items():
        p = pats[name]
        if "bulk" in p["mode"]:
            bad = sum(1 for b in range(0, 8192, 2) if t.get(b) != ((src_byte(b + 1) << 8) | src_byte(b)))
            put("bulk copy bytes", bad == 0, name, f"{bad} halves differ")
            continue
        swz, ib = TMA_CFG[p["cfg"]]
        checked = bad = 0
        for r in range(64):
            for c in range(ib // 2):
                off = model.tma_offset(r, 2 * c, ib, swz)
                if off in t:
                    checked += 1
                    bad += t[off] != (((p["y0"] + r) * 256 + p["x0"] + c) & 0xFFFF)
        put("tma tile (model.tma_offset)", bad == 0, name,
            f"{bad} of {checked} dumped elements differ")
        if checked < 64 * ib // 2:
            out.append(f"  note {name}: the dump holds {checked} of the box's {64 * ib // 2} elements "
                       f"(the probe dumped box bytes, the tile spans {model.tma_tile_bytes(64, ib, swz)})")
    for k, (ok, n, miss) in sorted(tally.items()):
        out.append(f"  {k:48s} {ok:3d} / {n}")
        for m in miss[:6]:
            out.append(f"      miss {m}")
    for l in files.get("log.txt", "").splitlines():
        if "dump rc=1" in l:
            out.append(f"  fault: {l.strip()}")
    return out


def tma_table(files):
    rows = list(csv.DictReader(io.StringIO(files["tables/measured.tsv"]), delimiter="\t"))
    out = ["== TMA / bulk / mbarrier launches (hardware shared wavefronts by op; bank accesses)",
           f"  {'launch':30s} {'ld':>4s} {'st':>4s} {'misc':>5s} {'total':>5s} {'reads':>6s} {'writes':>6s} {'tma_rd_B':>8s} {'tma_wr_B':>8s}"]
    for r in rows:
        if r["group"] not in ("tma", "mix"):
            continue
        g = lambda c: r.get(c, "") or "0"  # noqa: E731
        out.append(f"  {r['name']:30s} {g('hw_ld_wf'):>4s} {g('hw_st_wf'):>4s} {g('hw_misc_wf'):>5s} {g('hw_wf'):>5s} "
                   f"{g('bank_reads'):>6s} {g('bank_writes'):>6s} {g('l1tex__m_xbar2l1tex_read_bytes_pipe_tma'):>8s} "
                   f"{g('l1tex__m_l1tex2xbar_write_bytes_pipe_tma'):>8s}")
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw", "tensor_smem.tar.gz")
    files = open_src(src)
    pats = load_patterns()
    for line in counters(files, pats) + functional(files, pats) + tma_table(files):
        print(line)


if __name__ == "__main__":
    main()
