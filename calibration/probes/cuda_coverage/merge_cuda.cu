// Register-blocked shared loads as ordinary CUDA writes them (issue 37 item 4): the kernels
// whose SASS decides whether ptxas merges a thread's run of scalar `ld.shared` into
// LDS.64/LDS.128. Written here from the published techniques (2D block tiling of the
// step-by-step SGEMM series, 1D tiling, stencils, small-array loops), not copied.
// Compiled, never run: run.sh builds it with nvcc (the H200's pipeline) and dumps the SASS
// and nvcc's PTX; merge_cuda_nvrtc.ptx is NVRTC 12.6's PTX of this file (what warpsim sees),
// which run.sh also gives the device's ptxas.
#ifndef __CUDACC_RTC__
#include <cstdio>
#endif

// 2D block tiling, As stored transposed (a thread's TM values of As are consecutive).
// IDX is int or unsigned: NVVM folds `base + i` into an immediate offset for int (nsw) but
// not for unsigned (it may wrap), where it emits `or`/`add` on the 32-bit index.
template <typename IDX, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
gemm2d(IDX M, IDX N, IDX K, float alpha, const float* A, const float* B, float beta, float* C) {
  const IDX cRow = blockIdx.y, cCol = blockIdx.x;
  const IDX tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K; B += cCol * BN; C += cRow * BM * N + cCol * BN;
  const IDX iRA = threadIdx.x / BK, iCA = threadIdx.x % BK, sA = (BM * BN) / (TM * TN) / BK;
  const IDX iRB = threadIdx.x / BN, iCB = threadIdx.x % BN, sB = (BM * BN) / (TM * TN) / BN;
  float acc[TM * TN] = {0.0f};
  float rM[TM], rN[TN];
  for (IDX bk = 0; bk < K; bk += BK) {
    for (IDX o = 0; o < BM; o += sA) As[iCA * BM + iRA + o] = A[(iRA + o) * K + iCA];
    for (IDX o = 0; o < BK; o += sB) Bs[(iRB + o) * BN + iCB] = B[(iRB + o) * N + iCB];
    __syncthreads();
    A += BK; B += BK * N;
#pragma unroll
    for (IDX d = 0; d < BK; ++d) {
#pragma unroll
      for (IDX i = 0; i < TM; ++i) rM[i] = As[d * BM + tRow * TM + i];
#pragma unroll
      for (IDX i = 0; i < TN; ++i) rN[i] = Bs[d * BN + tCol * TN + i];
#pragma unroll
      for (IDX m = 0; m < TM; ++m)
#pragma unroll
        for (IDX n = 0; n < TN; ++n) acc[m * TN + n] += rM[m] * rN[n];
    }
    __syncthreads();
  }
  for (IDX m = 0; m < TM; ++m)
    for (IDX n = 0; n < TN; ++n)
      C[(tRow * TM + m) * N + tCol * TN + n] = alpha * acc[m * TN + n] + beta * C[(tRow * TM + m) * N + tCol * TN + n];
}
template __global__ void gemm2d<int, 64, 64, 8, 8, 8>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void gemm2d<unsigned, 64, 64, 8, 8, 8>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);
template __global__ void gemm2d<int, 64, 64, 8, 4, 4>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void gemm2d<unsigned, 64, 64, 8, 4, 4>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);
template __global__ void gemm2d<unsigned, 128, 128, 8, 8, 8>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);
template __global__ void gemm2d<int, 32, 32, 8, 2, 2>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void gemm2d<unsigned, 32, 32, 8, 2, 2>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);

