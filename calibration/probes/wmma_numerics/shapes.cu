// calibration/probes/wmma_numerics, third part (issue 41): wmma_forms.cu's scheme for the shapes
// m32n8k16 and m8n32k16, one M x N x 16 product per warp (M N = 256 for both). Each form F (the
// FORM table) says the shape, the element types, the layouts of A, B, C and D in memory, where
// each lives (shared or global) and its leading dimension. Warp w reads its 1280 random words
// in[w * 1280 ..] (warpsim's Random(seed) for U32), shapes them into A (M x 16, words 0-511),
// B (16 x N, 512-1023) and C (M x N, 1024-1279) as wmma_forms.cu does (moderate exponents, no
// NaN/Inf), writes them in the form's layouts, loads the fragments with
// wmma::load_matrix_sync (C: or fill_fragment), runs wmma::mma_sync, stores D with
// wmma::store_matrix_sync and copies it row-major to out[w * 256 ..] as 32-bit words (f32 and
// s32 bits, f16 bits zero-extended). Beside it each lane computes 8 of D's elements with scalar
// code (f64) into ref[.. * 2], with the sum of the terms' magnitudes (ref[.. * 2 + 1]). The same
// kernel runs in warpsim (shapes.cu.ron: its `out` is the prediction, tests/wmma_shapes.rs) and
// on the GPU (shapes_host.cu).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

#define SFORMS 12
#define SWORDS 1280 /* random words a warp */
#define STILE (32 * 48) /* elements of one operand's memory, largest ld */

enum { T_F16, T_BF16, T_S8, T_U8 };                // A and B
enum { C_F32, C_F16, C_S32 };                       // C and D
enum { ROW, COL, ZERO };                            // layouts (ZERO: C is fill_fragment 0)

// M (N = 256 / M), type A/B, A, B layouts, C type, C, D layouts, where A, B, C, D live (1
// shared, 0 global), leading dimensions of A, B, C, D.
template <int F> struct Form;
#define FORM(F, M, TY, AL, BL, CT, CL, DL, AS, BS, CS, DS, LA, LB, LC, LD)                 \
    template <> struct Form<F> {                                                           \
        enum { m = M, n = 256 / M, ty = TY, al = AL, bl = BL, ct = CT, cl = CL, dl = DL,   \
               as = AS, bs = BS, cs = CS, ds = DS, la = LA, lb = LB, lc = LC, ld = LD };   \
    };
//        F  M   type    A    B    C      C     D    As Bs Cs Ds  lda ldb ldc ldd
FORM(0,  32, T_F16,  ROW, COL, C_F32, ROW,  ROW, 1, 1, 0, 0, 24, 40,  8, 16)
FORM(1,  32, T_F16,  COL, ROW, C_F32, COL,  COL, 1, 1, 1, 0, 40, 16, 32, 40)
FORM(2,  32, T_F16,  ROW, ROW, C_F16, ROW,  ROW, 0, 1, 1, 1, 16, 24, 16,  8)
FORM(3,  32, T_BF16, COL, COL, C_F32, ZERO, ROW, 1, 0, 0, 1, 32, 24,  8, 12)
FORM(4,  32, T_S8,   ROW, COL, C_S32, ROW,  ROW, 1, 1, 0, 0, 32, 16,  8,  8)
FORM(5,  32, T_U8,   COL, ROW, C_S32, ZERO, COL, 0, 1, 0, 1, 48, 16,  8, 32)
FORM(6,   8, T_F16,  ROW, COL, C_F32, ROW,  ROW, 1, 1, 0, 0, 24, 24, 32, 36)
FORM(7,   8, T_F16,  COL, ROW, C_F16, COL,  COL, 1, 1, 1, 0,  8, 40, 16,  8)
FORM(8,   8, T_BF16, ROW, COL, C_F32, COL,  ROW, 0, 1, 1, 0, 16, 16,  8, 32)
FORM(9,   8, T_S8,   COL, ROW, C_S32, ROW,  COL, 1, 0, 0, 1, 16, 48, 32,  8)
FORM(10,  8, T_U8,   ROW, COL, C_S32, ZERO, ROW, 1, 1, 0, 0, 32, 16, 32, 32)
FORM(11,  8, T_F16,  ROW, ROW, C_F32, ROW,  COL, 0, 0, 0, 0, 16, 32, 40, 12)

// Shaped elements (exponents 2^-4 .. 2^3, random mantissas; integers: any byte), as
// wmma_forms.cu's.
__device__ __forceinline__ unsigned short sh16(unsigned w) {
    return (unsigned short)((w & 0x83ffu) | ((((w >> 10) & 7u) + 11u) << 10));
}
__device__ __forceinline__ unsigned short sb16(unsigned w) {
    return (unsigned short)((w & 0x807fu) | ((((w >> 7) & 7u) + 123u) << 7));
}
__device__ __forceinline__ float sf32(unsigned w) {
    return __uint_as_float((w & 0x807fffffu) | ((((w >> 23) & 7u) + 123u) << 23));
}

template <int TY> struct SAB;
template <> struct SAB<T_F16> { typedef half E;
    static __device__ E make(unsigned w) { return __ushort_as_half(sh16(w)); }
    static __device__ double val(E e) { return (double)__half2float(e); } };
template <> struct SAB<T_BF16> { typedef __nv_bfloat16 E;
    static __device__ E make(unsigned w) { return __ushort_as_bfloat16(sb16(w)); }
    static __device__ double val(E e) { return (double)__bfloat162float(e); } };
