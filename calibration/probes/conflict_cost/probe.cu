// Issue 38 items 1-2: what a shared-memory bank conflict costs on the H200 inside reductions and
// scans, and why the model under-costs it. One file for nvcc (run.sh) and for warpsim (NVRTC:
// ports/*.ron name a kernel of this file; host code and the clock64 kernels sit under
// `#ifndef __CUDACC_RTC__`, which NVRTC defines).
//
// Every kernel has the same signature (const float* x, float* out, int a, int b, int c), so the
// host launches them from a table (launches.tsv: label, kernel, grid, block, dynamic shared bytes,
// a, b, c, x length, out length, group) and the ports pass the same five arguments. What a, b, c
// mean is said at each kernel. Input x: warpsim's Random(1) (f32 in [-1, 1)), so `(int)x[1]`
// is 0 at run time on both, which the probes use as a zero the compiler cannot fold.
//
// Families (README.md says what each decides):
//   1. reduce0..reduce3: Harris, "Optimizing Parallel Reduction in CUDA" (2007), kernels 1-4 as
//      published (re-implemented); reduce1p: reduce1 with every shared index i mapped to
//      i + ((i >> 5) & a): a = 0 is reduce1's banks, a = -1 (every bit) conflict-free, the same SASS.
//   2. prescan<CF>: GPU Gems 3 ch. 39 work-efficient (Blelloch) scan, one block of n = 2 *
//      blockDim elements per block; CF 0: no offsets, 1: CONFLICT_FREE_OFFSET(i) = i >> 5,
//      2: offset (i >> 5) & b (b = 0: CF 0's banks, b = -1: CF 1's; the same SASS).
//   3. tree<STRIDED, SYNC, CHAIN>: the reduction tree alone (no global load), repeated c times:
//      STRIDED 1 = reduce1p's index (a = pad), 0 = reduce2's; SYNC 0 drops the barrier between
//      levels; CHAIN dependent FFMAs between each level's add and its store.
//   4. lvl<NLD, ST, CHAIN, SYNC, DEP>: one "level" repeated c times, every instruction a-way
//      conflicted (lane l at word l * a + region), by the first b warps of the block: NLD loads
//      (regions 0..NLD-1), their sum, CHAIN dependent FFMAs, ST: a store to region 0, SYNC: a
//      barrier, DEP: the next loads' address depends on this level's value.
//   5. modloop<MODE>: the `%`-divergent loop of calibration/heldout.cu (divergence_k) and
//      variants that separate the remainder's instructions from the divergence.
//   6. ldonly: a reduction's global traffic without its tree (many-wave overlap).
//   7. treeclk<STRIDED> (nvcc only): tree<STRIDED, 1, 0> with thread 0 stamping clock64 after
//      every barrier: the H200's time per level.

#define FULL 0xffffffffu

// ---- 1. Harris's reductions (one element per thread; reduce3 two) --------------------------
// a, b, c unused except reduce1p (a = pad mask 0 or -1). Dynamic shared: blockDim floats
// (reduce1p: blockDim + blockDim / 32).
__global__ void reduce0(const float* g_idata, float* g_odata, int, int, int) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce1(const float* g_idata, float* g_odata, int, int, int) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

#define PADI(i) ((i) + (((i) >> 5) & pad))
__global__ void reduce1p(const float* g_idata, float* g_odata, int pad, int, int) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[PADI(tid)] = g_idata[i];
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x) sdata[PADI(index)] += sdata[PADI(index + s)];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce2(const float* g_idata, float* g_odata, int, int, int) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

