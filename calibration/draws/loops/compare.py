#!/usr/bin/env python3
"""calibration/draws/loops: warpsim's predictions against the H200 (raw/, raw1_repeat/, raw2/, raw3/):
model.tsv (draw 1, predicted before it ran, e66c739), model_before.tsv (draw 1 without the loop
rule), model_redone_after_draw1.tsv (draw 1 again, made after it was measured and the unrolling
rule was fixed from its SASS, a7f6395: not a prediction), model2.tsv and model3.tsv (draws 2
and 3, predicted before they ran), model2_before.tsv (draw 2 with the rule as it was before draw
1, made after the run).

    python3 calibration/draws/loops/compare.py > calibration/draws/loops/compare.txt
"""
import csv, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
from ncu import measured  # noqa: E402


for model, raw in [("model.tsv", "raw"), ("model_before.tsv", "raw"), ("model_redone_after_draw1.tsv", "raw"),
                   ("model.tsv", "raw1_repeat"), ("model_redone_after_draw1.tsv", "raw1_repeat"),
                   ("model2.tsv", "raw2"), ("model3.tsv", "raw3"),
                   ("model2_before.tsv", "raw2")]:
    m = list(csv.DictReader(open(os.path.join(HERE, model)), delimiter="\t"))
    h = measured(os.path.join(HERE, raw, "ncu.csv"))
    print(f"== {model} against {raw}/ncu.csv: model / H200, elapsed cycles and SM active cycles")
    le, ls = [], []
    for r, x in zip(m, h):
        e = float(r["elapsed_cycles"]) / x["gpc__cycles_elapsed.max"]
        s = float(r["sm_active_cycles_avg"]) / x["sm__cycles_active.avg"]
        le.append(abs(math.log(e)))
        ls.append(abs(math.log(s)))
        print(f"{r['kernel']:13} G={r['grid']:>3} B={r['block']:>4} K={r['k']}  {e:.2f}  {s:.2f}")
    print(f"mean |log ratio|: elapsed {sum(le) / len(le):.3f}, SM active {sum(ls) / len(ls):.3f}\n")
