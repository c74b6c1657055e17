// Per-request latency of global loads, one hop at a time: is a DRAM read's latency a constant
// plus queueing, or does it vary from request to request even when DRAM is idle?
//
// Every warp chases its own random chain of 128-byte lines (one coalesced ld.global.cg per
// hop, 4 sectors; the line's words hold the next line's index). After each hop lane 0 stores
// the loaded index to shared memory (the store waits for the load) and reads clock64, so the
// difference of consecutive stamps is one hop: the load's latency plus ~20 cycles of address
// arithmetic, store and clock read (a pass over L1-resident lines gives that overhead).
//
// The buffer is 1 GiB of 2 MiB pages. Before the timed launch a TLB warm-up kernel reads the
// first line of every 2 MiB page; chains never visit the first 64 KiB of a page, so the
// warm-up brings no chain line into L2. Pass 0 of a chain is the cold first touch (DRAM);
// pass 1 revisits the same lines (L2 hits). Chains of different warps are disjoint.
//
// Configurations (G blocks x W warps): 1x1 (one warp in the GPU), 132x1 (one per SM),
// 64x8 (the N=256 transpose's 64 blocks of 8 warps), 132x32 (a loaded GPU). As run on
// 2026-12-02, 132x32 did not launch (1,024 threads with the 48 stamps in registers exceed the
// register file, and the launch is not checked): its rows in raw/ are stale, analyze.py drops them.
// Output: one line per (config, warp, pass, hop): cycles.
// Usage: dramlat OUTFILE [REGION_MIB]
//   REGION_MIB (second call, 2026-12-02): chains draw their lines from the first REGION_MIB
//   MiB of the buffer only, and only the idle configurations (1x1, 132x1) run: does the spread
//   of a read depend on how far apart the reads are (the TLB), or is it the DRAM's own?
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int HOPS = 48;
constexpr size_t LINE_WORDS = 32;
constexpr size_t PAGE_LINES = (2u << 20) / 128;  // 16,384 lines of 128 B in a 2 MiB page
constexpr size_t SKIP_LINES = (64u << 10) / 128; // the first 64 KiB of a page: TLB warm-up only

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}

__global__ void tlb_warm(const unsigned* buf, size_t pages, unsigned* sink) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < pages) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(buf + i * PAGE_LINES * LINE_WORDS) : "memory");
    if (v == 0xdeadbeefu) sink[0] = v;
  }
}

// starts[gw]: the first line of warp gw's chain; out[(pass * warps + gw) * HOPS + h]: cycles of hop h
__global__ void chase(const unsigned* buf, const unsigned* starts, long long* out, unsigned* sink) {
  __shared__ unsigned keep[32][HOPS];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned warps = gridDim.x * blockDim.x / 32;
  long long st[HOPS];
  for (int pass = 0; pass < 2; pass++) {
    unsigned p = starts[gw];
    long long t0 = clk64();
#pragma unroll
    for (int h = 0; h < HOPS; h++) {
      const unsigned* a = buf + (size_t)p * LINE_WORDS + lane;
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(a) : "memory");
      if (lane == 0) keep[w][h] = p;  // waits for the load
      st[h] = clk64();
    }
    if (lane == 0) {
      long long prev = t0;
#pragma unroll
      for (int h = 0; h < HOPS; h++) {
        out[((size_t)pass * warps + gw) * HOPS + h] = st[h] - prev;
        prev = st[h];
      }
    }
    __syncwarp();
  }
  if (keep[w][0] == 0xffffffffu) sink[0] = 1;
}

__global__ void read_all(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;
}

