#!/usr/bin/env python3
"""Predictions for every pattern of patterns.txt and tma_patterns.txt, written before the device
call: predictions.tsv (one row per launch; wavefronts/bank conflicts under each hypothesis) and
warpsim_trace.txt (the same accesses as `warpsim access` lines: what today's warpsim can price).

Columns of predictions.tsv:
  name kind   pattern and PTX kind (TMA rows: cfg:mode)
  nat_wf nat_bc   the natural rule (H1 for ldsm/stsm, G1 for cp.async, the house rule for
                  lds/sts, T1 for TMA rows: the read-back's cost, the copy itself 0)
  H1..H4 / G1..G4 `wf/bc` under each hypothesis (rules.py)
  warpsim_wf warpsim_bc   `warpsim access` on the store/load-equivalent line (ldsm/stsm: ld/st
                  16 bytes over the used lanes = H2; cp.async: st of the copy width = G1;
                  lds/sts.128: ld/st 16; TMA rows: the read-back as ld 16 / ld 4, the copy
                  itself nothing), empty where warpsim cannot price it (risky_*: misaligned)
  agree       `yes` when all hypotheses give the same wavefronts (the pattern cannot decide them)
"""
import os
import subprocess
import sys

from rules import (CP_HYPS, MAT_HYPS, house, h1_matrix_phases, mat_kind)

HERE = os.path.dirname(os.path.abspath(__file__))
WARPSIM = os.environ.get("WARPSIM", "/work/bin/warpsim")


def load():
    pats = []
    for line in open(os.path.join(HERE, "patterns.txt")):
        f = line.split()
        name, kind = f[0], f[1]
        offs = [int(v) for v in f[2:34]]
        src = [int(v) for v in f[34:66]] if kind.startswith(("ca.", "cg.")) else None
        pats.append((name, kind, offs, src))
    tma = []
    for line in open(os.path.join(HERE, "tma_patterns.txt")):
        f = line.split()
        tma.append((f[0], f[1], f[2], [int(v) for v in f[5:37]]))
    return pats, tma


def main():
    pats, tma = load()
    rows = []
    trace = []
    for name, kind, offs, src in pats:
        if kind.startswith(("ldsm", "stsm")):
            op, n, _ = mat_kind(kind)
            if name.startswith("risky_") and any(o >= 65536 or o % 16 for o in offs[:8 * n]):
                hyps = {h: None for h, _ in MAT_HYPS}
            else:
                hyps = {h: f(offs, kind) if not name.startswith("risky_") or h != "H3" else None
                        for h, f in MAT_HYPS}
            nat = hyps["H1"]
            trace.append((name, f"{name} {op} 16 " + " ".join(str(o if l < 8 * n else -1) for l, o in enumerate(offs))))
        elif kind.startswith(("lds", "sts")):
            op = "ld" if kind.startswith("lds") else "st"
            wf, bc, _ = house(offs, 16, op)
            nat = (wf, bc)
            hyps = {}
            trace.append((name, f"{name} {op} 16 " + " ".join(str(o) for o in offs)))
        else:
            w = int(kind.split(".")[1])
            hyps = {h: f(offs, src, kind) for h, f in CP_HYPS}
            nat = hyps["G1"]
            trace.append((name, f"{name} st {w} " + " ".join(str(o) for o in offs)))
        rows.append([name, kind, nat, hyps])
    for name, cfg, mode, offs in tma:
        if "ldsm" in mode:
            nat = h1_matrix_phases(offs, "ldsm.x4")
            trace.append((name, f"{name} ld 16 " + " ".join(map(str, offs))))
        elif "lds128" in mode:
            nat = house(offs, 16, "ld")[:2]
            trace.append((name, f"{name} ld 16 " + " ".join(map(str, offs))))
        elif "lds32" in mode:
            nat = house(offs, 4, "ld")[:2]
            trace.append((name, f"{name} ld 4 " + " ".join(map(str, offs))))
        else:
            nat = (0, 0)
        rows.append([name, f"{cfg}:{mode}", nat, {}])

    ws = run_warpsim(trace)
    hnames = [h for h, _ in MAT_HYPS] + [h for h, _ in CP_HYPS]
    with open(os.path.join(HERE, "predictions.tsv"), "w") as f:
        f.write("\t".join(["name", "kind", "nat_wf", "nat_bc"] + hnames + ["warpsim_wf", "warpsim_bc", "agree"]) + "\n")
        for name, kind, nat, hyps in rows:
            cells = []
            for h in hnames:
                v = hyps.get(h)
                cells.append("" if v is None else f"{v[0]}/{v[1]}")
            wfs = {v[0] for v in hyps.values() if v is not None}
            agree = "yes" if len(wfs) <= 1 else "no"
            w = ws.get(name)
            nat_s = ["", ""] if nat is None else [str(nat[0]), str(nat[1])]
            f.write("\t".join([name, kind] + nat_s + cells + ([str(w[0]), str(w[1])] if w else ["", ""]) + [agree]) + "\n")
    with open(os.path.join(HERE, "warpsim_trace.txt"), "w") as f:
        f.write("# the probe's accesses as `warpsim access` lines (ldsm/stsm: ld/st 16 over the used\n"
                "# lanes; cp.async: st of the copy width), written by predict.py\n")
        for name, line in trace:
            if not name.startswith("risky_"):
                f.write(line + "\n")
    # the house rule of rules.py against warpsim on the same lines
    bad = 0
    for name, line in trace:
        if name in ws:
            f_ = line.split()
            offs = [int(v) for v in f_[3:35]]
            mine = house(offs, int(f_[2]), f_[1])[:2]
            if tuple(mine) != tuple(ws[name]):
                bad += 1
                print("warpsim differs from rules.house:", name, mine, ws[name], file=sys.stderr)
    print(f"predictions.tsv: {len(rows)} rows; warpsim priced {len(ws)} lines, {bad} differ from rules.house")


def run_warpsim(trace):
    if not os.access(WARPSIM, os.X_OK):
        print(f"(no warpsim at {WARPSIM}: warpsim columns left empty)", file=sys.stderr)
        return {}
    text = "\n".join(line for name, line in trace if not name.startswith("risky_")) + "\n"
    r = subprocess.run([WARPSIM, "access", "-", "--format", "tsv"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        print("warpsim access failed:", r.stderr[:2000], file=sys.stderr)
        return {}
    out = {}
    lines = r.stdout.splitlines()
    hdr = lines[0].split("\t")
    iw, ib = hdr.index("wavefronts"), hdr.index("bank_conflicts")
    for line in lines[1:]:
        f = line.split("\t")
        if len(f) > max(iw, ib):
            out[f[0]] = (int(f[iw]), int(f[ib]))
    return out


if __name__ == "__main__":
    main()
