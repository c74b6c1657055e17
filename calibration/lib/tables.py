#!/usr/bin/env python3
"""Turn ncu's long CSV (one row per kernel x metric) into the calibration tables.

usage: tables.py NCU_CSV LAUNCHES_TXT PTXAS_TXT PREFIX OUT_TSV [NCU_CSV LAUNCHES_TXT ...]

Rows are the launches whose label starts with PREFIX ("orig_" or "ho_"); the label comes from
the LAUNCH lines the probe binary printed, matched to ncu's IDs by launch order. Several
(csv, launches) pairs may follow OUT_TSV: then the first gives the table and the others are
repeats, reported as extra columns `<col>_runs` = all values, comma-separated (the first is the
table's value), and `<col>_median` = their median, for duration, elapsed cycles, SM active
cycles and warp cycles per issued instruction.
"""
import csv, re, sys

STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "lg_throttle", "wait",
          "not_selected", "selected", "no_instruction", "drain", "math_pipe_throttle",
          "branch_resolving", "dispatch_stall", "misc", "membar", "sleeping", "tex_throttle", "imc_miss"]
COLS = [("duration_ns", "gpu__time_duration.sum"),
        ("elapsed_cycles", "gpc__cycles_elapsed.max"),
        ("sm_active_cycles_avg", "sm__cycles_active.avg"),
        ("warp_cycles_per_issued_inst", "smsp__average_warp_latency_per_inst_issued.ratio")]
COLS += [("stall_" + s, f"smsp__average_warps_issue_stalled_{s}_per_issue_active.ratio") for s in STALLS]
COLS += [("inst_executed", "smsp__inst_executed.sum"),
         ("sm_active_cycles_max", "sm__cycles_active.max"),
         ("smsp_active_cycles_avg", "smsp__cycles_active.avg"),
         ("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"),
         ("ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
         ("st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
         ("ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
         ("st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
         ("shared_ld_inst", "smsp__sass_inst_executed_op_shared_ld.sum"),
         ("shared_st_inst", "smsp__sass_inst_executed_op_shared_st.sum"),
         ("global_ld_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
         ("global_ld_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
         ("global_st_sectors", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
         ("global_st_requests", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
         ("l2_hit_pct", "lts__t_sector_hit_rate.pct"),
         ("dram_read_bytes", "dram__bytes_read.sum"),
         ("dram_write_bytes", "dram__bytes_write.sum"),
         ("lsu_inst", "smsp__inst_executed_pipe_lsu.sum"),
         ("shared_pipe_pct_of_peak_elapsed", "l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed")]


def load(csv_path, launches_path):
    labels = {}
    for line in open(launches_path):
        p = line.rstrip("\n").split("\t")
        if p[0] == "LAUNCH":
            labels[int(p[1])] = (p[2], p[3], p[4])
    rows = [r for r in csv.reader(l for l in open(csv_path) if l.startswith('"'))]
    hdr = rows[0]
    idx = {h: i for i, h in enumerate(hdr)}
    per = {}
    names = {}
    for r in rows[1:]:
        kid = int(r[idx["ID"]])
        per.setdefault(kid, {})[r[idx["Metric Name"]]] = r[idx["Metric Value"]].replace(",", "")
        names[kid] = r[idx["Kernel Name"]]
    out = {}
    for kid in sorted(per):
        lab = labels[kid]
        out[lab[0]] = (lab, names[kid], per[kid])
    return out


def regs(ptxas_path):
    """mangled kernel name -> registers per thread, from nvcc -Xptxas -v."""
    res, cur = {}, None
    for line in open(ptxas_path):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            res[cur] = int(m.group(1))
    return res


def mangled(kernel_name):
    """ncu's demangled name -> the mangled name ptxas printed (just the kernels used here)."""
    m = re.match(r"void (\w+)<(.*)>\(", kernel_name)
    base, args = (m.group(1), [a.strip() for a in m.group(2).split(",")]) if m else (kernel_name.split("(")[0], [])
    # ncu prints bool template arguments as 0/1: accept either Li or Lb in the mangled name
    enc = "".join(f"L[ib]{ {'true': '1', 'false': '0'}.get(a, a) }E" for a in args)
    return base, enc


def reg_of(kernel_name, regtab):
    base, enc = mangled(kernel_name)
    for k, v in regtab.items():
        if k.startswith(f"_Z{len(base)}{base}") and (not enc or re.search(f"I{enc}E", k)):
            return v
    return ""


def main():
    a = sys.argv[1:]
    csv0, lau0, ptx, prefix, out_path = a[:5]
    reps = [load(a[i], a[i + 1]) for i in range(5, len(a), 2)]
    t = load(csv0, lau0)
    regtab = regs(ptx)
    cols = ["name", "grid", "block", "regs_per_thread"] + [c for c, _ in COLS]
    rep_cols = ["duration_ns", "elapsed_cycles", "sm_active_cycles_avg", "warp_cycles_per_issued_inst"]
    if reps:
        cols += [c + "_runs" for c in rep_cols] + [c + "_median" for c in rep_cols]
    with open(out_path, "w") as f:
        f.write("\t".join(cols) + "\n")
        for label, (lab, kname, m) in t.items():
            if not label.startswith(prefix):
                continue
            name = label[len(prefix):]
            row = [name, lab[1], lab[2], str(reg_of(kname, regtab))]
            for c, metric in COLS:
                row.append(m.get(metric, ""))
            meds = []
            for c in rep_cols if reps else []:
                metric = dict(COLS)[c]
                vals = [m.get(metric, "")] + [r[label][2].get(metric, "") for r in reps if label in r]
                row.append(",".join(vals))
                nums = sorted(float(v) for v in vals if v)
                meds.append(f"{nums[len(nums) // 2]:g}" if nums else "")
            row += meds
            f.write("\t".join(row) + "\n")


if __name__ == "__main__":
    main()
