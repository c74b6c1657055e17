// A TMA tile transpose (issue 41): thread 0 of each block loads a 32 x 32 tile of floats
// with one cp.async.bulk.tensor.2d (the tensor map `tA` of the launch file: the box, and
// SW = 0 rows as they are or SW = 128 the 128-byte swizzle), the block waits on the tile's
// mbarrier, and thread (r, c) writes element (r, c) of the tile to out[c][r]: each warp
// reads one column of the tile (lane r reads row r). Rows of 128 bytes put a column in one
// bank: 32-way without the swizzle; the swizzle moves chunk j of row r to chunk j ^ (r % 8),
// so a column spreads over 8 banks (4-way). The kernel reads through the same swizzle.
// Written here from the published technique (TMA box loads completing on an mbarrier,
// CUTLASS's Swizzle<3,4,3> for 128-byte rows).

__device__ __forceinline__ unsigned smem(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

template <int SW>
__global__ void tma_tile(const __grid_constant__ CUtensorMap tA, float* out, int n) {
    __shared__ alignas(1024) float tile[32 * 32];
    __shared__ alignas(8) unsigned long long bar;
    const unsigned b = smem(&bar), t = smem(tile);
    const int x0 = blockIdx.x * 32, y0 = blockIdx.y * 32;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.proxy.async.shared::cta;");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(4096));
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
            " [%0], [%1, {%2, %3}], [%4];" ::"r"(t),
            "l"(&tA), "r"(x0), "r"(y0), "r"(b)
            : "memory");
    }
    __syncthreads();
    unsigned ok = 0;
    while (!ok) {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(ok)
            : "r"(b)
            : "memory");
    }
    // Thread (c = threadIdx.x, r = threadIdx.y) in warp... lane = row: warp w reads column w.
    const unsigned r = threadIdx.x, c = threadIdx.y;
    unsigned chunk = c / 4;
    if (SW == 128) chunk ^= r % 8;
    const float v = tile[r * 32 + chunk * 4 + c % 4];
    out[(size_t)(x0 + c) * n + y0 + r] = v;
}
