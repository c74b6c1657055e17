// calibration/probes/wgmma, the GEMM part: programs/cuda/tensor/wgmma_gemm.cu (<0>: unswizzled
// core matrices, B given as Bt; <1>: the 128-byte swizzle, B read N-major) and wgmma_tma.cu (the
// warp-specialised TMA + mbarrier + wgmma pipeline) at M = N = K = 1024, as their launch files
// run them (-D M=1024 -D N=1024 -D K=1024), on inputs filled as warpsim's Random(1) and
// Random(2) fill F16 buffers (the f32 draw (h >> 40) * 2^-23 - 1, rounded to half; Bt is B
// transposed, as warpsim's Random(2) fills the `Bt` buffer: element (n, k) from draw n K + k).
//
//   gemm          each kernel checked against an f64 reference ("G name max_rel_error"), then
//                 timed: median of 5 launches (cudaEvent; "T name us")
//   gemm once     each kernel once, in the order above (what ncu profiles: 3 rows)
//
// The .cu files are NVRTC sources written for warpsim's prelude, which defines CUtensorMap:
// <cuda.h> comes first here, and each file in a namespace of its own.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
namespace plain {
#include "../../../programs/cuda/tensor/wgmma_gemm.cu"
}
namespace tma {
#undef BM
#undef BN
#undef BK
#include "../../../programs/cuda/tensor/wgmma_tma.cu"
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

static bool encode(CUtensorMap* m, __half* base, int inner, int outer) {
    cuuint64_t dims[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
    cuuint64_t strides[1] = {(cuuint64_t)inner * 2};
    cuuint32_t box[2] = {64, 64}, es[2] = {1, 1};
    CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, base, dims, strides, box, es,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        const char* s = "?";
        cuGetErrorString(r, &s);
        printf("ERROR cuTensorMapEncodeTiled %d %s\n", (int)r, s);
    }
    return r == CUDA_SUCCESS;
}

int main(int argc, char** argv) {
    const bool once = argc > 1 && !strcmp(argv[1], "once");
    const int M = 1024, N = 1024, K = 1024;
    std::vector<__half> a(M * K), b(K * N), bt(N * K);
    std::vector<float> fa(M * K), fb(K * N);
    for (int i = 0; i < M * K; i++) { a[i] = __float2half_rn(draw(1, i)); fa[i] = __half2float(a[i]); }
    // B (K x N) from Random(2); Bt (N x K) from Random(2) too, so Bt is not B transposed: the
    // reference of <0> reads Bt.
    std::vector<float> fbt(N * K);
    for (int i = 0; i < K * N; i++) { b[i] = __float2half_rn(draw(2, i)); fb[i] = __half2float(b[i]); }
    for (int i = 0; i < N * K; i++) { bt[i] = __float2half_rn(draw(2, i)); fbt[i] = __half2float(bt[i]); }
    __half *da, *db, *dbt; float* dc;
    cudaMalloc(&da, M * K * 2); cudaMalloc(&db, K * N * 2); cudaMalloc(&dbt, N * K * 2);
    cudaMalloc(&dc, M * N * 4);
    cudaMemcpy(da, a.data(), M * K * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), K * N * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dbt, bt.data(), N * K * 2, cudaMemcpyHostToDevice);
    CUtensorMap ta, tb;
    if (!encode(&ta, da, K, M) || !encode(&tb, db, N, K)) return 1;
    const char* names[3] = {"wgmma_gemm", "wgmma_gemm_sw128", "wgmma_tma"};
    auto launch = [&](int v) {
        dim3 grid(N / 64, M / 64);
        if (v == 0) plain::wgmma_gemm<0><<<grid, 128>>>(da, dbt, dc, M, N, K);
        else if (v == 1) plain::wgmma_gemm<1><<<grid, 128>>>(da, db, dc, M, N, K);
        else tma::wgmma_tma<<<grid, 160>>>(ta, tb, dc, M, N, K);
    };
    std::vector<float> c(M * N);
    for (int v = 0; v < 3; v++) {
        cudaMemset(dc, 0, M * N * 4);
        launch(v);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("G %s error %s\n", names[v], cudaGetErrorString(e)); continue; }
        if (once) continue;
        cudaMemcpy(c.data(), dc, M * N * 4, cudaMemcpyDeviceToHost);
        double worst = 0, mag = 0;
        for (int m = 0; m < M; m += 7)
            for (int n = 0; n < N; n++) {
                double s = 0;
                for (int k = 0; k < K; k++) s += (double)fa[m * K + k] * (v == 0 ? fbt[n * K + k] : fb[k * N + n]);
                worst = fmax(worst, fabs(c[m * N + n] - s));
                mag = fmax(mag, fabs(s));
            }
        printf("G %s %.3e\n", names[v], worst / fmax(1.0, mag));
        std::vector<float> t;
        cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
        for (int r = 0; r < 5; r++) {
            cudaEventRecord(e0); launch(v); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms = 0; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000.0f);
        }
        std::sort(t.begin(), t.end());
        printf("T %s %.2f\n", names[v], t[2]);
    }
    return 0;
}
