#!/usr/bin/env python3
"""Analysis of the first H200 call (raw/conflict_cost.tar.gz) against the model before and after
the candidate changes (ANALYSIS.md quotes its output; DESIGN.md the rules).

    python3 analyze.py [NAME=PRED.tsv ...] > analysis.txt

Models: `base` = predictions.tsv (warpsim 59296a5, committed before the run); by default also
the post-hoc runs in posthoc/ (experimental builds, see posthoc/README.md): `addr` (byte-addressed
accesses wait for their address registers: DESIGN.md D1), `addr+R1` (and a warp's shared
instructions served one after another: D2), `addr+R1+R2` (and a barrier waits for the block's
shared stores: rejected), `addr+R1+int1` (D1 + D2 with `issue.int: 1`, a bound for D4). Standard
library.
"""

import csv
import gzip
import io
import math
import os
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "wait",
          "not_selected", "selected", "no_instruction", "drain", "math_pipe_throttle",
          "branch_resolving", "dispatch_stall", "misc"]


def tsv(text):
    return {r["label"]: r for r in csv.DictReader(io.StringIO(text), delimiter="\t")}


def raw(name):
    with tarfile.open(os.path.join(HERE, "raw", "conflict_cost.tar.gz")) as t:
        return t.extractfile(f"conflict_cost/{name}").read().decode()


