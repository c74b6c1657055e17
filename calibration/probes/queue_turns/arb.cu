// calibration/probes/queue_turns/arb.cu: how an SM's memory queue shares itself among its sub-partitions when a
// flood of 32-way conflicted shared loads fills it. In the naive transpose (calibration/probes/dram_order/
// clean.txt) the warps of a young block get their shared stores into the flooded queue per
// sub-partition, ~1,100 cycles apart from one sub-partition to another, while the model lets the
// four in together. Two modes, one launch per SM-sized grid (132 blocks or 264), 3 reps each:
//   `arb rr W`: one block of W warps per SM (W/4 per sub-partition); each warp issues 32
//      independent 32-way conflicted LDS, reading the clock (low 32 bits) after each issue.
//      Output "rr W rep sm warp c0 .. c31", clocks from the SM's first.
//   `arb young`: two blocks of 8 warps per SM; the first to start on its SM (an atomic counter
//      per SM) floods: 8 rounds of 8 conflicted LDS whose results it then folds (a wait), a clock
//      after each LDS issue; the second spins DELAY cycles and then issues 4 conflict-free STS,
//      a clock after each. Output "young rep sm role warp c0 ..".
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

// clock64 (CS2R), not %clock (S2R: a slower path that may queue behind the flood), kept to 32 bits.
__device__ __forceinline__ unsigned clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory"); return (unsigned)c; }
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
__device__ __forceinline__ float lds(const float* p) {
  float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"((unsigned)__cvta_generic_to_shared(p)) : "memory"); return v;
}
__device__ __forceinline__ void sts(float* p, float v) {
  asm volatile("st.shared.f32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(p)), "f"(v) : "memory");
}

#define N 32
__global__ void rr(unsigned* rec, float* out) {
  __shared__ float s[32 * 32];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned c[N]; float v[N];
#pragma unroll
  for (int i = 0; i < N; i++) { v[i] = lds(&s[lane * 32 + ((i + w) & 31)]); c[i] = clk(); }
  float acc = 0;
#pragma unroll
  for (int i = 0; i < N; i++) acc += v[i];
  if (lane == 0) {
    unsigned* r = rec + (blockIdx.x * 32 + w) * (N + 2);
    r[0] = smid(); r[1] = w;
#pragma unroll
    for (int i = 0; i < N; i++) r[2 + i] = c[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

#define R 8
__global__ void young(unsigned* rec, float* out, unsigned* ctr, int delay) {
  __shared__ float s[32 * 33];
  __shared__ unsigned role_s;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (threadIdx.x == 0) role_s = atomicAdd(&ctr[smid()], 1);
  for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned role = role_s, t0 = clk();
  unsigned c[R * 8]; float acc = 0;
  int nc = 0;
  if (role == 0) {
#pragma unroll
    for (int g = 0; g < R; g++) {
      float v[8];
#pragma unroll
      for (int i = 0; i < 8; i++) { v[i] = lds(&s[lane * 32 + ((g * 8 + i + w) & 31)]); c[g * 8 + i] = clk(); }
#pragma unroll
      for (int i = 0; i < 8; i++) acc += v[i];
    }
    nc = R * 8;
  } else {
    while (clk() - t0 < (unsigned)delay) {}
#pragma unroll
    for (int i = 0; i < 4; i++) { sts(&s[lane * 33 + w * 4 + i], acc + i); c[i] = clk(); }
    nc = 4;
  }
  if (lane == 0) {
    unsigned* r = rec + (blockIdx.x * 8 + w) * (R * 8 + 4);
    r[0] = smid(); r[1] = role; r[2] = w; r[3] = t0;
    for (int i = 0; i < nc; i++) r[4 + i] = c[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// `arb sp MODE`: is the queue served in the order instructions entered it, or in turn among the
// sub-partitions? One block of 8 warps a SM (sub-partition = warp % 4). MODE 0: warps 0 and 4
// (sub-partition 0 only) flood, 48 independent 32-way conflicted LDS each; MODE 1: warps 0, 4, 5, 6, 7 flood
// (every sub-partition). Warps 1, 2, 3 (sub-partitions 1-3) spin 800, 1,200, 1,600 cycles, then
// time one conflict-free LDS from issue to its use. In the order of entry, a timed load waits
// for the whole queue ahead of it (~29 conflicted loads of one sub-partition, ~56 of four); in
// turn among sub-partitions, in MODE 0 it goes at the next turn. Output "sp MODE rep sm warp
// issue use" (use - issue: the load's time), 3 reps.
__global__ void spq(unsigned* rec, float* out, int mode) {
  __shared__ float s[32 * 32];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned t0 = clk();
  float acc = 0;
  bool flood = w == 0 || w == 4 || (mode == 1 && w >= 5);
  unsigned a = 0, b = 0;
  if (flood) {
    float v[48];
#pragma unroll
    for (int i = 0; i < 48; i++) v[i] = lds(&s[lane * 32 + ((i + w) & 31)]);
#pragma unroll
    for (int i = 0; i < 48; i++) acc += v[i];
  } else if (w >= 1 && w <= 3) {
    while (clk() - t0 < 400u + 400u * w) {}
    a = clk();
    float v = lds(&s[lane + w]);
    asm volatile("add.f32 %0, %0, %1;" : "+f"(acc) : "f"(v) : "memory");
    b = clk();
  }
  if (lane == 0 && w >= 1 && w <= 3) {
    unsigned* r = rec + (blockIdx.x * 8 + w) * 4;
    r[0] = smid(); r[1] = a - t0; r[2] = b - t0;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char** argv) {
  unsigned* rec; float* out; unsigned* ctr;
  CK(cudaMalloc(&rec, 264 * 32 * (R * 8 + 4) * 4)); CK(cudaMalloc(&out, 264 * 1024 * 4)); CK(cudaMalloc(&ctr, 256 * 4));
  if (argc > 2 && argv[1][0] == 's') {
    int mode = atoi(argv[2]);
    std::vector<unsigned> h(132 * 8 * 4);
    for (int rep = 0; rep < 3; rep++) {
      spq<<<132, 256>>>(rec, out, mode);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
      for (int b = 0; b < 132; b++)
        for (int w = 1; w <= 3; w++) {
          unsigned* r = &h[(b * 8 + w) * 4];
          printf("sp %d %d %u %d %u %u\n", mode, rep, r[0], w, r[1], r[2]);
        }
    }
  } else if (argc > 2 && argv[1][0] == 'r') {
    int W = atoi(argv[2]);
    std::vector<unsigned> h(132 * 32 * (N + 2));
    for (int rep = 0; rep < 3; rep++) {
      rr<<<132, 32 * W>>>(rec, out);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
      for (int b = 0; b < 132; b++) {
        unsigned base = 0xffffffffu;
        for (int w = 0; w < W; w++) base = std::min(base, h[(b * 32 + w) * (N + 2) + 2]);
        for (int w = 0; w < W; w++) {
          unsigned* r = &h[(b * 32 + w) * (N + 2)];
          printf("rr %d %d %u %u", W, rep, r[0], r[1]);
          for (int i = 0; i < N; i++) printf(" %d", (int)(r[2 + i] - base));
          printf("\n");
        }
      }
    }
  } else {
    int delay = argc > 2 ? atoi(argv[2]) : 1500;
    std::vector<unsigned> h(264 * 8 * (R * 8 + 4));
    for (int rep = 0; rep < 3; rep++) {
      CK(cudaMemset(ctr, 0, 256 * 4));
      young<<<264, 256>>>(rec, out, ctr, delay);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 4, cudaMemcpyDeviceToHost));
      for (int i = 0; i < 264 * 8; i++) {
        unsigned* r = &h[i * (R * 8 + 4)];
        int nc = r[1] == 0 ? R * 8 : 4;
        printf("young %d %d %u %u %u %u", delay, rep, r[0], r[1], r[2], r[3]);
        for (int k = 0; k < nc; k++) printf(" %u", r[4 + k]);
        printf("\n");
      }
    }
  }
  return 0;
}
