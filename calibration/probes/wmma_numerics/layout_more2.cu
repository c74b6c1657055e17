// calibration/probes/wmma_numerics, third part: every WMMA fragment of m32n8k16 and m8n32k16
// not measured yet (A and B row- and col-major of f16, bf16, u8 and s8; the f16 and s32
// accumulators; ptx/src/wmma.rs's Frag::elems says which are hypotheses), the 8-bit and bf16
// m16n16k16 A and B in both layouts, and again layout_more.cu's six (their names and tiles,
// so that their lines equal raw/layout_more.txt's). One warp loads a tile from shared memory
// whose element at offset o = r * LD + c (memory row r, element c) holds a code of o, and
// prints "N name num_elements", then "L name lane i value" for every x[i] of every lane
// (repeated registers too), value = o decoded:
//   f16, f32, s32: the number o itself (exact); bf16: bits 0x3c00 + o (all finite, normal);
//   u8, s8: two tiles, o & 255 and o >> 8, loaded into two fragments (value = hi * 256 + lo).
// So for a col-major load r is the matrix's column and c its row. The kernels compile with
// NVRTC too (warpsim's prediction: tests/wmma_shapes.rs writes predictions_layout_more2.txt);
// the host part is nvcc's only.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// The element types' codes.
__device__ __forceinline__ void enc(half* p, int o) { *p = __float2half((float)o); }
__device__ __forceinline__ void enc(__nv_bfloat16* p, int o) { *p = __ushort_as_bfloat16((unsigned short)(0x3c00 + o)); }
__device__ __forceinline__ void enc(float* p, int o) { *p = (float)o; }
__device__ __forceinline__ void enc(int* p, int o) { *p = o; }
__device__ __forceinline__ unsigned dec(half x) { return (unsigned)__half2float(x); }
__device__ __forceinline__ unsigned dec(__nv_bfloat16 x) { return (unsigned)__bfloat16_as_ushort(x) - 0x3c00u; }
__device__ __forceinline__ unsigned dec(float x) { return (unsigned)x; }
__device__ __forceinline__ unsigned dec(int x) { return (unsigned)x; }
__device__ __forceinline__ unsigned dec(signed char x) { return (unsigned)(unsigned char)x; }
__device__ __forceinline__ unsigned dec(unsigned char x) { return (unsigned)x; }

enum { FA, FB, FC };      // matrix_a, matrix_b, accumulator
enum { ROW, COL };
template <int U> struct Use;
template <> struct Use<FA> { typedef wmma::matrix_a T; };
template <> struct Use<FB> { typedef wmma::matrix_b T; };
template <> struct Use<FC> { typedef wmma::accumulator T; };
template <int L> struct Lay;
template <> struct Lay<ROW> { typedef wmma::row_major T; };
template <> struct Lay<COL> { typedef wmma::col_major T; };

// One fragment: use, shape, element type, layout (A and B), leading dimension; its name.
template <int KIND> struct Kind;
#define KIND(K, NAME, U, M, N, KK, TY, L, LD)                                                 \
    template <> struct Kind<K> {                                                             \
        enum { u = U, m = M, n = N, k = KK, l = L, ld = LD };                                \
        typedef TY E;                                                                        \
        __host__ __device__ static const char* name() { return NAME; }                       \
    };
