#!/usr/bin/env python3
"""ldgsts_draw3: the device's Source-page LDGSTS counters against predictions.tsv.

    python3 compare.py RAWDIR      (ncu.csv[.gz] and predictions.tsv in RAWDIR, else next to this)
Prints, per kind, how many launches have both Source-page counters (wavefronts, bank conflicts)
equal to the prediction (the rule under test) and to the old rule (old_*), then every miss.
"""
import csv
import gzip
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "ldgsts_tma3"))
import summarize as probe  # noqa: E402


def read(raw, name):
    for n in (name, name + ".gz"):
        p = os.path.join(raw, n)
        if os.path.exists(p):
            return (gzip.open(p, "rt") if n.endswith(".gz") else open(p)).read()
    return None


def main():
    raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw")
    notes = []
    rows = probe.ncu_rows(read(raw, "ncu.csv") or "", "ncu.csv", notes)
    pt = read(raw, "predictions.tsv") or open(os.path.join(HERE, "predictions.tsv")).read()
    pred = {r["name"]: r for r in csv.DictReader(pt.splitlines(), delimiter="\t")}
    by_kind, misses = {}, []
    for name, kind, m in rows:
        p = pred[name]
        got = (int(m["sass_wf"]), int(m["sass_bc"]))
        new = (int(p["sass_wf"]), int(p["sass_bc"]))
        old = (int(p["old_sass_wf"]), int(p["old_sass_bc"]))
        k = by_kind.setdefault(kind, [0, 0, 0])
        k[0] += 1
        k[1] += got == new
        k[2] += got == old
        if got != new:
            misses.append(f"  {name}: device {got[0]}/{got[1]}, rule {new[0]}/{new[1]}, old rule {old[0]}/{old[1]}")
    n = sum(v[0] for v in by_kind.values())
    print(f"ldgsts_draw3: {n} launches measured (Source page op_ldgsts wavefronts / bank conflicts)")
    for kind, (t, a, b) in sorted(by_kind.items()):
        print(f"  {kind:8} {t:3}: rule exact {a}, old rule exact {b}")
    print(f"  all      {n:3}: rule exact {sum(v[1] for v in by_kind.values())}, "
          f"old rule exact {sum(v[2] for v in by_kind.values())}")
    print("misses of the rule:" if misses else "no miss")
    print("\n".join(misses))
    for x in notes:
        print("note:", x)


if __name__ == "__main__":
    main()
