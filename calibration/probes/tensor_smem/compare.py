#!/usr/bin/env python3
"""measured.tsv against predictions.tsv: which hypothesis reproduces which counter.

usage: compare.py measured.tsv predictions.tsv [--all]
For each group of launches (ldsm, stsm, lds/sts.128, cp.async) and each counter pair that
could hold them (the Source page's per-instruction-kind `sass_<op>_{wf,bc}` and the hardware
`hw_<op>_{wf,bc}`), how many launches each hypothesis reproduces exactly (wavefronts and bank
conflicts); then the launches the natural rule (H1 / G1 / house) misses, with the other
hypotheses' numbers; then the TMA launches' counters. `--all` lists every launch."""
import sys


def load(path):
    lines = open(path).read().splitlines()
    hdr = lines[0].split("\t")
    out = {}
    for l in lines[1:]:
        f = l.split("\t")
        out[f[0]] = dict(zip(hdr, f + [""] * (len(hdr) - len(f))))
    return out


def val(row, col):
    v = row.get(col, "")
    try:
        return int(float(v))
    except ValueError:
        return None


def pair(s):
    if not s:
        return None
    a, b = s.split("/")
    return int(a), int(b)


GROUPS = [
    ("ldsm", lambda k: k.startswith("ldsm"), ["sass_ldsm", "hw_ld"], ["H1", "H2", "H3", "H4", "H5"]),
    ("stsm", lambda k: k.startswith("stsm"), ["sass_stsm", "hw_st"], ["H1", "H2", "H3", "H4", "H5"]),
    ("lds.128", lambda k: k == "lds.128", ["hw_ld"], ["nat"]),
    ("sts.128", lambda k: k == "sts.128", ["hw_st"], ["nat"]),
    ("cp.async", lambda k: k.startswith(("ca.", "cg.")), ["sass_ldgsts", "hw_ldgsts", "hw", "hw_st"], ["G1", "G2", "G3", "G4"]),
]


def main():
    meas = load(sys.argv[1])
    pred = load(sys.argv[2])
    show_all = "--all" in sys.argv
    for gname, sel, counters, hyps in GROUPS:
        rows = [(n, m, pred.get(n)) for n, m in meas.items() if sel(m["kind"]) and n in pred]
        if not rows:
            continue
        print(f"== {gname}: {len(rows)} launches")
        for c in counters:
            have = [(n, m, p) for n, m, p in rows if val(m, c + "_wf") is not None
                    and (c == "hw_ldgsts" or val(m, c + "_bc") is not None)]
            if c == "hw_ldgsts":
                have = [(n, m, p) for n, m, p in rows if val(m, "hw_ldgsts_bc") is not None]
            if not have:
                continue
            res = []
            for h in hyps:
                ok = 0
                for n, m, p in have:
                    hp = (int(p["nat_wf"]), int(p["nat_bc"])) if h == "nat" else pair(p.get(h, ""))
                    if hp is None:
                        continue
                    if c == "hw_ldgsts":
                        ok += val(m, "hw_ldgsts_bc") == hp[1]
                    else:
                        ok += (val(m, c + "_wf"), val(m, c + "_bc")) == hp
                res.append(f"{h} {ok}")
            print(f"  {c:12s} ({len(have)} with it): " + ", ".join(res))
        # the natural rule's misses on the first counter that exists
        c0 = next((c for c in counters if any(val(m, c + "_wf") is not None for _, m, _ in rows)), None)
        if c0 is None:
            continue
        miss = []
        for n, m, p in rows:
            got = (val(m, c0 + "_wf"), val(m, c0 + "_bc"))
            nat = (int(p["nat_wf"]), int(p["nat_bc"])) if p["nat_wf"] else None
            if show_all or got != nat:
                others = " ".join(f"{h}={p.get(h)}" for h in hyps if h != "nat" and p.get(h))
                miss.append(f"    {n:34s} {c0}={got[0]}/{got[1]} nat={nat[0] if nat else '?'}/{nat[1] if nat else '?'}  {others}")
        print(f"  natural rule misses on {c0}: {sum(1 for x in miss)}" + ("" if not show_all else " (all listed)"))
        for x in miss[:40]:
            print(x)
    tma = [(n, m) for n, m in meas.items() if ":" in m["kind"] or m.get("group") == "tma" or m.get("group") == "mix"]
    if tma:
        print(f"== tma/bulk/mix: {len(tma)} launches (read-back prediction in nat)")
        keys = ["hw_ld_wf", "hw_ld_bc", "hw_st_wf", "hw_wf", "hw_bc", "bank_reads", "bank_writes", "hw_atom_wf",
                "hw_misc_wf", "sass_ldsm_wf", "sass_ldsm_bc", "sass_ld_wf"]
        for n, m in tma:
            p = pred.get(n, {})
            cells = " ".join(f"{k}={m.get(k)}" for k in keys if m.get(k) not in (None, "", "0"))
            print(f"    {n:30s} nat={p.get('nat_wf', '?')}/{p.get('nat_bc', '?')} {cells}")


if __name__ == "__main__":
    main()
