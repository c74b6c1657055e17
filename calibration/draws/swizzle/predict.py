#!/usr/bin/env python3
"""calibration/swizzle: warpsim's predictions for a launch list, written before the H200 ran
them (model.tsv: launches.tsv with the first rule; model2.tsv: launches2.tsv with the second;
model3.tsv: launches3.tsv with the third).

    python3 calibration/swizzle/predict.py WARPSIM_BINARY OUT.tsv [launches2.tsv]
"""
import csv, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "wait"]


def program(name):
    """The shipped program and defines that port a launch of swz.cu."""
    swz = {"_xor": ["SWIZZLE=1"], "_g2": ["SWIZZLE=2"], "_g4": ["SWIZZLE=4"], "_g8": ["SWIZZLE=8"],
           "_swzA": ["SWIZZLE=1"], "_swzAB": ["SWIZZLE=1", "SWIZZLE_B=1"], "_swz4": ["SWIZZLE=4"]}
    tail = [v for k, v in swz.items() if name.endswith(k)]
    tail = tail[0] if tail else []
    m = re.match(r"transpose(64)?_n(\d+)_tile32x32", name)
    if m:
        return ("transpose_f64.ron" if m[1] else "transpose.ron"), ["N=" + m[2]] + tail
    m = re.match(r"sgemm4x4_n(\d+)", name)
    if m:
        return "sgemm_4x4.ron", ["N=" + m[1]] + tail
    m = re.match(r"matmul_n(\d+)_t(\d+)(_transA)?", name)
    return "matmul.ron", ["N=" + m[1], "TILE=" + m[2]] + (["TRANS_A=1"] if m[3] else []) + tail


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