def f(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def sm(row):
    """SM-active cycles; a one-block launch is read as its SM's (H200: sm__cycles_active.max;
    model: the average x 132, predictions' sm_active_cycles_max), as compare.py does."""
    if str(row.get("grid")) == "1":
        v = f(row.get("sm_active_cycles_max"))
        return v if v else f(row["sm_active_cycles_avg"]) * 132
    return f(row["sm_active_cycles_avg"])


def main():
    meas = tsv(raw("measured.tsv"))
    launches = tsv(raw("launches.tsv"))
    models = [("base", os.path.join(HERE, "predictions.tsv"))]
    args = [a for a in sys.argv[1:] if "=" in a]
    if args:
        models += [tuple(a.split("=", 1)) for a in args]
    else:
        for n, p in (("addr", "pred_addrdep.tsv"), ("addr+R1", "pred_addrdep_r1.tsv"),
                     ("addr+R1+R2", "pred_addrdep_r1r2.tsv"), ("addr+R1+int1", "pred_addrdep_r1_int1.tsv"),
                     ("landed", "pred_landed_d1d2.tsv")):
            p = os.path.join(HERE, "posthoc", p)
            # The post-hoc tables are kept gzipped (issue 36); read either form.
            for q in (p, p + ".gz"):
                if os.path.exists(q):
                    models.append((n, q))
                    break
    preds = {n: tsv((gzip.open(p, "rt") if p.endswith(".gz") else open(p)).read()) for n, p in models}
    names = [n for n, _ in models]
    out = []
    P = out.append

    def per_rep(d, lab, reps=64):
        r = d.get(lab)
        return sm(r) / reps if r else None

    def lvl(kind, w, a, n, k=1, r=64):
        return f"lvl{kind}_w{w}_a{a}_n{n}_k{k}_r{r}"

    # ---- 1. every launch by group: mean |log(model/H200)| of SM active, elapsed, issued
    P("## 1. Mean |log(model / H200)| by group (SM active / elapsed / issued instructions)\n")
    P("| group | launches | " + " | ".join(names) + " |")
    P("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    groups = {}
    for lab, r in meas.items():
        g = launches[lab]["group"] if lab in launches else "?"
        groups.setdefault(g, []).append(lab)
    groups["all"] = list(meas)
    for g in ["classic", "lvl1", "tree", "mod", "lvl2", "all"]:
        cells = []
        for n in names:
            v = {k: [] for k in ("sm", "el", "in")}
            for lab in groups.get(g, []):
                p, m = preds[n].get(lab), meas[lab]
                if not p:
                    continue
                for k, mc, pc in (("sm", None, None),
                                  ("el", "elapsed_cycles", "elapsed_cycles"),
                                  ("in", "inst_executed", "issued_warp_instructions")):
                    a, b = (sm(p), sm(m)) if k == "sm" else (f(p[pc]), f(m[mc]))
                    if a and b:
                        v[k].append(abs(math.log(a / b)))
            mean = lambda x: sum(x) / len(x) if x else float("nan")
            cells.append(f"{mean(v['sm']):.3f} / {mean(v['el']):.3f} / {mean(v['in']):.3f}")
        P(f"| {g} | {len(groups.get(g, []))} | " + " | ".join(cells) + " |")

    # ---- 2. the steps
    P("\n## 2. Conflict steps: SM active conflicted / conflict-free (H200 and each model)\n")
    steps = []
    for lab in meas:
        for a, b in (("reduce1_", "reduce2_"), ("reduce1p_pad0", "reduce1p_pad1"), ("scan_cf0", "scan_cf1"),
                     ("scan_rt0", "scan_rt1"), ("t1y1_pad0", "t1y1_pad1"), ("t1y0_pad0", "t1y0_pad1"),
                     ("t1y1c8_pad0", "t1y1c8_pad1"), ("t1y1_pad1", "t0y1")):
            if lab.startswith(a):
                tw = b + lab[len(a):]
                if a == "t1y1_pad1":
                    tw = "t0y1" + lab[len("t1y1_pad1"):]
                if tw in meas:
                    steps.append((lab, tw))
    P("| conflicted | twin | H200 | " + " | ".join(names) + " |")
    P("| --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    pts = {n: [] for n in names}
    for a, b in steps:
        h = sm(meas[a]) / sm(meas[b])
        cells = []
        for n in names:
            pa, pb = preds[n].get(a), preds[n].get(b)
            if pa and pb:
                m = sm(pa) / sm(pb)
                pts[n].append(abs(100 * (m - h)))
                cells.append(f"{m:.3f}")
            else:
                cells.append("-")
        P(f"| {a} | {b} | {h:.3f} | " + " | ".join(cells) + " |")
    P("\nmean |points|: " + ", ".join(f"{n} {sum(v) / len(v):.1f} ({len(v)})" for n, v in pts.items() if v))
    # Banks-only steps (the same SASS both sides: reduce1p pad, scan rt, tree pad) vs the others.
    same = [i for i, (a, b) in enumerate(steps) if a.startswith(("reduce1p", "scan_rt", "t1y1_pad0", "t1y0_pad0", "t1y1c8_pad0"))]
    for title, idx in (("banks only (same SASS)", same), ("code differs too", [i for i in range(len(steps)) if i not in same])):
        P(f"mean |points|, {title} ({len(idx)} steps): " + ", ".join(
            f"{n} {sum(pts[n][i] for i in idx) / len(idx):.1f}" for n in names if len(pts[n]) == len(steps)))
        for scope in ("_g1", "_wave", "_full", "_n4M", "_w8"):
            sub = [i for i in idx if scope in steps[i][0]]
            if sub:
                P(f"  - {scope[1:]} ({len(sub)}): " + ", ".join(
                    f"{n} {sum(pts[n][i] for i in sub) / len(sub):.1f}" for n in names if len(pts[n]) == len(steps)))

    # ---- 2b. decomposition of the steps into index/issue and banks (SM-active cycles)
    P("\n## 2b. The steps decomposed (SM-active cycles; banks = the same SASS, pad 0 - pad -1)\n")
    P("reduce1 - reduce2 = (reduce1 - reduce1p pad0: predicated body in every warp vs a branch, same "
      "banks) + (reduce1p pad0 - pad1: banks) + (reduce1p pad1 - reduce2: strided padded index vs "
      "sequential); scan cf0 - cf1 = (cf0 - rt0: offset code, same banks) + (rt0 - rt1: banks) + "
      "(rt1 - cf1: masked vs plain offsets)\n")
    P("| step | who | total | part 1 | banks | part 3 |")
    P("| --- | --- | --- | --- | --- | --- |")
    for size in ("b128_g1", "b128_wave", "b128_n4M", "b256_g1", "b256_wave", "b256_n4M", "b1024_g1",
                 "b1024_wave", "b1024_n4M", "n512_g1", "n512_wave", "n512_w8", "n1024_g1", "n1024_wave",
                 "n1024_w8", "n2048_g1", "n2048_wave", "n2048_w8"):
        if size.startswith("b"):
            labs = [f"reduce1_{size}", f"reduce1p_pad0_{size}", f"reduce1p_pad1_{size}", f"reduce2_{size}"]
            name = f"reduce1 -> reduce2 {size}"
        else:
            labs = [f"scan_cf0_{size}", f"scan_rt0_{size}", f"scan_rt1_{size}", f"scan_cf1_{size}"]
            name = f"scan cf0 -> cf1 {size}"
        for who, d in [("H200", meas)] + [(n, preds[n]) for n in names]:
            if not all(l in d for l in labs):
                continue
            v = [sm(d[l]) for l in labs]
            tot = v[0] - v[3]
            P(f"| {name} | {who} | {tot:+,.0f} ({100 * tot / v[3]:+.1f}%) | {v[0] - v[1]:+,.0f} | "
              f"{v[1] - v[2]:+,.0f} | {v[2] - v[3]:+,.0f} |")

    # ---- 3. one warp alone: extra cycles a repetition over N = 1
    P("\n## 3. One warp alone: cycles a repetition an N-way conflict adds (over N = 1)\n")
    probes = [("load chain", "10c0y0d1"), ("2 loads -> sum", "20c0y0d1"), ("4 loads -> sum", "40c0y0d1"),
              ("load, store, load", "11c0y0d1"), ("stores", "01c0y0d0"), ("store + barrier", "01c0y1d0"),
              ("level (2 ld, add, st, bar)", "21c0y1d0")]
    P("| probe | N | H200 | " + " | ".join(names) + " |")
    P("| --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    err = {n: [] for n in names}
    for title, kind in probes:
        for n_ in (2, 4, 8, 16, 32):
            lab, base = lvl(kind, 1, 1, n_), lvl(kind, 1, 1, 1)
            if lab not in meas:
                continue
            h = per_rep(meas, lab) - per_rep(meas, base)
            cells = []
            for n in names:
                a, b = per_rep(preds[n], lab), per_rep(preds[n], base)
                if a is None or b is None:
                    cells.append("-")
                    continue
                cells.append(f"{a - b:.1f}")
                err[n].append(abs(a - b - h))
            P(f"| {title} | {n_} | {h:.1f} | " + " | ".join(cells) + " |")
    P("\nmean |model - H200| cycles a repetition: " + ", ".join(f"{n} {sum(v) / len(v):.1f}" for n, v in err.items() if v))
    P("\nCycles a repetition at N = 1 (the level's own time):")
    for title, kind in probes:
        lab = lvl(kind, 1, 1, 1)
        if lab in meas:
            P(f"- {title}: H200 {per_rep(meas, lab):.1f}; " + ", ".join(
                f"{n} {per_rep(preds[n], lab):.1f}" for n in names if preds[n].get(lab)))

    # ---- 4. W warps, idle warps, blocks a SM
    P("\n## 4a. The level with W warps (all working): extra cycles a repetition\n")
    P("| W | N | H200 | " + " | ".join(names) + " |")
    P("| --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    for w in (1, 2, 4, 8, 16, 32):
        for n_ in (2, 8, 32):
            lab, base = lvl("21c0y1d0", w, w, n_), lvl("21c0y1d0", w, w, 1)
            if lab in meas and base in meas:
                h = per_rep(meas, lab) - per_rep(meas, base)
                P(f"| {w} | {n_} | {h:.1f} | " + " | ".join(
                    f"{per_rep(preds[n], lab) - per_rep(preds[n], base):.1f}" if preds[n].get(lab) else "-"
                    for n in names) + " |")
    P("\n## 4b. Idle warps: W warps, a working (cycles a repetition)\n")
    P("| W | a | N | H200 | " + " | ".join(names) + " | H200 W = a |")
    P("| --- | --- | --- | --- | " + " | ".join("---" for _ in names) + " | --- |")
    for w, a in ((8, 1), (8, 2), (8, 4), (32, 1), (32, 4), (32, 16)):
        for n_ in (1, 8, 32):
            lab = lvl("21c0y1d0", w, a, n_)
            if lab in meas:
                alone = per_rep(meas, lvl("21c0y1d0", a, a, n_))
                P(f"| {w} | {a} | {n_} | {per_rep(meas, lab):.1f} | " + " | ".join(
                    f"{per_rep(preds[n], lab):.1f}" if preds[n].get(lab) else "-" for n in names)
                  + f" | {alone:.1f} |" if alone else " | - |")
    P("\n## 4e. Blocks a SM (k), the level, W warps a block: extra cycles a repetition\n")
    P("| W | k | N | H200 | " + " | ".join(names) + " |")
    P("| --- | --- | --- | --- | " + " | ".join("---" for _ in names) + " |")
    for w in (1, 4, 8):
        for k in (1, 2, 4, 8):
            for n_ in (8, 32):
                lab, base = lvl("21c0y1d0", w, w, n_, k), lvl("21c0y1d0", w, w, 1, k)
                if lab in meas and base in meas:
                    h = per_rep(meas, lab) - per_rep(meas, base)
                    P(f"| {w} | {k} | {n_} | {h:.1f} | " + " | ".join(
                        f"{per_rep(preds[n], lab) - per_rep(preds[n], base):.1f}" if preds[n].get(lab) and preds[n].get(base) else "-"
                        for n in names) + " |")

    # ---- 5. instructions
    P("\n## 5. Issued warp instructions: model / H200 by kernel\n")
    byk = {}
    for lab, m in meas.items():
        k = m["kernel"]
        p = preds["base"].get(lab)
        if p and f(m["inst_executed"]):
            byk.setdefault(k, []).append(f(p["issued_warp_instructions"]) / f(m["inst_executed"]))
    P("| kernel | launches | model / H200 (min-max) |")
    P("| --- | --- | --- |")
    for k in sorted(byk):
        v = byk[k]
        P(f"| {k} | {len(v)} | {min(v):.2f}-{max(v):.2f} |")

    # ---- 6. stall reasons: mean (model - H200) cycles an instruction, over all launches
    P("\n## 6. Stall reasons: mean (model - H200), cycles an issued instruction, all launches\n")
    P("| reason | H200 mean | " + " | ".join(f"{n} - H200" for n in names) + " |")
    P("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for s in STALLS:
        hv = [f(meas[l]["stall_" + s]) or 0 for l in meas]
        cells = []
        for n in names:
            d = [(f(preds[n][l]["stall_" + s]) or 0) - (f(meas[l]["stall_" + s]) or 0) for l in meas if l in preds[n]]
            cells.append(f"{sum(d) / len(d):+.2f}")
        P(f"| {s} | {sum(hv) / len(hv):.2f} | " + " | ".join(cells) + " |")

    # ---- 7. many waves: reduction = global phase + tree?
    P("\n## 7. Many waves (16,384 blocks of 256): SM active of the parts and the whole\n")
    P("| launch | H200 | " + " | ".join(names) + " |")
    P("| --- | --- | " + " | ".join("---" for _ in names) + " |")
    for lab in ("ldonly_b256_n4M", "t1y1_pad0_b256_n4M_r1", "t1y1_pad1_b256_n4M_r1", "t0y1_b256_n4M_r1",
                "reduce1p_pad0_b256_n4M", "reduce1p_pad1_b256_n4M", "reduce2_b256_n4M", "reduce1_b256_n4M"):
        if lab in meas:
            P(f"| {lab} | {f(meas[lab]['sm_active_cycles_avg']):,.0f} | " + " | ".join(
                f"{f(preds[n][lab]['sm_active_cycles_avg']):,.0f}" if preds[n].get(lab) else "-" for n in names) + " |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
