// Queue-depth probe for the shared-memory (MIO) and global (LSU) instruction queues of an SM.
//
// Each of W warps of one block issues N = 48 independent memory instructions back to back and
// reads the SM clock (32-bit, `%clock`) right after issuing each one. Nothing waits for the
// results until all 48 are issued, so the stamps show when each instruction could *issue*:
// while the queue has room a warp issues about one memory instruction per two cycles (the
// instruction plus the clock read); once the queue is full, one per K cycles (the pipe's rate).
// The index of the knee is the queue depth. Warp w runs on sub-partition w % 4.
//
// MODE 0 LDS (ld.volatile.shared.u32), 1 STS, 2 LDG .cg (L2: LDG.E.STRONG.GPU), 3 LDG plain (L1 hit on rep 1), 4 STG.
// K: lane l accesses word l*K (shared: a K-way bank conflict; global: a K*4-byte stride).
//
// Modes 10..14 in the output: the same as 0..4 with a 40,000-cycle pause before the recorded run,
// so that the warm-up run's stores have drained and every queue starts empty.
// Usage: queue OUTFILE            -> all modes, K and W; one line per (mode,K,W,warp): stamps
//        queue OUTFILE MODE K W   -> that configuration only (for ncu)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int N = 48;

__device__ __forceinline__ unsigned clk() {
  unsigned t; asm volatile("mov.u32 %0, %%clock;" : "=r"(t) :: "memory"); return t;
}

template <int MODE>
__device__ __forceinline__ unsigned op(unsigned saddr, const unsigned* gaddr, unsigned v) {
  unsigned r = 0;
  if (MODE == 0) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(r) : "r"(saddr) : "memory");
  if (MODE == 1) asm volatile("st.volatile.shared.u32 [%0], %1;" :: "r"(saddr), "r"(v) : "memory");
  if (MODE == 2) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(gaddr) : "memory");
  if (MODE == 3) asm volatile("ld.global.u32 %0, [%1];" : "=r"(r) : "l"(gaddr) : "memory");
  if (MODE == 4) asm volatile("st.global.u32 [%0], %1;" :: "l"(gaddr), "r"(v) : "memory");
  return r;
}

// Shared: 32*32 + N words covers lane*K + i for K <= 32. Global: lane*K + i*32*K words (each
// instruction its own lines, so no two instructions share a sector).
template <int MODE, int K, bool SPIN = false>
__global__ void __launch_bounds__(512, 1) qprobe(unsigned* g, unsigned* stamps, unsigned* sink) {
  __shared__ unsigned smem[32 * 32 + N + 32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32 + N + 32; i += blockDim.x) smem[i] = i;
  unsigned sbase = (unsigned)__cvta_generic_to_shared(&smem[lane * K]);
  const unsigned* gbase = g + lane * K;
  unsigned v[N], t[N], sv[N];
  unsigned acc = 0, t0 = 0;
  // store data in registers of their own, live to the end: a clock read never overwrites a
  // register a store has yet to read (the store reads its data operand late, see README)
#pragma unroll
  for (int i = 0; i < N; i++) sv[i] = g[i] + lane;
  for (int rep = 0; rep < 2; rep++) {  // rep 0 warms the instruction cache and the caches
    __syncthreads();
    if (SPIN && rep == 1) {  // let rep 0's stores drain: start rep 1 with empty queues
      unsigned s0 = clk();
      while (clk() - s0 < 40000u) {}
      __syncthreads();
    }
    t0 = clk();
#pragma unroll
    for (int i = 0; i < N; i++) {
      v[i] = op<MODE>(sbase + 4 * i, gbase + (size_t)i * 32 * K, SPIN ? sv[i] : i + lane);
      t[i] = clk();
    }
#pragma unroll
    for (int i = 0; i < N; i++) acc += v[i];
    __syncthreads();
  }
  unsigned tend = clk();
  if (SPIN)
#pragma unroll
    for (int i = 0; i < N; i++) acc += sv[i];
  if (lane == 0) {
    unsigned* o = stamps + warp * (N + 2);
    o[0] = t0;
#pragma unroll
    for (int i = 0; i < N; i++) o[1 + i] = t[i];
    o[N + 1] = tend;
  }
  if (acc == 0x12345678) sink[threadIdx.x] = acc;
}

