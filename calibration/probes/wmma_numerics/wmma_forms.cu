// calibration/probes/wmma_numerics (issue 41): WMMA as CUDA's <mma.h> writes it, every form
// warpsim runs, on random operands, one 16 x 16 product per warp (one warp a block). Each
// form F (the FORM table below) says the element types, the layouts of A, B, C and D in
// memory, where each lives (shared or global) and its leading dimension. Warp w reads its 768
// random words in[w * 768 ..] (warpsim's Random(seed) for U32), shapes them into A (16 x K),
// B (K x 16) and C (16 x 16) (moderate exponents, no NaN/Inf), writes them in the form's
// layouts, loads the fragments with wmma::load_matrix_sync (C: or fill_fragment), runs
// wmma::mma_sync, stores D with wmma::store_matrix_sync and copies it row-major to
// out[w * 256 ..] as 32-bit words (f32 and s32 bits, f16 bits zero-extended). Beside it,
// each lane computes 8 of D's elements with scalar code (f64) into ref[.. * 2] with the sum
// of the terms' magnitudes (ref[.. * 2 + 1]): the form's layouts checked without trusting
// the tensor cores. The same kernel runs in warpsim (forms.cu.ron: its `out` is the
// prediction) and on the GPU (host.cu), so any difference in `out` is WMMA's.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

#define FORMS 12
#define WORDS 768 /* random words a warp */
#define TILE (16 * 48) /* elements of one operand's memory, largest ld */

enum { T_F16, T_BF16, T_TF32, T_S8, T_U8 };       // A and B
enum { C_F32, C_F16, C_S32 };                       // C and D
enum { ROW, COL, ZERO };                            // layouts (ZERO: C is fill_fragment 0)

// type A/B, A, B layouts, C type, C, D layouts, where A, B, C, D live (1 shared, 0 global),
// leading dimensions of A, B, C, D, and whether every element of A is doubled in the fragment.
template <int F> struct Form;
#define FORM(F, TY, AL, BL, CT, CL, DL, AS, BS, CS, DS, LA, LB, LC, LD, DBL)                \
    template <> struct Form<F> {                                                           \
        enum { ty = TY, al = AL, bl = BL, ct = CT, cl = CL, dl = DL, as = AS, bs = BS,     \
               cs = CS, ds = DS, la = LA, lb = LB, lc = LC, ld = LD, dbl = DBL };          \
    };
//        F  type    A    B    C      C     D    As Bs Cs Ds  lda ldb ldc ldd dbl
FORM(0,  T_F16,  ROW, COL, C_F32, ROW,  ROW, 1, 1, 0, 0, 24, 40, 16, 16, 0)
FORM(1,  T_F16,  COL, ROW, C_F32, COL,  COL, 1, 1, 1, 0, 16, 32, 20, 24, 0)
FORM(2,  T_F16,  ROW, ROW, C_F16, ROW,  ROW, 1, 1, 1, 1, 32, 24, 24, 40, 0)
FORM(3,  T_F16,  COL, COL, C_F16, COL,  COL, 0, 0, 1, 0, 16, 24, 16, 32, 0)
FORM(4,  T_BF16, ROW, COL, C_F32, ZERO, ROW, 1, 0, 0, 0, 40, 16, 16, 20, 0)
FORM(5,  T_BF16, COL, ROW, C_F32, ROW,  COL, 0, 1, 0, 1, 24, 16, 16, 16, 0)
FORM(6,  T_TF32, ROW, COL, C_F32, ROW,  ROW, 1, 1, 1, 0, 12, 20, 16, 16, 0)
FORM(7,  T_TF32, COL, ROW, C_F32, COL,  ROW, 0, 0, 0, 1, 16, 24, 20, 16, 0)
FORM(8,  T_S8,   ROW, COL, C_S32, ROW,  ROW, 1, 1, 0, 0, 32, 48, 16, 16, 0)
FORM(9,  T_U8,   ROW, COL, C_S32, ZERO, COL, 0, 1, 0, 1, 16, 32, 16, 20, 0)
FORM(10, T_F16,  ROW, COL, C_F32, ROW,  ROW, 1, 1, 0, 0, 24, 24, 16, 16, 1)
FORM(11, T_F16,  ROW, COL, C_F32, ROW,  ROW, 0, 0, 0, 0, 16, 16, 16, 16, 0)

