#!/usr/bin/env python3
"""calibration/draws/swizzle: launches_regs.tsv, launches2_regs.tsv and launches3_regs.tsv, the launch lists with the
registers per thread ptxas gave each kernel (ncu's launch__registers_per_thread in raw/): the
model's documented input, for predictions made after the run (predict.py ... launches_regs.tsv).
A launch the H200 refused (matmul_swz2<32,1,1>: 93 registers x 1024 threads) is left out.

    python3 calibration/draws/swizzle/regs.py
"""
import csv, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
from ncu import registers as regs  # noqa: E402


for launches, ncu in (("launches", "ncu_1.csv"), ("launches2", "ncu2_1.csv"), ("launches3", "ncu3_1.csv")):
    r = regs(os.path.join(HERE, "raw", ncu))
    rows = list(csv.DictReader(open(os.path.join(HERE, launches + ".tsv")), delimiter="\t"))
    with open(os.path.join(HERE, launches + "_regs.tsv"), "w") as f:
        f.write("name\ttemplate\tn\tregs_per_thread\n")
        for i, x in enumerate(rows):
            if i in r:
                f.write(f"{x['name']}\t{x['template']}\t{x['n']}\t{r[i]}\n")
