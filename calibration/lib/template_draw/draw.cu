// The template draws (written for draw4): runs the launches of a draw's launches.tsv (kernels.cu's
// templates at random N, drawn by draw.py after the DRAM-channel rule was fixed) for ncu, and
// `stamp`: the padded transpose with per-warp clock64 stamps, L2 clean (written, then evicted by
// reading another buffer), to see the spread of DRAM latency within a block under ncu-like conditions.
//
// Usage: draw launches.tsv          (labels to stderr, "LAUNCH i name grid block")
//        draw stamp N raw.csv       (3 launches; the last one's rows to raw.csv)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "../../draws/whole_kernels/kernels.cu"

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void fill_rand(float* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = (float)(h & 0xffffff) / 16777216.0f;
  }
}
__global__ void read_all(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;
}

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
__device__ __forceinline__ unsigned smid() {
  unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s;
}
// transpose<1, false> of kernels.cu with stamps: t0 before the loads, t1 once the 4 shared
// stores (which wait for the loads' data) have issued, t2 at the end (stores issued).
__global__ void stamp(const float* in, float* out, int n, long long* rec) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  long long t0 = clk64();
#pragma unroll
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
  long long t1 = clk64();
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
  for (int j = 0; j < 32; j += 8) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  long long t2 = clk64();
  if (threadIdx.x == 0) {
    size_t w = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * 8 + threadIdx.y;
    rec[w * 4 + 0] = t0; rec[w * 4 + 1] = t1 - t0; rec[w * 4 + 2] = t2 - t1; rec[w * 4 + 3] = smid();
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

static long long q(std::vector<long long> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, (size_t)(p * (v.size() - 1)))];
}

static int run_stamp(int n, const char* path) {
  size_t elems = (size_t)n * n, blocks = elems / 1024, warps = blocks * 8, big = (size_t)512 << 20;
  long long* rec; float *flush, *evict, *sink;
  CK(cudaMalloc(&rec, warps * 32)); CK(cudaMalloc(&flush, big)); CK(cudaMalloc(&evict, big));
  CK(cudaMalloc(&sink, 4)); CK(cudaMemset(evict, 0, big));
  std::vector<long long> h(warps * 4);
  for (int run = 0; run < 3; run++) {
    CK(cudaMemset(flush, run, big));                       // the L2 holds none of A ...
    read_all<<<528, 256>>>((const float4*)evict, big / 16, sink);  // ... and no dirty lines
    CK(cudaDeviceSynchronize());
    stamp<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(A, B, n, rec);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
    std::vector<long long> lat, wait;
    for (size_t b = 0; b < blocks; b++) {
      long long last = 0;
      for (int k = 0; k < 8; k++) last = std::max(last, h[(b * 8 + k) * 4] + h[(b * 8 + k) * 4 + 1]);
      for (int k = 0; k < 8; k++) {
        lat.push_back(h[(b * 8 + k) * 4 + 1]);
        wait.push_back(last - h[(b * 8 + k) * 4] - h[(b * 8 + k) * 4 + 1]);
      }
    }
    double mw = 0; for (auto x : wait) mw += x; mw /= wait.size();
    printf("stamp N=%d run %d: loads+STS t1-t0 p10 %lld p50 %lld p90 %lld | wait for the block's last warp mean %.0f p50 %lld p90 %lld\n",
           n, run, q(lat, .1), q(lat, .5), q(lat, .9), mw, q(wait, .5), q(wait, .9));
    if (run == 2 && path) {
      FILE* f = fopen(path, "w");
      fprintf(f, "block,warp,sm,t0,load_latency,rest\n");
      for (size_t w = 0; w < warps; w++)
        fprintf(f, "%zu,%zu,%lld,%lld,%lld,%lld\n", w / 8, w % 8, h[w * 4 + 3], h[w * 4], h[w * 4 + 1], h[w * 4 + 2]);
      fclose(f);
    }
  }
  CK(cudaFree(rec)); CK(cudaFree(flush)); CK(cudaFree(evict)); CK(cudaFree(sink));
  return 0;
}

int main(int argc, char** argv) {
  size_t words = (size_t)4096 * 4096 * 2;  // 128 MiB each
  CK(cudaMalloc(&A, words * 4)); CK(cudaMalloc(&B, words * 4)); CK(cudaMalloc(&C, words * 4));
  fill_rand<<<528, 256>>>(A, words, 1); fill_rand<<<528, 256>>>(B, words, 2);
  CK(cudaMemset(C, 0, words * 4)); CK(cudaDeviceSynchronize());
  if (argc > 2 && !strcmp(argv[1], "stamp")) return run_stamp(atoi(argv[2]), argc > 3 ? argv[3] : nullptr);
  FILE* f = fopen(argc > 1 ? argv[1] : "launches.tsv", "r");
  if (!f) { fprintf(stderr, "no launches file\n"); return 1; }
  char name[128], tpl[32]; int n, regs;
  char line[256]; fgets(line, sizeof line, f);  // header
  while (fscanf(f, "%127s %31s %d %d", name, tpl, &n, &regs) == 4) {
    std::string t = tpl;
    if (t == "tr00") tr<0, false>(name, n);
    else if (t == "tr10") tr<1, false>(name, n);
    else if (t == "tr01") tr<0, true>(name, n);
    else if (t == "t64_0") t64<0>(name, n);
    else if (t == "t64_1") t64<1>(name, n);
    else if (t == "mm16_0_0") mm<16, 0, false>(name, n);
    else if (t == "mm16_0_1") mm<16, 0, true>(name, n);
    else if (t == "mm32_0_0") mm<32, 0, false>(name, n);
    else if (t == "mm32_1_1") mm<32, 1, true>(name, n);
    else if (t == "sg0") sg<0>(name, n);
    else if (t == "sg4") sg<4>(name, n);
    else { fprintf(stderr, "unknown template %s\n", tpl); return 1; }
  }
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "draw: %d launches done\n", nlaunch);
  return 0;
}