// Shaped elements (exponents 2^-4 .. 2^3, random mantissas; integers: any byte).
__device__ __forceinline__ unsigned short h16(unsigned w) {
    return (unsigned short)((w & 0x83ffu) | ((((w >> 10) & 7u) + 11u) << 10));
}
__device__ __forceinline__ unsigned short b16(unsigned w) {
    return (unsigned short)((w & 0x807fu) | ((((w >> 7) & 7u) + 123u) << 7));
}
__device__ __forceinline__ float f32s(unsigned w) {
    return __uint_as_float((w & 0x807fffffu) | ((((w >> 23) & 7u) + 123u) << 23));
}

template <int TY> struct AB;
template <> struct AB<T_F16> { typedef half T; typedef half E; enum { K = 16 };
    static __device__ E make(unsigned w) { return __ushort_as_half(h16(w)); }
    static __device__ double val(E e) { return (double)__half2float(e); } };
template <> struct AB<T_BF16> { typedef __nv_bfloat16 T; typedef __nv_bfloat16 E; enum { K = 16 };
    static __device__ E make(unsigned w) { return __ushort_as_bfloat16(b16(w)); }
    static __device__ double val(E e) { return (double)__bfloat162float(e); } };
template <> struct AB<T_TF32> { typedef wmma::precision::tf32 T; typedef float E; enum { K = 8 };
    // The tensor cores read 19 bits (tf32): the reference uses the same.
    static __device__ E make(unsigned w) { return __uint_as_float(__float_as_uint(f32s(w)) & 0xffffe000u); }
    static __device__ double val(E e) { return (double)e; } };
template <> struct AB<T_S8> { typedef signed char T; typedef signed char E; enum { K = 16 };
    static __device__ E make(unsigned w) { return (signed char)(w & 0xff); }
    static __device__ double val(E e) { return (double)e; } };
template <> struct AB<T_U8> { typedef unsigned char T; typedef unsigned char E; enum { K = 16 };
    static __device__ E make(unsigned w) { return (unsigned char)(w & 0xff); }
    static __device__ double val(E e) { return (double)e; } };

template <int CT> struct Acc;
template <> struct Acc<C_F32> { typedef float E;
    static __device__ E make(unsigned w) { return f32s(w); }
    static __device__ double val(E e) { return (double)e; }
    static __device__ unsigned word(E e) { return __float_as_uint(e); } };
template <> struct Acc<C_F16> { typedef half E;
    static __device__ E make(unsigned w) { return __ushort_as_half(h16(w)); }
    static __device__ double val(E e) { return (double)__half2float(e); }
    static __device__ unsigned word(E e) { return (unsigned)__half_as_ushort(e); } };
template <> struct Acc<C_S32> { typedef int E;
    static __device__ E make(unsigned w) { return (int)((w ^ (w >> 16)) & 0xffff) - 32768; }
    static __device__ double val(E e) { return (double)e; }
    static __device__ unsigned word(E e) { return (unsigned)e; } };

template <int L> struct Lay;
template <> struct Lay<ROW> { typedef wmma::row_major T; static const wmma::layout_t M = wmma::mem_row_major; };
template <> struct Lay<COL> { typedef wmma::col_major T; static const wmma::layout_t M = wmma::mem_col_major; };
template <> struct Lay<ZERO> { typedef wmma::row_major T; static const wmma::layout_t M = wmma::mem_row_major; };

// Element (r, c) of a matrix with layout L and leading dimension ld.
__device__ __forceinline__ int at(int l, int ld, int r, int c) { return l == COL ? c * ld + r : r * ld + c; }

