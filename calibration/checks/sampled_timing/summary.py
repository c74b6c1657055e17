#!/usr/bin/env python3
"""Summary of compare.py's table by waves: sampled against full (mean and largest |ratio - 1|)
and each against the H200 (mean |log|, launches within 15%).

    python3 calibration/checks/sampled_timing/summary.py k4.tsv
"""
import csv, math, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from programs import blocks_per_sm as per_sm  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
KEYS = ["elapsed_cycles", "sm_active_cycles_avg", "barrier", "short_scoreboard", "mio_throttle",
        "long_scoreboard", "lg_throttle", "drain"]


def mean(a):
    return sum(a) / len(a) if a else 0.0


for lo, hi in [(2, 4), (4, 8), (8, math.inf)]:
    sel = [r for r in rows if lo <= int(r["blocks"]) / (132 * per_sm(r["name"])) < hi]
    if not sel:
        continue
    print(f"waves [{lo}, {hi}): {len(sel)} launches")
    for k in KEYS:
        dif = [abs(float(r[k + "_samp"]) / float(r[k + "_full"]) - 1) for r in sel if float(r[k + "_full"]) > 0.5]
        line = f"  {k:21s} sampled/full - 1: mean {mean(dif):.3f}, largest {max(dif, default=0):.3f}"
        meas = [r for r in sel if r[k + "_h200"] not in ("", None)]
        if k in KEYS[:2]:
            ef = [abs(math.log(float(r[k + "_full"]) / float(r[k + "_h200"]))) for r in meas]
            es = [abs(math.log(float(r[k + "_samp"]) / float(r[k + "_h200"]))) for r in meas]
            wf = sum(abs(float(r[k + "_full"]) / float(r[k + "_h200"]) - 1) <= 0.15 for r in meas)
            ws = sum(abs(float(r[k + "_samp"]) / float(r[k + "_h200"]) - 1) <= 0.15 for r in meas)
            line += f"; against the H200: mean |log| full {mean(ef):.3f}, sampled {mean(es):.3f}; within 15% {wf} and {ws} of {len(meas)}"
        elif meas:
            tol = lambda r, c: abs(float(r[k + c]) - float(r[k + "_h200"])) <= max(0.3 * float(r[k + "_h200"]), 3)
            line += f"; within 30%/3 of the H200: full {sum(tol(r, '_full') for r in meas)}, sampled {sum(tol(r, '_samp') for r in meas)} of {len(meas)}"
        print(line)
