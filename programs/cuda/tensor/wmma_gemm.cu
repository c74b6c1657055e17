// A WMMA GEMM in the style of the CUDA samples' tensor-core GEMM (issue 41): C = A x B for
// row-major f16 A (M x K) and B (K x N), f32 C, through <mma.h>. Each block (4 warps)
// computes a 64 x 32 tile of C: warp w the rows 16 w .. 16 w + 15, as two 16 x 16
// accumulator fragments. K goes in steps of 32: the block copies a 64 x 32 slice of A and a
// 32 x 32 slice of B into shared memory (16 bytes a thread and copy), then each warp loads
// its A fragment (wmma::load_matrix_sync, row-major) and two B fragments per 16 of K and
// multiplies.
//
// Shared rows are LD halves long. With LD = 32 (64-byte rows) the eight rows an ldmatrix
// reads at once are 64 bytes apart, so rows 0, 2, 4 and 6 start in the same bank: every
// fragment load is a 4-way bank conflict (calibration/probes/wmma_layout measured it). LD = 40
// (80-byte rows, 8 halves of padding) spreads the eight rows over all 32 banks.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 64
#define BN 32
#define BK 32

template <int LD>
__global__ void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
    __shared__ __align__(128) __half sa[BM * LD];
    __shared__ __align__(128) __half sb[BK * LD];
    const unsigned tid = threadIdx.x, warp = tid / 32;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
    wmma::fill_fragment(acc[0], 0.0f);
    wmma::fill_fragment(acc[1], 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        // A: 64 rows of 4 chunks of 8 halves (two chunks a thread); B: 32 rows (one).
        for (int j = 0; j < 2; j++) {
            unsigned q = tid + 128 * j, r = q / 4, c = q % 4;
            *(uint4*)&sa[r * LD + c * 8] = *(const uint4*)&A[(size_t)(row0 + r) * K + k0 + c * 8];
        }
        {
            unsigned r = tid / 4, c = tid % 4;
            *(uint4*)&sb[r * LD + c * 8] = *(const uint4*)&B[(size_t)(k0 + r) * N + col0 + c * 8];
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
            wmma::load_matrix_sync(a, sa + warp * 16 * LD + kk, LD);
            for (int n = 0; n < 2; n++) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(b, sb + kk * LD + n * 16, LD);
                wmma::mma_sync(acc[n], a, b, acc[n]);
            }
        }
        __syncthreads();
    }
    for (int n = 0; n < 2; n++)
        wmma::store_matrix_sync(C + (size_t)(row0 + warp * 16) * N + col0 + n * 16, acc[n], N,
                                wmma::mem_row_major);
}

template __global__ void wmma_gemm<32>(const __half*, const __half*, float*, int, int, int);
template __global__ void wmma_gemm<40>(const __half*, const __half*, float*, int, int, int);
