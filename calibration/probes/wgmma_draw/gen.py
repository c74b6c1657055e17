#!/usr/bin/env python3
"""Writes draw.cu and forms.txt: issue 41's fresh draw of wgmma forms. Run from this folder;
the output is committed, so neither the device call nor warpsim needs Python.

The rules it tests were fixed before the draw (calibration/probes/wgmma: the descriptor and
fragment layouts, measured on 12 m64n64 forms; the fp8 adder, derived from 2 of them; the
tensor cores' shared reads, `op_gmma`, one wavefront per core matrix). Drawn here, with a seed
fixed before anything was run: N from 8 to 256, every type pair sm_90a has, A from shared
memory or registers, every swizzle mode K- and MN-major, descriptor starts inside a row and
off the 128-byte grid, strides that are no multiple of 128, negation and D from C.
Each form is one wgmma.mma_async.m64nNkK by one warpgroup on the bytes of warpsim's
Random(seed) words (masked: no float element is an infinity or a NaN)."""
import random

SEED = 4120741  # fixed 2026-12-07, before any form was run
FORMS = 32

# (swizzle mode 0 none / 1 128B / 2 64B / 3 32B, mn-major, start offset, lbo, sbo)
K_LAYOUTS = {
    "none": (0, 0, 0, 128, 256),
    "none_start16": (0, 0, 16, 128, 256),
    "none_odd": (0, 0, 48, 144, 288),      # core matrices off the 128-byte grid
    "none_far": (0, 0, 0, 2048, 256),      # K pairs 2 KiB apart
    "s128": (1, 0, 0, 16, 1024),
    "s128_start64": (1, 0, 64, 16, 1024),
    "s128_start96": (1, 0, 96, 16, 1024),
    "s64": (2, 0, 0, 16, 512),
    "s64_start32": (2, 0, 32, 16, 512),
    "s32": (3, 0, 0, 16, 256),
}
MN_LAYOUTS = {
    "none_mn": (0, 1, 0, 1024, 128),
    "none_mn_start32": (0, 1, 32, 1024, 128),
    "s128_mn": (1, 1, 0, 2048, 1024),
    "s64_mn": (2, 1, 0, 512, 1024),
    "s32_mn": (3, 1, 0, 256, 1024),
}
# (d, a, b, K)
TYPES = [
    ("f32", "f16", "f16", 16), ("f16", "f16", "f16", 16), ("f32", "bf16", "bf16", 16),
    ("f32", "tf32", "tf32", 8), ("s32", "s8", "s8", 32), ("s32", "u8", "s8", 32),
    ("s32", "u8", "u8", 32),
]
FP8 = [("f32", "e4m3", "e4m3", 32), ("f16", "e4m3", "e4m3", 32), ("f32", "e5m2", "e5m2", 32),
       ("f16", "e5m2", "e4m3", 32), ("f32", "e4m3", "e5m2", 32)]
MASK = {"f16": 0xBFFFBFFF, "bf16": 0xBFFFBFFF, "tf32": 0xBFFFFFFF, "e4m3": 0xBFBFBFBF,
        "e5m2": 0xBFBFBFBF, "s8": 0xFFFFFFFF, "u8": 0xFFFFFFFF}
INT_N = [8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256]


def draw():
    rng = random.Random(SEED)
    forms = []
    for f in range(FORMS):
        # Every fourth form fp8 (the adder's test), the rest any type.
        dty, aty, bty, k = rng.choice(FP8) if f % 4 == 3 else rng.choice(TYPES)
        n = rng.choice(INT_N) if dty == "s32" else 8 * rng.randint(1, 32)
        sixteen = aty in ("f16", "bf16")
        pool = list(K_LAYOUTS) + (list(MN_LAYOUTS) if sixteen else [])
        a = "regs" if rng.random() < 0.2 else rng.choice(pool)
        b = rng.choice(pool)
        extra = {"scale": rng.randint(0, 1)}
        if dty != "s32":
            extra["neg_a"] = int(rng.random() < 0.25)
            extra["neg_b"] = int(rng.random() < 0.25)
        forms.append((dty, aty, bty, k, n, a, b, extra))
    return forms


