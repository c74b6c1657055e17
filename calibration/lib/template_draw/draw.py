#!/usr/bin/env python3
"""The template draws (calibration/draws/draw4 ... draw11): a fresh random set of whole-kernel
launches of kernels.cu's templates, two random sizes each. Written for draw4 (seed 20261204,
drawn after the DRAM-channel rule, 192 channels and a 256-byte interleave, was fixed, to test
that the rule was not fitted). Writes launches.tsv: name, template, N, registers per thread
(ptxas -v of the same templates in calibration/draws/whole_kernels/raw1/ptxas_heldout.txt; N is
a run-time argument, so it does not change them).

    python3 calibration/lib/template_draw/draw.py [SEED DIR]

With SEED and DIR it draws another set the same way into DIR/launches.tsv (calibration/draws/draw5:
seed 20261208, after the DRAM latency spread was fixed).
"""
import os, random, sys

DRAW4 = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "draws", "draw4")
SEED, OUT = (int(sys.argv[1]), sys.argv[2]) if len(sys.argv) > 2 else (20261204, DRAW4)
rng = random.Random(SEED)
# template -> (name pattern, N step, N min, N max, regs)
T = {
    "tr00": ("transpose_n{}_tile32x32", 32, 384, 4096, 28),
    "tr10": ("transpose_n{}_tile32x33", 32, 384, 4096, 28),
    "tr01": ("transpose_n{}_tile32x32_xor", 32, 384, 4096, 28),
    "t64_0": ("transpose64_n{}_tile32x32", 32, 256, 2048, 29),
    "t64_1": ("transpose64_n{}_tile32x33", 32, 256, 2048, 30),
    "mm16_0_0": ("matmul_n{}_t16", 32, 128, 1024, 30),
    "mm16_0_1": ("matmul_n{}_t16_transA", 32, 128, 1024, 30),
    "mm32_0_0": ("matmul_n{}_t32", 32, 128, 1024, 29),
    "mm32_1_1": ("matmul_n{}_t32_transA_pad1", 32, 128, 1024, 30),
    "sg0": ("sgemm4x4_n{}", 64, 128, 1024, 56),
    "sg4": ("sgemm4x4_n{}_pad4", 64, 128, 1024, 58),
}
rows = []
for k in sorted(T):
    name, step, lo, hi, regs = T[k]
    for _ in range(2):
        n = rng.randrange(lo // step, hi // step + 1) * step
        rows.append((name.format(n), k, n, regs))
with open(os.path.join(OUT, "launches.tsv"), "w") as f:
    f.write("name\ttemplate\tn\tregs_per_thread\n")
    for r in rows:
        f.write("%s\t%s\t%d\t%d\n" % r)
print("\n".join("%s\t%s\t%d\t%d" % r for r in rows))
if os.path.abspath(OUT) != DRAW4:
    # Another draw also stamps the padded transpose at three sizes of its own.
    sizes = sorted(n * 32 for n in random.Random(SEED + 1).sample(range(512 // 32, 4096 // 32 + 1), 3))
    with open(os.path.join(OUT, "stamp_sizes.txt"), "w") as f:
        f.write(" ".join(map(str, sizes)) + "\n")
    print("stamp sizes:", *sizes)
