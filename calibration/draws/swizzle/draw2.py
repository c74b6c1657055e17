#!/usr/bin/env python3
"""calibration/draws/swizzle, second draw (seed 20261206): launches drawn after the hoisting rule (a
swizzled address that depends only on thread indices and constant-loop counters is computed
once per distinct iteration of those loops) was fixed from the first draw's matmuls. Kernels
the rule was not taken from: swizzles of 2-element groups (transpose, transpose64), the
matmul with As swizzled (and its twin), the transposed-A matmul with both tiles swizzled.
Writes launches2.tsv (same columns as launches.tsv).

    python3 calibration/draws/swizzle/draw2.py
"""
from drawing import draw

# (template, name pattern, N step, N min, N max, draws, regs, twin template or None)
T = [
    ("tr_g2", "transpose_n{}_tile32x32_g2", 32, 256, 4096, 2, 28, None),
    ("t64_g2", "transpose64_n{}_tile32x32_g2", 32, 256, 2048, 2, 29, None),
    ("mm16_a", "matmul_n{}_t16_swzA", 16, 128, 1024, 1, 30, "mm16_0_0"),
    ("mm32_a", "matmul_n{}_t32_swzA", 32, 128, 1024, 1, 30, "mm32_0_0"),
    ("mm16_ab", "matmul_n{}_t16_transA_swzAB", 16, 128, 1024, 1, 30, None),
    ("mm32_ab", "matmul_n{}_t32_transA_swzAB", 32, 128, 1024, 1, 30, None),
]
draw(20261206, T, "_swzA", "launches2.tsv")
