#!/usr/bin/env python3
"""calibration/draw7: nvcc.rs's rules checked, before the fresh draw, on launches already measured
that have issued-instruction counts: the 66 of draws 4-6 (raw/ncu_1.csv and ncu_2.csv, their
mean) and the 34 held-out launches of calibration/heldout_timing.tsv that port to a shipped
program. For each WARPSIM binary: mean |log(model / H200)| of elapsed and SM-active cycles and
of issued instructions, launches within 15%, and stalls within 30% or 3 cycles an instruction.

    python3 calibration/draw7/rules_check.py OUT.json WARPSIM [WARPSIM ...]

(rules_check.txt: main at 0e4a67a, then nvcc.rs's first version, then the rules as fixed.)
"""
import csv, json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "calibration", "draw4"))
from ncu import measured  # noqa: E402
from predict import program  # noqa: E402

STALLS = ["mio_throttle", "short_scoreboard", "long_scoreboard", "barrier"]
# The draws whose launches are checked, and what the summary calls them.
DRAWS, LABEL = ["draw4", "draw5", "draw6"], "draws 4-6"
M = {"elapsed": "gpc__cycles_elapsed.max", "active": "sm__cycles_active.avg", "inst": "smsp__inst_executed.sum",
     **{s: f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS}}


def launches():
    for d in DRAWS:
        D = os.path.join(ROOT, "calibration", d)
        L = list(csv.DictReader(open(os.path.join(D, "launches.tsv")), delimiter="\t"))
        runs = [measured(os.path.join(D, "raw", f"ncu_{r}.csv")) for r in (1, 2)]
        for k, r in enumerate(L):
            yield d, r["name"], r["regs_per_thread"], {key: sum(x[k][v] for x in runs) / 2 for key, v in M.items()}
    for r in csv.DictReader(open(os.path.join(ROOT, "calibration", "heldout_timing.tsv")), delimiter="\t"):
        if r["name"].startswith(("transpose", "matmul", "sgemm4x4")):
            yield "heldout", r["name"], r["regs_per_thread"], {
                "elapsed": float(r["elapsed_cycles"]), "active": float(r["sm_active_cycles_avg"]),
                "inst": float(r["inst_executed"]), **{s: float(r["stall_" + s]) for s in STALLS}}


def model(binary, name, regs):
    prog, defines = program(name)
    cmd = [binary, "run", os.path.join(ROOT, "programs", prog), "--format", "json", "--no-verify", "--regs", regs]
    for d in defines:
        cmd += ["-D", d]
    t = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["timing"]
    return {"elapsed": t["elapsed_cycles"], "active": t["sm_active_cycles_avg"],
            "inst": t["issued_warp_instructions"], **{s: t["stalls"][s] for s in STALLS}}


def summary(rows, b):
    n = len(rows)
    lg = lambda k: sum(abs(math.log(r[b][k] / r["h200"][k])) for r in rows) / n
    w15 = lambda k: sum(abs(r[b][k] / r["h200"][k] - 1) <= 0.15 for r in rows)
    st = {s: sum(abs(r[b][s] - r["h200"][s]) <= max(0.3 * r["h200"][s], 3.0) for r in rows) for s in STALLS}
    return (f"n={n}: |log| elapsed {lg('elapsed'):.3f} SM-active {lg('active'):.3f} issued {lg('inst'):.3f}; "
            f"within 15% {w15('elapsed')} and {w15('active')}; stalls within 30%/3: {st}")


def main():
    out, bins = sys.argv[1], sys.argv[2:]
    rows = []
    for d, name, regs, h in launches():
        row = {"set": d, "name": name, "h200": h}
        for b in bins:
            row[b] = model(b, name, regs)
        rows.append(row)
        print(d, name, flush=True)
    json.dump(rows, open(out, "w"))
    for b in bins:
        print(b)
        print(" ", LABEL, summary([r for r in rows if r["set"] != "heldout"], b))
        print("  held-out ", summary([r for r in rows if r["set"] == "heldout"], b))


if __name__ == "__main__":
    main()
