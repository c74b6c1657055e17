#!/usr/bin/env python3
"""calibration/loops: warpsim's predictions (model.tsv, model2.tsv) against the H200 (raw/, raw2/).

    python3 calibration/loops/compare.py
"""
import csv, math, os

HERE = os.path.dirname(os.path.abspath(__file__))


def measured(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    ids = {}
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        ids.setdefault(int(d["ID"]), {})[d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
    return [ids[i] for i in sorted(ids)]


for model, raw in [("model.tsv", "raw"), ("model_before.tsv", "raw"), ("model.tsv", "raw1_repeat"),
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
