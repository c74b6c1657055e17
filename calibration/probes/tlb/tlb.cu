// First-touch latency of global loads at kernel start, by 2 MiB region: does a kernel's first
// load of each region cost more than its later loads of new lines there (a TLB miss)?
//
// One warp of one block follows a fixed list of byte offsets into a 64 MiB buffer (32 regions
// of 2 MiB) with dependent `ld.global.cg` loads (L2, not L1; the loaded word is 0 and is added
// to the next address, so each load waits for the last) and clock64 around each: lat[i] is load
// i's latency. Every offset is a line never loaded before in that launch; a launch's `shift`
// (a multiple of 256 bytes) moves all offsets so that repeated launches read new lines too.
// Run under Nsight Compute (--cache-control all: caches flushed before the kernel, as in every
// whole-kernel measurement here) and plainly, back to back.
//
// Usage: tlb MODE   (MODE "ncu": 3 launches for ncu; "plain": 3 launches, printed;
//                   "sms": 2 launches of probe_sms, 132 blocks, printed)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

#define MB (1u << 20)
#define KB (1u << 10)
// (region of 2 MiB, offset in it): labels for the printout.
__constant__ unsigned OFF[24] = {
    0 * 2 * MB + 0,         0 * 2 * MB + 1 * KB,    0 * 2 * MB + 64 * KB,  0 * 2 * MB + 1 * MB,
    1 * 2 * MB + 0,         1 * 2 * MB + 4 * KB,    2 * 2 * MB + 0,        2 * 2 * MB + 64 * KB,
    3 * 2 * MB + 0,         3 * 2 * MB + 1 * MB,    8 * 2 * MB + 0,        8 * 2 * MB + 2 * KB,
    0 * 2 * MB + 512 * KB,  16 * 2 * MB + 0,        16 * 2 * MB + 32 * KB, 31 * 2 * MB + 0,
    0 * 2 * MB + 1536 * KB, 1 * 2 * MB + 1 * MB,   2 * 2 * MB + 1 * MB,   31 * 2 * MB + 1 * MB,
    4 * 2 * MB + 0,         4 * 2 * MB + 128 * KB,  5 * 2 * MB + 0,        5 * 2 * MB + 1 * MB};
static const char* LABEL[24] = {
    "r0+0 (first load)", "r0+1K", "r0+64K", "r0+1M", "r1+0 (new region)", "r1+4K", "r2+0 (new)", "r2+64K",
    "r3+0 (new)", "r3+1M", "r8+0 (new)", "r8+2K", "r0+512K", "r16+0 (new)", "r16+32K", "r31+0 (new)",
    "r0+1.5M", "r1+1M", "r2+1M", "r31+1M", "r4+0 (new)", "r4+128K", "r5+0 (new)", "r5+1M"};

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}

__global__ void probe(const char* buf, unsigned shift, long long* lat) {
  unsigned v = 0;
  for (int i = 0; i < 24; i++) {
    const unsigned* a = (const unsigned*)(buf + OFF[i] + shift + v) + (threadIdx.x & 31);
    long long t0 = clk64();
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    v &= 0x7fffffff;  // 0: the next address waits for this load
    asm volatile("" :: "r"(v));
    long long t1 = clk64() + v;
    if (threadIdx.x == 0) lat[i] = t1 - t0;
  }
}

// Every block (one warp) makes 4 dependent loads of new lines in its own 256 KiB stripe
// (+0, +1 KiB, +8 KiB, +16 KiB) and records their latencies and its SM: is the first load of
// a kernel slow on every SM, or only on the first?
__global__ void probe_sms(const char* buf, long long* lat, unsigned* sm) {
  unsigned v = 0;
  const unsigned off[4] = {0, 1 * KB, 8 * KB, 16 * KB};
  for (int i = 0; i < 4; i++) {
    const unsigned* a = (const unsigned*)(buf + blockIdx.x * 256 * KB + off[i] + v) + (threadIdx.x & 31);
    long long t0 = clk64();
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    v &= 0x7fffffff;
    asm volatile("" :: "r"(v));
    long long t1 = clk64() + v;
    if (threadIdx.x == 0) lat[blockIdx.x * 4 + i] = t1 - t0;
  }
  if (threadIdx.x == 0) {
    unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); sm[blockIdx.x] = s + (v & 1);
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "sms")) {
    char* buf; long long* lat; unsigned* sm;
    CK(cudaMalloc(&buf, 132 * 256 * KB + 64 * KB));
    CK(cudaMemset(buf, 0, 132 * 256 * KB + 64 * KB));
    CK(cudaMalloc(&lat, 132 * 4 * sizeof(long long))); CK(cudaMalloc(&sm, 132 * 4));
    for (int run = 0; run < 2; run++) {
      probe_sms<<<132, 32>>>(buf, lat, sm);
      CK(cudaDeviceSynchronize());
      long long h[132 * 4]; unsigned hs[132];
      CK(cudaMemcpy(h, lat, sizeof h, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(hs, sm, sizeof hs, cudaMemcpyDeviceToHost));
      printf("launch %d: block sm lat0 lat1 lat2 lat3\n", run);
      for (int b = 0; b < 132; b++) printf("  %3d %3u %lld %lld %lld %lld\n", b, hs[b], h[b * 4], h[b * 4 + 1], h[b * 4 + 2], h[b * 4 + 3]);
    }
    return 0;
  }
  bool ncu = argc > 1 && !strcmp(argv[1], "ncu");
  char* buf; long long* lat;
  CK(cudaMalloc(&buf, 64 * MB + 64 * KB));
  CK(cudaMemset(buf, 0, 64 * MB + 64 * KB));
  CK(cudaMalloc(&lat, 24 * sizeof(long long)));
  CK(cudaDeviceSynchronize());
  for (int run = 0; run < 3; run++) {
    probe<<<1, 32>>>(buf, run * 256 + (ncu ? 0 : 4096), lat);
    CK(cudaDeviceSynchronize());
    long long h[24];
    CK(cudaMemcpy(h, lat, sizeof h, cudaMemcpyDeviceToHost));
    printf("launch %d (%s)\n", run, ncu ? "under ncu" : "plain");
    for (int i = 0; i < 24; i++) printf("  %2d %-20s %lld\n", i, LABEL[i], h[i]);
  }
  return 0;
}
