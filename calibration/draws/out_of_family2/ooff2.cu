// Out-of-family validation set 2: kernels this project never developed the timing model against
// (none of them is in out_of_family1, zoo, classic or cuda_kernels1), written for this set from
// published techniques (not copied from any source). Conflicted kernels come with a
// conflict-free twin (a "step": the same algorithm, the bank pattern changed by a template
// parameter); the integer families (hash, morton, and bitrev's twins) have no conflicts at all.
//
// One file for nvcc (run.sh) and NVRTC (warpsim's launches/*.cu.ron). Host code sits under
// `#ifndef __CUDACC_RTC__`. Every kernel has the signature (const float* x, float* out, int a,
// int b, int c) so one host table launches them all (launches.tsv); x is warpsim's Random(1)
// (f32 in [-1, 1): k / 2^23 - 1 for a 24-bit k, so (x + 1) * 2^23 is the exact 24-bit integer
// key the integer kernels use); what a, b and c mean is said at each kernel. Integer results are
// stored as floats of 24-bit values (exact).
//
// Families (techniques):
//   gemv_n<P>        y = A v, a thread a row (the row-per-thread GEMV), A staged through a shared
//                    128 x 32 tile with coalesced loads and read along the rows: row length 32
//                    (P 0: 32-way conflicts) or 33 (P 1: none); v staged in shared memory and
//                    read as a broadcast. Padding as in Ruetsch and Micikevicius, "Optimizing
//                    Matrix Transpose in CUDA" (NVIDIA 2009).
//   gemv_t           y = A^T v (column sums weighted by v), a thread a column, coalesced, v
//                    staged in shared memory (broadcast reads): no conflicts.
//   bitrev<L, P>     bit-reversal permutation of blocks of 2^L elements through shared memory
//                    (the reordering step of a radix-2 FFT, Cooley and Tukey 1965): coalesced in,
//                    the reversed index read back with __brev (P 0: 32-way conflicts), twin padded
//                    i + (i >> (L - 5)) (one element a 2^(L-5)-element row: none).
//   fwht<P>          fast Walsh-Hadamard transform of 1,024 points a block (the radix-2 butterfly
//                    network of the FFT without twiddles; Fino and Algazi, IEEE Trans. Computers
//                    1976), one butterfly a thread a stage, the butterflies of a stage dealt to
//                    threads group-major (lanes stride across groups: up to 32-way conflicts),
//                    twin padded i + i / 32 (Harris, Sengupta and Owens, GPU Gems 3 ch. 39: none).
//   oets<S>          odd-even transposition sort of 2B keys a block in shared memory (Habermann
//                    1972; Knuth TAOCP 3, 5.3.4): pairs (2t + p, 2t + p + 1) at stride 2 (S 0:
//                    2-way conflicts on every access) or with the even and odd positions stored in
//                    two halves (S 1: none).
//   dhist<V>         the local digit histogram of a radix sort (Satish, Harris and Garland, IPDPS
//                    2009): 16 bins of a 4-bit digit by shared atomics, one counter a bin (V 0:
//                    lanes with the same digit collide) or a counter a bin and lane (V 1: per-lane
//                    sub-histograms as in Podlozhnyuk, "Histogram calculation in CUDA", NVIDIA
//                    2007: no conflicts), then reduced.
//   psort<IL>        8 keys a thread sorted by the 19-comparator network for 8 inputs (Knuth
//                    TAOCP 3, 5.3.4) on a private array in (volatile) shared memory: thread-major
//                    (IL 0: 8-way conflicts) or interleaved k * B + t (IL 1: none), the layout
//                    advice of the CUDA C Best Practices Guide.
//   tile8<P>         separable 2-D transform of 8 x 8 tiles, Y = C X C^T, structured as the JPEG
//                    DCT (Ahmed, Natarajan and Rao 1974) with a fixed integer-valued basis C:
//                    a thread a row then a thread a column of a tile in shared memory, rows of 8
//                    (P 0: 8-way on the row pass, 4-way on the column pass) or 9 (P 1: none in the
//                    passes; the staging has 2-way on 3 banks).
//   ksum<C>          grid-stride sum, plain (C 0) or Kahan-compensated (C 1; Kahan 1965), then
//                    warp-shuffle trees and per-warp partials in shared memory: no conflicts.
//   fnv1a            FNV-1a hash (Fowler, Noll and Vo) of the bytes of 8 keys a thread: xor,
//                    multiply and byte extraction (integer pipes), no shared memory.
//   lcg              R rounds of the Numerical Recipes LCG (h = 1664525 h + 1013904223) on 4
//                    keys a thread: dependent integer multiply-adds, no shared memory.
//   morton_enc/dec   3-D Morton (Z-order) codes of 8-bit coordinates (Morton 1966) by the
//                    "magic numbers" bit interleave (shifts, ors, masks), 4 keys a thread.

