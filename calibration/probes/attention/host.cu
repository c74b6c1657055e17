// calibration/probes/attention: programs/cuda/tensor/flash_attn.cu (<0>, <1>) at N = 8192, as
// the launch files run them with -D N=8192, on inputs filled as warpsim's Random(1), Random(2),
// Random(3) fill F16 buffers (the f32 draw (h >> 40) * 2^-23 - 1, rounded to half).
//
//   host          each kernel checked against an f64 softmax on 64 sampled rows ("A name
//                 max_abs_error"), then timed: median of 5 launches (cudaEvent; "T name us")
//   host once     each kernel once (what ncu profiles: 2 rows)
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "../../../programs/cuda/tensor/flash_attn.cu"

static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float draw(uint64_t seed, uint64_t i) {
    uint64_t h = splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    return (float)(h >> 40) * (1.0f / (1u << 23)) - 1.0f;
}

int main(int argc, char** argv) {
    const bool once = argc > 1 && !strcmp(argv[1], "once");
    const int N = argc > 2 ? atoi(argv[2]) : 8192;  // run_sizes.sh: `host run N`, `host once N`
    std::vector<__half> h[3];
    std::vector<float> f[3];
    __half* d[3];
    for (int m = 0; m < 3; m++) {
        h[m].resize(N * 64); f[m].resize(N * 64);
        for (int i = 0; i < N * 64; i++) { h[m][i] = __float2half_rn(draw(m + 1, i)); f[m][i] = __half2float(h[m][i]); }
        cudaMalloc(&d[m], N * 64 * 2);
        cudaMemcpy(d[m], h[m].data(), N * 64 * 2, cudaMemcpyHostToDevice);
    }
    float* o; cudaMalloc(&o, N * 64 * 4);
    std::vector<float> out(N * 64);
    const char* names[2] = {"flash_attn", "flash_attn_xor"};
    for (int v = 0; v < 2; v++) {
        auto launch = [&]() {
            if (v) flash_attn<1><<<N / 64, 128>>>(d[0], d[1], d[2], o, N);
            else flash_attn<0><<<N / 64, 128>>>(d[0], d[1], d[2], o, N);
        };
        cudaMemset(o, 0, N * 64 * 4);
        launch();
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("A %s error %s\n", names[v], cudaGetErrorString(e)); continue; }
        if (once) continue;
        cudaMemcpy(out.data(), o, N * 64 * 4, cudaMemcpyDeviceToHost);
        double worst = 0;
        std::vector<double> s(N);
        for (int q = 0; q < N; q += N / 64) {
            double mx = -1e300, sum = 0;
            for (int j = 0; j < N; j++) {
                double x = 0;
                for (int k = 0; k < 64; k++) x += (double)f[0][q * 64 + k] * f[1][j * 64 + k];
                s[j] = 0.125 * x; mx = fmax(mx, s[j]);
            }
            for (int j = 0; j < N; j++) { s[j] = exp(s[j] - mx); sum += s[j]; }
            for (int c = 0; c < 64; c++) {
                double r = 0;
                for (int j = 0; j < N; j++) r += s[j] * f[2][j * 64 + c];
                worst = fmax(worst, fabs(out[q * 64 + c] - r / sum));
            }
        }
        printf("A %s %.3e\n", names[v], worst);
        std::vector<float> t;
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int r = 0; r < 5; r++) {
            cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms = 0; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000.0f);
        }
        std::sort(t.begin(), t.end());
        printf("T %s %.2f\n", names[v], t[2]);
    }
    return 0;
}
