#!/usr/bin/env python3
"""Writes merge16.ptx: when does ptxas (sm_90) merge 1- and 2-byte shared loads?

Each kernel stores a word per thread, then loads n 1- or 2-byte values from one 16-byte
aligned base (a shared symbol `m*`, or a register `r*`) at consecutive offsets and uses them
one way: `u32` zero-extends (cvt.u32.u16), `s32` sign-extends, `f32` converts half -> float,
`bf32` bf16 -> float, `hfma` half fma, `add16` 16-bit integer adds, `pack` mov.b32 {a,b},
`st16` 2-byte global stores, `mixed` half f16->f32 and half u16->u32, `hadd2` pack + f16x2 add,
`u8` bytes zero-extended; `m2x`/`m4x`: halves starting 2 bytes into the window.
Run: python3 gen.py (in this folder); then on a machine with CUDA:
  bash calibration/probes/ptxas_streams/compare_sass.sh calibration/probes/narrow_merge/merge16.ptx
"""
head = """.version 8.5
.target sm_90
.address_size 64
"""


def kern(name, n, loads, consume, base="sym", ty="u16"):
    L = []
    L.append(f".visible .entry {name}(.param .u64 out)\n{{")
    L.append("\t.reg .pred %p<4>;\n\t.reg .b16 %rs<40>;\n\t.reg .b32 %r<64>;\n\t.reg .f32 %f<64>;\n\t.reg .b64 %rd<16>;")
    L.append("\t.shared .align 16 .b8 s[512];")
    L.append("\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;")
    L.append("\tmov.u64 %rd5, s;\n\tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd7, %rd5, %rd6;\n\tst.shared.u32 [%rd7], %r1;\n\tbar.sync 0;")
    if base == "reg":
        # a 16-byte aligned register base: s + (tid & 7) * 16
        L.append("\tand.b32 %r2, %r1, 7;\n\tmul.wide.u32 %rd8, %r2, 16;\n\tadd.s64 %rd9, %rd5, %rd8;")
    for i in range(n):
        off = loads[i] if loads else 2 * i
        addr = f"[s+{off}]" if base == "sym" else f"[%rd9+{off}]"
        L.append(f"\tld.shared.{ty} %rs{i+1}, {addr};")
    L.append(consume(n))
    L.append("\tret;\n}\n")
    return "\n".join(L)


def summed(n, conv, reg="r", ty="s32", zero="0", st="u32"):
    s = [f"\t{conv} %{reg}{10+i}, %rs{i+1};" for i in range(n)]
    s.append(f"\tmov.{'f32' if reg == 'f' else 'u32'} %{reg}40, {zero};")
    s += [f"\tadd.{ty} %{reg}40, %{reg}40, %{reg}{10+i};" for i in range(n)]
    s.append(f"\tst.global.{st} [%rd4], %{reg}40;")
    return "\n".join(s)


def c_u32(n): return summed(n, "cvt.u32.u16")
def c_s32(n): return summed(n, "cvt.s32.s16")
def c_f32(n): return summed(n, "cvt.f32.f16", "f", "f32", "0f00000000", "f32")
def c_bf32(n): return summed(n, "cvt.f32.bf16", "f", "f32", "0f00000000", "f32")
def c_u8(n): return summed(n, "cvt.u32.u8")


def c_hfma(n):
    s = ["\tmov.b16 %rs30, 0x0000;"]
    for i in range(0, n, 2):
        s.append(f"\tfma.rn.f16 %rs30, %rs{i+1}, %rs{i+2}, %rs30;")
    s.append("\tcvt.f32.f16 %f40, %rs30;\n\tst.global.f32 [%rd4], %f40;")
    return "\n".join(s)


def c_add16(n):
    s = ["\tmov.u16 %rs30, 0;"] + [f"\tadd.s16 %rs30, %rs30, %rs{i+1};" for i in range(n)]
    s.append("\tcvt.u32.u16 %r40, %rs30;\n\tst.global.u32 [%rd4], %r40;")
    return "\n".join(s)


def c_pack(n):
    s = ["\tmov.u32 %r40, 0;"]
    for i in range(0, n, 2):
        s.append(f"\tmov.b32 %r{10+i}, {{%rs{i+1}, %rs{i+2}}};\n\txor.b32 %r40, %r40, %r{10+i};")
    s.append("\tst.global.u32 [%rd4], %r40;")
    return "\n".join(s)


def c_st16(n):
    s = ["\tmul.wide.u32 %rd10, %r1, 16;\n\tadd.s64 %rd11, %rd2, %rd10;"]
    s += [f"\tst.global.u16 [%rd11+{2*i}], %rs{i+1};" for i in range(n)]
    return "\n".join(s)


def c_mixed(n):
    s = []
    for i in range(n):
        if i % 2 == 0:
            s.append(f"\tcvt.f32.f16 %f{10+i}, %rs{i+1};\n\tcvt.rzi.u32.f32 %r{10+i}, %f{10+i};")
        else:
            s.append(f"\tcvt.u32.u16 %r{10+i}, %rs{i+1};")
    s.append("\tmov.u32 %r40, 0;")
    s += [f"\tadd.s32 %r40, %r40, %r{10+i};" for i in range(n)]
    s.append("\tst.global.u32 [%rd4], %r40;")
    return "\n".join(s)


def c_hadd2(n):
    s = ["\tmov.b32 %r40, 0;"]
    for i in range(0, n, 2):
        s.append(f"\tmov.b32 %r{10+i}, {{%rs{i+1}, %rs{i+2}}};\n\tadd.rn.f16x2 %r40, %r40, %r{10+i};")
    s.append("\tst.global.u32 [%rd4], %r40;")
    return "\n".join(s)


K = []
USES = [("u32", c_u32, "u16"), ("s32", c_s32, "s16"), ("f32", c_f32, "b16"),
        ("bf32", c_bf32, "b16"), ("hfma", c_hfma, "b16"), ("add16", c_add16, "u16"),
        ("pack", c_pack, "b16"), ("st16", c_st16, "b16"), ("mixed", c_mixed, "b16"),
        ("hadd2", c_hadd2, "b16")]
for n in (2, 4, 8):
    for cname, c, ty in USES:
        K.append(kern(f"m{n}_{cname}", n, None, c, "sym", ty))
        K.append(kern(f"r{n}_{cname}", n, None, c, "reg", ty))
for n in (2, 4, 8, 16):
    K.append(kern(f"m{n}_u8", n, list(range(n)), c_u8, "sym", "u8"))
    K.append(kern(f"r{n}_u8", n, list(range(n)), c_u8, "reg", "u8"))
K.append(kern("m2x_f32", 2, [2, 4], c_f32, "sym", "b16"))
K.append(kern("m4x_f32", 4, [2, 4, 6, 8], c_f32, "sym", "b16"))
open("merge16.ptx", "w").write(head + "\n".join(K))