// The same without any unroll pragma, as the step-by-step SGEMM series writes it: NVVM unrolls
// the inner loops itself and, for unsigned indices, forms As's addresses with `or` on the
// 32-bit index (ptxas 12.6 then leaves them scalar).
template <typename IDX, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
gemm2d_plain(IDX M, IDX N, IDX K, float alpha, const float* A, const float* B, float beta, float* C) {
  const IDX cRow = blockIdx.y, cCol = blockIdx.x;
  const IDX tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K; B += cCol * BN; C += cRow * BM * N + cCol * BN;
  const IDX iRA = threadIdx.x / BK, iCA = threadIdx.x % BK, sA = (BM * BN) / (TM * TN) / BK;
  const IDX iRB = threadIdx.x / BN, iCB = threadIdx.x % BN, sB = (BM * BN) / (TM * TN) / BN;
  float acc[TM * TN] = {0.0f};
  float rM[TM], rN[TN];
  for (IDX bk = 0; bk < K; bk += BK) {
    for (IDX o = 0; o < BM; o += sA) As[iCA * BM + iRA + o] = A[(iRA + o) * K + iCA];
    for (IDX o = 0; o < BK; o += sB) Bs[(iRB + o) * BN + iCB] = B[(iRB + o) * N + iCB];
    __syncthreads();
    A += BK; B += BK * N;
    for (IDX d = 0; d < BK; ++d) {
      for (IDX i = 0; i < TM; ++i) rM[i] = As[d * BM + tRow * TM + i];
      for (IDX i = 0; i < TN; ++i) rN[i] = Bs[d * BN + tCol * TN + i];
      for (IDX m = 0; m < TM; ++m)
        for (IDX n = 0; n < TN; ++n) acc[m * TN + n] += rM[m] * rN[n];
    }
    __syncthreads();
  }
  for (IDX m = 0; m < TM; ++m)
    for (IDX n = 0; n < TN; ++n)
      C[(tRow * TM + m) * N + tCol * TN + n] = alpha * acc[m * TN + n] + beta * C[(tRow * TM + m) * N + tCol * TN + n];
}
template __global__ void gemm2d_plain<int, 64, 64, 8, 8, 8>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void gemm2d_plain<unsigned, 64, 64, 8, 8, 8>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);
template __global__ void gemm2d_plain<int, 128, 128, 8, 8, 8>(int, int, int, float, const float*, const float*, float, float*);
template __global__ void gemm2d_plain<unsigned, 128, 128, 8, 8, 8>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);
template __global__ void gemm2d_plain<unsigned, 64, 64, 8, 4, 4>(unsigned, unsigned, unsigned, float, const float*, const float*, float, float*);

// 2D block tiling with As row-major (a thread's TM values of As are BK apart: no merge
// possible there; Bs's TN values are consecutive).
template <typename IDX, int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
gemm2d_rowA(IDX N, IDX K, const float* A, const float* B, float* C) {
  const IDX tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  float acc[TM * TN] = {0.0f};
  for (IDX bk = 0; bk < K; bk += BK) {
    for (IDX i = threadIdx.x; i < BM * BK; i += blockDim.x) As[i] = A[(i / BK) * K + bk + i % BK];
    for (IDX i = threadIdx.x; i < BK * BN; i += blockDim.x) Bs[i] = B[(bk + i / BN) * N + i % BN];
    __syncthreads();
#pragma unroll
    for (IDX d = 0; d < BK; ++d) {
      float rN[TN];
#pragma unroll
      for (IDX n = 0; n < TN; ++n) rN[n] = Bs[d * BN + tCol * TN + n];
#pragma unroll
      for (IDX m = 0; m < TM; ++m) {
        const float a = As[(tRow * TM + m) * BK + d];
#pragma unroll
        for (IDX n = 0; n < TN; ++n) acc[m * TN + n] += a * rN[n];
      }
    }
    __syncthreads();
  }
  for (IDX m = 0; m < TM; ++m)
    for (IDX n = 0; n < TN; ++n) C[(tRow * TM + m) * N + tCol * TN + n] = acc[m * TN + n];
}
template __global__ void gemm2d_rowA<int, 64, 64, 8, 8, 8>(int, int, const float*, const float*, float*);
template __global__ void gemm2d_rowA<unsigned, 64, 64, 8, 8, 8>(unsigned, unsigned, const float*, const float*, float*);

// 1D block tiling: each thread TM results of one column; Bs read once per d, As TM values
// BK apart (no run), written back through a shared tile (a run of stores).
template <int BM, int BN, int BK, int TM>
__global__ void gemm1d_store(int N, int K, const float* A, const float* B, float* C) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  __shared__ float Cs[BM * BN];
  const int tCol = threadIdx.x % BN, tRow = threadIdx.x / BN;
  float acc[TM] = {0.0f};
  for (int bk = 0; bk < K; bk += BK) {
    for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) As[i] = A[(i / BK) * K + bk + i % BK];
    for (int i = threadIdx.x; i < BK * BN; i += blockDim.x) Bs[i] = B[(bk + i / BN) * N + i % BN];
    __syncthreads();
    for (int d = 0; d < BK; ++d) {
      const float b = Bs[d * BN + tCol];
#pragma unroll
      for (int r = 0; r < TM; ++r) acc[r] += As[(tRow * TM + r) * BK + d] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) Cs[tCol * BM + tRow * TM + r] = acc[r];  // a run of TM stores
  __syncthreads();
  for (int i = threadIdx.x; i < BM * BN; i += blockDim.x) C[(i % BM) * N + i / BM] = Cs[i];
}
template __global__ void gemm1d_store<64, 64, 8, 8>(int, int, const float*, const float*, float*);
template __global__ void gemm1d_store<64, 64, 8, 4>(int, int, const float*, const float*, float*);

