// A double-buffered tile pipeline (issue 41): each block (one warp) streams TILES tiles of
// 8 rows x 64 halves (u16) from global memory into shared memory with cp.async (two stages:
// the copy of tile t + 1 overlaps the reading of tile t), and reads each tile back with two
// ldmatrix.x4 (chunks 0-3, then 4-7 of every row); every lane writes its 8 fragment registers
// to `out`. XOR: the 16-byte chunks of row r are stored at chunk c ^ r (CuTe's Swizzle<3,3,3>
// on halves), which makes the ldmatrix reads conflict-free. ASM: the copies and waits as raw
// PTX (cp.async.cg), else through cuda_pipeline.h's __pipeline_memcpy_async (cp.async.ca with
// a src-size operand).
#include <cuda_pipeline.h>

template <bool XOR>
__device__ __forceinline__ unsigned chunk_offset(unsigned row, unsigned c) {
    return row * 128 + ((XOR ? (c ^ row) : c) & 7) * 16;
}

template <bool XOR, bool ASM>
__global__ void ldsm_tile(const unsigned short* in, unsigned* out, int tiles) {
    __shared__ __align__(128) unsigned short buf[2][8 * 64];
    const unsigned lane = threadIdx.x;
    const unsigned short* src = in + (size_t)blockIdx.x * tiles * 512;
    unsigned* dst = out + (size_t)blockIdx.x * tiles * 256;

    // Stage tile t into buffer t & 1: 64 chunks of 16 bytes, two per lane.
    auto stage = [&](int t) {
        for (int j = 0; j < 2; j++) {
            unsigned chunk = lane + 32 * j, row = chunk / 8, c = chunk % 8;
            char* s = (char*)buf[t & 1] + chunk_offset<XOR>(row, c);
            const unsigned short* g = src + t * 512 + chunk * 8;
            if (ASM) {
                unsigned sa = (unsigned)__cvta_generic_to_shared(s);
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(sa), "l"(g));
            } else {
                __pipeline_memcpy_async(s, g, 16);
            }
        }
        if (ASM) {
            asm volatile("cp.async.commit_group;\n" ::);
        } else {
            __pipeline_commit();
        }
    };

    stage(0);
    for (int t = 0; t < tiles; t++) {
        if (t + 1 < tiles) {
            stage(t + 1);
            // Tile t is complete when at most the one just committed is pending.
            if (ASM) {
                asm volatile("cp.async.wait_group 1;\n" ::);
            } else {
                __pipeline_wait_prior(1);
            }
        } else if (ASM) {
            asm volatile("cp.async.wait_all;\n" ::);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncwarp();
        unsigned r[8];
        for (int h = 0; h < 2; h++) {
            // Lane l gives row l % 8 of matrix l / 8: chunk 4h + l / 8 of that row.
            unsigned row = lane % 8, c = 4 * h + lane / 8;
            unsigned a = (unsigned)__cvta_generic_to_shared((char*)buf[t & 1] + chunk_offset<XOR>(row, c));
            asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                         : "=r"(r[4 * h]), "=r"(r[4 * h + 1]), "=r"(r[4 * h + 2]), "=r"(r[4 * h + 3])
                         : "r"(a));
        }
        // The buffer is staged again at t + 2: every lane must have read it first.
        __syncwarp();
        for (int k = 0; k < 8; k++) {
            dst[(t * 32 + lane) * 8 + k] = r[k];
        }
    }
}

template __global__ void ldsm_tile<false, false>(const unsigned short*, unsigned*, int);
template __global__ void ldsm_tile<true, true>(const unsigned short*, unsigned*, int);
