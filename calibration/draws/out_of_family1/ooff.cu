// Out-of-family validation set 1 (issue 38 item 3): kernels this project never developed the
// timing model against, written for this set from published techniques (not copied from any
// source), each conflicted kernel with a conflict-free twin (a "step": the same algorithm, the
// bank pattern changed by a template parameter or a run-time argument).
//
// One file for nvcc (run.sh) and NVRTC (warpsim's launches/*.cu.ron). Host code sits under
// `#ifndef __CUDACC_RTC__`. Every kernel has the signature (const float* x, float* out, int a,
// int b, int c) so one host table launches them all (launches.tsv); x is warpsim's Random(1)
// (f32 in [-1, 1)); what a, b and c mean is said at each kernel.
//
// Families (techniques):
//   red_tree<IL, B>   Harris, "Optimizing Parallel Reduction in CUDA" (2007): a grid-stride
//                     load (kernel 7's multiple elements a thread) then the shared tree with
//                     interleaved addressing and a strided index (kernel 2, IL 1: conflicts) or
//                     sequential addressing (kernel 3, IL 0).
//   red_unroll<B>     the same talk's kernels 5-6: the tree down to one warp with barriers, the
//                     last warp unrolled (here with __syncwarp between steps, as Volta+ needs).
//   scan4<PAD>        a block scan of 4 elements a thread: staged through shared memory
//                     coalesced, each thread reads its 4 consecutive elements (4-way conflicts
//                     unpadded), a Blelloch (work-efficient) scan of the thread totals, with or
//                     without the i + i / 32 padding of Harris, Sengupta and Owens (GPU Gems 3
//                     ch. 39).
//   hs_scan<AOS>      Hillis and Steele (1986) inclusive scan, double-buffered, one element a
//                     thread; the two buffers interleaved element by element (AOS 1: 2-way
//                     conflicts) or one after the other (AOS 0).
//   sten1d<R, STR>    1-D stencil of radius R, 4 outputs a thread from a shared tile with
//                     halos; outputs 4t..4t+3 (STR 0: 4-way conflicts) or t, t+B, t+2B, t+3B
//                     (STR 1).
//   sten2d<P>         2-D 5-point Jacobi step, a 32 x 16 tile with halo kept column-major with
//                     a row length of 32 + P (P 0: 32-way conflicts, P 1: none).
//   bitonic_pair      Batcher's bitonic sort in shared memory, one thread a compare-exchange
//                     pair (index 2t - (t & (j - 1))): conflicts at small strides.
//   bitonic_xor       the same network, one thread an element, partner t ^ j (conflict-free,
//                     half the threads idle at each step).
//   histo             256-bin block histogram with shared atomics; bins from the data (random:
//                     conflicts) or from the element's index (lanes on 32 banks): b, c masks.
//   gemm_bt<T, P>     tiled SGEMM (Kirk and Hwu ch. 4 style) with the B tile stored transposed
//                     in shared memory, row length T + P (P 0: T-way-ish conflicts).
//   softmax<IL>       one block a row: max and sum by shared trees (interleaved IL 1 or
//                     sequential IL 0), then exp(x - max) / sum (Milakov and Gimelshein 2018).
//   layernorm<V, P>   one block a row, staged through shared memory, each thread V consecutive
//                     elements (V-way conflicts unpadded, none with i + i / 32).
//   tr_small<P>       a warp transposes one 16 x 16 matrix (batched small transposes, as in
//                     block DCTs), row length 16 + P (P 0: 8-way conflicts on the reads).
//   tr_rect<P>        transpose through a 32 x 64 tile (a thread moves 8 elements), row length
//                     64 + P (P 0: 32-way conflicts on the reads).

