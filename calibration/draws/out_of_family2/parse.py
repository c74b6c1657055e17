#!/usr/bin/env python3
"""The device run's raw folder -> measured.tsv (one row a launch, keyed by launches.tsv's label)
and source.tsv (the Source page's shared, barrier, branch and global SASS rows of the `src`
launches). Adapted from calibration/probes/conflict_cost/parse.py.

    python3 parse.py RAW [OUTDIR]      # RAW = $OUT/out_of_family2 of run.sh (or its unpacked tar)

Reads RAW/ncu_all.<k>.csv (Nsight Compute, --csv --print-units base, one ID a launch in launch
order) with RAW/launches_all.<k>.txt (the host's "LAUNCH i label kernel grid block" lines, in the
same order), and RAW/source_src.<k>.csv with RAW/launches_src.<k>.txt. Standard library only.
"""

import csv
import io
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = ["all"]
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "wait",
          "not_selected", "selected", "no_instruction", "drain", "math_pipe_throttle",
          "branch_resolving", "dispatch_stall", "misc", "membar", "sleeping", "tex_throttle", "imc_miss"]
METRICS = [
    ("duration_ns", "gpu__time_duration.sum"),
    ("elapsed_cycles", "gpc__cycles_elapsed.max"),
    ("sm_active_cycles_avg", "sm__cycles_active.avg"),
    ("sm_active_cycles_max", "sm__cycles_active.max"),
    ("smsp_active_cycles_avg", "smsp__cycles_active.avg"),
    ("warp_cycles_per_issued_instruction", "smsp__average_warp_latency_per_inst_issued.ratio"),
    ("inst_executed", "smsp__inst_executed.sum"),
    ("thread_inst_executed", "smsp__thread_inst_executed.sum"),
    ("thread_inst_executed_pred_on", "smsp__thread_inst_executed_pred_on.sum"),
    ("warps_active_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
    ("ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("ld_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
    ("ld_instructions", "smsp__sass_inst_executed_op_shared_ld.sum"),
    ("st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
    ("st_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
    ("st_instructions", "smsp__sass_inst_executed_op_shared_st.sum"),
    ("shared_pipe_pct_elapsed", "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed"),
    ("lsu_inst", "smsp__inst_executed_pipe_lsu.sum"),
    ("global_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("dram_read_bytes", "dram__bytes_read.sum"),
    ("dram_write_bytes", "dram__bytes_write.sum"),
    ("atom_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
    ("atom_bank_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
    ("atom_instructions", "smsp__sass_inst_executed_op_shared_atom.sum"),
] + [("stall_" + s, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STALLS]


def num(s):
    s = s.replace(",", "").strip()
    try:
        return float(s)
    except ValueError:
        return None


def fmt(v):
    if v is None:
        return ""
    return str(int(v)) if float(v).is_integer() else "%.4g" % v


def launches(path):
    """The host's LAUNCH lines: [(label, kernel, grid, block)] in launch order."""
    out = []
    if not os.path.exists(path):
        return out
    for line in open(path, errors="replace"):
        p = line.rstrip("\n").split("\t")
        if len(p) >= 6 and p[0] == "LAUNCH":
            out.append((p[2], p[3], p[4], p[5]))
    return out


def base(kernel):
    return kernel.split("<")[0].split("(")[0].replace("void ", "").strip()


def ncu_rows(path):
    """{ID: (kernel name, {metric: value})} from an ncu --csv metrics log."""
    got = {}
    if not os.path.exists(path):
        return got
    lines = [l for l in open(path, errors="replace").read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    hdr = next((r for r in rows if "Metric Name" in r and "ID" in r), None)
    if hdr is None:
        return got
    ii, ik, im, iv = hdr.index("ID"), hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    for r in rows:
        if r is hdr or len(r) != len(hdr):
            continue
        try:
            i = int(r[ii])
        except ValueError:
            continue
        got.setdefault(i, (r[ik], {}))[1][r[im]] = num(r[iv])
    return got


def chunk_names(raw, prefix):
    """run.sh's chunks (`classic.1`, `lvl1.2`, ...) that have a launches_<chunk>.txt, in order."""
    names = [f[len("launches_"):-len(".txt")] for f in os.listdir(raw)
             if f.startswith("launches_") and f.endswith(".txt")]
    names = [n for n in names if n.split(".")[0] in prefix]

    def key(n):
        g, _, k = n.partition(".")
        return (GROUPS.index(g) if g in GROUPS else 99, int(k) if k.isdigit() else 0)
    return sorted(names, key=key)


def measured(raw):
    out, problems = [], []
    for g in chunk_names(raw, GROUPS):
        ls = launches(os.path.join(raw, f"launches_{g}.txt"))
        got = ncu_rows(os.path.join(raw, f"ncu_{g}.csv"))
        if not ls and not got:
            continue
        ids = sorted(got)
        if len(ids) != len(ls):
            problems.append(f"{g}: {len(ls)} launches, {len(ids)} profiled (kept the first min of both)")
        for (label, kernel, grid, block), i in zip(ls, ids):
            name, m = got[i]
            if base(kernel) not in name:
                problems.append(f"{g}: ID {i} is {name!r}, launch {label} is {kernel}")
                continue
            row = {"label": label, "kernel": kernel, "grid": grid, "block": block}
            for short, metric in METRICS:
                row[short] = fmt(m.get(metric))
            out.append(row)
    return out, problems


def source(raw):
    """Shared-memory, barrier and branch SASS rows of each `src` launch's Source page."""
    out = []
    for c in chunk_names(raw, ["src"]):
        out += source_chunk(os.path.join(raw, f"source_{c}.csv"), launches(os.path.join(raw, f"launches_{c}.txt")))
    return out


def source_chunk(path, ls):
    if not os.path.exists(path):
        return []
    lines = [l for l in open(path, errors="replace").read().splitlines() if l.startswith('"')]
    blocks, cur = [], None
    for l in lines:
        if l.startswith('"Kernel Name"'):
            cur = {"kernel": next(csv.reader([l]))[1], "rows": []}
            blocks.append(cur)
        elif cur is not None:
            cur["rows"].append(l)
    # Nsight prints each kernel's page twice in a row in some versions: keep the first of a pair.
    if len(blocks) == 2 * len(ls):
        blocks = blocks[::2]
    out = []
    for bi, b in enumerate(blocks):
        label = ls[bi][0] if bi < len(ls) else f"block{bi}"
        rows = list(csv.reader(io.StringIO("\n".join(b["rows"]))))
        hdr = next((r for r in rows if "Address" in r and "Source" in r), None)
        if hdr is None:
            continue
        col = {h: i for i, h in enumerate(hdr)}
        stall_cols = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
        for r in rows:
            if r is hdr or len(r) != len(hdr) or not r[col["Address"]].startswith("0x"):
                continue
            sass = re.sub(r"\s+", " ", r[col["Source"]].strip())
            op = sass.lstrip("@!P0123456789T ").split(" ")[0]
            keep = op.split(".")[0] in ("LDS", "STS", "ATOMS", "BAR", "BRA", "LDG", "STG", "EXIT")
            samples = {h: num(r[col[h]]) or 0 for h in stall_cols}
            top = sorted(((v, h) for h, v in samples.items() if v), reverse=True)[:3]

            def c(name):
                return r[col[name]] if name in col else ""

            out.append({"label": label, "address": r[col["Address"]][-5:], "sass": sass, "keep": keep,
                        "executed": c("Instructions Executed"),
                        "pred_on_threads": c("Predicated-On Thread Instructions Executed"),
                        "wavefronts": c("L1 Wavefronts Shared"),
                        "ideal": c("L1 Wavefronts Shared Ideal"),
                        "samples": c("Warp Stall Sampling (All Samples)"),
                        "top_stalls": ", ".join(f"{h[6:]} {int(v)}" for v, h in top)})
    return out


def write(path, rows, cols):
    with open(path, "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(str(r.get(c, "")) for c in cols) + "\n")


def main():
    raw = sys.argv[1]
    outdir = sys.argv[2] if len(sys.argv) > 2 else HERE
    rows, problems = measured(raw)
    write(os.path.join(outdir, "measured.tsv"), rows, ["label", "kernel", "grid", "block"] + [m[0] for m in METRICS])
    src = [r for r in source(raw) if r["keep"]]
    write(os.path.join(outdir, "source.tsv"), src,
          ["label", "address", "sass", "executed", "pred_on_threads", "wavefronts", "ideal", "samples", "top_stalls"])
    for p in problems:
        print("PROBLEM:", p)
    print(f"measured.tsv: {len(rows)} launches; source.tsv: {len(src)} rows")


if __name__ == "__main__":
    main()