// ---- GEMV --------------------------------------------------------------------------------------
// gemv_n: a = n (columns; a multiple of 32), b = 0 at run time (an offset ptxas cannot see: the
// row reads stay scalar LDS, not LDS.128). rows = gridDim.x * 128; A = x[0, rows * n), v the next
// n floats. Block 128.
template <int P>
__global__ void gemv_n(const float* x, float* out, int n, int z, int) {
  __shared__ float As[128][32 + P];
  __shared__ float vs[32];
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const size_t r0 = (size_t)blockIdx.x * 128;
  const float* A = x + r0 * n;
  const float* v = x + (size_t)gridDim.x * 128 * n;
  float acc = 0.f;
  for (int k0 = 0; k0 < n; k0 += 32) {
    for (int r = w; r < 128; r += 4) As[r][lane] = A[(size_t)r * n + k0 + lane];
    if (t < 32) vs[t] = v[k0 + t];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 32; k++) acc += As[t][z + k] * vs[z + k];
    __syncthreads();
  }
  out[r0 + t] = acc;
}

// gemv_t: a = rows of A (a multiple of 128); cols = gridDim.x * blockDim.x; A = x[0, a * cols),
// v the next a floats. out[c] = sum_r A[r][c] v[r]. Block 128.
__global__ void gemv_t(const float* x, float* out, int rows, int, int) {
  __shared__ float vs[128];
  const int t = threadIdx.x;
  const size_t cols = (size_t)gridDim.x * blockDim.x, c = (size_t)blockIdx.x * blockDim.x + t;
  const float* v = x + (size_t)rows * cols;
  float acc = 0.f;
  for (int r0 = 0; r0 < rows; r0 += 128) {
    __syncthreads();
    vs[t] = v[r0 + t];
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < 128; k++) acc += x[(size_t)(r0 + k) * cols + c] * vs[k];
  }
  out[c] = acc;
}

// ---- Bit-reversal permutation --------------------------------------------------------------------
// out[blk * 2^L + e] = x[blk * 2^L + rev_L(e)]. Dynamic shared (2^L + 2^L / 32) floats.
template <int L, int P>
__device__ __forceinline__ int brx(int i) { return P ? i + (i >> (L - 5)) : i; }

template <int L, int P>
__global__ void bitrev(const float* x, float* out, int, int, int) {
  extern __shared__ float s[];
  const int N = 1 << L, B = blockDim.x, t = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * N;
  float* o = out + (size_t)blockIdx.x * N;
  for (int e = t; e < N; e += B) s[brx<L, P>(e)] = in[e];
  __syncthreads();
  for (int e = t; e < N; e += B) o[e] = s[brx<L, P>((int)(__brev((unsigned)e) >> (32 - L)))];
}

// ---- Fast Walsh-Hadamard transform (unnormalised), 2B points a block ----------------------------
// Dynamic shared (2B + 2B / 32) floats. Stage h (1, 2, ..., B): G = B / h groups of 2h points;
// butterfly j of the stage is dealt group-major: group j % G, offset j / G.
template <int P>
__device__ __forceinline__ int pd(int i) { return P ? i + (i >> 5) : i; }

