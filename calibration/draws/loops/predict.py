#!/usr/bin/env python3
"""Loads in a loop vs straight-line loads: warpsim's prediction, written before the H200 runs.

    python3 calibration/draws/loops/predict.py [WARPSIM] [DRAW [OUT]]   # default target/release/warpsim, 1

The rule under test (crates/timing/src/trace.rs): a PTX branch back (a loop ptxas keeps) stops
the hoisting of loads, so a loop's loads wait for one another's iteration; straight-line loads
overlap. Launches: the two of tests/timing.rs, then 12 drawn at random (seed 20261201, drawn
after the rule was fixed). Writes configs.txt (kernel G B K, the H200 harness's input) and
model.tsv (warpsim's elapsed and SM-active cycles, long-scoreboard stall per issue).

A committed prediction is never overwritten (model.tsv was, after draw 1 ran; issue 36 restored
it from e66c739 and kept the later file as model_redone_after_draw1.tsv): with the draw's model
file already there, give OUT, a new file name, as the third argument.
"""
import json, os, random, subprocess, sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
B = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "warpsim")
DRAW = int(sys.argv[2]) if len(sys.argv) > 2 else 1
# Draw 2 (seed 20261202, 16 launches, files configs2.txt and model2.tsv) was drawn after the
# unrolling of counted loops (crates/timing/src/unroll.rs) was fixed, and predicted before it ran.
rng = random.Random(20261200 + DRAW)
# Draw 3 (configs3.txt, model3.tsv): the grid-stride loop `sum_stride`, which ptxas should keep
# (predicted before its SASS and times were seen), with `sum_loop` beside it.
cfgs = [("sum_loop", 1, 256, 4), ("sum_straight", 1, 256, 4)] if DRAW == 1 else []
if DRAW == 3:
    cfgs = [("sum_stride", 1, 256, 4), ("sum_loop", 1, 256, 3), ("sum_stride", 1, 256, 3),
            ("sum_stride", 33, 256, 5), ("sum_loop", 33, 256, 5), ("sum_stride", 132, 128, 8),
            ("sum_loop", 132, 128, 8), ("sum_stride", 8, 1024, 2)]
for _ in range({1: 12, 2: 16}.get(DRAW, 0)):
    k = rng.choice(["sum_loop", "sum_loop", "sum_straight"])
    cfgs.append((k, rng.choice([1, 8, 33, 132, 264]), rng.choice([32, 64, 128, 256, 512, 1024]),
                 rng.randint(2, 8) if k == "sum_loop" else 4))
here = os.path.dirname(os.path.abspath(__file__))
sfx = "" if DRAW == 1 else str(DRAW)
out = os.path.join(here, sys.argv[3] if len(sys.argv) > 3 else f"model{sfx}.tsv")
if os.path.exists(out):
    sys.exit(f"{out} exists: a prediction committed before its draw ran is kept; give another file name")
with open(os.path.join(here, f"configs{sfx}.txt"), "w") as f, open(out, "w") as m:
    m.write("kernel\tgrid\tblock\tk\telapsed_cycles\tsm_active_cycles_avg\tstall_long_scoreboard\n")
    for k, g, b, kk in cfgs:
        f.write(f"{k} {g} {b} {kk}\n")
        d = ["-D", f"G={g}", "-D", f"B={b}"] + (["-D", f"K={kk}"] if k != "sum_straight" else [])
        o = subprocess.run([B, "run", os.path.join(ROOT, "tests/fixtures/ptx", k + ".ron"), "--format", "json"] + d,
                           capture_output=True, text=True, check=True)
        v = json.loads(o.stdout)
        assert v["verified"], (k, g, b, kk)
        t = v["timing"]
        m.write(f"{k}\t{g}\t{b}\t{kk}\t{t['elapsed_cycles']}\t{t['sm_active_cycles_avg']:.2f}\t{t['stalls']['long_scoreboard']:.2f}\n")
