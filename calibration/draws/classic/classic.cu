// Classic CUDA kernels for warpsim's library (programs/classic/), measured on the H200.
// Each kernel is self-contained and `extern "C"` (plain names for ncu and for a PTX front end);
// shared arrays are ordinary (non-volatile), as in the published code, so nvcc merges and hoists
// accesses as it likes and the RON ports mirror the SASS it produced.
// Inputs are warpsim's `Random(seed)` draws (SplitMix64, crates/exec/src/init.rs), so the
// data-dependent kernels (bitonic sort, radix split) see the same keys as their ports.
// Launches (one each, in this order; see main):
//   reduce_shfl          grid 128,      block 256   x: 131072 f32 (seed 1)     -> sums[128]
//   scan_hillis_steele   grid 128,      block 256   in: 32768 f32 (seed 2)     -> out[32768]
//   scan_blelloch        grid 128,      block 128   in: 32768 f32 (seed 3)     -> out[32768]
//   scan_blelloch_cf     grid 128,      block 128   in: 32768 f32 (seed 3)     -> out[32768]
//   stencil5             grid 16x16,    block 16x16 in: 256x256 f32 (seed 4)   -> out
//   conv2d_tiled         grid 16x16,    block 16x16 in: 256x256 f32 (seed 5)   -> out
//   softmax_row          grid 128,      block 256   x: 128 rows x 1024 (seed 6) -> y
//   nbody_tile           grid 32,       block 64    pos: 2048 float4 (seed 7)  -> acc: 2048 float4
//   bitonic_sort_shared  grid 64,       block 512   src: 65536 u32 (seed 8)    -> dst
//   radix_split4         grid 64,       block 256   src: 16384 u32 (seed 9)    -> dst
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o classic classic.cu ; `./classic` runs all and checks
// each against a CPU reference; `./classic NAME` runs one.

#define FULL_MASK 0xffffffffu

// ---------------------------------------------------------------------------------------------
// 1. Block reduction with warp shuffles, after CUB's BlockReduceWarpReductions
//    (cub/block/specializations/block_reduce_warp_reductions.cuh): each warp reduces with
//    __shfl_down_sync (WarpReduceShfl), lane 0 stores the warp aggregate, thread 0 adds them.
//    Each thread first adds 4 items (CUB's thread-level reduction of ITEMS_PER_THREAD = 4).
extern "C" __global__ void reduce_shfl(const float* x, float* sums) {
  __shared__ float warp_sums[8];
  int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const float* p = x + blockIdx.x * 1024;
  float v = p[tid] + p[tid + 256] + p[tid + 512] + p[tid + 768];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(FULL_MASK, v, o);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (tid == 0) {
    for (int w = 1; w < 8; w++) v += warp_sums[w];
    sums[blockIdx.x] = v;
  }
}

// ---------------------------------------------------------------------------------------------
// 2. Hillis-Steele inclusive scan, double-buffered, after GPU Gems 3 ch. 39 (Harris, Sengupta,
//    Owens, "Parallel Prefix Sum (Scan) with CUDA"), Example 39-1 (the naive scan; inclusive here,
//    and with the buffers' roles written out so it is correct).
extern "C" __global__ void scan_hillis_steele(const float* in, float* out) {
  const int n = 256;
  __shared__ float temp[2 * n];
  int t = threadIdx.x, base = blockIdx.x * n;
  int pout = 0, pin = 1;
  temp[t] = in[base + t];
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (t >= offset)
      temp[pout * n + t] = temp[pin * n + t] + temp[pin * n + t - offset];
    else
      temp[pout * n + t] = temp[pin * n + t];
    __syncthreads();
  }
  out[base + t] = temp[pout * n + t];
}

// ---------------------------------------------------------------------------------------------
// 3. Work-efficient (Blelloch) exclusive scan, after GPU Gems 3 ch. 39, Example 39-2, and with
//    the conflict-free offsets of section 39.2.3 (CONFLICT_FREE_OFFSET(n) = n >> LOG_NUM_BANKS).
//    256 elements per block of 128 threads.
template <bool CF>
__device__ __forceinline__ int cf_offset(int n) { return CF ? (n >> 5) : 0; }

