// A FlashAttention-2-style forward pass (issue 41), written here from the published technique
// (Dao, "FlashAttention-2", 2023): O = softmax(Q K^T / sqrt(D)) V for one head, Q, K, V N x D
// halves (D = 64), O in f32. Each block of 4 warps takes 64 query rows, warp w the rows
// 16 w .. 16 w + 15, whose Q fragments it loads once with ldmatrix. For each tile of 64 keys
// the block stages K and V in shared memory, and each warp
//   * computes S = Q K^T for its 16 rows with mma.sync.m16n8k16 (K's rows are B's columns:
//     ldmatrix without .trans gives the B fragments),
//   * updates the running row maximum and sum (online softmax: a row's 64 scores sit in the 4
//     lanes of a quad, which meet with two xor shuffles) and rescales its O accumulators,
//   * turns the probabilities into the A fragments of P V in registers (the accumulator of two
//     adjacent 8-key tiles is the A fragment of one 16-key step) and multiplies them with V
//     (ldmatrix.trans: V's rows are B's rows).
// Shared rows are 128 bytes (64 halves): the eight rows of one ldmatrix matrix start at the
// same bank, an 8-way conflict on every fragment load; SWZ = 1 stores chunk c of row r at chunk
// c ^ (r % 8) (CuTe's Swizzle<3,3,3> on halves) and reads through the same XOR: none.
#include <cuda_fp16.h>

#define BQ 64
#define BKV 64
#define D 64

template <int SWZ>
__device__ __forceinline__ unsigned off(unsigned row, unsigned chunk) {
    return row * 128 + (SWZ ? (chunk ^ (row % 8)) : chunk) * 16;
}

__device__ __forceinline__ unsigned pack(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);
    return *(unsigned*)&h;
}

template <int SWZ>
__global__ void flash_attn(const __half* Q, const __half* K, const __half* V, float* O, int n) {
    __shared__ __align__(128) unsigned short sq[BQ * D];
    __shared__ __align__(128) unsigned short sk[BKV * D];
    __shared__ __align__(128) unsigned short sv[BKV * D];
    const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned q0 = blockIdx.x * BQ;
    const unsigned g = lane / 4, t = lane % 4;
    // Stage Q: 64 rows x 8 chunks of 16 bytes, 4 a thread.
    for (int j = 0; j < 4; j++) {
        unsigned c = tid + 128 * j, r = c / 8, ch = c % 8;
        *(uint4*)((char*)sq + off<SWZ>(r, ch)) = *(const uint4*)(Q + (size_t)(q0 + r) * D + ch * 8);
    }
    __syncthreads();
    // Q's A fragments, k-steps of 16 along D: lane l gives row l % 16 of chunk 2 s + l / 16.
    unsigned qa[4][4];
    for (int s = 0; s < 4; s++) {
        unsigned a = (unsigned)__cvta_generic_to_shared((char*)sq + off<SWZ>(16 * warp + lane % 16, 2 * s + lane / 16));
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                     : "=r"(qa[s][0]), "=r"(qa[s][1]), "=r"(qa[s][2]), "=r"(qa[s][3])
                     : "r"(a));
    }
    const float scale = 0.125f * 1.4426950408889634f;  // 1 / sqrt(D), in base 2
    float o[8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    for (int k0 = 0; k0 < n; k0 += BKV) {
        __syncthreads();
        for (int j = 0; j < 4; j++) {
            unsigned c = tid + 128 * j, r = c / 8, ch = c % 8;
            *(uint4*)((char*)sk + off<SWZ>(r, ch)) = *(const uint4*)(K + (size_t)(k0 + r) * D + ch * 8);
            *(uint4*)((char*)sv + off<SWZ>(r, ch)) = *(const uint4*)(V + (size_t)(k0 + r) * D + ch * 8);
        }
        __syncthreads();
        // S = Q K^T: 8 tiles of 8 keys, 4 k-steps of 16 along D.
        float s[8][4] = {};
        for (int nt = 0; nt < 8; nt++) {
            for (int ks = 0; ks < 4; ks += 2) {
                // Keys 8 nt .. 8 nt + 7 (lane l % 8), chunks 2 ks .. 2 ks + 3 (lane / 8):
                // the B fragments of two k-steps.
                unsigned b[4];
                unsigned a = (unsigned)__cvta_generic_to_shared((char*)sk + off<SWZ>(8 * nt + lane % 8, 2 * ks + lane / 8));
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                             : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                             : "r"(a));
                for (int h = 0; h < 2; h++) {
                    asm volatile(
                        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                        "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                        : "+f"(s[nt][0]), "+f"(s[nt][1]), "+f"(s[nt][2]), "+f"(s[nt][3])
                        : "r"(qa[ks + h][0]), "r"(qa[ks + h][1]), "r"(qa[ks + h][2]), "r"(qa[ks + h][3]),
                          "r"(b[2 * h]), "r"(b[2 * h + 1]));
                }
            }
        }
        // Online softmax: rows g (s[.][0..1]) and g + 8 (s[.][2..3]).
        for (int r = 0; r < 2; r++) {
            float mx = m[r];
            for (int nt = 0; nt < 8; nt++) mx = fmaxf(mx, fmaxf(s[nt][2 * r], s[nt][2 * r + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
            const float corr = exp2f((m[r] - mx) * scale);
            float sum = 0.f;
            for (int nt = 0; nt < 8; nt++) {
                s[nt][2 * r] = exp2f((s[nt][2 * r] - mx) * scale);
                s[nt][2 * r + 1] = exp2f((s[nt][2 * r + 1] - mx) * scale);
                sum += s[nt][2 * r] + s[nt][2 * r + 1];
            }
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            sum += __shfl_xor_sync(0xffffffffu, sum, 2);
            l[r] = l[r] * corr + sum;
            m[r] = mx;
            for (int nd = 0; nd < 8; nd++) {
                o[nd][2 * r] *= corr;
                o[nd][2 * r + 1] *= corr;
            }
        }
        // O += P V: 4 k-steps of 16 keys; P's A fragment from two 8-key tiles of S.
        for (int kk = 0; kk < 4; kk++) {
            unsigned pa[4] = {pack(s[2 * kk][0], s[2 * kk][1]), pack(s[2 * kk][2], s[2 * kk][3]),
                              pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
            for (int nd = 0; nd < 8; nd++) {
                // V rows 16 kk .. 16 kk + 15 (lanes 0-15), columns 8 nd .. 8 nd + 7.
                unsigned b[2];
                unsigned a = (unsigned)__cvta_generic_to_shared((char*)sv + off<SWZ>(16 * kk + lane % 16, nd));
                asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                             : "=r"(b[0]), "=r"(b[1])
                             : "r"(a));
                asm volatile(
                    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                    "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                    : "+f"(o[nd][0]), "+f"(o[nd][1]), "+f"(o[nd][2]), "+f"(o[nd][3])
                    : "r"(pa[0]), "r"(pa[1]), "r"(pa[2]), "r"(pa[3]), "r"(b[0]), "r"(b[1]));
            }
        }
    }
    // O / l: lane (g, t) holds rows g and g + 8, columns 8 nd + 2 t and + 1.
    for (int nd = 0; nd < 8; nd++) {
        for (int i = 0; i < 4; i++) {
            unsigned r = q0 + 16 * warp + g + 8 * (i / 2);
            O[(size_t)r * D + 8 * nd + 2 * t + i % 2] = o[nd][i] / l[i / 2];
        }
    }
}

template __global__ void flash_attn<0>(const __half*, const __half*, const __half*, float*, int);
template __global__ void flash_attn<1>(const __half*, const __half*, const __half*, float*, int);
