"""Reading Nsight Compute's CSV (`ncu --csv`): one dict of metric -> value per launch, in launch
order. Used by compare.py here, ../swizzle/compare.py and ../draw7/rules_check.py."""
import csv


def measured(path):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    ids = {}
    for r in rows[1:]:
        d = dict(zip(rows[0], r))
        try:
            ids.setdefault(int(d["ID"]), {})[d["Metric Name"]] = float(d["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return [ids[i] for i in sorted(ids)]
