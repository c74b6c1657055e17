// A warp-specialised Hopper GEMM (issue 41): C = A x B, f16 inputs, f32 C, the way CUTLASS 3 and
// FlashAttention-3 feed the tensor cores (written here from the published technique). Warps
// 0-3 are one consumer warpgroup, warp 4 the producer. Per 64-wide step of K the producer
// loads a 64 x 64 tile of A (K-major) and of B (row-major K x N: N-major) with TMA in the
// 128-byte swizzle into one of two stages and completes the stage's `full` mbarrier with the
// bytes; the consumers wait on `full` by parity, run four wgmma.m64n64k16 reading both tiles
// through matrix descriptors in the same swizzle, wait for them, and arrive on the stage's
// `empty` barrier, which the producer waits on before it refills the stage. The warps touch
// neither tile: TMA writes them, the tensor cores read them.

#define BM 64
#define BN 64
#define BK 64
#define STAGES 2

__device__ __forceinline__ unsigned smem(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// A matrix descriptor with the 128-byte swizzle (mode 1): rows of 128 bytes, 8-row groups
// 1024 bytes apart (SBO); the leading byte offset is unused by a K-major operand, and by an
// N-major one whose N (64 halves) fits one 128-byte row.
__device__ __forceinline__ unsigned long long desc(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | 1ull << 16 |
           (unsigned long long)(1024 >> 4) << 32 | 1ull << 62;
}

__device__ __forceinline__ void wait(unsigned bar, unsigned parity) {
    unsigned ok = 0;
    while (!ok) {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(ok)
            : "r"(bar), "r"(parity)
            : "memory");
    }
}

__global__ void wgmma_tma(const __grid_constant__ CUtensorMap tA,
                          const __grid_constant__ CUtensorMap tB, float* C, int M, int N,
                          int K) {
    __shared__ alignas(1024) unsigned short sa[STAGES][BM * BK];
    __shared__ alignas(1024) unsigned short sb[STAGES][BK * BN];
    __shared__ alignas(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN, steps = K / BK;
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 4;" ::"r"(smem(&empty[s])));
        }
        asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (warp == 4) {
        // The producer: one thread issues the copies.
        if (lane == 0) {
            for (int t = 0; t < steps; t++) {
                const int s = t % STAGES;
                if (t >= STAGES) wait(smem(&empty[s]), (t / STAGES - 1) & 1);
                const unsigned f = smem(&full[s]);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(f),
                             "r"(2 * BM * BK * 2));
                asm volatile(
                    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                    " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(sa[s])),
                    "l"(&tA), "r"(t * BK), "r"(row0), "r"(f)
                    : "memory");
                asm volatile(
                    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                    " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(sb[s])),
                    "l"(&tB), "r"(col0), "r"(t * BK), "r"(f)
                    : "memory");
            }
        }
        return;
    }
    // The consumers: warps 0-3, one warpgroup.
    float d[32] = {};
    for (int t = 0; t < steps; t++) {
        const int s = t % STAGES;
        wait(smem(&full[s]), (t / STAGES) & 1);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
        for (int ks = 0; ks < BK / 16; ks++) {
            // A: the next 32 bytes of each swizzled row; B: the next 16 rows (k) of 128 bytes.
            const unsigned long long da = desc(smem(sa[s]) + 32 * ks);
            const unsigned long long db = desc(smem(sb[s]) + 2048 * ks);
            const int scale_d = (t > 0 || ks > 0);
            asm volatile(
                "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
                "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 1;\n}\n"
                : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                : "l"(da), "l"(db), "r"(scale_d));
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
        if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(&empty[s])));
    }
    // D's fragment: lane l of warp w holds rows 16 w + l / 4 (+ 8), columns 8 j + 2 (l % 4) (+ 1).
    for (int i = 0; i < 32; i++) {
        const int r = row0 + 16 * warp + lane / 4 + 8 * ((i >> 1) & 1);
        const int c = col0 + 8 * (i >> 2) + 2 * (lane % 4) + (i & 1);
        C[(size_t)r * N + c] = d[i];
    }
}
