#!/usr/bin/env python3
"""const_cold: warpsim's predictions of every launch (launches/*.cu.ron) -> predictions.tsv.
    WARPSIM_NVRTC=... python3 predict.py BIN [OUT.tsv]
Per launch: verified, elapsed and SM-active cycles, issued warp instructions, the stalls per
issue (imc_miss, long_scoreboard, short_scoreboard, wait, no_instruction), imc_miss and
long_scoreboard cycles per warp (per issue x issued / warps), ULDC and LDC counts."""
import csv, json, os, subprocess, sys

D = os.path.dirname(os.path.abspath(__file__))
binary = sys.argv[1]
out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(D, "predictions.tsv")
cfgs = list(csv.DictReader(open(os.path.join(D, "configs.tsv")), delimiter="\t"))
cols = ["name", "verified", "elapsed_cycles", "sm_active_cycles_avg", "issued", "imc_miss_per_issue",
        "long_sb_per_issue", "short_sb_per_issue", "wait_per_issue", "no_inst_per_issue",
        "imc_miss_cycles_per_warp", "long_sb_cycles_per_warp", "uldc", "ldc", "idc_requests"]
rows = []
for c in cfgs:
    p = subprocess.run([binary, "run", os.path.join(D, "launches", c["name"] + ".cu.ron"), "--format", "json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        rows.append([c["name"], "error: " + p.stderr.strip().splitlines()[0][:120]] + [""] * (len(cols) - 2))
        continue
    d = json.loads(p.stdout)
    t, s = d["timing"], d["timing"]["stalls"]
    k = d.get("constant") or {"uldc_instructions": 0, "ldc_instructions": 0, "idc_requests": 0}
    warps = int(c["grid"]) * int(c["block"]) // 32
    per_warp = t["issued_warp_instructions"] / warps
    rows.append([c["name"], d["verified"], t["elapsed_cycles"], f"{t['sm_active_cycles_avg']:.1f}",
                 t["issued_warp_instructions"], f"{s['imc_miss']:.3f}", f"{s['long_scoreboard']:.3f}",
                 f"{s['short_scoreboard']:.3f}", f"{s['wait']:.3f}", f"{s['no_instruction']:.3f}",
                 f"{s['imc_miss'] * per_warp:.1f}", f"{s['long_scoreboard'] * per_warp:.1f}",
                 k["uldc_instructions"], k["ldc_instructions"], k["idc_requests"]])
with open(out, "w") as f:
    f.write("\t".join(cols) + "\n")
    for r in rows:
        f.write("\t".join(str(x) for x in r) + "\n")
print(f"{len(rows)} launches -> {out}")
