// Whole kernels for ncu: the 7 launches of kernels_timing.tsv ("orig_*") and held-out launches
// the timing model must not be tuned on ("ho_*"). kernels.cu is calibration/sources/h200/kernels.cu
// (= tests/fixtures/h200/kernels.cu) unchanged; reduce_k, vectors_k and divergence_k are CUDA
// ports of programs/examples/{reduce,vectors,divergence}.ron (volatile shared memory, so every
// shared access is one instruction as in the .ron).
//
// Each launch's label goes to stderr in launch order ("LAUNCH i label grid block"); ncu's IDs
// follow the same order (the fill kernel is filtered out by ncu's -k).
//
// Usage: heldout [orig|ho|all|ho2]   (all = orig + ho; ho2 = a second held-out set)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <cuda_runtime.h>
#include "kernels.cu"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

// programs/examples/reduce.ron
template <int BLOCK>
__global__ void reduce_k(const float* x, float* sums) {
  __shared__ volatile float part[BLOCK];
  part[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  for (int s = BLOCK / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] = part[threadIdx.x] + part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = part[0];
}

// programs/examples/vectors.ron: grid N/512, block 128
__global__ void vectors_k(const float* src, float* dst, double* sq) {
  __shared__ __align__(16) float stage[512];
  int base = blockIdx.x * 512;
  float4 v = *(const float4*)(src + base + threadIdx.x * 4);
  unsigned sa = (unsigned)__cvta_generic_to_shared(&stage[threadIdx.x * 4]);
  asm volatile("st.shared.v4.f32 [%0], {%1,%2,%3,%4};" :: "r"(sa), "f"(v.x * 2.0f), "f"(v.y * 2.0f),
               "f"(v.z * 2.0f), "f"(v.w * 2.0f) : "memory");
  __syncthreads();
  float4 e;
  asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(e.x), "=f"(e.y), "=f"(e.z), "=f"(e.w) : "r"(sa) : "memory");
  *(float4*)(dst + base + threadIdx.x * 4) = e;
  double w = (double)v.x;
  sq[blockIdx.x * 128 + threadIdx.x] = w * w;
}

// programs/examples/divergence.ron: grid N/64, block 64
__global__ void divergence_k(int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = 0;
  if (i % 2 == 1) {
    int k = 1;
    while (k <= i % 8) { v = v + k; k = k + 1; }
  } else {
    v = i * 2;
  }
  out[i] = v;
}

__global__ void fill_rand(unsigned* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    ((float*)p)[i] = (float)(h & 0xffffff) / 16777216.0f;
  }
}

static float *A, *B, *C;
static int nlaunch = 0;
static void lab(const char* l, dim3 g, dim3 b) {
  fprintf(stderr, "LAUNCH\t%d\t%s\t%ux%u\t%ux%u\n", nlaunch++, l, g.x, g.y, b.x, b.y);
}
template <int PAD, bool SWZ> static void tr(const char* l, int n) {
  dim3 g(n / 32, n / 32), b(32, 8); lab(l, g, b); transpose<PAD, SWZ><<<g, b>>>(A, B, n); CK(cudaGetLastError());
}
template <int T, int PAD, bool TA> static void mm(const char* l, int n) {
  dim3 g(n / T, n / T), b(T, T); lab(l, g, b); matmul<T, PAD, TA><<<g, b>>>(A, B, C, n); CK(cudaGetLastError());
}
template <int PAD> static void t64(const char* l, int n) {
  dim3 g(n / 32, n / 32), b(32, 8); lab(l, g, b); transpose64<PAD><<<g, b>>>((double*)A, (double*)B, n); CK(cudaGetLastError());
}
template <int PAD> static void sg(const char* l, int n) {
  dim3 g(n / 64, n / 64), b(16, 16); lab(l, g, b); sgemm4x4<PAD><<<g, b>>>(A, B, C, n); CK(cudaGetLastError());
}
static void red(const char* l, int blocks) {
  dim3 g(blocks), b(256); lab(l, g, b); reduce_k<256><<<g, b>>>(A, B); CK(cudaGetLastError());
}
static void vec(const char* l, int n) {
  dim3 g(n / 512), b(128); lab(l, g, b); vectors_k<<<g, b>>>(A, B, (double*)C); CK(cudaGetLastError());
}
static void dv(const char* l, int n) {
  dim3 g(n / 64), b(64); lab(l, g, b); divergence_k<<<g, b>>>((int*)B); CK(cudaGetLastError());
}

