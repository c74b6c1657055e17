#!/usr/bin/env python3
"""Writes forms.cu: the wgmma probe's kernels (issue 41). Run from this folder; the output is
committed, so neither the device call nor warpsim needs Python.

Each form is one wgmma.mma_async.m64n64kK by one warpgroup (a block of 128 threads) on bytes
the kernel copies unchanged from `inp` (warpsim's Random(seed) words; masked so that no float
element is an infinity or a NaN) into two 8 KiB shared regions, read through descriptors whose
layout the form names. The GPU's D words (every thread's D registers) against warpsim's are the
test of warpsim's reading of the PTX ISA's layouts (a wrong element position moves whole
values) and of its adder (last bits)."""

# form: (dtype, atype, btype, K, a, b, extra)
#   a/b: (swizzle mode 0 none / 1 128B / 2 64B / 3 32B, mn-major, start offset, lbo, sbo)
#   a may be "regs" (the mma.m16n8 A fragment in registers).
#   extra: dict(neg_a, neg_b, scale) where scale 1 means D starts from C (from inp).
NONE_K = (0, 0, 0, 128, 256)          # 8 x 16-byte core matrices, K pairs 128 B apart
S128_K = (1, 0, 0, 16, 1024)          # rows of 128 B
S128_K64 = (1, 0, 64, 16, 1024)       # the same rows, 64 bytes in (a later k-step)
S64_K = (2, 0, 0, 16, 512)            # rows of 64 B
S32_K = (3, 0, 0, 16, 256)            # rows of 32 B
S64_MN = (2, 1, 0, 512, 1024)         # 32 elements of M a row of 64 B, 8 k-rows, LBO to the next 32
S128_MN = (1, 1, 0, 2048, 1024)       # 64 elements of N a row of 128 B
S32_MN = (3, 1, 0, 256, 1024)         # 16 elements a row of 32 B, LBO to the next 16
NONE_MN = (0, 1, 0, 1024, 128)        # 8 elements a 16-byte row, SBO (128) to the next 8, LBO (1024) to the next 8 k
FORMS = [
    ("f32", "f16", "f16", 16, NONE_K, NONE_K, {}),
    ("f32", "f16", "f16", 16, S128_K, S128_MN, {}),
    ("f32", "f16", "f16", 16, S64_MN, S64_K, {}),
    ("f32", "f16", "f16", 16, S32_K, S32_MN, {}),
    ("f16", "f16", "f16", 16, NONE_MN, NONE_K, {"scale": 1}),
    ("f32", "bf16", "bf16", 16, S128_K64, S128_K, {"scale": 1}),
    ("f32", "tf32", "tf32", 8, S128_K, S64_K, {}),
    ("f32", "e4m3", "e4m3", 32, S128_K, S128_K, {}),
    ("s32", "s8", "s8", 32, NONE_K, S32_K, {"scale": 1}),
    ("f32", "f16", "f16", 16, "regs", S128_MN, {}),
    ("f32", "bf16", "bf16", 16, S64_K, NONE_MN, {"neg_a": 1, "scale": 1}),
    ("f16", "e5m2", "e4m3", 32, S32_K, NONE_K, {"neg_b": 1}),
]
MASK = {"f16": 0xBFFFBFFF, "bf16": 0xBFFFBFFF, "tf32": 0xBFFFFFFF, "e4m3": 0xBFBFBFBF,
        "e5m2": 0xBFBFBFBF, "s8": 0xFFFFFFFF}