__global__ void reduce3(const float* g_idata, float* g_odata, int, int, int) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  sdata[tid] = g_idata[i] + g_idata[i + blockDim.x];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// ---- 2. GPU Gems 3 ch. 39 prescan (exclusive, n = a elements a block) -----------------------
// a = n (2 * blockDim), b = offset mask for CF 2. Dynamic shared: (n + n / 32) floats.
template <int CF>
__device__ __forceinline__ int cfo(int i, int mask) {
  if (CF == 0) return 0;
  if (CF == 1) return i >> 5;
  return (i >> 5) & mask;
}
template <int CF>
__global__ void prescan(const float* g_idata, float* g_odata, int n, int mask, int) {
  extern __shared__ float temp[];
  int thid = threadIdx.x;
  const float* in = g_idata + (size_t)blockIdx.x * n;
  float* outp = g_odata + (size_t)blockIdx.x * n;
  int offset = 1;
  int ai = thid, bi = thid + (n / 2);
  int bankOffsetA = cfo<CF>(ai, mask), bankOffsetB = cfo<CF>(bi, mask);
  temp[ai + bankOffsetA] = in[ai];
  temp[bi + bankOffsetB] = in[bi];
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += cfo<CF>(ai, mask);
      bi += cfo<CF>(bi, mask);
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + cfo<CF>(n - 1, mask)] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (thid < d) {
      int ai = offset * (2 * thid + 1) - 1, bi = offset * (2 * thid + 2) - 1;
      ai += cfo<CF>(ai, mask);
      bi += cfo<CF>(bi, mask);
      float t = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += t;
    }
  }
  __syncthreads();
  outp[ai] = temp[ai + bankOffsetA];
  outp[bi] = temp[bi + bankOffsetB];
}

// ---- 3. The tree alone ------------------------------------------------------------------------
// a = pad mask (STRIDED only; 0 or -1), c = repetitions of the whole tree. Dynamic shared:
// blockDim + blockDim / 32 floats. Volatile: every access one LDS/STS in program order, so
// dropping the barriers (SYNC 0) changes nothing else in the SASS but the BARs.
template <int STRIDED, int SYNC, int CHAIN>
__global__ void tree(const float* x, float* out, int pad, int, int reps) {
  extern __shared__ float sraw[];
  volatile float* sdata = sraw;
  unsigned int tid = threadIdx.x;
  int zm = (int)x[1];                    // 0 at run time
  float one = __int_as_float(0x3f800000 + zm), zero = __int_as_float(zm);
  float v = (float)tid;
  for (int r = 0; r < reps; r++) {
    sdata[PADI(tid)] = v;
    __syncthreads();
    if (STRIDED) {
      for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x) {
          float t = sdata[PADI(index)] + sdata[PADI(index + s)];
#pragma unroll
          for (int k = 0; k < CHAIN; k++) t = fmaf(t, one, zero);
          sdata[PADI(index)] = t;
        }
        if (SYNC) __syncthreads();
      }
    } else {
      for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
          float t = sdata[tid] + sdata[tid + s];
#pragma unroll
          for (int k = 0; k < CHAIN; k++) t = fmaf(t, one, zero);
          sdata[tid] = t;
        }
        if (SYNC) __syncthreads();
      }
    }
    v = sdata[0] * zero + v;             // the next repetition depends on this one's result
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = v;
}

// ---- 4. One level, repeated ---------------------------------------------------------------
// a = ways (lane l reads word l * a of each region: a-way conflicted for a = 1, 2, 4, ..., 32),
// b = warps that work (the rest only meet the barriers), c = repetitions. Static shared: four
// regions of 1024 words, zero, so every value stays 0.
template <int NLD, int ST, int CHAIN, int SYNC, int DEP>
__global__ void lvl(const float* x, float* out, int ways, int wact, int reps) {
  __shared__ float sraw[4096];
  volatile float* s = sraw;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int zm = (int)x[1];                    // 0 at run time
  float one = __int_as_float(0x3f800000 + zm), zero = __int_as_float(zm);
  int base = (lane * ways) & 1023;
  // Zero the words the warps use (every warp writes the same words: one value).
  s[base] = 0.f;
  s[base + 1024] = 0.f;
  s[base + 2048] = 0.f;
  s[base + 3072] = 0.f;
  __syncthreads();
  float v = zero;
  int d = 0;
  for (int r = 0; r < reps; r++) {
    if (warp < wact) {
      float t;
      if (NLD == 0) {
        t = v + one;
      } else if (NLD == 1) {
        t = s[base + d];
      } else if (NLD == 2) {
        t = s[base + d] + s[base + 1024 + d];
      } else {
        t = (s[base + d] + s[base + 1024 + d]) + (s[base + 2048 + d] + s[base + 3072 + d]);
      }
#pragma unroll
      for (int k = 0; k < CHAIN; k++) t = fmaf(t, one, zero);
      if (ST) s[base + d] = (NLD == 0 ? zero : t);
      v = t;
      if (DEP) d = __float_as_int(v) & zm;
    }
    if (SYNC) __syncthreads();
  }
  if (lane == 0) out[blockIdx.x * 32 + warp] = v;
}

