// cuda_kernels1, register-blocked SGEMM (C = alpha A B + beta C, row-major, M x K times K x N),
// the techniques of the well-known step-by-step SGEMM series re-implemented here (not copied),
// with unsigned indices as the series writes them:
//   sgemm1DTiling   each thread TM results of one column; As row-major (a thread's TM values
//                   BK apart), Bs read once per dot step
//   sgemm2DColA     each thread TM x TN results; As stored transposed while loading (a column
//                   of As is a thread's TM consecutive values: the "As column" that ptxas
//                   merges into LDS.128 when the front end lets it), scalar global loads
//   sgemm2DVec      the same with float4 global loads and float4 stores into Bs
// Blocks: BM x BN outputs; M, N multiples of BM, BN; K a multiple of BK (and of 4).
typedef unsigned int uint;  // the series' spelling (no host header here)

template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM * BN) / TM)
sgemm1DTiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const uint cRow = blockIdx.y, cCol = blockIdx.x;
  const uint tCol = threadIdx.x % BN, tRow = threadIdx.x / BN;
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const uint iCA = threadIdx.x % BK, iRA = threadIdx.x / BK;
  const uint iCB = threadIdx.x % BN, iRB = threadIdx.x / BN;
  float acc[TM] = {0.0f};
  for (uint bk = 0; bk < (uint)K; bk += BK) {
    As[iRA * BK + iCA] = A[iRA * K + iCA];
    Bs[iRB * BN + iCB] = B[iRB * N + iCB];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint d = 0; d < BK; ++d) {
      const float b = Bs[d * BN + tCol];
      for (uint r = 0; r < TM; ++r) acc[r] += As[(tRow * TM + r) * BK + d] * b;
    }
    __syncthreads();
  }
  for (uint r = 0; r < TM; ++r)
    C[(tRow * TM + r) * N + tCol] = alpha * acc[r] + beta * C[(tRow * TM + r) * N + tCol];
}
template __global__ void sgemm1DTiling<64, 64, 8, 8>(int, int, int, float, const float*, const float*, float, float*);

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
sgemm2DColA(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const uint cRow = blockIdx.y, cCol = blockIdx.x;
  const uint nThreads = (BM * BN) / (TM * TN);
  const uint tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const uint iRA = threadIdx.x / BK, iCA = threadIdx.x % BK, sA = nThreads / BK;
  const uint iRB = threadIdx.x / BN, iCB = threadIdx.x % BN, sB = nThreads / BN;
  float acc[TM * TN] = {0.0f};
  float rM[TM], rN[TN];
  for (uint bk = 0; bk < (uint)K; bk += BK) {
    for (uint o = 0; o < BM; o += sA) As[iCA * BM + iRA + o] = A[(iRA + o) * K + iCA];
    for (uint o = 0; o < BK; o += sB) Bs[(iRB + o) * BN + iCB] = B[(iRB + o) * N + iCB];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint d = 0; d < BK; ++d) {
      for (uint i = 0; i < TM; ++i) rM[i] = As[d * BM + tRow * TM + i];
      for (uint i = 0; i < TN; ++i) rN[i] = Bs[d * BN + tCol * TN + i];
      for (uint m = 0; m < TM; ++m)
        for (uint n = 0; n < TN; ++n) acc[m * TN + n] += rM[m] * rN[n];
    }
    __syncthreads();
  }
  for (uint m = 0; m < TM; ++m)
    for (uint n = 0; n < TN; ++n) {
      const uint at = (tRow * TM + m) * N + tCol * TN + n;
      C[at] = alpha * acc[m * TN + n] + beta * C[at];
    }
}
template __global__ void sgemm2DColA<64, 64, 8, 8, 8>(int, int, int, float, const float*, const float*, float, float*);

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN))
sgemm2DVec(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const uint cRow = blockIdx.y, cCol = blockIdx.x;
  const uint tCol = threadIdx.x % (BN / TN), tRow = threadIdx.x / (BN / TN);
  __shared__ float As[BK * BM];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  // one float4 of A and one of B per thread per tile (BM * BK / 4 = BK * BN / 4 = threads)
  const uint iRA = threadIdx.x / (BK / 4), iCA = threadIdx.x % (BK / 4);
  const uint iRB = threadIdx.x / (BN / 4), iCB = threadIdx.x % (BN / 4);
  float acc[TM * TN] = {0.0f};
  float rM[TM], rN[TN];
  for (uint bk = 0; bk < (uint)K; bk += BK) {
    const float4 a = reinterpret_cast<const float4*>(&A[iRA * K + iCA * 4])[0];
    As[(iCA * 4 + 0) * BM + iRA] = a.x;
    As[(iCA * 4 + 1) * BM + iRA] = a.y;
    As[(iCA * 4 + 2) * BM + iRA] = a.z;
    As[(iCA * 4 + 3) * BM + iRA] = a.w;
    reinterpret_cast<float4*>(&Bs[iRB * BN + iCB * 4])[0] =
        reinterpret_cast<const float4*>(&B[iRB * N + iCB * 4])[0];
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint d = 0; d < BK; ++d) {
      for (uint i = 0; i < TM; ++i) rM[i] = As[d * BM + tRow * TM + i];
      for (uint i = 0; i < TN; ++i) rN[i] = Bs[d * BN + tCol * TN + i];
      for (uint m = 0; m < TM; ++m)
        for (uint n = 0; n < TN; ++n) acc[m * TN + n] += rM[m] * rN[n];
    }
    __syncthreads();
  }
  for (uint m = 0; m < TM; ++m)
    for (uint n = 0; n < TN; n += 4) {
      float4 c = reinterpret_cast<float4*>(&C[(tRow * TM + m) * N + tCol * TN + n])[0];
      c.x = alpha * acc[m * TN + n + 0] + beta * c.x;
      c.y = alpha * acc[m * TN + n + 1] + beta * c.y;
      c.z = alpha * acc[m * TN + n + 2] + beta * c.z;
      c.w = alpha * acc[m * TN + n + 3] + beta * c.w;
      reinterpret_cast<float4*>(&C[(tRow * TM + m) * N + tCol * TN + n])[0] = c;
    }
}
template __global__ void sgemm2DVec<128, 128, 8, 8, 8>(int, int, int, float, const float*, const float*, float, float*);
