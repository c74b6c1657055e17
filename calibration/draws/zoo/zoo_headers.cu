// The zoo's kernels that need CUDA toolkit headers (cuda_fp16.h, cooperative_groups.h), which
// NVRTC alone does not have: warpsim passes NVRTC the toolkit's include directory (see README,
// "Run your CUDA kernel"). Measured on the H200 with the rest of the zoo (zoo.cu includes this).
#include <cuda_fp16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_reduce(const int* in, int* out) {
  __shared__ int s[256];
  cg::thread_block b = cg::this_thread_block();
  s[b.thread_rank()] = in[blockIdx.x * 256 + b.thread_rank()];
  b.sync();
  cg::thread_block_tile<32> t = cg::tiled_partition<32>(b);
  int v = s[b.thread_rank()];
  for (int o = 16; o > 0; o /= 2) v += t.shfl_down(v, o);
  if (t.thread_rank() == 0) atomicAdd(out, v);
}
extern "C" __global__ void half_tile(const __half* a, __half* b) {
  __shared__ __half s[32][33];
  s[threadIdx.y][threadIdx.x] = a[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  b[threadIdx.y * 32 + threadIdx.x] = __hadd(s[threadIdx.x][threadIdx.y], __float2half(1.0f));
}
