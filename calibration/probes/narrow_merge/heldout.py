#!/usr/bin/env python3
"""Writes a held-out draw: 48 random kernels drawn AFTER the merge rule for narrow loads was fixed
(crates/ptx/src/merge.rs, "Halves read in place"), to test that the rule was not fitted to
merge16.ptx. Each kernel loads 2..8 two-byte values (or bytes) at random offsets of a 16-byte
aligned base (a symbol or a register), each value used its own random way, some of them ways
merge16.ptx never measured (bf16 fma, f16 compare, f16 neg, a pack of one value twice).
Two draws, each deterministic: `python3 heldout.py 1` writes heldout.ptx (seed 20261201;
its `hsetp` compared a value with itself, a constant ptxas folded, the load then dead),
`python3 heldout.py 2` heldout2.ptx (seed 20261202, compared with 1.0 instead). Run in this
folder.
"""
import random

import sys

DRAW = int(sys.argv[1]) if len(sys.argv) > 1 else 2
rng = random.Random(20261200 + DRAW)
# The value `hsetp` compares with: itself (draw 1), or %rs79 = 1.0 (draw 2).
CMP = "%rs{i}" if DRAW == 1 else "%rs79"
head = """.version 8.5
.target sm_90
.address_size 64
"""
# (name, PTX load type, code using %rs{i} that xors a 32-bit value into %r40 or stores it)
USES = {
    "u32": ("u16", "\tcvt.u32.u16 %r{j}, %rs{i};\n\txor.b32 %r40, %r40, %r{j};"),
    "s32": ("s16", "\tcvt.s32.s16 %r{j}, %rs{i};\n\txor.b32 %r40, %r40, %r{j};"),
    "f32": ("b16", "\tcvt.f32.f16 %f{j}, %rs{i};\n\tmov.b32 %r{j}, %f{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "bf32": ("b16", "\tcvt.f32.bf16 %f{j}, %rs{i};\n\tmov.b32 %r{j}, %f{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "hfma": ("b16", "\tfma.rn.f16 %rs{j}, %rs{i}, %rs{i}, %rs{i};\n\tcvt.f32.f16 %f{j}, %rs{j};\n\tmov.b32 %r{j}, %f{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "bfma": ("b16", "\tfma.rn.bf16 %rs{j}, %rs{i}, %rs{i}, %rs{i};\n\tcvt.f32.bf16 %f{j}, %rs{j};\n\tmov.b32 %r{j}, %f{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "hneg": ("b16", "\tneg.f16 %rs{j}, %rs{i};\n\tcvt.f32.f16 %f{j}, %rs{j};\n\tmov.b32 %r{j}, %f{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "hsetp": ("b16", "\tsetp.gt.f16 %p{k}, %rs{i}, " + CMP + ";\n\tselp.u32 %r{j}, 1, 2, %p{k};\n\txor.b32 %r40, %r40, %r{j};"),
    "add16": ("u16", "\tadd.s16 %rs{j}, %rs{i}, 1;\n\tcvt.u32.u16 %r{j}, %rs{j};\n\txor.b32 %r40, %r40, %r{j};"),
    "pack": ("b16", "\tmov.b32 %r{j}, {{%rs{i}, %rs{i}}};\n\txor.b32 %r40, %r40, %r{j};"),
    "st16": ("b16", "\tst.global.u16 [%rd11+{o}], %rs{i};"),
}
NAMES = sorted(USES)


def kern(idx):
    byte = rng.random() < 0.15
    reg = rng.random() < 0.5
    n = rng.randint(2, 8)
    unit = 1 if byte else 2
    slots = sorted(rng.sample(range(0, 16 // unit), n))
    if rng.random() < 0.5:  # one use for all, or one each
        uses = [rng.choice(NAMES)] * n
    else:
        uses = [rng.choice(NAMES) for _ in range(n)]
    if byte:
        uses = ["u8"] * n
    name = f"h{idx:02d}"
    L = [f".visible .entry {name}(.param .u64 out)\n{{",
         "\t.reg .pred %p<40>;\n\t.reg .b16 %rs<80>;\n\t.reg .b32 %r<80>;\n\t.reg .f32 %f<80>;\n\t.reg .b64 %rd<16>;",
         "\t.shared .align 16 .b8 s[512];",
         "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;",
         "\tmul.wide.u32 %rd10, %r1, 64;\n\tadd.s64 %rd11, %rd2, %rd10;",
         "\tmov.u64 %rd5, s;\n\tadd.s64 %rd7, %rd5, %rd3;\n\tst.shared.u32 [%rd7], %r1;\n\tbar.sync 0;",
         "\tmov.u32 %r40, 0;" + ("" if DRAW == 1 else "\n\tmov.b16 %rs79, 0x3C00;")]
    if reg:
        L.append("\tand.b32 %r2, %r1, 7;\n\tmul.wide.u32 %rd8, %r2, 16;\n\tadd.s64 %rd9, %rd5, %rd8;")
    for i, sl in enumerate(slots):
        off = sl * unit
        addr = f"[%rd9+{off}]" if reg else f"[s+{off}]"
        ty = "u8" if byte else USES[uses[i]][0]
        L.append(f"\tld.shared.{ty} %rs{i+1}, {addr};")
    for i, u in enumerate(uses):
        if u == "u8":
            L.append(f"\tcvt.u32.u8 %r{i+41}, %rs{i+1};\n\txor.b32 %r40, %r40, %r{i+41};")
        else:
            L.append(USES[u][1].format(i=i + 1, j=i + 41, k=i + 1, o=2 * i))
    L.append("\tst.global.u32 [%rd4], %r40;\n\tret;\n}\n")
    desc = f"// {name}: {'reg' if reg else 'sym'} base, {'bytes' if byte else 'halves'} at {[s * unit for s in slots]}, uses {uses}"
    return desc + "\n" + "\n".join(L)


open("heldout.ptx" if DRAW == 1 else "heldout2.ptx", "w").write(head + "\n".join(kern(i) for i in range(48)))