template <int P>
__global__ void fwht(const float* x, float* out, int, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x, N = 2 * B;
  const float* in = x + (size_t)blockIdx.x * N;
  float* o = out + (size_t)blockIdx.x * N;
  s[pd<P>(t)] = in[t];
  s[pd<P>(t + B)] = in[t + B];
  int lgG = 31 - __clz(B);  // log2 of the number of groups at the first stage (h = 1)
  for (int lh = 0; (1 << lh) < N; lh++, lgG--) {
    __syncthreads();
    const int h = 1 << lh;
    const int a = ((t & ((1 << lgG) - 1)) << (lh + 1)) | (t >> lgG);
    const float u = s[pd<P>(a)], v = s[pd<P>(a + h)];
    s[pd<P>(a)] = u + v;
    s[pd<P>(a + h)] = u - v;
  }
  __syncthreads();
  o[t] = s[pd<P>(t)];
  o[t + B] = s[pd<P>(t + B)];
}

// ---- Odd-even transposition sort, 2B keys a block ---------------------------------------------
// Dynamic shared 2B floats. a = 0 at run time: without it the compiler merges the even phases'
// pair (2t, 2t + 1) into one 8-byte access (no conflicts: no step; seen in NVRTC 12.6's PTX).
template <int S>
__device__ __forceinline__ int oe(int i, int H) { return S ? (i & 1) * H + (i >> 1) : i; }

template <int S>
__global__ void oets(const float* x, float* out, int z, int, int) {
  extern __shared__ float s[];
  const int B = blockDim.x, t = threadIdx.x, n = 2 * B;
  const float* in = x + (size_t)blockIdx.x * n;
  float* o = out + (size_t)blockIdx.x * n;
  s[oe<S>(t, B)] = in[t];
  s[oe<S>(t + B, B)] = in[t + B];
  for (int p = 0; p < n; p++) {
    __syncthreads();
    const int a = z + 2 * t + (p & 1);
    if (a + 1 < n) {
      const float u = s[oe<S>(a, B)], v = s[oe<S>(a + 1, B)];
      s[oe<S>(a, B)] = fminf(u, v);
      s[oe<S>(a + 1, B)] = fmaxf(u, v);
    }
  }
  __syncthreads();
  o[t] = s[oe<S>(t, B)];
  o[t + B] = s[oe<S>(t + B, B)];
}

// ---- Radix-sort local digit histogram --------------------------------------------------------
// a = keys a block, b = the digit's shift; key = (x + 1) * 2^23, digit = (key >> b) & 15.
// out[block * 16 + d] = the count of digit d, as a float.
template <int V>
__global__ void dhist(const float* x, float* out, int per, int sh, int) {
  __shared__ unsigned h[16 * 32];
  const int t = threadIdx.x, B = blockDim.x, lane = t & 31;
  for (int k = t; k < 16 * 32; k += B) h[k] = 0u;
  __syncthreads();
  const float* in = x + (size_t)blockIdx.x * per;
  for (int k = t; k < per; k += B) {
    const unsigned key = (unsigned)((in[k] + 1.0f) * 8388608.0f);
    const unsigned d = (key >> sh) & 15u;
    atomicAdd(&h[V ? d * 32 + lane : d], 1u);
  }
  __syncthreads();
  if (t < 16) {
    unsigned c = 0;
    if (V) {
      for (int l = 0; l < 32; l++) c += h[t * 32 + ((l + t) & 31)];  // skewed: no conflicts
    } else {
      c = h[t];
    }
    out[(size_t)blockIdx.x * 16 + t] = (float)c;
  }
}

