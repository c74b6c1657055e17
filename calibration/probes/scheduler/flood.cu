// calibration/probes/scheduler/flood.cu: what a flood of 32-way conflicted shared loads does to other warps'
// memory instructions. One block per SM of 16 warps: warps 0-7 (two per sub-partition) flood the
// shared pipe (FLOOD conflicted LDS each, 32 wavefronts apiece) after spinning SPIN cycles; warps
// 8-15 meanwhile time, from one clock read to the next:
//   t1 - t0  a global load issued before the flood starts, its data consumed by an FADD (L2 hit
//            with ld.global.cg, or L1 hit with ld.global.ca after warming the line);
//   t2 - t1  a shared store issued during the flood (issue only: the clock after it does not wait);
//   t3 - t2  4 dependent one-wavefront shared loads;
//   t4 - t3  a global load issued during the flood, its data consumed.
// With FLOOD = 0 the same times without the flood; swap = 1: the flood on warps 8-15, timed 0-7;
// DRAM: the first load misses a cold L2. delay: the timed warps spin that many cycles first (1000: well inside the flood; with 0 the
// first three timings fall in its first ~150 cycles, before the queue has filled). Output: one line per timed warp of block 0.
// `flood dram`: only the DRAM lines, for floods of 8-, 16- and 32-way conflicted loads (WAYS
// wavefronts each; the lines of the earlier runs are those of 32), written after the rule of
// section 18 was fixed, as its check (raw/flood5.txt). `flood dram_ca`: the 32-way DRAM lines
// loaded with ld.global.ca (allocating in L1) and with .cg (not), 5 reps each (raw/flood6.txt).
// `flood dram_w2`: the 32-way DRAM lines, each timed warp loading 8 bytes a lane (2 lines,
// ld.global.cg.v2.f32) instead of 4, 5 reps (raw/flood7.txt).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ float ldcg(const float* p) { float v; asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ float ldca(const float* p) { float v; asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }

__device__ __forceinline__ float ldcg2(const float* p) { float a, b; asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "l"(p) : "memory"); return a + b; }

