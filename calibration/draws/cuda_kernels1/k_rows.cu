// cuda_kernels1, row-wise kernels of a transformer's forward pass, as a well-known minimal LLM
// training codebase writes them, re-implemented here (not copied): a softmax with a block per
// row (warp reductions, then the warps' results through shared memory), an online softmax with
// a warp per row (max and sum merged in one pass, -INFINITY to start), and a layernorm with a
// warp per row through cooperative groups (cg::reduce, streaming loads and stores). They use
// what host headers would give (INFINITY, uint, assert), which NVRTC alone does not have.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#ifndef __CUDACC_RTC__
#include <cassert>
#include <cmath>
typedef unsigned int uint;
#endif
namespace cg = cooperative_groups;

__device__ __forceinline__ float warpMax(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warpSum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// Block per row; dynamic shared memory: 2 floats per warp.
extern "C" __global__ void softmaxBlock(float* out, const float* inp, int N, int C) {
  extern __shared__ float red[];
  const int row = blockIdx.x, tid = threadIdx.x;
  const int wid = tid / 32, lane = tid % 32, warps = blockDim.x / 32;
  assert(blockDim.x % 32 == 0);
  float* maxes = red;
  float* sums = red + warps;
  const float* x = inp + (size_t)row * C;
  float m = -INFINITY;
  for (int i = tid; i < C; i += blockDim.x) m = fmaxf(m, x[i]);
  m = warpMax(m);
  if (lane == 0) maxes[wid] = m;
  __syncthreads();
  if (tid == 0) {
    float v = maxes[0];
    for (int w = 1; w < warps; w++) v = fmaxf(v, maxes[w]);
    maxes[0] = v;
  }
  __syncthreads();
  const float off = maxes[0];
  float* y = out + (size_t)row * C;
  for (int i = tid; i < C; i += blockDim.x) y[i] = __expf(x[i] - off);
  float s = 0.0f;
  for (int i = tid; i < C; i += blockDim.x) s += y[i];
  s = warpSum(s);
  if (lane == 0) sums[wid] = s;
  __syncthreads();
  if (tid == 0) {
    float v = sums[0];
    for (int w = 1; w < warps; w++) v += sums[w];
    sums[0] = v;
  }
  __syncthreads();
  const float total = sums[0];
  for (int i = tid; i < C; i += blockDim.x) y[i] = y[i] / total;
}

// Warp per row; the row's max and sum in one pass (rescaling the sum when the max grows).
extern "C" __global__ void softmaxOnline(float* out, const float* inp, int N, int C) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const uint lane = threadIdx.x % 32;
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float m = -INFINITY, s = 0.0f;
  for (int i = lane; i < C; i += 32) {
    const float v = x[i];
    if (v > m) {
      s *= __expf(m - v);
      m = v;
    }
    s += __expf(v - m);
  }
  for (int o = 16; o > 0; o /= 2) {
    const float om = __shfl_xor_sync(0xffffffffu, m, o);
    const float os = __shfl_xor_sync(0xffffffffu, s, o);
    const float nm = fmaxf(m, om);
    s = s * __expf(m - nm) + os * __expf(om - nm);
    m = nm;
  }
  const float inv = 1.0f / s;
  for (int i = lane; i < C; i += 32) out[(size_t)row * C + i] = __expf(x[i] - m) * inv;
}

// Warp per row: mean, 1/std (eps 1e-5), out = (x - mean) / std * weight + bias.
extern "C" __global__ void layernormWarp(float* out, float* mean, float* rstd, const float* inp,
                                         const float* weight, const float* bias, int N, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
  if (row >= N) return;
  const float* x = inp + (size_t)row * C;
  float s = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) s += x[i];
  s = cg::reduce(warp, s, cg::plus<float>());
  const float m = s / C;
  if (warp.thread_rank() == 0) __stcs(mean + row, m);
  s = 0.0f;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) {
    const float d = x[i] - m;
    s += d * d;
  }
  s = cg::reduce(warp, s, cg::plus<float>());
  const float r = rsqrtf(s / C + 1e-5f);
  if (warp.thread_rank() == 0) __stcs(rstd + row, r);
  float* y = out + (size_t)row * C;
  for (int c = warp.thread_rank(); c < C; c += warp.size()) {
    const float n = r * (__ldcs(x + c) - m);
    __stcs(y + c, n * weight[c] + bias[c]);
  }
}
