#!/usr/bin/env python3
"""calibration/draws/swizzle: the model's predictions against the H200 (raw/ncu*_1.csv and _2.csv:
elapsed and SM-active cycles the mean of two ncu runs, instructions from the first), and the
instructions a swizzle adds (swizzled launch minus its unswizzled twin, per warp). Writes
measured.tsv (both draws) for tests/timing.rs.

    python3 calibration/draws/swizzle/compare.py > compare.txt
"""
import csv, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
RAW = os.path.join(HERE, "raw")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
from ncu import by_launch as measured  # noqa: E402


def h200(prefix, launches):
    runs = [measured(os.path.join(RAW, f"{prefix}_{r}.csv")) for r in (1, 2)]
    names = [r["name"] for r in csv.DictReader(open(os.path.join(HERE, launches)), delimiter="\t")]
    out = []
    for i, n in enumerate(names):
        if "gpc__cycles_elapsed.max" not in runs[0].get(i, {}):
            continue  # (refused by the H200: too many registers for the block)
        out.append((n, {
            "inst": runs[0][i]["smsp__inst_executed.sum"],
            "elapsed": sum(x[i]["gpc__cycles_elapsed.max"] for x in runs) / 2,
            "sm": sum(x[i]["sm__cycles_active.avg"] for x in runs) / 2,
            "regs": runs[0][i]["launch__registers_per_thread"],
        }))
    return out


def warps(name):
    n = int(name.split("_n")[1].split("_")[0])
    if name.startswith("sgemm"):
        return (n // 64) ** 2 * 8
    if name.startswith("matmul"):
        t = int(name.split("_t")[1].split("_")[0])
        return (n // t) ** 2 * t * t // 32
    return (n // 32) ** 2 * 8


def compare(title, meas, model_file):
    m = {r["name"]: r for r in csv.DictReader(open(os.path.join(HERE, model_file)), delimiter="\t")}
    print(f"== {title}: {model_file} (model / H200)")
    print(f"{'launch':34} {'instructions':>24} {'elapsed':>7} {'SM':>6}  regs")
    le, ls, w = [], [], [0, 0]
    for n, h in meas:
        if n not in m:
            continue
        r = m[n]
        e = float(r["elapsed_cycles"]) / h["elapsed"]
        s = float(r["sm_active_cycles_avg"]) / h["sm"]
        i = float(r["inst_executed"]) / h["inst"]
        le.append(abs(math.log(e)))
        ls.append(abs(math.log(s)))
        w[0] += abs(e - 1) <= 0.15
        w[1] += abs(s - 1) <= 0.15
        print(f"{n:34} {int(r['inst_executed']):>10}/{int(h['inst']):>10} {i:4.2f} {e:7.2f} {s:6.2f}  {int(h['regs'])}")
    k = len(le)
    if k == 0:
        return
    print(f"mean |log ratio|: elapsed {sum(le) / k:.3f}, SM active {sum(ls) / k:.3f}; within 15%: {w[0]} and {w[1]} of {k}")
    extra = []
    for n, h in meas:
        base = n.replace("_xor", "").replace("_swzA", "").replace("_swz4", "")
        twin = dict(meas).get(base)
        if twin is None or base == n or n not in m or base not in m:
            continue
        mt = m[base]
        hw = (h["inst"] - twin["inst"]) / warps(n)
        mw = (float(m[n]["inst_executed"]) - float(mt["inst_executed"])) / warps(n)
        extra.append(f"  {n:34} H200 {hw:6.1f}  model {mw:6.1f}")
    if extra:
        print("instructions the swizzle adds, per warp (swizzled minus its twin):")
        print("\n".join(extra))
    print()


d1 = h200("ncu", "launches.tsv")
d2 = h200("ncu2", "launches2.tsv")
d3 = h200("ncu3", "launches3.tsv")
with open(os.path.join(HERE, "measured.tsv"), "w") as f:
    f.write("name\tinst_executed\telapsed_cycles\tsm_active_cycles_avg\tregs_per_thread\n")
    for n, h in d1 + d2 + d3:
        f.write(f"{n}\t{int(h['inst'])}\t{h['elapsed']:.1f}\t{h['sm']:.1f}\t{int(h['regs'])}\n")
compare("draw 1, first rule (every access, every time), predicted before the run", d1, "model.tsv")
compare("draw 1, hoisting rule (fitted to this draw's matmuls), registers as measured", d1, "model_v2_regs.tsv")
compare("draw 2, hoisting rule, predicted before the run (registers 30)", d2, "model2.tsv")
compare("draw 2, hoisting rule, registers as measured (the model's documented input)", d2, "model2_regs.tsv")
compare("draw 3, group rule, predicted before the run (registers 30 and 56)", d3, "model3.tsv")
compare("draw 3, group rule, registers as measured", d3, "model3_regs.tsv")
