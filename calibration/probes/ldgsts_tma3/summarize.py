#!/usr/bin/env python3
"""The probe's raw output -> tables against the predictions (standard library only; runs on the
device too).

usage: summarize.py RAW [--out DIR]      RAW: the ldgsts_tma3/ folder run.sh fills, or
                                         ldgsts_tma3.tar.gz as it came back
       summarize.py sass LDGSTS.sass TMA.sass   the SASS check run.sh runs after the build

Writes DIR (default: RAW's folder + /tables, or next to the tarball):
  ldgsts_table.tsv   one row per profiled LDGSTS launch: measured and predicted (warpsim today,
                     predictions.tsv) for sass_wf sass_bc sectors hw_wf hw_bc (+ Source page ideal
                     and tags where printed), model.DRAW2's numbers, bank writes, the zero-fill
                     increment over the reference without src-size (n_* launches), the functional
                     check (words as expected)
  ldgsts_groups.txt  exact counts and mean (measured - predicted) per kind x size pattern, per kind x
                     destination, per kind x source: where the rule goes wrong, and by how much
  tma_table.tsv      one row per TMA case x mode: outcome (ran / fault TEXT / hang / missing), the
                     predictions of H0 and H1 (PREDICTION.md), the coordinate echo, the tile
                     check (which fill rule the tile matches) and the store check
  tma_summary.txt    the TMA verdicts
Prints a short summary (about 1 KB)."""
import csv
import gzip
import io
import os
import re
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import predict  # noqa: E402

SHORT = {
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum": "sass_wf",
    "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": "sass_bc",
    "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum": "sectors",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "hw_total",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": "hw_bc",
    "l1tex__data_bank_writes.sum": "bank_writes",
    "l1tex__data_bank_reads.sum": "bank_reads",
    "smsp__sass_inst_executed_op_ldgsts.sum": "n_ldgsts",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_access.sum": "sass_ca_wf",
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_cache_bypass.sum": "sass_cg_wf",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum": "hw_wr_wf",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum": "hw_rd_wf",
}
FIVE = ("sass_wf", "sass_bc", "sectors", "hw_wf", "hw_bc")
KIND_K = {"ca.4": 20, "ca.8": 21, "ca.16": 22, "cg.16": 23, "ca.4.z": 24, "ca.8.z": 25, "ca.16.z": 26, "cg.16.z": 27}


# ------------------------------------------------------------------ input
def open_src(src):
    """{relative path: text}, .gz members decompressed."""
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
    for k in [k for k in files if k.endswith("tma_out.tar.gz")]:   # run.sh packs tma/ into one member
        with tarfile.open(fileobj=io.BytesIO(files.pop(k))) as t:
            for m in t.getmembers():
                if m.isfile():
                    files["tma/" + m.name.lstrip("./")] = t.extractfile(m).read()
    out = {}
    for k, v in files.items():
        if k.endswith(".gz"):
            try:
                v = gzip.decompress(v)
            except OSError:
                continue
            k = k[:-3]
        out[k] = v.decode("utf-8", "replace")
    return out


def num(x):
    try:
        f = float(str(x).replace(",", ""))
        return int(f) if f == int(f) else f
    except ValueError:
        return None


def ncu_rows(text, fname, notes):
    """[(name, kind, {short: value})] of one ncu --csv output with `L name kind` lines."""
    launches = [l.split()[1:3] for l in text.splitlines() if l.startswith("L ")]
    data = [l for l in text.splitlines() if l.startswith('"')]
    by_id, kname = {}, {}
    if data:
        for r in csv.DictReader(io.StringIO("\n".join(data))):
            try:
                i = int(r["ID"])
            except (KeyError, ValueError, TypeError):
                continue
            m = r.get("Metric Name", "")
            by_id.setdefault(i, {})[SHORT.get(m, m)] = num(r.get("Metric Value", ""))
            kname[i] = r.get("Kernel Name", "")
    out = []
    for i, (name, kind) in enumerate(launches):
        if i not in by_id:
            notes.append(f"{fname}: launch {i} ({name}) has no ncu row")
            continue
        m = re.search(r"<\(?(?:int\))?(\d+)>", kname.get(i, ""))
        if m and int(m.group(1)) != KIND_K.get(kind, -1):
            notes.append(f"{fname}: launch {i} {name} ran {kname[i][:40]}, not kind {kind}")
            continue
        out.append((name, kind, by_id[i]))
    return out