// ---- Per-thread sorting network on a private shared array -------------------------------------
// 8 keys a thread: x[(block * B + t) * 8 + k]; a = 0 at run time (keeps the thread-major
// accesses scalar). Dynamic shared 8B floats.
template <int IL>
__global__ void psort(const float* x, float* out, int z, int, int) {
  extern __shared__ float sm[];
  volatile float* s = sm;
  const int B = blockDim.x, t = threadIdx.x;
  const size_t g = ((size_t)blockIdx.x * B + t) * 8;
#define PS(k) s[IL ? (k) * B + t : z + 8 * t + (k)]
#define CE(i, j) { const float u = PS(i), v = PS(j); PS(i) = fminf(u, v); PS(j) = fmaxf(u, v); }
#pragma unroll
  for (int k = 0; k < 8; k++) PS(k) = x[g + k];
  CE(0, 1) CE(2, 3) CE(4, 5) CE(6, 7)
  CE(0, 2) CE(1, 3) CE(4, 6) CE(5, 7)
  CE(1, 2) CE(5, 6) CE(0, 4) CE(3, 7)
  CE(1, 5) CE(2, 6)
  CE(1, 4) CE(3, 6)
  CE(2, 4) CE(3, 5)
  CE(3, 4)
#pragma unroll
  for (int k = 0; k < 8; k++) out[g + k] = PS(k);
#undef CE
#undef PS
}

// ---- Separable 8 x 8 tile transform Y = C X C^T ----------------------------------------------
// 32 tiles a block of 256 threads (x = the tiles, 64 floats each, row-major); b = 0 at run time
// (keeps a thread's 8 row elements scalar LDS/STS). C is a fixed integer-valued basis,
// C[u][k] = ((u + 1)(2k + 1) mod 8) - 3.5, folded into the code by the compiler (it stands in for
// the DCT's cosine table, which the launch files' reference language cannot write).
__device__ __forceinline__ constexpr float cbasis(int u, int k) {
  return (float)(((u + 1) * (2 * k + 1)) & 7) - 3.5f;
}

template <int P>
__global__ void tile8(const float* x, float* out, int, int z, int) {
  constexpr int RL = 8 + P, TL = 8 * RL;
  __shared__ float s[32 * TL];
  const int t = threadIdx.x;
  const float* in = x + (size_t)blockIdx.x * 2048;
  float* o = out + (size_t)blockIdx.x * 2048;
  for (int e = t; e < 2048; e += 256) s[(e >> 6) * TL + ((e >> 3) & 7) * RL + (e & 7)] = in[e];
  __syncthreads();
  const int base = z + (t >> 3) * TL, r = t & 7;
  float v[8], w[8];
  // Row pass: Z[r][u] = sum_k X[r][k] C[u][k].
#pragma unroll
  for (int k = 0; k < 8; k++) v[k] = s[base + r * RL + k];
#pragma unroll
  for (int u = 0; u < 8; u++) {
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < 8; k++) acc += v[k] * cbasis(u, k);
    w[u] = acc;
  }
#pragma unroll
  for (int u = 0; u < 8; u++) s[base + r * RL + u] = w[u];
  __syncthreads();
  // Column pass (column r): Y[u][r] = sum_j C[u][j] Z[j][r].
#pragma unroll
  for (int j = 0; j < 8; j++) v[j] = s[base + j * RL + r];
#pragma unroll
  for (int u = 0; u < 8; u++) {
    float acc = 0.f;
#pragma unroll
    for (int j = 0; j < 8; j++) acc += cbasis(u, j) * v[j];
    w[u] = acc;
  }
  __syncthreads();
#pragma unroll
  for (int u = 0; u < 8; u++) s[base + u * RL + r] = w[u];
  __syncthreads();
  for (int e = t; e < 2048; e += 256) o[e] = s[(e >> 6) * TL + ((e >> 3) & 7) * RL + (e & 7)];
}

// ---- Sums ------------------------------------------------------------------------------------
// a = n (a multiple of gridDim.x * blockDim.x); out[block] = the block's partial sum of the
// grid-stride elements. Block a multiple of 32, at most 1024.
template <int C>
__global__ void ksum(const float* x, float* out, int n, int, int) {
  __shared__ float ws[32];
  const unsigned t = threadIdx.x, B = blockDim.x, lane = t & 31, w = t >> 5;
  float s = 0.f, c = 0.f;
  for (unsigned i = blockIdx.x * B + t; i < (unsigned)n; i += gridDim.x * B) {
    if (C) {
      const float y = x[i] - c;
      const float tt = s + y;
      c = (tt - s) - y;
      s = tt;
    } else {
      s += x[i];
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) ws[w] = s;
  __syncthreads();
  if (w == 0) {
    s = lane < B / 32 ? ws[lane] : 0.f;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) out[blockIdx.x] = s;
  }
}

