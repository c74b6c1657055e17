// One wave of blocks that read, write, or read then write global memory (16-byte accesses,
// K per thread, all loads before all stores, as the transposes): does a kernel's time follow
// the bytes it reads, or the bytes it reads and writes (question from the f64 transposes at
// N=1024, README "What it does not model")? 1,056 blocks of 256 threads (8 per SM, one wave);
// MODE 0 read (a sum, one word per block written), 1 write, 2 read then write (a copy).
// Usage: rwmix MODE K     (one launch; run under ncu with --cache-control all)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

template <int MODE, int K>
__global__ void __launch_bounds__(256) rw(const float4* in, float4* out, float* sink) {
  size_t n = (size_t)gridDim.x * blockDim.x;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  float4 v[K];
  if (MODE != 1) {
#pragma unroll
    for (int k = 0; k < K; k++) v[k] = in[i + k * n];
  } else {
#pragma unroll
    for (int k = 0; k < K; k++) v[k] = make_float4(i, k, 0, 1);
  }
  if (MODE == 0) {
    float s = 0;
#pragma unroll
    for (int k = 0; k < K; k++) s += v[k].x + v[k].y + v[k].z + v[k].w;
    if (s == 1234.5f) sink[blockIdx.x] = s;
  } else {
#pragma unroll
    for (int k = 0; k < K; k++) out[i + k * n] = v[k];
  }
}

template <int MODE, int K>
void launch(const float4* in, float4* out, float* sink) { rw<MODE, K><<<1056, 256>>>(in, out, sink); }

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: rwmix MODE K\n"); return 1; }
  int mode = atoi(argv[1]), k = atoi(argv[2]);
  size_t bytes = (size_t)1056 * 256 * 16 * 16;  // room for K up to 16
  float4 *in, *out; float* sink;
  CK(cudaMalloc(&in, bytes)); CK(cudaMalloc(&out, bytes)); CK(cudaMalloc(&sink, 4096 * 4));
  CK(cudaMemset(in, 1, bytes)); CK(cudaMemset(out, 0, bytes));
  typedef void (*F)(const float4*, float4*, float*);
  F f[3][5] = {{launch<0, 1>, launch<0, 2>, launch<0, 4>, launch<0, 8>, launch<0, 16>},
               {launch<1, 1>, launch<1, 2>, launch<1, 4>, launch<1, 8>, launch<1, 16>},
               {launch<2, 1>, launch<2, 2>, launch<2, 4>, launch<2, 8>, launch<2, 16>}};
  int ki = k == 1 ? 0 : k == 2 ? 1 : k == 4 ? 2 : k == 8 ? 3 : 4;
  for (int r = 0; r < 2; r++) f[mode][ki](in, out, sink);  // the second launch is the one read
  CK(cudaDeviceSynchronize());
  printf("mode %d K %d bytes each way %zu\n", mode, k, (size_t)1056 * 256 * 16 * k);
  return 0;
}
