#!/usr/bin/env python3
"""calibration/probes/tma_swizzle: the device call against the committed predictions.

  python3 compare.py [raw/]

* boxes: per case of raw/device.txt against predictions.txt (warpsim's rule, predict.py): equal,
  or how many words differ, the first few, the (predicted -> device) pairs when few (the NaN
  fill's bits), and which alternative layout of predictions.txt (alt:dense, alt:relative)
  matches instead; device notes (FAULT, TIMEOUT, ENCODE) as they came;
* tile_host: its PASS/FAIL lines (raw/tile.txt);
* counters: ncu (raw/ncu_tile*.csv, one row a kernel and metric) against predictions_counters.txt.
Always exits 0; prints ALL EQUAL when every box warpsim runs equals its prediction (the boxes it
refuses, below the swizzle's alignment, are counted apart: a device fault agrees with warpsim).
"""
import csv
import os
import re
import sys
from collections import Counter, defaultdict

here = os.path.dirname(os.path.abspath(__file__))
raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "raw")


def read_lines(path):
    """{name: (header, words)} for `case` lines, {name: [(label, words)]} for `alt:` lines,
    {name: [note]} for `# name NOTE ...` lines."""
    cases, alts, notes = {}, defaultdict(list), defaultdict(list)
    if not os.path.exists(path):
        return cases, alts, notes
    for l in open(path, errors="replace"):
        f = l.split()
        if not f:
            continue
        if (f[0] == "case" or f[0].startswith("alt:")) and "words" in f:
            i = f.index("words")
            head, ws = " ".join(f[2:i]), f[i + 1:]
            if f[0] == "case":
                cases[f[1]] = (head, ws)
            else:
                alts[f[1]].append((f[0], ws))
        elif f[0] == "#" and len(f) > 2:
            notes[f[1].rstrip(":")].append(" ".join(f[2:]))
    return cases, alts, notes


pred, alts, pnotes = read_lines(os.path.join(here, "predictions.txt"))
dev, _, dnotes = read_lines(os.path.join(raw, "device.txt"))
print(f"boxes: {len(dev)} of {len(pred)} cases came back (raw/device.txt)")
equal = runs = refused_n = refused_fault = 0
for name, (head, pw) in pred.items():
    refused = any("refuses" in n for n in pnotes.get(name, []))
    tag = " [warpsim refuses: misaligned]" if refused else ""
    notes = [n for n in dnotes.get(name, []) if not n.startswith("shared")]
    refused_n += refused
    runs += not refused
    if name not in dev:
        faulted = any(n.startswith("FAULT") for n in notes)
        refused_fault += refused and faulted
        agree = " (agrees: warpsim faults too)" if refused and faulted else ""
        print(f"  {name}: MISSING{tag} {'; '.join(notes) or '(no line, no note)'}{agree}")
        continue
    dh, dw = dev[name]
    if dh != head:
        print(f"  {name}: header differs: predicted '{head}', device '{dh}'")
    diff = [i for i in range(max(len(pw), len(dw)))
            if i >= len(pw) or i >= len(dw) or pw[i] != dw[i]]
    extra = f" ({'; '.join(notes)})" if notes else ""
    if not diff:
        equal += not refused
        print(f"  {name}: equal ({len(pw)} words){tag}{extra}")
        continue
    first = ", ".join(f"w{i}: {pw[i] if i < len(pw) else '-'} -> {dw[i] if i < len(dw) else '-'}"
                      for i in diff[:4])
    print(f"  {name}: DIFF {len(diff)} of {len(pw)} words{tag}{extra}; first {first}")
    pairs = Counter((pw[i], dw[i]) for i in diff if i < len(pw) and i < len(dw))
    if len(pairs) <= 4:
        print("      predicted -> device: " + ", ".join(f"{a} -> {b} x{n}" for (a, b), n in pairs.items()))
    for label, aw in alts.get(name, []):
        same = sum(1 for a, b in zip(aw, dw) if a == b)
        print(f"      {label}: {'EQUAL' if aw == dw else f'{same} of {len(aw)} words equal'}")
print(f"boxes: {equal} of {runs} cases warpsim runs equal; {refused_fault} of {refused_n} boxes "
      "warpsim refuses (misaligned) faulted on the device too")
if equal == runs:
    print("ALL EQUAL")

p = os.path.join(raw, "tile.txt")
if os.path.exists(p):
    print("\ntile_host (raw/tile.txt):")
    for l in open(p, errors="replace"):
        if l.startswith(("PASS", "FAIL", "ERROR")):
            print("  " + l.rstrip())

# counters
KERNELS = ["tma_tile<0>", "tma_tile<128>", "mbar_pipeline<0>", "mbar_pipeline<1>"]
vals = defaultdict(dict)
for fn in sorted(os.listdir(raw)) if os.path.isdir(raw) else []:
    if not (fn.startswith("ncu_tile") and fn.endswith(".csv")):
        continue
    rows = [l for l in open(os.path.join(raw, fn), errors="replace") if l.startswith('"')]
    ids = []
    for r in csv.DictReader(rows):
        if r.get("ID") not in ids:
            ids.append(r.get("ID"))
        m = re.search(r"(tma_tile|mbar_pipeline)<(\d+)>", r.get("Kernel Name", ""))
        k = f"{m.group(1)}<{m.group(2)}>" if m else KERNELS[min(ids.index(r.get("ID")), 3)]
        try:
            vals[k][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
if vals:
    cols, pc = [], {}
    for l in open(os.path.join(here, "predictions_counters.txt")):
        f = l.split()
        if f and f[0] == "columns":
            cols = f[1:]
        elif f and f[0] in KERNELS:
            pc[f[0]] = [float(x) for x in f[1:]]
    metrics = sorted({m for k in vals for m in vals[k]})
    print("\ncounters: kernel metric device warpsim (ratio warpsim/device)")
    for k in KERNELS:
        for m in metrics:
            g = vals[k].get(m)
            w = pc[k][cols.index(m)] if k in pc and m in cols else None
            r = "" if w is None else "exact" if w == g else f"({w / g:.3f})" if g else "-"
            print(f"  {k} {m} {g} {w if w is not None else '-'} {r}")
else:
    print("\ncounters: no raw/ncu_tile*.csv rows")
