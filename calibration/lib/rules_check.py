#!/usr/bin/env python3
"""Re-scores the model on launches already measured on the H200 with issued-instruction counts
and stall metrics: the template draws DRAWS (draws 4-6 here, 66 launches: the mean of each
draw's raw/ncu_1.csv and ncu_2.csv) and every row of the held-out validation set
(calibration/draws/whole_kernels/validation_heldout.tsv, 44 launches, never used for tuning).
The validation set is reported in two parts and whole: its 34 launches of kernels.cu's four
templates (transposes, transpose64, matmul, sgemm4x4: the families the model was developed on)
and its 10 CUDA ports of programs/examples (reduce, vectors, divergence: volatile shared arrays,
and nvcc's instruction stream is not warpsim's, e.g. divergence_k's loop unrolled by 4). For
each WARPSIM binary: mean |log(model / H200)| of elapsed and SM-active cycles and of issued
instructions, launches within 15%, and stalls within 30% or 3 cycles an instruction.

Written for draw7 (nvcc.rs's rules checked before the fresh draw; rules_check.txt there: main
at 0e4a67a, then nvcc.rs's first version, then the rules as fixed). Until issue 36 this script
reported only the 34 template launches of the held-out set, its docstring saying they were the
ones "that port to a shipped program" (the 10 others port programs/examples just as well; they
were left out because the program table knew only kernels.cu's templates): the committed
outputs of draw7, source_page, scheduler and queue_share (rules_check.txt,
queue_name_check.txt, policy_check.txt, land_check.txt, queue_check.txt) are of those 34.

    python3 calibration/lib/rules_check.py OUT.json WARPSIM [WARPSIM ...]

The draws' raw ncu files are not in the tree: calibration/lib/restore_raw.sh calibration/draws
brings them back first.
"""
import csv, json, math, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CAL, ROOT  # noqa: E402
from ncu import measured  # noqa: E402
from programs import program, template  # noqa: E402

STALLS = ["mio_throttle", "short_scoreboard", "long_scoreboard", "barrier"]
# The draws whose launches are checked, and what the summary calls them.
DRAWS, LABEL = ["draw4", "draw5", "draw6"], "draws 4-6"
M = {"elapsed": "gpc__cycles_elapsed.max", "active": "sm__cycles_active.avg", "inst": "smsp__inst_executed.sum",
     **{s: f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio" for s in STALLS}}


def launches():
    for d in DRAWS:
        D = os.path.join(CAL, "draws", d)
        L = list(csv.DictReader(open(os.path.join(D, "launches.tsv")), delimiter="\t"))
        runs = [measured(os.path.join(D, "raw", f"ncu_{r}.csv")) for r in (1, 2)]
        for k, r in enumerate(L):
            yield d, r["name"], r["regs_per_thread"], {key: sum(x[k][v] for x in runs) / 2 for key, v in M.items()}
    for r in csv.DictReader(open(os.path.join(CAL, "draws", "whole_kernels", "validation_heldout.tsv")),
                            delimiter="\t"):
        kind = "heldout" if template(r["name"]) == "kernels.cu" else "heldout-examples"
        yield kind, r["name"], r["regs_per_thread"], {
            "elapsed": float(r["elapsed_cycles"]), "active": float(r["sm_active_cycles_avg"]),
            "inst": float(r["inst_executed"]), **{s: float(r["stall_" + s]) for s in STALLS}}


def model(binary, name, regs):
    prog, defines = program(name)
    cmd = [binary, "run", os.path.join(ROOT, "programs", prog), "--format", "json", "--no-verify", "--regs", regs]
    for d in defines:
        cmd += ["-D", d]
    t = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["timing"]
    return {"elapsed": t["elapsed_cycles"], "active": t["sm_active_cycles_avg"],
            "inst": t["issued_warp_instructions"], **{s: t["stalls"].get(s, 0.0) for s in STALLS}}


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
        held = [r for r in rows if r["set"].startswith("heldout")]
        print(" ", LABEL, summary([r for r in rows if not r["set"].startswith("heldout")], b))
        print("  held-out, kernels.cu's templates", summary([r for r in held if r["set"] == "heldout"], b))
        print("  held-out, ports of programs/examples", summary([r for r in held if r["set"] != "heldout"], b))
        print("  held-out, all", summary(held, b))


if __name__ == "__main__":
    main()
