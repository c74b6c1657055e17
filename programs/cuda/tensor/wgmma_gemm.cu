// A Hopper-style tensor-core GEMM (issue 41): C = A x B with wgmma.mma_async, f16 inputs, f32
// C. Each block is one warpgroup (128 threads) and computes a 64 x 64 tile of C with
// wgmma.m64n64k16, K in steps of 64 staged through shared memory. The warps read nothing of A
// or B themselves: the tensor cores read both tiles from shared memory through matrix
// descriptors (the PTX ISA's "Matrix Descriptor Format").
//
// SW = 0: no swizzle. Both tiles K-major in 8 x 16-byte core matrices (LBO = 128 bytes
// between the two core matrices of a k16 step, SBO = 1024 between groups of 8 rows); B is
// given as Bt (N x K), so its rows are K-major too.
// SW = 1: the 128-byte swizzle, as TMA with CU_TENSOR_MAP_SWIZZLE_128B writes it: row r of
// 128 bytes at 128 r, its 16-byte chunk c at chunk c ^ (r % 8). A is K-major; B is the
// row-major K x N matrix itself, read N-major (imm-trans-b = 1): each 128-byte row is one k.
#include <cuda_fp16.h>

#define BM 64
#define BN 64
#define BK 64

// A matrix descriptor: start address, leading and stride byte offsets (each / 16, 14 bits),
// swizzle mode in bits 62-63 (1: 128-byte).
__device__ __forceinline__ unsigned long long desc(unsigned addr, unsigned lbo, unsigned sbo,
                                                   unsigned long long mode) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) |
           (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16 |
           (unsigned long long)((sbo & 0x3FFFF) >> 4) << 32 | mode << 62;
}

// Byte offset of 16-byte chunk c (0-7) of row r of a 64 x 64-half tile.
template <int SW>
__device__ __forceinline__ unsigned at(unsigned r, unsigned c) {
    return SW ? r * 128 + ((c ^ (r % 8)) * 16) : (r % 8) * 16 + (r / 8) * 1024 + c * 128;
}

template <int SW>
__global__ void wgmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
    __shared__ __align__(1024) __half sa[BM * BK];
    __shared__ __align__(1024) __half sb[BN * BK];
    const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    const unsigned a_base = (unsigned)__cvta_generic_to_shared(sa);
    const unsigned b_base = (unsigned)__cvta_generic_to_shared(sb);
    float d[32] = {};
    for (int k0 = 0; k0 < K; k0 += BK) {
        // 512 chunks of 16 bytes a tile, 4 per thread.
        for (int j = 0; j < 4; j++) {
            unsigned q = tid + 128 * j, r = q / 8, c = q % 8;
            *(uint4*)((char*)sa + at<SW>(r, c)) =
                *(const uint4*)(A + (size_t)(row0 + r) * K + k0 + c * 8);
            // SW = 0: row r of Bt (column col0 + r of B); SW = 1: row k0 + r of B.
            const __half* src = SW ? B + (size_t)(k0 + r) * N + col0 + c * 8
                                   : B + (size_t)(col0 + r) * K + k0 + c * 8;
            *(uint4*)((char*)sb + at<SW>(r, c)) = *(const uint4*)src;
        }
        // The tensor cores read shared memory through the async proxy: the warps' stores
        // (generic proxy) are made visible to it first (PTX ISA, "Async proxy").
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        for (int ks = 0; ks < BK / 16; ks++) {
            unsigned long long da, db;
            if (SW) {
                // A: the next 32 bytes of each swizzled row; B: the next 16 rows (k).
                da = desc(a_base + 32 * ks, 16, 1024, 1);
                db = desc(b_base + 2048 * ks, 8192, 1024, 1);
            } else {
                // Two core matrices (256 bytes) further along K.
                da = desc(a_base + 256 * ks, 128, 1024, 0);
                db = desc(b_base + 256 * ks, 128, 1024, 0);
            }
            int scale_d = (k0 > 0 || ks > 0);
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, %35;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(da), "l"(db), "r"(scale_d), "n"(SW));
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        __syncthreads();
    }
    // D's fragment: lane l of warp w holds rows 16 w + l / 4 (+ 8), columns 8 j + 2 (l % 4) (+ 1).
    for (int i = 0; i < 32; i++) {
        unsigned r = row0 + 16 * warp + lane / 4 + 8 * ((i >> 1) & 1);
        unsigned c = col0 + 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
        C[(size_t)r * N + c] = d[i];
    }
}

template __global__ void wgmma_gemm<0>(const __half*, const __half*, float*, int, int, int);
template __global__ void wgmma_gemm<1>(const __half*, const __half*, float*, int, int, int);