def source_page(text):
    """{launch name: {'ideal', 'tags', 'sass_wf', 'sectors'}} from the LDGSTS rows of an ncu
    Source page CSV (the launch order of the `L` lines)."""
    blocks, cur = [], None
    for l in text.splitlines():
        if l.startswith('"Kernel Name"'):
            cur = [l]
            blocks.append(cur)
        elif cur is not None and l.startswith('"'):
            cur.append(l)
    labels = [l.split()[1] for l in text.splitlines() if l.startswith("L ")]
    out, prev, idx = {}, None, 0
    for b in blocks:
        rows = list(csv.reader(b[1:]))
        if not rows or prev == b:
            continue
        prev = b
        label = labels[idx] if idx < len(labels) else f"?{idx}"
        idx += 1
        hdr, body = rows[0], rows[1:]
        ix = {h: j for j, h in enumerate(hdr)}
        for r in body:
            src = r[ix["Source"]] if "Source" in ix and ix["Source"] < len(r) else ""
            if "LDGSTS" not in src:
                continue

            def col(h):
                return num(r[ix[h]]) if h in ix and ix[h] < len(r) else None
            out[label] = {"sp_wf": col("L1 Wavefronts Shared"), "ideal": col("L1 Wavefronts Shared Ideal"),
                          "tags": col("L1 Tag Requests Global"), "sp_sectors": col("L2 Theoretical Sectors Global")}
    return out


