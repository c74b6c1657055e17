// calibration/probes/wmma_layout (issue 41): what WMMA's fragments hold on sm_90, and what its
// loads from shared memory cost. Not a prediction: warpsim refuses wmma.* (a measurement for
// the model to come). For each fragment (m16n16k16 f16 A/B row/col, f32/f16 accumulators;
// m16n16k8 tf32 A/B; m32n8k16 and m8n32k16 f16 A/B), one warp loads a 32 x 32 tile whose element
// (r, c) holds a code of (r, c) (f16/f32 exact) with ldm = LD from shared memory and prints, per
// lane, the decoded (r, c) of every x[i]: "F name lane i r c". The `ld` kernels then load A and B
// fragments from shared in a loop (ldm 16, 24, 32, 40) for ncu's shared counters; the SASS shows
// which instructions wmma.load becomes.
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
using namespace nvcuda;

#define T 32
__device__ float code(int r, int c) { return (float)(r * 32 + c); }  // exact in f16 (r < 48)

template <typename Frag, typename E>
__device__ void dump(Frag& f, unsigned* out, int lane) {
    for (int i = 0; i < f.num_elements; i++) {
        float v = (float)f.x[i];
        out[lane * 64 + i] = (unsigned)v;
    }
    if (lane == 0) out[32 * 64] = f.num_elements;
}

template <int KIND>
__global__ void layout(unsigned* out, int ld) {
    __shared__ __align__(128) half sh[T * 48];
    __shared__ __align__(128) float shf[T * 48];
    int lane = threadIdx.x;
    for (int i = lane; i < T * 48; i += 32) {
        int r = i / ld, c = i % ld;
        sh[i] = __float2half(code(r, c));
        shf[i] = code(r, c);
    }
    __syncwarp();
    if (KIND == 0) { wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 1) { wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 2) { wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 3) { wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 4) { wmma::fragment<wmma::accumulator, 16, 16, 16, float> f; wmma::load_matrix_sync(f, shf, ld, wmma::mem_row_major); dump<decltype(f), float>(f, out, lane); }
    if (KIND == 5) { wmma::fragment<wmma::accumulator, 16, 16, 16, float> f; wmma::load_matrix_sync(f, shf, ld, wmma::mem_col_major); dump<decltype(f), float>(f, out, lane); }
    if (KIND == 6) { wmma::fragment<wmma::accumulator, 16, 16, 16, half> f; wmma::load_matrix_sync(f, sh, ld, wmma::mem_row_major); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 7) { wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 8) { wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 9) { wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> f; wmma::load_matrix_sync(f, sh, ld); dump<decltype(f), half>(f, out, lane); }
    if (KIND == 10) { wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> f; wmma::load_matrix_sync(f, shf, ld); dump<decltype(f), float>(f, out, lane); }
    if (KIND == 11) { wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> f; wmma::load_matrix_sync(f, shf, ld); dump<decltype(f), float>(f, out, lane); }
}

// Shared-memory cost: 8 warps each load an A (row) and a B (col) fragment 64 times with ldm LD.
template <int LD>
__global__ void ld(float* out) {
    __shared__ __align__(128) half sh[64 * 48];
    for (int i = threadIdx.x; i < 64 * 48; i += blockDim.x) sh[i] = __float2half((float)(i % 7));
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    int w = threadIdx.x / 32;
    for (int it = 0; it < 64; it++) {
        wmma::load_matrix_sync(a, sh + (w % 2) * 16 * LD, LD);
        wmma::load_matrix_sync(b, sh + (w / 2 % 2) * 16 * LD + 16 * LD * 2 % (64 * 48 - 16 * LD), LD);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(out + blockIdx.x * 8 * 256 + w * 256, c, 16, wmma::mem_row_major);
}

int main() {
    unsigned *d, h[32 * 64 + 1];
    cudaMalloc(&d, sizeof(h));
    const char* names[12] = {"a_row", "a_col", "b_row", "b_col", "c_f32_row", "c_f32_col", "c_f16_row",
                             "a_m32n8k16_row", "b_m32n8k16_col", "a_m8n32k16_row", "a_tf32_row", "b_tf32_col"};
    void (*ks[12])(unsigned*, int) = {layout<0>, layout<1>, layout<2>, layout<3>, layout<4>, layout<5>,
                                      layout<6>, layout<7>, layout<8>, layout<9>, layout<10>, layout<11>};
    for (int k = 0; k < 12; k++) {
        int ldm = 32;
        cudaMemset(d, 0, sizeof(h));
        ks[k]<<<1, 32>>>(d, ldm);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("E %s %s\n", names[k], cudaGetErrorString(e)); continue; }
        cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
        printf("N %s %u\n", names[k], h[32 * 64]);
        for (int l = 0; l < 32; l++)
            for (unsigned i = 0; i < h[32 * 64] && i < 64; i++) {
                unsigned v = h[l * 64 + i];
                printf("F %s %d %u %u %u\n", names[k], l, i, v / 32, v % 32);
            }
    }
    float* o;
    cudaMalloc(&o, 4 * 8 * 256 * 4);
    ld<16><<<4, 256>>>(o); ld<24><<<4, 256>>>(o); ld<32><<<4, 256>>>(o); ld<40><<<4, 256>>>(o);
    printf("ld %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
