#!/usr/bin/env python3
"""Compares the if_convert draw's predictions with the device's raw/ (issue 38, D3 and D5).

For each kernel: warpsim's body length, whether D3 predicates it (if_convert = 10), what
ptxas did (check_sass.py's BRA count: 1 = every level predicated, the trailing self-branch
only; 9 = all 8 levels branched; 8 = one level predicated), and smsp__inst_executed.sum
against `issued` of predictions.tsv (D3 alone) and predictions_d5.tsv (D3 + D5), and the
model's elapsed / SM-active cycles (D5 file) against the device's.

    python3 compare.py > RESULT.txt
"""
import csv
import math
import os

D = os.path.dirname(os.path.abspath(__file__))


def tsv(name):
    with open(os.path.join(D, name)) as f:
        return {r["kernel"]: r for r in csv.DictReader(f, delimiter="\t")}


def ncu():
    out = {}
    with open(os.path.join(D, "raw/ncu.csv")) as f:
        for r in csv.DictReader(l for l in f if l.startswith('"')):
            v = float(r["Metric Value"].replace(",", ""))
            out.setdefault(r["Kernel Name"], {})[r["Metric Name"]] = v
    return out


def main():
    d3, d5, sass, dev = tsv("predictions.tsv"), tsv("predictions_d5.tsv"), tsv("raw/sass_check.tsv"), ncu()
    ks = sorted(d3, key=lambda k: int(k[3:]))
    print("kernel\tlen\tpred_predicated\tsass_bra\tsass_predicated\tagree\tissued_dev\tissued_d3\tissued_d5\td3/dev\td5/dev\telapsed_dev\telapsed_d5\tsm_dev\tsm_d5")
    agree = 0
    lr = {"d3": [], "d5": [], "el": [], "sm": []}
    for k in ks:
        bra = int(sass[k]["bra"])
        p = int(d3[k]["predicated_at_10"])
        # 1 BRA: every level predicated; 9: none; 8: all but one.
        s = {1: "all", 9: "none"}.get(bra, f"{9 - bra} of 8")
        ok = (p == 1 and bra == 1) or (p == 0 and bra == 9)
        agree += ok
        m = dev[k]
        idev = m["smsp__inst_executed.sum"]
        i3, i5 = float(d3[k]["issued"]), float(d5[k]["issued"])
        el, sm = m["gpc__cycles_elapsed.max"], m["sm__cycles_active.avg"]
        e5, s5 = float(d5[k]["elapsed_cycles"]), float(d5[k]["sm_active_cycles_avg"])
        for key, a, b in (("d3", i3, idev), ("d5", i5, idev), ("el", e5, el), ("sm", s5, sm)):
            lr[key].append(abs(math.log(a / b)))
        print(f"{k}\t{d3[k]['warpsim_len']}\t{p}\t{bra}\t{s}\t{'yes' if ok else 'NO'}\t{idev:.0f}\t{i3:.0f}\t{i5:.0f}\t{i3/idev:.3f}\t{i5/idev:.3f}\t{el:.0f}\t{e5:.0f}\t{sm:.1f}\t{s5:.1f}")
    n = len(ks)
    mean = lambda v: sum(v) / len(v)
    print(f"\nclassification (predicated or branched, whole kernel): {agree} of {n} agree")
    print(f"issued, mean |ln(model/device)|: D3 {mean(lr['d3']):.3f}, D3+D5 {mean(lr['d5']):.3f}")
    print(f"within 5%: D3 {sum(x < math.log(1.05) for x in lr['d3'])}/{n}, D3+D5 {sum(x < math.log(1.05) for x in lr['d5'])}/{n}")
    print(f"elapsed (D3+D5), mean |ln|: {mean(lr['el']):.3f}; SM active: {mean(lr['sm']):.3f}")


main()
