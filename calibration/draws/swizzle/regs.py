#!/usr/bin/env python3
"""calibration/swizzle: launches_regs.tsv, launches2_regs.tsv and launches3_regs.tsv, the launch lists with the
registers per thread ptxas gave each kernel (ncu's launch__registers_per_thread in raw/): the
model's documented input, for predictions made after the run (predict.py ... launches_regs.tsv).
A launch the H200 refused (matmul_swz2<32,1,1>: 93 registers x 1024 threads) is left out.

    python3 calibration/swizzle/regs.py
"""
import csv, os

HERE = os.path.dirname(os.path.abspath(__file__))


def regs(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    out = {}
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        if d["Metric Name"] == "launch__registers_per_thread":
            try:
                out[int(d["ID"])] = int(float(d["Metric Value"]))
            except ValueError:
                pass
    elapsed = {int(dict(zip(rows[0], r))["ID"]) for r in rows[1:]
               if dict(zip(rows[0], r))["Metric Name"] == "gpc__cycles_elapsed.max"
               and dict(zip(rows[0], r))["Metric Value"] not in ("", "n/a")}
    return {i: v for i, v in out.items() if i in elapsed}


for launches, ncu in (("launches", "ncu_1.csv"), ("launches2", "ncu2_1.csv"), ("launches3", "ncu3_1.csv")):
    r = regs(os.path.join(HERE, "raw", ncu))
    rows = list(csv.DictReader(open(os.path.join(HERE, launches + ".tsv")), delimiter="\t"))
    with open(os.path.join(HERE, launches + "_regs.tsv"), "w") as f:
        f.write("name\ttemplate\tn\tregs_per_thread\n")
        for i, x in enumerate(rows):
            if i in r:
                f.write(f"{x['name']}\t{x['template']}\t{x['n']}\t{r[i]}\n")
