#!/usr/bin/env python3
"""calibration/checks/sampled_timing: the full model against sampled timing (`--sample K`) on every
measured launch of draws 4-7 and every row of the held-out validation set (its 34 launches of
kernels.cu's templates and its 10 ports of programs/examples; until issue 36 the 10 were left
out without a word, and k4.tsv and k12.tsv here were made so), with the H200's values.

    MINWAVES=2 python3 calibration/checks/sampled_timing/compare.py WARPSIM_BINARY K out.tsv

MINWAVES: skip launches of fewer waves (blocks over 132 SMs times blocks per SM: lib/programs.py).
Prints each launch's sampled/full - 1 of elapsed, SM-active, barrier and short_scoreboard;
summary.py reads out.tsv.
"""
import csv, json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import CAL, ROOT  # noqa: E402
from programs import program, waves  # noqa: E402
binary, k, out = sys.argv[1], sys.argv[2], sys.argv[3]
rows = []
for d in ["draw4", "draw5", "draw6", "draw7"]:
    meas = {r["name"]: r for r in csv.DictReader(open(f"{CAL}/draws/{d}/measured.tsv"), delimiter="\t")}
    for r in csv.DictReader(open(f"{CAL}/draws/{d}/launches.tsv"), delimiter="\t"):
        rows.append((d, r["name"], r["regs_per_thread"], meas.get(r["name"])))
for r in csv.DictReader(open(f"{CAL}/draws/whole_kernels/validation_heldout.tsv"), delimiter="\t"):
    rows.append(("heldout", r["name"], r["regs_per_thread"], r))
KEYS = ["elapsed_cycles", "sm_active_cycles_avg", "barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "drain"]
def run(prog, defines, regs, kk):
    cmd = [binary, "run", os.path.join(ROOT, "programs", prog), "--format", "json", "--no-verify", "--regs", regs, "--sample", str(kk)]
    for d in defines: cmd += ["-D", d]
    j = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    t = j["timing"]
    return [t["elapsed_cycles"], t["sm_active_cycles_avg"]] + [t["stalls"].get(s, 0) for s in KEYS[2:]], j
with open(out, "w") as f:
    f.write("set\tname\tblocks\t" + "\t".join(f"{a}_{b}" for a in KEYS for b in ["full", "samp", "h200"]) + "\n")
    for d, name, regs, m in rows:
        prog, defines = program(name)
        if waves(name) < float(os.environ.get("MINWAVES", "0")):
            continue
        a, j = run(prog, defines, regs, 1)
        b, _ = run(prog, defines, regs, k)
        blocks = j.get("launch", {}).get("blocks", "")
        hv = []
        for key in KEYS:
            mk = key if key.endswith("avg") or key.startswith("elapsed") else "stall_" + key
            hv.append((m or {}).get(mk, ""))
        f.write(f"{d}\t{name}\t{blocks}\t" + "\t".join(f"{x:.2f}\t{y:.2f}\t{z}" for x, y, z in zip(a, b, hv)) + "\n")
        f.flush()
        print(name, [round(y / x - 1, 3) if x else 0 for x, y in zip(a, b)][:4], flush=True)
