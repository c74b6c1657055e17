// calibration/probes/scheduler: which warp a sub-partition issues when several are ready (the warp
// scheduler's policy), read from per-warp clocks on one SM. One block per SM (grid = 132 or
// fewer), a block of W warps = W/4 warps per sub-partition (warp w on sub-partition w % 4).
//   (and with 2 blocks of 16 warps, 4 blocks of 8 warps per SM)
//   alu: every warp issues ITERS x 8 independent FFMAs (it could issue every cycle): under
//        greedy-then-oldest one warp per sub-partition runs to its end before the next starts
//        (end times staggered), under a round robin all end together.
//   lds: every warp issues ITERS x 16 independent one-wavefront shared loads (the memory
//        queue's rate binds, as in the matmul).
//   mm:  matmul<32,0,false> of ../kernels.cu (n = 256, grid 8x8, block 32x32) with each warp's
//        clock read as it reaches each __syncthreads: the spread of arrivals is the barrier stall.
//   tr:  transpose<PAD,false> of ../kernels.cu (n = 1024), clocks at its phases.
// Output (stdout): one line per warp of every block on block 0's SM: kernel, config, block, warp,
// t0 and the later clocks (cycles from that SM's first t0).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }

__global__ void alu(float* out, long long* rec, int iters) {
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int u = 0; u < 4; u++) {
      a0 = a0 * 1.0001f + 0.5f; a1 = a1 * 1.0001f + 0.5f; a2 = a2 * 1.0001f + 0.5f; a3 = a3 * 1.0001f + 0.5f;
      a4 = a4 * 1.0001f + 0.5f; a5 = a5 * 1.0001f + 0.5f; a6 = a6 * 1.0001f + 0.5f; a7 = a7 * 1.0001f + 0.5f;
    }
  }
  long long t1 = clock64();
  if (lane == 0) { long long* r = rec + (blockIdx.x * nw + w) * 3; r[0] = t0; r[1] = t1; r[2] = smid(); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__global__ void lds(float* out, long long* rec, int iters) {
  __shared__ volatile float s[4096];
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = i;
  float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
    int b = (i * 16 * 32) & 4095;
#pragma unroll
    for (int j = 0; j < 16; j += 4) {
      a0 += s[(b + j * 32 + lane) & 4095]; a1 += s[(b + (j + 1) * 32 + lane) & 4095];
      a2 += s[(b + (j + 2) * 32 + lane) & 4095]; a3 += s[(b + (j + 3) * 32 + lane) & 4095];
    }
  }
  long long t1 = clock64();
  if (lane == 0) { long long* r = rec + (blockIdx.x * nw + w) * 3; r[0] = t0; r[1] = t1; r[2] = smid(); }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}