// The scratch buffers warpsim types by element (U16, F32, U8): g16, g32, g8, 3 tiles a warp.
template <int F>
__global__ void forms(const unsigned* in, unsigned* out, float* ref, unsigned short* g16,
                      float* g32, unsigned char* g8) {
    typedef Form<F> P;
    typedef AB<P::ty> S;
    typedef Acc<P::ct> Q;
    typedef typename S::E EA;
    typedef typename Q::E EC;
    const int K = S::K, lane = threadIdx.x, w = blockIdx.x;
    const unsigned* x = in + w * WORDS;
    __shared__ __align__(128) unsigned char sm[3][TILE * 4];
    // Global tiles of this warp: element types by size.
    unsigned char* gab = sizeof(EA) == 2 ? (unsigned char*)(g16 + w * 3 * TILE)
                         : sizeof(EA) == 4 ? (unsigned char*)(g32 + w * 3 * TILE)
                                           : (unsigned char*)(g8 + w * 3 * TILE);
    unsigned char* gc = sizeof(EC) == 2 ? (unsigned char*)(g16 + w * 3 * TILE + 2 * TILE)
                                        : (unsigned char*)(g32 + w * 3 * TILE + 2 * TILE);
    EA* a = (EA*)(P::as ? sm[0] : gab);
    EA* b = (EA*)(P::bs ? sm[1] : gab + TILE * sizeof(EA));
    EC* c = (EC*)(P::cs ? sm[2] : gc);
    for (int i = lane; i < 16 * K; i += 32) a[at(P::al, P::la, i / K, i % K)] = S::make(x[i]);
    for (int i = lane; i < K * 16; i += 32) b[at(P::bl, P::lb, i / 16, i % 16)] = S::make(x[256 + i]);
    if (P::cl != ZERO)
        for (int i = lane; i < 256; i += 32) c[at(P::cl, P::lc, i / 16, i % 16)] = Q::make(x[512 + i]);
    __syncwarp();
    // The reference: element i of D, in f64, and the sum of its terms' magnitudes.
    for (int i = lane; i < 256; i += 32) {
        int r = i / 16, n = i % 16;
        double s = P::cl == ZERO ? 0.0 : Q::val(c[at(P::cl, P::lc, r, n)]), m = s < 0 ? -s : s;
        for (int k = 0; k < K; k++) {
            double p = S::val(a[at(P::al, P::la, r, k)]) * (P::dbl ? 2.0 : 1.0) *
                       S::val(b[at(P::bl, P::lb, k, n)]);
            s += p;
            m += p < 0 ? -p : p;
        }
        ref[(w * 256 + i) * 2] = (float)s;
        ref[(w * 256 + i) * 2 + 1] = (float)m;
    }
    wmma::fragment<wmma::matrix_a, 16, 16, S::K, typename S::T, typename Lay<P::al>::T> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, S::K, typename S::T, typename Lay<P::bl>::T> fb;
    wmma::fragment<wmma::accumulator, 16, 16, S::K, EC> fc;
    wmma::load_matrix_sync(fa, a, P::la);
    wmma::load_matrix_sync(fb, b, P::lb);
    if (P::cl == ZERO)
        wmma::fill_fragment(fc, (EC)0);
    else
        wmma::load_matrix_sync(fc, c, P::lc, Lay<P::cl>::M);
    if constexpr (P::dbl != 0)
        for (int i = 0; i < fa.num_elements; i++) fa.x[i] = __hadd(fa.x[i], fa.x[i]);
    wmma::mma_sync(fc, fa, fb, fc);
    __syncwarp();
    EC* d = (EC*)(P::ds ? sm[2] : gc);
    wmma::store_matrix_sync(d, fc, P::ld, Lay<P::dl>::M);
    __syncwarp();
    for (int i = lane; i < 256; i += 32) out[w * 256 + i] = Q::word(d[at(P::dl, P::ld, i / 16, i % 16)]);
}
