#!/usr/bin/env python3
"""Checks the device's own SASS (cuobjdump -sass of the probe binary) for what the probes rely on,
and writes one summary line per kernel: shared loads/stores (wide or not), how many are
predicated, barriers, branches, conversions.

    python3 check_sass.py probe.sass > sass_check.txt

Expectations (each a line `OK` or `UNEXPECTED` — the run continues either way, the analysis reads
this file): every shared access of the probes is 4 bytes wide (no LDS.64/LDS.128 merging); the
lvl kernels' loop body holds NLD loads and ST stores per repetition at the level (predicated by
`warp < b`), and a BAR per repetition exactly when SYNC; reduce1p and prescan<2> are one SASS
whatever their mask (a run-time argument: nothing to check beyond their loads being 4 bytes).
"""

import re
import sys
from collections import Counter, OrderedDict


def demangle(name):
    m = re.match(r"_Z(\d+)(\w+)", name)
    if not m:
        return name
    n = int(m.group(1))
    base = m.group(2)[:n]
    rest = m.group(2)[n:]
    args = re.findall(r"Li(-?\d+)E", rest)
    return base + (f"<{','.join(args)}>" if rest.startswith("I") else "")


def main():
    text = open(sys.argv[1], errors="replace").read()
    funcs = OrderedDict()
    cur = None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = demangle(m.group(1))
            funcs[cur] = []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if cur and m:
            funcs[cur].append(m.group(1).strip())
    bad = 0
    for name, ins in funcs.items():
        c = Counter()
        for i in ins:
            pred = i.startswith("@")
            op = i.split()[1] if pred else i.split()[0]
            root = op.split(".")[0]
            c[op] += 1
            if root in ("LDS", "STS"):
                c[root + "_all"] += 1
                if pred:
                    c[root + "_pred"] += 1
                if ".64" in op or ".128" in op:
                    c["wide"] += 1
            if root == "BAR":
                c["BAR_all"] += 1
            if root == "BRA":
                c["BRA_all"] += 1
            if root in ("MUFU", "I2F", "F2I"):
                c["slow"] += 1
        notes = []
        if c["wide"]:
            notes.append(f"UNEXPECTED {c['wide']} wide shared accesses")
        m = re.match(r"lvl<(\d+),(\d+),(\d+),(\d+),(\d+)>", name)
        if m:
            nld, st, ch, sync, dep = map(int, m.groups())
            if nld and not c["LDS_pred"]:
                # Only the idle-warp probe (slice C: lvl<2,1,0,1,0> with b < warps) needs the
                # guard predicated, as Harris's reductions have it; elsewhere every warp works.
                flag = "UNEXPECTED" if (nld, st, ch, sync, dep) == (2, 1, 0, 1, 0) else "note:"
                notes.append(f"{flag} the `warp < b` guard is a branch (no predicated LDS)")
            if not sync and c["BAR_all"] > 1:
                notes.append(f"UNEXPECTED {c['BAR_all']} BARs in a SYNC 0 kernel (1 expected: after the zeroing)")
            if sync and c["BAR_all"] < 2:
                notes.append("UNEXPECTED no BAR in the loop")
        bad += sum(n.startswith("UNEXPECTED") for n in notes)
        print(f"{name}: {len(ins)} SASS, LDS {c['LDS_all']} ({c['LDS_pred']} predicated), STS {c['STS_all']} "
              f"({c['STS_pred']} predicated), BAR {c['BAR_all']}, BRA {c['BRA_all']}, MUFU/I2F/F2I {c['slow']}"
              + ("; " + "; ".join(notes) if notes else "; OK"))
    print(f"sass_check: {len(funcs)} kernels, {bad} unexpected")


if __name__ == "__main__":
    main()
