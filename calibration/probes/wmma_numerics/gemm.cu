// Host side of the GEMM part of calibration/probes/wmma_numerics: programs/cuda/tensor/wmma_gemm.cu
// (LD = 32 and 40) at M = N = K = 1024 on inputs filled as warpsim's Random(1) and Random(2)
// fill F16 buffers (the f32 draw (h >> 40) * 2^-23 - 1, rounded to half); prints the largest
// |C - f64 reference| over max(1, max |reference|) and the kernel's time (cudaEvent, median of
// 5 launches), then ncu profiles one launch of each (run.sh).
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <vector>
#include <algorithm>
#include "../../../programs/cuda/tensor/wmma_gemm.cu"

static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float draw(uint64_t seed, uint64_t i) {
    uint64_t h = splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    return (float)(h >> 40) * (1.0f / (1u << 23)) - 1.0f;
}

int main() {
    const int M = 1024, N = 1024, K = 1024;
    std::vector<__half> a(M * K), b(K * N);
    std::vector<float> fa(M * K), fb(K * N), c(M * N);
    for (int i = 0; i < M * K; i++) { a[i] = __float2half_rn(draw(1, i)); fa[i] = __half2float(a[i]); }
    for (int i = 0; i < K * N; i++) { b[i] = __float2half_rn(draw(2, i)); fb[i] = __half2float(b[i]); }
    __half *da, *db; float* dc;
    cudaMalloc(&da, M * K * 2); cudaMalloc(&db, K * N * 2); cudaMalloc(&dc, M * N * 4);
    cudaMemcpy(da, a.data(), M * K * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), K * N * 2, cudaMemcpyHostToDevice);
    dim3 grid(N / 32, M / 64);
    for (int pad = 0; pad <= 1; pad++) {
        std::vector<float> ms;
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int r = 0; r < 6; r++) {
            cudaEventRecord(e0);
            if (pad) wmma_gemm<40><<<grid, 128>>>(da, db, dc, M, N, K);
            else wmma_gemm<32><<<grid, 128>>>(da, db, dc, M, N, K);
            cudaEventRecord(e1); cudaEventSynchronize(e1);
            float t; cudaEventElapsedTime(&t, e0, e1);
            if (r) ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        cudaMemcpy(c.data(), dc, M * N * 4, cudaMemcpyDeviceToHost);
        double worst = 0, big = 1;
        for (int i = 0; i < M; i += 7)
            for (int j = 0; j < N; j += 5) {
                double s = 0;
                for (int k = 0; k < K; k++) s += (double)fa[i * K + k] * fb[k * N + j];
                big = std::max(big, std::fabs(s));
                worst = std::max(worst, std::fabs(c[i * N + j] - s));
            }
        printf("G ld%d err %.3e rel %.3e median_us %.2f %s\n", pad ? 40 : 32, worst, worst / big,
               ms[ms.size() / 2] * 1000, cudaGetErrorString(cudaGetLastError()));
    }
    return 0;
}
