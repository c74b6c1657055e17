// calibration/draws/swizzle: the rule that an access to an XOR-swizzled shared array issues two
// integer instructions for its address (timing crate, trace.rs `SWIZZLE_ADDRESS`), fixed from
// the SASS of transpose<0,true> (kernels.cu), tested on kernels it was not taken from:
// transpose64 and the transposed-A matmul with XOR-swizzled tiles, and transpose<0,true> at
// other sizes, each beside its unswizzled twin (launches.tsv, drawn by draw.py).
//
// Usage: swz launches.tsv|launches2.tsv|launches3.tsv   (labels to stderr, "LAUNCH i name grid block")
#include <cstdio>
#include <cstdlib>
#include <string>
#include <cuda_runtime.h>
#include "../whole_kernels/kernels.cu"
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

// transpose64<0> of kernels.cu with tile[r][c ^ r] (programs/transpose_f64.ron, SWIZZLE=1).
__global__ void transpose64_swz(const double* in, double* out, int n) {
  __shared__ volatile double tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.y + j, c = threadIdx.x;
    tile[r][c ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.x, c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[r][c ^ r];
  }
}

// matmul<T,0,true> of kernels.cu with As[r][c ^ r] (programs/matmul.ron, TRANS_A=1 SWIZZLE=1).
template <int T>
__global__ void matmul_swz(const float* A, const float* B, float* C, int n) {
  __shared__ volatile float As[T][T];
  __shared__ volatile float Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int t = 0; t < n / T; t++) {
    As[tx][ty ^ tx] = A[row * n + t * T + tx];
    Bs[ty][tx] = B[(t * T + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; k++) acc += As[k][ty ^ k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// Second draw (launches2.tsv), after the hoisting rule was fixed from the first one:
// transpose<0,true> and transpose64 with a swizzle of 2-element groups (SWIZZLE=2 in the RON
// ports: column group c/2 XOR (row mod 16)), matmul<T,0,false> with As swizzled (TRANS_A=0
// SWIZZLE=1), and the transposed-A matmul with both tiles swizzled (SWIZZLE=1 SWIZZLE_B=1).
__device__ __forceinline__ int g2(int r, int c) { return (((c >> 1) ^ (r & 15)) << 1) | (c & 1); }
template <typename E>
__global__ void transpose_g2(const E* in, E* out, int n) {
  __shared__ volatile E tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.y + j, c = threadIdx.x;
    tile[r][g2(r, c)] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.x, c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[r][g2(r, c)];
  }
}
template <int T, bool TRANSA, bool SWZB>
__global__ void matmul_swz2(const float* A, const float* B, float* C, int n) {
  __shared__ volatile float As[T][T];
  __shared__ volatile float Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int t = 0; t < n / T; t++) {
    if (TRANSA) As[tx][ty ^ tx] = A[row * n + t * T + tx]; else As[ty][tx ^ ty] = A[row * n + t * T + tx];
    Bs[ty][SWZB ? (tx ^ ty) : tx] = B[(t * T + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < T; k++)
      acc += (TRANSA ? As[k][ty ^ k] : As[ty][k ^ ty]) * Bs[k][SWZB ? (tx ^ k) : tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// Third draw (launches3.tsv), after the group rule (4 instructions for groups of g > 1) was
// fixed from the second: transposes swizzled in groups of 4 and 8 (SWIZZLE=4, 8), and
// sgemm4x4 with As swizzled in groups of 4 (sgemm_4x4.ron SWIZZLE=4), each index written as
// the file format's formula.
template <int G, int COLS>
__device__ __forceinline__ int swg(int r, int c) { return ((c / G) ^ (r % (COLS / G))) * G + c % G; }
template <int G>
__global__ void transpose_gw(const float* in, float* out, int n) {
  __shared__ volatile float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.y + j, c = threadIdx.x;
    tile[r][swg<G, TILE>(r, c)] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    int r = threadIdx.x, c = threadIdx.y + j;
    out[(y + j) * n + x] = tile[r][swg<G, TILE>(r, c)];
  }
}
__global__ void sgemm4x4_swz(const float* A, const float* B, float* C, int n) {
  __shared__ __align__(16) float As[16][64];
  __shared__ __align__(16) float Bs[16][64];
  int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += 16) {
    for (int i = tid; i < 64 * 16; i += 256) {
      int m = i / 16, k = i % 16;
      sts32(&As[k][swg<4, 64>(k, m)], A[(bm + m) * n + k0 + k]);
      int kk = i / 64, nn = i % 64;
      sts32(&Bs[kk][nn], B[(k0 + kk) * n + bn + nn]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) {
      float4 a = lds128(&As[k][swg<4, 64>(k, ty * 4)]);
      float4 b = lds128(&Bs[k][tx * 4]);
      float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) C[(bm + ty * 4 + i) * n + bn + tx * 4 + j] = acc[i][j];
}

__global__ void fill_rand(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (float)(h & 0xffffff) / 16777216.0f;
  }
}
static float *A, *B, *C;
static int nlaunch = 0;
static void lab(const char* l, dim3 g, dim3 b) {
  fprintf(stderr, "LAUNCH\t%d\t%s\t%ux%u\t%ux%u\n", nlaunch++, l, g.x, g.y, b.x, b.y);
}
int main(int argc, char** argv) {
  size_t words = (size_t)4096 * 4096 * 2;  // 128 MiB each
  CK(cudaMalloc(&A, words * 4)); CK(cudaMalloc(&B, words * 4)); CK(cudaMalloc(&C, words * 4));
  fill_rand<<<528, 256>>>(A, words, 1); fill_rand<<<528, 256>>>(B, words, 2);
  CK(cudaMemset(C, 0, words * 4)); CK(cudaDeviceSynchronize());
  FILE* f = fopen(argc > 1 ? argv[1] : "launches.tsv", "r");
  if (!f) { fprintf(stderr, "no launches file\n"); return 1; }
  char name[128], tpl[32]; int n, regs;
  char line[256]; if (!fgets(line, sizeof line, f)) return 1;  // header
  while (fscanf(f, "%127s %31s %d %d", name, tpl, &n, &regs) == 4) {
    std::string t = tpl;
    dim3 b32(32, 8), g32(n / 32, n / 32);
    if (t == "tr00") { lab(name, g32, b32); transpose<0, false><<<g32, b32>>>(A, B, n); }
    else if (t == "tr01") { lab(name, g32, b32); transpose<0, true><<<g32, b32>>>(A, B, n); }
    else if (t == "t64_0") { lab(name, g32, b32); transpose64<0><<<g32, b32>>>((double*)A, (double*)B, n); }
    else if (t == "t64_s") { lab(name, g32, b32); transpose64_swz<<<g32, b32>>>((double*)A, (double*)B, n); }
    else if (t == "mm16_0_1") { dim3 g(n / 16, n / 16), b(16, 16); lab(name, g, b); matmul<16, 0, true><<<g, b>>>(A, B, C, n); }
    else if (t == "mm16_s") { dim3 g(n / 16, n / 16), b(16, 16); lab(name, g, b); matmul_swz<16><<<g, b>>>(A, B, C, n); }
    else if (t == "mm32_0_1") { dim3 g(n / 32, n / 32), b(32, 32); lab(name, g, b); matmul<32, 0, true><<<g, b>>>(A, B, C, n); }
    else if (t == "mm32_s") { dim3 g(n / 32, n / 32), b(32, 32); lab(name, g, b); matmul_swz<32><<<g, b>>>(A, B, C, n); }
    else if (t == "tr_g2") { lab(name, g32, b32); transpose_g2<float><<<g32, b32>>>(A, B, n); }
    else if (t == "t64_g2") { lab(name, g32, b32); transpose_g2<double><<<g32, b32>>>((double*)A, (double*)B, n); }
    else if (t == "mm16_a") { dim3 g(n / 16, n / 16), b(16, 16); lab(name, g, b); matmul_swz2<16, false, false><<<g, b>>>(A, B, C, n); }
    else if (t == "mm32_a") { dim3 g(n / 32, n / 32), b(32, 32); lab(name, g, b); matmul_swz2<32, false, false><<<g, b>>>(A, B, C, n); }
    else if (t == "mm16_0_0") { dim3 g(n / 16, n / 16), b(16, 16); lab(name, g, b); matmul<16, 0, false><<<g, b>>>(A, B, C, n); }
    else if (t == "mm32_0_0") { dim3 g(n / 32, n / 32), b(32, 32); lab(name, g, b); matmul<32, 0, false><<<g, b>>>(A, B, C, n); }
    else if (t == "mm16_ab") { dim3 g(n / 16, n / 16), b(16, 16); lab(name, g, b); matmul_swz2<16, true, true><<<g, b>>>(A, B, C, n); }
    else if (t == "mm32_ab") { dim3 g(n / 32, n / 32), b(32, 32); lab(name, g, b); matmul_swz2<32, true, true><<<g, b>>>(A, B, C, n); }
    else if (t == "tr_g4") { lab(name, g32, b32); transpose_gw<4><<<g32, b32>>>(A, B, n); }
    else if (t == "tr_g8") { lab(name, g32, b32); transpose_gw<8><<<g32, b32>>>(A, B, n); }
    else if (t == "sg_s4") { dim3 g(n / 64, n / 64), b(16, 16); lab(name, g, b); sgemm4x4_swz<<<g, b>>>(A, B, C, n); }
    else if (t == "sg0") { dim3 g(n / 64, n / 64), b(16, 16); lab(name, g, b); sgemm4x4<0><<<g, b>>>(A, B, C, n); }
    else { fprintf(stderr, "unknown template %s\n", tpl); return 1; }
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "swz: %d launches done\n", nlaunch);
  return 0;
}