// layout_more.cu's six (measured: raw/layout_more.txt)
KIND(0,  "c_m32n8k16_f32",       FC, 32, 8, 16, float, ROW, 32)
KIND(1,  "c_m8n32k16_f32",       FC, 8, 32, 16, float, ROW, 32)
KIND(2,  "b_m8n32k16_col",       FB, 8, 32, 16, half, COL, 32)
KIND(3,  "a_u8_row",             FA, 16, 16, 16, unsigned char, ROW, 16)
KIND(4,  "b_u8_col",             FB, 16, 16, 16, unsigned char, COL, 16)
KIND(5,  "c_m32n8k16_f16",       FC, 32, 8, 16, half, ROW, 32)
// accumulators not measured
KIND(6,  "c_m8n32k16_f16",       FC, 8, 32, 16, half, ROW, 32)
KIND(7,  "c_m32n8k16_s32",       FC, 32, 8, 16, int, ROW, 32)
KIND(8,  "c_m8n32k16_s32",       FC, 8, 32, 16, int, ROW, 32)
// m32n8k16 A and B (f16 A row and B col measured on an H100: wmma_layout)
KIND(9,  "a_m32n8k16_f16_row",   FA, 32, 8, 16, half, ROW, 32)
KIND(10, "a_m32n8k16_f16_col",   FA, 32, 8, 16, half, COL, 32)
KIND(11, "b_m32n8k16_f16_row",   FB, 32, 8, 16, half, ROW, 32)
KIND(12, "b_m32n8k16_f16_col",   FB, 32, 8, 16, half, COL, 32)
KIND(13, "a_m32n8k16_bf16_row",  FA, 32, 8, 16, __nv_bfloat16, ROW, 32)
KIND(14, "a_m32n8k16_bf16_col",  FA, 32, 8, 16, __nv_bfloat16, COL, 32)
KIND(15, "b_m32n8k16_bf16_row",  FB, 32, 8, 16, __nv_bfloat16, ROW, 32)
KIND(16, "b_m32n8k16_bf16_col",  FB, 32, 8, 16, __nv_bfloat16, COL, 32)
KIND(17, "a_m32n8k16_u8_row",    FA, 32, 8, 16, unsigned char, ROW, 32)
KIND(18, "a_m32n8k16_u8_col",    FA, 32, 8, 16, unsigned char, COL, 32)
KIND(19, "b_m32n8k16_u8_row",    FB, 32, 8, 16, unsigned char, ROW, 32)
KIND(20, "b_m32n8k16_u8_col",    FB, 32, 8, 16, unsigned char, COL, 32)
KIND(21, "a_m32n8k16_s8_row",    FA, 32, 8, 16, signed char, ROW, 32)
KIND(22, "a_m32n8k16_s8_col",    FA, 32, 8, 16, signed char, COL, 32)
KIND(23, "b_m32n8k16_s8_row",    FB, 32, 8, 16, signed char, ROW, 32)
KIND(24, "b_m32n8k16_s8_col",    FB, 32, 8, 16, signed char, COL, 32)
// m8n32k16 A and B (f16 A row measured on an H100: wmma_layout; f16 B col: kind 2)
KIND(25, "a_m8n32k16_f16_row",   FA, 8, 32, 16, half, ROW, 32)
KIND(26, "a_m8n32k16_f16_col",   FA, 8, 32, 16, half, COL, 32)
KIND(27, "b_m8n32k16_f16_row",   FB, 8, 32, 16, half, ROW, 32)
KIND(28, "a_m8n32k16_bf16_row",  FA, 8, 32, 16, __nv_bfloat16, ROW, 32)
KIND(29, "a_m8n32k16_bf16_col",  FA, 8, 32, 16, __nv_bfloat16, COL, 32)
KIND(30, "b_m8n32k16_bf16_row",  FB, 8, 32, 16, __nv_bfloat16, ROW, 32)
KIND(31, "b_m8n32k16_bf16_col",  FB, 8, 32, 16, __nv_bfloat16, COL, 32)
KIND(32, "a_m8n32k16_u8_row",    FA, 8, 32, 16, unsigned char, ROW, 32)
KIND(33, "a_m8n32k16_u8_col",    FA, 8, 32, 16, unsigned char, COL, 32)
KIND(34, "b_m8n32k16_u8_row",    FB, 8, 32, 16, unsigned char, ROW, 32)
KIND(35, "b_m8n32k16_u8_col",    FB, 8, 32, 16, unsigned char, COL, 32)
KIND(36, "a_m8n32k16_s8_row",    FA, 8, 32, 16, signed char, ROW, 32)
KIND(37, "a_m8n32k16_s8_col",    FA, 8, 32, 16, signed char, COL, 32)
KIND(38, "b_m8n32k16_s8_row",    FB, 8, 32, 16, signed char, ROW, 32)
KIND(39, "b_m8n32k16_s8_col",    FB, 8, 32, 16, signed char, COL, 32)
// m16n16k16: bf16 (not dumped before) and the 8-bit layouts layout_more.cu did not dump
KIND(40, "a_m16n16k16_bf16_row", FA, 16, 16, 16, __nv_bfloat16, ROW, 32)
KIND(41, "a_m16n16k16_bf16_col", FA, 16, 16, 16, __nv_bfloat16, COL, 32)
KIND(42, "b_m16n16k16_bf16_row", FB, 16, 16, 16, __nv_bfloat16, ROW, 32)
KIND(43, "b_m16n16k16_bf16_col", FB, 16, 16, 16, __nv_bfloat16, COL, 32)
KIND(44, "a_m16n16k16_u8_col",   FA, 16, 16, 16, unsigned char, COL, 32)
KIND(45, "b_m16n16k16_u8_row",   FB, 16, 16, 16, unsigned char, ROW, 32)
KIND(46, "a_m16n16k16_s8_row",   FA, 16, 16, 16, signed char, ROW, 32)
KIND(47, "a_m16n16k16_s8_col",   FA, 16, 16, 16, signed char, COL, 32)
KIND(48, "b_m16n16k16_s8_row",   FB, 16, 16, 16, signed char, ROW, 32)
KIND(49, "b_m16n16k16_s8_col",   FB, 16, 16, 16, signed char, COL, 32)
#define KINDS 50

