// Call 6: do shared and global memory instructions share one queue?
//
// One warp (or one per sub-partition, W = 4) issues 24 K=32 instructions of kind A, then 24 of
// kind B, a clock read after each, from empty queues (a 40,000-cycle pause after the warm-up
// run). A lone warp's K=32 LDS takes the shared pipe 64 cycles and a K=32 LDG.cg takes the L2
// path 32 cycles, so the 24 A's are still queued when the B's issue: with one shared queue of
// 29 the B's wait after ~5; with separate queues they do not wait.
//   ORDER 0: 24 LDS then 24 LDG.cg     1: 24 LDG.cg then 24 LDS
//   ORDER 2: 24 STS then 24 STG        3: 24 LDS then 24 STS (same queue expected)
//
// Usage: probe3 OUTFILE
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int N = 24;
__device__ __forceinline__ unsigned clk() {
  unsigned t; asm volatile("mov.u32 %0, %%clock;" : "=r"(t) :: "memory"); return t;
}

// kind: 0 LDS, 1 LDG.cg, 2 STS, 3 STG
template <int KIND>
__device__ __forceinline__ unsigned op(unsigned sa, const unsigned* ga, unsigned v) {
  unsigned r = 0;
  if (KIND == 0) asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(r) : "r"(sa) : "memory");
  if (KIND == 1) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(ga) : "memory");
  if (KIND == 2) asm volatile("st.volatile.shared.u32 [%0], %1;" :: "r"(sa), "r"(v) : "memory");
  if (KIND == 3) asm volatile("st.global.u32 [%0], %1;" :: "l"(ga), "r"(v) : "memory");
  return r;
}

template <int A, int B>
__global__ void __launch_bounds__(128, 1) mixq(unsigned* g, unsigned* stamps, unsigned* sink) {
  __shared__ unsigned smem[32 * 32 + 2 * N + 32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32 + 2 * N + 32; i += blockDim.x) smem[i] = i;
  unsigned sbase = (unsigned)__cvta_generic_to_shared(&smem[lane * 32]);
  const unsigned* gbase = g + (size_t)warp * 2 * N * 1024 + lane * 32;
  unsigned va[N], vb[N], ta[N], tb[N], sv[N];
#pragma unroll
  for (int i = 0; i < N; i++) sv[i] = g[i] + lane;
  unsigned acc = 0, t0 = 0;
  for (int rep = 0; rep < 2; rep++) {
    __syncthreads();
    if (rep == 1) {
      unsigned s0 = clk();
      while (clk() - s0 < 40000u) {}
      __syncthreads();
    }
    t0 = clk();
#pragma unroll
    for (int i = 0; i < N; i++) { va[i] = op<A>(sbase + 4 * i, gbase + (size_t)i * 1024, sv[i]); ta[i] = clk(); }
#pragma unroll
    for (int i = 0; i < N; i++) { vb[i] = op<B>(sbase + 4 * (N + i), gbase + (size_t)(N + i) * 1024, sv[i]); tb[i] = clk(); }
#pragma unroll
    for (int i = 0; i < N; i++) acc += va[i] + vb[i];
    __syncthreads();
  }
  if (lane == 0) {
    unsigned* o = stamps + warp * (2 * N + 1);
    o[0] = t0;
#pragma unroll
    for (int i = 0; i < N; i++) { o[1 + i] = ta[i]; o[1 + N + i] = tb[i]; }
  }
#pragma unroll
  for (int i = 0; i < N; i++) acc += sv[i];
  if (acc == 0x12345678) sink[threadIdx.x] = acc;
}

typedef void (*kfn)(unsigned*, unsigned*, unsigned*);

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: probe3 OUT\n"); return 2; }
  unsigned *g, *stamps, *sink;
  size_t words = (size_t)4 * 2 * N * 1024 + 4096;
  CK(cudaMalloc(&g, words * 4)); CK(cudaMemset(g, 0, words * 4));
  CK(cudaMalloc(&stamps, 4 * (2 * N + 1) * 4)); CK(cudaMalloc(&sink, 1024 * 4));
  FILE* o = fopen(argv[1], "w");
  fprintf(o, "order\tw\twarp\tgaps(first A from t0, then 23 A, then 24 B)\n");
  kfn ks[] = {mixq<0, 1>, mixq<1, 0>, mixq<2, 3>, mixq<0, 2>};
  std::vector<unsigned> h(4 * (2 * N + 1));
  for (int ord = 0; ord < 4; ord++) for (int w : {1, 4}) {
    ks[ord]<<<1, 32 * w>>>(g, stamps, sink);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), stamps, h.size() * 4, cudaMemcpyDeviceToHost));
    for (int wp = 0; wp < w; wp++) {
      unsigned* v = &h[wp * (2 * N + 1)];
      fprintf(o, "%d\t%d\t%d", ord, w, wp);
      for (int i = 1; i <= 2 * N; i++) fprintf(o, "\t%u", v[i] - v[i - 1]);
      fprintf(o, "\n");
    }
  }
  fclose(o);
  printf("probe3: done\n");
  return 0;
}
