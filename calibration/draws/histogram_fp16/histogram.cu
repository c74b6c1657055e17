// 256-bin histograms with per-block shared atomics (CUDA samples style), launched as
// programs/histogram.ron launches them: N input bytes (warpsim's Random(7) for u8), BLOCKS
// blocks of 256 threads, a grid-stride loop.
//   histogram256      atomicAdd(&s[b], 1)        (u32 bins; the constant 1 lets nvcc pick its form)
//   histogram256_inc  atomicAdd(&s[b], inc)      (inc a kernel parameter = 1: a plain ATOMS.ADD)
//   histogram256_f32  atomicAdd(&sf[b], 1.0f)    (f32 bins: a compare-and-swap loop on shared)
// Each block zeroes its shared bins, barrier, one atomic per input byte, barrier, then
// atomicAdd of its 256 bins into the global histogram. The host checks all three.
#include "common.h"
#include <vector>

#define BINS 256

__global__ void histogram256(const unsigned char* __restrict__ in, unsigned int* hist, int n) {
  __shared__ unsigned int s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}

__global__ void histogram256_inc(const unsigned char* __restrict__ in, unsigned int* hist, int n,
                                 unsigned int inc) {
  __shared__ unsigned int s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], inc);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}

__global__ void histogram256_f32(const unsigned char* __restrict__ in, float* hist, int n) {
  __shared__ float s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0.0f;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], 1.0f);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 262144;
  int blocks = argc > 2 ? atoi(argv[2]) : 64;
  const int block = 256;
  std::vector<unsigned char> h(n);
  for (int i = 0; i < n; ++i) h[i] = random_u8(7, i);
  std::vector<unsigned int> want(BINS, 0);
  for (int i = 0; i < n; ++i) want[h[i]]++;
  unsigned char* din; unsigned int* dh; float* df;
  CK(cudaMalloc(&din, n)); CK(cudaMalloc(&dh, BINS * 4)); CK(cudaMalloc(&df, BINS * 4));
  CK(cudaMemcpy(din, h.data(), n, cudaMemcpyHostToDevice));
  int bad = 0;
  std::vector<unsigned int> got(BINS); std::vector<float> gotf(BINS);
  for (int k = 0; k < 3; ++k) {
    CK(cudaMemset(dh, 0, BINS * 4)); CK(cudaMemset(df, 0, BINS * 4));
    if (k == 0) histogram256<<<blocks, block>>>(din, dh, n);
    if (k == 1) histogram256_inc<<<blocks, block>>>(din, dh, n, 1u);
    if (k == 2) histogram256_f32<<<blocks, block>>>(din, df, n);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    if (k < 2) {
      CK(cudaMemcpy(got.data(), dh, BINS * 4, cudaMemcpyDeviceToHost));
      for (int b = 0; b < BINS; ++b) bad += got[b] != want[b];
    } else {
      CK(cudaMemcpy(gotf.data(), df, BINS * 4, cudaMemcpyDeviceToHost));
      for (int b = 0; b < BINS; ++b) bad += gotf[b] != (float)want[b];
    }
  }
  printf("histogram n=%d blocks=%d bins[0..4]=%u %u %u %u mismatches=%d %s\n", n, blocks, want[0],
         want[1], want[2], want[3], bad, bad ? "FAIL" : "ok");
  return bad ? 1 : 0;
}
