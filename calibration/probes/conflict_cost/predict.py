#!/usr/bin/env python3
"""warpsim's prediction for every row of launches.tsv (groups other than `clock`; `src` rows are
copies of others and skipped): runs `warpsim run ports/<kernel>.ron -D ... --format json` and
writes predictions.tsv, one row per launch: the counters Nsight Compute measures in run.sh and
the timing model's numbers (elapsed and SM-active cycles, issued warp instructions, the stall
reasons as cycles per issued instruction, what conflicts cost).

Usage: WARPSIM_NVRTC=... python3 predict.py [WARPSIM] > predictions.tsv
       (WARPSIM default /work/bin/warpsim; run from this folder or anywhere)
"""

import csv
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "wait",
          "not_selected", "selected", "no_instruction", "drain", "math_pipe_throttle",
          "branch_resolving", "dispatch_stall", "misc"]
COLS = (["label", "kernel", "grid", "block", "a", "b", "c", "group", "verified",
         "elapsed_cycles", "sm_active_cycles_avg", "sm_active_cycles_max", "issued_warp_instructions",
         "warp_cycles_per_issued_instruction", "conflict_cost_cycles", "shared_pipe_utilization",
         "ld_wavefronts", "ld_bank_conflicts", "ld_instructions", "st_wavefronts",
         "st_bank_conflicts", "st_instructions"] + ["stall_" + s for s in STALLS])


def port_name(kernel):
    return re.sub(r"[<>,]+", "_", kernel).strip("_")


def run(ws, r):
    args = [ws, "run", os.path.join(HERE, "ports", port_name(r["kernel"]) + ".ron"), "--format", "json"]
    for d, k in (("G", "grid"), ("B", "block"), ("SMEM", "smem"), ("A", "a"), ("BB", "b"), ("C", "c"),
                 ("XLEN", "xlen"), ("OLEN", "outlen")):
        args += ["-D", f"{d}={r[k]}"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        raise SystemExit(f"{r['label']}: warpsim failed ({p.returncode}): {p.stderr[-2000:]}")
    return json.loads(p.stdout)


def main():
    ws = sys.argv[1] if len(sys.argv) > 1 else "/work/bin/warpsim"
    with open(os.path.join(HERE, "launches.tsv")) as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["group"] not in ("clock", "src")]
    out = csv.writer(sys.stdout, delimiter="\t", lineterminator="\n")
    out.writerow(COLS)
    for r in rows:
        j = run(ws, r)
        t, s = j["timing"], j["shared"]
        grid = int(r["grid"])
        # SM active: warpsim averages over all 132 SMs (an SM without a block counts 0), as
        # sm__cycles_active.avg; with one block the busiest SM is that block's: avg * 132.
        sm_max = t["sm_active_cycles_avg"] * t["sms"] if grid == 1 else ""
        v = {"label": r["label"], "kernel": r["kernel"], "grid": grid, "block": r["block"],
             "a": r["a"], "b": r["b"], "c": r["c"], "group": r["group"],
             "verified": {True: "yes", False: "NO", None: "-"}[j.get("verified")],
             "elapsed_cycles": t["elapsed_cycles"],
             "sm_active_cycles_avg": round(t["sm_active_cycles_avg"], 1),
             "sm_active_cycles_max": round(sm_max, 1) if sm_max != "" else "",
             "issued_warp_instructions": t["issued_warp_instructions"],
             "warp_cycles_per_issued_instruction": round(t["warp_cycles_per_issued_instruction"], 2),
             "conflict_cost_cycles": t["conflict_cost_cycles"],
             "shared_pipe_utilization": round(t["shared_pipe_utilization"], 4)}
        for k in ("ld_wavefronts", "ld_bank_conflicts", "ld_instructions", "st_wavefronts",
                  "st_bank_conflicts", "st_instructions"):
            v[k] = s[k]
        for k in STALLS:
            v["stall_" + k] = round(t["stalls"].get(k, 0.0), 2)
        out.writerow([v[c] for c in COLS])
        sys.stdout.flush()
        print(f"{r['label']}: sm_active {v['sm_active_cycles_avg']}", file=sys.stderr)


if __name__ == "__main__":
    main()
