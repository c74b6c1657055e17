#!/usr/bin/env python3
"""calibration/draws/swizzle, third draw (seed 20261207): launches drawn after the group rule (an
access to an array swizzled in groups of more than one element issues 4 address instructions,
not 2) was fixed from the second draw's 2-element groups. Kernels it was not taken from:
transposes swizzled in groups of 4 and 8, and sgemm4x4 with As swizzled in groups of 4 (with
its unswizzled twin). Writes launches3.tsv (same columns as launches.tsv).

    python3 calibration/draws/swizzle/draw3.py
"""
from drawing import draw

# (template, name pattern, N step, N min, N max, draws, regs, twin template or None)
T = [
    ("tr_g4", "transpose_n{}_tile32x32_g4", 32, 256, 4096, 2, 30, None),
    ("tr_g8", "transpose_n{}_tile32x32_g8", 32, 256, 4096, 2, 30, None),
    ("sg_s4", "sgemm4x4_n{}_swz4", 64, 128, 1024, 2, 56, "sg0"),
]
draw(20261207, T, "_swz4", "launches3.tsv")
