#!/usr/bin/env python3
"""The classic kernels' time: warpsim's timing model against the H200's measurement.

    python3 calibration/draws/classic/timing.py [WARPSIM]     # default: target/release/warpsim

runs every measured launch of tests/fixtures/h200/classic_kernels.tsv with the timing model on
(`warpsim run … --format json --no-verify`, the default preset, H200) and writes
calibration/draws/classic/timing.tsv and the same as a Markdown table to timing.md and stdout: elapsed cycles
(gpc__cycles_elapsed.max), SM active cycles (sm__cycles_active.avg) and duration
(gpu__time_duration.sum), measured and modelled, with modelled / measured, and beside them the
issued warp instructions (smsp__inst_executed.sum, from raw/ncu_totals.csv). These kernels are
held-out data for the timing model: nothing in it was tuned to them.
"""
import csv, json, os, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
PORTS = {"reduce_shfl": ("reduce_shfl", []), "scan_hillis_steele": ("scan_hillis_steele", []),
         "scan_blelloch": ("scan_blelloch", ["CF=0"]), "scan_blelloch_cf": ("scan_blelloch", ["CF=1"]),
         "stencil5": ("stencil5", []), "conv2d_tiled": ("conv2d_tiled", []),
         "softmax_row": ("softmax_row", []), "nbody_tile": ("nbody_tile", []),
         "bitonic_sort_shared": ("bitonic_sort_shared", []), "radix_split4": ("radix_split4", [])}
COLS = [("elapsed_cycles", "elapsed cycles"), ("sm_active_cycles_avg", "SM active cycles"),
        ("duration_ns", "duration (ns)")]


def issued():
    rows = list(csv.reader(open(os.path.join(ROOT, "calibration", "draws", "classic", "raw", "ncu_totals.csv"))))
    hdr = next(r for r in rows if "Metric Name" in r)
    ik, im, iv = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    return {r[ik].split("(")[0].strip(): float(r[iv].replace(",", "")) for r in rows
            if len(r) == len(hdr) and r[im] == "smsp__inst_executed.sum"}


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "warpsim")
    lines = open(os.path.join(ROOT, "tests", "fixtures", "h200", "classic_kernels.tsv")).read().splitlines()
    hdr = lines[0].split("\t")
    inst = issued()
    cols = COLS + [("issued_warp_instructions", "issued warp instructions")]
    stalls = ["| kernel | warp cycles per issued instruction in each stall reason, H200 / warpsim (the H200's four largest) |",
              "| --- | --- |"]
    tsv = ["kernel\t" + "\t".join("%s_h200\t%s_warpsim\t%s_ratio" % (c, c, c) for c, _ in cols)]
    md = ["| kernel | " + " | ".join("%s: H200 / warpsim (warpsim ÷ H200)" % n for _, n in cols) + " |",
          "| --- |" + " --- |" * len(cols)]
    for line in lines[1:]:
        f = dict(zip(hdr, line.split("\t")))
        prog, defines = PORTS[f["name"]]
        cmd = [exe, "run", "programs/classic/%s.ron" % prog, "--format", "json", "--no-verify"]
        for d in defines:
            cmd += ["--define", d]
        t = json.loads(subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=True).stdout)["timing"]
        cells, row = [], [f["name"]]
        f["issued_warp_instructions"] = inst[f["name"]]
        for c, _ in cols:
            h, w = float(f[c]), float(t[c])
            row += ["%.0f" % h, "%.0f" % w, "%.2f" % (w / h)]
            cells.append("%s / %s (%.2f)" % (format(round(h), ","), format(round(w), ","), w / h))
        tsv.append("\t".join(row))
        h200 = {k: float(f[k]) for k in hdr[10:] if k != "selected" and f[k] not in ("", "-")}
        top = sorted(h200, key=lambda k: -h200[k])[:4]
        stalls.append("| `%s` | " % f["name"] + ", ".join(
            "%s %.1f / %.1f" % (k, h200[k], t["stalls"].get(k, 0.0)) for k in top) + " |")
        md.append("| `%s` | " % f["name"] + " | ".join(cells) + " |")
    open(os.path.join(ROOT, "calibration", "draws", "classic", "timing.tsv"), "w").write("\n".join(tsv) + "\n")
    head = ["# Classic kernels: the timing model against the H200", "",
            "Written by `python3 calibration/draws/classic/timing.py` (measured: raw/ncu_totals.csv via",
            "tests/fixtures/h200/classic_kernels.tsv; modelled: `warpsim run`, preset H200). Held-out",
            "data for the timing model: nothing in it was tuned to these kernels.", ""]
    note = ["", "Stall reasons (Nsight's smsp__average_warps_issue_stalled_*_per_issue_active; the",
            "model's `timing.stalls`), reported only:", ""]
    open(os.path.join(ROOT, "calibration", "draws", "classic", "timing.md"), "w").write("\n".join(head + md + note + stalls) + "\n")
    print("\n".join(md))


main()
