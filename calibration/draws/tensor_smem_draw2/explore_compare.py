#!/usr/bin/env python3
"""The exploration launches of draw2 (explore.py) against the readings draw1 left: one line a
launch with the measured Source-page wavefronts and bank conflicts, the hardware total minus the
launch's own op_misc, and what each reading gives. Not scored; for finding the .ca joint rule
and the .cg rotation rule.

usage: explore_compare.py TABLES      (the folder parse.py wrote)"""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
import model  # noqa: E402


def iv(r, c):
    try:
        return int(float(r.get(c, "") or "x"))
    except ValueError:
        return None


def fifo(d, s, n, w, ls):
    """every bank a queue on both sides (draw1 diagnosis §3b)"""
    last, top = {}, 0
    for lane in ls:
        wd = model._lane_words(d, s, n, w, lane, "read")
        lv = 1 + max([last.get((k, b), 0) for k in (0, 1) for b in wd[k]] + [0])
        for k in (0, 1):
            for b in wd[k]:
                last[(k, b)] = lv
        top = max(top, lv)
    return top


def main():
    meas = {r["name"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "measured.tsv")), delimiter="\t")}
    print(f"{'launch':34s} {'sass wf/bc':>10s} {'hw':>4s} | {'max rule':>8s} {'queues':>6s}")
    for line in open(os.path.join(HERE, "explore_patterns.txt")):
        f = line.split()
        name, kind = f[0], f[1]
        d, s = [int(v) for v in f[2:34]], [int(v) for v in f[34:66]]
        typ, w, _ = model.cp_kind(kind)
        n = [w] * 32
        m = meas.get(name)
        r = model.ldgsts(kind, d, s, n, **model.DRAW2)
        g = model._phase_lanes(w)
        ph = [[x for x in range(p0, p0 + g) if d[x] >= 0] for p0 in range(0, 32, g)]
        q = sum(fifo(d, s, n, w, x) for x in ph if x) if typ == "ca" else "-"
        if m is None:
            got = "not run"
        else:
            hw = None if iv(m, "hw_wf") is None or iv(m, "hw_misc_wf") is None else iv(m, "hw_wf") - iv(m, "hw_misc_wf")
            got = f"{iv(m, 'sass_ldgsts_wf')}/{iv(m, 'sass_ldgsts_bc')} {hw!s:>4s}"
        print(f"{name:34s} {got:>15s} | {r['sass_wf']:8d} {q!s:>6s}")


if __name__ == "__main__":
    main()
