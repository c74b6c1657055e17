#!/usr/bin/env python3
"""calibration/draws/swizzle: launches drawn (seed 20261205) after the swizzle-address rule (two
integer instructions per access to an XOR-swizzled shared array) was fixed. Each swizzled
launch comes with its unswizzled twin at the same N, so that the difference in issued
instructions tests the rule directly. Writes launches.tsv: name, template, N, registers per
thread (the model's --regs: any count up to 32 gives these blocks the same residency;
ptxas -v's counts are in raw/ptxas.txt).

    python3 calibration/draws/swizzle/draw.py
"""
import os, random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261205)
# (swizzled template, twin, name pattern, N step, N min, N max, draws, regs)
T = [
    ("tr01", "tr00", "transpose_n{}_tile32x32{}", 32, 256, 4096, 3, 28),
    ("t64_s", "t64_0", "transpose64_n{}_tile32x32{}", 32, 256, 2048, 3, 29),
    ("mm16_s", "mm16_0_1", "matmul_n{}_t16_transA{}", 16, 128, 1024, 2, 30),
    ("mm32_s", "mm32_0_1", "matmul_n{}_t32_transA{}", 32, 128, 1024, 2, 30),
]
rows = []
for swz, twin, name, step, lo, hi, k, regs in T:
    for _ in range(k):
        n = rng.randrange(lo // step, hi // step + 1) * step
        rows.append((name.format(n, "_xor"), swz, n, regs))
        rows.append((name.format(n, ""), twin, n, regs))
with open(os.path.join(HERE, "launches.tsv"), "w") as f:
    f.write("name\ttemplate\tn\tregs_per_thread\n")
    for r in rows:
        f.write("%s\t%s\t%d\t%d\n" % r)
print("\n".join("%s\t%s\t%d\t%d" % r for r in rows))