int main(int argc, char** argv) {
  const bool clean = getenv("DRAMLAT_CLEAN") && getenv("DRAMLAT_CLEAN")[0] == '1';
  if (argc < 2) { fprintf(stderr, "usage: dramlat OUTFILE [REGION_MIB]\n"); return 1; }
  const size_t region = argc > 2 ? (size_t)atoi(argv[2]) << 20 : (1ull << 30);
  FILE* f = fopen(argv[1], "w");
  const size_t bytes = 1ull << 30, pages = bytes >> 21;
  unsigned *buf, *sink, *starts;
  long long* out;
  CK(cudaMalloc(&buf, bytes));
  CK(cudaMalloc(&sink, 64));
  CK(cudaMalloc(&starts, 8192 * 4));
  CK(cudaMalloc(&out, (size_t)2 * 8192 * HOPS * 8));
  std::vector<unsigned> host(bytes / 4, 0);
  struct Cfg { int g, w; } all[] = {{1, 1}, {132, 1}, {64, 8}, {132, 32}};
  const int ncfg = argc > 2 ? 2 : 4;
  std::mt19937_64 rng(20261202);
  fprintf(f, "config\twarp\tpass\thop\tcycles\n");
  for (int ci = 0; ci < ncfg; ci++) {
    Cfg c = all[ci];
    int warps = c.g * c.w;
    // Each warp's chain: HOPS distinct random lines, none in the first 64 KiB of a page, no
    // line used by another warp or another configuration (fresh lines: cold in L2).
    std::vector<unsigned> st(warps);
    static std::vector<char> used(bytes / 128, 0);
    std::uniform_int_distribution<size_t> pick(0, region / 128 - 1);
    for (int gw = 0; gw < warps; gw++) {
      std::vector<size_t> chain;
      while ((int)chain.size() < HOPS + 1) {
        size_t l = pick(rng);
        if (l % PAGE_LINES < SKIP_LINES || used[l]) continue;
        used[l] = 1; chain.push_back(l);
      }
      for (int h = 0; h < HOPS; h++)
        for (size_t k = 0; k < LINE_WORDS; k++) host[chain[h] * LINE_WORDS + k] = (unsigned)chain[h + 1];
      st[gw] = (unsigned)chain[0];
    }
    CK(cudaMemcpy(buf, host.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(starts, st.data(), warps * 4, cudaMemcpyHostToDevice));
    if (argc > 2) std::fill(used.begin(), used.end(), 0);  // each configuration its own fresh lines
    // Empty the L2 of the chains' lines: write a 256 MiB buffer elsewhere (not the chain buffer).
    void* flush; CK(cudaMalloc(&flush, 256u << 20)); CK(cudaMemset(flush, c.g, 256u << 20));
    CK(cudaDeviceSynchronize()); CK(cudaFree(flush));
    // DRAMLAT_CLEAN=1: then fill the L2 with clean lines of another buffer (written, a second
    // 256 MiB written over it, then read), so that it holds no dirty line (the memsets' and the
    // chain copy's would otherwise be written back by the chase's misses; ncu's cache control
    // leaves none either). raw/ and raw2/ were taken without it.
    if (clean) {
      float* ev; CK(cudaMalloc(&ev, 256u << 20)); CK(cudaMemset(ev, 0, 256u << 20));
      CK(cudaDeviceSynchronize());
      void* f2; CK(cudaMalloc(&f2, 256u << 20)); CK(cudaMemset(f2, 1, 256u << 20)); CK(cudaDeviceSynchronize());
      read_all<<<528, 256>>>((const float4*)ev, (256u << 20) / 16, (float*)sink);
      CK(cudaDeviceSynchronize()); CK(cudaFree(ev)); CK(cudaFree(f2));
    }
    tlb_warm<<<(pages + 255) / 256, 256>>>(buf, pages, sink);
    chase<<<c.g, 32 * c.w>>>(buf, starts, out, sink);
    CK(cudaDeviceSynchronize());
    std::vector<long long> h((size_t)2 * warps * HOPS);
    CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
    for (int pass = 0; pass < 2; pass++)
      for (int gw = 0; gw < warps; gw++)
        for (int k = 0; k < HOPS; k++)
          fprintf(f, "%dx%d\t%d\t%d\t%d\t%lld\n", c.g, c.w, gw, pass, k, h[((size_t)pass * warps + gw) * HOPS + k]);
  }
  fclose(f);
  return 0;
}
