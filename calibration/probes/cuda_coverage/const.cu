// Constant memory on the H200 (issue 37 item 1): what a `__constant__` load costs.
//
// One `__constant__` array of 64 KiB (`cmem`, bank c[0x3]) holds, per experiment, a chase
// table of byte offsets relative to cmem: `next(o) = cmem[o / 4]`. The chase
// `o = *(const unsigned*)((const char*)cmem + o)` compiles to a bare dependent chain
// `LDC R, c[0x3][R]` (run.sh checks the SASS), so cycles per step are LDC latencies.
//
// Modes (each prints TSV with a header line starting with '#'):
//   lat   : one warp, dependent chains, average cycles per LDC.
//           'ws' rows: one address per warp (uniform), table = stride chain over a working
//           set (capacity and miss latencies of the constant caches);
//           'div' rows: an identity table (every load hits after the first), lane l reads
//           offset (l % D) * laneStride (or blocked: (l / (32 / D)) * laneStride): D distinct
//           addresses per LDC, in one line or in D lines.
//   steps : one warp, per-step latencies of the first 256 steps of a 64-byte stride chain
//           over 64 KiB, two passes (cold, warm), after an L2 flush / without / relaunched; and
//           the same harness on a shared-memory chain (the LDS latency is known: 23 cycles),
//           which calibrates the harness's own cycles.
//   thr   : W warps of one block on one SM, 8 independent chains each on an identity table:
//           SM cycles per warp-level LDC, for D distinct addresses (lines) per LDC.
//   imm   : K unrolled FFMAs whose addend is cmem[i] with a constant i (ptxas: ULDC or a
//           c[0x3][imm] operand) against the same with immediates, one pass per launch,
//           three launches in a row (constant caches across launches).
//   ncu   : a fixed list of launches for Nsight Compute (printed as L lines, in launch order).
// Second call (run2.sh, after the first call's analysis):
//   thr2  : as thr, but chain k starts at 64 k (not 4 KiB k) and a lane's D addresses are 512 B
//           apart (D <= 4: lines k + 8g, all 32 lines of 2 KiB, at most D per set of a 4-way x 8
//           or 2-way x 16 cache) or 4 B apart (one line per chain): every load hits the 2 KiB
//           constant cache, so this is the hit throughput the thr rows could not give.
//   assoc : one warp, a uniform chain over N lines S bytes apart (S = 512, 1024, 2048;
//           N = 1..9): latency 28 while the N lines fit in one set's ways, 98 beyond
//           (4-way x 8 sets: S = 1024 fits N <= 4; 2-way x 16 sets: N <= 2).
//   ncu2  : launches of thr2 and assoc for Nsight Compute (L lines).
#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#endif

typedef unsigned long long u64;

__constant__ unsigned cmem[16384];

__device__ __forceinline__ unsigned cld(unsigned o) {
  return *(const unsigned*)((const char*)cmem + o);
}

// Average cycles per dependent LDC over `steps` loads, after a warm-up pass of `steps`.
__global__ void k_lat(unsigned* out, long long* cyc, int steps, unsigned laneStride, int D,
                      int blocked) {
  __shared__ volatile unsigned sink[32];
  const unsigned lane = threadIdx.x & 31;
  const unsigned g = blocked ? lane / (32 / D) : lane % D;
  unsigned o = g * laneStride;
#pragma unroll 8
  for (int i = 0; i < steps; ++i) o = cld(o);
  sink[lane] = o;
  long long t0 = clock64();
#pragma unroll 8
  for (int i = 0; i < steps; ++i) o = cld(o);
  sink[lane] = o;
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  out[threadIdx.x] = o;
}

// Per-step cycles of the first n steps, `passes` times over the same n steps.
__global__ void k_steps(unsigned* out, unsigned* times, int n, int passes) {
  __shared__ volatile unsigned sink[32];
  __shared__ unsigned t[1024];
  const unsigned lane = threadIdx.x & 31;
  for (int p = 0; p < passes; ++p) {
    unsigned o = 0;
    for (int j = 0; j < n; ++j) {
      long long t0 = clock64();
      o = cld(o);
      sink[lane] = o;
      long long t1 = clock64();
      t[p * n + j] = (unsigned)(t1 - t0);
    }
    out[threadIdx.x] = o;
  }
  __syncwarp();
  for (int j = lane; j < n * passes; j += 32) times[j] = t[j];
}