// ---- Reductions -------------------------------------------------------------------------------
// a = n (elements; a multiple of gridDim.x * B). out[block] = the block's partial sum.
template <int IL, int B>
__global__ void red_tree(const float* x, float* out, int n, int, int) {
  __shared__ float s[B];
  unsigned t = threadIdx.x;
  float v = 0.f;
  for (unsigned i = blockIdx.x * B + t; i < (unsigned)n; i += gridDim.x * B) v += x[i];
  s[t] = v;
  __syncthreads();
  if (IL) {
    for (unsigned st = 1; st < B; st <<= 1) {
      unsigned j = 2 * st * t;
      if (j < B) s[j] += s[j + st];
      __syncthreads();
    }
  } else {
    for (unsigned st = B / 2; st > 0; st >>= 1) {
      if (t < st) s[t] += s[t + st];
      __syncthreads();
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

template <int B>
__global__ void red_unroll(const float* x, float* out, int n, int, int) {
  __shared__ float s[B];
  unsigned t = threadIdx.x;
  float v = 0.f;
  for (unsigned i = blockIdx.x * B + t; i < (unsigned)n; i += gridDim.x * B) v += x[i];
  s[t] = v;
  __syncthreads();
#pragma unroll
  for (unsigned st = B / 2; st > 32; st >>= 1) {
    if (t < st) s[t] += s[t + st];
    __syncthreads();
  }
  if (t < 32) {
    volatile float* w = s;
    float r = w[t] + w[t + 32];
    __syncwarp();
#pragma unroll
    for (int st = 16; st > 0; st >>= 1) {
      w[t] = r;
      __syncwarp();
      r += w[t + st];
      __syncwarp();
    }
    if (t == 0) out[blockIdx.x] = r;
  }
}

// ---- Scans ------------------------------------------------------------------------------------
// scan4: inclusive scan of 4 * blockDim.x elements a block. Dynamic shared:
// (4B + 4B/32 + B + B/32) floats. a = 0 at run time: an offset the compiler cannot see, so the
// thread's 4 consecutive elements stay 4 scalar LDS/STS (a constant 0 lets ptxas merge them into
// one LDS.128, which has no conflicts: then there would be no step).
template <int PAD>
__device__ __forceinline__ int cf(int i) { return PAD ? i + (i >> 5) : i; }

template <int PAD>
__global__ void scan4(const float* x, float* out, int z, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x, n = 4 * B;
  const float* in = x + (size_t)blockIdx.x * n;
  float* o = out + (size_t)blockIdx.x * n;
  float* sums = s + n + n / 32;
#pragma unroll
  for (int k = 0; k < 4; k++) s[cf<PAD>(k * B + t)] = in[k * B + t];
  __syncthreads();
  float v[4], run = 0.f;
#pragma unroll
  for (int k = 0; k < 4; k++) { v[k] = s[cf<PAD>(z + 4 * t + k)]; run += v[k]; }
  sums[cf<PAD>(t)] = run;
  int off = 1;
  for (int d = B >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
      sums[cf<PAD>(bi)] += sums[cf<PAD>(ai)];
    }
    off <<= 1;
  }
  __syncthreads();
  if (t == 0) sums[cf<PAD>(B - 1)] = 0.f;
  for (int d = 1; d < B; d <<= 1) {
    off >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = off * (2 * t + 1) - 1, bi = off * (2 * t + 2) - 1;
      float a = sums[cf<PAD>(ai)];
      sums[cf<PAD>(ai)] = sums[cf<PAD>(bi)];
      sums[cf<PAD>(bi)] += a;
    }
  }
  __syncthreads();
  float base = sums[cf<PAD>(t)];
#pragma unroll
  for (int k = 0; k < 4; k++) { base += v[k]; s[cf<PAD>(z + 4 * t + k)] = base; }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < 4; k++) o[k * B + t] = s[cf<PAD>(k * B + t)];
}