// Pure issue: the same 48 instructions with no clock reads between them; stamps[warp] gets the
// cycles from before the first to after the last issue (K = 1: the queues never fill).
template <int MODE, int K>
__global__ void __launch_bounds__(512, 1) qissue(unsigned* g, unsigned* stamps, unsigned* sink) {
  __shared__ unsigned smem[32 * 32 + N + 32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32 + N + 32; i += blockDim.x) smem[i] = i;
  unsigned sbase = (unsigned)__cvta_generic_to_shared(&smem[lane * K]);
  const unsigned* gbase = g + lane * K;
  unsigned v[N];
  unsigned acc = 0, t0 = 0, t1 = 0;
  for (int rep = 0; rep < 2; rep++) {
    __syncthreads();
    t0 = clk();
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = op<MODE>(sbase + 4 * i, gbase + (size_t)i * 32 * K, i + lane);
    t1 = clk();
#pragma unroll
    for (int i = 0; i < N; i++) acc += v[i];
    __syncthreads();
  }
  if (lane == 0) { stamps[warp * 2] = t0; stamps[warp * 2 + 1] = t1; }
  if (acc == 0x12345678) sink[threadIdx.x] = acc;
}

typedef void (*kfn)(unsigned*, unsigned*, unsigned*);
struct Cfg { int mode, k; kfn f; };
#define C(M, K) {M, K, qprobe<M, K>}
#define CS(M, K) {M + 10, K, qprobe<M, K, true>}
static Cfg cfgs[] = {
  C(0, 1), C(0, 2), C(0, 4), C(0, 8), C(0, 16), C(0, 32),
  C(1, 1), C(1, 2), C(1, 4), C(1, 8), C(1, 16), C(1, 32),
  C(2, 1), C(2, 8), C(2, 32), C(3, 1), C(3, 8), C(3, 32), C(4, 1), C(4, 8), C(4, 32),
  // the same after a 40,000-cycle pause between the two runs (mode + 10): queues start empty
  CS(0, 8), CS(0, 32), CS(1, 4), CS(1, 8), CS(1, 32), CS(2, 32), CS(4, 1), CS(4, 8), CS(4, 32),
};

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: queue OUT [MODE K W]\n"); return 2; }
  unsigned *g, *stamps, *sink;
  size_t gwords = (size_t)32 * 32 * N * 2;
  CK(cudaMalloc(&g, gwords * 4)); CK(cudaMemset(g, 1, gwords * 4));
  CK(cudaMalloc(&stamps, 32 * (N + 2) * 4)); CK(cudaMalloc(&sink, 4096 * 4));
  FILE* out = fopen(argv[1], "w");
  fprintf(out, "mode\tk\tw\twarp\tt0\tstamps(64)\ttend\n");
  int ws[] = {1, 2, 4, 8, 16};
  std::vector<unsigned> h(32 * (N + 2));
  for (auto& c : cfgs) for (int w : ws) {
    if (argc == 5 && (c.mode != atoi(argv[2]) || c.k != atoi(argv[3]) || w != atoi(argv[4]))) continue;
    c.f<<<1, 32 * w>>>(g, stamps, sink);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), stamps, 32 * (N + 2) * 4, cudaMemcpyDeviceToHost));
    for (int wp = 0; wp < w; wp++) {
      fprintf(out, "%d\t%d\t%d\t%d", c.mode, c.k, w, wp);
      for (int i = 0; i < N + 2; i++) fprintf(out, "\t%u", h[wp * (N + 2) + i]);
      fprintf(out, "\n");
    }
  }
  // pure issue rate, K = 1, W = 1 and 4
  kfn is[] = {qissue<0, 1>, qissue<1, 1>, qissue<2, 1>, qissue<3, 1>, qissue<4, 1>};
  fprintf(out, "# issue\tmode\tw\twarp\tcycles_for_48\n");
  for (int m = 0; m < 5; m++) for (int w : {1, 4}) {
    if (argc == 5) break;
    is[m]<<<1, 32 * w>>>(g, stamps, sink);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), stamps, 2 * w * 4, cudaMemcpyDeviceToHost));
    for (int wp = 0; wp < w; wp++) fprintf(out, "# issue\t%d\t%d\t%d\t%u\n", m, w, wp, h[2 * wp + 1] - h[2 * wp]);
  }
  fclose(out);
  printf("queue: done\n");
  return 0;
}
