// calibration/probes/scheduler/phases.cu: where the naive transpose's warps spend their time on the H200, one
// clock read between each step: transpose<PAD,false> of ../kernels.cu (n = 1024, grid 32x32,
// block 32x8) with its global loads and shared stores written as PTX so that the clock reads stay
// between them. Per warp (lane 0): t0 at start; tA after issuing its 4 global loads; tD when all
// four loaded values are in registers (an add of them); tS after issuing its 4 shared stores;
// tB after the barrier; tE after its last global store. Cold L2 (a 256 MiB memset before each
// launch). Output: a line per warp of every block on block 0's SM, times from the SM's first t0.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ long long clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory"); return c; }
__device__ __forceinline__ float ldg(const float* p) { float v; asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory"); return v; }
__device__ __forceinline__ void sts(volatile float* p, float v) {
  unsigned a = (unsigned)__cvta_generic_to_shared((const void*)p);
  asm volatile("st.shared.f32 [%0], %1;" :: "r"(a), "f"(v) : "memory");
}

// ISSUE: the loaded values stay live after the clock that follows the stores (folded in later),
// so that clock cannot take one of their registers (`phases clean all issue`, 2026-12-02; raw4/:
// ptxas gave it the stores' address register instead). ISSUE2 (`phases clean all issue2`): the
// stores' address stays live too, and 8 blocks a SM are asked for (at most 32 registers), so
// that the clock waits for nothing: tS is when the last store issued, not when it left.
template <int PAD, int ISSUE = 0>
__global__ void __launch_bounds__(256, 8) tr(const float* in, float* out, int n, long long* rec) {
  __shared__ volatile float tile[32][32 + PAD];
  long long t0 = clk();
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  float v0 = ldg(in + (y + 0) * n + x), v1 = ldg(in + (y + 8) * n + x);
  float v2 = ldg(in + (y + 16) * n + x), v3 = ldg(in + (y + 24) * n + x);
  long long tA = clk();
  float s; asm volatile("add.f32 %0, %1, %2;\n\tadd.f32 %0, %0, %3;\n\tadd.f32 %0, %0, %4;" : "=f"(s) : "f"(v0), "f"(v1), "f"(v2), "f"(v3) : "memory");
  long long tD = clk();
  sts(&tile[threadIdx.y + 0][threadIdx.x], v0); sts(&tile[threadIdx.y + 8][threadIdx.x], v1);
  sts(&tile[threadIdx.y + 16][threadIdx.x], v2); sts(&tile[threadIdx.y + 24][threadIdx.x], v3);
  long long tS = clk();
  float keep = 0;
  unsigned live = 0;
  if (ISSUE == 2) {
    unsigned a = (unsigned)__cvta_generic_to_shared((const void*)&tile[threadIdx.y][threadIdx.x]);
    asm volatile("mov.u32 %0, %1;" : "=r"(live) : "r"(a) : "memory");
  }
  if (ISSUE) asm volatile("mul.f32 %0, %1, %2;\n\tmul.f32 %0, %0, %3;\n\tmul.f32 %0, %0, %4;" : "=f"(keep) : "f"(v0), "f"(v1), "f"(v2), "f"(v3) : "memory");
  __syncthreads();
  long long tB = clk();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  long long tE = clk();
  if (threadIdx.x == 0) {
    unsigned sm; asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    long long* r = rec + ((blockIdx.y * gridDim.x + blockIdx.x) * 8 + threadIdx.y) * 7;
    r[0] = t0; r[1] = sm; r[2] = tA; r[3] = tD; r[4] = tS; r[5] = tB; r[6] = tE;
  }
  if (s == 12345.f || keep == 12345.f || live == 12345u) out[0] = s + keep;  // keeps the adds
}

__global__ void read_all(const float4* p, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s += p[i].x;
  if (s == 12345.f) *sink = s;
}

// `phases clean`: a read of another 256 MiB after the memset evicts its dirty lines (raw/phases.txt
// was taken without it: the transposes' misses wrote the memset's lines back as they went).
// `phases dirty all` / `phases clean all`: every SM's warps, each line led by "sm N".
int main(int argc, char** argv) {
  const bool clean = argc > 1 && argv[1][0] == 'c';
  const bool every = argc > 2 && argv[2][0] == 'a';  // `phases clean all`: every SM's warps, "sm N " first
  const int issue = argc > 3 && argv[3][0] == 'i' ? (argv[3][5] == '2' ? 2 : 1) : 0;  // `issue`, `issue2`
  float *in, *out; long long* rec; char* flush;
  CK(cudaMalloc(&in, 1024 * 1024 * 4)); CK(cudaMalloc(&out, 1024 * 1024 * 4));
  CK(cudaMalloc(&rec, 1024 * 8 * 7 * 8)); CK(cudaMalloc(&flush, 256 << 20));
  CK(cudaMemset(in, 0, 1024 * 1024 * 4));
  float *evict, *sink; CK(cudaMalloc(&evict, 256 << 20)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(evict, 0, 256 << 20));
  std::vector<long long> h(1024 * 8 * 7);
  for (int rep = 0; rep < 3; rep++)
    for (int pad = 0; pad < 2; pad++) {
      CK(cudaMemset(flush, rep + pad, 256 << 20));
      if (clean) read_all<<<528, 256>>>((const float4*)evict, (256 << 20) / 16, sink);
      if (issue == 2 && pad) tr<1, 2><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      else if (issue == 2) tr<0, 2><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      else if (issue && pad) tr<1, 1><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      else if (issue) tr<0, 1><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      else if (pad) tr<1><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      else tr<0><<<dim3(32, 32), dim3(32, 8)>>>(in, out, 1024, rec);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
      long long sm0 = h[1];
      std::vector<long long> bases(256, -1);  // each SM's first t0
      for (int i = 0; i < 1024 * 8; i++) { long long& b = bases[h[i * 7 + 1] & 255]; if (b < 0 || h[i * 7] < b) b = h[i * 7]; }
      printf("# rep %d pad %d (t0, tA loads issued, tD data in, tS stores issued, tB after the barrier, tE end)\n", rep, pad);
      for (int i = 0; i < 1024 * 8; i++) {
        long long* r = &h[i * 7];
        if (r[1] != sm0 && !every) continue;
        long long base = bases[r[1] & 255];
        if (every) printf("sm %lld ", r[1]);
        printf("tr %d block %d warp %d %lld %lld %lld %lld %lld %lld\n", pad, i / 8, i % 8, r[0] - base, r[2] - base, r[3] - base,
               r[4] - base, r[5] - base, r[6] - base);
      }
    }
  return 0;
}
