// Spread of DRAM load latency under load, and the barrier wait it causes: the padded
// transpose's read half. Each block of 32 x 8 threads reads a 32 x 32 tile of a cold N x N
// float matrix as transpose.ron does (4 coalesced 128-byte loads per warp, rows y, y+8, y+16,
// y+24 of the tile), sums what it read, waits at __syncthreads and writes one float per thread.
// Per warp, lane 0 records clock64 before its first load (t0), once its 4 values are summed
// (t1) and after the barrier (t2): t1 - t0 is its loads' latency, t2 - t1 its barrier wait.
// Before each launch a 512 MiB buffer is written so that the L2 (50 MiB) holds none of the
// matrix.
//
// Usage: spread N [raw.csv]   (prints quantiles; with raw.csv, every warp's row)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s;
}

__global__ void spread(const float* in, float* out, int n, long long* rec) {
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  long long t0 = clk64();
  float v0, v1, v2, v3;
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v0) : "l"(in + (size_t)(y + 0) * n + x) : "memory");
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v1) : "l"(in + (size_t)(y + 8) * n + x) : "memory");
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v2) : "l"(in + (size_t)(y + 16) * n + x) : "memory");
  asm volatile("ld.global.f32 %0, [%1];" : "=f"(v3) : "l"(in + (size_t)(y + 24) * n + x) : "memory");
  float s = v0 + v1 + v2 + v3;
  asm volatile("" :: "f"(s));
  long long t1 = clk64();
  __syncthreads();
  long long t2 = clk64();
  out[(size_t)y * n + x] = s;
  if (threadIdx.x == 0) {
    size_t w = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 8 + threadIdx.y;
    rec[w * 4 + 0] = t0;
    rec[w * 4 + 1] = t1 - t0;
    rec[w * 4 + 2] = t2 - t1;
    rec[w * 4 + 3] = smid();
  }
}

static long long q(std::vector<long long> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, (size_t)(p * v.size()))];
}

__global__ void read_all(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  const bool clean = getenv("SPREAD_CLEAN") && getenv("SPREAD_CLEAN")[0] == '1';
  float* evict; CK(cudaMalloc(&evict, 512u << 20)); CK(cudaMemset(evict, 0, 512u << 20));
  size_t elems = (size_t)n * n, blocks = elems / 1024, warps = blocks * 8;
  float *in, *out; long long* rec; char* flush;
  CK(cudaMalloc(&in, elems * 4)); CK(cudaMalloc(&out, elems * 4));
  CK(cudaMalloc(&rec, warps * 4 * 8)); CK(cudaMalloc(&flush, 512u << 20));
  CK(cudaMemset(in, 0, elems * 4));
  std::vector<long long> h(warps * 4);
  dim3 grid(n / 32, n / 32), block(32, 8);
  for (int run = 0; run < 3; run++) {
    CK(cudaMemset(flush, run, 512u << 20));
    // SPREAD_CLEAN=1: then read another 512 MiB, leaving no dirty line in L2 (raw/ was taken
    // without it: the memset's lines were written back by the kernel's misses).
    if (clean) read_all<<<528, 256>>>((const float4*)evict, (512u << 20) / 16, (float*)rec);
    CK(cudaDeviceSynchronize());
    spread<<<grid, block>>>(in, out, n, rec);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<long long> lat, bar, blockspread;
    for (size_t w = 0; w < warps; w++) { lat.push_back(h[w * 4 + 1]); bar.push_back(h[w * 4 + 2]); }
    for (size_t b = 0; b < blocks; b++) {
      long long lo = 1LL << 62, hi = 0;
      for (int k = 0; k < 8; k++) { lo = std::min(lo, h[(b * 8 + k) * 4 + 1]); hi = std::max(hi, h[(b * 8 + k) * 4 + 1]); }
      blockspread.push_back(hi - lo);
    }
    double mean = 0; for (auto x : lat) mean += x; mean /= lat.size();
    printf("N=%d run %d warps %zu | load latency (4 loads of a warp, t1-t0): mean %.0f p10 %lld p50 %lld p90 %lld p99 %lld max %lld"
           " | barrier wait: p10 %lld p50 %lld p90 %lld max %lld | block max-min latency: p10 %lld p50 %lld p90 %lld\n",
           n, run, warps, mean, q(lat, .1), q(lat, .5), q(lat, .9), q(lat, .99), q(lat, 1.0),
           q(bar, .1), q(bar, .5), q(bar, .9), q(bar, 1.0), q(blockspread, .1), q(blockspread, .5), q(blockspread, .9));
    if (argc > 2 && run == 2) {
      FILE* f = fopen(argv[2], "w");
      fprintf(f, "block,warp,sm,t0,load_latency,barrier_wait\n");
      for (size_t w = 0; w < warps; w++)
        fprintf(f, "%zu,%zu,%lld,%lld,%lld,%lld\n", w / 8, w % 8, h[w * 4 + 3], h[w * 4 + 0], h[w * 4 + 1], h[w * 4 + 2]);
      fclose(f);
    }
  }
  return 0;
}