// hs_scan: inclusive scan of blockDim.x elements a block. Dynamic shared: 2B floats.
template <int AOS>
__global__ void hs_scan(const float* x, float* out, int, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x;
  const size_t g = (size_t)blockIdx.x * B + t;
#define HS(b, i) s[AOS ? 2 * (i) + (b) : (b) * B + (i)]
  int cur = 0;
  HS(0, t) = x[g];
  __syncthreads();
  for (int d = 1; d < B; d <<= 1) {
    float v = HS(cur, t);
    if (t >= d) v += HS(cur, t - d);
    HS(1 - cur, t) = v;
    cur = 1 - cur;
    __syncthreads();
  }
  out[g] = HS(cur, t);
#undef HS
}

// ---- Stencils ---------------------------------------------------------------------------------
// sten1d: out[i] = sum of x[i .. i + 2R] (x holds the halo: length n + 2R); 4B outputs a block.
// Dynamic shared: (4B + 2R) + 4B floats (the tile, then the results before the coalesced store).
// a = 0 at run time (an offset ptxas cannot see: the STR 0 reads stay scalar, not LDS.128).
template <int R, int STR>
__global__ void sten1d(const float* x, float* out, int z, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x, m = 4 * B;
  float* res = s + m + 2 * R;
  const size_t base = (size_t)blockIdx.x * m;
  for (int k = t; k < m + 2 * R; k += B) s[k] = x[base + k];
  __syncthreads();
#pragma unroll
  for (int q = 0; q < 4; q++) {
    const int o = STR ? q * B + t : 4 * t + q;
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j <= 2 * R; j++) acc += s[z + o + j];
    res[z + o] = acc;
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < 4; q++) out[base + q * B + t] = res[q * B + t];
}

// sten2d: one Jacobi step on an a x a grid; x is the (a + 2) x (a + 2) grid with its boundary.
// Block (32, 16); the tile of 34 x 18 values is stored column-major: tile[col][row], rows padded
// to 32 + P.
template <int P>
__global__ void sten2d(const float* x, float* out, int n, int, int) {
  __shared__ float tile[34][32 + P];
  const int tx = threadIdx.x, ty = threadIdx.y, w = n + 2;
  const int c0 = blockIdx.x * 32, r0 = blockIdx.y * 16;
  for (int k = ty * 32 + tx; k < 34 * 18; k += 512) {
    int r = k / 34, c = k % 34;
    tile[c][r] = x[(size_t)(r0 + r) * w + c0 + c];
  }
  __syncthreads();
  float v = tile[tx + 1][ty + 1] + tile[tx][ty + 1] + tile[tx + 2][ty + 1] + tile[tx + 1][ty] +
            tile[tx + 1][ty + 2];
  out[(size_t)(r0 + ty) * n + c0 + tx] = 0.2f * v;
}

// ---- Bitonic sort (ascending, one block sorts its own chunk) ----------------------------------
// bitonic_pair: 2B keys a block (dynamic shared 2B floats); bitonic_xor: B keys (B floats).
__global__ void bitonic_pair(const float* x, float* out, int, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x, n = 2 * B;
  const float* in = x + (size_t)blockIdx.x * n;
  float* o = out + (size_t)blockIdx.x * n;
  s[t] = in[t];
  s[t + B] = in[t + B];
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      __syncthreads();
      int pos = 2 * t - (t & (j - 1));
      float a = s[pos], b = s[pos + j];
      bool up = (pos & k) == 0;
      if ((a > b) == up) {
        s[pos] = b;
        s[pos + j] = a;
      }
    }
  }
  __syncthreads();
  o[t] = s[t];
  o[t + B] = s[t + B];
}

__global__ void bitonic_xor(const float* x, float* out, int, int, int) {
  extern __shared__ float s[];
  const int n = blockDim.x, t = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * n;
  float* o = out + (size_t)blockIdx.x * n;
  s[t] = in[t];
  for (int k = 2; k <= n; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      __syncthreads();
      int p = t ^ j;
      if (p > t) {
        float a = s[t], b = s[p];
        bool up = (t & k) == 0;
        if ((a > b) == up) {
          s[t] = b;
          s[p] = a;
        }
      }
    }
  }
  __syncthreads();
  o[t] = s[t];
}

