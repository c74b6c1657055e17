// The reference kernels of tests/fixtures/h200/kernels.cu (measured on the H200), as CUDA
// source for warpsim: `warpsim run programs/cuda/<row>.cu.ron` (or <row>.ron: kernels.ptx).
// Host code (the include) is guarded so that NVRTC compiles the device code alone.
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#endif
#define TILE 32
#define ROWS 8
template <int PAD, bool SWZ>
__global__ void transpose(const float* in, float* out, int n) {
  __shared__ volatile float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.y + j, c = threadIdx.x;
    tile[r][SWZ ? (c ^ r) : c] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.x, c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[r][SWZ ? (c ^ r) : c];
  }
}

template <int T, int PAD, bool TRANSA>
__global__ void matmul(const float* A, const float* B, float* C, int n) {
  __shared__ volatile float As[T][T + PAD];
  __shared__ volatile float Bs[T][T + PAD];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int t = 0; t < n / T; t++) {
    if (TRANSA) As[tx][ty] = A[row * n + t * T + tx]; else As[ty][tx] = A[row * n + t * T + tx];
    Bs[ty][tx] = B[(t * T + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; k++) acc += (TRANSA ? As[k][ty] : As[ty][k]) * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

template <int PAD>
__global__ void transpose64(const double* in, double* out, int n) {
  __shared__ volatile double tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