// The same harness on a shared-memory chain (byte offsets, 64-byte stride over 16 KiB).
__global__ void k_steps_lds(unsigned* out, unsigned* times, int n, int passes) {
  __shared__ volatile unsigned sink[32];
  __shared__ unsigned t[1024];
  __shared__ unsigned s[4096];
  const unsigned lane = threadIdx.x & 31;
  for (int i = lane; i < 4096; i += 32) s[i] = (i * 4 + 64) % 16384;
  __syncwarp();
  for (int p = 0; p < passes; ++p) {
    unsigned o = 0;
    for (int j = 0; j < n; ++j) {
      long long t0 = clock64();
      o = *(volatile unsigned*)((char*)s + o);
      sink[lane] = o;
      long long t1 = clock64();
      t[p * n + j] = (unsigned)(t1 - t0);
    }
    out[threadIdx.x] = o;
  }
  __syncwarp();
  for (int j = lane; j < n * passes; j += 32) times[j] = t[j];
}

// Throughput: 8 independent chains per lane; per warp its first and last clock.
__global__ void k_thr(unsigned* out, long long* tt, int iters, unsigned laneStride, int D) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const unsigned g = lane % D;
  // Chain k starts 4 KiB * k + g * laneStride (identity table: it stays there).
  unsigned a0 = 0 * 4096 + g * laneStride, a1 = 1 * 4096 + g * laneStride;
  unsigned a2 = 2 * 4096 + g * laneStride, a3 = 3 * 4096 + g * laneStride;
  unsigned a4 = 4 * 4096 + g * laneStride, a5 = 5 * 4096 + g * laneStride;
  unsigned a6 = 6 * 4096 + g * laneStride, a7 = 7 * 4096 + g * laneStride;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 2
  for (int i = 0; i < iters; ++i) {
    a0 = cld(a0); a1 = cld(a1); a2 = cld(a2); a3 = cld(a3);
    a4 = cld(a4); a5 = cld(a5); a6 = cld(a6); a7 = cld(a7);
  }
  unsigned r = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  out[threadIdx.x] = r;
  long long t1 = clock64();
  if (lane == 0) { tt[2 * warp] = t0; tt[2 * warp + 1] = t1; }
}

// Throughput on hits: 8 independent chains per lane at 64 k + g * laneStride (identity table).
__global__ void k_thr2(unsigned* out, long long* tt, int iters, unsigned laneStride, int D) {
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  const unsigned g = lane % D;
  unsigned a0 = 0 * 64 + g * laneStride, a1 = 1 * 64 + g * laneStride;
  unsigned a2 = 2 * 64 + g * laneStride, a3 = 3 * 64 + g * laneStride;
  unsigned a4 = 4 * 64 + g * laneStride, a5 = 5 * 64 + g * laneStride;
  unsigned a6 = 6 * 64 + g * laneStride, a7 = 7 * 64 + g * laneStride;
  for (int i = 0; i < 4; ++i) {  // warm the lines
    a0 = cld(a0); a1 = cld(a1); a2 = cld(a2); a3 = cld(a3);
    a4 = cld(a4); a5 = cld(a5); a6 = cld(a6); a7 = cld(a7);
  }
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 2
  for (int i = 0; i < iters; ++i) {
    a0 = cld(a0); a1 = cld(a1); a2 = cld(a2); a3 = cld(a3);
    a4 = cld(a4); a5 = cld(a5); a6 = cld(a6); a7 = cld(a7);
  }
  unsigned r = a0 ^ a1 ^ a2 ^ a3 ^ a4 ^ a5 ^ a6 ^ a7;
  out[threadIdx.x] = r;
  long long t1 = clock64();
  if (lane == 0) { tt[2 * warp] = t0; tt[2 * warp + 1] = t1; }
}

// K dependent FFMAs whose addend is a constant-memory word at a constant index (C) or an
// immediate (!C): the same code size, so the difference is what the constants cost.
template <int K, bool C>
__global__ void k_imm(float* out, long long* cyc, float x) {
  __shared__ volatile float sink[32];
  float acc = x;
  long long t0 = clock64();
#pragma unroll
  for (int i = 0; i < K; ++i)
    acc = fmaf(acc, x, C ? __uint_as_float(cmem[i]) : __uint_as_float(0x3c000000u + (unsigned)i));
  sink[threadIdx.x & 31] = acc;
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  out[threadIdx.x] = acc;
}
template __global__ void k_imm<64, true>(float*, long long*, float);
template __global__ void k_imm<64, false>(float*, long long*, float);
template __global__ void k_imm<256, true>(float*, long long*, float);
template __global__ void k_imm<256, false>(float*, long long*, float);
template __global__ void k_imm<1024, true>(float*, long long*, float);
template __global__ void k_imm<1024, false>(float*, long long*, float);