// ---- 5. The `%`-divergent loop (calibration/heldout.cu's divergence_k) and variants ------
// a = 8 and b = 2 at run time (MODE 1, 4: remainders by a variable), c = 7 (MODE 3's trips).
// The value goes out as the int's bits.
template <int MODE>
__global__ void modloop(const float*, float* out, int m8, int m2, int trips) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = 0;
  if (MODE == 0) {                       // divergence_k as published: % by constants
    if (i % 2 == 1) {
      int k = 1;
      while (k <= i % 8) { v = v + k; k = k + 1; }
    } else {
      v = i * 2;
    }
  } else if (MODE == 1) {                // every lane loops, trips i % m8 (remainder by a variable)
    int k = 1;
    while (k <= i % m8) { v = v + k; k = k + 1; }
  } else if (MODE == 2) {                // the same trips from a mask (no remainder)
    int k = 1;
    while (k <= (i & 7)) { v = v + k; k = k + 1; }
  } else if (MODE == 3) {                // no divergence: every lane `trips` times
    int k = 1;
    while (k <= trips) { v = v + k; k = k + 1; }
  } else {                               // MODE 4: divergence_k with both remainders by variables
    if (i % m2 == 1) {
      int k = 1;
      while (k <= i % m8) { v = v + k; k = k + 1; }
    } else {
      v = i * 2;
    }
  }
  out[i] = __int_as_float(v);
}

// ---- 6. A reduction's global traffic without its tree -------------------------------------
__global__ void ldonly(const float* x, float* out, int, int, int) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  __syncthreads();
  if (v == 1234.5f) out[i] = v;          // never true for x in [-1, 1): keeps the load
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Explicit instantiations, so NVRTC (cucheck) compiles every kernel nvcc does.
template __global__ void prescan<0>(const float*, float*, int, int, int);
template __global__ void prescan<1>(const float*, float*, int, int, int);
template __global__ void prescan<2>(const float*, float*, int, int, int);
template __global__ void tree<1, 1, 0>(const float*, float*, int, int, int);
template __global__ void tree<0, 1, 0>(const float*, float*, int, int, int);
template __global__ void tree<1, 0, 0>(const float*, float*, int, int, int);
template __global__ void tree<0, 0, 0>(const float*, float*, int, int, int);
template __global__ void tree<1, 1, 8>(const float*, float*, int, int, int);
template __global__ void tree<0, 1, 8>(const float*, float*, int, int, int);
template __global__ void lvl<1, 0, 0, 0, 1>(const float*, float*, int, int, int);
template __global__ void lvl<2, 0, 0, 0, 1>(const float*, float*, int, int, int);
template __global__ void lvl<4, 0, 0, 0, 1>(const float*, float*, int, int, int);
template __global__ void lvl<1, 1, 0, 0, 1>(const float*, float*, int, int, int);
template __global__ void lvl<0, 1, 0, 0, 0>(const float*, float*, int, int, int);
template __global__ void lvl<0, 1, 0, 1, 0>(const float*, float*, int, int, int);
template __global__ void lvl<2, 1, 0, 1, 0>(const float*, float*, int, int, int);
template __global__ void lvl<2, 1, 4, 1, 0>(const float*, float*, int, int, int);
template __global__ void lvl<2, 1, 16, 1, 0>(const float*, float*, int, int, int);
template __global__ void lvl<2, 1, 0, 0, 1>(const float*, float*, int, int, int);
template __global__ void lvl<2, 1, 0, 0, 0>(const float*, float*, int, int, int);
template __global__ void modloop<0>(const float*, float*, int, int, int);
template __global__ void modloop<1>(const float*, float*, int, int, int);
template __global__ void modloop<2>(const float*, float*, int, int, int);
template __global__ void modloop<3>(const float*, float*, int, int, int);
template __global__ void modloop<4>(const float*, float*, int, int, int);