// ---- Integer kernels (no shared memory) ------------------------------------------------------
__device__ __forceinline__ unsigned key24(float f) { return (unsigned)((f + 1.0f) * 8388608.0f); }

// fnv1a: T = gridDim.x * blockDim.x threads; thread i hashes keys x[j * T + i], j < 8, 3 bytes
// each (low first), FNV-1a 32-bit. out[i] = h >> 8.
__global__ void fnv1a(const float* x, float* out, int, int, int) {
  const size_t T = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h = 2166136261u;
#pragma unroll
  for (int j = 0; j < 8; j++) {
    const unsigned k = key24(x[j * T + i]);
#pragma unroll
    for (int b = 0; b < 3; b++) h = (h ^ ((k >> (8 * b)) & 255u)) * 16777619u;
  }
  out[i] = (float)(h >> 8);
}

// lcg: a = R rounds (run time); thread i runs keys x[j * T + i], j < 4, R rounds each;
// out[i] = (h0 ^ h1 ^ h2 ^ h3) >> 8.
__global__ void lcg(const float* x, float* out, int rounds, int, int) {
  const size_t T = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned h[4];
#pragma unroll
  for (int j = 0; j < 4; j++) h[j] = key24(x[j * T + i]);
  for (int r = 0; r < rounds; r++) {
#pragma unroll
    for (int j = 0; j < 4; j++) h[j] = h[j] * 1664525u + 1013904223u;
  }
  out[i] = (float)((h[0] ^ h[1] ^ h[2] ^ h[3]) >> 8);
}

__device__ __forceinline__ unsigned part1by2(unsigned v) {  // 8 bits -> every third bit
  v &= 0xFFu;
  v = (v | (v << 8)) & 0x0000F00Fu;
  v = (v | (v << 4)) & 0x000C30C3u;
  v = (v | (v << 2)) & 0x00249249u;
  return v;
}
__device__ __forceinline__ unsigned compact1by2(unsigned v) {  // every third bit -> 8 bits
  v &= 0x00249249u;
  v = (v | (v >> 2)) & 0x000C30C3u;
  v = (v | (v >> 4)) & 0x0000F00Fu;
  v = (v | (v >> 8)) & 0x000000FFu;
  return v;
}

// morton_enc: key = (z << 16) | (y << 8) | x (8 bits each) -> the 24-bit Morton code; 4 keys a
// thread (x[j * T + i]), out[i] = the xor of the 4 codes. morton_dec: the inverse (the key read as
// a code), the same layout.
__global__ void morton_enc(const float* x, float* out, int, int, int) {
  const size_t T = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = 0;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const unsigned k = key24(x[j * T + i]);
    r ^= part1by2(k) | (part1by2(k >> 8) << 1) | (part1by2(k >> 16) << 2);
  }
  out[i] = (float)r;
}

__global__ void morton_dec(const float* x, float* out, int, int, int) {
  const size_t T = (size_t)gridDim.x * blockDim.x, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = 0;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const unsigned k = key24(x[j * T + i]);
    r ^= compact1by2(k) | (compact1by2(k >> 1) << 8) | (compact1by2(k >> 2) << 16);
  }
  out[i] = (float)r;
}

