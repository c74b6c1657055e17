// Half-precision tiled matrix multiply with 2-byte shared tiles, launched as
// programs/hgemm_tile.ron launches it: C (N x N) = A * B, A and B f16 (warpsim's Random(1) and
// Random(2) rounded to f16), 16 x 16 tiles of __half in shared memory, block 16 x 16, one
// C element per thread.
//   hgemm_tile    products of halves accumulated in f32 (fmaf), C rounded to f16
//   hgemm_tile_h  accumulated in half with __hfma (one f16 rounding per step), C f16
#include <cuda_fp16.h>
#ifndef __CUDACC_RTC__  // (host code: NVRTC, for warpsim's programs/cuda/fp16, skips it)
#include "common.h"
#include <cmath>
#include <vector>
#endif

#define T 16

__global__ void hgemm_tile(const __half* __restrict__ A, const __half* __restrict__ B,
                           __half* __restrict__ C, int n) {
  __shared__ __half As[T][T];
  __shared__ __half Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k)
      acc = fmaf(__half2float(As[ty][k]), __half2float(Bs[k][tx]), acc);
    __syncthreads();
  }
  C[row * n + col] = __float2half_rn(acc);
}

__global__ void hgemm_tile_h(const __half* __restrict__ A, const __half* __restrict__ B,
                             __half* __restrict__ C, int n) {
  __shared__ __half As[T][T];
  __shared__ __half Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  __half acc = __float2half_rn(0.0f);
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[row * n + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; ++k) acc = __hfma(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  C[row * n + col] = acc;
}

#ifndef __CUDACC_RTC__
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  size_t nn = (size_t)n * n;
  std::vector<__half> a(nn), b(nn), c(nn);
  std::vector<float> af(nn), bf(nn);
  for (size_t i = 0; i < nn; ++i) {
    a[i] = __float2half_rn(random_f32(1, i)); af[i] = __half2float(a[i]);
    b[i] = __float2half_rn(random_f32(2, i)); bf[i] = __half2float(b[i]);
  }
  __half *da, *db, *dc;
  CK(cudaMalloc(&da, nn * 2)); CK(cudaMalloc(&db, nn * 2)); CK(cudaMalloc(&dc, nn * 2));
  CK(cudaMemcpy(da, a.data(), nn * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), nn * 2, cudaMemcpyHostToDevice));
  dim3 grid(n / T, n / T), block(T, T);
  int fails = 0;
  for (int k = 0; k < 2; ++k) {
    if (k == 0) hgemm_tile<<<grid, block>>>(da, db, dc, n);
    else hgemm_tile_h<<<grid, block>>>(da, db, dc, n);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dc, nn * 2, cudaMemcpyDeviceToHost));
    if (getenv("DUMP")) {  // C's raw f16 bits, for a bit-for-bit comparison with warpsim
      char path[512];
      snprintf(path, sizeof path, "%s/%s_c.bin", getenv("DUMP"), k ? "hgemm_tile_h" : "hgemm_tile");
      FILE* f = fopen(path, "wb");
      if (f) { fwrite(c.data(), 2, nn, f); fclose(f); }
    }
    double maxerr = 0; size_t bad = 0;
    for (int r = 0; r < n; ++r)
      for (int col = 0; col < n; ++col) {
        float want = 0.0f;  // f32 accumulation, k in order (hgemm_tile's sequence)
        for (int kk = 0; kk < n; ++kk) want = fmaf(af[r * n + kk], bf[kk * n + col], want);
        __half wh = __float2half_rn(want);
        float got = __half2float(c[(size_t)r * n + col]);
        double err = fabs((double)got - (double)want);
        if (err > maxerr) maxerr = err;
        if (k == 0 && got != __half2float(wh)) bad++;
        if (k == 1 && err > 0.05 + 0.02 * fabs(want)) bad++;
      }
    printf("%s n=%d max|err| vs f32 reference %.6g, mismatches %zu %s\n",
           k ? "hgemm_tile_h" : "hgemm_tile", n, maxerr, bad, bad ? "FAIL" : "ok");
    fails += bad != 0;
  }
  return fails ? 1 : 0;
}
#endif  // __CUDACC_RTC__
