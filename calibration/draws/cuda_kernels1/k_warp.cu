// cuda_kernels1, warp-level and bit operations, each re-implemented here from its published
// technique (not copied): the CUDA samples' shuffle scan (the segment width passed at run
// time), a reduction with __reduce_add_sync (redux.sync, the samples' newest reduction), a key
// histogram with warp-aggregated shared atomics grouped by __match_any_sync (NVIDIA's
// warp-aggregated atomics), a per-block count and rank with __syncthreads_count and ballots, and
// 64-bit bit tricks (Morton codes, brev/popc/clz/ffs, byte_perm, funnel shift, mul.hi, testp).

// ---- inclusive scan of a block with shuffles; `width` is a kernel argument ----------------------
// Block of 32 * W threads (W <= 32); dynamic shared memory: W ints.
extern "C" __global__ void shflScan(int* data, int width, int* blockSums) {
  extern __shared__ int warpTotals[];
  const int gid = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = gid % warpSize, wid = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  int v = data[gid];
  for (int d = 1; d <= width; d *= 2) {
    const int up = __shfl_up_sync(0xffffffffu, v, d, width);
    if (lane >= d) v += up;
  }
  if (threadIdx.x % warpSize == warpSize - 1) warpTotals[wid] = v;
  __syncthreads();
  if (wid == 0 && lane < warps) {
    int t = warpTotals[lane];
    const unsigned members = (1u << warps) - 1;
    for (int d = 1; d <= warps; d *= 2) {
      const int up = __shfl_up_sync(members, t, d, warps);
      if (lane >= d) t += up;
    }
    warpTotals[lane] = t;
  }
  __syncthreads();
  if (wid > 0) v += warpTotals[wid - 1];
  data[gid] = v;
  if (blockSums != nullptr && threadIdx.x == blockDim.x - 1) blockSums[blockIdx.x] = v;
}

// ---- grid-stride sum with redux.sync ------------------------------------------------------------
extern "C" __global__ void reduceRedux(const int* in, int* out, unsigned n) {
  __shared__ int warpSums[32];
  const unsigned lane = threadIdx.x % 32, wid = threadIdx.x / 32;
  int s = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) s += in[i];
  s = __reduce_add_sync(0xffffffffu, s);
  if (lane == 0) warpSums[wid] = s;
  __syncthreads();
  if (wid == 0) {
    const unsigned warps = blockDim.x / 32;
    const unsigned members = __ballot_sync(0xffffffffu, lane < warps);
    if (lane < warps) {
      const int t = __reduce_add_sync(members, warpSums[lane]);
      if (lane == 0) out[blockIdx.x] = t;
    }
  }
}

// ---- 64-bin histogram of keys: lanes with equal keys add once, through their leader --------------
#define KBINS 64
extern "C" __global__ void matchAnyHist(const unsigned* data, unsigned* hist, int n) {
  __shared__ unsigned bins[KBINS];
  for (int b = threadIdx.x; b < KBINS; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const unsigned key = (data[i] >> 10) % KBINS;
    const unsigned peers = __match_any_sync(__activemask(), key);
    const int leader = __ffs(peers) - 1;
    if ((int)(threadIdx.x & 31) == leader) atomicAdd(&bins[key], (unsigned)__popc(peers));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < KBINS; b += blockDim.x) atomicAdd(&hist[b], bins[b]);
}

// ---- per block: how many elements exceed `thr`, and each one's rank among them ------------------
extern "C" __global__ void syncCountRank(const float* x, float thr, int* rank, int* count) {
  __shared__ int warpCount[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const bool f = x[i] > thr;
  const int total = __syncthreads_count(f);
  const unsigned b = __ballot_sync(0xffffffffu, f);
  if (lane == 0) warpCount[wid] = __popc(b);
  __syncthreads();
  int before = __popc(b & ((1u << lane) - 1u));
  for (int w = 0; w < wid; w++) before += warpCount[w];
  rank[i] = f ? before : -1;
  if (threadIdx.x == 0) count[blockIdx.x] = total;
}

// ---- 64-bit bit tricks -------------------------------------------------------------------------
__device__ __forceinline__ unsigned long long spreadBits(unsigned v) {
  unsigned long long x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFull;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x << 2)) & 0x3333333333333333ull;
  x = (x | (x << 1)) & 0x5555555555555555ull;
  return x;
}

// Element i: the Morton code of (a[2i], a[2i+1]) and what the bit intrinsics make of it (the
// 64-bit result as two 32-bit words: lo[i], hi[i]).
extern "C" __global__ void bitTricks(const unsigned* a, unsigned* lo, unsigned* hi, unsigned* out2, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[2 * i], y = a[2 * i + 1];
  const unsigned long long m = spreadBits(x) | (spreadBits(y) << 1);
  const unsigned long long r = __brevll(m) ^ ((unsigned long long)__popcll(m) << 58) ^
                               __umul64hi(m, 0x9E3779B97F4A7C15ull);
  const int lz = __clzll(m | 1ull);
  const unsigned p = __byte_perm(x, y, 0x7351);
  const unsigned fs = __funnelshift_l(x, y, (unsigned)lz);
  const unsigned q = __umulhi(x, y) + (unsigned)__mulhi((int)x, (int)y);
  const float v = __uint_as_float(x ^ (y << 16));
  const unsigned cls = (isnan(v) ? 1u : 0u) | (isinf(v) ? 2u : 0u) | (isfinite(v) ? 4u : 0u) |
                       (signbit(v) ? 8u : 0u);
  const unsigned long long o = r ^ (unsigned long long)__ffsll((long long)m);
  lo[i] = (unsigned)o;
  hi[i] = (unsigned)(o >> 32);
  out2[i] = p ^ fs ^ q ^ (cls << 28) ^ (unsigned)lz;
}
