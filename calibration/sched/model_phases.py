#!/usr/bin/env python3
"""The model's rows of section 17's phase table: per block on SM 0 (oldest first), the mean over
its warps of cycles from the SM's first block's dispatch to the warp's loaded data (the end of its last
`long_scoreboard` before the barrier), then to its barrier arrival (its stores issued).

    python3 calibration/sched/model_phases.py BIN [PAD]
"""
import collections, json, subprocess, sys, tempfile

def rows(binary, pad):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([binary, "run", "programs/transpose.ron", "--regs", "28", "-D", f"PAD={pad}",
                        "--timeline", f.name], check=True, stdout=subprocess.DEVNULL)
        ev = json.load(open(f.name))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    spans = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            spans[(e["args"]["block"], e["tid"])].append((e["ts"], e["ts"] + e["dur"], e["name"]))
    per = collections.defaultdict(list)
    for (b, _), ss in spans.items():
        ss.sort()
        start = next((a for a, _, n in ss if n != "no_instruction"), None)
        bar = next((a for a, _, n in ss if n == "barrier"), None)
        if start is None or bar is None:
            continue
        data = max((z for a, z, n in ss if n == "long_scoreboard" and z <= bar), default=start)
        per[b].append((start, data, bar))
    cyc = 1980.0  # timeline microseconds at the preset's clock
    out = []
    for b, ws in sorted(per.items(), key=lambda kv: min(w[0] for w in kv[1]))[:8]:
        d = sum(w[1] for w in ws) / len(ws) * cyc
        s = sum(w[2] - w[1] for w in ws) / len(ws) * cyc
        out.append((b, d, s))
    return out

if __name__ == "__main__":
    pads = [sys.argv[2]] if len(sys.argv) > 2 else ["0", "1"]
    for pad in pads:
        r = rows(sys.argv[1], pad)
        print(f"PAD={pad} data   " + " ".join(f"{d:6.0f}" for _, d, _ in r))
        print(f"PAD={pad} stores " + " ".join(f"{s:6.0f}" for _, _, s in r))
