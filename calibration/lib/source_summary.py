#!/usr/bin/env python3
"""Per-SASS-instruction stall sampling (ncu Source page) of the 7 kernels, in short.

usage: source_summary.py ncu_source_orig.csv launches.txt
For each kernel (in launch order) prints every instruction that got samples: address offset,
SASS, warp-level executions, samples, and its stall samples by reason (ncu's short names:
barrier, mio, short_sb, long_sb, lg, wait, not_selected, selected, ...). Samples are taken at a
fixed interval per SM sub-partition, so a reason's share of a kernel's samples is its share of
warp stall cycles.
"""
import csv, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import open_text  # noqa: E402  (the Source pages are kept gzipped)

lines = open_text(sys.argv[1]).read().split("\n")
labels = [l.split("\t")[2] for l in open_text(sys.argv[2]) if l.startswith("LAUNCH")]
blocks, cur = [], None
for l in lines:
    if l.startswith('"Kernel Name"'):
        cur = [l]
        blocks.append(cur)
    elif cur is not None and l.startswith('"'):
        cur.append(l)
# ncu prints each kernel's table twice here (two source views); keep the first of each pair
seen, kept = set(), []
for b in blocks:
    name = b[0]
    rows = list(csv.reader(b[1:]))
    key = (name, len(rows))
    if key in seen:
        continue
    seen.add(key)
    kept.append((name, rows))
for i, (name, rows) in enumerate(kept):
    hdr, body = rows[0], rows[1:]
    ix = {h: j for j, h in enumerate(hdr)}
    reasons = [h for h in hdr if h.startswith("stall_") and "(Not Issued)" not in h]
    tot = sum(int(r[ix["Warp Stall Sampling (All Samples)"]] or 0) for r in body)
    label = labels[i] if i < len(labels) else "?"
    print(f"== {label}: {name.split(',')[1] if ',' in name else name}  total samples {tot}")
    base = int(body[0][0], 16)
    totr = {k: 0 for k in reasons}
    for r in body:
        s = int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)
        for k in reasons:
            totr[k] += int(r[ix[k]] or 0)
        if s == 0:
            continue
        by = sorted(((int(r[ix[k]] or 0), k[6:]) for k in reasons), reverse=True)
        top = ", ".join(f"{k} {v}" for v, k in by if v > 0)
        print(f"  {int(r[0], 16) - base:#06x} {r[1].strip():48} exec {r[ix['Instructions Executed']]:>8}"
              f"  samples {s:>6} ({100 * s / max(tot, 1):5.1f}%)  {top}")
    print("  by reason (% of samples): " + ", ".join(f"{k[6:]} {100 * v / max(tot, 1):.1f}" for k, v in
                                                  sorted(totr.items(), key=lambda kv: -kv[1]) if v))