template <> struct SAB<T_S8> { typedef signed char E;
    static __device__ E make(unsigned w) { return (signed char)(w & 0xff); }
    static __device__ double val(E e) { return (double)e; } };
template <> struct SAB<T_U8> { typedef unsigned char E;
    static __device__ E make(unsigned w) { return (unsigned char)(w & 0xff); }
    static __device__ double val(E e) { return (double)e; } };

template <int CT> struct SAcc;
template <> struct SAcc<C_F32> { typedef float E;
    static __device__ E make(unsigned w) { return sf32(w); }
    static __device__ double val(E e) { return (double)e; }
    static __device__ unsigned word(E e) { return __float_as_uint(e); } };
template <> struct SAcc<C_F16> { typedef half E;
    static __device__ E make(unsigned w) { return __ushort_as_half(sh16(w)); }
    static __device__ double val(E e) { return (double)__half2float(e); }
    static __device__ unsigned word(E e) { return (unsigned)__half_as_ushort(e); } };
template <> struct SAcc<C_S32> { typedef int E;
    static __device__ E make(unsigned w) { return (int)((w ^ (w >> 16)) & 0xffff) - 32768; }
    static __device__ double val(E e) { return (double)e; }
    static __device__ unsigned word(E e) { return (unsigned)e; } };

template <int L> struct SLay;
template <> struct SLay<ROW> { typedef wmma::row_major T; static const wmma::layout_t M = wmma::mem_row_major; };
template <> struct SLay<COL> { typedef wmma::col_major T; static const wmma::layout_t M = wmma::mem_col_major; };
template <> struct SLay<ZERO> { typedef wmma::row_major T; static const wmma::layout_t M = wmma::mem_row_major; };

// Element (r, c) of a matrix with layout L and leading dimension ld.
__device__ __forceinline__ int sat(int l, int ld, int r, int c) { return l == COL ? c * ld + r : r * ld + c; }

// The scratch buffers warpsim types by element (U16, F32, U8): g16, g32, g8, 3 tiles a warp.
template <int F>
__global__ void shapes(const unsigned* in, unsigned* out, float* ref, unsigned short* g16,
                       float* g32, unsigned char* g8) {
    typedef Form<F> P;
    typedef SAB<P::ty> S;
    typedef SAcc<P::ct> Q;
    typedef typename S::E EA;
    typedef typename Q::E EC;
    const int M = P::m, N = P::n, K = 16, lane = threadIdx.x, w = blockIdx.x;
    const unsigned* x = in + w * SWORDS;
    __shared__ __align__(128) unsigned char sm[3][STILE * 4];
    unsigned char* gab = sizeof(EA) == 2 ? (unsigned char*)(g16 + w * 3 * STILE)
                                         : (unsigned char*)(g8 + w * 3 * STILE);
    unsigned char* gc = sizeof(EC) == 2 ? (unsigned char*)(g16 + w * 3 * STILE + 2 * STILE)
                                        : (unsigned char*)(g32 + w * 3 * STILE + 2 * STILE);
    EA* a = (EA*)(P::as ? sm[0] : gab);
    EA* b = (EA*)(P::bs ? sm[1] : gab + STILE * sizeof(EA));
    EC* c = (EC*)(P::cs ? sm[2] : gc);
    for (int i = lane; i < M * K; i += 32) a[sat(P::al, P::la, i / K, i % K)] = S::make(x[i]);
    for (int i = lane; i < K * N; i += 32) b[sat(P::bl, P::lb, i / N, i % N)] = S::make(x[512 + i]);
    if (P::cl != ZERO)
        for (int i = lane; i < M * N; i += 32) c[sat(P::cl, P::lc, i / N, i % N)] = Q::make(x[1024 + i]);
    __syncwarp();
    // The reference: element i of D, in f64, and the sum of its terms' magnitudes.
    for (int i = lane; i < M * N; i += 32) {
        int r = i / N, n = i % N;
        double s = P::cl == ZERO ? 0.0 : Q::val(c[sat(P::cl, P::lc, r, n)]), m = s < 0 ? -s : s;
        for (int k = 0; k < K; k++) {
            double p = S::val(a[sat(P::al, P::la, r, k)]) * S::val(b[sat(P::bl, P::lb, k, n)]);
            s += p;
            m += p < 0 ? -p : p;
        }
        ref[(w * 256 + i) * 2] = (float)s;
        ref[(w * 256 + i) * 2 + 1] = (float)m;
    }
    wmma::fragment<wmma::matrix_a, M, N, 16, EA, typename SLay<P::al>::T> fa;
    wmma::fragment<wmma::matrix_b, M, N, 16, EA, typename SLay<P::bl>::T> fb;
    wmma::fragment<wmma::accumulator, M, N, 16, EC> fc;
    wmma::load_matrix_sync(fa, a, P::la);
    wmma::load_matrix_sync(fb, b, P::lb);
    if (P::cl == ZERO)
        wmma::fill_fragment(fc, (EC)0);
    else
        wmma::load_matrix_sync(fc, c, P::lc, SLay<P::cl>::M);
    wmma::mma_sync(fc, fa, fb, fc);
    __syncwarp();
    EC* d = (EC*)(P::ds ? sm[2] : gc);
    wmma::store_matrix_sync(d, fc, P::ld, SLay<P::dl>::M);
    __syncwarp();
    for (int i = lane; i < M * N; i += 32) out[w * 256 + i] = Q::word(d[sat(P::dl, P::ld, i / N, i % N)]);
}
