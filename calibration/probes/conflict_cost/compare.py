#!/usr/bin/env python3
"""measured.tsv (the H200, from parse.py) against predictions.tsv (warpsim, from predict.py, committed
before the run) -> compare.txt, and a short summary on stdout.

    python3 compare.py [MEASURED [PREDICTIONS [OUT]]]   (defaults: this folder's files)

Sections of compare.txt (README.md, "How to read the output"):
  1. conflict steps: the same kernel conflicted / conflict-free (SM-active ratio, H200 and model);
  2. every launch: model / H200 for elapsed and SM-active cycles and issued warp instructions;
  3. the one-level probes (lvl): cycles per repetition a conflict adds, H200 against the model and
     against the rules H1 (a warp's shared instructions served one after another), H2 (a barrier
     waits for the warp's shared stores to be written), H4 (a load waits for the warp's
     earlier store), per slice;
  4. idle warps (predicated-off shared instructions), blocks per SM, chains, barriers;
  5. the `%` loop and the many-wave overlap.
Standard library only.
"""

import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(path) as f:
        return {r["label"]: r for r in csv.DictReader(f, delimiter="\t")}


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


class Data:
    def __init__(self, meas, pred):
        self.m, self.p = meas, pred

    def sm(self, label, who):
        """SM-active cycles: the busiest SM for one-block launches, else the average."""
        r = (self.m if who == "h" else self.p).get(label)
        if r is None:
            return None
        if r.get("grid") == "1" or r.get("grid") == 1:
            return f(r.get("sm_active_cycles_max")) or f(r.get("sm_active_cycles_avg"))
        return f(r.get("sm_active_cycles_avg"))

    def get(self, label, who, col):
        r = (self.m if who == "h" else self.p).get(label)
        return f(r.get(col)) if r else None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def s(x, nd=3):
    if x is None:
        return "-"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:.{nd}f}"
    return f"{int(x):,}"


STEPS = []
for B in (128, 256, 1024):
    for g in ("g1", "wave", "n4M"):
        STEPS += [(f"reduce1_b{B}_{g}", f"reduce2_b{B}_{g}", "Harris reduce1 -> reduce2 (index + banks)"),
                  (f"reduce1p_pad0_b{B}_{g}", f"reduce1p_pad1_b{B}_{g}", "reduce1p banks only (same SASS)"),
                  (f"reduce0_b{B}_{g}", f"reduce1_b{B}_{g}", "Harris reduce0 -> reduce1"),
                  (f"reduce2_b{B}_{g}", f"reduce3_b{B}_{g}", "Harris reduce2 -> reduce3")]
for n in (512, 1024, 2048):
    for g in ("g1", "wave", "w8"):
        STEPS += [(f"scan_cf0_n{n}_{g}", f"scan_cf1_n{n}_{g}", "Blelloch scan -> CONFLICT_FREE_OFFSET"),
                  (f"scan_rt0_n{n}_{g}", f"scan_rt1_n{n}_{g}", "scan banks only (same SASS)")]
for B in (64, 256, 1024):
    for g in ("g1", "full"):
        STEPS += [(f"t1y1_pad0_b{B}_{g}_r8", f"t1y1_pad1_b{B}_{g}_r8", "tree strided, barriers: banks only"),
                  (f"t1y0_pad0_b{B}_{g}_r8", f"t1y0_pad1_b{B}_{g}_r8", "tree strided, no barriers: banks only"),
                  (f"t1y1_pad1_b{B}_{g}_r8", f"t0y1_b{B}_{g}_r8", "tree padded strided -> sequential")]
for g in ("g1", "full"):
    STEPS.append((f"t1y1c8_pad0_b256_{g}_r8", f"t1y1c8_pad1_b256_{g}_r8", "tree + 8 FFMA chain: banks only"))
STEPS.append(("t1y1_pad0_b256_n4M_r1", "t1y1_pad1_b256_n4M_r1", "tree once, 16384 blocks: banks only"))