// ---- Histogram --------------------------------------------------------------------------------
// a = elements a block, b = data mask (255: bins from the data), c = index mask (255: bins from
// the element's index). out[block * 256 + bin] = the count, as a float.
__global__ void histo(const float* x, float* out, int per, int dm, int km) {
  __shared__ unsigned h[256];
  const int t = threadIdx.x, B = blockDim.x;
  for (int k = t; k < 256; k += B) h[k] = 0u;
  __syncthreads();
  const float* in = x + (size_t)blockIdx.x * per;
  for (int k = t; k < per; k += B) {
    int d = (int)((in[k] + 1.0f) * 128.0f);
    atomicAdd(&h[(d & dm) + (k & km)], 1u);
  }
  __syncthreads();
  for (int k = t; k < 256; k += B) out[(size_t)blockIdx.x * 256 + k] = (float)h[k];
}

// ---- Tiled GEMM, the B tile transposed in shared memory ---------------------------------------
// C (a x a) = A B; A = x, B = x + a * a. Block (T, T).
template <int T, int P>
__global__ void gemm_bt(const float* x, float* out, int n, int, int) {
  __shared__ float As[T][T + P];
  __shared__ float Bt[T][T + P];
  const float* A = x;
  const float* Bm = x + (size_t)n * n;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += T) {
    As[ty][tx] = A[(size_t)row * n + k0 + tx];
    Bt[tx][ty] = Bm[(size_t)(k0 + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < T; k++) acc += As[ty][k] * Bt[tx][k];
    __syncthreads();
  }
  out[(size_t)row * n + col] = acc;
}

// ---- Row kernels: one block a row of a elements ----------------------------------------------
// softmax: dynamic shared blockDim.x floats.
template <int IL, int MAX>
__device__ __forceinline__ float block_tree(float v, float* s) {
  const unsigned B = blockDim.x, t = threadIdx.x;
  __syncthreads();
  s[t] = v;
  __syncthreads();
  if (IL) {
    for (unsigned st = 1; st < B; st <<= 1) {
      unsigned j = 2 * st * t;
      if (j < B) s[j] = MAX ? fmaxf(s[j], s[j + st]) : s[j] + s[j + st];
      __syncthreads();
    }
  } else {
    for (unsigned st = B / 2; st > 0; st >>= 1) {
      if (t < st) s[t] = MAX ? fmaxf(s[t], s[t + st]) : s[t] + s[t + st];
      __syncthreads();
    }
  }
  return s[0];
}

template <int IL>
__global__ void softmax(const float* x, float* out, int len, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * len;
  float* o = out + (size_t)blockIdx.x * len;
  float m = -3.0e38f;
  for (int k = t; k < len; k += B) m = fmaxf(m, in[k]);
  m = block_tree<IL, 1>(m, s);
  float sum = 0.f;
  for (int k = t; k < len; k += B) sum += __expf(in[k] - m);
  sum = block_tree<IL, 0>(sum, s);
  const float inv = 1.0f / sum;
  for (int k = t; k < len; k += B) o[k] = __expf(in[k] - m) * inv;
}