#ifndef __CUDACC_RTC__
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

static unsigned* d_out;
static long long* d_cyc;
static unsigned* d_times;
static char* d_flush;
static const size_t FLUSH = 256u << 20;  // 256 MiB: 5x the 50 MiB L2

// Table: next(o) = (o + stride) % ws for every word of [0, ws); stride 0: identity everywhere.
static void table(unsigned ws, unsigned stride) {
  std::vector<unsigned> t(16384);
  for (unsigned i = 0; i < 16384; ++i) {
    unsigned o = i * 4;
    t[i] = stride == 0 ? o : (o < ws ? (o + stride) % ws : o);
  }
  CK(cudaMemcpyToSymbol(cmem, t.data(), 65536));
  CK(cudaDeviceSynchronize());
}

static void floats() {
  std::vector<unsigned> t(16384);
  for (unsigned i = 0; i < 16384; ++i) t[i] = 0x3c000000u + i;  // same values as the immediates
  CK(cudaMemcpyToSymbol(cmem, t.data(), 65536));
  CK(cudaDeviceSynchronize());
}

static void flush_l2() {
  CK(cudaMemset(d_flush, (int)(rand() & 0xff), FLUSH));
  CK(cudaDeviceSynchronize());
}

static long long lat(int steps, unsigned laneStride, int D, int blocked) {
  k_lat<<<1, 32>>>(d_out, d_cyc, steps, laneStride, D, blocked);
  CK(cudaGetLastError());
  long long c;
  CK(cudaMemcpy(&c, d_cyc, 8, cudaMemcpyDeviceToHost));
  return c;
}

static void mode_lat() {
  const int steps = 2048;
  printf("#lat\tkind\tws_bytes\tstride_bytes\tD\tlane_stride_bytes\tblocked\tsteps\tcycles\tcycles_per_ldc\n");
  const unsigned wss[] = {256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768, 65536};
  const unsigned strides[] = {32, 64, 128, 256};
  for (unsigned st : strides)
    for (unsigned ws : wss) {
      if (ws < 4 * st) continue;
      table(ws, st);
      long long c = lat(steps, 0, 1, 0);
      printf("lat\tws\t%u\t%u\t1\t0\t0\t%d\t%lld\t%.2f\n", ws, st, steps, c, (double)c / steps);
    }
  table(0, 0);
  const int Ds[] = {1, 2, 3, 4, 8, 16, 32};
  const unsigned ls[] = {4, 8, 16, 32, 64, 128, 256};
  for (unsigned l : ls)
    for (int D : Ds) {
      long long c = lat(steps, l, D, 0);
      printf("lat\tdiv\t0\t0\t%d\t%u\t0\t%d\t%lld\t%.2f\n", D, l, steps, c, (double)c / steps);
    }
  const int Db[] = {2, 4, 8, 16};
  for (unsigned l : {4u, 64u})
    for (int D : Db) {
      long long c = lat(steps, l, D, 1);
      printf("lat\tdiv\t0\t0\t%d\t%u\t1\t%d\t%lld\t%.2f\n", D, l, steps, c, (double)c / steps);
    }
}

static void steps_run(const char* what, bool lds, int n, int passes) {
  if (lds) k_steps_lds<<<1, 32>>>(d_out, d_times, n, passes);
  else k_steps<<<1, 32>>>(d_out, d_times, n, passes);
  CK(cudaGetLastError());
  std::vector<unsigned> t(n * passes);
  CK(cudaMemcpy(t.data(), d_times, 4 * t.size(), cudaMemcpyDeviceToHost));
  for (int p = 0; p < passes; ++p) {
    printf("steps\t%s\t%d", what, p);
    for (int j = 0; j < n; ++j) printf("\t%u", t[p * n + j]);
    printf("\n");
  }
}