template <bool CF>
__device__ __forceinline__ void blelloch_scan(const float* in, float* out, float* temp) {
  const int n = 256;
  int thid = threadIdx.x, offset = 1;
  const float* g = in + blockIdx.x * n;
  float* o = out + blockIdx.x * n;
  int ai = thid, bi = thid + n / 2;
  int bank_a = cf_offset<CF>(ai), bank_b = cf_offset<CF>(bi);
  temp[ai + bank_a] = g[ai];
  temp[bi + bank_b] = g[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
      a += cf_offset<CF>(a);
      b += cf_offset<CF>(b);
      temp[b] += temp[a];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + cf_offset<CF>(n - 1)] = 0.0f;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
      a += cf_offset<CF>(a);
      b += cf_offset<CF>(b);
      float t = temp[a];
      temp[a] = temp[b];
      temp[b] += t;
    }
  }
  __syncthreads();
  o[ai] = temp[ai + bank_a];
  o[bi] = temp[bi + bank_b];
}

extern "C" __global__ void scan_blelloch(const float* in, float* out) {
  __shared__ float temp[256];
  blelloch_scan<false>(in, out, temp);
}

extern "C" __global__ void scan_blelloch_cf(const float* in, float* out) {
  __shared__ float temp[256 + 8];
  blelloch_scan<true>(in, out, temp);
}

// ---------------------------------------------------------------------------------------------
// 4. 2-D five-point stencil on a 16x16 tile with a one-cell halo (18x18 in shared memory), after
//    Micikevicius, "3D Finite Difference Computation on GPUs using CUDA" (GPGPU-2, 2009): the
//    block loads its tile plus the halo the edge threads fetch, then every point reads its
//    neighbours from shared memory. Reduced to 2-D; clamped at the domain's edges.
extern "C" __global__ void stencil5(const float* in, float* out) {
  const int N = 256;
  __shared__ float tile[18][18];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * 16 + tx, y = blockIdx.y * 16 + ty;
  tile[ty + 1][tx + 1] = in[y * N + x];
  if (tx == 0) tile[ty + 1][0] = in[y * N + max(x - 1, 0)];
  if (tx == 15) tile[ty + 1][17] = in[y * N + min(x + 1, N - 1)];
  if (ty == 0) tile[0][tx + 1] = in[max(y - 1, 0) * N + x];
  if (ty == 15) tile[17][tx + 1] = in[min(y + 1, N - 1) * N + x];
  __syncthreads();
  out[y * N + x] = 0.5f * tile[ty + 1][tx + 1] +
                   0.125f * (tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2]);
}

// ---------------------------------------------------------------------------------------------
// 5. 2-D convolution (5x5 mask) with a shared input tile and halo cells, after Kirk & Hwu,
//    "Programming Massively Parallel Processors" (3rd ed.), ch. 7, tiled 2-D convolution: the
//    block loads the 20x20 input tile its 16x16 outputs need, then each output reads 25 tile
//    elements. The mask's weights are constants ((i + 1)(j + 1) / 81) folded into the code.
extern "C" __global__ void conv2d_tiled(const float* in, float* out) {
  const int N = 256, R = 2, T = 16, W = T + 2 * R;
  __shared__ float tile[W][W];
  int tx = threadIdx.x, ty = threadIdx.y, t = ty * T + tx;
  int x0 = blockIdx.x * T - R, y0 = blockIdx.y * T - R;
  for (int i = t; i < W * W; i += T * T) {
    int r = i / W, c = i % W;
    int gy = min(max(y0 + r, 0), N - 1), gx = min(max(x0 + c, 0), N - 1);
    tile[r][c] = in[gy * N + gx];
  }
  __syncthreads();
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 2 * R + 1; i++) {
#pragma unroll
    for (int j = 0; j < 2 * R + 1; j++) {
      acc += (float)((i + 1) * (j + 1)) * (1.0f / 81.0f) * tile[ty + i][tx + j];
    }
  }
  out[(blockIdx.y * T + ty) * N + blockIdx.x * T + tx] = acc;
}