// layernorm: the row staged in shared memory (len + len / 32 floats, then blockDim.x for the
// tree); thread t owns elements V t .. V t + V - 1 (len = V * blockDim.x). b = 0 at run time
// (keeps the V consecutive accesses scalar, as in scan4).
template <int V, int P>
__global__ void layernorm(const float* x, float* out, int len, int z, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x;
  float* red = s + len + len / 32;
  const float* in = x + (size_t)blockIdx.x * len;
  float* o = out + (size_t)blockIdx.x * len;
  for (int k = t; k < len; k += B) s[cf<P>(k)] = in[k];
  __syncthreads();
  float v[V], s1 = 0.f, s2 = 0.f;
#pragma unroll
  for (int j = 0; j < V; j++) {
    v[j] = s[cf<P>(z + V * t + j)];
    s1 += v[j];
    s2 += v[j] * v[j];
  }
  const float mean = block_tree<0, 0>(s1, red) / len;
  const float var = block_tree<0, 0>(s2, red) / len - mean * mean;
  const float r = rsqrtf(var + 1e-5f);
#pragma unroll
  for (int j = 0; j < V; j++) s[cf<P>(z + V * t + j)] = (v[j] - mean) * r;
  __syncthreads();
  for (int k = t; k < len; k += B) o[k] = s[cf<P>(k)];
}

// ---- Transposes -------------------------------------------------------------------------------
// tr_small: matrices of 16 x 16, one a warp; a = warps a block (blockDim.x = 32 a).
template <int P>
__global__ void tr_small(const float* x, float* out, int, int, int) {
  __shared__ float s[8][16][16 + P];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const size_t mat = (size_t)blockIdx.x * (blockDim.x >> 5) + w;
  const float* in = x + mat * 256;
  float* o = out + mat * 256;
#pragma unroll
  for (int j = 0; j < 8; j++) {
    int e = lane + 32 * j;
    s[w][e >> 4][e & 15] = in[e];
  }
  __syncwarp();
#pragma unroll
  for (int j = 0; j < 8; j++) {
    int e = lane + 32 * j;
    o[e] = s[w][e & 15][e >> 4];
  }
}

// tr_rect: out (a x a) = transpose of x (a x a); block (32, 8); a 32-row x 64-column tile.
template <int P>
__global__ void tr_rect(const float* x, float* out, int n, int, int) {
  __shared__ float tile[32][64 + P];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c0 = blockIdx.x * 64, r0 = blockIdx.y * 32;
#pragma unroll
  for (int j = 0; j < 32; j += 8) {
    tile[ty + j][tx] = x[(size_t)(r0 + ty + j) * n + c0 + tx];
    tile[ty + j][tx + 32] = x[(size_t)(r0 + ty + j) * n + c0 + tx + 32];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < 64; j += 8) out[(size_t)(c0 + ty + j) * n + r0 + tx] = tile[tx][ty + j];
}

// Explicit instantiations (NVRTC and cucheck compile what nvcc does).
template __global__ void red_tree<1, 128>(const float*, float*, int, int, int);
template __global__ void red_tree<0, 128>(const float*, float*, int, int, int);
template __global__ void red_tree<1, 512>(const float*, float*, int, int, int);
template __global__ void red_tree<0, 512>(const float*, float*, int, int, int);
template __global__ void red_unroll<256>(const float*, float*, int, int, int);
template __global__ void scan4<0>(const float*, float*, int, int, int);
template __global__ void scan4<1>(const float*, float*, int, int, int);
template __global__ void hs_scan<0>(const float*, float*, int, int, int);
template __global__ void hs_scan<1>(const float*, float*, int, int, int);
template __global__ void sten1d<3, 0>(const float*, float*, int, int, int);
template __global__ void sten1d<3, 1>(const float*, float*, int, int, int);
template __global__ void sten1d<8, 0>(const float*, float*, int, int, int);
template __global__ void sten1d<8, 1>(const float*, float*, int, int, int);
template __global__ void sten2d<0>(const float*, float*, int, int, int);
template __global__ void sten2d<1>(const float*, float*, int, int, int);
template __global__ void gemm_bt<16, 0>(const float*, float*, int, int, int);
template __global__ void gemm_bt<16, 1>(const float*, float*, int, int, int);
template __global__ void gemm_bt<32, 0>(const float*, float*, int, int, int);
template __global__ void gemm_bt<32, 1>(const float*, float*, int, int, int);
template __global__ void softmax<0>(const float*, float*, int, int, int);
template __global__ void softmax<1>(const float*, float*, int, int, int);
template __global__ void layernorm<4, 0>(const float*, float*, int, int, int);
template __global__ void layernorm<4, 1>(const float*, float*, int, int, int);
template __global__ void layernorm<8, 0>(const float*, float*, int, int, int);
template __global__ void layernorm<8, 1>(const float*, float*, int, int, int);
template __global__ void tr_small<0>(const float*, float*, int, int, int);
template __global__ void tr_small<1>(const float*, float*, int, int, int);
template __global__ void tr_rect<0>(const float*, float*, int, int, int);
template __global__ void tr_rect<1>(const float*, float*, int, int, int);

