#!/usr/bin/env python3
"""The draw's raw output -> tables (standard library only; runs on the device too).

usage: parse.py SRC OUTDIR
  SRC     tensor_smem_draw2.tar.gz as it came back, or the unpacked tensor_smem_draw2/ folder
writes OUTDIR/
  measured.tsv     one row per profiled launch: name, kind, group, every counter collected (the
                   first call's short names: calibration/probes/tensor_smem/parse.py SHORT);
                   TMA launches of the load-only pass are named NAME@load
  functional.tsv   name, what, the measured hash (expect.py's canonical forms), and the TMA
                   store's check or a fault
  source_page.tsv  the Source page rows of the srcpage launches (as the first call's)"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import expect  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
import parse as p1  # noqa: E402  (the first call's parser: open_src, ncu_rows, source_page)


def measured(files, pats, outdir):
    rows = []
    for path in sorted(files):
        m = re.fullmatch(r"ncu_(mat|cp|tma_full|tma_load|mbar|risky|risky_load)(_\d+)?\.csv", os.path.basename(path))
        if not m:
            continue
        group = {"tma_full": "tma", "tma_load": "tma", "risky_load": "risky"}.get(m.group(1), m.group(1))
        for name, kind, g, v in p1.ncu_rows(files[path], group, path):
            if m.group(1) in ("tma_load", "risky_load"):
                name += "@load"
            base = name.split("@")[0]
            rows.append((name, pats[base]["kind"] if base in pats else kind, g, v))
    cols = []
    for _, _, _, v in rows:
        for c in v:
            if c not in cols:
                cols.append(c)
    cols.sort()
    with open(os.path.join(outdir, "measured.tsv"), "w") as f:
        f.write("\t".join(["name", "kind", "group"] + cols) + "\n")
        for name, kind, group, v in rows:
            f.write("\t".join([name, kind, group] + [num(v.get(c, "")) for c in cols]) + "\n")
    return rows


def num(x):
    try:
        f = float(x)
        return str(int(f)) if f == int(f) else x
    except ValueError:
        return x


def functional(files, pats, outdir):
    out = []
    for fn in sorted(files):
        if not (fn in ("dump_mat.txt", "dump_cp.txt", "dump_tma.txt") or (fn.startswith("risky/") and fn.endswith("_dump.txt"))):
            continue
        regs, words, tiles, glines, seen = {}, {}, {}, {}, []
        for l in files[fn].splitlines():
            f = l.split()
            if not f:
                continue
            if f[0] == "L":
                seen.append(f[1])
            elif f[0] == "R":
                regs.setdefault(f[1], {})[int(f[2])] = [int(x, 16) for x in f[3:7]]
            elif f[0] == "W":
                words.setdefault(f[1], {})[int(f[2])] = int(f[3], 16)
            elif f[0] == "T":
                for j, x in enumerate(f[3:]):
                    tiles.setdefault(f[1], {})[int(f[2]) + 4 * j] = int(x, 16)
            elif f[0] == "G":
                glines[f[1]] = " ".join(f[2:])
            elif f[0] in ("E", "S"):
                out.append((fn, "error" if f[0] == "E" else "skipped", " ".join(f[1:])))
        for name in seen:
            p = pats.get(name)
            if p is None:
                continue
            k = p["kind"]
            if k.startswith("ldsm"):
                n = int(k.split(".")[1][1:])
                r = regs.get(name, {})
                s = " ".join("%08x" % r.get(t, [0] * 4)[i] for t in range(32) for i in range(n))
                out.append((name, "regs", expect.h(s)))
            elif k.startswith(("stsm", "ca.", "cg.")):
                w = words.get(name, {})
                s = " ".join("%d:%08x" % (off, w[off]) for off in sorted(w))
                out.append((name, "words", expect.h(s)))
            elif k == "tma":
                t = tiles.get(name, {})
                s = " ".join("%d:%08x" % (off, t[off]) for off in sorted(t))
                out.append((name, "tile", expect.h(s)))
                r = regs.get(name, {})
                s = " ".join("%08x" % r.get(tt, [0] * 4)[i] for tt in range(32) for i in range(4))
                out.append((name, "tma_regs", expect.h(s)))
                if name in glines:
                    out.append((name, "store", glines[name]))
    with open(os.path.join(outdir, "functional.tsv"), "w") as f:
        f.write("name\twhat\tvalue\n")
        for row in out:
            f.write("\t".join(row) + "\n")
    return out


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    files = p1.open_src(src)
    pats = expect.load_patterns()
    rows = measured(files, pats, outdir)
    fun = functional(files, pats, outdir)
    sp = p1.source_page(files, outdir)
    groups = {}
    for _, _, g, _ in rows:
        groups[g] = groups.get(g, 0) + 1
    print("measured.tsv: " + ", ".join(f"{g} {n}" for g, n in sorted(groups.items())) + f" ({len(rows)} launches)")
    print(f"functional.tsv: {len(fun)} rows; source_page.tsv: {len(sp)} instruction rows")


if __name__ == "__main__":
    main()
