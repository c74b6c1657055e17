// A zoo of ordinary CUDA kernels, as users write them or copy them from the CUDA samples, GPU
// Gems and tutorials: a check of warpsim's CUDA path (NVRTC -> PTX -> warpsim) on kernels that
// were NOT used to build it. Measured on the H200 by run.sh (per-kernel shared-memory counters,
// SASS); programs/cuda/zoo/*.ron launch each kernel as main() below does, on the same inputs
// (warpsim's Random(seed), reimplemented in ../kernels2/common.h). Device code compiles with
// NVRTC (host code guarded by __CUDACC_RTC__) with no toolkit header; the two kernels that need
// cuda_fp16.h and cooperative_groups.h are in zoo_headers.cu (main() below includes it).

// ---- CUDA samples, transpose (6_Advanced/transpose): three of its kernels ----
#define TILE_DIM 32
#define BLOCK_ROWS 8
extern "C" __global__ void copySharedMem(float *odata, const float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM * TILE_DIM];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index = xIndex + width * yIndex;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    if (xIndex < width && yIndex + i < height)
      tile[(threadIdx.y + i) * TILE_DIM + threadIdx.x] = idata[index + i * width];
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    if (xIndex < width && yIndex + i < height)
      odata[index + i * width] = tile[(threadIdx.y + i) * TILE_DIM + threadIdx.x];
}
extern "C" __global__ void transposeDiagonal(float *odata, float *idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int blockIdx_x, blockIdx_y;
  if (width == height) {
    blockIdx_y = blockIdx.x;
    blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    blockIdx_y = bid % gridDim.y;
    blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
  }
  int xIndex = blockIdx_x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx_y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;
  xIndex = blockIdx_y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx_x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}
extern "C" __global__ void transposeFineGrained(float *odata, float *idata, int width, int height) {
  __shared__ float block[TILE_DIM][TILE_DIM + 1];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index = xIndex + (yIndex)*width;
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    block[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
  __syncthreads();
  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS)
    odata[index + i * height] = block[threadIdx.x][threadIdx.y + i];
}

// ---- CUDA samples, reduction (2_Concepts_and_Techniques/reduction): reduce3, reduce6 ----
template <class T> struct SharedMemory {
  __device__ inline operator T *() { extern __shared__ int __smem[]; return (T *)__smem; }
};
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(const T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int gridSize = blockSize * gridDim.x;
  unsigned int maskLength = (blockSize & 31);
  maskLength = (maskLength > 0) ? (32 - maskLength) : maskLength;
  const unsigned int mask = (0xffffffff) >> maskLength;
  T mySum = 0;
  if (nIsPow2) {
    unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
    gridSize = gridSize << 1;
    while (i < n) {
      mySum += g_idata[i];
      if ((i + blockSize) < n) mySum += g_idata[i + blockSize];
      i += gridSize;
    }
  } else {
    unsigned int i = blockIdx.x * blockSize + threadIdx.x;
    while (i < n) { mySum += g_idata[i]; i += gridSize; }
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    mySum += __shfl_down_sync(mask, mySum, offset);
  if ((tid % warpSize) == 0) sdata[tid / warpSize] = mySum;
  __syncthreads();
  const unsigned int shmem_extent = (blockSize / warpSize) > 0 ? (blockSize / warpSize) : 1;
  const unsigned int ballot_result = __ballot_sync(mask, tid < shmem_extent);
  if (tid < shmem_extent) {
    mySum = sdata[tid];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      mySum += __shfl_down_sync(ballot_result, mySum, offset);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
template <class T>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  T mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockDim.x < n) mySum += g_idata[i + blockDim.x];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] = mySum = mySum + sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
// ---- GPU Gems 3, ch. 39: work-efficient scan with CONFLICT_FREE_OFFSET; a size_t-indexed scan ----
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
extern "C" __global__ void prescan(float *g_odata, float *g_idata, int n) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  int offset = 1;
  int ai = thid, bi = thid + (n / 2);
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai), bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  temp[ai + bankOffsetA] = g_idata[ai];
  temp[bi + bankOffsetB] = g_idata[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai); bi += CONFLICT_FREE_OFFSET(bi);
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += CONFLICT_FREE_OFFSET(ai); bi += CONFLICT_FREE_OFFSET(bi);
      float t = temp[ai]; temp[ai] = temp[bi]; temp[bi] += t;
    }
  }
  __syncthreads();
  g_odata[ai] = temp[ai + bankOffsetA];
  g_odata[bi] = temp[bi + bankOffsetB];
}
extern "C" __global__ void scan_size_t(const float* in, float* out, size_t n) {
  __shared__ float s[256];
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d <<= 1) {
    float v = threadIdx.x >= d ? s[threadIdx.x - d] : 0.f;
    __syncthreads();
    s[threadIdx.x] += v;
    __syncthreads();
  }
  if (i < n) out[i] = s[threadIdx.x];
}