#ifndef __CUDACC_RTC__
// ---- Host: runs the rows of launches.tsv, each labelled on stderr in launch order --------------
// Usage: ./ooff launches.tsv [LABEL_PREFIX|all] [check]   (check: compare each result with a CPU
// reference; prints RUN <label> ok|WRONG <n>|unchecked).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

// warpsim's Random(seed) for f32 (crates/exec/src/init.rs; calibration/kernels2/common.h).
static inline uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline float random_f32(uint64_t seed, uint64_t i) {
  uint64_t h = splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
  return (float)(h >> 40) * (1.0f / (float)(1u << 23)) - 1.0f;
}

typedef void (*Kfn)(const float*, float*, int, int, int);
struct Entry { const char* name; Kfn fn; };
static const Entry TABLE[] = {
  {"red_tree<1,128>", red_tree<1, 128>}, {"red_tree<0,128>", red_tree<0, 128>},
  {"red_tree<1,512>", red_tree<1, 512>}, {"red_tree<0,512>", red_tree<0, 512>},
  {"red_unroll<256>", red_unroll<256>},
  {"scan4<0>", scan4<0>}, {"scan4<1>", scan4<1>},
  {"hs_scan<0>", hs_scan<0>}, {"hs_scan<1>", hs_scan<1>},
  {"sten1d<3,0>", sten1d<3, 0>}, {"sten1d<3,1>", sten1d<3, 1>},
  {"sten1d<8,0>", sten1d<8, 0>}, {"sten1d<8,1>", sten1d<8, 1>},
  {"sten2d<0>", sten2d<0>}, {"sten2d<1>", sten2d<1>},
  {"bitonic_pair", bitonic_pair}, {"bitonic_xor", bitonic_xor},
  {"histo", histo},
  {"gemm_bt<16,0>", gemm_bt<16, 0>}, {"gemm_bt<16,1>", gemm_bt<16, 1>},
  {"gemm_bt<32,0>", gemm_bt<32, 0>}, {"gemm_bt<32,1>", gemm_bt<32, 1>},
  {"softmax<0>", softmax<0>}, {"softmax<1>", softmax<1>},
  {"layernorm<4,0>", layernorm<4, 0>}, {"layernorm<4,1>", layernorm<4, 1>},
  {"layernorm<8,0>", layernorm<8, 0>}, {"layernorm<8,1>", layernorm<8, 1>},
  {"tr_small<0>", tr_small<0>}, {"tr_small<1>", tr_small<1>},
  {"tr_rect<0>", tr_rect<0>}, {"tr_rect<1>", tr_rect<1>},
};

struct Row {
  std::string label, kernel, family;
  unsigned gx, gy, bx, by, smem;
  int a, b, c;
  size_t xlen, outlen;
};

