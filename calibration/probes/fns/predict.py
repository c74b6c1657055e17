#!/usr/bin/env python3
"""The rule warpsim would implement for fns.b32, written down before the call, and a check of
it against the device's values.
    predict.py check raw/values.txt.gz     rows where the rule and the device differ, and a count
Rule (from the PTX ISA's description): offset 0 -> base if bit `base` of mask is set, else
0xffffffff; offset k > 0 -> the k-th set bit counting upward from bit `base` inclusive; offset
-k -> the k-th set bit counting downward from bit `base` inclusive; 0xffffffff if there is none."""
import gzip
import sys


def rule(mask, base, off):
    if off == 0:
        return base if mask >> base & 1 else 0xFFFFFFFF
    step = 1 if off > 0 else -1
    k = abs(off)
    p = base
    while 0 <= p < 32:
        if mask >> p & 1:
            k -= 1
            if k == 0:
                return p
        p += step
    return 0xFFFFFFFF


def check(path):
    bad = n = 0
    for line in gzip.open(path, "rt"):
        f = line.split()
        if len(f) != 4:
            continue
        m, b, o, got = int(f[0], 16), int(f[1]), int(f[2]), int(f[3])
        want = rule(m, b, o)
        n += 1
        if want != got:
            bad += 1
            if bad <= 20:
                print(f"mask {m:08x} base {b} offset {o}: rule {want}, device {got}")
    print(f"{n - bad} of {n} equal the rule")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