# ------------------------------------------------------------------ LDGSTS
def gbyte(a):
    w = (a // 4) | 0x00800000
    return (w >> (8 * (a % 4))) & 0xFF


def expected_words(p):
    """{byte offset: word} the dump should show (sentinel 0xEE in untouched bytes of a touched
    word); lanes on one destination: the highest lane's copy stays."""
    k = p["kind"].split(".")
    w, z = int(k[1]), "z" in k[2:]
    mem = {}
    for l in range(32):
        if p["d"][l] < 0:
            continue
        n = p["z"][l] if z else w
        for i in range(w):
            mem[p["d"][l] + i] = gbyte(p["s"][l] + i) if i < n else 0
    words = {}
    for b in {x - x % 4 for x in mem}:
        v = 0
        for i in range(4):
            v |= mem.get(b + i, 0xEE) << (8 * i)
        words[b] = v
    return words


def ldgsts(files, pats, preds, outdir, notes):
    meas = {}
    for fn in sorted(files):
        if re.fullmatch(r"ncu_ldgsts_\d+\.csv", fn):
            for name, kind, v in ncu_rows(files[fn], fn, notes):
                meas[name] = v
    sp = {}
    for fn in sorted(files):
        if re.fullmatch(r"source_\w+\.csv", fn):
            sp.update(source_page(files[fn]))
    ctl = {}
    for name, v in meas.items():
        if name.startswith("ctl_"):
            ctl[pats[name]["kind"]] = v
    for name, v in meas.items():
        c = ctl.get(pats[name]["kind"], {})
        if v.get("hw_total") is not None and c.get("hw_total") is not None:
            v["hw_wf"] = v["hw_total"] - c["hw_total"]
        if v.get("bank_writes") is not None and c.get("bank_writes") is not None:
            v["bank_writes_net"] = v["bank_writes"] - c["bank_writes"]
    # functional
    got, seen = {}, []
    for l in files.get("dump_ldgsts.txt", "").splitlines():
        f = l.split()
        if len(f) >= 4 and f[0] == "W":
            got.setdefault(f[1], {})[int(f[2])] = int(f[3], 16)
        elif len(f) >= 2 and f[0] == "L":
            seen.append(f[1])
    func = {}
    for name in seen:
        want = expected_words(pats[name])
        g = got.get(name, {})
        bad = sum(1 for b in set(want) | set(g) if want.get(b) != g.get(b))
        func[name] = "ok" if bad == 0 else f"{bad} words differ"
    rows = []
    for name in pats:
        if name not in meas:
            continue
        m, p = meas[name], preds.get(name, {})
        r = {"name": name, "kind": pats[name]["kind"], "dst": p.get("dst"), "src": p.get("src"), "size": p.get("size")}
        for k in FIVE:
            r[k] = m.get(k)
            r["p_" + k] = num(p.get(k, ""))
        for k in ("ideal", "tags"):
            r[k] = sp.get(name, {}).get(k)
            r["p_" + k] = num(p.get(k, ""))
        for k in ("d2_sass_wf", "d2_hw_wf"):
            r[k] = num(p.get(k, ""))
        r["bank_writes_net"] = m.get("bank_writes_net")
        r["n_ldgsts"] = m.get("n_ldgsts")
        r["exact5"] = all(r[k] == r["p_" + k] for k in FIVE) if not name.startswith("ctl_") else None
        r["func"] = func.get(name, "")
        rows.append(r)
    by = {r["name"]: r for r in rows}
    for r in rows:   # the zero-fill increment over the same addresses without src-size
        if r["name"].startswith("z_"):
            f = r["name"].split("_")
            ref = by.get(f"n_{f[1].rstrip('z')}_{f[2]}_{f[3]}")
            for k in ("sass_wf", "hw_wf"):
                r["inc_" + k] = (r[k] - ref[k]) if ref and r[k] is not None and ref[k] is not None else None
    cols = ["name", "kind", "dst", "src", "size"] + [x for k in FIVE for x in (k, "p_" + k)] + \
        ["ideal", "p_ideal", "tags", "p_tags", "d2_sass_wf", "d2_hw_wf", "inc_sass_wf", "inc_hw_wf",
         "bank_writes_net", "n_ldgsts", "exact5", "func"]
    with open(os.path.join(outdir, "ldgsts_table.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join("" if r.get(c) is None else str(r.get(c)) for c in cols) + "\n")
    # groups
    lines = []

    def group(title, keyf):
        lines.append(f"== {title}: exact (all five) | sass_wf exact, mean measured-predicted | hw_wf exact, mean"
                     " | d2 sass_wf exact")
        gs = {}
        for r in rows:
            if r["name"].startswith("ctl_"):
                continue
            gs.setdefault(keyf(r), []).append(r)
        for k in sorted(gs, key=str):
            rs = gs[k]

            def stat(a, b):
                xs = [(r[a], r[b]) for r in rs if r[a] is not None and r[b] is not None]
                if not xs:
                    return "-"
                ex = sum(1 for x, y in xs if x == y)
                return f"{ex}/{len(xs)} {sum(x - y for x, y in xs) / len(xs):+.1f}"
            lines.append(f"  {str(k):34} {sum(1 for r in rs if r['exact5'])}/{len(rs):<3} | {stat('sass_wf', 'p_sass_wf'):12} | "
                         f"{stat('hw_wf', 'p_hw_wf'):12} | {stat('sass_wf', 'd2_sass_wf')}")
    group("kind x size", lambda r: (r["kind"], r["size"]))
    group("kind x destination (.z, half)", lambda r: (r["kind"], r["dst"]) if r["size"] == "half" else ("(other)",))
    group("kind x source (.z, half)", lambda r: (r["kind"], r["src"]) if r["size"] == "half" else ("(other)",))
    group("kind x source (.z, zero)", lambda r: (r["kind"], r["src"]) if r["size"] == "zero" else ("(other)",))
    group("references without src-size", lambda r: (r["kind"], r["dst"]) if r["size"] == "nosize" else ("(other)",))
    lines.append("== the controls (all lanes inactive): the kernel's own hardware wavefronts and bank writes")
    for k, v in sorted(ctl.items()):
        lines.append(f"  {k:8} hw_total {v.get('hw_total')} bank_writes {v.get('bank_writes')} sass_wf {v.get('sass_wf')}")
    with open(os.path.join(outdir, "ldgsts_groups.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return rows


# ------------------------------------------------------------------ TMA
SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128}


def tma_offset(row, q, inner, swz, base=0):
    """calibration/probes/tensor_smem/model.py tma_offset: byte offset in the tile."""
    span = SPAN[swz]
    if not span:
        return row * inner + q
    o = base + row * span + q
    b = {32: 1, 64: 2, 128: 3}[span]
    return (o ^ (((o >> 7) & ((1 << b) - 1)) << 4)) - base


def load_cases(path):
    cases = {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        c = {"name": f[0], "dtype": f[1], "rank": int(f[2]), "D": [int(x) for x in f[3:6]],
             "P": [int(x) for x in f[6:8]], "B": [int(x) for x in f[8:11]], "swz": f[11],
             "toff": int(f[12]), "c": [int(x) for x in f[13:16]]}
        c["es"] = 4 if c["dtype"] == "u32" else 2
        cases[c["name"]] = c
    return cases


def predictions(c, mode):
    """(H0, H1) for a case and mode: 'run' or 'fault' (PREDICTION.md)."""
    es, D, B, cc = c["es"], c["D"], c["B"], c["c"]
    if (cc[0] * es) % 16:
        return "fault", "fault"
    neg = any(x < 0 for x in cc[:c["rank"]])
    if neg:
        return ("run" if mode == "L" else "fault"), "fault"
    return "run", "run"


def elem_index(c, g):
    """the element index (in elements from the base) of box coordinate g, None if out of bounds."""
    if any(g[d] < 0 or g[d] >= c["D"][d] for d in range(c["rank"])):
        return None
    byte = g[0] * c["es"] + (g[1] * c["P"][0] if c["rank"] > 1 else 0) + (g[2] * c["P"][1] if c["rank"] > 2 else 0)
    return byte // c["es"]


def linear_index(c, g):
    """the element index without any bounds check (address arithmetic only)."""
    byte = g[0] * c["es"] + (g[1] * c["P"][0] if c["rank"] > 1 else 0) + (g[2] * c["P"][1] if c["rank"] > 2 else 0)
    return byte // c["es"]


def in_value(c, idx):
    return (0x40000000 + idx) & 0xFFFFFFFF if c["es"] == 4 else (0x2000 + idx) & 0xFFFF


def box_elems(c):
    B = c["B"]
    for k2 in range(B[2] if c["rank"] > 2 else 1):
        for k1 in range(B[1] if c["rank"] > 1 else 1):
            for k0 in range(B[0]):
                yield (k0, k1, k2)


def tile_elem(tile, c, k):
    """the element at box position k in the dumped tile ({byte: word}), None if not dumped."""
    es, B = c["es"], c["B"]
    off = tma_offset(k[1] + k[2] * B[1], k[0] * es, B[0] * es, c["swz"], c["toff"] % 1024)
    w = tile.get(off - off % 4)
    if w is None:
        return None
    return w if es == 4 else (w >> (8 * (off % 4))) & 0xFFFF


def check_tile(tile, c):
    """which rule the loaded tile follows: ptx (out-of-bounds elements 0), nocheck (every element
    read at its linear address, bounds ignored), allzero; else the number of elements that differ
    from ptx."""
    rules = {"ptx": 0, "nocheck": 0, "allzero": 0}
    n = 0
    for k in box_elems(c):
        g = [c["c"][d] + k[d] for d in range(3)]
        v = tile_elem(tile, c, k)
        n += 1
        i = elem_index(c, g)
        want = {"ptx": in_value(c, i) if i is not None else 0, "nocheck": in_value(c, linear_index(c, g)), "allzero": 0}
        for r in rules:
            rules[r] += v != want[r]
    ok = [r for r in ("ptx", "nocheck", "allzero") if rules[r] == 0]
    oob = sum(1 for k in box_elems(c) if elem_index(c, [c["c"][d] + k[d] for d in range(3)]) is None)
    if ok:
        return f"{'=' + '/'.join(ok)} ({oob} of {n} elements out of bounds)"
    return f"ptx: {rules['ptx']} of {n} differ (nocheck {rules['nocheck']}, allzero {rules['allzero']}; {oob} out of bounds)"


def check_store(gl, c, tile):
    """the output tensor after the store against PTX: the in-bounds elements of the box hold the
    tile's elements, nothing else written."""
    want = {}
    for k in box_elems(c):
        i = elem_index(c, [c["c"][d] + k[d] for d in range(3)])
        if i is None:
            continue
        want[i] = tile_elem(tile, c, k)
    missing = sum(1 for i, v in want.items() if gl.get(i) != v)
    extra = [i for i in gl if i not in want]
    before = sum(1 for i in extra if i < 0)
    s = f"{len(gl)} written, {len(want)} expected"
    if missing == 0 and not extra:
        return "=ptx (" + s + ")"
    return f"{s}: {missing} expected not as expected, {len(extra)} outside the box's in-bounds part ({before} before the base)"


def tma(files, cases, outdir):
    rcs = {}
    for l in files.get("tma_rc.txt", "").splitlines():
        f = l.split()
        if len(f) >= 3:
            rcs[(f[0], f[1])] = f[2]
    rows = []
    for fn in sorted(files):
        m = re.fullmatch(r"tma/(\S+)_(L|S|LS)\.txt", fn)
        if not m or m.group(1) not in cases:
            continue
        name, mode = m.group(1), m.group(2)
        c = cases[name]
        out, echo, tile, gl = "missing", "", {}, {}
        for l in files[fn].splitlines():
            f = l.split()
            if not f:
                continue
            if f[0] == "C" and len(f) >= 4:
                out = f[3] if f[3] in ("ran", "hang") else " ".join(f[3:])
            elif f[0] == "K" and len(f) >= 6:
                echo = "ok" if [int(x) for x in f[3:6]] == c["c"] else "differs: " + " ".join(f[3:6])
            elif f[0] == "T":
                for j, x in enumerate(f[4:]):
                    tile[int(f[3]) + 4 * j] = int(x, 16)
            elif f[0] == "G":
                e0 = int(f[3])
                for j, x in enumerate(f[4:]):
                    if int(x, 16):
                        gl[e0 + j] = int(x, 16)
        rc = rcs.get((name, mode), "")
        if out == "missing" and rc == "124":
            out = "timeout"
        h0, h1 = predictions(c, mode)
        kind = "run" if out == "ran" else "fault" if out.startswith("fault") else out.split()[0]
        tcheck = check_tile(tile, c) if tile and mode in ("L", "LS") and out == "ran" else ""
        if mode == "S":
            st = {}
            for i in range(8192):
                st_off = 4 * i
                st[st_off] = 0x50000000 + i if c["es"] == 4 else ((0x4000 + 2 * i + 1) << 16) | (0x4000 + 2 * i)
            scheck = check_store(gl, c, st) if out == "ran" else ""
        else:
            scheck = check_store(gl, c, tile) if mode == "LS" and out == "ran" else ""
        rows.append({"name": name, "mode": mode, "coords": ",".join(str(x) for x in c["c"][:c["rank"]]),
                     "outcome": out, "rc": rc, "h0": h0, "h1": h1, "h0_ok": kind == h0, "h1_ok": kind == h1,
                     "echo": echo, "tile": tcheck, "store": scheck})
    order = {"L": 0, "S": 1, "LS": 2}
    rows.sort(key=lambda r: (order[r["mode"]], list(cases).index(r["name"])))
    cols = ["name", "mode", "coords", "outcome", "rc", "h0", "h1", "echo", "tile", "store"]
    with open(os.path.join(outdir, "tma_table.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(str(r[c]) for c in cols) + "\n")
    lines = []
    for mode in ("L", "S", "LS"):
        rs = [r for r in rows if r["mode"] == mode]
        if not rs:
            lines.append(f"{mode}: not run")
            continue
        cnt = {}
        for r in rs:
            k = "ran" if r["outcome"] == "ran" else "fault" if r["outcome"].startswith("fault") else r["outcome"]
            cnt[k] = cnt.get(k, 0) + 1
        negal = [r for r in rs if any(int(x) < 0 for x in r["coords"].split(",")) and
                 (int(r["coords"].split(",")[0]) * cases[r["name"]]["es"]) % 16 == 0]
        nr = sum(1 for r in negal if r["outcome"] == "ran")
        lines.append(f"{mode}: {len(rs)} cases: " + ", ".join(f"{k} {v}" for k, v in sorted(cnt.items())) +
                     f"; negative, innermost 16B-aligned: ran {nr} of {len(negal)}; H0 right {sum(r['h0_ok'] for r in rs)}"
                     f"/{len(rs)}, H1 right {sum(r['h1_ok'] for r in rs)}/{len(rs)}")
        ptx = sum(1 for r in rs if r["tile"].startswith("=ptx") or r["store"].startswith("=ptx"))
        chk = sum(1 for r in rs if r["tile"] or r["store"])
        if chk:
            lines.append(f"   tile/store as PTX says (out-of-bounds elements 0 / not written): {ptx} of {chk} checked")
        faults = sorted({r["outcome"] for r in rs if r["outcome"].startswith("fault")})
        for t in faults[:3]:
            lines.append(f"   {t[:90]}")
    with open(os.path.join(outdir, "tma_summary.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return rows, lines


# ------------------------------------------------------------------ SASS
EXPECT_C = {
    20: r"LDGSTS\.E$", 21: r"LDGSTS\.E\.64$", 22: r"LDGSTS\.E(\.LTC128B)?\.128$",
    23: r"LDGSTS\.E\.BYPASS(\.LTC128B)?\.128$", 24: r"LDGSTS\.E\.ZFILL$", 25: r"LDGSTS\.E\.64\.ZFILL$",
    26: r"LDGSTS\.E(\.LTC128B)?\.128\.ZFILL$", 27: r"LDGSTS\.E\.BYPASS(\.LTC128B)?\.128\.ZFILL$",
}


def sass(paths):
    funcs, cur = {}, None
    for p in paths:
        for line in open(p, errors="replace"):
            m = re.search(r"Function : (\S+)", line)
            if m:
                cur = m.group(1)
                funcs[cur] = []
                continue
            m = re.search(r"\*/\s+(@!?U?P\w+\s+)?([A-Z][\w.]*)", line)
            if cur and m and re.match(r"(LDGSTS|LDGDEPBAR|DEPBAR|UTMA|SYNCS|FENCE)", m.group(2)):
                if not (m.group(1) or "").startswith("@!PT"):
                    funcs[cur].append(m.group(2))
    bad = 0
    for f, ops in funcs.items():
        k = re.search(r"ILi(\d+)E", f)
        want = []
        if f.startswith("_Z5one_c") and k:
            want = [EXPECT_C[int(k.group(1))], r"LDGDEPBAR$"]
        elif "tma_neg_k" in f:
            want = [r"UTMALDG\.2D", r"UTMALDG\.3D", r"UTMASTG\.2D", r"UTMASTG\.3D", r"SYNCS\.ARRIVE"]
        for w in want:
            hit = [o for o in ops if re.match(w, o)]
            print(f"{'ok     ' if hit else 'MISSING'} {f[:40]} {hit[0] if hit else w}")
            bad += not hit
        print(f"   {f[:40]}: " + " ".join(sorted(set(ops))))
    print(f"sass_check: {len(funcs)} kernels, {bad} expected instructions missing")


# ------------------------------------------------------------------ main
def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "sass":
        return sass(sys.argv[2:])
    src = sys.argv[1]
    outdir = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else \
        os.path.join(src if os.path.isdir(src) else os.path.dirname(os.path.abspath(src)), "tables")
    os.makedirs(outdir, exist_ok=True)
    files = open_src(src)
    pats = predict.load_patterns()
    preds = {}
    with open(os.path.join(HERE, "predictions.tsv")) as f:
        for r in csv.DictReader(f, delimiter="\t"):
            preds[r["name"]] = r
    notes = []
    rows = ldgsts(files, pats, preds, outdir, notes)
    cases = load_cases(os.path.join(HERE, "tma_cases.txt"))
    trows, tlines = tma(files, cases, outdir)
    act = [r for r in rows if not r["name"].startswith("ctl_")]
    print("TMA (H0: a load with a negative coordinate runs and zero-fills, a store faults; H1: both fault):")
    for l in tlines[:9]:
        print("  " + l[:118])
    print(f"LDGSTS: {len(rows)}/{len(pats)} launches measured; warpsim exact on all five: "
          f"{sum(1 for r in act if r['exact5'])}/{len(act)} (exact sass_wf/bc/sectors/hw_wf/hw_bc)")
    for kind in ("ca.4.z", "ca.8.z", "ca.16.z", "cg.16.z", "ca.4", "ca.8", "ca.16", "cg.16"):
        rs = [r for r in act if r["kind"] == kind]
        if not rs:
            continue
        s = "/".join(str(sum(1 for r in rs if r[k] is not None and r[k] == r["p_" + k])) for k in FIVE)
        d = [r["sass_wf"] - r["p_sass_wf"] for r in rs if r["sass_wf"] is not None]
        print(f"  {kind:7} {len(rs):3}: {s}; sass_wf meas-pred max {max(d) if d else '-'}")
    fun = [r for r in rows if r["func"]]
    if fun:
        print(f"  words as expected (dump): {sum(1 for r in fun if r['func'] == 'ok')}/{len(fun)}")
    for n in notes[:3]:
        print("  note:", n[:100])
    print(f"tables: {os.path.relpath(outdir)}")


if __name__ == "__main__":
    main()
