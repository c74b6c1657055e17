#!/usr/bin/env python3
"""The template draws (written for draw4): the barrier wait of the padded transpose in warpsim, to set beside the
stamped transpose's on the H200 (compare.py). From SM 0's `--timeline`: the mean length of a
warp's `barrier` span (it includes the barrier's own 12.65 + 2 x 8 cycles, which the H200's
"wait for the block's last warp" does not).

    python3 calibration/lib/template_draw/model_wait.py WARPSIM_BINARY [N ...]   (default: draw4's sizes)
"""
import json, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
for n in [int(a) for a in sys.argv[2:]] or (1024, 1536, 2048, 4096):
    with tempfile.TemporaryDirectory() as d:
        tl = os.path.join(d, "tl.json")
        subprocess.run([sys.argv[1], "run", os.path.join(ROOT, "programs", "transpose.ron"), "-D", f"N={n}",
                        "-D", "PAD=1", "--regs", "28", "--no-verify", "--timeline", tl],
                       check=True, capture_output=True)
        ev = json.load(open(tl))
        ev = ev["traceEvents"] if isinstance(ev, dict) else ev
        spans = {}
        for e in ev:
            if e.get("name") == "barrier":
                k = (e["tid"], e["args"]["block"])
                spans[k] = spans.get(k, 0) + e["args"]["cycles"]
        print(f"N={n:5}: mean barrier span of a warp {sum(spans.values()) / len(spans):.0f} cycles ({len(spans)} warps of SM 0)")
