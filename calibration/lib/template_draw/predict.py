#!/usr/bin/env python3
"""calibration/draw4: warpsim's predictions for launches.tsv, written before the H200 ran them.

    python3 calibration/draw4/predict.py WARPSIM_BINARY model.tsv [DIR]

DIR: another draw's folder (its launches.tsv), e.g. calibration/draw5.
"""
import csv, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "drain"]


def program(name):
    """The shipped program and defines that port a launch of kernels.cu."""
    m = re.match(r"transpose_n(\d+)_tile32x3(\d)(_xor)?$", name)
    if m:
        return "transpose.ron", ["N=" + m[1]] + (["PAD=1"] if m[2] == "3" else []) + (["SWIZZLE=1"] if m[3] else [])
    m = re.match(r"transpose64_n(\d+)_tile32x3(\d)$", name)
    if m:
        return "transpose_f64.ron", ["N=" + m[1]] + (["PAD=1"] if m[2] == "3" else [])
    m = re.match(r"matmul_n(\d+)_t(\d+)(_transA)?(_pad1)?$", name)
    if m:
        return "matmul.ron", ["N=" + m[1], "TILE=" + m[2]] + (["TRANS_A=1"] if m[3] else []) + (["PAD=1"] if m[4] else [])
    m = re.match(r"sgemm4x4_n(\d+)(_pad4)?$", name)
    return "sgemm_4x4.ron", ["N=" + m[1]] + (["PAD=4"] if m[2] else [])


def main():
    binary, out = sys.argv[1], sys.argv[2]
    where = sys.argv[3] if len(sys.argv) > 3 else HERE
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
