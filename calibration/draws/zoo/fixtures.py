#!/usr/bin/env python3
"""Device outputs of run.sh -> tests/fixtures/h200/zoo_kernels.tsv.

    python3 calibration/draws/zoo/fixtures.py calibration/draws/zoo/raw

One row per launch of zoo.cu's main(), named as its "launched NAME" line in run.txt (ncu's ID
column follows the launch order): shared load/store/atomic wavefronts, bank conflicts and
instructions (ncu's whole-kernel totals), then cycles, time and the main stall reasons.
"""
import csv, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from ncu import cell as fmt, number as num  # noqa: E402  (were copies in classic/ and zoo/)

TOT = [("ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
       ("ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
       ("ld_inst", "smsp__sass_inst_executed_op_shared_ld.sum"),
       ("st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
       ("st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
       ("st_inst", "smsp__sass_inst_executed_op_shared_st.sum"),
       ("atom_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"),
       ("atom_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"),
       ("atom_inst", "smsp__sass_inst_executed_op_shared_atom.sum"),
       ("elapsed_cycles", "gpc__cycles_elapsed.max"),
       ("sm_active_cycles_avg", "sm__cycles_active.avg"),
       ("duration_ns", "gpu__time_duration.sum"),
       ("warp_cycles_per_issued", "smsp__average_warp_latency_per_inst_issued.ratio"),
       ("inst_executed", "smsp__inst_executed.sum")]
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "wait", "not_selected",
          "math_pipe_throttle", "no_instruction", "selected"]


def main():
    d = sys.argv[1]
    names = [l.split()[1] for l in open(os.path.join(d, "run.txt")) if l.startswith("launched ")]
    rows = list(csv.reader(open(os.path.join(d, "ncu_totals.csv"))))
    hdr = next(r for r in rows if "Metric Name" in r)
    iid, im, iv = hdr.index("ID"), hdr.index("Metric Name"), hdr.index("Metric Value")
    got = {}
    for r in rows:
        if len(r) == len(hdr) and r is not hdr:
            got.setdefault(int(r[iid]), {})[r[im]] = num(r[iv])
    out = ["name\t" + "\t".join(n for n, _ in TOT) + "\t" + "\t".join(STALLS)]
    for i, k in enumerate(names):
        m = got[i]
        st = [fmt(m.get("smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s)) for s in STALLS]
        out.append("\t".join([k] + [fmt(m.get(metric)) for _, metric in TOT] + st))
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "fixtures", "h200")
    open(os.path.join(root, "zoo_kernels.tsv"), "w").write("\n".join(out) + "\n")
    print("\n".join(out))


main()
