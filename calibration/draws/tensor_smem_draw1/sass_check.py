#!/usr/bin/env python3
"""Checks that each kernel of the draw's probe holds the SASS instruction it is meant to measure
(the first call's sass_check.py, with the draw's kernels: one_c without ca.16.wall, tma_k of
rank 1-3, mb_k).

usage: sass_check.py probe.sass > sass_check.txt   (prints `ok KERNEL OPCODE` / `MISSING ...`
and, per kernel, the shared-memory, async-copy, TMA and mbarrier opcodes it holds)
Exit code 0 always (a missing instruction is reported, not fatal: the run keeps going)."""
import re
import sys

# kernel template argument -> the opcode (regex on the whole opcode with modifiers) it must hold
EXPECT_M = {
    0: r"LDSM\.16\.M88$", 1: r"LDSM\.16\.M88\.2$", 2: r"LDSM\.16\.M88\.4$",
    3: r"LDSM\.16\.MT88$", 4: r"LDSM\.16\.MT88\.2$", 5: r"LDSM\.16\.MT88\.4$",
    6: r"STSM\.16\.M88$", 7: r"STSM\.16\.M88\.2$", 8: r"STSM\.16\.M88\.4$",
    9: r"STSM\.16\.MT88$", 10: r"STSM\.16\.MT88\.2$", 11: r"STSM\.16\.MT88\.4$",
    12: r"LDS\.128$", 13: r"STS\.128$",
}
EXPECT_C = {
    20: r"LDGSTS\.E$", 21: r"LDGSTS\.E\.64$", 22: r"LDGSTS\.E(\.LTC128B)?\.128$",
    23: r"LDGSTS\.E\.BYPASS(\.LTC128B)?\.128$", 24: r"LDGSTS\.E\.ZFILL$", 25: r"LDGSTS\.E\.64\.ZFILL$",
    26: r"LDGSTS\.E(\.LTC128B)?\.128\.ZFILL$", 27: r"LDGSTS\.E\.BYPASS(\.LTC128B)?\.128\.ZFILL$",
}
EXPECT_B = {
    1: [r"SYNCS\.EXCH"], 2: [r"SYNCS\.EXCH"], 3: [r"SYNCS\.EXCH"], 4: [r"SYNCS\.EXCH", r"SYNCS\.ARRIVE"],
    5: [r"SYNCS\.ARRIVE"], 6: [r"SYNCS\.PHASECHK"], 7: [r"SYNCS\.PHASECHK"], 8: [r"FENCE\.VIEW\.ASYNC"],
    9: [r"SYNCS\.ARRIVE"], 10: [r"SYNCS\.ARRIVE", r"SYNCS\.PHASECHK"],
}
INTEREST = re.compile(r"^(LDSM|STSM|LDS|STS|LDGSTS|LDGDEPBAR|DEPBAR|UTMA|UBLKCP|SYNCS|ATOMS|ARRIVES|UTMACMDFLUSH|FENCE|MEMBAR)")


def main():
    funcs = {}
    cur = None
    for line in open(sys.argv[1], errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None:
            continue
        m = re.search(r"\*/\s+(.*?)\s*(;|/\*)", line)
        if not m:
            continue
        ins = m.group(1)
        pred = ""
        if ins.startswith("@"):
            pred, ins = ins.split(None, 1)
        op = ins.split()[0]
        if INTEREST.match(op) and pred not in ("@!PT",):
            funcs[cur].append(op)
    bad = 0
    for f, ops in funcs.items():
        k = re.search(r"ILi(\d+)E", f)
        want = None
        if f.startswith("_Z5one_m") and k:
            want = [EXPECT_M[int(k.group(1))]]
        elif f.startswith("_Z5one_c") and k:
            want = [EXPECT_C[int(k.group(1))], r"LDGDEPBAR$", r"DEPBAR"]
        elif "tma_k" in f:
            want = [r"UTMALDG\.1D", r"UTMALDG\.2D", r"UTMALDG\.3D", r"UTMASTG\.1D", r"UTMASTG\.2D", r"UTMASTG\.3D",
                    r"LDSM\.16\.M88\.4$", r"LDS\.128$", r"SYNCS"]
        elif f.startswith("_Z4mb_k") and k:
            want = EXPECT_B.get(int(k.group(1)), [])
        for w in want or []:
            hit = [o for o in ops if re.match(w, o)]
            if hit:
                print(f"ok      {f} {hit[0]}")
            else:
                bad += 1
                print(f"MISSING {f} {w}")
        counts = {}
        for o in ops:
            counts[o] = counts.get(o, 0) + 1
        print(f"   {f}: " + " ".join(f"{o}x{n}" for o, n in counts.items()))
    print(f"sass_check: {len(funcs)} kernels, {bad} expected instructions missing")


if __name__ == "__main__":
    main()