// ---------------------------------------------------------------------------------------------
// 6. Row softmax, one block of 256 threads per row of 1024, the "safe" three-pass softmax
//    (max, sum of exponentials, normalise) of Milakov & Gimelshein, "Online normalizer
//    calculation for softmax" (2018), Algorithm 2, with both block reductions done as shared-
//    memory trees with sequential addressing after Harris, "Optimizing Parallel Reduction in
//    CUDA", kernel 3.
extern "C" __global__ void softmax_row(const float* x, float* y) {
  const int L = 1024, B = 256;
  __shared__ float red[B];
  int t = threadIdx.x;
  const float* row = x + blockIdx.x * L;
  float* yr = y + blockIdx.x * L;
  float v0 = row[t], v1 = row[t + B], v2 = row[t + 2 * B], v3 = row[t + 3 * B];
  red[t] = fmaxf(fmaxf(v0, v1), fmaxf(v2, v3));
  __syncthreads();
  for (int s = B / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float m = red[0];
  __syncthreads();
  float e0 = __expf(v0 - m), e1 = __expf(v1 - m), e2 = __expf(v2 - m), e3 = __expf(v3 - m);
  red[t] = (e0 + e1) + (e2 + e3);
  __syncthreads();
  for (int s = B / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = red[t] + red[t + s];
    __syncthreads();
  }
  float inv = 1.0f / red[0];
  yr[t] = e0 * inv;
  yr[t + B] = e1 * inv;
  yr[t + 2 * B] = e2 * inv;
  yr[t + 3 * B] = e3 * inv;
}

// ---------------------------------------------------------------------------------------------
// 7. All-pairs n-body accelerations, after GPU Gems 3 ch. 31 (Nyland, Harris, Prins, "Fast N-Body
//    Simulation with CUDA"), Listings 31-1 to 31-3: each tile of 64 bodies is staged in shared
//    memory as float4 and every thread reads each of them (broadcast reads).
#define NBODY 2048
#define NB_TILE 64
#define NB_EPS2 0.01f
__device__ __forceinline__ float3 body_body(float4 bi, float4 bj, float3 ai) {
  float3 r;
  r.x = bj.x - bi.x;
  r.y = bj.y - bi.y;
  r.z = bj.z - bi.z;
  float dist_sqr = r.x * r.x + r.y * r.y + r.z * r.z + NB_EPS2;
  float dist_sixth = dist_sqr * dist_sqr * dist_sqr;
  float inv_dist_cube = rsqrtf(dist_sixth);
  float s = bj.w * inv_dist_cube;
  ai.x += r.x * s;
  ai.y += r.y * s;
  ai.z += r.z * s;
  return ai;
}

extern "C" __global__ void nbody_tile(const float4* pos, float4* acc) {
  __shared__ float4 sh[NB_TILE];
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  float4 my = pos[gtid];
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int i = 0, tile = 0; i < NBODY; i += NB_TILE, tile++) {
    sh[threadIdx.x] = pos[tile * NB_TILE + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < NB_TILE; j++) a = body_body(my, sh[j], a);
    __syncthreads();
  }
  acc[gtid] = make_float4(a.x, a.y, a.z, 0.0f);
}

// ---------------------------------------------------------------------------------------------
// 8. Bitonic sort of 1024 keys per block in shared memory, after the CUDA samples' sortingNetworks
//    (bitonicSort.cu, bitonicSortShared: 512 threads, two keys each, Comparator), keys only,
//    ascending in every block.
__device__ __forceinline__ void comparator(unsigned& a, unsigned& b, unsigned dir) {
  if ((a > b) == dir) {
    unsigned t = a;
    a = b;
    b = t;
  }
}

extern "C" __global__ void bitonic_sort_shared(const unsigned* src, unsigned* dst) {
  const unsigned L = 1024, dir = 1;
  __shared__ unsigned s_key[L];
  src += blockIdx.x * L;
  dst += blockIdx.x * L;
  s_key[threadIdx.x] = src[threadIdx.x];
  s_key[threadIdx.x + L / 2] = src[threadIdx.x + L / 2];
  for (unsigned size = 2; size < L; size <<= 1) {
    unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      comparator(s_key[pos], s_key[pos + stride], ddd);
    }
  }
  for (unsigned stride = L / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    comparator(s_key[pos], s_key[pos + stride], dir);
  }
  __syncthreads();
  dst[threadIdx.x] = s_key[threadIdx.x];
  dst[threadIdx.x + L / 2] = s_key[threadIdx.x + L / 2];
}

