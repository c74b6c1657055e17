// Host side of calibration/probes/mma_numerics (run.sh): for each seed (1, 2; or the arguments) and form F of
// mma_forms.cu, fills `inp` as warpsim's Random(seed) fills a U32 buffer (element i:
// splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15) >> 32), runs forms<F> on W = 8 warps and
// prints a "D seed F lane w0 .. w7" line per lane (the hex words of `out`). Then the timing probes: the cycles
// of 512 dependent mma.sync (one warp: latency) and of independent ones (throughput, 1-16
// warps of one block), as "T name warps mmas cycles" lines.
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cstdlib>
#include "mma_forms.cu"

static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <int F>
static void run_form(int seed, unsigned* din, unsigned* dout, int W) {
    forms<F><<<W, 32>>>(din, dout);
}

typedef void (*Runner)(int, unsigned*, unsigned*, int);
static Runner runners[FORMS] = {run_form<0>, run_form<1>, run_form<2>,  run_form<3>, run_form<4>,
                                run_form<5>, run_form<6>, run_form<7>,  run_form<8>, run_form<9>,
                                run_form<10>, run_form<11>, run_form<12>, run_form<13>};

// Latency: one warp, a chain of N mma whose C is the previous D. Throughput: each warp runs
// 8 independent chains.
template <int CHAINS>
__global__ void mma_clock(const unsigned* in, unsigned* out, long long* cycles, int n) {
    unsigned a[4], b[2];
    for (int j = 0; j < 4; j++) a[j] = shape_f16x2(in[threadIdx.x * 8 + j]);
    for (int j = 0; j < 2; j++) b[j] = shape_f16x2(in[threadIdx.x * 8 + 4 + j]);
    float c[CHAINS][4];
    for (int k = 0; k < CHAINS; k++)
        for (int j = 0; j < 4; j++) c[k][j] = 0.0f;
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int k = 0; k < CHAINS; k++) {
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                         : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        }
    }
    long long t1 = clock64();
    __syncthreads();
    float s = 0;
    for (int k = 0; k < CHAINS; k++)
        for (int j = 0; j < 4; j++) s += c[k][j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = __float_as_uint(s);
    if (threadIdx.x % 32 == 0) cycles[threadIdx.x / 32] = t1 - t0;
}

int main(int argc, char** argv) {
    const int W = 8, words = W * 32 * 16, outs = W * 32 * 8;
    unsigned *din, *dout;
    cudaMalloc(&din, words * 4);
    cudaMalloc(&dout, outs * 4);
    std::vector<unsigned> h(words), o(outs);
    // The seeds: the arguments (run_draw2.sh: 3 4), else 1 and 2.
    std::vector<int> seeds;
    for (int i = 1; i < argc; i++) seeds.push_back(atoi(argv[i]));
    if (seeds.empty()) seeds = {1, 2};
    for (int seed : seeds) {
        for (int i = 0; i < words; i++)
            h[i] = (unsigned)(splitmix64((uint64_t)seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
        cudaMemcpy(din, h.data(), words * 4, cudaMemcpyHostToDevice);
        for (int f = 0; f < FORMS; f++) {
            cudaMemset(dout, 0, outs * 4);
            runners[f](seed, din, dout, W);
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { printf("E %d %d %s\n", seed, f, cudaGetErrorString(e)); continue; }
            cudaMemcpy(o.data(), dout, outs * 4, cudaMemcpyDeviceToHost);
            for (int l = 0; l < W * 32; l++) {
                printf("D %d %d %d", seed, f, l);
                for (int j = 0; j < 8; j++) printf(" %08x", o[l * 8 + j]);
                printf("\n");
            }
        }
    }
    long long* dc;
    cudaMalloc(&dc, 64 * 8);
    long long hc[64];
    const int n = 512;
    for (int warps = 1; warps <= 16; warps *= 2) {
        for (int chains : {1, 8}) {
            if (chains == 1) mma_clock<1><<<1, 32 * warps>>>(din, dout, dc, n);
            else mma_clock<8><<<1, 32 * warps>>>(din, dout, dc, n);
            cudaDeviceSynchronize();
            if (chains == 1) mma_clock<1><<<1, 32 * warps>>>(din, dout, dc, n);
            else mma_clock<8><<<1, 32 * warps>>>(din, dout, dc, n);
            cudaDeviceSynchronize();
            cudaMemcpy(hc, dc, warps * 8, cudaMemcpyDeviceToHost);
            long long mx = 0;
            for (int w = 0; w < warps; w++) mx = hc[w] > mx ? hc[w] : mx;
            printf("T chains%d %d %d %lld\n", chains, warps, n * chains, mx);
        }
    }
    return 0;
}