// Explicit instantiations (NVRTC compiles what nvcc does).
template __global__ void gemv_n<0>(const float*, float*, int, int, int);
template __global__ void gemv_n<1>(const float*, float*, int, int, int);
template __global__ void bitrev<10, 0>(const float*, float*, int, int, int);
template __global__ void bitrev<10, 1>(const float*, float*, int, int, int);
template __global__ void bitrev<12, 0>(const float*, float*, int, int, int);
template __global__ void bitrev<12, 1>(const float*, float*, int, int, int);
template __global__ void fwht<0>(const float*, float*, int, int, int);
template __global__ void fwht<1>(const float*, float*, int, int, int);
template __global__ void oets<0>(const float*, float*, int, int, int);
template __global__ void oets<1>(const float*, float*, int, int, int);
template __global__ void dhist<0>(const float*, float*, int, int, int);
template __global__ void dhist<1>(const float*, float*, int, int, int);
template __global__ void psort<0>(const float*, float*, int, int, int);
template __global__ void psort<1>(const float*, float*, int, int, int);
template __global__ void tile8<0>(const float*, float*, int, int, int);
template __global__ void tile8<1>(const float*, float*, int, int, int);
template __global__ void ksum<0>(const float*, float*, int, int, int);
template __global__ void ksum<1>(const float*, float*, int, int, int);

#ifndef __CUDACC_RTC__
// ---- Host: runs the rows of launches.tsv, each labelled on stderr in launch order --------------
// Usage: ./ooff2 launches.tsv [LABEL_PREFIX|all] [check]   (check: compare each result with a CPU
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
  {"gemv_n<0>", gemv_n<0>}, {"gemv_n<1>", gemv_n<1>}, {"gemv_t", gemv_t},
  {"bitrev<10,0>", bitrev<10, 0>}, {"bitrev<10,1>", bitrev<10, 1>},
  {"bitrev<12,0>", bitrev<12, 0>}, {"bitrev<12,1>", bitrev<12, 1>},
  {"fwht<0>", fwht<0>}, {"fwht<1>", fwht<1>},
  {"oets<0>", oets<0>}, {"oets<1>", oets<1>},
  {"dhist<0>", dhist<0>}, {"dhist<1>", dhist<1>},
  {"psort<0>", psort<0>}, {"psort<1>", psort<1>},
  {"tile8<0>", tile8<0>}, {"tile8<1>", tile8<1>},
  {"ksum<0>", ksum<0>}, {"ksum<1>", ksum<1>},
  {"fnv1a", fnv1a}, {"lcg", lcg}, {"morton_enc", morton_enc}, {"morton_dec", morton_dec},
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

static inline uint32_t key24h(float f) { return (uint32_t)((f + 1.0f) * 8388608.0f); }
static inline uint32_t p12(uint32_t v) {
  uint32_t r = 0;
  for (int b = 0; b < 8; b++) r |= ((v >> b) & 1u) << (3 * b);
  return r;
}
static inline uint32_t c12(uint32_t v) {
  uint32_t r = 0;
  for (int b = 0; b < 8; b++) r |= ((v >> (3 * b)) & 1u) << b;
  return r;
}