// ---- small kernels: cooperative groups, local arrays, a __noinline__ helper on a shared pointer,
// halves, bytes, doubles, a row softmax ----
extern "C" __global__ void local_array(const int* in, int* out, int k) {
  int a[16];
  for (int j = 0; j < 16; ++j) a[j] = in[threadIdx.x * 16 + j];
  out[threadIdx.x] = a[k & 15] + a[(k + threadIdx.x) & 15];
}
__device__ __noinline__ float helper(float* p, int i) { return p[i] * 2.f; }
extern "C" __global__ void noinline_shared(const float* in, float* out) {
  __shared__ float s[128];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = helper(s, 127 - threadIdx.x);
}
extern "C" __global__ void uchar_hist(const unsigned char* d, unsigned int* h, int n) {
  __shared__ unsigned int sh[256];
  sh[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&sh[d[i]], 1u);
  __syncthreads();
  atomicAdd(&h[threadIdx.x], sh[threadIdx.x]);
}
extern "C" __global__ void char_smem(const char* in, char* out) {
  __shared__ char s[1024];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x * 4) % 1024];
}
extern "C" __global__ void dbl_stencil(const double* in, double* out, int n) {
  __shared__ double s[258];
  int i = blockIdx.x * 256 + threadIdx.x;
  s[threadIdx.x + 1] = in[i];
  if (threadIdx.x == 0) s[0] = i > 0 ? in[i - 1] : 0.0;
  if (threadIdx.x == 255) s[257] = i + 1 < n ? in[i + 1] : 0.0;
  __syncthreads();
  out[i] = 0.25 * s[threadIdx.x] + 0.5 * s[threadIdx.x + 1] + 0.25 * s[threadIdx.x + 2];
}
extern "C" __global__ void softmax_row(const float* x, float* y, int cols) {
  __shared__ float red[32];
  const float* row = x + (size_t)blockIdx.x * cols;
  float m = -__int_as_float(0x7f800000);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
  __syncthreads();
  m = red[0];
  for (int w = 1; w < blockDim.x / 32; ++w) m = fmaxf(m, red[w]);
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(row[c] - m);
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
  __syncthreads();
  s = 0;
  for (int w = 0; w < blockDim.x / 32; ++w) s += red[w];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = __expf(row[c] - m) / s;
}

// ---- wide (8- and 16-byte) shared accesses, an XOR swizzle, the samples' matrixMul ----
// Each thread of an 8 x 32 block stores one float4 of a 32 x (32 + PAD) tile, then reads the
// float4 of row (r + 4 c4) % 32: 16-byte accesses whose banks depend on PAD.
template <int PAD>
__global__ void float4_rows(const float4* in, float4* out) {
  __shared__ __align__(16) float s[32][32 + PAD];
  int r = threadIdx.y, c4 = threadIdx.x;
  *reinterpret_cast<float4*>(&s[r][4 * c4]) = in[blockIdx.x * 256 + r * 8 + c4];
  __syncthreads();
  float4 v = *reinterpret_cast<const float4*>(&s[(r + 4 * c4) % 32][4 * c4]);
  out[blockIdx.x * 256 + r * 8 + c4] = v;
}