// ---------------------------------------------------------------------------------------------
// 9. One block-level radix-sort pass (a 4-bit digit) as four 1-bit splits, after GPU Gems 3
//    ch. 39, section 39.3.3 (radix sort built on split), with the split's scan done by
//    __ballot_sync and __popc per warp (as in Adinets, "CUDA Pro Tip: Optimized Filtering with
//    Warp-Aggregated Atomics", NVIDIA blog 2014) and the 8 warp counts through shared memory.
//    256 keys per block; stable, so the block ends sorted by the key's low 4 bits.
extern "C" __global__ void radix_split4(const unsigned* src, unsigned* dst) {
  const int B = 256, NW = 8;
  __shared__ unsigned s_keys[B];
  __shared__ unsigned s_ones[NW];
  int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  unsigned lt = (1u << lane) - 1u;
  unsigned key = src[blockIdx.x * B + t];
  for (int b = 0; b < 4; b++) {
    unsigned bit = (key >> b) & 1u;
    unsigned ones = __ballot_sync(FULL_MASK, bit);
    if (lane == 0) s_ones[warp] = __popc(ones);
    __syncthreads();
    unsigned before = 0, total = 0;
    for (int w = 0; w < NW; w++) {
      unsigned c = s_ones[w];
      before += (w < warp) ? c : 0u;
      total += c;
    }
    before += __popc(ones & lt);
    unsigned dest = bit ? (B - total) + before : t - before;
    s_keys[dest] = key;
    __syncthreads();
    key = s_keys[t];
  }
  dst[blockIdx.x * B + t] = key;
}

// =============================================================================================
#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// warpsim's Random(seed): element i = splitmix64(seed + (i + 1) * GAMMA).
static uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static uint64_t random_bits(uint64_t seed, uint64_t i) { return splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull); }
static std::vector<float> rand_f32(uint64_t seed, size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (float)(random_bits(seed, i) >> 40) * (1.0f / 8388608.0f) - 1.0f;
  return v;
}
static std::vector<unsigned> rand_u32(uint64_t seed, size_t n) {
  std::vector<unsigned> v(n);
  for (size_t i = 0; i < n; i++) v[i] = (unsigned)(random_bits(seed, i) >> 48);
  return v;
}

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t e_ = (x);                                                               \
    if (e_ != cudaSuccess) {                                                            \
      fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)

template <class T>
static T* to_dev(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, h.size() * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T>
static T* dev_zeros(size_t n) {
  T* d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(T)));
  CK(cudaMemset(d, 0, n * sizeof(T)));
  return d;
}
template <class T>
static std::vector<T> to_host(const T* d, size_t n) {
  std::vector<T> h(n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

static int failures = 0;
// Floats: |got - want| <= tol * max(1, max |want|), as warpsim's verification.
static void check_f(const char* name, const std::vector<float>& got, const std::vector<double>& want, double tol) {
  double mx = 1.0, err = 0.0;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); i++) mx = std::max(mx, std::fabs(want[i]));
  for (size_t i = 0; i < want.size(); i++) {
    double e = std::fabs((double)got[i] - want[i]);
    err = std::max(err, e);
    if (!(e <= tol * mx)) { if (!bad) first = i; bad++; }
  }
  printf("CHECK\t%s\t%s\t%zu elements\tmax_abs_error %.3e\tallowed %.3e\tbad %zu (first %zu)\n", name,
         bad ? "FAIL" : "ok", want.size(), err, tol * mx, bad, first);
  if (bad) failures++;
}
static void check_u(const char* name, const std::vector<unsigned>& got, const std::vector<unsigned>& want) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < want.size(); i++)
    if (got[i] != want[i]) { if (!bad) first = i; bad++; }
  printf("CHECK\t%s\t%s\t%zu elements\tbad %zu (first %zu)\n", name, bad ? "FAIL" : "ok", want.size(), bad, first);
  if (bad) failures++;
}
static void launched(const char* name, dim3 g, dim3 b) {
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  fprintf(stderr, "LAUNCH\t%s\t%ux%u\t%ux%u\n", name, g.x, g.y, b.x, b.y);
}
static bool want(int argc, char** argv, const char* name) { return argc < 2 || strcmp(argv[1], name) == 0; }

