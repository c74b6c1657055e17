// A warp-specialised pipeline through mbarriers (issue 41), the way today's Hopper kernels
// hand tiles from a producer warp to consumer warps: warp 0 copies each tile of 32 x 32
// floats from global memory into one of two shared stages with cp.async and arrives on the
// stage's `full` barrier through cp.async.mbarrier.arrive.noinc; warps 1-4 wait on `full`
// (phase parity), sum 8 consecutive elements of one row each (lane r reads row r: with
// PAD = 0 every lane of a warp hits the same bank, 32-way; PAD = 1 spreads the rows over the
// banks) and arrive on the stage's `empty` barrier, which the producer waits on before it
// refills the stage. Written here from the published technique (full/empty barrier pairs and
// a phase bit per stage); the barrier operations are inline PTX as CUTLASS wraps them.
// out[(tile * 4 + q) * 32 + r] = sum of in[tile * 1024 + r * 32 + 8 q + k], k = 0..7.

__device__ __forceinline__ unsigned smem(const void* p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void bar_init(unsigned long long* b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(b)), "r"(count) : "memory");
}

__device__ __forceinline__ bool bar_try_wait(unsigned long long* b, unsigned parity) {
    unsigned ok;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(ok)
        : "r"(smem(b)), "r"(parity)
        : "memory");
    return ok != 0;
}

__device__ __forceinline__ void bar_wait(unsigned long long* b, unsigned parity) {
    while (!bar_try_wait(b, parity)) {
    }
}

__device__ __forceinline__ void bar_arrive(unsigned long long* b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}

__device__ __forceinline__ void copy4(float* dst, const float* src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void copies_arrive(unsigned long long* b) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem(b)) : "memory");
}

template <int PAD>
__global__ void mbar_pipeline(const float* in, float* out, int tiles) {
    constexpr int ROW = 32 + PAD, STAGES = 2, CONSUMERS = 128;
    __shared__ __align__(16) float buf[STAGES][32 * ROW];
    __shared__ __align__(8) unsigned long long full[STAGES], empty[STAGES];
    const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    if (tid == 0) {
        for (int s = 0; s < STAGES; s++) {
            bar_init(&full[s], 32);
            bar_init(&empty[s], CONSUMERS);
        }
    }
    __syncthreads();
    const float* src = in + (size_t)blockIdx.x * tiles * 1024;
    float* dst = out + (size_t)blockIdx.x * tiles * 128;
    if (warp == 0) {
        for (int t = 0; t < tiles; t++) {
            const int s = t % STAGES;
            const unsigned phase = (t / STAGES) & 1;
            // The stage's previous tile must be consumed (its `empty` phase completed).
            if (t >= STAGES) bar_wait(&empty[s], phase ^ 1);
            for (int k = 0; k < 32; k++) copy4(&buf[s][k * ROW + lane], src + t * 1024 + k * 32 + lane);
            copies_arrive(&full[s]);
        }
    } else {
        const unsigned c = tid - 32, r = c % 32, q = c / 32;
        for (int t = 0; t < tiles; t++) {
            const int s = t % STAGES;
            bar_wait(&full[s], (t / STAGES) & 1);
            float sum = 0.0f;
            for (int k = 0; k < 8; k++) sum += buf[s][r * ROW + 8 * q + k];
            dst[t * 128 + q * 32 + r] = sum;
            bar_arrive(&empty[s]);
        }
    }
}