static void mode_steps() {
  const int n = 256;
  printf("#steps\tscenario\tpass\tcycles of steps 0..%d (64-byte stride over 64 KiB; the harness adds its own cycles: see lds rows)\n", n - 1);
  steps_run("lds", true, n, 2);
  table(65536, 64);
  flush_l2();
  steps_run("after_l2_flush", false, n, 2);
  steps_run("relaunch", false, n, 2);
  table(65536, 64);  // rewritten: in L2 (written through it), not in the constant caches
  steps_run("after_memcpy", false, n, 2);
  flush_l2();  // the constant caches may survive an L2 flush done by another kernel
  steps_run("relaunch_after_l2_flush", false, n, 2);
  table(65536, 256);
  flush_l2();
  steps_run("stride256_after_l2_flush", false, n, 2);
}

static void mode_thr() {
  const int iters = 256;
  table(0, 0);
  printf("#thr\tW\tD\tlane_stride_bytes\titers\tldc_per_warp\tsm_cycles\tcycles_per_warp_ldc\n");
  long long* d_tt;
  CK(cudaMalloc(&d_tt, 2 * 32 * 8));
  std::vector<long long> tt(64);
  const int Ws[] = {1, 4, 8, 16, 32};
  const int Ds[] = {1, 2, 4, 8, 16, 32};
  for (unsigned l : {4u, 64u})
    for (int W : Ws)
      for (int D : Ds) {
        k_thr<<<1, 32 * W>>>(d_out, d_tt, iters, l, D);
        CK(cudaGetLastError());
        CK(cudaMemcpy(tt.data(), d_tt, 16 * W, cudaMemcpyDeviceToHost));
        long long lo = tt[0], hi = tt[1];
        for (int w = 1; w < W; ++w) { lo = std::min(lo, tt[2 * w]); hi = std::max(hi, tt[2 * w + 1]); }
        long long n = (long long)iters * 8;
        printf("thr\t%d\t%d\t%u\t%d\t%lld\t%lld\t%.3f\n", W, D, l, iters, n, hi - lo,
               (double)(hi - lo) / (n * W));
      }
  CK(cudaFree(d_tt));
}

static void mode_thr2() {
  const int iters = 256;
  table(0, 0);
  printf("#thr2\tW\tD\tlane_stride_bytes\titers\tldc_per_warp\tsm_cycles\tcycles_per_warp_ldc\n");
  long long* d_tt;
  CK(cudaMalloc(&d_tt, 2 * 32 * 8));
  std::vector<long long> tt(64);
  const int Ws[] = {1, 2, 4, 8, 16, 32};
  const int Dl[][2] = {{1, 0}, {2, 512}, {4, 512}, {2, 4}, {4, 4}, {8, 4}, {16, 4}};
  for (auto& dl : Dl)
    for (int W : Ws) {
      k_thr2<<<1, 32 * W>>>(d_out, d_tt, iters, (unsigned)dl[1], dl[0]);
      CK(cudaGetLastError());
      CK(cudaMemcpy(tt.data(), d_tt, 16 * W, cudaMemcpyDeviceToHost));
      long long lo = tt[0], hi = tt[1];
      for (int w = 1; w < W; ++w) { lo = std::min(lo, tt[2 * w]); hi = std::max(hi, tt[2 * w + 1]); }
      long long n = (long long)iters * 8;
      printf("thr2\t%d\t%d\t%d\t%d\t%lld\t%lld\t%.3f\n", W, dl[0], dl[1], iters, n, hi - lo,
             (double)(hi - lo) / (n * W));
    }
  CK(cudaFree(d_tt));
}

static void mode_assoc() {
  const int steps = 2048;
  printf("#assoc\tlines\tline_stride_bytes\tsteps\tcycles\tcycles_per_ldc\n");
  for (unsigned S : {512u, 1024u, 2048u})
    for (unsigned N = 1; N <= 9; ++N) {
      if (N * S > 65536) continue;
      table(N * S, S);
      long long c = lat(steps, 0, 1, 0);
      printf("assoc\t%u\t%u\t%d\t%lld\t%.2f\n", N, S, steps, c, (double)c / steps);
    }
}

