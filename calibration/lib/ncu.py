"""Reading Nsight Compute's long CSV (`ncu --csv --metrics ...`: one row per launch and metric).

One reader for what draw4's ncu.py, loops/compare.py, swizzle/compare.py and swizzle/regs.py
each did their own way (merged in issue 36): rows with an `ID`, a `Metric Name` and a numeric
`Metric Value` (thousands separators dropped); values that are not numbers ("n/a" of a launch
the GPU refused) or NaN are left out.
"""
import csv
import math

from common import open_text


def by_launch(path):
    """{launch ID: {metric: value}} of one ncu CSV."""
    rows = [r for r in csv.reader(open_text(path)) if len(r) > 10]
    ids = {}
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        try:
            v = float(d["Metric Value"].replace(",", ""))
        except ValueError:
            continue
        if not math.isnan(v):
            ids.setdefault(int(d["ID"]), {})[d["Metric Name"]] = v
    return ids


def measured(path):
    """The launches of one ncu CSV in launch order: a list of {metric: value}."""
    ids = by_launch(path)
    return [ids[i] for i in sorted(ids)]


def registers(path):
    """{launch ID: registers per thread} of the launches that ran (that have elapsed cycles)."""
    return {i: int(m["launch__registers_per_thread"]) for i, m in by_launch(path).items()
            if "gpc__cycles_elapsed.max" in m and "launch__registers_per_thread" in m}
