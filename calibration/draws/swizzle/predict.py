#!/usr/bin/env python3
"""calibration/draws/swizzle: warpsim's predictions for a launch list, written before the H200 ran
them (model.tsv: launches.tsv with the first rule; model2.tsv: launches2.tsv with the second;
model3.tsv: launches3.tsv with the third).

    python3 calibration/draws/swizzle/predict.py WARPSIM_BINARY OUT.tsv [launches2.tsv]
"""
import csv, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "lib"))
from common import ROOT  # noqa: E402
from programs import program  # noqa: E402

STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "wait"]


def main():
    binary, out = sys.argv[1], sys.argv[2]
    launches = sys.argv[3] if len(sys.argv) > 3 else "launches.tsv"
    rows = list(csv.DictReader(open(os.path.join(HERE, launches)), delimiter="\t"))
    with open(out, "w") as f:
        f.write("\t".join(["name", "inst_executed", "elapsed_cycles", "sm_active_cycles_avg",
                           "warp_cycles_per_issued_inst"] + ["stall_" + s for s in STALLS]) + "\n")
        for r in rows:
            prog, defines = program(r["name"])
            cmd = [binary, "run", os.path.join(ROOT, "programs", prog), "--format", "json", "--no-verify",
                   "--regs", r["regs_per_thread"]]
            for d in defines:
                cmd += ["-D", d]
            t = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)["timing"]
            vals = [t["issued_warp_instructions"], t["elapsed_cycles"], round(t["sm_active_cycles_avg"], 1),
                    round(t["warp_cycles_per_issued_instruction"], 2)] + [round(t["stalls"].get(s, 0), 2) for s in STALLS]
            f.write("\t".join([r["name"]] + [str(v) for v in vals]) + "\n")
            print(r["name"], vals, flush=True)


main()
