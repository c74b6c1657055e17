// calibration/probes/queue_share/share.cu: when one sub-partition floods the memory queue first and another
// joins later, how do the two share the SM-wide stage? The queue holds ~9 instructions a
// sub-partition and ~20 more SM-wide (section 1). One block of 12 warps a SM (warp w on
// sub-partition w % 4). Warps 0, 4, 8 (sub-partition 0) issue 32 independent 32-way conflicted
// LDS each at once; warps 1, 5, 9 (sub-partition 1) spin D cycles on the clock first; warps 2,
// 3, 6, 7, 10, 11 only help fill the tile. Each loading warp reads the clock after each LDS issue
// and once more after an add that needs all 32 loads' data (`end`). If a place freed in the stage
// goes to whoever asks first (both sub-partitions alike), sub-partition 1 soon holds half of the
// stage and the two finish close together; if it goes back to the sub-partition whose
// instruction left it, sub-partition 0 keeps the 20 places until its flood ends and finishes
// far earlier. Predictions (the model, each admission rule) in predictions.txt, committed first.
// Output "share D rep sm warp t0 c0 .. c31 end", clocks (low 32 bits) less the block's first
// t0. 3 reps of D = 0, 600, 1200.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ unsigned clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory"); return (unsigned)c; }
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
__device__ __forceinline__ float lds(const float* p) {
  float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory"); return v;
}

#define N 32
#define W 12
#define REC (N + 4)
__global__ void share(unsigned* rec, float* out, int delay) {
  __shared__ float s[32 * 32];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned t0 = clk();
  unsigned c[N]; float v[N];
  float acc = 0, fin = 0;
  unsigned e = 0;
  if ((w & 3) < 2) {
    if ((w & 3) == 1) while (clk() - t0 < (unsigned)delay) {}
#pragma unroll
    for (int i = 0; i < N; i++) { v[i] = lds(&s[lane * 32 + ((i + w) & 31)]); c[i] = clk(); }
#pragma unroll
    for (int i = 0; i < N; i++) acc += v[i];
    asm volatile("add.f32 %0, %0, %1;" : "+f"(fin) : "f"(acc) : "memory");
    e = clk();
    if (lane == 0) {
      unsigned* r = rec + (blockIdx.x * W + w) * REC;
      r[0] = smid(); r[1] = t0;
#pragma unroll
      for (int i = 0; i < N; i++) r[2 + i] = c[i];
      r[2 + N] = e;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + fin;
}

// `share timed`: sub-partition 0 (K = 1) or 0 and 1 (K = 2) flood at once as above (warps 0,
// 4, 8 and 1, 5, 9, no clocks); warp 2 (sub-partition 2) spins T cycles, then times one
// conflict-free LDS from issue to use. In one in-order queue it waits for everything queued
// ahead of it (~29 loads for K = 1, ~38 for K = 2, 32 cycles each); if the sub-partitions'
// queues feed the SM-wide stage in turn, only for the stage (~20) and one turn.
// Output "timed K T rep sm issue use", clocks less t0 (3 reps).
__global__ void timed(unsigned* rec, float* out, int k, int t) {
  __shared__ float s[32 * 32];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned t0 = clk();
  float acc = 0;
  unsigned a = 0, b = 0;
  if ((w & 3) < k) {
    float v[N];
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = lds(&s[lane * 32 + ((i + w) & 31)]);
#pragma unroll
    for (int i = 0; i < N; i++) acc += v[i];
  } else if (w == 2) {
    while (clk() - t0 < (unsigned)t) {}
    a = clk();
    float v = lds(&s[lane + 1]);
    asm volatile("add.f32 %0, %0, %1;" : "+f"(acc) : "f"(v) : "memory");
    b = clk();
    if (lane == 0) { rec[blockIdx.x * 4] = smid(); rec[blockIdx.x * 4 + 1] = a - t0; rec[blockIdx.x * 4 + 2] = b - t0; }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char** argv) {
  if (argc > 1 && argv[1][0] == 't') {
    unsigned* rec; float* out;
    CK(cudaMalloc(&rec, 132 * 4 * 4)); CK(cudaMalloc(&out, 132 * W * 32 * 4));
    std::vector<unsigned> h(132 * 4);
    int tt[3] = {700, 1000, 1350};
    for (int k = 1; k <= 2; k++)
      for (int t : tt)
        for (int rep = 0; rep < 3; rep++) {
          timed<<<132, 32 * W>>>(rec, out, k, t);
          CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
          CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
          for (int b = 0; b < 132; b++) printf("timed %d %d %d %u %u %u\n", k, t, rep, h[b * 4], h[b * 4 + 1], h[b * 4 + 2]);
        }
    return 0;
  }
  unsigned* rec; float* out;
  CK(cudaMalloc(&rec, 132 * W * REC * 4)); CK(cudaMalloc(&out, 132 * W * 32 * 4));
  std::vector<unsigned> h(132 * W * REC);
  int delays[3] = {0, 600, 1200};
  for (int d : delays)
    for (int rep = 0; rep < 3; rep++) {
      share<<<132, 32 * W>>>(rec, out, d);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
      for (int b = 0; b < 132; b++) {
        unsigned base = 0xffffffffu;
        for (int w = 0; w < W; w++) if ((w & 3) < 2) base = std::min(base, h[(b * W + w) * REC + 1]);
        for (int w = 0; w < W; w++) {
          if ((w & 3) >= 2) continue;
          unsigned* r = &h[(b * W + w) * REC];
          printf("share %d %d %u %d %d", d, rep, r[0], w, (int)(r[1] - base));
          for (int i = 0; i < N; i++) printf(" %d", (int)(r[2 + i] - base));
          printf(" %d\n", (int)(r[2 + N] - base));
        }
      }
    }
  return 0;
}
