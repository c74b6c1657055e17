#!/usr/bin/env python3
"""warpsim's predictions for the draw of gen.py, written before the device runs it: per kernel,
the body's length as warpsim issues its PTX (the smallest `compiler.if_convert` that predicates
it), whether the preset (10) predicates it, the issued warp instructions, elapsed and SM-active
cycles with the preset, and the issued count with if-conversion off and with every body
predicated (the two outcomes the device's SASS decides between).

    WARPSIM_NVRTC=... python3 predict.py [WARPSIM [DRAW]] > predictions.tsv

DRAW: the folder whose launches/ to predict (default this one; ../if_convert2 uses it too).
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
WS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "warpsim")
DRAW = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else HERE
PRESET = open(os.path.join(ROOT, "crates", "machine", "presets", "h200.ron")).read()
TMP = tempfile.mkdtemp()


def gpu(k):
    p = os.path.join(TMP, f"h200_if{k}.ron")
    if not os.path.exists(p):
        with open(p, "w") as f:
            f.write(PRESET.replace("if_convert: 10,", f"if_convert: {k},"))
    return p


def run(kernel, k=None):
    args = [WS, "run", os.path.join(DRAW, "launches", f"{kernel}.cu.ron"), "--format", "json"]
    if k is not None:
        args += ["--gpu", gpu(k)]
    p = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["timing"]


def main():
    assert "if_convert: 10," in PRESET
    n = len([f for f in os.listdir(os.path.join(DRAW, "launches")) if f.endswith(".cu.ron")])
    print("\t".join(["kernel", "warpsim_len", "predicated_at_10", "issued", "elapsed_cycles",
                     "sm_active_cycles_avg", "issued_if_0", "issued_if_64"]))
    for i in range(n):
        kernel = f"ifk{i}"
        t = run(kernel)
        off, on = run(kernel, 0)["issued_warp_instructions"], run(kernel, 64)["issued_warp_instructions"]
        length = "-"
        if on != off:
            length = next(k for k in range(1, 65) if run(kernel, k)["issued_warp_instructions"] != off)
        pred = t["issued_warp_instructions"] != off
        print("\t".join(str(v) for v in [kernel, length, int(pred), t["issued_warp_instructions"],
                                          t["elapsed_cycles"], round(t["sm_active_cycles_avg"], 1),
                                          off, on]), flush=True)


if __name__ == "__main__":
    main()