// Transpose of 32 x 32 tiles of float2 (8-byte shared accesses), block 32 x 8.
template <int PAD>
__global__ void float2_transpose(const float2* in, float2* out, int n) {
  __shared__ float2 t[32][32 + PAD];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}

// A transpose through an XOR-swizzled tile: element (r, c) lives at column c ^ r.
extern "C" __global__ void xor_swizzle_transpose(const float* in, float* out, int n) {
  __shared__ float t[32][32];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int r = threadIdx.y + j;
    t[r][threadIdx.x ^ r] = in[(y + j) * n + x];
  }
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8) {
    int r = threadIdx.y + j;
    out[(y + j) * n + x] = t[threadIdx.x][r ^ threadIdx.x];
  }
}

// The CUDA samples' matrixMul kernel (0_Introduction/matrixMul).
template <int BLOCK_SIZE>
__global__ void matrixMulCUDA(float* C, float* A, float* B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y, tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by, aEnd = aBegin + wA - 1, aStep = BLOCK_SIZE;
  int bBegin = BLOCK_SIZE * bx, bStep = BLOCK_SIZE * wB;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) Csub += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

#ifndef __CUDACC_RTC__
#include "zoo_headers.cu"
#include "../histogram_fp16/common.h"
#include <cstring>
#include <vector>

// Buffers filled as warpsim's `init: Random(seed)` fills them (f32/f64: [-1, 1); integers: the top
// 16 bits, [0, 65536); u8/i8: the top 8 bits; f16: the f32 draw rounded; f64: the top 53 bits), or zeros.
template <class T> static T* dev(const std::vector<T>& h) {
  T* d; CK(cudaMalloc(&d, h.size() * sizeof(T) + 16));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
static float* rf32(int seed, size_t n) {
  std::vector<float> h(n); for (size_t i = 0; i < n; i++) h[i] = random_f32(seed, i); return dev(h);
}
static double* rf64(int seed, size_t n) {
  std::vector<double> h(n);
  for (size_t i = 0; i < n; i++) h[i] = (double)(random_bits(seed, i) >> 11) * (1.0 / (double)(1ull << 52)) - 1.0; return dev(h);
}
static int* ri32(int seed, size_t n) {
  std::vector<int> h(n); for (size_t i = 0; i < n; i++) h[i] = (int)(random_bits(seed, i) >> 48); return dev(h);
}
static unsigned char* ru8(int seed, size_t n) {
  std::vector<unsigned char> h(n); for (size_t i = 0; i < n; i++) h[i] = random_u8(seed, i); return dev(h);
}
static __half* rf16(int seed, size_t n) {
  std::vector<__half> h(n); for (size_t i = 0; i < n; i++) h[i] = __float2half_rn(random_f32(seed, i)); return dev(h);
}
template <class T> static T* zeros(size_t n) {
  T* d; CK(cudaMalloc(&d, n * sizeof(T) + 16)); CK(cudaMemset(d, 0, n * sizeof(T) + 16)); return d;
}
static bool want(int argc, char** argv, const char* k) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; i++) if (!strcmp(argv[i], k)) return true;
  return false;
}
#define RUN(name, launch) do { if (want(argc, argv, name)) { launch; CK(cudaGetLastError()); \
  CK(cudaDeviceSynchronize()); printf("launched %s\n", name); } } while (0)

