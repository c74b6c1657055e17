// An Ampere-style tensor-core GEMM (issue 41): C = A x B for row-major f16 A (M x K) and
// B (K x N), f32 C. Each block (4 warps) computes a 64 x 32 tile of C: warp w the rows
// 16 w .. 16 w + 15, as four 16 x 8 mma.sync.m16n8k16 tiles side by side. The K dimension
// goes in steps of 32 through two shared stages: cp.async copies the next 64 x 32 slice of A
// and 32 x 32 slice of B while the warps multiply the current one; ldmatrix.x4 gives each
// warp its A fragments, ldmatrix.x2.trans its B fragments (B is stored k-major, so the
// transposing load gives the column fragments mma wants).
//
// Shared rows are 64 bytes (32 halves): the eight lanes of one ldmatrix matrix read 8 rows at
// the same 16-byte chunk, 64 bytes apart, so rows 0, 2, 4 and 6 (and 1, 3, 5, 7) start at the
// same bank: a 4-way conflict. The XOR variant (SWZ = 1) stores chunk c of row r at chunk
// c ^ ((r / 2) % 4) (CuTe's Swizzle<2,3,3> on halves): the 8 rows then cover all 32 banks.
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#define BM 64
#define BN 32
#define BK 32

template <int SWZ>
__device__ __forceinline__ unsigned off(unsigned row, unsigned chunk) {
    // 4 chunks of 16 bytes a row of 32 halves.
    unsigned c = SWZ ? (chunk ^ ((row / 2) % 4)) : chunk;
    return row * 64 + c * 16;
}

template <int SWZ>
__global__ void mma_gemm(const __half* A, const __half* B, float* C, int M,
                         int N, int K) {
    __shared__ __align__(128) unsigned short sa[2][BM * BK];
    __shared__ __align__(128) unsigned short sb[2][BK * BN];
    const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    // Stage the k-slice starting at k0 into buffer s: A is 64 x 32 halves (256 chunks of 16
    // bytes, two per thread), B 32 x 32 (128 chunks, one per thread).
    auto stage = [&](int s, int k0) {
        for (int j = 0; j < 2; j++) {
            unsigned q = tid + 128 * j, r = q / 4, c = q % 4;
            __pipeline_memcpy_async((char*)sa[s] + off<SWZ>(r, c),
                                    A + (size_t)(row0 + r) * K + k0 + c * 8, 16);
        }
        {
            unsigned r = tid / 4, c = tid % 4;
            __pipeline_memcpy_async((char*)sb[s] + off<SWZ>(r, c),
                                    B + (size_t)(k0 + r) * N + col0 + c * 8, 16);
        }
        __pipeline_commit();
    };

    float acc[4][4] = {};
    const int steps = K / BK;
    stage(0, 0);
    for (int t = 0; t < steps; t++) {
        if (t + 1 < steps) {
            stage((t + 1) & 1, (t + 1) * BK);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
        const int s = t & 1;
        for (int kk = 0; kk < BK; kk += 16) {
            // A: the warp's 16 rows, columns kk .. kk + 15: matrices (rows 0-7, 8-15) x
            // (columns kk, kk + 8); lane l gives row l % 16 of chunk kk / 8 + l / 16.
            unsigned a[4];
            unsigned ar = 16 * warp + lane % 16, ac = kk / 8 + lane / 16;
            unsigned aa = (unsigned)__cvta_generic_to_shared((char*)sa[s] + off<SWZ>(ar, ac));
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                         : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                         : "r"(aa));
            for (int n = 0; n < 4; n++) {
                // B: rows kk .. kk + 15 (lanes 0-15 give them), columns 8 n .. 8 n + 7.
                unsigned b[2];
                unsigned br = kk + lane % 16, bc = n;
                unsigned ba =
                    (unsigned)__cvta_generic_to_shared((char*)sb[s] + off<SWZ>(br, bc));
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                             : "=r"(b[0]), "=r"(b[1])
                             : "r"(ba));
                asm volatile(
                    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                    "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                    : "+f"(acc[n][0]), "+f"(acc[n][1]), "+f"(acc[n][2]), "+f"(acc[n][3])
                    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
            }
        }
        __syncthreads();
    }
    // D's fragment: lane l holds rows l / 4 and l / 4 + 8, columns 2 (l % 4) and + 1.
    const unsigned g = lane / 4, q = lane % 4;
    for (int n = 0; n < 4; n++) {
        for (int i = 0; i < 4; i++) {
            unsigned r = row0 + 16 * warp + g + 8 * (i / 2);
            unsigned c = col0 + 8 * n + 2 * q + i % 2;
            C[(size_t)r * N + c] = acc[n][i];
        }
    }
}

template __global__ void mma_gemm<0>(const __half*, const __half*, float*, int,
                                     int, int);
template __global__ void mma_gemm<1>(const __half*, const __half*, float*, int,
                                     int, int);
