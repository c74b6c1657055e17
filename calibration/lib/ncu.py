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


def number(s):
    """One of Nsight's values as a float ("1,234.5" -> 1234.5), None if it is not a number."""
    try:
        return float(s.replace(",", "").strip())
    except ValueError:
        return None


def cell(v):
    """A value for a fixture table: an integer without decimals, else 2 decimals; "-" for none."""
    return "-" if v is None else (str(int(v)) if float(v).is_integer() else "%.2f" % v)
