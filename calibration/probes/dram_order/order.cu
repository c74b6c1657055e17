// calibration/probes/dram_order/order.cu: in which order the H200's DRAM serves a wave's burst of reads.
// One wave (132 x 8 blocks of 8 warps, as the transposes at 28 registers), a cold L2 (a 256 MiB
// memset before each launch); each warp issues 4 loads of a 128-byte line and records, on lane 0,
// its SM, its start (t0), its loads issued (tA) and its data in (tD), by clock64 of its SM.
// Patterns: 0 = the transpose's (n = 1024 floats: block (b % 32, b / 32), rows by*32 + w + 8j);
// 1 = sequential (block b reads its own 32 consecutive lines); 2 = random lines of 256 MiB (a
// hash of block, warp, j). Output: "p rep block warp sm t0 tA tD", times from the SM's first t0.
// `order clean`: after the memset, a read of another 256 MiB evicts the memset's dirty lines, so
// the kernel's reads share the DRAM with no write-backs (as under ncu's cache control); without
// it (raw/order.txt.gz) the L2 is full of dirty lines that the kernel's misses write back.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ long long clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory"); return c; }
__device__ __forceinline__ float ldg(const float* p) { float v; asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }

__device__ unsigned long long line_of(int p, int b, int w, int j) {
  if (p == 0) { int bx = b % 32, by = b / 32; return (unsigned long long)(by * 32 + w + 8 * j) * 32 + bx; }  // 1024 floats = 32 lines a row
  if (p == 1) return (unsigned long long)b * 32 + w * 4 + j;
  unsigned long long x = ((unsigned long long)b << 16) ^ (w << 4) ^ j;
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x % (2u << 20);  // lines of 256 MiB
}

__global__ void order(const float* g, float* out, long long* rec, int p) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, b = blockIdx.x;
  long long t0 = clk();
  float v0 = ldg(g + line_of(p, b, w, 0) * 32 + lane), v1 = ldg(g + line_of(p, b, w, 1) * 32 + lane);
  float v2 = ldg(g + line_of(p, b, w, 2) * 32 + lane), v3 = ldg(g + line_of(p, b, w, 3) * 32 + lane);
  long long tA = clk();
  float s; asm volatile("add.f32 %0, %1, %2;\n\tadd.f32 %0, %0, %3;\n\tadd.f32 %0, %0, %4;" : "=f"(s) : "f"(v0), "f"(v1), "f"(v2), "f"(v3) : "memory");
  long long tD = clk();
  if (lane == 0) {
    unsigned sm; asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    long long* r = rec + (b * 8 + w) * 4;
    r[0] = sm; r[1] = t0; r[2] = tA; r[3] = tD;
  }
  if (s == 12345.f) out[b] = s;
}

__global__ void read_all(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;
}

int main(int argc, char** argv) {
  const bool clean = argc > 1 && argv[1][0] == 'c';
  const int blocks = 132 * 8;
  float *g, *out; long long* rec; char* flush;
  CK(cudaMalloc(&g, 256 << 20)); CK(cudaMalloc(&out, blocks * 4)); CK(cudaMalloc(&rec, blocks * 8 * 4 * 8));
  CK(cudaMalloc(&flush, 256 << 20));
  float *evict, *sink; CK(cudaMalloc(&evict, 256 << 20)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(evict, 0, 256 << 20));
  CK(cudaMemset(g, 0, 256 << 20));
  std::vector<long long> h(blocks * 8 * 4);
  for (int rep = 0; rep < 2; rep++)
    for (int p = 0; p < 3; p++) {
      CK(cudaMemset(flush, rep + p + 1, 256 << 20));
      if (clean) read_all<<<528, 256>>>((const float4*)evict, (256 << 20) / 16, sink);
      order<<<blocks, 256>>>(g, out, rec, p);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
      std::vector<long long> base(256, -1);
      for (int i = 0; i < blocks * 8; i++) { long long sm = h[i * 4], t = h[i * 4 + 1]; if (base[sm] < 0 || t < base[sm]) base[sm] = t; }
      for (int i = 0; i < blocks * 8; i++) {
        long long* r = &h[i * 4]; long long b0 = base[r[0]];
        printf("%d %d %d %d %lld %lld %lld %lld\n", p, rep, i / 8, i % 8, r[0], r[1] - b0, r[2] - b0, r[3] - b0);
      }
    }
  return 0;
}