def layout(name):
    return K_LAYOUTS.get(name) or MN_LAYOUTS[name]


def form(f, spec):
    dty, aty, bty, k, n, a, b, extra = spec
    nd = n // 4 if dty == "f16" else n // 2
    con = "f" if dty == "f32" else "r"
    ctype = "float" if dty == "f32" else "unsigned"
    L = [f"template <> __device__ void form<{f}>(const unsigned* in, unsigned* out, char* sa, char* sb) {{"]
    L.append(f"    fill(in, sa, sb, {MASK[aty]:#x}u, {MASK[bty]:#x}u);")
    L.append(f"    {ctype} d[{nd}];")
    L.append(f"    for (int i = 0; i < {nd}; i++) d[i] = start<{ctype}>(in, i, {'true' if dty == 's32' else 'false'});")
    if a == "regs":
        L.append("    unsigned a[4];")
        L.append(f"    for (int i = 0; i < 4; i++) a[i] = in[A_REGS + 4 * threadIdx.x + i] & {MASK[aty]:#x}u;")
    else:
        la = layout(a)
        L.append(f"    unsigned long long da = desc(sa, {la[2]}, {la[3]}, {la[4]}, {la[0]});")
    lb = layout(b)
    L.append(f"    unsigned long long db = desc(sb, {lb[2]}, {lb[3]}, {lb[4]}, {lb[0]});")
    L.append('    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");')
    ds = ", ".join(f"%{i}" for i in range(nd))
    outs = ", ".join(f'"+{con}"(d[{i}])' for i in range(nd))
    if a == "regs":
        aop = f"{{%{nd + 1}, %{nd + 2}, %{nd + 3}, %{nd + 4}}}"
        ins = [f'"r"({extra["scale"]})'] + [f'"r"(a[{i}])' for i in range(4)] + ['"l"(db)']
        bop = f"%{nd + 5}"
    else:
        aop = f"%{nd + 1}"
        ins = [f'"r"({extra["scale"]})', '"l"(da)', '"l"(db)']
        bop = f"%{nd + 2}"
    imm = []
    if dty != "s32":
        imm += ["-1" if extra["neg_a"] else "1", "-1" if extra["neg_b"] else "1"]
        if aty in ("f16", "bf16"):
            if a != "regs":
                imm.append(str(layout(a)[1]))
            imm.append(str(lb[1]))
    tail = "".join(", " + x for x in imm)
    name = f"wgmma.mma_async.sync.aligned.m64n{n}k{k}.{dty}.{aty}.{bty}"
    L.append('    asm volatile(')
    L.append(f'        "{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{nd}, 0;\\n"')
    L.append(f'        "{name} {{{ds}}}, {aop}, {bop}, p{tail};\\n}}\\n"')
    L.append(f"        : {outs}")
    L.append(f"        : {', '.join(ins)});")
    L.append('    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");')
    L.append('    asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");')
    L.append(f"    for (int i = 0; i < {nd}; i++) out[OUT_WORDS * threadIdx.x + i] = bits(d[i]);")
    L.append("}")
    return "\n".join(L)


