// Global memory under load.
//
// chase: every warp follows its own random cycle through "lines" of 32 words (128 bytes);
// each hop is one coalesced warp load (4 sectors, ld.global.cg = L2, or plain = L1 allowed)
// whose value, the same in all 32 words, is the next line. G blocks x W warps chase at once;
// cycles per hop (clock64 of each warp) is the load latency under that much load. Footprint
// 16 MiB (L2-resident after a warm pass) or 1 GiB (misses L2: DRAM). Pass 0 of the 16 MiB run
// is the cold first touch (it follows a 256 MiB flush).
//
// stream: K blocks of 1024 threads (one per SM) read (or write) 32 MiB each with 16-byte
// accesses, 4 in flight per thread; timed with events -> bytes per SM per cycle at ~1.98 GHz.
//
// Usage: gmem OUTFILE
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}

template <bool CG>
__global__ void chase(const unsigned* lines, unsigned nlines, int hops, int passes, long long* cyc, unsigned* sink,
                      int restart) {
  int lane = threadIdx.x & 31;
  unsigned gw = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  unsigned start = (gw * 2654435761u) % nlines, p = start;
  long long t = 0;
  for (int pass = 0; pass < passes; pass++) {
    if (restart) p = start;  // restart: passes 1.. revisit the lines of pass 0 (cache hits)
    long long t0 = clk64();
    for (int h = 0; h < hops; h++) {
      const unsigned* a = lines + (size_t)p * 32 + lane;
      if (CG) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(a) : "memory");
      else asm volatile("ld.global.u32 %0, [%1];" : "=r"(p) : "l"(a) : "memory");
    }
    t = clk64() - t0;
    if (lane == 0) cyc[(size_t)pass * gridDim.x * blockDim.x / 32 + gw] = t;
  }
  if (p == 0xffffffffu) sink[0] = p;
}

template <int U>
__global__ void stream_read(const int4* buf, size_t per_block, unsigned* sink) {
  const int4* b = buf + (size_t)blockIdx.x * per_block;
  int4 acc = make_int4(0, 0, 0, 0);
  for (size_t i = threadIdx.x; i < per_block; i += U * blockDim.x) {
    int4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = __ldcg(b + i + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; u++) { acc.x ^= v[u].x; acc.y ^= v[u].y; acc.z ^= v[u].z; acc.w ^= v[u].w; }
  }
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x7654321) sink[0] = 1;
}

// 4-byte loads, 128 contiguous bytes per warp instruction (the transposes' global pattern)
template <int U>
__global__ void stream_read4(const unsigned* buf, size_t per_block, unsigned* sink) {
  const unsigned* b = buf + (size_t)blockIdx.x * per_block;
  unsigned acc = 0;
  for (size_t i = threadIdx.x; i < per_block; i += U * blockDim.x) {
    unsigned v[U];
#pragma unroll
    for (int u = 0; u < U; u++) v[u] = __ldcg(b + i + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; u++) acc ^= v[u];
  }
  if (acc == 0x7654321) sink[0] = 1;
}

__global__ void stream_write(int4* buf, size_t per_block) {
  int4* b = buf + (size_t)blockIdx.x * per_block;
  for (size_t i = threadIdx.x; i < per_block; i += blockDim.x) b[i] = make_int4(i, 1, 2, 3);
}

