#!/usr/bin/env python3
"""The model's side of share.cu: runs share.ron (gen_ron.py SPIN) with --timeline and prints,
per warp of SM 0's block that loads (sub-partition = warp % 4), cycles from the barrier's
release to its first shared load's issue (the end of its spin: the first `mio_throttle` or
`short_scoreboard` span), to its first `short_scoreboard` span (≈ its last load issued, as
the loads come back in order) and to the end of its last one (all 32 loads back: share.cu's
`end` clock).

    python3 calibration/probes/queue_share/model_share.py BIN SPIN [one|two]

With `one` or `two`, warp 2's row is its timed load: first = its issue, end = its data used.
"""
import collections, json, os, subprocess, sys, tempfile

CYC = 1980.0  # timeline microseconds at the preset's clock
here = os.path.dirname(os.path.abspath(__file__))


def warps(binary, spin, extra):
    src = subprocess.run([sys.executable, os.path.join(here, "gen_ron.py"), str(spin)] + extra,
                         check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as d:
        ron, tl = os.path.join(d, "share.ron"), os.path.join(d, "tl.json")
        open(ron, "w").write(src)
        subprocess.run([binary, "run", ron, "--timeline", tl], check=True, stdout=subprocess.DEVNULL)
        ev = json.load(open(tl))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    spans = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            spans[e["tid"]].append((e["ts"] * CYC, (e["ts"] + e["dur"]) * CYC, e["name"]))
    rows = {}
    release = max(z for ss in spans.values() for a, z, n in ss if n == "barrier")
    for tid, ss in spans.items():
        ss.sort()
        mem = [(a, z, n) for a, z, n in ss if n in ("mio_throttle", "short_scoreboard") and a >= release]
        sb = [(a, z) for a, z, n in mem if n == "short_scoreboard"]
        if mem and sb:
            rows[tid] = (mem[0][0], sb[0][0], sb[-1][1])
    return release, rows


def main():
    binary, spin = sys.argv[1], int(sys.argv[2])
    release, rows = warps(binary, spin, sys.argv[3:])
    mode = os.environ.get("WARPSIM_ADMIT", "model")
    for tid in sorted(rows):
        f, l, e = (round(x - release) for x in rows[tid])
        print(f"model {mode} spin {spin} warp {tid} sp {tid % 4}: first {f} last-issue {l} end {e}")


main()
