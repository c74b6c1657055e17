#!/usr/bin/env python3
"""The device call's raw output -> tables (standard library only; runs on the device too).

usage: parse.py SRC [OUTDIR]
  SRC     tensor_smem.tar.gz as it came back, or the unpacked tensor_smem/ folder
  OUTDIR  where the tables go (default: this script's folder)
writes
  measured.tsv     one row per profiled launch: name, kind, group, then every counter collected
                   (short names, see SHORT; empty where that group did not ask for it)
  functional.tsv   LDSM registers / STSM and cp.async shared words / TMA tiles against the PTX
                   ISA fragment layouts and the swizzle hypothesis of rules.py: ok or what differs
  source_page.tsv  the Source page (per SASS instruction) of `mix` and of the srcpage launches:
                   instruction, executions, the shared-memory columns
and prints a short summary."""
import csv
import gzip
import io
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rules import ldsm_expected, mat_kind, stsm_expected, tma_swizzle  # noqa: E402

SHORT = [
    (r"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_(\w+)", r"hw_\1_wf"),
    (r"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_(\w+)", r"hw_\1_bc"),
    (r"l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read", "hw_rd_wf"),
    (r"l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write", "hw_wr_wf"),
    (r"l1tex__data_pipe_lsu_wavefronts_mem_shared", "hw_wf"),
    (r"l1tex__data_bank_conflicts_pipe_lsu_mem_shared", "hw_bc"),
    (r"l1tex__data_bank_(reads|writes)", r"bank_\1"),
    (r"l1tex__data_pipe_lsu_wavefronts", "hw_all_wf"),
    (r"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_(\w+)", r"sass_\1_wf"),
    (r"smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_(\w+)", r"sass_\1_bc"),
    (r"smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "sass_wf"),
    (r"smsp__sass_inst_executed_op_(\w+)", r"sass_n_\1"),
    (r"smsp__sass_data_bytes_mem_shared_op_(\w+)", r"bytes_\1"),
    (r"smsp__inst_executed_op_(\w+)", r"n_\1"),
    (r"smsp__inst_executed", "n_inst"),
]

KIND_K = {"ldsm.x1": 0, "ldsm.x2": 1, "ldsm.x4": 2, "ldsm.x1.trans": 3, "ldsm.x2.trans": 4,
          "ldsm.x4.trans": 5, "stsm.x1": 6, "stsm.x2": 7, "stsm.x4": 8, "stsm.x1.trans": 9,
          "stsm.x2.trans": 10, "stsm.x4.trans": 11, "lds.128": 12, "sts.128": 13, "ca.4": 20,
          "ca.8": 21, "ca.16": 22, "cg.16": 23, "ca.4.z": 24, "ca.8.z": 25, "ca.16.z": 26,
          "cg.16.z": 27, "ca.16.wall": 28}


def short(metric):
    m = metric[:-4] if metric.endswith(".sum") else metric
    for pat, rep in SHORT:
        if re.fullmatch(pat, m):
            return re.sub(pat, rep, m)
    return m


def open_src(src):
    """{relative path: text} of every file of the raw output (gz members decompressed)."""
    files = {}
    if os.path.isdir(src):
        for root, _, names in os.walk(src):
            for n in names:
                p = os.path.join(root, n)
                files[os.path.relpath(p, src)] = open(p, "rb").read()
    else:
        with tarfile.open(src) as t:
            for m in t.getmembers():
                if m.isfile():
                    rel = m.name.split("/", 1)[1] if "/" in m.name else m.name
                    files[rel] = t.extractfile(m).read()
    out = {}
    for k, v in files.items():
        if k.endswith(".gz"):
            v = gzip.decompress(v)
            k = k[:-3]
        out[k] = v.decode("utf-8", "replace")
    return out


def load_patterns():
    pats = {}
    for line in open(os.path.join(HERE, "patterns.txt")):
        f = line.split()
        kind = f[1]
        p = {"kind": kind, "o": [int(v) for v in f[2:34]]}
        if kind.startswith(("ca.", "cg.")):
            p["s"] = [int(v) for v in f[34:66]]
            p["srcsize"], p["warm"] = int(f[66]), int(f[67])
        pats[f[0]] = p
    for line in open(os.path.join(HERE, "tma_patterns.txt")):
        f = line.split()
        pats[f[0]] = {"kind": f"{f[1]}:{f[2]}", "cfg": f[1], "mode": f[2], "x0": int(f[3]),
                      "y0": int(f[4]), "o": [int(v) for v in f[5:37]]}
    return pats


def ncu_rows(text, group, fname):
    """[(name, kind, {short metric: value})] of one ncu --csv output with `L name kind` lines."""
    launches = [l.split()[1:3] for l in text.splitlines() if l.startswith("L ")]
    data = [l for l in text.splitlines() if l.startswith('"')]
    by_id, kname = {}, {}
    if data:
        for r in csv.DictReader(io.StringIO("\n".join(data))):
            try:
                i = int(r["ID"])
            except (KeyError, ValueError):
                continue
            v = r.get("Metric Value", "").replace(",", "")
            by_id.setdefault(i, {})[short(r["Metric Name"])] = v
            kname[i] = r.get("Kernel Name", "")
    out = []
    for i, (name, kind) in enumerate(launches):
        if i not in by_id:
            print(f"  {fname}: launch {i} ({name}) has no ncu row", file=sys.stderr)
            continue
        k = KIND_K.get(kind)
        m = re.search(r"<(\d+)>", kname.get(i, ""))
        if k is not None and m and int(m.group(1)) != k:
            print(f"  {fname}: launch {i} {name} ran {kname[i]}, not kind {kind}", file=sys.stderr)
            continue
        out.append((name, kind, group, by_id[i]))
    if len(by_id) != len(launches):
        print(f"  {fname}: {len(launches)} launches, {len(by_id)} profiled", file=sys.stderr)
    return out


def measured(files, pats, outdir):
    rows = []
    for path in sorted(files):
        m = re.fullmatch(r"ncu_(m_core|c_core|tma|m_extra|mix|risky)(_\d+)?\.csv", os.path.basename(path))
        if not m:
            continue
        group = m.group(1)
        for name, kind, g, v in ncu_rows(files[path], group, path):
            rows.append((name, pats[name]["kind"] if name in pats else kind, g, v))
    cols = []
    for _, _, _, v in rows:
        for c in v:
            if c not in cols:
                cols.append(c)
    pref = ["sass_ldsm_wf", "sass_ldsm_bc", "sass_stsm_wf", "sass_stsm_bc", "sass_ldgsts_wf", "sass_ldgsts_bc",
            "hw_ld_wf", "hw_ld_bc", "hw_st_wf", "hw_st_bc", "hw_ldgsts_bc", "hw_wf", "hw_bc"]
    cols = [c for c in pref if c in cols] + sorted(c for c in cols if c not in pref)

    def num(x):
        try:
            f = float(x)
            return str(int(f)) if f == int(f) else x
        except ValueError:
            return x
    with open(os.path.join(outdir, "measured.tsv"), "w") as f:
        f.write("\t".join(["name", "kind", "group"] + cols) + "\n")
        for name, kind, group, v in rows:
            f.write("\t".join([name, kind, group] + [num(v.get(c, "")) for c in cols]) + "\n")
    return rows


# ------------------------------------------------------------------ functional checks
def check_ldsm(name, p, lines):
    regs = {}
    for l in lines:
        f = l.split()
        regs[int(f[2])] = [int(x, 16) for x in f[3:7]]
    _, n, _ = mat_kind(p["kind"])
    exp = ldsm_expected(p["o"], p["kind"], lambda b: (b // 2) & 0xFFFF)
    bad = []
    for t in range(32):
        for i in range(n):
            if t not in regs or regs[t][i] != exp[t][i]:
                bad.append(f"lane{t}.r{i}={regs.get(t, ['?'] * 4)[i]:08x}/want{exp[t][i]:08x}" if t in regs else f"lane{t} missing")
    return ("ok", "") if not bad else (f"{len(bad)} differ", " ".join(bad[:6]))


def halves(words):
    """{byte offset: u16} from {word offset: u32}."""
    h = {}
    for off, w in words.items():
        h[off] = w & 0xFFFF
        h[off + 2] = w >> 16
    return h


def check_stsm(name, p, words):
    got = {k: v for k, v in halves(words).items() if v != 0xEEEE}
    exp = stsm_expected(p["o"], p["kind"])
    bad, amb, lo, hi = [], 0, 0, 0
    for off, cands in exp.items():
        v = got.get(off)
        if v is None or v not in cands:
            bad.append(f"@{off}={'sentinel' if v is None else hex(v)}/want{sorted(cands)[:2]}")
        elif len(cands) > 1:
            amb += 1
            lanes = sorted(c // 8 for c in cands)
            lo += v // 8 == lanes[0]
            hi += v // 8 == lanes[-1]
    extra = [off for off in got if off not in exp]
    if extra:
        bad.append(f"{len(extra)} halves written outside the rows, first @{min(extra)}")
    detail = " ".join(bad[:6])
    if amb:
        detail += f" shared-address halves {amb}: lowest lane won {lo}, highest {hi}"
    return ("ok" if not bad else f"{len(bad)} differ"), detail.strip()


def src_byte(b):
    w = b // 4
    return ((w | 0x00800000) >> (8 * (b % 4))) & 0xFF


def check_cp(name, p, words):
    w = int(p["kind"].split(".")[1])
    got = {}
    for off, v in words.items():
        for i in range(4):
            got[off + i] = (v >> (8 * i)) & 0xFF
    exp = {}
    for t in range(32):
        d, s = p["o"][t], p["s"][t]
        if d < 0:
            continue
        n = p["srcsize"] if p["kind"].endswith(".z") else w
        for i in range(w):
            exp.setdefault(d + i, set()).add(src_byte(s + i) if i < n else 0)
    bad = []
    for b, cands in exp.items():
        v = got.get(b, 0xEE)
        if v not in cands:
            bad.append(f"@{b}={v:02x}/want{sorted(cands)[0]:02x}")
    extra = [b for b, v in got.items() if b not in exp and v != 0xEE]
    if extra:
        bad.append(f"{len(extra)} bytes written outside the destinations, first @{min(extra)}")
    return ("ok" if not bad else f"{len(bad)} differ"), " ".join(bad[:6])


TMA_INNER = {"none": 128, "32B": 32, "64B": 64, "128B": 128, "128Bi64": 64}


def check_tma(name, p, tile_words, glines):
    cfg = p["cfg"]
    got = halves(tile_words)
    if "bulk" in p["mode"]:
        bad = [b for b in range(0, 8192, 2) if got.get(b) != ((src_byte(b + 1) << 8) | src_byte(b))]
        return ("ok" if not bad else f"{len(bad)} differ"), f"bulk copy of 8 KiB{(' first @' + str(bad[0])) if bad else ''}"
    ib = TMA_INNER[cfg]
    layouts = {"dense+swizzle": lambda q, r: tma_swizzle(q, cfg), "dense": lambda q, r: q}
    span = {"32B": 32, "64B": 64, "128B": 128, "128Bi64": 128}.get(cfg)
    if span and span != ib:
        layouts["rows_padded_to_span+swizzle"] = lambda q, r: tma_swizzle(r * span + q % ib, cfg)
    res = {}
    for lname, fn in layouts.items():
        bad = 0
        for r in range(64):
            for c in range(ib // 2):
                q = r * ib + 2 * c
                want = ((p["y0"] + r) * 256 + p["x0"] + c) & 0xFFFF
                if got.get(fn(q, r)) != want:
                    bad += 1
        res[lname] = bad
    best = min(res, key=res.get)
    detail = " ".join(f"{k}:{v}" for k, v in res.items()) + " (halves not matching, of %d)" % (64 * ib // 2)
    detail += "".join(" " + g for g in glines)
    return (f"fits {best}" if res[best] == 0 else f"no layout fits (best {best})"), detail


def functional(files, pats, outdir):
    out = []
    for fn in ("dump_m.txt", "dump_c.txt", "dump_tma.txt") + tuple(k for k in files if k.startswith("risky/") and k.endswith("_dump.txt")):
        if fn not in files:
            continue
        regs, words, tiles, glines, seen = {}, {}, {}, {}, []
        for l in files[fn].splitlines():
            f = l.split()
            if not f:
                continue
            if f[0] == "L":
                seen.append(f[1])
            elif f[0] == "R":
                regs.setdefault(f[1], []).append(l)
            elif f[0] == "W":
                words.setdefault(f[1], {})[int(f[2])] = int(f[3], 16)
            elif f[0] == "T":
                base = int(f[2])
                for j, x in enumerate(f[3:]):
                    tiles.setdefault(f[1], {})[base + 4 * j] = int(x, 16)
            elif f[0] == "G":
                glines.setdefault(f[1], []).append("store:" + " ".join(f[2:]))
            elif f[0] == "E":
                out.append((fn, "-", "fault", " ".join(f[1:])))
        for name in seen:
            p = pats[name]
            k = p["kind"]
            if k.startswith("ldsm"):
                r = check_ldsm(name, p, regs.get(name, []))
            elif k.startswith("stsm"):
                r = check_stsm(name, p, words.get(name, {}))
            elif k.startswith(("ca.", "cg.")):
                r = check_cp(name, p, words.get(name, {}))
            elif "cfg" in p:
                r = check_tma(name, p, tiles.get(name, {}), glines.get(name, []))
            else:
                continue
            out.append((name, k, r[0], r[1]))
    with open(os.path.join(outdir, "functional.tsv"), "w") as f:
        f.write("name\tkind\tresult\tdetail\n")
        for row in out:
            f.write("\t".join(row) + "\n")
    return out


# ------------------------------------------------------------------ Source page
def source_page(files, outdir):
    out = []
    for fn in sorted(files):
        if not re.fullmatch(r"source_\w+\.csv", fn):
            continue
        blocks, cur = [], None
        for l in files[fn].splitlines():
            if l.startswith('"Kernel Name"'):
                cur = [l]
                blocks.append(cur)
            elif cur is not None and l.startswith('"'):
                cur.append(l)
        labels = [l.split()[1] for l in files[fn].splitlines() if l.startswith("L ")]
        prev = None
        idx = 0
        for b in blocks:
            kname = next(csv.reader([b[0]]))[1]
            rows = list(csv.reader(b[1:]))
            if not rows:
                continue
            hdr, body = rows[0], rows[1:]
            if prev == b:   # ncu may print a kernel's table twice in a row (two source views)
                continue
            prev = b
            label = labels[idx] if idx < len(labels) else "?"
            idx += 1
            ix = {h: j for j, h in enumerate(hdr)}
            keep = [h for h in hdr if re.search(r"Shared|Address Space|Access Operation|Access Size|L2 Theoretical Sectors Global$|L1 Tag Requests Global", h)]
            ex = ix.get("Instructions Executed")
            for r in body:
                src = r[ix["Source"]].strip() if "Source" in ix else r[1]
                if ex is not None and (r[ex] in ("", "0")):
                    continue
                if not re.search(r"LDSM|STSM|LDGSTS|LDS|STS|UTMA|UBLKCP|SYNCS|DEPBAR|ATOMS", src):
                    continue
                out.append([fn, f"{label} ({kname[:30]})", re.sub(r"\s+", " ", src), r[ex] if ex is not None else ""]
                           + [f"{h}={r[ix[h]]}" for h in keep])
    with open(os.path.join(outdir, "source_page.tsv"), "w") as f:
        f.write("file\tlaunch\tsass\texecuted\tcolumns...\n")
        for row in out:
            f.write("\t".join(row) + "\n")
    return out


def main():
    src = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) > 2 else HERE
    os.makedirs(outdir, exist_ok=True)
    files = open_src(src)
    pats = load_patterns()
    rows = measured(files, pats, outdir)
    fun = functional(files, pats, outdir)
    sp = source_page(files, outdir)
    groups = {}
    for _, _, g, _ in rows:
        groups[g] = groups.get(g, 0) + 1
    print("measured.tsv: " + ", ".join(f"{g} {n}" for g, n in groups.items()) + f" ({len(rows)} launches)")
    okn = sum(1 for r in fun if r[2] == "ok" or r[2].startswith("fits"))
    print(f"functional.tsv: {okn}/{len(fun)} as predicted")
    for r in fun:
        if not (r[2] == "ok" or r[2].startswith("fits dense+swizzle") or (r[2].startswith("fits dense") and r[1].startswith("none"))):
            print(f"  {r[0]} {r[2]} {r[3][:150]}")
    print(f"source_page.tsv: {len(sp)} instruction rows")


if __name__ == "__main__":
    main()
