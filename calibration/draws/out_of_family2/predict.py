#!/usr/bin/env python3
"""warpsim's prediction for every launch of launches.tsv: runs `WARPSIM run launches/<label>.cu.ron
--format json` and writes one TSV row a launch: whether it verified, the counters Nsight Compute
measures in run.sh (shared wavefronts, conflicts, instructions, atomics) and the timing model's
numbers (elapsed and SM-active cycles, issued warp instructions, stall reasons as cycles per
issued instruction, what the conflicts cost).

Usage: WARPSIM_NVRTC=... python3 predict.py WARPSIM OUT.tsv [--no-verify]
(predict.sh wraps it.) Exits 1 if a launch fails or does not verify (the row says so).
"""

import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "wait",
          "not_selected", "selected", "no_instruction", "drain", "math_pipe_throttle",
          "branch_resolving", "dispatch_stall", "misc"]
SHARED = ["ld_wavefronts", "ld_bank_conflicts", "ld_instructions", "st_wavefronts",
          "st_bank_conflicts", "st_instructions", "atom_wavefronts", "atom_bank_conflicts",
          "atom_instructions"]
COLS = (["label", "kernel", "family", "twin", "verified", "elapsed_cycles", "sm_active_cycles_avg",
         "issued_warp_instructions", "warp_cycles_per_issued_instruction", "conflict_cost_cycles",
         "shared_pipe_utilization"] + SHARED + ["stall_" + s for s in STALLS] + ["seconds"])


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    ws, path = sys.argv[1], sys.argv[2]
    extra = ["--no-verify"] if "--no-verify" in sys.argv[3:] else []
    with open(os.path.join(HERE, "launches.tsv")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    bad = 0
    with open(path, "w") as fo:
        out = csv.writer(fo, delimiter="\t", lineterminator="\n")
        out.writerow(COLS)
        for r in rows:
            t0 = time.time()
            ron = os.path.join(HERE, "launches", r["label"] + ".cu.ron")
            p = subprocess.run([ws, "run", ron, "--format", "json"] + extra, capture_output=True,
                               text=True)
            dt = round(time.time() - t0, 1)
            v = {c: "" for c in COLS}
            v.update(label=r["label"], kernel=r["kernel"], family=r["family"], twin=r["twin"],
                     seconds=dt)
            try:
                j = json.loads(p.stdout)
            except ValueError:
                j = None
            if p.returncode not in (0, 1) or j is None:
                v["verified"] = f"FAILED rc={p.returncode}"
                print(f"{r['label']}: warpsim failed ({p.returncode}): {p.stderr[-1500:]}", file=sys.stderr)
                bad += 1
            else:
                t = j.get("timing") or {}
                v["verified"] = {True: "yes", False: "NO", None: "-"}[j.get("verified")]
                if v["verified"] != "yes" and not extra:
                    bad += 1
                def g(k, nd=None):  # a missing field (a changed model's JSON) leaves the cell empty
                    x = t.get(k, "")
                    return round(x, nd) if nd is not None and isinstance(x, (int, float)) else x
                v.update(elapsed_cycles=g("elapsed_cycles"),
                         sm_active_cycles_avg=g("sm_active_cycles_avg", 1),
                         issued_warp_instructions=g("issued_warp_instructions"),
                         warp_cycles_per_issued_instruction=g("warp_cycles_per_issued_instruction", 2),
                         conflict_cost_cycles=g("conflict_cost_cycles"),
                         shared_pipe_utilization=g("shared_pipe_utilization", 4))
                for k in SHARED:
                    v[k] = j.get("shared", {}).get(k, "")
                for k in STALLS:
                    v["stall_" + k] = round(t.get("stalls", {}).get(k, 0.0), 2)
            out.writerow([v[c] for c in COLS])
            fo.flush()
            print(f"{r['label']}: {v['verified']}, elapsed {v['elapsed_cycles']}, "
                  f"sm {v['sm_active_cycles_avg']} ({dt} s)", file=sys.stderr)
    print(f"{len(rows)} launches, {bad} failed or not verified -> {path}", file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