def steps(d, out):
    out.append("## 1. Conflict steps: SM-active cycles conflicted / conflict-free (H200, model; points = 100 x difference)")
    out.append("| conflicted | conflict-free | what | H200 | model | model - H200 (points) | H200 cycles | model cycles |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    diffs = []
    for a, b, what in STEPS:
        ha, hb, pa, pb = d.sm(a, "h"), d.sm(b, "h"), d.sm(a, "p"), d.sm(b, "p")
        if pa is None and ha is None:
            continue
        rh, rp = ratio(ha, hb), ratio(pa, pb)
        pts = 100 * (rp - rh) if rh is not None and rp is not None else None
        if pts is not None:
            diffs.append((what, pts))
        out.append(f"| {a} | {b} | {what} | {s(rh)} | {s(rp)} | {s(pts, 1)} | "
                   f"{s(ha)} / {s(hb)} | {s(pa)} / {s(pb)} |")
    return diffs


def launches(d, out):
    out.append("\n## 2. Every launch: model / H200")
    out.append("| label | elapsed H200 | model/H200 | SM active H200 | model/H200 | issued H200 | model/H200 |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    logs = {"elapsed": [], "sm": [], "inst": []}
    for label, p in d.p.items():
        if label not in d.m:
            continue
        he, pe = d.get(label, "h", "elapsed_cycles"), d.get(label, "p", "elapsed_cycles")
        hs, ps = d.sm(label, "h"), d.sm(label, "p")
        hi, pi = d.get(label, "h", "inst_executed"), d.get(label, "p", "issued_warp_instructions")
        re_, rs, ri = ratio(pe, he), ratio(ps, hs), ratio(pi, hi)
        for k, v in (("elapsed", re_), ("sm", rs), ("inst", ri)):
            if v:
                logs[k].append(abs(math.log(v)))
        out.append(f"| {label} | {s(he)} | {s(re_, 2)} | {s(hs)} | {s(rs, 2)} | {s(hi)} | {s(ri, 2)} |")
    for k, v in logs.items():
        if v:
            out.append(f"{k}: mean |log(model/H200)| {sum(v) / len(v):.3f} over {len(v)} launches")
    return logs


def lvl_label(kind, w, a, n, k=1, r=64):
    nld, st, ch, y, dep = kind
    return f"lvl{nld}{st}c{ch}y{y}d{dep}_w{w}_a{a}_n{n}_k{k}_r{r}"


# Rules for the cycles per repetition that an N-way conflict adds over N = 1, one warp alone
# (README.md, "Hypotheses"). H0 is the model as it stands, worked by hand for a warp alone; the
# model's own numbers are its prediction column.
def rules(kind, n):
    nld, st, ch, y, dep = kind
    e = n - 1
    if kind == (1, 0, 0, 0, 1):      # dependent load chain
        return {"H0": 2 * e, "H1": 2 * e, "H2": 2 * e, "H4": 2 * e}
    if kind == (2, 0, 0, 0, 1):      # two loads, then their sum feeds the next pair's address
        return {"H0": 2 * e, "H1": 4 * e, "H2": 2 * e, "H4": 2 * e}
    if kind == (4, 0, 0, 0, 1):
        return {"H0": 4 * e, "H1": 8 * e, "H2": 4 * e, "H4": 4 * e}
    if kind == (1, 1, 0, 0, 1):      # load, store to it, the next load depends on the value
        return {"H0": 2 * e, "H1": 4 * e, "H2": 2 * e, "H4": 4 * e}
    if kind == (0, 1, 0, 0, 0):      # stores alone: 2 servers x 2N cycles, one issue per ~4 cycles
        return {"H0": max(0, n - 4), "H1": max(0, 2 * n - 4), "H2": max(0, n - 4), "H4": max(0, n - 4)}
    if kind == (0, 1, 0, 1, 0):      # a store and a barrier (14.65 cycles for one warp)
        return {"H0": max(0, n - 17), "H1": max(0, 2 * n - 17), "H2": 2 * e, "H4": max(0, n - 17)}
    if kind == (2, 1, 0, 1, 0):      # the level: two loads, add, store, barrier
        return {"H0": 2 * e, "H1": 4 * e, "H2": 4 * e, "H4": 2 * e, "H1+H2": 6 * e}
    return {}


def tree_levels(B):
    """Harris reduce1's levels for a block of B threads: (ways N, warps working W) per level."""
    out, st = [], 1
    while st < B:
        active = B // (2 * st)
        w = (active + 31) // 32
        n = 1
        for warp in range(w):
            lanes = [2 * st * t for t in range(warp * 32, min(warp * 32 + 32, active))]
            for off in (0, st):
                banks = {}
                for i in lanes:
                    banks.setdefault((i + off) % 32, set()).add(i + off)
                n = max(n, max(len(v) for v in banks.values()))
        out.append((n, w))
        st *= 2
    return out


def tree_rules(B):
    """Cycles a whole strided tree (one block alone on its SM) spends on its conflicts, by rule:
    per level the larger of a warp's own exposed time (H0 2(N-1), H1 or H2 4(N-1), H1+H2 6(N-1))
    and the pipe's 3 W (N-1) extra wavefronts at one a cycle."""
    lv = tree_levels(B)
    r = {}
    for name, k in (("H0", 2), ("H1", 4), ("H2", 4), ("H4", 2), ("H1+H2", 6)):
        r[name] = sum(max(k * (n - 1), 3 * w * (n - 1)) for n, w in lv)
    return r, lv


def hypotheses(path):
    """hypotheses.tsv: each rule's predicted numbers, written before the run (README.md)."""
    rows = ["probe\tlaunches (conflicted - N=1 or padded)\tunit\tH0\tH1\tH2\tH4\tH1+H2"]
    for kind in ANCHORS:
        for n in (2, 4, 8, 16, 32):
            rl = rules(kind, n)
            rows.append("\t".join([KIND_NAME[kind] + f", one warp, N={n}",
                                    f"{lvl_label(kind, 1, 1, n)} - {lvl_label(kind, 1, 1, 1)}",
                                    "cycles per repetition"] +
                                   [str(rl.get(k, "")) for k in ("H0", "H1", "H2", "H4", "H1+H2")]))
    for B in (64, 256, 1024):
        r, lv = tree_rules(B)
        rows.append("\t".join([f"strided tree B={B} alone (levels N,W: {lv})",
                                f"t1y1_pad0_b{B}_g1_r8 - t1y1_pad1_b{B}_g1_r8 (/8); "
                                f"reduce1p_pad0_b{B}_g1 - reduce1p_pad1_b{B}_g1",
                                "cycles per tree"] + [str(r[k]) for k in ("H0", "H1", "H2", "H4", "H1+H2")]))
    with open(path, "w") as fo:
        fo.write("\n".join(rows) + "\n")


ANCHORS = [(1, 0, 0, 0, 1), (2, 0, 0, 0, 1), (4, 0, 0, 0, 1), (1, 1, 0, 0, 1), (0, 1, 0, 0, 0),
           (0, 1, 0, 1, 0), (2, 1, 0, 1, 0)]
KIND_NAME = {(1, 0, 0, 0, 1): "load chain", (2, 0, 0, 0, 1): "2 loads -> sum",
             (4, 0, 0, 0, 1): "4 loads -> sum", (1, 1, 0, 0, 1): "load, store, load",
             (0, 1, 0, 0, 0): "stores", (0, 1, 0, 1, 0): "store + barrier",
             (2, 1, 0, 1, 0): "level (2 ld, add, st, bar)"}


def extra(d, who, kind, w, a, n, k=1, r=64):
    """Cycles per repetition an n-way conflict adds over the same launch at n = 1."""
    t, t1 = d.sm(lvl_label(kind, w, a, n, k, r), who), d.sm(lvl_label(kind, w, a, 1, k, r), who)
    if t is None or t1 is None:
        return None
    return (t - t1) / r


def per_rep(d, who, kind, w, a, n):
    """Cycles per repetition from the 64- and 16-repetition launches (where both ran)."""
    t64, t16 = d.sm(lvl_label(kind, w, a, n, 1, 64), who), d.sm(lvl_label(kind, w, a, n, 1, 16), who)
    return (t64 - t16) / 48 if t64 is not None and t16 is not None else None


def lvl(d, out):
    out.append("\n## 3. One warp alone: cycles per repetition an N-way conflict adds (over N = 1)")
    out.append("| probe | N | H200 | model | H0 | H1 serial | H2 bar waits st | H4 ld waits st | H1+H2 |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    score = {}
    for kind in ANCHORS:
        for n in (2, 4, 8, 16, 32):
            h, p = extra(d, "h", kind, 1, 1, n), extra(d, "p", kind, 1, 1, n)
            if h is None and p is None:
                continue
            rl = rules(kind, n)
            for name, v in rl.items():
                if h is not None:
                    score.setdefault(name, []).append(abs(v - h))
            if h is not None and p is not None:
                score.setdefault("model", []).append(abs(p - h))
            out.append(f"| {KIND_NAME[kind]} | {n} | {s(h, 1)} | {s(p, 1)} | " + " | ".join(
                s(float(rl.get(k)), 1) if k in rl else "-" for k in ("H0", "H1", "H2", "H4", "H1+H2")) + " |")
    if score:
        out.append("mean |rule - H200| (cycles per repetition): " + ", ".join(
            f"{k} {sum(v) / len(v):.1f}" for k, v in sorted(score.items())))
    out.append("\nCycles per repetition (64 - 16 repetitions) / 48:")
    out.append("| probe | warps | N | H200 | model |")
    out.append("| --- | --- | --- | --- | --- |")
    for kind, ws in (((2, 1, 0, 1, 0), (1, 8, 32)), ((1, 0, 0, 0, 1), (1,)), ((2, 0, 0, 0, 1), (1,))):
        for w in ws:
            for n in (1, 8, 32):
                h, p = per_rep(d, "h", kind, w, w, n), per_rep(d, "p", kind, w, w, n)
                if h is None and p is None:
                    continue
                out.append(f"| {KIND_NAME[kind]} | {w} | {n} | {s(h, 1)} | {s(p, 1)} |")

    out.append("\n## 4a. The level with W warps working: cycles per repetition an N-way conflict adds")
    out.append("(pipe-bound limit: 3 W (N - 1) wavefronts a repetition at one a cycle)")
    out.append("| W | N | H200 | model | 3W(N-1) |")
    out.append("| --- | --- | --- | --- | --- |")
    for w in (1, 2, 4, 8, 16, 32):
        for n in (2, 4, 8, 16, 32):
            h, p = extra(d, "h", (2, 1, 0, 1, 0), w, w, n), extra(d, "p", (2, 1, 0, 1, 0), w, w, n)
            if h is None and p is None:
                continue
            out.append(f"| {w} | {n} | {s(h, 1)} | {s(p, 1)} | {3 * w * (n - 1)} |")

    out.append("\n## 4b. Idle warps: W warps in the block, a working (the rest issue the level's "
               "shared instructions predicated off, in SASS): cycles per repetition")
    out.append("| W | a | N | H200 | model | H200 with W = a | model with W = a |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for w, acts, ns in ((8, (1, 2, 4), (1, 4, 8, 32)), (32, (1, 4, 16), (1, 8, 32))):
        for a in acts:
            for n in ns:
                lab, ref = lvl_label((2, 1, 0, 1, 0), w, a, n), lvl_label((2, 1, 0, 1, 0), a, a, n)
                out.append(f"| {w} | {a} | {n} | {s(ratio(d.sm(lab, 'h'), 64), 1)} | "
                           f"{s(ratio(d.sm(lab, 'p'), 64), 1)} | {s(ratio(d.sm(ref, 'h'), 64), 1)} | "
                           f"{s(ratio(d.sm(ref, 'p'), 64), 1)} |")

    out.append("\n## 4c. A dependent chain between the loads and the store (CHAIN FFMAs): extra per repetition")
    out.append("| chain | W | N | H200 | model |")
    out.append("| --- | --- | --- | --- | --- |")
    for ch in (0, 4, 16):
        for w in (1, 4, 32):
            for n in (8, 32):
                kind = (2, 1, ch, 1, 0)
                h, p = extra(d, "h", kind, w, w, n), extra(d, "p", kind, w, w, n)
                if h is None and p is None:
                    continue
                out.append(f"| {ch} | {w} | {n} | {s(h, 1)} | {s(p, 1)} |")

    out.append("\n## 4d. Without the barrier: extra per repetition (d1: the next loads wait for the value; d0: only for the store before them)")
    out.append("| probe | W | N | H200 | model | H200 with barrier | model with barrier |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for kind, ws in (((2, 1, 0, 0, 1), (1, 4, 8, 32)), ((2, 1, 0, 0, 0), (4, 32))):
        for w in ws:
            for n in (8, 32):
                h, p = extra(d, "h", kind, w, w, n), extra(d, "p", kind, w, w, n)
                hb, pb = extra(d, "h", (2, 1, 0, 1, 0), w, w, n), extra(d, "p", (2, 1, 0, 1, 0), w, w, n)
                out.append(f"| d{kind[4]} | {w} | {n} | {s(h, 1)} | {s(p, 1)} | {s(hb, 1)} | {s(pb, 1)} |")

    out.append("\n## 4e. Blocks per SM (k): extra per repetition of the level")
    out.append("| W | k | N | H200 | model |")
    out.append("| --- | --- | --- | --- | --- |")
    for w in (1, 4, 8):
        for k in (1, 2, 4, 8):
            for n in (8, 32):
                h, p = extra(d, "h", (2, 1, 0, 1, 0), w, w, n, k), extra(d, "p", (2, 1, 0, 1, 0), w, w, n, k)
                if h is None and p is None:
                    continue
                out.append(f"| {w} | {k} | {n} | {s(h, 1)} | {s(p, 1)} |")
    return score


def misc(d, out):
    out.append("\n## 5. The `%` loop and the many-wave overlap")
    out.append("| label | SM active H200 | model | inst H200 | model |")
    out.append("| --- | --- | --- | --- | --- |")
    for label in [l for l in d.p if l.startswith(("modloop", "ldonly", "t1y1_pad0_b256_n4M", "t1y1_pad1_b256_n4M",
                                                   "t0y1_b256_n4M", "reduce1_b256_n4M", "reduce2_b256_n4M"))]:
        out.append(f"| {label} | {s(d.sm(label, 'h'))} | {s(d.sm(label, 'p'))} | "
                   f"{s(d.get(label, 'h', 'inst_executed'))} | {s(d.get(label, 'p', 'issued_warp_instructions'))} |")


def main():
    if sys.argv[1:2] == ["--hypotheses"]:
        hypotheses(os.path.join(HERE, "hypotheses.tsv"))
        return
    mpath = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "measured.tsv")
    ppath = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "predictions.tsv")
    opath = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "compare.txt")
    d = Data(load(mpath) if os.path.exists(mpath) else {}, load(ppath))
    out = [f"# conflict_cost: H200 ({os.path.basename(mpath)}, {len(d.m)} launches) against warpsim "
           f"({os.path.basename(ppath)}, {len(d.p)} launches)\n"]
    diffs = steps(d, out)
    logs = launches(d, out)
    score = lvl(d, out)
    misc(d, out)
    with open(opath, "w") as fo:
        fo.write("\n".join(out) + "\n")
    # Short summary (the lead sees only the last lines of all campaigns).
    print(f"conflict_cost: {len(d.m)} launches measured, {len(d.p)} predicted -> {opath}")
    key = [("reduce1p_pad0_b256_g1", "reduce1p_pad1_b256_g1"), ("reduce1p_pad0_b256_n4M", "reduce1p_pad1_b256_n4M"),
           ("reduce1_b256_g1", "reduce2_b256_g1"), ("reduce1_b256_n4M", "reduce2_b256_n4M"),
           ("scan_rt0_n512_wave", "scan_rt1_n512_wave"), ("scan_cf0_n1024_w8", "scan_cf1_n1024_w8"),
           ("t1y1_pad0_b256_g1_r8", "t1y1_pad1_b256_g1_r8")]
    for a, b in key:
        rh, rp = ratio(d.sm(a, "h"), d.sm(b, "h")), ratio(d.sm(a, "p"), d.sm(b, "p"))
        print(f"  {a} / {b}: H200 {s(rh)} model {s(rp)}")
    if diffs:
        print(f"  steps: {len(diffs)}, mean |model - H200| {sum(abs(x) for _, x in diffs) / len(diffs):.1f} points")
    for k, v in logs.items():
        if v:
            print(f"  {k}: mean |log(model/H200)| {sum(v) / len(v):.3f} ({len(v)})")
    if score:
        print("  lone-warp rules, mean |rule - H200| cycles/rep: " + ", ".join(
            f"{k} {sum(v) / len(v):.1f}" for k, v in sorted(score.items())))


if __name__ == "__main__":
    main()
