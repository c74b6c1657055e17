#!/usr/bin/env python3
"""int_pipes: cycles per warp instruction per sub-partition, per mode, from the ncu CSVs.
    summarize.py RAWDIR"""
import csv, io, os, sys

NAMES = ["IADD3", "IMAD", "LOP3", "IMAD|IADD3", "IMAD|LOP3", "FFMA|IADD3", "IADD3|LOP3", "FFMA"]
d = sys.argv[1]
print("mode\tkind\tsm_active\tinst\tcycles_per_inst_per_smsp\talu\tfma\tfmaheavy\tfmalite\tissue_pct\tmath_throttle")
for m in range(8):
    p = os.path.join(d, f"ncu_{m}.csv")
    try:
        lines = [l for l in open(p) if l.startswith('"')]
        rows = list(csv.DictReader(io.StringIO("".join(lines))))
        v = {r["Metric Name"]: float(r["Metric Value"].replace(",", "")) for r in rows}
    except Exception as e:  # noqa: BLE001
        print(f"{m}\t{NAMES[m]}\tno data ({e})")
        continue
    inst = v["smsp__inst_executed.sum"]
    cyc = v["sm__cycles_active.avg"]
    # 132 SMs x 4 sub-partitions
    per = cyc / (inst / (132 * 4))
    print(f"{m}\t{NAMES[m]}\t{cyc:.0f}\t{inst:.0f}\t{per:.3f}\t{v.get('smsp__inst_executed_pipe_alu.sum', 0):.0f}\t"
          f"{v.get('smsp__inst_executed_pipe_fma.sum', 0):.0f}\t{v.get('smsp__inst_executed_pipe_fmaheavy.sum', 0):.0f}\t"
          f"{v.get('smsp__inst_executed_pipe_fmalite.sum', 0):.0f}\t"
          f"{v.get('smsp__issue_active.avg.pct_of_peak_sustained_active', 0):.1f}\t"
          f"{v.get('smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio', 0):.2f}")