// The CPU reference of every kernel (what the launch files' `expect`s and `check`s say),
// compared as warpsim does: |got - want| <= tol * max(1, max |want|). Returns the number of wrong
// elements. The sorts: each group sorted (the keys of the group, in order).
static long check(const Row& r, const std::vector<float>& x, const std::vector<float>& out) {
  const std::string& k = r.kernel;
  std::vector<double> want;
  double tol = 1e-4;
  const unsigned B = r.bx * r.by, G = r.gx * r.gy;
  const size_t T = (size_t)G * B;
  if (starts(k, "gemv_n")) {
    size_t n = r.a, rows = (size_t)G * 128;
    for (size_t i = 0; i < rows; i++) {
      double s = 0;
      for (size_t q = 0; q < n; q++) s += (double)x[i * n + q] * x[rows * n + q];
      want.push_back(s);
    }
    tol = 1e-3;
  } else if (k == "gemv_t") {
    size_t rows = r.a, cols = T;
    want.assign(cols, 0.0);
    for (size_t q = 0; q < rows; q++)
      for (size_t c = 0; c < cols; c++) want[c] += (double)x[q * cols + c] * x[rows * cols + q];
    tol = 1e-3;
  } else if (starts(k, "bitrev")) {
    int L = atoi(k.c_str() + 7);
    size_t N = (size_t)1 << L;
    for (size_t i = 0; i < r.outlen; i++) {
      size_t e = i % N, rv = 0;
      for (int b = 0; b < L; b++) rv |= ((e >> b) & 1) << (L - 1 - b);
      want.push_back(x[(i / N) * N + rv]);
    }
    tol = 0;
  } else if (starts(k, "fwht")) {
    size_t N = 2 * B;
    for (size_t g = 0; g < G; g++)
      for (size_t u = 0; u < N; u++) {
        double s = 0;
        for (size_t q = 0; q < N; q++) s += (__builtin_popcountll(u & q) & 1) ? -x[g * N + q] : x[g * N + q];
        want.push_back(s);
      }
  } else if (starts(k, "oets") || starts(k, "psort")) {
    size_t n = starts(k, "oets") ? 2 * B : 8;
    for (size_t g = 0; g < r.outlen / n; g++) {
      std::vector<float> v(x.begin() + g * n, x.begin() + (g + 1) * n);
      std::sort(v.begin(), v.end());
      for (float f : v) want.push_back(f);
    }
    tol = 0;
  } else if (starts(k, "dhist")) {
    for (unsigned g = 0; g < G; g++) {
      std::vector<double> h(16, 0);
      for (int q = 0; q < r.a; q++) h[(key24h(x[(size_t)g * r.a + q]) >> r.b) & 15u] += 1;
      for (double v : h) want.push_back(v);
    }
    tol = 0;
  } else if (starts(k, "tile8")) {
    size_t nt = r.outlen / 64;
    double C[64];
    for (int u = 0; u < 64; u++) C[u] = (double)((((u / 8) + 1) * (2 * (u % 8) + 1)) & 7) - 3.5;
    for (size_t tl = 0; tl < nt; tl++)
      for (int u = 0; u < 8; u++)
        for (int v = 0; v < 8; v++) {
          double s = 0;
          for (int j = 0; j < 8; j++)
            for (int q = 0; q < 8; q++) s += (double)C[u * 8 + j] * x[tl * 64 + j * 8 + q] * C[v * 8 + q];
          want.push_back(s);
        }
  } else if (starts(k, "ksum")) {
    size_t per = (size_t)r.a / G;
    for (unsigned g = 0; g < G; g++) {
      double s = 0;
      for (size_t q = 0; q < per; q++) s += x[(q / B) * G * B + (size_t)g * B + q % B];
      want.push_back(s);
    }
  } else if (k == "fnv1a") {
    for (size_t i = 0; i < T; i++) {
      uint32_t h = 2166136261u;
      for (int j = 0; j < 8; j++) {
        uint32_t kk = key24h(x[j * T + i]);
        for (int b = 0; b < 3; b++) h = (h ^ ((kk >> (8 * b)) & 255u)) * 16777619u;
      }
      want.push_back((double)(h >> 8));
    }
    tol = 0;
  } else if (k == "lcg") {
    for (size_t i = 0; i < T; i++) {
      uint32_t acc = 0;
      for (int j = 0; j < 4; j++) {
        uint32_t h = key24h(x[j * T + i]);
        for (int q = 0; q < r.a; q++) h = h * 1664525u + 1013904223u;
        acc ^= h;
      }
      want.push_back((double)(acc >> 8));
    }
    tol = 0;
  } else if (starts(k, "morton")) {
    bool enc = k == "morton_enc";
    for (size_t i = 0; i < T; i++) {
      uint32_t acc = 0;
      for (int j = 0; j < 4; j++) {
        uint32_t kk = key24h(x[j * T + i]);
        acc ^= enc ? (p12(kk & 255) | p12((kk >> 8) & 255) << 1 | p12(kk >> 16) << 2)
                   : (c12(kk) | c12(kk >> 1) << 8 | c12(kk >> 2) << 16);
      }
      want.push_back((double)acc);
    }
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
  if (argc < 3) { fprintf(stderr, "usage: ooff2 launches.tsv PREFIX|all [check]\n"); return 2; }
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