int main(int argc, char** argv) {
  CK(cudaFree(0));
  // Launches: the same grid, block, dynamic shared bytes, arguments and inputs as
  // programs/cuda/zoo/<name>.ron.
  RUN("copySharedMem", (copySharedMem<<<dim3(8, 8), dim3(32, 8)>>>(zeros<float>(65536), rf32(1, 65536), 256, 256)));
  RUN("transposeDiagonal", (transposeDiagonal<<<dim3(8, 8), dim3(32, 8)>>>(zeros<float>(65536), rf32(1, 65536), 256, 256)));
  RUN("transposeFineGrained", (transposeFineGrained<<<dim3(8, 8), dim3(32, 8)>>>(zeros<float>(65536), rf32(1, 65536), 256, 256)));
  RUN("reduce6_f32", (reduce6<float, 256, true><<<64, 256, 8 * 4>>>(rf32(1, 1 << 16), zeros<float>(64), 1 << 16)));
  RUN("reduce6_i32", (reduce6<int, 256, false><<<64, 256, 8 * 4>>>(ri32(1, 60000), zeros<int>(64), 60000)));
  RUN("reduce6_f64", (reduce6<double, 128, true><<<64, 128, 4 * 8>>>(rf64(1, 1 << 15), zeros<double>(64), 1 << 15)));
  RUN("reduce3_f32", (reduce3<float><<<64, 256, 256 * 4>>>(rf32(1, 1 << 15), zeros<float>(64), 1 << 15)));
  RUN("reduce3_f64", (reduce3<double><<<64, 256, 256 * 8>>>(rf64(1, 1 << 15), zeros<double>(64), 1 << 15)));
  RUN("prescan", (prescan<<<1, 256, (512 + 16) * 4>>>(zeros<float>(512), rf32(1, 512), 512)));
  RUN("scan_size_t", (scan_size_t<<<64, 256>>>(rf32(1, 16000), zeros<float>(16384), (size_t)16000)));
  RUN("cg_reduce", (cg_reduce<<<64, 256>>>(ri32(1, 64 * 256), zeros<int>(1))));
  RUN("local_array", (local_array<<<1, 64>>>(ri32(1, 1024), zeros<int>(64), 5)));
  RUN("noinline_shared", (noinline_shared<<<1, 128>>>(rf32(1, 128), zeros<float>(128))));
  RUN("half_tile", (half_tile<<<1, dim3(32, 32)>>>(rf16(1, 1024), zeros<__half>(1024))));
  RUN("uchar_hist", (uchar_hist<<<16, 256>>>(ru8(7, 1 << 16), zeros<unsigned>(256), 1 << 16)));
  RUN("char_smem", (char_smem<<<1, 1024>>>((const char*)ru8(1, 1024), zeros<char>(1024))));
  RUN("dbl_stencil", (dbl_stencil<<<16, 256>>>(rf64(1, 4096), zeros<double>(4096), 4096)));
  RUN("softmax_row", (softmax_row<<<16, 128>>>(rf32(1, 16 * 300), zeros<float>(16 * 300), 300)));
  RUN("float4_rows_0", (float4_rows<0><<<16, dim3(8, 32)>>>((const float4*)rf32(1, 16 * 1024), (float4*)zeros<float>(16 * 1024))));
  RUN("float4_rows_4", (float4_rows<4><<<16, dim3(8, 32)>>>((const float4*)rf32(1, 16 * 1024), (float4*)zeros<float>(16 * 1024))));
  RUN("float2_transpose_0", (float2_transpose<0><<<dim3(4, 4), dim3(32, 8)>>>((const float2*)rf32(1, 2 * 16384), (float2*)zeros<float>(2 * 16384), 128)));
  RUN("float2_transpose_1", (float2_transpose<1><<<dim3(4, 4), dim3(32, 8)>>>((const float2*)rf32(1, 2 * 16384), (float2*)zeros<float>(2 * 16384), 128)));
  RUN("xor_swizzle_transpose", (xor_swizzle_transpose<<<dim3(8, 8), dim3(32, 8)>>>(rf32(1, 65536), zeros<float>(65536), 256)));
  RUN("matrixMul_16", (matrixMulCUDA<16><<<dim3(8, 8), dim3(16, 16)>>>(zeros<float>(128 * 128), rf32(1, 128 * 128), rf32(2, 128 * 128), 128, 128)));
  RUN("matrixMul_32", (matrixMulCUDA<32><<<dim3(4, 4), dim3(32, 32)>>>(zeros<float>(128 * 128), rf32(1, 128 * 128), rf32(2, 128 * 128), 128, 128)));
  return 0;
}
#endif