int main(int argc, char** argv) {
  std::string which = argc > 1 ? argv[1] : "all";
  size_t words = (size_t)4096 * 4096 * 2;  // 128 MiB each: 4096^2 f32 or 2048^2 f64 and more
  CK(cudaMalloc(&A, words * 4)); CK(cudaMalloc(&B, words * 4)); CK(cudaMalloc(&C, words * 4));
  fill_rand<<<528, 256>>>((unsigned*)A, words, 1); fill_rand<<<528, 256>>>((unsigned*)B, words, 2);
  CK(cudaMemset(C, 0, words * 4)); CK(cudaDeviceSynchronize());
  if (which == "orig" || which == "all") {
    tr<0, false>("orig_transpose_n1024_tile32x32", 1024);
    tr<1, false>("orig_transpose_n1024_tile32x33", 1024);
    tr<0, true>("orig_transpose_n1024_tile32x32_xor", 1024);
    mm<32, 0, false>("orig_matmul_n256_t32", 256);
    mm<32, 0, true>("orig_matmul_n256_t32_transA", 256);
    mm<32, 1, true>("orig_matmul_n256_t32_transA_pad1", 256);
    t64<0>("orig_transpose64_n512_tile32x32", 512);
  }
  if (which == "ho" || which == "all") {
    tr<0, false>("ho_transpose_n256_tile32x32", 256);
    tr<1, false>("ho_transpose_n256_tile32x33", 256);
    tr<0, true>("ho_transpose_n256_tile32x32_xor", 256);
    tr<0, false>("ho_transpose_n2048_tile32x32", 2048);
    tr<1, false>("ho_transpose_n2048_tile32x33", 2048);
    tr<0, true>("ho_transpose_n2048_tile32x32_xor", 2048);
    tr<0, false>("ho_transpose_n4096_tile32x32", 4096);
    tr<1, false>("ho_transpose_n4096_tile32x33", 4096);
    tr<0, true>("ho_transpose_n4096_tile32x32_xor", 4096);
    mm<16, 0, false>("ho_matmul_n256_t16", 256);
    mm<16, 0, true>("ho_matmul_n256_t16_transA", 256);
    mm<16, 1, true>("ho_matmul_n256_t16_transA_pad1", 256);
    mm<32, 0, false>("ho_matmul_n512_t32", 512);
    mm<32, 0, true>("ho_matmul_n512_t32_transA", 512);
    mm<32, 1, true>("ho_matmul_n512_t32_transA_pad1", 512);
    mm<16, 0, false>("ho_matmul_n1024_t16", 1024);
    mm<32, 0, false>("ho_matmul_n1024_t32", 1024);
    t64<1>("ho_transpose64_n512_tile32x33", 512);
    t64<0>("ho_transpose64_n2048_tile32x32", 2048);
    t64<1>("ho_transpose64_n2048_tile32x33", 2048);
    sg<0>("ho_sgemm4x4_n256", 256);
    sg<4>("ho_sgemm4x4_n256_pad4", 256);
    sg<0>("ho_sgemm4x4_n1024", 1024);
    sg<4>("ho_sgemm4x4_n1024_pad4", 1024);
    red("ho_reduce_block256_blocks16", 16);
    red("ho_reduce_block256_blocks4096", 4096);
    vec("ho_vectors_n4096", 4096);
    vec("ho_vectors_n4194304", 4194304);
    dv("ho_divergence_n256", 256);
    dv("ho_divergence_n1048576", 1048576);
  }
  if (which == "ho2") {
    tr<0, false>("ho_transpose_n512_tile32x32", 512);
    tr<1, false>("ho_transpose_n512_tile32x33", 512);
    tr<0, true>("ho_transpose_n512_tile32x32_xor", 512);
    mm<16, 0, false>("ho_matmul_n512_t16", 512);
    mm<16, 0, true>("ho_matmul_n512_t16_transA", 512);
    mm<16, 1, true>("ho_matmul_n512_t16_transA_pad1", 512);
    t64<0>("ho_transpose64_n1024_tile32x32", 1024);
    t64<1>("ho_transpose64_n1024_tile32x33", 1024);
    sg<0>("ho_sgemm4x4_n512", 512);
    sg<4>("ho_sgemm4x4_n512_pad4", 512);
    red("ho_reduce_block256_blocks132", 132);
    red("ho_reduce_block256_blocks1024", 1024);
    vec("ho_vectors_n262144", 262144);
    dv("ho_divergence_n65536", 65536);
  }
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "heldout: %d launches done\n", nlaunch);
  return 0;
}
