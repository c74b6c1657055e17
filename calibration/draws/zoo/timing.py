#!/usr/bin/env python3
"""The zoo's time: warpsim's timing model against the H200 (tests/fixtures/h200/zoo_kernels.tsv).

    WARPSIM_NVRTC=/path/libnvrtc.so.12 python3 calibration/draws/zoo/timing.py [WARPSIM ...]

runs each programs/cuda/zoo/*.ron launch (`warpsim run … --format json --no-verify`, preset
H200) with each binary (default: target/release/warpsim) and prints, per binary, model / H200
for elapsed cycles and SM-active cycles per launch, how many are within 15%, the range and the
mean |log ratio|. Held-out data for the timing model: nothing in it was tuned to these kernels.
"""
import csv, json, math, os, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
rows = list(csv.DictReader(open(os.path.join(ROOT, "tests/fixtures/h200/zoo_kernels.tsv")), delimiter="\t"))
for b in sys.argv[1:] or [os.path.join(ROOT, "target/release/warpsim")]:
    r = {"elapsed_cycles": [], "sm_active_cycles_avg": []}
    line = []
    for row in rows:
        path = os.path.join(ROOT, "programs/cuda/zoo", row["name"] + ".ron")
        out = subprocess.run([b, "run", path, "--format", "json", "--no-verify"], capture_output=True, text=True, cwd=ROOT)
        if out.returncode not in (0, 1):
            line.append(f"{row['name']}: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
            continue
        t = json.loads(out.stdout)["timing"]
        q = [t[k] / float(row[k]) for k in r]
        for k, v in zip(r, q):
            r[k].append(v)
        line.append(f"{row['name']} {q[0]:.2f}/{q[1]:.2f}")
    print(b)
    print("  " + ", ".join(line))
    for k, v in r.items():
        n = sum(abs(x - 1) <= 0.15 for x in v)
        print(f"  {k}: within 15% {n} of {len(v)}, {min(v):.2f}-{max(v):.2f}, mean |log| {sum(abs(math.log(x)) for x in v) / len(v):.3f}")