// The fragment type of kind P (accumulators have no layout).
template <typename P, int U = P::u> struct FragOf {
    typedef wmma::fragment<typename Use<U>::T, P::m, P::n, P::k, typename P::E, typename Lay<P::l>::T> T;
};
template <typename P> struct FragOf<P, FC> {
    typedef wmma::fragment<wmma::accumulator, P::m, P::n, P::k, typename P::E> T;
};

template <typename P, typename F, typename E>
__device__ void load(F& f, E* t) {
    if constexpr (P::u == FC)
        wmma::load_matrix_sync(f, t, P::ld, wmma::mem_row_major);
    else
        wmma::load_matrix_sync(f, t, P::ld);
}

// out[lane * 64 + i]: element i's value; out[32 * 64]: num_elements.
template <int KIND>
__global__ void more2(unsigned* out) {
    typedef Kind<KIND> P;
    typedef typename P::E E;
    __shared__ __align__(128) unsigned char sm[2][32 * 32 * 4];
    const int lane = threadIdx.x;
    typename FragOf<P>::T f;
    if constexpr (sizeof(E) == 1) {
        E* lo = (E*)sm[0];
        E* hi = (E*)sm[1];
        for (int o = lane; o < 32 * 32; o += 32) { lo[o] = (E)(o & 255); hi[o] = (E)(o >> 8); }
        __syncwarp();
        typename FragOf<P>::T g;
        load<P>(f, lo);
        load<P>(g, hi);
        for (int i = 0; i < f.num_elements; i++) out[lane * 64 + i] = dec(g.x[i]) * 256 + dec(f.x[i]);
    } else {
        E* t = (E*)sm[0];
        for (int o = lane; o < 32 * 32; o += 32) enc(&t[o], o);
        __syncwarp();
        load<P>(f, t);
        for (int i = 0; i < f.num_elements; i++) out[lane * 64 + i] = dec(f.x[i]);
    }
    if (lane == 0) out[32 * 64] = f.num_elements;
}

#ifndef __CUDACC_RTC__
#include <cstdio>
template <int K>
static void run(unsigned* d, unsigned* h) {
    cudaMemset(d, 0, (32 * 64 + 1) * 4);
    more2<K><<<1, 32>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("E %s %s\n", Kind<K>::name(), cudaGetErrorString(e)); return; }
    cudaMemcpy(h, d, (32 * 64 + 1) * 4, cudaMemcpyDeviceToHost);
    printf("N %s %u\n", Kind<K>::name(), h[32 * 64]);
    for (int l = 0; l < 32; l++)
        for (unsigned i = 0; i < h[32 * 64] && i < 64; i++) printf("L %s %d %u %u\n", Kind<K>::name(), l, i, h[l * 64 + i]);
}
template <int K>
static void run_all(unsigned* d, unsigned* h) {
    run<K>(d, h);
    if constexpr (K + 1 < KINDS) run_all<K + 1>(d, h);
}
int main() {
    unsigned *d, h[32 * 64 + 1];
    cudaMalloc(&d, sizeof(h));
    run_all<0>(d, h);
    return 0;
}
#endif