static std::vector<Row> read_rows(const char* path) {
  std::vector<Row> rows;
  FILE* f = fopen(path, "r");
  if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#' || line[0] == '\n' || !strncmp(line, "label\t", 6)) continue;
    char lab[256], ker[64], fam[64];
    unsigned gx, gy, bx, by, sm;
    int a, b, c;
    unsigned long long xl, ol;
    if (sscanf(line, "%255s %63s %u %u %u %u %u %d %d %d %llu %llu %63s", lab, ker, &gx, &gy, &bx, &by,
               &sm, &a, &b, &c, &xl, &ol, fam) != 13) {
      fprintf(stderr, "bad row: %s", line);
      exit(2);
    }
    rows.push_back({lab, ker, fam, gx, gy, bx, by, sm, a, b, c, (size_t)xl, (size_t)ol});
  }
  fclose(f);
  return rows;
}

static Kfn find(const std::string& k) {
  for (const Entry& e : TABLE) if (k == e.name) return e.fn;
  fprintf(stderr, "unknown kernel %s\n", k.c_str());
  exit(2);
}

static bool starts(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The CPU reference of every kernel (what the launch files' `expect`s say), compared as warpsim
// does: |got - want| <= tol * max(1, max |want|). Returns the number of wrong elements.
static long check(const Row& r, const std::vector<float>& x, const std::vector<float>& out) {
  const std::string& k = r.kernel;
  std::vector<double> want;
  double tol = 1e-4;
  const unsigned B = r.bx * r.by, G = r.gx * r.gy;
  if (starts(k, "red_")) {
    size_t per = (size_t)r.a / G;
    for (unsigned g = 0; g < G; g++) {
      double s = 0;
      for (size_t q = 0; q < per; q++) s += x[(q / B) * G * B + (size_t)g * B + q % B];
      want.push_back(s);
    }
  } else if (starts(k, "scan4") || starts(k, "hs_scan")) {
    size_t n = starts(k, "scan4") ? 4 * B : B;
    for (size_t i = 0; i < (size_t)G * n; i++) {
      double s = (i % n == 0) ? 0 : want.back();
      want.push_back(s + x[i]);
    }
    tol = 1e-4;
  } else if (starts(k, "sten1d")) {
    int R = k[7] - '0';  // sten1d<3,...> or sten1d<8,...>
    for (size_t i = 0; i < r.outlen; i++) {
      double s = 0;
      for (int j = 0; j <= 2 * R; j++) s += x[i + j];
      want.push_back(s);
    }
  } else if (starts(k, "sten2d")) {
    size_t n = r.a, w = n + 2;
    for (size_t i = 0; i < n * n; i++) {
      size_t rr = i / n, c = i % n;
      want.push_back(0.2 * (x[(rr + 1) * w + c + 1] + x[(rr + 1) * w + c] + x[(rr + 1) * w + c + 2] +
                            x[rr * w + c + 1] + x[(rr + 2) * w + c + 1]));
    }
  } else if (starts(k, "bitonic")) {
    size_t n = k == "bitonic_pair" ? 2 * B : B;
    for (unsigned g = 0; g < G; g++) {
      std::vector<float> v(x.begin() + (size_t)g * n, x.begin() + (size_t)(g + 1) * n);
      std::sort(v.begin(), v.end());
      for (float f : v) want.push_back(f);
    }
    tol = 0;
  } else if (k == "histo") {
    for (unsigned g = 0; g < G; g++) {
      std::vector<double> h(256, 0);
      for (int q = 0; q < r.a; q++) {
        int d = (int)((x[(size_t)g * r.a + q] + 1.0f) * 128.0f);
        h[(d & r.b) + (q & r.c)] += 1;
      }
      for (double v : h) want.push_back(v);
    }
    tol = 0;
  } else if (starts(k, "gemm_bt")) {
    size_t n = r.a;
    for (size_t i = 0; i < n * n; i++) {
      double s = 0;
      for (size_t q = 0; q < n; q++) s += (double)x[(i / n) * n + q] * x[n * n + q * n + i % n];
      want.push_back(s);
    }
  } else if (starts(k, "softmax")) {
    size_t L = r.a;
    for (unsigned g = 0; g < G; g++) {
      double s = 0;
      for (size_t q = 0; q < L; q++) s += exp((double)x[g * L + q]);
      for (size_t q = 0; q < L; q++) want.push_back(exp((double)x[g * L + q]) / s);
    }
  } else if (starts(k, "layernorm")) {
    size_t L = r.a;
    for (unsigned g = 0; g < G; g++) {
      double s1 = 0, s2 = 0;
      for (size_t q = 0; q < L; q++) { double v = x[g * L + q]; s1 += v; s2 += v * v; }
      double m = s1 / L, var = s2 / L - m * m;
      for (size_t q = 0; q < L; q++) want.push_back((x[g * L + q] - m) / sqrt(var + 1e-5));
    }
    tol = 1e-3;
  } else if (starts(k, "tr_small")) {
    for (size_t i = 0; i < r.outlen; i++) {
      size_t m = i / 256, e = i % 256;
      want.push_back(x[m * 256 + (e & 15) * 16 + (e >> 4)]);
    }
    tol = 0;
  } else if (starts(k, "tr_rect")) {
    size_t n = r.a;
    for (size_t i = 0; i < n * n; i++) want.push_back(x[(i % n) * n + i / n]);
    tol = 0;
  } else {
    return -1;
  }
  double mx = 1;
  for (double w : want) mx = std::max(mx, fabs(w));
  long bad = 0;
  for (size_t i = 0; i < want.size() && i < out.size(); i++)
    if (!(fabs(out[i] - want[i]) <= tol * mx)) bad++;
  if (want.size() != out.size()) bad += 1000000;
  return bad;
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: ooff launches.tsv PREFIX|all [check]\n"); return 2; }
  std::vector<Row> rows = read_rows(argv[1]);
  std::string pre = argv[2];
  bool docheck = argc > 3 && !strcmp(argv[3], "check");
  size_t xmax = 0, omax = 0;
  for (const Row& r : rows) { xmax = std::max(xmax, r.xlen); omax = std::max(omax, r.outlen); }
  std::vector<float> hx(xmax);
  for (size_t i = 0; i < xmax; i++) hx[i] = random_f32(1, i);
  float *dx, *dout;
  CK(cudaMalloc(&dx, xmax * 4 + 64));
  CK(cudaMalloc(&dout, omax * 4 + 64));
  CK(cudaMemcpy(dx, hx.data(), xmax * 4, cudaMemcpyHostToDevice));
  CK(cudaDeviceSynchronize());
  int n = 0;
  for (const Row& r : rows) {
    if (pre != "all" && !starts(r.label, pre.c_str())) continue;
    Kfn fn = find(r.kernel);
    if (r.smem > 48 * 1024) CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
    CK(cudaMemset(dout, 0, r.outlen * 4));
    fprintf(stderr, "LAUNCH\t%d\t%s\t%s\t%ux%u\t%ux%u\n", n++, r.label.c_str(), r.kernel.c_str(), r.gx, r.gy, r.bx, r.by);
    void* args[] = {(void*)&dx, (void*)&dout, (void*)&r.a, (void*)&r.b, (void*)&r.c};
    CK(cudaLaunchKernel((const void*)fn, dim3(r.gx, r.gy), dim3(r.bx, r.by), args, r.smem, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (docheck) {
      std::vector<float> out(r.outlen);
      CK(cudaMemcpy(out.data(), dout, r.outlen * 4, cudaMemcpyDeviceToHost));
      std::vector<float> xs(hx.begin(), hx.begin() + r.xlen);
      long bad = check(r, xs, out);
      if (bad < 0) printf("RUN\t%s\tunchecked\n", r.label.c_str());
      else if (bad == 0) printf("RUN\t%s\tok\n", r.label.c_str());
      else printf("RUN\t%s\tWRONG %ld\n", r.label.c_str(), bad);
      fflush(stdout);
    }
  }
  CK(cudaFree(dx));
  CK(cudaFree(dout));
  return 0;
}
#endif  // __CUDACC_RTC__
