#!/usr/bin/env python3
"""The model's rows of section 17's phase table (and of calibration/probes/dram_order/clean.txt): per
block on SM 0 (oldest first), over its warps: the mean of cycles from the SM's first block's
dispatch to the warp's loaded data (the end of its last `long_scoreboard` before the barrier), then
to its barrier arrival (its stores issued); the mean wait at the barrier (its span); the spread
of the block's data and of its arrivals (max - min); the mean |arrival difference| of two warps of
one sub-partition (slot % 4) and of two of different ones.

    python3 calibration/probes/scheduler/model_phases.py BIN [PAD]
"""
import collections, json, statistics, subprocess, sys, tempfile

CYC = 1980.0  # timeline microseconds at the preset's clock


def rows(binary, pad):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        subprocess.run([binary, "run", "programs/transpose.ron", "--regs", "28", "-D", f"PAD={pad}",
                        "--timeline", f.name], check=True, stdout=subprocess.DEVNULL)
        ev = json.load(open(f.name))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    spans = collections.defaultdict(list)
    for e in ev:
        if e.get("ph") == "X":
            spans[(e["args"]["block"], e["tid"])].append((e["ts"] * CYC, (e["ts"] + e["dur"]) * CYC, e["name"]))
    per = collections.defaultdict(list)
    for (b, tid), ss in spans.items():
        ss.sort()
        start = next((a for a, _, n in ss if n != "no_instruction"), None)
        bar = next(((a, z) for a, z, n in ss if n == "barrier"), None)
        if start is None or bar is None:
            continue
        data = max((z for a, z, n in ss if n == "long_scoreboard" and z <= bar[0]), default=start)
        per[b].append((tid % 4, start, data, bar[0], bar[1]))
    out = collections.defaultdict(list)
    for _, ws in sorted(per.items(), key=lambda kv: min(w[1] for w in kv[1]))[:8]:
        out["data"].append(statistics.mean(w[2] for w in ws))
        out["stores"].append(statistics.mean(w[3] - w[2] for w in ws))
        out["wait"].append(statistics.mean(w[4] - w[3] for w in ws))
        out["data spread"].append(max(w[2] for w in ws) - min(w[2] for w in ws))
        out["store spread"].append(max(w[3] for w in ws) - min(w[3] for w in ws))
        pairs = [(a, b) for i, a in enumerate(ws) for b in ws[i + 1:]]
        for name, same in (("same sp", True), ("other sp", False)):
            d = [abs(a[3] - b[3]) for a, b in pairs if (a[0] == b[0]) == same]
            out[name].append(statistics.mean(d) if d else 0.0)
    return out


if __name__ == "__main__":
    pads = [sys.argv[2]] if len(sys.argv) > 2 else ["0", "1"]
    for pad in pads:
        r = rows(sys.argv[1], pad)
        for q in ("data", "stores", "wait", "data spread", "store spread", "same sp", "other sp"):
            print(f"PAD={pad} {q:13s}" + "".join(f"{x:7.0f}" for x in r[q]))