// ../kernels.cu's matmul<32,0,false> with clocks at each barrier (T = 32: 8 tile steps at n = 256).
#define T 32
__global__ void mm(const float* A, const float* B, float* C, int n, long long* rec) {
  __shared__ volatile float As[T][T];
  __shared__ volatile float Bs[T][T];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  int steps = n / T, bid = blockIdx.y * gridDim.x + blockIdx.x;
  long long* r = rec + (bid * 32 + ty) * (2 * 8 + 2);
  float acc = 0.f;
  if (tx == 0) { r[0] = clock64(); r[1] = smid(); }
  for (int t = 0; t < steps; t++) {
    As[ty][tx] = A[row * n + t * T + tx];
    Bs[ty][tx] = B[(t * T + ty) * n + col];
    if (tx == 0 && t < 8) r[2 + 2 * t] = clock64();
    __syncthreads();
    for (int k = 0; k < T; k++) acc += As[ty][k] * Bs[k][tx];
    if (tx == 0 && t < 8) r[3 + 2 * t] = clock64();
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// ../kernels.cu's transpose<PAD,false> (n = 1024, grid 32x32, block 32x8) with each warp's clock at
// its start, at the barrier (after its loads and shared stores), after the barrier and after its
// last global store: record t0, smid, t1, t2, t3.
template <int PAD>
__global__ void tr(const float* in, float* out, int n, long long* rec) {
  __shared__ volatile float tile[32][32 + PAD];
  long long t0 = clock64();
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  long long t1 = clock64();
  __syncthreads();
  long long t2 = clock64();
  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
  long long t3 = clock64();
  if (threadIdx.x == 0) {
    long long* r = rec + ((blockIdx.y * gridDim.x + blockIdx.x) * 8 + threadIdx.y) * 5;
    r[0] = t0; r[1] = smid(); r[2] = t1; r[3] = t2; r[4] = t3;
  }
}

static void dump(const char* name, int cfg, std::vector<long long>& h, int nblocks, int nw, int stride, int si) {
  // The warps of every block on the SM that block 0 ran on; times from that SM's first t0.
  long long sm0 = h[si], base = -1;
  for (int b = 0; b < nblocks; b++)
    for (int w = 0; w < nw; w++) {
      long long* r = &h[(b * nw + w) * stride];
      if (r[si] == sm0 && (base < 0 || r[0] < base)) base = r[0];
    }
  for (int b = 0; b < nblocks; b++)
    for (int w = 0; w < nw; w++) {
      long long* r = &h[(b * nw + w) * stride];
      if (r[si] != sm0) continue;
      printf("%s %d block %d warp %d t0 %lld", name, cfg, b, w, r[0] - base);
      for (int k = 1; k < stride; k++) if (k != si) printf(" %lld", r[k] - base);
      printf("\n");
    }
}

int main(int argc, char** argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 64, reps = argc > 2 ? atoi(argv[2]) : 3;
  float* out; long long* rec; float *A, *B, *C;
  CK(cudaMalloc(&out, 4 * 132 * 1024 * 4)); CK(cudaMalloc(&rec, 1024 * 8 * 6 * 8 + 4 * 132 * 32 * 18 * 8));
  int n = 256;
  CK(cudaMalloc(&A, n * n * 4)); CK(cudaMalloc(&B, n * n * 4)); CK(cudaMalloc(&C, n * n * 4));
  float *tin, *tout;
  CK(cudaMalloc(&tin, 1024 * 1024 * 4)); CK(cudaMalloc(&tout, 1024 * 1024 * 4));
  CK(cudaMemset(tin, 0, 1024 * 1024 * 4));
  char* flush; CK(cudaMalloc(&flush, 256 << 20));
  std::vector<float> ha(n * n); for (int i = 0; i < n * n; i++) ha[i] = (i % 7) * 0.25f;
  CK(cudaMemcpy(A, ha.data(), n * n * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(B, ha.data(), n * n * 4, cudaMemcpyHostToDevice));
  std::vector<long long> h(1024 * 8 * 6 + 4 * 132 * 32 * 18);
  for (int rep = 0; rep < reps; rep++) {
    for (int cfg : {4, 8, 16, 32, 2016, 4008}) {
      int nw = cfg % 1000, bps = cfg / 1000 ? cfg / 1000 : 1;  // 2016: 2 blocks of 16 warps per SM, 4008: 4 of 8
      CK(cudaMemset(rec, 0, 4 * 132 * 32 * 18 * 8));
      alu<<<132 * bps, nw * 32>>>(out, rec, iters); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, 132 * bps * nw * 3 * 8, cudaMemcpyDeviceToHost));
      printf("# rep %d alu warps %d blocks/SM %d iters %d\n", rep, nw, bps, iters); dump("alu", nw, h, 132 * bps, nw, 3, 2);
      CK(cudaMemset(rec, 0, 4 * 132 * 32 * 18 * 8));
      lds<<<132 * bps, nw * 32>>>(out, rec, iters); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, 132 * bps * nw * 3 * 8, cudaMemcpyDeviceToHost));
      printf("# rep %d lds warps %d blocks/SM %d iters %d\n", rep, nw, bps, iters); dump("lds", nw, h, 132 * bps, nw, 3, 2);
    }
    CK(cudaMemset(rec, 0, 4 * 132 * 32 * 18 * 8));
    mm<<<dim3(8, 8), dim3(32, 32)>>>(A, B, C, n, rec); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), rec, 64 * 32 * 18 * 8, cudaMemcpyDeviceToHost));
    printf("# rep %d mm n 256 (t0, then per step: arrival at the 1st and 2nd barrier)\n", rep);
    dump("mm", 32, h, 64, 32, 18, 1);
    for (int pad = 0; pad < 2; pad++) {
      CK(cudaMemset(rec, 0, 1024 * 8 * 5 * 8));
      CK(cudaMemset(flush, rep + pad, 256 << 20));  // a cold L2, as ncu leaves it
      if (pad) tr<1><<<dim3(32, 32), dim3(32, 8)>>>(tin, tout, 1024, rec);
      else tr<0><<<dim3(32, 32), dim3(32, 8)>>>(tin, tout, 1024, rec);
      CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h.data(), rec, 1024 * 8 * 5 * 8, cudaMemcpyDeviceToHost));
      printf("# rep %d tr pad %d n 1024 (t0; at the barrier; after it; after the last store)\n", rep, pad);
      dump("tr", pad, h, 1024, 8, 5, 1);
    }
  }
  return 0;
}
