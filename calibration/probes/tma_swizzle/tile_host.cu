// calibration/probes/tma_swizzle, the counters part: programs/cuda/tensor/tma_tile.cu (the TMA
// tile transpose, tma_tile<0> rows as they are, tma_tile<128> the 128-byte swizzle; N = 256,
// grid N/32 x N/32, block 32 x 32, tensor map f32 [N, N] box [32, 32]) and
// programs/cuda/tensor/mbar_pipeline.cu (mbar_pipeline<0>, <1>; BLOCKS = 8, TILES = 8, block
// 160), as their launch files (*.cu.ron) run them; inputs as warpsim's Random(3) / Random(11)
// fill F32 buffers. Each output is checked against a CPU reference (PASS/FAIL lines).
//
//   tile_host          each kernel once (checked), then timed: median of 5 launches (cudaEvent)
//   tile_host once     each kernel once, checked, in the order above (what ncu profiles: 4 rows)
//
// The .cu files are NVRTC sources written for warpsim's prelude, which defines CUtensorMap:
// <cuda.h> comes first here. Both define `smem`, hence one namespace each.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace tt {
#include "../../../programs/cuda/tensor/tma_tile.cu"
}
namespace mp {
#include "../../../programs/cuda/tensor/mbar_pipeline.cu"
}

static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float draw(uint64_t seed, uint64_t i) {
    uint64_t h = splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    return (float)(h >> 40) * (1.0f / (1u << 23)) - 1.0f;
}

#define CK(x)                                                                            \
    do {                                                                                 \
        cudaError_t e_ = (x);                                                            \
        if (e_ != cudaSuccess) {                                                         \
            printf("ERROR %s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__); \
            return 3;                                                                    \
        }                                                                                \
    } while (0)

template <class F>
static float median_us(F launch) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int i = 0; i < 5; i++) {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    return t[2];
}

static bool encode(CUtensorMap* m, float* base, int n, CUtensorMapSwizzle sw) {
    cuuint64_t dims[2] = {(cuuint64_t)n, (cuuint64_t)n};
    cuuint64_t strides[1] = {(cuuint64_t)n * 4};
    cuuint32_t box[2] = {32, 32}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        const char* s = "?";
        cuGetErrorString(r, &s);
        printf("ERROR cuTensorMapEncodeTiled %d %s\n", (int)r, s);
    }
    return r == CUDA_SUCCESS;
}

int main(int argc, char** argv) {
    const bool once = argc > 1 && !strcmp(argv[1], "once");
    const int N = 256, BLOCKS = 8, TILES = 8;
    std::vector<float> a(N * N), o(N * N), in(BLOCKS * TILES * 1024), po(BLOCKS * TILES * 128);
    for (int i = 0; i < N * N; i++) a[i] = draw(3, i);
    for (size_t i = 0; i < in.size(); i++) in[i] = draw(11, i);
    float *da, *dout, *din, *dpo;
    CK(cudaMalloc(&da, N * N * 4));
    CK(cudaMalloc(&dout, N * N * 4));
    CK(cudaMalloc(&din, in.size() * 4));
    CK(cudaMalloc(&dpo, po.size() * 4));
    CK(cudaMemcpy(da, a.data(), N * N * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    CUtensorMap m0, m128;
    if (!encode(&m0, da, N, CU_TENSOR_MAP_SWIZZLE_NONE) || !encode(&m128, da, N, CU_TENSOR_MAP_SWIZZLE_128B))
        return 4;
    const dim3 grid(N / 32, N / 32), block(32, 32);

    // tma_tile<SW>: out[j * N + i] = A[i * N + j] exactly.
    for (int sw : {0, 128}) {
        CK(cudaMemset(dout, 0, N * N * 4));
        auto launch = [&]() {
            if (sw == 0) tt::tma_tile<0><<<grid, block>>>(m0, dout, N);
            else tt::tma_tile<128><<<grid, block>>>(m128, dout, N);
        };
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(o.data(), dout, N * N * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) bad += o[j * N + i] != a[i * N + j];
        printf("%s tma_tile<%d> %d of %d elements differ", bad ? "FAIL" : "PASS", sw, bad, N * N);
        if (!once) printf(" median_us %.3f", median_us(launch));
        printf("\n");
        fflush(stdout);
    }

    // mbar_pipeline<PAD>: out[i] = sum_k in[(i/128)*1024 + (i%32)*32 + (i/32%4)*8 + k], k = 0..7.
    for (int pad : {0, 1}) {
        CK(cudaMemset(dpo, 0, po.size() * 4));
        auto launch = [&]() {
            if (pad == 0) mp::mbar_pipeline<0><<<BLOCKS, 160>>>(din, dpo, TILES);
            else mp::mbar_pipeline<1><<<BLOCKS, 160>>>(din, dpo, TILES);
        };
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(po.data(), dpo, po.size() * 4, cudaMemcpyDeviceToHost));
        int bad = 0;
        double worst = 0;
        for (size_t i = 0; i < po.size(); i++) {
            float s = 0.0f;
            for (int k = 0; k < 8; k++) s += in[(i / 128) * 1024 + (i % 32) * 32 + (i / 32 % 4) * 8 + k];
            double d = fabs((double)po[i] - (double)s);
            worst = std::max(worst, d);
            bad += d > 1e-5;
        }
        printf("%s mbar_pipeline<%d> %d of %zu elements differ (worst |err| %.3g)", bad ? "FAIL" : "PASS", pad,
               bad, po.size(), worst);
        if (!once) printf(" median_us %.3f", median_us(launch));
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
