#!/usr/bin/env python3
"""Device outputs of run.sh -> the test fixtures of the classic kernels.

    python3 calibration/draws/classic/fixtures.py DIR      # DIR = the run's $OUT/classic

writes tests/fixtures/h200/classic_kernels.tsv (whole-kernel totals from ncu_totals.csv: shared
load/store wavefronts, bank conflicts and instructions, cycles, time, main stalls) and
tests/fixtures/h200/classic_source.tsv (one row per shared-memory SASS instruction from each
kernel's Source page: kernel, address, SASS text, executions, wavefronts, ideal wavefronts, and
threads: the predicated-on thread instructions executed, i.e. the lanes that did the access).
"Executions" there count every warp that issued the instruction, also with its predicate off in
all lanes (Nsight's totals, smsp__sass_inst_executed_op_shared_*, count only warps with a lane on).
"""
import csv, io, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from ncu import cell as fmt, number as num  # noqa: E402  (were copies in classic/ and zoo/)

KERNELS = ["reduce_shfl", "scan_hillis_steele", "scan_blelloch", "scan_blelloch_cf", "stencil5",
           "conv2d_tiled", "softmax_row", "nbody_tile", "bitonic_sort_shared", "radix_split4"]
TOT = [("ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
       ("ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"),
       ("ld_inst", "smsp__sass_inst_executed_op_shared_ld.sum"),
       ("st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
       ("st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"),
       ("st_inst", "smsp__sass_inst_executed_op_shared_st.sum"),
       ("elapsed_cycles", "gpc__cycles_elapsed.max"),
       ("sm_active_cycles_avg", "sm__cycles_active.avg"),
       ("duration_ns", "gpu__time_duration.sum")]
STALLS = ["barrier", "short_scoreboard", "mio_throttle", "long_scoreboard", "wait", "not_selected",
          "math_pipe_throttle", "dispatch_stall", "no_instruction", "drain", "lg_throttle", "selected",
          "branch_resolving"]


def totals(d):
    rows = list(csv.reader(open(os.path.join(d, "ncu_totals.csv"))))
    hdr = next(r for r in rows if "Metric Name" in r)
    ik, im, iv = hdr.index("Kernel Name"), hdr.index("Metric Name"), hdr.index("Metric Value")
    got = {}
    for r in rows:
        if len(r) == len(hdr) and r is not hdr:
            k = r[ik].split("(")[0].strip()
            got.setdefault(k, {})[r[im]] = num(r[iv])
    out = ["name\t" + "\t".join(n for n, _ in TOT) + "\t" + "\t".join(STALLS)]
    for k in KERNELS:
        m = got.get(k)
        if not m:
            continue
        vals = [fmt(m.get(metric)) for _, metric in TOT]
        st = [fmt(m.get("smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s)) for s in STALLS]
        out.append("\t".join([k] + vals + st))
    return out


def source(d, k):
    p = os.path.join(d, "source_%s.csv" % k)
    if not os.path.exists(p):
        return []
    text = open(p, errors="replace").read()
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    hdr = next((r for r in rows if "Address" in r and "Source" in r), None)
    if hdr is None:
        return []
    col = {h: i for i, h in enumerate(hdr)}
    out = []
    for r in rows:
        if len(r) != len(hdr) or r is hdr or not r[col["Address"]].startswith("0x"):
            continue
        sass = re.sub(r"\s+", " ", r[col["Source"]].strip())
        op = sass.split(" ")[0]
        if op.startswith("@"):
            op = sass.split(" ")[1]
        if not re.match(r"(LDS|STS|ATOMS)", op):
            continue
        ex = num(r[col["Instructions Executed"]])
        wf = num(r[col.get("L1 Wavefronts Shared", -1)]) if "L1 Wavefronts Shared" in col else None
        ideal = num(r[col["L1 Wavefronts Shared Ideal"]]) if "L1 Wavefronts Shared Ideal" in col else None
        key = "Predicated-On Thread Instructions Executed"
        threads = num(r[col[key]]) if key in col else None
        out.append("\t".join([k, r[col["Address"]][-5:], sass, fmt(ex), fmt(wf), fmt(ideal), fmt(threads)]))
    return out


def main():
    d = sys.argv[1]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests", "fixtures", "h200")
    open(os.path.join(root, "classic_kernels.tsv"), "w").write("\n".join(totals(d)) + "\n")
    src = ["kernel\taddress\tsass\texecutions\twavefronts\tideal_wavefronts\tthreads"]
    for k in KERNELS:
        src += source(d, k)
    open(os.path.join(root, "classic_source.tsv"), "w").write("\n".join(src) + "\n")
    print("\n".join(totals(d)))
    print("\n".join(src))


main()
