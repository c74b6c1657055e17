// calibration/probes/mma_numerics (issue 41): every mma.sync form warpsim runs, on random
// operands, one instance per warp. Lane l of warp w reads its 16 words in[(w * 32 + l) * 16 ..]
// (random u32, warpsim's Random(seed) for U32), shapes them into operand registers (the
// `shape_*` functions keep exponents moderate and avoid NaN/Inf; the f16 `WIDE` form spreads
// exponents over 2^-14 .. 2^15), runs one mma.sync and writes its D words to
// out[(w * 32 + l) * 8 ..]. The same kernel runs in warpsim (mma_forms.cu.ron: its `out` is
// the prediction) and on the GPU (run.sh), so any difference is the mma's layout or rounding.
#define FORMS 14

__device__ __forceinline__ unsigned shape_f16x2(unsigned w) {
    // sign and mantissa kept; exponent field 11..18 (2^-4 .. 2^3).
    return (w & 0x83ff83ffu) | ((((w >> 10) & 0x00070007u) + 0x000b000bu) << 10);
}
__device__ __forceinline__ unsigned shape_f16x2_wide(unsigned w) {
    // exponent field 1..30 (no subnormals, no Inf/NaN).
    unsigned lo = ((w >> 10) & 31) % 30 + 1, hi = ((w >> 26) & 31) % 30 + 1;
    return (w & 0x83ff83ffu) | (lo << 10) | (hi << 26);
}
__device__ __forceinline__ unsigned shape_bf16x2(unsigned w) {
    return (w & 0x807f807fu) | ((((w >> 7) & 0x00070007u) + 0x007b007bu) << 7);
}
__device__ __forceinline__ unsigned shape_f32(unsigned w) {
    // every mantissa bit random (tf32 ignores the low 13), exponent 2^-4 .. 2^3.
    return (w & 0x807fffffu) | ((((w >> 23) & 7u) + 123u) << 23);
}
__device__ __forceinline__ unsigned shape_fp8x4(unsigned w) {
    // bit 6 of each byte cleared: e4m3 exponents 0..7 (no NaN), e5m2 0..15 (no Inf/NaN).
    return w & 0xbfbfbfbfu;
}