HEAD = r'''// GENERATED by gen.py (issue 41's fresh wgmma draw; forms.txt says what each form is): each
// form one wgmma.mma_async.m64nNkK by one warpgroup. `in` (per block: IN_WORDS words, warpsim's
// Random(seed) on a U32 buffer) gives the bytes of shared regions A (8 KiB) and B (36 KiB) read
// through matrix descriptors (masked so no float element is an infinity or a NaN), D's
// starting values (forms with scale-d = 1) and A's registers. `out`: every thread's D
// registers (OUT_WORDS a thread; the ones a form does not write stay zero).
#define FORMS 32
#define A_WORDS 2048
#define B_WORDS 9216
#define OUT_WORDS 128
#define C_AT (A_WORDS + B_WORDS)
#define A_REGS (C_AT + 128 * OUT_WORDS)
#define IN_WORDS (A_REGS + 512)

__device__ __forceinline__ unsigned long long desc(char* base, unsigned off, unsigned lbo,
                                                   unsigned sbo, unsigned long long mode) {
    unsigned addr = (unsigned)__cvta_generic_to_shared(base) + off;
    return (unsigned long long)((addr & 0x3FFFF) >> 4) |
           (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16 |
           (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32 | mode << 62;
}

__device__ __forceinline__ void fill(const unsigned* in, char* sa, char* sb, unsigned ma, unsigned mb) {
    for (int i = threadIdx.x; i < A_WORDS; i += 128) ((unsigned*)sa)[i] = in[i] & ma;
    for (int i = threadIdx.x; i < B_WORDS; i += 128) ((unsigned*)sb)[i] = in[A_WORDS + i] & mb;
    __syncthreads();
}

// D register i's starting value: f32 within +-2 (bit 30 clear), s32 within +-2^23, f16 pairs
// below 2.
template <typename T>
__device__ __forceinline__ T start(const unsigned* in, int i, bool s32);
template <>
__device__ __forceinline__ float start<float>(const unsigned* in, int i, bool) {
    return __uint_as_float(in[C_AT + OUT_WORDS * threadIdx.x + i] & 0xBFFFFFFFu);
}
template <>
__device__ __forceinline__ unsigned start<unsigned>(const unsigned* in, int i, bool s32) {
    unsigned w = in[C_AT + OUT_WORDS * threadIdx.x + i];
    return s32 ? (unsigned)((int)w >> 8) : (w & 0xBFFFBFFFu);
}
__device__ __forceinline__ unsigned bits(float x) { return __float_as_uint(x); }
__device__ __forceinline__ unsigned bits(unsigned x) { return x; }

template <int FORM>
__device__ void form(const unsigned* in, unsigned* out, char* sa, char* sb);
'''

TAIL = r'''
template <int FORM>
__global__ void forms(const unsigned* in, unsigned* out) {
    __shared__ __align__(1024) char sa[A_WORDS * 4];
    __shared__ __align__(1024) char sb[B_WORDS * 4];
    form<FORM>(in + blockIdx.x * IN_WORDS, out + blockIdx.x * 128 * OUT_WORDS, sa, sb);
}
'''

if __name__ == "__main__":
    forms = draw()
    # With -DF=f (warpsim's launch file) only form f is compiled; without (host.cu), all.
    guard = lambda f, text: f"#if !defined(F) || F == {f}\n{text}\n#endif"
    body = [guard(f, form(f, s)) for f, s in enumerate(forms)]
    inst = "\n".join(guard(f, f"template __global__ void forms<{f}>(const unsigned*, unsigned*);") for f in range(FORMS))
    nds = [n // 4 if d == "f16" else n // 2 for d, _, _, _, n, _, _, _ in forms]
    nd = "// D registers a thread of each form (host.cu prints these).\nstatic const int ND[FORMS] = {" + ", ".join(map(str, nds)) + "};\n"
    open("draw.cu", "w").write(HEAD + "\n" + "\n\n".join(body) + "\n" + TAIL + inst + "\n" + nd)
    with open("forms.txt", "w") as o:
        o.write("# form d a b K N A-layout B-layout scale-d neg-a neg-b (gen.py, seed %d)\n" % SEED)
        for f, (dty, aty, bty, k, n, a, b, extra) in enumerate(forms):
            o.write(f"{f} {dty} {aty} {bty} {k} {n} {a} {b} {extra['scale']} {extra.get('neg_a', 0)} {extra.get('neg_b', 0)}\n")