def form(f, spec):
    dty, aty, bty, k, a, b, extra = spec
    nd = 16 if dty == "f16" else 32
    con = "f" if dty == "f32" else "r"
    ds = ", ".join(f"%{i}" for i in range(nd))
    outs = ", ".join(f'"+{con}"(d[{i}])' for i in range(nd))
    ctype = "float" if dty == "f32" else "unsigned"
    lines = [f"template <> __device__ void form<{f}>(const unsigned* in, unsigned* out, char* sa, char* sb) {{"]
    lines.append(f"    fill(in, sa, sb, {MASK[aty]:#x}u, {MASK[bty]:#x}u);")
    lines.append(f"    {ctype} d[{nd}];")
    scale = extra.get("scale", 0)
    lines.append(f"    for (int i = 0; i < {nd}; i++) d[i] = start<{ctype}>(in, {nd}, i, {'true' if dty == 's32' else 'false'});")
    args = []
    if a == "regs":
        lines.append("    unsigned a[4];")
        lines.append(f"    for (int i = 0; i < 4; i++) a[i] = in[A_REGS + 4 * threadIdx.x + i] & {MASK[aty]:#x}u;")
    else:
        lines.append(f"    unsigned long long da = desc(sa, {a[2]}, {a[3]}, {a[4]}, {a[0]});")
    b_ = b
    lines.append(f"    unsigned long long db = desc(sb, {b_[2]}, {b_[3]}, {b_[4]}, {b_[0]});")
    lines.append('    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");')
    sixteen = aty in ("f16", "bf16")
    ops = []
    if a == "regs":
        ops.append(f"{{%{nd + 1}, %{nd + 2}, %{nd + 3}, %{nd + 4}}}")
        ins = [f'"r"({scale})'] + [f'"r"(a[{i}])' for i in range(4)] + ['"l"(db)']
        bop = f"%{nd + 5}"
    else:
        ops.append(f"%{nd + 1}")
        ins = [f'"r"({scale})', '"l"(da)', '"l"(db)']
        bop = f"%{nd + 2}"
    imm = []
    if dty != "s32":
        imm += ["-1" if extra.get("neg_a") else "1", "-1" if extra.get("neg_b") else "1"]
        if sixteen and a != "regs":
            imm.append(str(a[1]))
        if sixteen:
            imm.append(str(b[1]))
    tail = "".join(", " + x for x in imm)
    name = f"wgmma.mma_async.sync.aligned.m64n64k{k}.{dty}.{aty}.{bty}"
    lines.append('    asm volatile(')
    lines.append(f'        "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{nd}, 0;\\n"')
    lines.append(f'        "{name} {{{ds}}}, {ops[0]}, {bop}, p{tail};\\n}}\\n"')
    lines.append(f"        : {outs}")
    lines.append(f"        : {', '.join(ins)});")
    lines.append('    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");')
    lines.append('    asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");')
    lines.append(f"    for (int i = 0; i < 32; i++) out[32 * threadIdx.x + i] = i < {nd} ? bits(d[i]) : 0u;")
    lines.append("}")
    return "\n".join(lines)


HEAD = r'''// GENERATED by gen.py (issue 41's wgmma probe): each form one wgmma.mma_async.m64n64kK by one
// warpgroup. `in` (per block: IN_WORDS words, warpsim's Random(seed) on a U32 buffer) gives the
// bytes of the two 8 KiB shared regions A and B read through matrix descriptors (masked so no
// float element is an infinity or a NaN), D's starting values (forms with scale-d = 1) and A's
// registers (form 9). `out`: every thread's 32 D registers (f16 forms: 16, then zeros).
#define FORMS 12
#define IN_WORDS (4096 + 4096 + 512)
#define A_REGS 8192

__device__ __forceinline__ unsigned long long desc(char* base, unsigned off, unsigned lbo,
                                                   unsigned sbo, unsigned long long mode) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(base) + off;
    return (unsigned long long)((addr & 0x3FFFF) >> 4) |
           (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16 |
           (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32 | mode << 62;
}

// The block's A and B regions from `in`'s first 4096 words, masked.
__device__ __forceinline__ void fill(const unsigned* in, char* sa, char* sb, unsigned ma, unsigned mb) {
    for (int i = threadIdx.x; i < 2048; i += 128) {
        ((unsigned*)sa)[i] = in[i] & ma;
        ((unsigned*)sb)[i] = in[2048 + i] & mb;
    }
    __syncthreads();
}

// D register i's starting value: f32 within +-2 (bit 30 clear), s32 within +-2^23, f16 pairs
// below 2.
template <typename T>
__device__ __forceinline__ T start(const unsigned* in, int nd, int i, bool s32);
template <>
__device__ __forceinline__ float start<float>(const unsigned* in, int nd, int i, bool) {
    return __uint_as_float(in[4096 + 32 * threadIdx.x + i] & 0xBFFFFFFFu);
}
template <>
__device__ __forceinline__ unsigned start<unsigned>(const unsigned* in, int nd, int i, bool s32) {
    unsigned w = in[4096 + 32 * threadIdx.x + i];
    return s32 ? (unsigned)((int)w >> 8) : (w & 0xBFFFBFFFu);
}
__device__ __forceinline__ unsigned bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned bits(unsigned x) { return x; }

template <int F>
__device__ void form(const unsigned* in, unsigned* out, char* sa, char* sb);
'''

TAIL = r'''
template <int F>
__global__ void forms(const unsigned* in, unsigned* out) {
    __shared__ __align__(1024) char sa[8192];
    __shared__ __align__(1024) char sb[8192];
    form<F>(in + blockIdx.x * IN_WORDS, out + blockIdx.x * 128 * 32, sa, sb);
}
'''

if __name__ == "__main__":
    body = [form(f, s) for f, s in enumerate(FORMS)]
    inst = "\n".join(f"template __global__ void forms<{f}>(const unsigned*, unsigned*);" for f in range(len(FORMS)))
    open("forms.cu", "w").write(HEAD + "\n" + "\n\n".join(body) + "\n" + TAIL + inst + "\n")