template <int F>
__global__ void forms(const unsigned* in, unsigned* out) {
    const unsigned* x = in + (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    unsigned* y = out + (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    unsigned d[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (F == 0 || F == 1) {
        // m16n8k16 f32.f16.f16.f32 (F = 1: wide exponents)
        unsigned a[4], b[2];
        float c[4];
        for (int j = 0; j < 4; j++) a[j] = F ? shape_f16x2_wide(x[j]) : shape_f16x2(x[j]);
        for (int j = 0; j < 2; j++) b[j] = F ? shape_f16x2_wide(x[4 + j]) : shape_f16x2(x[4 + j]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        float e[4];
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                     : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 2) {
        // m16n8k16 f16.f16.f16.f16
        unsigned a[4], b[2], c[2];
        for (int j = 0; j < 4; j++) a[j] = shape_f16x2(x[j]);
        for (int j = 0; j < 2; j++) b[j] = shape_f16x2(x[4 + j]);
        for (int j = 0; j < 2; j++) c[j] = shape_f16x2(x[6 + j]);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
                     : "=r"(d[0]), "=r"(d[1])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "r"(c[0]), "r"(c[1]));
    } else if (F == 3) {
        // m16n8k16 f32.bf16.bf16.f32
        unsigned a[4], b[2];
        float c[4], e[4];
        for (int j = 0; j < 4; j++) a[j] = shape_bf16x2(x[j]);
        for (int j = 0; j < 2; j++) b[j] = shape_bf16x2(x[4 + j]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                     : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 4) {
        // m16n8k8 f32.tf32.tf32.f32
        unsigned a[4], b[2];
        float c[4], e[4];
        for (int j = 0; j < 4; j++) a[j] = shape_f32(x[j]);
        for (int j = 0; j < 2; j++) b[j] = shape_f32(x[4 + j]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                     : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 5) {
        // m16n8k4 f32.tf32.tf32.f32
        unsigned a[2], b;
        float c[4], e[4];
        for (int j = 0; j < 2; j++) a[j] = shape_f32(x[j]);
        b = shape_f32(x[4]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
                     : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 6) {
        // m16n8k8 f32.f16.f16.f32
        unsigned a[2], b;
        float c[4], e[4];
        for (int j = 0; j < 2; j++) a[j] = shape_f16x2(x[j]);
        b = shape_f16x2(x[4]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
                     : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 7 || F == 8) {
        // m16n8k32 s32.s8.u8.s32 (F = 8: .satfinite); C random over the whole range
        unsigned a[4], b[2];
        int c[4], e[4];
        for (int j = 0; j < 4; j++) a[j] = x[j];
        for (int j = 0; j < 2; j++) b[j] = x[4 + j];
        for (int j = 0; j < 4; j++) c[j] = (int)x[6 + j];
        if (F == 7) {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                         : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        } else {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                         : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        }
        for (int j = 0; j < 4; j++) d[j] = (unsigned)e[j];
    } else if (F == 9) {
        // m16n8k16 s32.u8.s8.s32, C small
        unsigned a[2], b;
        int c[4], e[4];
        for (int j = 0; j < 2; j++) a[j] = x[j];
        b = x[4];
        for (int j = 0; j < 4; j++) c[j] = (int)(x[6 + j] >> 12) - (1 << 19);
        asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
                     : "=r"(e[0]), "=r"(e[1]), "=r"(e[2]), "=r"(e[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        for (int j = 0; j < 4; j++) d[j] = (unsigned)e[j];
    } else if (F == 10) {
        // m8n8k16 s32.s8.s8.s32
        int c[2], e[2];
        for (int j = 0; j < 2; j++) c[j] = (int)(x[6 + j] >> 12) - (1 << 19);
        asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
                     : "=r"(e[0]), "=r"(e[1])
                     : "r"(x[0]), "r"(x[4]), "r"(c[0]), "r"(c[1]));
        for (int j = 0; j < 2; j++) d[j] = (unsigned)e[j];
    } else if (F == 11 || F == 12) {
        // m16n8k32 f32.e4m3.e4m3.f32 (F = 12: f32.e5m2.e4m3.f32)
        unsigned a[4], b[2];
        float c[4], e[4];
        for (int j = 0; j < 4; j++) a[j] = shape_fp8x4(x[j]);
        for (int j = 0; j < 2; j++) b[j] = shape_fp8x4(x[4 + j]);
        for (int j = 0; j < 4; j++) c[j] = __uint_as_float(shape_f32(x[6 + j]));
        if (F == 11) {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                         : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        } else {
            asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
                         : "=f"(e[0]), "=f"(e[1]), "=f"(e[2]), "=f"(e[3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),
                           "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
        }
        for (int j = 0; j < 4; j++) d[j] = __float_as_uint(e[j]);
    } else if (F == 13) {
        // m8n8k4 f64.f64.f64.f64: exponents 2^-4 .. 2^3, mantissas random
        double a, b, c[2], e[2];
        auto mk = [](unsigned lo, unsigned hi) {
            hi = (hi & 0x800fffffu) | ((((hi >> 20) & 7u) + 1019u) << 20);
            return __hiloint2double((int)hi, (int)lo);
        };
        a = mk(x[0], x[1]);
        b = mk(x[4], x[5]);
        c[0] = mk(x[6], x[7]);
        c[1] = mk(x[8], x[9]);
        asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};\n"
                     : "=d"(e[0]), "=d"(e[1])
                     : "d"(a), "d"(b), "d"(c[0]), "d"(c[1]));
        for (int j = 0; j < 2; j++) {
            d[2 * j] = (unsigned)__double2loint(e[j]);
            d[2 * j + 1] = (unsigned)__double2hiint(e[j]);
        }
    }
    for (int j = 0; j < 8; j++) y[j] = d[j];
}

template __global__ void forms<0>(const unsigned*, unsigned*);
template __global__ void forms<1>(const unsigned*, unsigned*);
template __global__ void forms<2>(const unsigned*, unsigned*);
template __global__ void forms<3>(const unsigned*, unsigned*);
template __global__ void forms<4>(const unsigned*, unsigned*);
template __global__ void forms<5>(const unsigned*, unsigned*);
template __global__ void forms<6>(const unsigned*, unsigned*);
template __global__ void forms<7>(const unsigned*, unsigned*);
template __global__ void forms<8>(const unsigned*, unsigned*);
template __global__ void forms<9>(const unsigned*, unsigned*);
template __global__ void forms<10>(const unsigned*, unsigned*);
template __global__ void forms<11>(const unsigned*, unsigned*);
template __global__ void forms<12>(const unsigned*, unsigned*);
template __global__ void forms<13>(const unsigned*, unsigned*);
