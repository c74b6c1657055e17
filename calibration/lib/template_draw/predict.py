#!/usr/bin/env python3
"""The template draws: warpsim's predictions for a draw's launches.tsv, written before the H200
ran them.

    python3 calibration/lib/template_draw/predict.py WARPSIM_BINARY model.tsv [DIR]

DIR: the draw's folder (its launches.tsv), e.g. calibration/draws/draw5; default draw4's.
"""
import csv, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import CAL, ROOT  # noqa: E402
from programs import program  # noqa: E402

STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "drain"]


def main():
    binary, out = sys.argv[1], sys.argv[2]
    where = sys.argv[3] if len(sys.argv) > 3 else os.path.join(CAL, "draws", "draw4")
    rows = list(csv.DictReader(open(os.path.join(where, "launches.tsv")), delimiter="\t"))
    with open(out, "w") as f:
        f.write("\t".join(["name", "elapsed_cycles", "sm_active_cycles_avg", "warp_cycles_per_issued_inst"]
                          + ["stall_" + s for s in STALLS] + ["issued_warp_instructions"]) + "\n")
        for r in rows:
            prog, defines = program(r["name"])
            cmd = [binary, "run", os.path.join(ROOT, "programs", prog), "--format", "json", "--no-verify",
                   "--regs", r["regs_per_thread"]]
            for d in defines:
                cmd += ["-D", d]
            t = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["timing"]
            vals = [t["elapsed_cycles"], round(t["sm_active_cycles_avg"], 1),
                    round(t["warp_cycles_per_issued_instruction"], 2)] + [round(t["stalls"].get(s, 0), 2) for s in STALLS] \
                + [t["issued_warp_instructions"]]
            f.write("\t".join([r["name"]] + [str(v) for v in vals]) + "\n")
            print(r["name"], vals, flush=True)


if __name__ == "__main__":
    main()