// Register-blocked double precision (2 and 4 values per thread).
template <typename IDX, int TM>
__global__ void dgemm_rb(IDX K, const double* A, const double* B, double* C) {
  __shared__ double As[16 * 64];
  __shared__ double Bs[16 * 64];
  const IDX t = threadIdx.x;  // 64 / TM * 16 threads
  const IDX tRow = t / 16, tCol = t % 16;
  double acc[TM] = {0.0};
  for (IDX bk = 0; bk < K; bk += 16) {
    for (IDX i = t; i < 16 * 64; i += blockDim.x) { As[i] = A[bk * 64 + i]; Bs[i] = B[bk * 64 + i]; }
    __syncthreads();
#pragma unroll
    for (IDX d = 0; d < 16; ++d) {
      double r[TM];
#pragma unroll
      for (IDX i = 0; i < TM; ++i) r[i] = As[d * 64 + tRow * TM + i];
      const double b = Bs[d * 64 + tCol];
#pragma unroll
      for (IDX i = 0; i < TM; ++i) acc[i] += r[i] * b;
    }
    __syncthreads();
  }
  for (IDX i = 0; i < TM; ++i) C[(tRow * TM + i) * 16 + tCol] = acc[i];
}
template __global__ void dgemm_rb<int, 2>(int, const double*, const double*, double*);
template __global__ void dgemm_rb<unsigned, 2>(unsigned, const double*, const double*, double*);
template __global__ void dgemm_rb<int, 4>(int, const double*, const double*, double*);
template __global__ void dgemm_rb<unsigned, 4>(unsigned, const double*, const double*, double*);

// 1D stencil: a thread reads s[tx + k], k = 0..2R (consecutive, alignment unknown: tx).
template <int R>
__global__ void stencil1d(const float* in, float* out, const float* w, int n) {
  __shared__ float s[256 + 2 * R];
  const int g = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x + R] = g < n ? in[g] : 0.0f;
  if (threadIdx.x < R) {
    s[threadIdx.x] = g >= R ? in[g - R] : 0.0f;
    s[threadIdx.x + 256 + R] = g + 256 < n ? in[g + 256] : 0.0f;
  }
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k <= 2 * R; ++k) acc += w[k] * s[threadIdx.x + k];
  if (g < n) out[g] = acc;
}
template __global__ void stencil1d<3>(const float*, float*, const float*, int);
template __global__ void stencil1d<4>(const float*, float*, const float*, int);

// A thread reads its own 4- or 8-element row segment: s[tid * W + k] (aligned by W).
template <typename IDX, int W>
__global__ void rowseg(const float* in, float* out) {
  __shared__ float s[256 * W];
  for (IDX i = threadIdx.x; i < 256 * W; i += blockDim.x) s[i] = in[blockIdx.x * 256 * W + i];
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (IDX k = 0; k < W; ++k) acc = fmaf(acc, 1.5f, s[threadIdx.x * W + k]);
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}
template __global__ void rowseg<int, 4>(const float*, float*);
template __global__ void rowseg<unsigned, 4>(const float*, float*);
template __global__ void rowseg<int, 8>(const float*, float*);
template __global__ void rowseg<unsigned, 8>(const float*, float*);
template __global__ void rowseg<int, 2>(const float*, float*);
template __global__ void rowseg<unsigned, 2>(const float*, float*);

// Pointer walk: p = &s[tid * 8]; v += *p++ (NVVM: a 64-bit pointer and constant offsets).
__global__ void ptrwalk(const float* in, float* out) {
  __shared__ float s[256 * 8];
  for (int i = threadIdx.x; i < 256 * 8; i += blockDim.x) s[i] = in[i];
  __syncthreads();
  const float* p = &s[threadIdx.x * 8];
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) acc = fmaf(acc, 0.5f, *p++);
  out[threadIdx.x] = acc;
}

// A small array summed by every thread (constant indices: sym + immediates), as the tail of
// a block reduction reads its warp sums.
__global__ void warp_sums_tail(const float* in, float* out) {
  __shared__ float ws[8];
  __shared__ float pad3[3];
  __shared__ float ws2[6];
  if (threadIdx.x < 8) ws[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x < 3) pad3[threadIdx.x] = in[threadIdx.x];
  if (threadIdx.x < 6) ws2[threadIdx.x] = in[threadIdx.x + 8];
  __syncthreads();
  float a = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) a += ws[i];
  float b = pad3[threadIdx.x % 3];
#pragma unroll
  for (int i = 0; i < 6; ++i) b += ws2[i];
  out[threadIdx.x] = a + b;
}

// Shared tile of float with a padded row (33): a thread reads 4 consecutive of its row.
template <typename IDX>
__global__ void padded_row4(const float* in, float* out) {
  __shared__ float t[32][33];
  const IDX x = threadIdx.x, y = threadIdx.y;
  t[y][x] = in[y * 32 + x];
  __syncthreads();
  float acc = 0.0f;
  const IDX c = (x & 7) * 4;
#pragma unroll
  for (IDX k = 0; k < 4; ++k) acc += t[y][c + k];
  out[y * 32 + x] = acc;
}
template __global__ void padded_row4<int>(const float*, float*);
template __global__ void padded_row4<unsigned>(const float*, float*);