#ifndef __CUDACC_RTC__
// ---- 7. Per-level clocks (nvcc only: warpsim has no clock) --------------------------------
// tree<STRIDED, 1, 0> with one repetition; thread 0 writes, per block, the clock64 offset from
// the kernel's first barrier after each level's barrier, as the int bits of out[blk * 32 + k]
// (k = 0: after the first store's barrier; k = L + 1 after level L). a = pad.
template <int STRIDED>
__global__ void treeclk(const float* x, float* out, int pad, int, int) {
  extern __shared__ float sraw[];
  volatile float* sdata = sraw;
  unsigned int tid = threadIdx.x;
  float v = x[blockIdx.x * blockDim.x + tid];
  long long t0 = 0;
  int k = 0;
  sdata[PADI(tid)] = v;
  __syncthreads();
  if (tid == 0) { t0 = clock64(); out[blockIdx.x * 32 + k] = __int_as_float(0); }
  k++;
  if (STRIDED) {
    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
      unsigned int index = 2 * s * tid;
      if (index < blockDim.x) sdata[PADI(index)] = sdata[PADI(index)] + sdata[PADI(index + s)];
      __syncthreads();
      if (tid == 0) out[blockIdx.x * 32 + k] = __int_as_float((int)(clock64() - t0));
      k++;
    }
  } else {
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
      if (tid < s) sdata[tid] = sdata[tid] + sdata[tid + s];
      __syncthreads();
      if (tid == 0) out[blockIdx.x * 32 + k] = __int_as_float((int)(clock64() - t0));
      k++;
    }
  }
  if (tid == 0) out[blockIdx.x * 32 + 31] = sdata[0];
}

// ---- Host: launches.tsv's rows of one group, each labelled on stderr in launch order ------
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include <cmath>

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
  {"reduce0", reduce0}, {"reduce1", reduce1}, {"reduce1p", reduce1p}, {"reduce2", reduce2},
  {"reduce3", reduce3},
  {"prescan<0>", prescan<0>}, {"prescan<1>", prescan<1>}, {"prescan<2>", prescan<2>},
  {"tree<1,1,0>", tree<1, 1, 0>}, {"tree<0,1,0>", tree<0, 1, 0>}, {"tree<1,0,0>", tree<1, 0, 0>},
  {"tree<0,0,0>", tree<0, 0, 0>}, {"tree<1,1,8>", tree<1, 1, 8>}, {"tree<0,1,8>", tree<0, 1, 8>},
  {"lvl<1,0,0,0,1>", lvl<1, 0, 0, 0, 1>}, {"lvl<2,0,0,0,1>", lvl<2, 0, 0, 0, 1>},
  {"lvl<4,0,0,0,1>", lvl<4, 0, 0, 0, 1>}, {"lvl<1,1,0,0,1>", lvl<1, 1, 0, 0, 1>},
  {"lvl<0,1,0,0,0>", lvl<0, 1, 0, 0, 0>}, {"lvl<0,1,0,1,0>", lvl<0, 1, 0, 1, 0>},
  {"lvl<2,1,0,1,0>", lvl<2, 1, 0, 1, 0>}, {"lvl<2,1,4,1,0>", lvl<2, 1, 4, 1, 0>},
  {"lvl<2,1,16,1,0>", lvl<2, 1, 16, 1, 0>}, {"lvl<2,1,0,0,1>", lvl<2, 1, 0, 0, 1>},
  {"lvl<2,1,0,0,0>", lvl<2, 1, 0, 0, 0>},
  {"modloop<0>", modloop<0>}, {"modloop<1>", modloop<1>}, {"modloop<2>", modloop<2>},
  {"modloop<3>", modloop<3>}, {"modloop<4>", modloop<4>},
  {"ldonly", ldonly},
  {"treeclk<1>", treeclk<1>}, {"treeclk<0>", treeclk<0>},
};

struct Row {
  std::string label, kernel, group;
  unsigned grid, block, smem;
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
    char lab[256], ker[64], grp[64];
    unsigned g, b, sm;
    int a, bb, c;
    unsigned long long xl, ol;
    if (sscanf(line, "%255s %63s %u %u %u %d %d %d %llu %llu %63s", lab, ker, &g, &b, &sm, &a, &bb, &c,
               &xl, &ol, grp) != 11) {
      fprintf(stderr, "bad row: %s", line);
      exit(2);
    }
    rows.push_back({lab, ker, grp, g, b, sm, a, bb, c, (size_t)xl, (size_t)ol});
  }
  fclose(f);
  return rows;
}

