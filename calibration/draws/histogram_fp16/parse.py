#!/usr/bin/env python3
"""Turns the H200 outputs of run.sh (ncu_*.csv) into tests/fixtures/h200/kernels2.tsv rows.

Usage: parse.py OUTDIR > tests/fixtures/h200/kernels2.tsv
Rows: kernel, then Nsight's shared ld/st/atom wavefronts, bank conflicts and SASS instructions
executed, then duration (ns) and SM active cycles, as measured (no arithmetic on them)."""
import csv, sys, os

PROGRAMS = {  # kernel -> (program, defines)
    "histogram256": ("histogram.ron", "-"),
    "histogram256_inc": ("histogram_inc.ron", "-"),
    "histogram256_f32": ("histogram_f32.ron", "-"),
    "hgemm_tile": ("hgemm_tile.ron", "-"),
    "hgemm_tile_h": ("hgemm_tile_h.ron", "-"),
}
COLS = []
for op in ("ld", "st", "atom"):
    COLS += [f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum",
             f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum",
             f"smsp__sass_inst_executed_op_shared_{op}.sum"]
COLS += ["gpu__time_duration.sum", "sm__cycles_active.avg"]
NAMES = [f"{op}_{k}" for op in ("ld", "st", "atom") for k in ("wavefronts", "bank_conflicts", "instructions")] + ["duration_ns", "sm_cycles_active"]

def main(d):
    vals = {}
    for f in ("ncu_histogram.csv", "ncu_fp16.csv"):
        p = os.path.join(d, f)
        if not os.path.exists(p):
            continue
        lines = [l for l in open(p) if l.startswith('"')]
        for row in csv.DictReader(lines):
            k = row["Kernel Name"].split("(")[0]
            vals.setdefault(k, {})[row["Metric Name"]] = row["Metric Value"].replace(",", "")
    print("\t".join(["kernel", "program", "defines"] + NAMES))
    for k, m in vals.items():
        prog, defs = PROGRAMS.get(k, ("-", "-"))
        print("\t".join([k, prog, defs] + [m.get(c, "NA") for c in COLS]))

main(sys.argv[1])