template <bool L1>
__global__ void flood(const float* g, float* out, long long* rec, int nflood, int spin, int swap, int delay, int ways = 32, int warmup = 1, int wide = 0) {
  __shared__ volatile float s[32 * 33];
  __shared__ volatile int chain[64];
  int lane = threadIdx.x & 31, w = (threadIdx.x >> 5) ^ (swap ? 8 : 0);  // swap: the flood on warps 8-15
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = i;
  if (threadIdx.x < 64) chain[threadIdx.x] = (threadIdx.x + 1) & 63;
  const float* p = g + blockIdx.x * 4096 + (w - 8) * 64 + lane;  // a line per timed warp
  float warm = 0;
  if (L1 && warmup && w >= 8) warm = ldca(p) + ldca(p + 32);
  __syncthreads();
  float acc = warm;
  if (w < 8) {
    long long t = clock64();
    while (clock64() - t < spin) {}
    for (int i = 0; i < nflood; i++) acc += s[(lane & (ways - 1)) * 32 + (i & 31)];  // one column: `ways`-way
  } else {
    long long td = clock64();
    while (clock64() - td < delay) {}
    long long t0 = clock64();
    float v = wide ? ldcg2(g + blockIdx.x * 4096 + (w - 8) * 64 * 2 + lane * 2) : L1 ? ldca(p) : ldcg(p);
    acc += v;  // waits for the load
    long long t1 = clock64();
    s[lane * 33 + w] = acc;  // a shared store (conflict-free)
    long long t2 = clock64();
    int k = lane & 7;
    for (int j = 0; j < 4; j++) k = chain[k];
    long long t3 = clock64();
    float v2 = L1 ? ldca(p + 32 + k - (k & 63)) : ldcg(p + 32 + k - (k & 63));
    acc += v2;
    long long t4 = clock64();
    if (lane == 0) { long long* r = rec + (blockIdx.x * 8 + w - 8) * 5; r[0] = t0; r[1] = t1; r[2] = t2; r[3] = t3; r[4] = t4; }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char** argv) {
  bool dram_only = argc > 1 && argv[1][0] == 'd';
  bool dram_ca = dram_only && argv[1][4] == '_' && argv[1][5] == 'c';
  bool dram_w2 = dram_only && argv[1][4] == '_' && argv[1][5] == 'w';
  float *g, *out; long long* rec;
  CK(cudaMalloc(&g, 132 * 4096 * 4)); CK(cudaMalloc(&out, 132 * 512 * 4)); CK(cudaMalloc(&rec, 132 * 8 * 5 * 8));
  CK(cudaMemset(g, 0, 132 * 4096 * 4));
  long long h[8 * 5];
  for (int rep = 0; rep < (dram_only ? 0 : 3); rep++)
    for (int l1 = 0; l1 < 2; l1++)
      for (int nflood : {0, 64})
      for (int swap = 0; swap < 2; swap++)
      for (int delay : {0, 1000}) {
        for (int warmup = 0; warmup < 2; warmup++) {  // the second launch finds g in L2
          if (l1) flood<true><<<132, 512>>>(g, out, rec, nflood, 200, swap, delay);
          else flood<false><<<132, 512>>>(g, out, rec, nflood, 200, swap, delay);
          CK(cudaDeviceSynchronize());
        }
        CK(cudaMemcpy(h, rec, sizeof h, cudaMemcpyDeviceToHost));
        for (int w = 0; w < 8; w++) {
          long long* r = h + w * 5;
          printf("rep %d %s flood %d swap %d delay %d warp %d load %lld sts %lld lds4 %lld load2 %lld\n", rep, l1 ? "L1" : "L2", nflood, swap, delay, swap ? w : w + 8,
                 r[1] - r[0], r[2] - r[1], r[3] - r[2], r[4] - r[3]);
        }
      }
  // The first load from DRAM (a cold L2: a 256 MiB memset first), issued before the flood and
  // coming back ~700 cycles later, well inside it.
  char* flush; CK(cudaMalloc(&flush, 256 << 20));
  if (dram_w2) {
    for (int rep = 0; rep < 5; rep++)
      for (int nflood : {0, 64}) {
        CK(cudaMemset(flush, rep, 256 << 20));
        flood<false><<<132, 512>>>(g, out, rec, nflood, 200, 0, 0, 32, 0, 1);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, rec, sizeof h, cudaMemcpyDeviceToHost));
        for (int w = 0; w < 8; w++) {
          long long* r = h + w * 5;
          printf("w2 rep %d DRAM flood %d swap 0 delay 0 warp %d load %lld sts %lld lds4 %lld load2 %lld\n", rep, nflood, w + 8,
                 r[1] - r[0], r[2] - r[1], r[3] - r[2], r[4] - r[3]);
        }
      }
    return 0;
  }
  if (dram_ca) {
    for (int rep = 0; rep < 5; rep++)
      for (int ca = 0; ca < 2; ca++)
        for (int nflood : {0, 64}) {
          CK(cudaMemset(flush, rep, 256 << 20));
          if (ca) flood<true><<<132, 512>>>(g, out, rec, nflood, 200, 0, 0, 32, 0);
          else flood<false><<<132, 512>>>(g, out, rec, nflood, 200, 0, 0, 32, 0);
          CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(h, rec, sizeof h, cudaMemcpyDeviceToHost));
          for (int w = 0; w < 8; w++) {
            long long* r = h + w * 5;
            printf("%s rep %d DRAM flood %d swap 0 delay 0 warp %d load %lld sts %lld lds4 %lld load2 %lld\n", ca ? "ca" : "cg", rep, nflood, w + 8,
                   r[1] - r[0], r[2] - r[1], r[3] - r[2], r[4] - r[3]);
          }
        }
    return 0;
  }
  for (int ways : {32, 16, 8}) {
    if (!dram_only && ways != 32) break;
    for (int rep = 0; rep < (dram_only ? 5 : 3); rep++)
      for (int nflood : {0, 64}) {
        CK(cudaMemset(flush, rep, 256 << 20));
        flood<false><<<132, 512>>>(g, out, rec, nflood, 200, 0, 0, ways);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h, rec, sizeof h, cudaMemcpyDeviceToHost));
        for (int w = 0; w < 8; w++) {
          long long* r = h + w * 5;
          if (dram_only) printf("ways %d ", ways);
          printf("rep %d DRAM flood %d swap 0 delay 0 warp %d load %lld sts %lld lds4 %lld load2 %lld\n", rep, nflood, w + 8,
                 r[1] - r[0], r[2] - r[1], r[3] - r[2], r[4] - r[3]);
        }
      }
  }
  return 0;
}
