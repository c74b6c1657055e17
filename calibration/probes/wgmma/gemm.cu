// calibration/probes/wgmma: programs/cuda/tensor/wgmma_gemm.cu's two kernels on the GPU at
// 128^3 (the launch files' size), inputs as warpsim's Random fills an F16 buffer would not be
// reproduced here: small exact integers instead (every product and sum exact in f32), so C must
// equal the CPU's sum exactly. Prints "G variant mismatches max_abs_error".
#include <cstdio>
#include <vector>
#include <cmath>
#include <cuda_fp16.h>
#include "wgmma_gemm.cu"
int main() {
    const int M = 128, N = 128, K = 128;
    std::vector<__half> a(M * K), b(K * N), bt(N * K);
    for (int i = 0; i < M * K; i++) a[i] = __float2half((float)((i * 7 + 3) % 9 - 4));
    for (int k = 0; k < K; k++)
        for (int n = 0; n < N; n++) {
            float v = (float)((k * 5 + n * 3 + 1) % 7 - 3);
            b[k * N + n] = __float2half(v);
            bt[n * K + k] = __float2half(v);
        }
    __half *da, *db, *dbt; float* dc;
    cudaMalloc(&da, M * K * 2); cudaMalloc(&db, K * N * 2); cudaMalloc(&dbt, N * K * 2);
    cudaMalloc(&dc, M * N * 4);
    cudaMemcpy(da, a.data(), M * K * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), K * N * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dbt, bt.data(), N * K * 2, cudaMemcpyHostToDevice);
    std::vector<float> c(M * N);
    for (int v = 0; v < 2; v++) {
        cudaMemset(dc, 0, M * N * 4);
        dim3 grid(N / 64, M / 64);
        if (v == 0) wgmma_gemm<0><<<grid, 128>>>(da, dbt, dc, M, N, K);
        else wgmma_gemm<1><<<grid, 128>>>(da, db, dc, M, N, K);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("G %d error %s\n", v, cudaGetErrorString(e)); continue; }
        cudaMemcpy(c.data(), dc, M * N * 4, cudaMemcpyDeviceToHost);
        int bad = 0; double worst = 0;
        for (int m = 0; m < M; m++)
            for (int n = 0; n < N; n++) {
                double s = 0;
                for (int k = 0; k < K; k++) s += (double)__half2float(a[m * K + k]) * __half2float(b[k * N + n]);
                double d = fabs(c[m * N + n] - s);
                if (d != 0) bad++;
                worst = fmax(worst, d);
            }
        printf("G %d %d %g\n", v, bad, worst);
    }
    return 0;
}