int main(int argc, char** argv) {
  CK(cudaFree(0));
  if (want(argc, argv, "reduce_shfl")) {
    const int G = 128, N = G * 1024;
    auto x = rand_f32(1, N);
    float* dx = to_dev(x);
    float* ds = dev_zeros<float>(G);
    reduce_shfl<<<G, 256>>>(dx, ds);
    launched("reduce_shfl", dim3(G), dim3(256));
    auto got = to_host(ds, G);
    std::vector<double> ref(G, 0.0);
    for (int b = 0; b < G; b++)
      for (int k = 0; k < 1024; k++) ref[b] += x[b * 1024 + k];
    check_f("reduce_shfl", got, ref, 1e-4);
    cudaFree(dx); cudaFree(ds);
  }
  if (want(argc, argv, "scan_hillis_steele")) {
    const int G = 128, N = G * 256;
    auto in = rand_f32(2, N);
    float* din = to_dev(in);
    float* dout = dev_zeros<float>(N);
    scan_hillis_steele<<<G, 256>>>(din, dout);
    launched("scan_hillis_steele", dim3(G), dim3(256));
    auto got = to_host(dout, N);
    std::vector<double> ref(N);
    for (int b = 0; b < G; b++) {
      double s = 0;
      for (int k = 0; k < 256; k++) { s += in[b * 256 + k]; ref[b * 256 + k] = s; }
    }
    check_f("scan_hillis_steele", got, ref, 1e-4);
    cudaFree(din); cudaFree(dout);
  }
  for (int cf = 0; cf < 2; cf++) {
    const char* name = cf ? "scan_blelloch_cf" : "scan_blelloch";
    if (!want(argc, argv, name)) continue;
    const int G = 128, N = G * 256;
    auto in = rand_f32(3, N);
    float* din = to_dev(in);
    float* dout = dev_zeros<float>(N);
    if (cf) scan_blelloch_cf<<<G, 128>>>(din, dout);
    else scan_blelloch<<<G, 128>>>(din, dout);
    launched(name, dim3(G), dim3(128));
    auto got = to_host(dout, N);
    std::vector<double> ref(N);
    for (int b = 0; b < G; b++) {
      double s = 0;
      for (int k = 0; k < 256; k++) { ref[b * 256 + k] = s; s += in[b * 256 + k]; }
    }
    check_f(name, got, ref, 1e-4);
    cudaFree(din); cudaFree(dout);
  }
  if (want(argc, argv, "stencil5")) {
    const int N = 256;
    auto in = rand_f32(4, N * N);
    float* din = to_dev(in);
    float* dout = dev_zeros<float>(N * N);
    stencil5<<<dim3(16, 16), dim3(16, 16)>>>(din, dout);
    launched("stencil5", dim3(16, 16), dim3(16, 16));
    auto got = to_host(dout, N * N);
    std::vector<double> ref(N * N);
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        auto at = [&](int yy, int xx) { return (double)in[std::min(std::max(yy, 0), N - 1) * N + std::min(std::max(xx, 0), N - 1)]; };
        ref[y * N + x] = 0.5 * at(y, x) + 0.125 * (at(y - 1, x) + at(y + 1, x) + at(y, x - 1) + at(y, x + 1));
      }
    check_f("stencil5", got, ref, 1e-4);
    cudaFree(din); cudaFree(dout);
  }
  if (want(argc, argv, "conv2d_tiled")) {
    const int N = 256;
    auto in = rand_f32(5, N * N);
    float* din = to_dev(in);
    float* dout = dev_zeros<float>(N * N);
    conv2d_tiled<<<dim3(16, 16), dim3(16, 16)>>>(din, dout);
    launched("conv2d_tiled", dim3(16, 16), dim3(16, 16));
    auto got = to_host(dout, N * N);
    std::vector<double> ref(N * N);
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        double s = 0;
        for (int i = 0; i < 5; i++)
          for (int j = 0; j < 5; j++) {
            int yy = std::min(std::max(y + i - 2, 0), N - 1), xx = std::min(std::max(x + j - 2, 0), N - 1);
            s += (i + 1) * (j + 1) / 81.0 * in[yy * N + xx];
          }
        ref[y * N + x] = s;
      }
    check_f("conv2d_tiled", got, ref, 1e-4);
    cudaFree(din); cudaFree(dout);
  }
  if (want(argc, argv, "softmax_row")) {
    const int R = 128, L = 1024;
    auto x = rand_f32(6, R * L);
    float* dx = to_dev(x);
    float* dy = dev_zeros<float>(R * L);
    softmax_row<<<R, 256>>>(dx, dy);
    launched("softmax_row", dim3(R), dim3(256));
    auto got = to_host(dy, R * L);
    std::vector<double> ref(R * L);
    for (int r = 0; r < R; r++) {
      double m = -1e30, s = 0;
      for (int k = 0; k < L; k++) m = std::max(m, (double)x[r * L + k]);
      for (int k = 0; k < L; k++) s += std::exp(x[r * L + k] - m);
      for (int k = 0; k < L; k++) ref[r * L + k] = std::exp(x[r * L + k] - m) / s;
    }
    check_f("softmax_row", got, ref, 1e-4);
    cudaFree(dx); cudaFree(dy);
  }
  if (want(argc, argv, "nbody_tile")) {
    auto p = rand_f32(7, 4 * NBODY);
    float* dp = to_dev(p);
    float* da = dev_zeros<float>(4 * NBODY);
    nbody_tile<<<NBODY / NB_TILE, NB_TILE>>>((const float4*)dp, (float4*)da);
    launched("nbody_tile", dim3(NBODY / NB_TILE), dim3(NB_TILE));
    auto got = to_host(da, 4 * NBODY);
    std::vector<double> ref(4 * NBODY, 0.0);
    for (int i = 0; i < NBODY; i++)
      for (int k = 0; k < NBODY; k++) {
        double rx = p[4 * k] - p[4 * i], ry = p[4 * k + 1] - p[4 * i + 1], rz = p[4 * k + 2] - p[4 * i + 2];
        double d = rx * rx + ry * ry + rz * rz + 0.01;
        double s = p[4 * k + 3] / std::sqrt(d * d * d);
        ref[4 * i] += rx * s;
        ref[4 * i + 1] += ry * s;
        ref[4 * i + 2] += rz * s;
      }
    check_f("nbody_tile", got, ref, 1e-3);
    cudaFree(dp); cudaFree(da);
  }
  if (want(argc, argv, "bitonic_sort_shared")) {
    const int G = 64, N = G * 1024;
    auto src = rand_u32(8, N);
    unsigned* ds = to_dev(src);
    unsigned* dd = dev_zeros<unsigned>(N);
    bitonic_sort_shared<<<G, 512>>>(ds, dd);
    launched("bitonic_sort_shared", dim3(G), dim3(512));
    auto got = to_host(dd, N);
    std::vector<unsigned> ref = src;
    for (int b = 0; b < G; b++) std::sort(ref.begin() + b * 1024, ref.begin() + (b + 1) * 1024);
    check_u("bitonic_sort_shared", got, ref);
    cudaFree(ds); cudaFree(dd);
  }
  if (want(argc, argv, "radix_split4")) {
    const int G = 64, N = G * 256;
    auto src = rand_u32(9, N);
    unsigned* ds = to_dev(src);
    unsigned* dd = dev_zeros<unsigned>(N);
    radix_split4<<<G, 256>>>(ds, dd);
    launched("radix_split4", dim3(G), dim3(256));
    auto got = to_host(dd, N);
    std::vector<unsigned> ref = src;
    for (int b = 0; b < G; b++)
      std::stable_sort(ref.begin() + b * 256, ref.begin() + (b + 1) * 256,
                       [](unsigned a, unsigned c) { return (a & 15u) < (c & 15u); });
    check_u("radix_split4", got, ref);
    cudaFree(ds); cudaFree(dd);
  }
  printf("classic: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
#endif