static void mode_ncu2() {
  int id = 0;
  auto L = [&](const char* s) { printf("L %d %s\n", id++, s); fflush(stdout); };
  long long* d_tt;
  CK(cudaMalloc(&d_tt, 2 * 32 * 8));
  table(0, 0);
  const int Dl[][2] = {{1, 0}, {4, 512}, {16, 4}};
  for (auto& dl : Dl) {
    char b[96];
    snprintf(b, sizeof b, "thr2 W=32 D=%d lane_stride=%d", dl[0], dl[1]);
    L(b); k_thr2<<<1, 1024>>>(d_out, d_tt, 64, (unsigned)dl[1], dl[0]); CK(cudaDeviceSynchronize());
  }
  for (unsigned N : {2u, 3u, 4u, 5u}) {
    char b[96];
    snprintf(b, sizeof b, "assoc N=%u S=1024", N);
    table(N * 1024, 1024); L(b); lat(256, 0, 1, 0);
  }
  CK(cudaFree(d_tt));
}

template <int K, bool C>
static long long imm_once() {
  k_imm<K, C><<<1, 32>>>((float*)d_out, d_cyc, 1.0001f);
  CK(cudaGetLastError());
  long long c;
  CK(cudaMemcpy(&c, d_cyc, 8, cudaMemcpyDeviceToHost));
  return c;
}

template <int K, bool C>
static void imm_row() {
  floats();
  long long a = imm_once<K, C>(), b = imm_once<K, C>(), c = imm_once<K, C>();
  printf("imm\t%d\t%s\t%lld\t%lld\t%lld\t%.3f\t%.3f\t%.3f\n", K, C ? "const" : "immediate", a, b, c,
         (double)a / K, (double)b / K, (double)c / K);
}

static void mode_imm() {
  printf("#imm\tK\toperand\tcycles_launch1\tcycles_launch2\tcycles_launch3\tper_ffma1\tper_ffma2\tper_ffma3\n");
  imm_row<64, true>(); imm_row<64, false>();
  imm_row<256, true>(); imm_row<256, false>();
  imm_row<1024, true>(); imm_row<1024, false>();
}

// Launches for Nsight Compute, in order; each prints an L line first.
static void mode_ncu() {
  int id = 0;
  auto L = [&](const char* s) { printf("L %d %s\n", id++, s); fflush(stdout); };
  table(0, 0);
  const int steps = 256;
  for (int D : {1, 2, 4, 8, 16, 32}) {
    char b[96];
    snprintf(b, sizeof b, "lat div D=%d lane_stride=64", D);
    L(b); lat(steps, 64, D, 0);
  }
  for (int D : {8, 32}) {
    char b[96];
    snprintf(b, sizeof b, "lat div D=%d lane_stride=4", D);
    L(b); lat(steps, 4, D, 0);
  }
  table(1024, 64); L("lat ws=1024 stride=64"); lat(steps, 0, 1, 0);
  table(65536, 64); L("lat ws=65536 stride=64"); lat(steps, 0, 1, 0);
  table(65536, 256); L("lat ws=65536 stride=256"); lat(steps, 0, 1, 0);
  table(0, 0);
  long long* d_tt;
  CK(cudaMalloc(&d_tt, 2 * 32 * 8));
  for (int D : {1, 32}) {
    char b[96];
    snprintf(b, sizeof b, "thr W=32 D=%d lane_stride=64", D);
    L(b); k_thr<<<1, 1024>>>(d_out, d_tt, 64, 64, D); CK(cudaDeviceSynchronize());
  }
  floats();
  L("imm K=1024 const"); imm_once<1024, true>();
  L("imm K=1024 immediate"); imm_once<1024, false>();
  L("imm K=64 const"); imm_once<64, true>();
  CK(cudaFree(d_tt));
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s lat|steps|thr|imm|ncu|thr2|assoc|ncu2\n", argv[0]); return 2; }
  CK(cudaMalloc(&d_out, 4096 * 4));
  CK(cudaMalloc(&d_cyc, 64));
  CK(cudaMalloc(&d_times, 4096 * 4));
  std::string m = argv[1];
  if (m == "steps") CK(cudaMalloc(&d_flush, FLUSH));
  if (m == "lat") mode_lat();
  else if (m == "steps") mode_steps();
  else if (m == "thr") mode_thr();
  else if (m == "imm") mode_imm();
  else if (m == "ncu") mode_ncu();
  else if (m == "thr2") mode_thr2();
  else if (m == "assoc") mode_assoc();
  else if (m == "ncu2") mode_ncu2();
  else { fprintf(stderr, "unknown mode %s\n", argv[1]); return 2; }
  CK(cudaDeviceSynchronize());
  return 0;
}
#endif
