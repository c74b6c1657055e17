#!/usr/bin/env python3
"""calibration/probes/wmma_numerics: the device call against the committed predictions.

  python3 compare.py [raw/]

* D words: per seed and form, how many of raw/device.txt's words equal predictions.txt's (and
  the GPU's own X line: its worst |D - reference| / magnitude);
* wmma_gemm at 1024^3: ncu's counters (raw/ncu_gemm.csv; one row per kernel, ld32 first) against
  predictions_gemm.txt, as ratios warpsim / GPU;
* layout_more.txt: each fragment element decoded to (row, col).
"""
import csv, os, sys
from collections import defaultdict

raw = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__) or ".", "raw")
here = os.path.dirname(os.path.abspath(__file__))

def d_lines(path):
    out = defaultdict(dict)
    for l in open(path):
        f = l.split()
        if f and f[0] == "D":
            key = (int(f[1]), int(f[2])); lane = int(f[3])
            for j, w in enumerate(f[4:]):
                out[key][lane * 8 + j] = w
    return out

pred = d_lines(os.path.join(here, "predictions.txt"))
dev = d_lines(os.path.join(raw, "device.txt"))
xs = {}
for l in open(os.path.join(raw, "device.txt")):
    f = l.split()
    if f and f[0] == "X":
        xs[(int(f[1]), int(f[2]))] = f[3]
print("seed form equal/words gpu_worst_rel_err")
tot = same_tot = 0
for key in sorted(dev):
    same = sum(1 for i, w in dev[key].items() if pred.get(key, {}).get(i) == w)
    tot += len(dev[key]); same_tot += same
    print(key[0], key[1], f"{same}/{len(dev[key])}", xs.get(key, "-"))
print(f"all: {same_tot}/{tot} words equal")

# ncu
p = os.path.join(raw, "ncu_gemm.csv")
if os.path.exists(p):
    rows = [l for l in open(p) if l.startswith('"')]
    # gemm.cu launches each variant 6 times (a warm-up, 5 timed): the median of each metric
    # over the launches of `wmma_gemm<32>` and `<40>` (the first version of this script took
    # launches 0 and 1, both <32>).
    per = defaultdict(lambda: defaultdict(list))
    for r in csv.DictReader(rows):
        n = "ld40" if "wmma_gemm<40>" in r["Kernel Name"] else "ld32"
        per[n][r["Metric Name"]].append(float(r["Metric Value"].replace(",", "")))
    vals = {n: {m: sorted(v)[len(v) // 2] for m, v in ms.items()} for n, ms in per.items()}
    ids = ["ld32", "ld40"]
    names = ["ld32", "ld40"]
    pg = {}
    for l in open(os.path.join(here, "predictions_gemm.txt")):
        f = l.split()
        if f and f[0] in names:
            pg[f[0]] = f
    cols = {"elapsed": ("gpc__cycles_elapsed.max", 1), "sm_active": ("sm__cycles_active.avg", 3),
            "issued": ("smsp__inst_executed.sum", 4),
            "ld_wavefronts": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 5),
            "ld_conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 6),
            "st_wavefronts": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 8),
            "st_conflicts": ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 9),
            "ldsm": ("smsp__sass_inst_executed_op_ldsm.sum", 7)}
    print("\nvariant metric gpu warpsim ratio")
    for n, k in zip(names, ids):
        for c, (m, i) in cols.items():
            g = vals[k].get(m)
            w = float(pg[n][i]) if n in pg else None
            r = f"{w / g:.3f}" if g and w is not None else "-"
            print(n, c, g, w, r)
        print(n, "hmma", vals[k].get("smsp__inst_executed_pipe_tensor_op_hmma.sum"))

# layout_more
p = os.path.join(raw, "layout_more.txt")
if os.path.exists(p):
    print("\nkind lane: (row, col) per element")
    per = defaultdict(lambda: defaultdict(list))
    for l in open(p):
        f = l.split()
        if f and f[0] == "L":
            div = 16 if "u8" in f[1] else 32
            v = int(f[4]); per[f[1]][int(f[2])].append((v // div, v % div))
    for k in per:
        for lane in (0, 1, 4, 31):
            print(k, lane, per[k][lane])
