// calibration/probes/wmma_numerics, second part: the fragments wmma_layout did not dump, for the
// shapes warpsim refuses (m32n8k16, m8n32k16 accumulators and B) and the 8-bit ones warpsim
// runs as mma.sync's (predicted, not measured). One warp loads a tile whose element (r, c) holds
// a code of (r, c) and prints "L kind lane i value" per fragment element (f32/f16: r * 32 + c;
// u8: r * 16 + c) and "N kind num_elements".
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
using namespace nvcuda;

template <typename Frag>
__device__ void dump(Frag& f, unsigned* out, int lane) {
    for (int i = 0; i < f.num_elements; i++) out[lane * 64 + i] = (unsigned)(float)f.x[i];
    if (lane == 0) out[32 * 64] = f.num_elements;
}

template <int KIND>
__global__ void more(unsigned* out) {
    __shared__ __align__(128) float shf[32 * 32];
    __shared__ __align__(128) half shh[32 * 32];
    __shared__ __align__(128) unsigned char shb[16 * 16];
    int lane = threadIdx.x;
    for (int i = lane; i < 32 * 32; i += 32) { shf[i] = (float)i; shh[i] = __float2half((float)i); }
    for (int i = lane; i < 16 * 16; i += 32) shb[i] = (unsigned char)i;
    __syncwarp();
    if (KIND == 0) { wmma::fragment<wmma::accumulator, 32, 8, 16, float> f; wmma::load_matrix_sync(f, shf, 32, wmma::mem_row_major); dump(f, out, lane); }
    if (KIND == 1) { wmma::fragment<wmma::accumulator, 8, 32, 16, float> f; wmma::load_matrix_sync(f, shf, 32, wmma::mem_row_major); dump(f, out, lane); }
    if (KIND == 2) { wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> f; wmma::load_matrix_sync(f, shh, 32); dump(f, out, lane); }
    if (KIND == 3) { wmma::fragment<wmma::matrix_a, 16, 16, 16, unsigned char, wmma::row_major> f; wmma::load_matrix_sync(f, shb, 16); dump(f, out, lane); }
    if (KIND == 4) { wmma::fragment<wmma::matrix_b, 16, 16, 16, unsigned char, wmma::col_major> f; wmma::load_matrix_sync(f, shb, 16); dump(f, out, lane); }
    if (KIND == 5) { wmma::fragment<wmma::accumulator, 32, 8, 16, half> f; wmma::load_matrix_sync(f, shh, 32, wmma::mem_row_major); dump(f, out, lane); }
}

int main() {
    unsigned *d, h[32 * 64 + 1];
    cudaMalloc(&d, sizeof(h));
    const char* names[6] = {"c_m32n8k16_f32", "c_m8n32k16_f32", "b_m8n32k16_col", "a_u8_row", "b_u8_col", "c_m32n8k16_f16"};
    void (*ks[6])(unsigned*) = {more<0>, more<1>, more<2>, more<3>, more<4>, more<5>};
    for (int k = 0; k < 6; k++) {
        cudaMemset(d, 0, sizeof(h));
        ks[k]<<<1, 32>>>(d);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("E %s %s\n", names[k], cudaGetErrorString(e)); continue; }
        cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
        printf("N %s %u\n", names[k], h[32 * 64]);
        for (int l = 0; l < 32; l++)
            for (unsigned i = 0; i < h[32 * 64] && i < 64; i++) printf("L %s %d %u %u\n", names[k], l, i, h[l * 64 + i]);
    }
    return 0;
}