static Kfn find(const std::string& k) {
  for (const Entry& e : TABLE) if (k == e.name) return e.fn;
  fprintf(stderr, "unknown kernel %s\n", k.c_str());
  exit(2);
}

// CPU checks of the functional kernels (the probes of families 3-4 compute zeros; not checked).
static int check(const Row& r, const std::vector<float>& x, const std::vector<float>& out) {
  const std::string& k = r.kernel;
  if (k.rfind("reduce", 0) == 0) {
    unsigned per = r.block * (k == "reduce3" ? 2 : 1);
    int bad = 0;
    for (unsigned blk = 0; blk < r.grid; blk++) {
      double s = 0;
      for (unsigned j = 0; j < per; j++) s += x[(size_t)blk * per + j];
      if (fabs(out[blk] - s) > 1e-3 * (1 + fabs(s))) bad++;
    }
    return bad;
  }
  if (k.rfind("prescan", 0) == 0) {
    int n = r.a, bad = 0;
    for (unsigned blk = 0; blk < r.grid; blk++) {
      double s = 0;
      for (int j = 0; j < n; j++) {
        size_t p = (size_t)blk * n + j;
        if (fabs(out[p] - s) > 1e-3 * (1 + fabs(s))) bad++;
        s += x[p];
      }
    }
    return bad;
  }
  if (k.rfind("modloop", 0) == 0) {
    int bad = 0;
    for (size_t i = 0; i < (size_t)r.grid * r.block; i++) {
      int ii = (int)i, v, e;
      memcpy(&v, &out[i], 4);
      int m = ii % 8, t = (k == "modloop<3>") ? 7 : m;
      if (k == "modloop<0>" || k == "modloop<4>") e = (ii % 2 == 1) ? m * (m + 1) / 2 : ii * 2;
      else e = t * (t + 1) / 2;
      if (v != e) bad++;
    }
    return bad;
  }
  return -1;  // not checked
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: probe launches.tsv GROUP[,GROUP...]|all [clock]\n"); return 2; }
  std::vector<Row> rows = read_rows(argv[1]);
  std::string groups = std::string(",") + argv[2] + ",";
  bool clockrun = argc > 3 && !strcmp(argv[3], "clock");
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
    if (groups != ",all," && groups.find("," + r.group + ",") == std::string::npos) continue;
    if (clockrun != (r.kernel.rfind("treeclk", 0) == 0)) continue;
    Kfn fn = find(r.kernel);
    if (r.smem > 48 * 1024) CK(cudaFuncSetAttribute((const void*)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, r.smem));
    CK(cudaMemset(dout, 0, r.outlen * 4));
    fprintf(stderr, "LAUNCH\t%d\t%s\t%s\t%u\t%u\n", n++, r.label.c_str(), r.kernel.c_str(), r.grid, r.block);
    void* args[] = {(void*)&dx, (void*)&dout, (void*)&r.a, (void*)&r.b, (void*)&r.c};
    CK(cudaLaunchKernel((const void*)fn, dim3(r.grid), dim3(r.block), args, r.smem, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> out(r.outlen);
    CK(cudaMemcpy(out.data(), dout, r.outlen * 4, cudaMemcpyDeviceToHost));
    if (clockrun) {
      // Per level: the median over blocks of the clock offsets, and of the level's own time.
      int nl = 0;
      for (unsigned s = 1; s < r.block; s *= 2) nl++;
      printf("CLOCK\t%s", r.label.c_str());
      int prev = 0;
      for (int k = 1; k <= nl; k++) {
        std::vector<int> v;
        for (unsigned blk = 0; blk < r.grid; blk++) { int c; memcpy(&c, &out[blk * 32 + k], 4); v.push_back(c); }
        std::sort(v.begin(), v.end());
        int med = v[v.size() / 2];
        printf("\t%d", med - prev);
        prev = med;
      }
      printf("\ttotal\t%d\n", prev);
    } else {
      int bad = check(r, hx, out);
      printf("RUN\t%s\t%s\n", r.label.c_str(), bad < 0 ? "unchecked" : bad == 0 ? "ok" : "WRONG");
    }
  }
  CK(cudaFree(dx));
  CK(cudaFree(dout));
  return 0;
}
#endif  // __CUDACC_RTC__
