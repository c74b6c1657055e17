#!/usr/bin/env python3
"""cuda_kernels1's device-side reading of its own output (run.sh calls it; standard library only).

    summarize.py sasscheck SASS_OPS_TSV   each kernel's SASS has the instructions it is here for
    summarize.py summary RAW              the < 2,000-character summary run.sh prints
    summarize.py measured RAW             launch<TAB>metric<TAB>value, one line each (ncu + verdicts)
"""
import csv
import io
import os
import sys
from collections import OrderedDict, defaultdict

# kernel (as cuobjdump names it, prefix) -> opcodes (prefixes) its SASS must hold
NEED = OrderedDict([
    ("convRows", ["ULDC*c3"]), ("convCols", ["ULDC*c3"]), ("conv2dTiled", ["ULDC*c3"]),
    ("fdDerivX", ["ULDC*c3"]), ("fdDerivY", ["ULDC*c3"]), ("fdtd3d", ["ULDC*c3"]),
    ("crc32Const", ["LDC*c3"]), ("hornerConst", ["ULDC*c3"]),
    ("shflScan", ["SHFL.UP"]), ("reduceRedux", ["REDUX"]), ("matchAnyHist", ["MATCH.ANY", "ATOMS"]),
    ("syncCountRank", ["BAR.RED.POPC"]), ("bitTricks", ["BREV", "POPC", "FLO", "PRMT"]),
    ("cgTile32Reduce", ["REDUX"]), ("cgTile16Shfl", ["SHFL.DOWN"]), ("cgTile64Reduce", ["ATOM", "SHFL.IDX"]),
    ("bitonicSortShared", ["LDS", "STS"]), ("oddEvenMergeSortShared", ["LDS", "STS"]),
    ("_Z13sgemm1DTiling", ["LDS.128"]), ("_Z11sgemm2DColA", ["LDS"]), ("_Z10sgemm2DVec", ["LDS.128", "STS.128"]),
    ("softmaxBlock", ["SHFL.BFLY", "LDS"]), ("softmaxOnline", ["SHFL.BFLY"]), ("layernormWarp", ["SHFL.BFLY"]),
    ("histogram256", ["ATOMS"]), ("mergeHistogram256", ["LDS"]),
])

SHORT = {"smsp__sass_inst_executed_op_shared_ld.sum": "ld_inst", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "ld_wf",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "ld_conf",
         "smsp__sass_inst_executed_op_shared_st.sum": "st_inst", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "st_wf",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "st_conf",
         "smsp__sass_inst_executed_op_shared_atom.sum": "atom_inst",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum": "atom_wf",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum": "atom_conf",
         "gpc__cycles_elapsed.max": "elapsed", "sm__cycles_active.avg": "sm_active", "smsp__inst_executed.sum": "inst",
         "gpu__time_duration.sum": "ns", "smsp__inst_executed_op_ldc.sum": "ldc", "sm__idc_divergent_instruction_replays.sum": "ldc_replays",
         "idc__requests.sum": "idc_req", "idc__requests_lookup_miss.sum": "idc_miss", "smsp__imc_requests.sum": "uldc"}


def sasscheck(path):
    ops = defaultdict(dict)
    for ln in open(path):
        f = ln.rstrip("\n").split("\t")
        if len(f) == 3:
            ops[f[0]][f[1]] = int(f[2])
    bad = 0
    for k, need in NEED.items():
        fs = [f for f in ops if f.startswith(k)]
        if not fs:
            print(f"{k}: NOT IN SASS")
            bad += 1
            continue
        o = ops[fs[0]]
        miss = []
        for n in need:
            if "*" in n:
                a, b = n.split("*")
                hit = [x for x in o if x.startswith(a) and x.endswith("[" + b + "]")]
            else:
                hit = [x for x in o if x.startswith(n)]
            if not hit:
                miss.append(n)
        bad += bool(miss)
        print(f"{k}: {'MISSING ' + ' '.join(miss) if miss else 'ok'}")
    print(f"sass check: {len(NEED) - bad}/{len(NEED)} kernels have their instructions")


def launches_in(path):
    out = []
    if os.path.exists(path):
        for ln in open(path, errors="replace"):
            if ln.startswith("L "):
                out.append(ln.split()[2])
    return out


def ncu_table(raw):
    p = os.path.join(raw, "ncu_metrics.csv")
    if not os.path.exists(p):
        return {}
    txt = open(p, errors="replace").read()
    rows = [r for r in csv.reader(io.StringIO(txt)) if len(r) >= 15 and r[0] != "ID"]
    names = launches_in(os.path.join(raw, "ncu_metrics_run.txt"))
    t = defaultdict(dict)
    for r in rows:
        try:
            i = int(r[0])
        except ValueError:
            continue
        name = names[i] if i < len(names) else f"id{i}"
        t[name][r[12]] = r[14].replace(",", "")
    return t


def verdicts(raw):
    v = OrderedDict()
    p = os.path.join(raw, "run.txt")
    if os.path.exists(p):
        for ln in open(p, errors="replace"):
            if ln.startswith("V "):
                f = ln.split(" ", 3)
                v[f[1]] = f[2]
    return v


def summary(raw):
    env = open(os.path.join(raw, "env.txt"), errors="replace").read().splitlines() if os.path.exists(os.path.join(raw, "env.txt")) else []
    print("cuda_kernels1: " + " | ".join(x.strip() for x in env[:1] + env[2:3] + env[4:5]))
    v = verdicts(raw)
    fails = [k for k, x in v.items() if x != "ok"]
    print(f"H200 verified {len(v) - len(fails)}/{len(v)}" + (f"; FAIL: {' '.join(fails)}" if fails else ""))
    sc = os.path.join(raw, "sass_check.txt")
    if os.path.exists(sc):
        lines = open(sc).read().splitlines()
        print((lines[-1] if lines else "sass check: -") + "; " + " ".join(l.split(":")[0] for l in lines[:-1] if "ok" not in l))
    t = ncu_table(raw)
    print(f"ncu: {len(t)} launches; per launch: ld/st/atom inst:wf:conf, elapsed, ldc:replays")
    for name, m in t.items():
        g = lambda k: m.get(k, "-").split(".")[0]
        parts = []
        for op in ("ld", "st", "atom"):
            i = g(f"smsp__sass_inst_executed_op_shared_{op}.sum")
            if i not in ("0", "-"):
                parts.append(f"{op}{i}:{g(f'l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum')}:{g(f'l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum')}")
        ldc = g("smsp__inst_executed_op_ldc.sum")
        c = f" c{ldc}:{g('sm__idc_divergent_instruction_replays.sum')}" if ldc.isdigit() and int(ldc) > 64 else ""
        print(f" {name[:12]} {' '.join(parts)} e{g('gpc__cycles_elapsed.max')}{c}")


def measured(raw):
    print("launch\tmetric\tvalue")
    for k, x in verdicts(raw).items():
        print(f"{k}\th200_verified\t{x}")
    for name, m in ncu_table(raw).items():
        for metric, val in m.items():
            print(f"{name}\t{SHORT.get(metric, metric)}\t{val}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    {"sasscheck": sasscheck, "summary": summary, "measured": measured}[sys.argv[1]](sys.argv[2])