__global__ void flush(int4* buf, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    buf[i] = make_int4(i, 0, 0, 0);
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: gmem OUT\n"); return 2; }
  FILE* o = fopen(argv[1], "w");
  int clock_khz; CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  fprintf(o, "# attribute clock rate %d kHz\n", clock_khz);
  unsigned* sink; CK(cudaMalloc(&sink, 64));
  int4* fl; size_t fln = (size_t)256 << 20 >> 4; CK(cudaMalloc(&fl, fln * 16));
  // --- chase ---
  fprintf(o, "chase\tfootprint_KiB\tload\tblocks\twarps_per_block\tpass\thops\tmean_cycles_per_hop\tmin\tmax\n");
  for (size_t kib : {(size_t)64, (size_t)16 << 10, (size_t)1 << 20}) {
    size_t mib = kib >> 10;
    unsigned nlines = (unsigned)(kib << 10 >> 7);
    std::vector<unsigned> perm(nlines), h(nlines * 32);
    for (unsigned i = 0; i < nlines; i++) perm[i] = i;
    std::mt19937 rng(42);
    std::shuffle(perm.begin(), perm.end(), rng);
    for (unsigned i = 0; i < nlines; i++) {
      unsigned nx = perm[(i + 1) % nlines];
      for (int l = 0; l < 32; l++) h[(size_t)perm[i] * 32 + l] = nx;
    }
    unsigned* lines; CK(cudaMalloc(&lines, (size_t)nlines * 128));
    CK(cudaMemcpy(lines, h.data(), (size_t)nlines * 128, cudaMemcpyHostToDevice));
    struct { int g, w; } loads[] = {{1, 1}, {1, 4}, {1, 16}, {1, 32}, {132, 1}, {132, 4}, {132, 16}, {132, 32}, {264, 32}};
    for (int cg = 1; cg >= 0; cg--) for (auto L : loads) {
      if (!cg && mib > 16) continue;
      if (kib == 64 && (cg || L.g > 1)) continue;  // L1-resident footprint: plain loads, one SM
      int hops = mib > 16 ? 64 : 256, passes = 3, restart = mib <= 16;
      long long* cyc; size_t nw = (size_t)L.g * L.w;
      CK(cudaMalloc(&cyc, nw * passes * 8));
      flush<<<264, 1024>>>(fl, fln); CK(cudaDeviceSynchronize());
      if (cg) chase<true><<<L.g, 32 * L.w>>>(lines, nlines, hops, passes, cyc, sink, restart);
      else chase<false><<<L.g, 32 * L.w>>>(lines, nlines, hops, passes, cyc, sink, restart);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      std::vector<long long> c(nw * passes);
      CK(cudaMemcpy(c.data(), cyc, nw * passes * 8, cudaMemcpyDeviceToHost));
      for (int p = 0; p < passes; p++) {
        double s = 0, mn = 1e18, mx = 0;
        for (size_t i = 0; i < nw; i++) { double v = c[p * nw + i] / (double)hops; s += v; mn = std::min(mn, v); mx = std::max(mx, v); }
        fprintf(o, "chase\t%zu\t%s\t%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.1f\n", kib, cg ? "cg" : "ca", L.g, L.w, p, hops, s / nw, mn, mx);
      }
      CK(cudaFree(cyc));
    }
    CK(cudaFree(lines));
  }
  // --- stream ---
  size_t per_block = (size_t)32 << 20 >> 4;  // int4 per block
  int4* buf; size_t nb = 132; CK(cudaMalloc(&buf, nb * per_block * 16));
  CK(cudaMemset(buf, 3, nb * per_block * 16));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  fprintf(o, "stream\tkind\tblocks\tthreads\tbytes_in_flight_per_SM\tbytes\tms\tGB_per_s\tbytes_per_cycle_per_SM_at_1980MHz\n");
  struct { const char* kind; int threads, u, width; } vs[] = {
    {"read16", 1024, 1, 16}, {"read16", 1024, 2, 16}, {"read16", 1024, 4, 16}, {"read16", 1024, 8, 16},
    {"read16", 256, 4, 16}, {"read4", 1024, 4, 4}, {"read4", 1024, 8, 4}, {"read4", 256, 4, 4}, {"write16", 1024, 1, 16}};
  for (auto& v : vs) for (int k : {1, 8, 33, 66, 132}) {
    float best = 1e9;
    for (int r = 0; r < 3; r++) {
      flush<<<264, 1024>>>(fl, fln);
      CK(cudaEventRecord(e0));
      if (v.width == 4) {
        size_t pb = per_block * 4;
        if (v.u == 4) stream_read4<4><<<k, v.threads>>>((const unsigned*)buf, pb, sink);
        else stream_read4<8><<<k, v.threads>>>((const unsigned*)buf, pb, sink);
      } else if (v.kind[0] == 'w') stream_write<<<k, v.threads>>>(buf, per_block);
      else if (v.u == 1) stream_read<1><<<k, v.threads>>>(buf, per_block, sink);
      else if (v.u == 2) stream_read<2><<<k, v.threads>>>(buf, per_block, sink);
      else if (v.u == 4) stream_read<4><<<k, v.threads>>>(buf, per_block, sink);
      else stream_read<8><<<k, v.threads>>>(buf, per_block, sink);
      CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaGetLastError());
      float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); best = std::min(best, ms);
    }
    double bytes = (double)k * per_block * 16;
    fprintf(o, "stream\t%s\t%d\t%d\t%d\t%.0f\t%.4f\t%.1f\t%.2f\n", v.kind, k, v.threads, v.threads * v.u * v.width,
            bytes, best, bytes / best / 1e6, bytes / (best * 1e-3) / 1.98e9 / k);
  }
  fclose(o);
  printf("gmem: done\n");
  return 0;
}
