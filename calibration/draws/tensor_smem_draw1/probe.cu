// calibration/draws/tensor_smem_draw1: the random validation draw of the tensor_smem rules
// (issue #41). The probe of calibration/probes/tensor_smem/probe.cu, extended to read the draw's
// pattern lists: per-lane src-size for cp.async, inactive lanes for the LDS/STS.128 controls,
// TMA boxes of any rank 1-3 / element type / swizzle / origin / tile offset read from the
// pattern line (the tensor map is encoded per launch), mbarrier and fence control kernels.
// Every access under test is one PTX instruction in `asm volatile`; lane addresses come from
// tables in global memory (opaque to ptxas).
//
// Modes (host side, see main):
//   probe one     patterns.txt NAMES       one launch of one warp per pattern (read under ncu);
//                                          prints `L name kind` after each launch
//   probe dump    patterns.txt NAMES       functional truth: shared memory filled with the u16
//                                          element index (LDSM) or the sentinel 0xEEEEEEEE
//                                          (STSM, LDGSTS, STS) first; `R name lane r0 r1 r2 r3`,
//                                          `W name byte_offset word` (words that changed)
//   probe tma     tma_patterns.txt NAMES   TMA launches (ncu): `L name tma`; a pattern's mode
//                                          `load+ldsm+store` etc.; `-m load` runs the load alone
//   probe tmadump tma_patterns.txt NAMES   the same with the tile window written back (sentinel
//                                          0xEEEE before the copy): `T name byte w0 … w31`, the
//                                          read-back registers `R …`, the store's check `G …`
//   probe mbar    mbar_patterns.txt NAMES  the mbarrier / fence controls (ncu): `L name mbar`
// NAMES: a file with one pattern name a line, or - for all.

#define SMEM_BYTES 65536          // dynamic shared memory of the LDSM/STSM/LDGSTS probes
#define TMA_SMEM (65536 + 1024)   // the TMA probe aligns its base to 1024 bytes by hand
#define TMA_MBAR 61440            // the mbarrier's offset from that base (tiles end below it)
#define OUT_WORDS (16384 + 160)   // the out buffer: registers, a dump of up to 64 KiB, a flag
#define FLAG_IDX (16384 + 128)    // out[FLAG_IDX] != 0: an mbarrier wait gave up

typedef unsigned int u32;
typedef unsigned long long u64;

// flags of the one-warp kernels
#define F_FILL_IDX 1   // fill shared memory with u16 element index (byte_offset / 2) first
#define F_FILL_SENT 2  // fill shared memory with the sentinel 0xEEEEEEEE first
#define F_DUMP 4       // copy shared memory to out[128 ...] afterwards
#define F_WARM 8       // cp.async: load the source word first (LDG through L1: the copy hits)

__device__ __forceinline__ u32 smem_u32(const void* p) {
  return (u32)__cvta_generic_to_shared(p);
}

// ---------------------------------------------------------------- LDSM / STSM / LDS / STS
// K: 0..5 ldsm x1 x2 x4 x1.trans x2.trans x4.trans; 6..11 stsm the same; 12 lds.128; 13 sts.128
#define MKINDS(X)                                                                              \
  X(0, "ldsm.x1") X(1, "ldsm.x2") X(2, "ldsm.x4") X(3, "ldsm.x1.trans") X(4, "ldsm.x2.trans")  \
  X(5, "ldsm.x4.trans") X(6, "stsm.x1") X(7, "stsm.x2") X(8, "stsm.x4") X(9, "stsm.x1.trans")  \
  X(10, "stsm.x2.trans") X(11, "stsm.x4.trans") X(12, "lds.128") X(13, "sts.128")

template <int K>
__device__ __forceinline__ void mop(u32 a, u32& r0, u32& r1, u32& r2, u32& r3) {
  if constexpr (K == 0) asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a) : "memory");
  if constexpr (K == 1) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
  if constexpr (K == 2) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  if constexpr (K == 3) asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(a) : "memory");
  if constexpr (K == 4) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
  if constexpr (K == 5) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  if constexpr (K == 6) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(a), "r"(r0) : "memory");
  if constexpr (K == 7) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(r0), "r"(r1) : "memory");
  if constexpr (K == 8) asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  if constexpr (K == 9) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(a), "r"(r0) : "memory");
  if constexpr (K == 10) asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(a), "r"(r0), "r"(r1) : "memory");
  if constexpr (K == 11) asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
  if constexpr (K == 12) asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  if constexpr (K == 13) asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}

__device__ __forceinline__ void fill(unsigned char* sm, int flags, int bytes) {
  u32* w = (u32*)sm;
  int lane = threadIdx.x;
  if (flags & F_FILL_IDX)
    for (int i = lane; i < bytes / 4; i += 32) w[i] = ((u32)(2 * i + 1) << 16) | (u32)(2 * i);
  if (flags & F_FILL_SENT)
    for (int i = lane; i < bytes / 4; i += 32) w[i] = 0xEEEEEEEEu;
  __syncwarp();
}

__device__ __forceinline__ void dump(const unsigned char* sm, u32* out, int bytes) {
  __syncwarp();
  const u32* w = (const u32*)sm;
  for (int i = threadIdx.x; i < bytes / 4; i += 32) out[128 + i] = w[i];
}

// Stores write lane-unique values: register j of lane t holds the b16 elements t*8+2j (low)
// and t*8+2j+1 (high). LDS/STS.128 (K 12, 13): a negative offset makes the lane inactive (the
// first call passed -1 to every lane there and faulted); LDSM/STSM are .sync.aligned: every lane
// takes part, the offset is used as given.
template <int K>
__global__ void one_m(const int* __restrict__ offs, u32* out, int flags) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int lane = threadIdx.x;
  if (flags & (F_FILL_IDX | F_FILL_SENT)) fill(sm, flags, SMEM_BYTES);
  int o = offs[lane];
  u32 a = smem_u32(sm) + (u32)o;
  u32 r0 = ((u32)(lane * 8 + 1) << 16) | (u32)(lane * 8);
  u32 r1 = ((u32)(lane * 8 + 3) << 16) | (u32)(lane * 8 + 2);
  u32 r2 = ((u32)(lane * 8 + 5) << 16) | (u32)(lane * 8 + 4);
  u32 r3 = ((u32)(lane * 8 + 7) << 16) | (u32)(lane * 8 + 6);
  if constexpr (K >= 12) {
    if (o >= 0) mop<K>(a, r0, r1, r2, r3);
  } else {
    mop<K>(a, r0, r1, r2, r3);
  }
  if (flags & F_DUMP) dump(sm, out, SMEM_BYTES);
  out[lane * 4 + 0] = r0;
  out[lane * 4 + 1] = r1;
  out[lane * 4 + 2] = r2;
  out[lane * 4 + 3] = r3;
}

// explicit instantiations (so that NVRTC, which sees no host code, compiles them too)
#define MINST(k, s) template __global__ void one_m<k>(const int* __restrict__, u32*, int);
MKINDS(MINST)

// ---------------------------------------------------------------- LDGSTS (cp.async)
// K: 20 ca.4, 21 ca.8, 22 ca.16, 23 cg.16 (no src-size), 24..27 the same with a src-size operand
// (zero-fill), read per lane from the pattern
#define CKINDS(X)                                                                              \
  X(20, "ca.4") X(21, "ca.8") X(22, "ca.16") X(23, "cg.16") X(24, "ca.4.z") X(25, "ca.8.z")     \
  X(26, "ca.16.z") X(27, "cg.16.z")

template <int K>
__device__ __forceinline__ void cop(u32 d, const void* s, int srcsize) {
  if constexpr (K == 20) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 21) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 22) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 23) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 24) asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 25) asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 26) asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 27) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
}

template <int K>
__global__ void one_c(const int* __restrict__ doffs, const int* __restrict__ soffs,
                      const int* __restrict__ sizes, const unsigned char* __restrict__ g, u32* out,
                      int flags) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int lane = threadIdx.x;
  if (flags & (F_FILL_IDX | F_FILL_SENT)) fill(sm, flags, SMEM_BYTES);
  int d = doffs[lane];
  int s = soffs[lane];
  int z = sizes[lane];
  u32 warm = 0;
  if ((flags & F_WARM) && d >= 0) {
    // an L1 hit for the copy: load the source first, and make the copy wait for the value
    warm = __ldg((const u32*)(g + (s & ~3)));  // LDG.E.CONSTANT: allocates in L1
    if (warm == 0xDEADBEEFu) s += 16;  // never true (the buffer holds small values)
  }
  if (d >= 0) cop<K>(smem_u32(sm) + (u32)d, g + s, z);
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  if (flags & F_DUMP) dump(sm, out, SMEM_BYTES);
  out[lane] = warm;
}

#define CINST(k, s) template __global__ void one_c<k>(const int* __restrict__, const int* __restrict__, const int* __restrict__, const unsigned char* __restrict__, u32*, int);
CKINDS(CINST)

// ---------------------------------------------------------------- TMA
// The tensor map travels as 128 opaque bytes (CUtensorMap is 64-byte aligned, 128 bytes).
struct alignas(64) Tmap { u64 w[16]; };

#define M_LOAD 4      // TMA load of the box (init + arrive.expect_tx + copy + wait)
#define M_STORE 8     // TMA store of the tile to the output tensor
#define M_LDSM 32     // read back: ldmatrix x4 at tile + offs[lane]
#define M_LDS128 64   // read back: ld.shared.v4.u32 at tile + offs[lane]
#define M_DUMP 256    // sentinel before, the tile window copied to out[128 ...] after

// Waits for the phase of the given parity to complete; gives up after 2^20 tries (a copy that
// never completes must not hang the run): then sets out[FLAG_IDX].
__device__ __forceinline__ void mbar_wait(u32 mbar, u32 parity, u32* out) {
  for (int i = 0; i < (1 << 20); i++) {
    u32 ok;
    asm volatile(
        "{\n .reg .pred p;\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(ok) : "r"(mbar), "r"(parity) : "memory");
    if (ok) return;
  }
  out[FLAG_IDX] = 0xDEAD0000u | parity;
}

__device__ __forceinline__ void tma_load(u32 tile, const Tmap* m, int rank, int c0, int c1, int c2, u32 mbar) {
  u64 p = (u64)m;
  if (rank == 1)
    asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                 :: "r"(tile), "l"(p), "r"(c0), "r"(mbar) : "memory");
  else if (rank == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(tile), "l"(p), "r"(c0), "r"(c1), "r"(mbar) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                 :: "r"(tile), "l"(p), "r"(c0), "r"(c1), "r"(c2), "r"(mbar) : "memory");
}

__device__ __forceinline__ void tma_store(u32 tile, const Tmap* m, int rank, int c0, int c1, int c2) {
  u64 p = (u64)m;
  if (rank == 1)
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];"
                 :: "l"(p), "r"(c0), "r"(tile) : "memory");
  else if (rank == 2)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(p), "r"(c0), "r"(c1), "r"(tile) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
                 :: "l"(p), "r"(c0), "r"(c1), "r"(c2), "r"(tile) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

__global__ void tma_k(const __grid_constant__ Tmap tml, const __grid_constant__ Tmap tms,
                      const int* __restrict__ offs, u32* out, int mode, int rank, int c0, int c1,
                      int c2, int bytes, int tile_off, int dump_bytes) {
  extern __shared__ __align__(1024) unsigned char smraw[];
  int lane = threadIdx.x;
  u32 raw = smem_u32(smraw);
  u32 base = (raw + 1023u) & ~1023u;
  u32 tile = base + (u32)tile_off;
  u32 mbar = base + TMA_MBAR;
  unsigned char* base_p = smraw + (base - raw);
  if (mode & M_DUMP) {
    u32* w = (u32*)base_p;
    for (int i = lane; i < dump_bytes / 4; i += 32) w[i] = 0xEEEEEEEEu;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   // generic writes before the async proxy's
    __syncwarp();
  }
  if (lane == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncwarp();
  if (mode & M_LOAD) {
    if (lane == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar), "r"(bytes) : "memory");
      tma_load(tile, &tml, rank, c0, c1, c2, mbar);
    }
    mbar_wait(mbar, 0, out);
  }
  u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if (mode & M_LDSM) {
    u32 a = tile + (u32)offs[lane];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  }
  if (mode & M_LDS128) {
    u32 a = tile + (u32)offs[lane];
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  }
  if (mode & M_STORE) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) tma_store(tile, &tms, rank, c0, c1, c2);
    __syncwarp();
  }
  if (mode & M_DUMP) dump(base_p, out, dump_bytes);
  out[lane * 4 + 0] = r0;
  out[lane * 4 + 1] = r1;
  out[lane * 4 + 2] = r2;
  out[lane * 4 + 3] = r3;
}

// ---------------------------------------------------------------- mbarrier / fence controls
// K (lane 0 unless said): 0 nothing; 1 init; 2 init of 4 barriers; 3 init + fence.mbarrier_init;
// 4 init + arrive; 5 init (count 4) + 4 arrives; 6 init + arrive + test_wait; 7 init + arrive +
// 8 test_waits; 8 four fence.proxy.async; 9 init (count 32) + one arrive by each of the 32 lanes;
// 10 init + arrive.expect_tx 0 + try_wait. The counters of K minus those of K = 0 are the ops'.
template <int K>
__global__ void mb_k(u32* out) {
  extern __shared__ __align__(1024) unsigned char smraw[];
  int lane = threadIdx.x;
  u32 mbar = (smem_u32(smraw) + 1023u) & ~1023u;
  u32 ok = 0;
  if (K >= 1 && K != 8 && lane == 0) {
    int count = K == 5 ? 4 : K == 9 ? 32 : 1;
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(mbar), "r"(count) : "memory");
    if (K == 2) {
#pragma unroll
      for (int i = 1; i < 4; i++) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar + 8 * i) : "memory");
    }
    if (K == 3) asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncwarp();
  if ((K == 4 || K == 6 || K == 7) && lane == 0)
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mbar) : "memory");
  if (K == 5 && lane == 0) {
#pragma unroll
    for (int i = 0; i < 4; i++) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mbar) : "memory");
  }
  if (K == 9) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mbar) : "memory");
  if (K == 10 && lane == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 0;" :: "r"(mbar) : "memory");
  __syncwarp();
  if ((K == 6 || K == 7) && lane == 0) {
#pragma unroll
    for (int i = 0; i < (K == 7 ? 8 : 1); i++) {
      u32 v;
      asm volatile(
          "{\n .reg .pred p;\n"
          " mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0;\n"
          " selp.u32 %0, 1, 0, p;\n}\n" : "=r"(v) : "r"(mbar) : "memory");
      ok += v;
    }
  }
  if (K == 10) mbar_wait(mbar, 0, out);
  if (K == 8 && lane == 0) {
#pragma unroll
    for (int i = 0; i < 4; i++) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  out[lane] = ok;
}

#define MBK(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10)
#define MBINST(k) template __global__ void mb_k<k>(u32*);
MBK(MBINST)

// ================================================================ host
#ifndef __CUDACC_RTC__
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e = (x);                                                                       \
    if (e != cudaSuccess) {                                                                    \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));                \
      printf("E cuda error %s\n", cudaGetErrorString(e));                                      \
      fflush(stdout);                                                                          \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

typedef void (*MFn)(const int*, u32*, int);
typedef void (*CFn)(const int*, const int*, const int*, const unsigned char*, u32*, int);
typedef void (*BFn)(u32*);
struct MKind { int k; const char* name; MFn f; };
struct CKind { int k; const char* name; CFn f; };
#define MENTRY(k, s) {k, s, one_m<k>},
#define CENTRY(k, s) {k, s, one_c<k>},
#define BENTRY(k) mb_k<k>,
static MKind mkinds[] = {MKINDS(MENTRY)};
static CKind ckinds[] = {CKINDS(CENTRY)};
static BFn bkinds[] = {MBK(BENTRY)};
static const int NM = sizeof(mkinds) / sizeof(mkinds[0]);
static const int NC = sizeof(ckinds) / sizeof(ckinds[0]);
static const int NB = sizeof(bkinds) / sizeof(bkinds[0]);

struct Pat {
  std::string name, kind;
  std::vector<int> o, s, z;   // lane offsets (destinations), sources, src-sizes
  int warm = 0;
  // TMA
  std::string dtype, swz, mode;
  int rank = 0, tile_off = 0;
  long long D[3] = {1, 1, 1}, Pt[2] = {0, 0};
  int B[3] = {1, 1, 1}, c[3] = {0, 0, 0};
};

static std::vector<Pat> read_pats(const char* path, const std::string& what) {
  std::vector<Pat> v;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    Pat p;
    if (what == "tma") {
      is >> p.name >> p.dtype >> p.rank >> p.D[0] >> p.D[1] >> p.D[2] >> p.Pt[0] >> p.Pt[1] >> p.B[0] >> p.B[1] >> p.B[2]
         >> p.swz >> p.tile_off >> p.c[0] >> p.c[1] >> p.c[2] >> p.mode;
      p.kind = "tma";
      p.o.resize(32);
      for (int i = 0; i < 32; i++) is >> p.o[i];
    } else if (what == "mbar") {
      int k;
      is >> p.name >> p.kind >> k;
      p.rank = k;
    } else {
      is >> p.name >> p.kind;
      p.o.resize(32);
      for (int i = 0; i < 32; i++) is >> p.o[i];
      if (p.kind.compare(0, 3, "ca.") == 0 || p.kind.compare(0, 3, "cg.") == 0) {
        p.s.resize(32);
        p.z.resize(32);
        for (int i = 0; i < 32; i++) is >> p.s[i];
        for (int i = 0; i < 32; i++) is >> p.z[i];
        is >> p.warm;
      }
    }
    if (is.fail()) { fprintf(stderr, "bad line: %s\n", line.c_str()); exit(2); }
    v.push_back(p);
  }
  return v;
}

static std::vector<std::string> read_names(const char* arg, const std::vector<Pat>& pats) {
  std::vector<std::string> names;
  if (std::string(arg) == "-") {
    for (auto& p : pats) names.push_back(p.name);
  } else {
    std::ifstream f(arg);
    std::string n;
    while (f >> n) names.push_back(n);
  }
  return names;
}

static int esize(const Pat& p) { return p.dtype == "u32" ? 4 : 2; }

static int span(const std::string& s) {
  return s == "32B" ? 32 : s == "64B" ? 64 : s == "128B" ? 128 : 0;
}

static long long tile_bytes(const Pat& p) {
  long long inner = (long long)p.B[0] * esize(p);
  long long rows = (long long)p.B[1] * p.B[2];
  return rows * (span(p.swz) ? span(p.swz) : inner);
}

static bool encode(Tmap* m, void* base, const Pat& p) {
#ifdef NO_TMA  // run.sh's fallback build, without -lcuda
  (void)m; (void)base; (void)p;
  printf("E encode %s: built with NO_TMA (no driver API)\n", p.name.c_str());
  return false;
#else
  cuuint64_t dims[3] = {(cuuint64_t)p.D[0], (cuuint64_t)p.D[1], (cuuint64_t)p.D[2]};
  cuuint64_t strides[2] = {(cuuint64_t)p.Pt[0], (cuuint64_t)p.Pt[1]};
  cuuint32_t box[3] = {(cuuint32_t)p.B[0], (cuuint32_t)p.B[1], (cuuint32_t)p.B[2]};
  cuuint32_t es[3] = {1, 1, 1};
  CUtensorMapSwizzle sw = p.swz == "32B" ? CU_TENSOR_MAP_SWIZZLE_32B : p.swz == "64B" ? CU_TENSOR_MAP_SWIZZLE_64B
                        : p.swz == "128B" ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapDataType dt = p.dtype == "u32" ? CU_TENSOR_MAP_DATA_TYPE_UINT32 : CU_TENSOR_MAP_DATA_TYPE_UINT16;
  CUresult r = cuTensorMapEncodeTiled((CUtensorMap*)m, dt, p.rank, base, dims, strides, box, es,
                                      CU_TENSOR_MAP_INTERLEAVE_NONE, sw, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char* s = "?";
    cuGetErrorString(r, &s);
    printf("E encode %s: %d %s\n", p.name.c_str(), (int)r, s);
    return false;
  }
  return true;
#endif
}

static int parse_mode(const std::string& m) {
  int v = 0;
  std::stringstream ss(m);
  std::string tok;
  while (std::getline(ss, tok, '+')) {
    if (tok == "load") v |= M_LOAD;
    else if (tok == "store") v |= M_STORE;
    else if (tok == "ldsm") v |= M_LDSM;
    else if (tok == "lds128") v |= M_LDS128;
    else { fprintf(stderr, "unknown mode %s\n", tok.c_str()); exit(2); }
  }
  return v;
}

#define TBUF (1 << 18)  // the TMA tensors' buffers: 256 KiB each

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: probe one|dump|tma|tmadump|mbar PATTERNS NAMES|- [-m MODE]\n");
    return 2;
  }
  std::string mode = argv[1];
  std::string force_mode = (argc >= 6 && std::string(argv[4]) == "-m") ? argv[5] : "";
  for (int i = 0; i < NM; i++)
    CK(cudaFuncSetAttribute(mkinds[i].f, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  for (int i = 0; i < NC; i++)
    CK(cudaFuncSetAttribute(ckinds[i].f, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  for (int i = 0; i < NB; i++)
    CK(cudaFuncSetAttribute(bkinds[i], cudaFuncAttributeMaxDynamicSharedMemorySize, 2048));
  CK(cudaFuncSetAttribute(tma_k, cudaFuncAttributeMaxDynamicSharedMemorySize, TMA_SMEM));

  int *d_o, *d_s, *d_z;
  u32* d_out;
  unsigned char* d_g;               // global source of cp.async: 1 MiB
  unsigned char *d_t16, *d_t32, *d_tout;  // TMA tensors: u16 / u32 element j = j (| 0x40000000)
  CK(cudaMalloc(&d_o, 32 * sizeof(int)));
  CK(cudaMalloc(&d_s, 32 * sizeof(int)));
  CK(cudaMalloc(&d_z, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, OUT_WORDS * sizeof(u32)));
  CK(cudaMalloc(&d_g, 1 << 20));
  CK(cudaMalloc(&d_t16, TBUF));
  CK(cudaMalloc(&d_t32, TBUF));
  CK(cudaMalloc(&d_tout, TBUF));
  std::vector<unsigned short> h16(TBUF / 2);
  std::vector<u32> h32(TBUF / 4);
  {
    // global source: 32-bit word i holds i | 0x00800000 (a non-zero, recognisable value)
    std::vector<u32> h((1 << 20) / 4);
    for (size_t i = 0; i < h.size(); i++) h[i] = (u32)i | 0x00800000u;
    CK(cudaMemcpy(d_g, h.data(), 1 << 20, cudaMemcpyHostToDevice));
    for (size_t i = 0; i < h16.size(); i++) h16[i] = (unsigned short)i;
    for (size_t i = 0; i < h32.size(); i++) h32[i] = (u32)i | 0x40000000u;
    CK(cudaMemcpy(d_t16, h16.data(), TBUF, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_t32, h32.data(), TBUF, cudaMemcpyHostToDevice));
  }
  std::vector<u32> h_out(OUT_WORDS);
  std::string what = (mode == "tma" || mode == "tmadump") ? "tma" : mode == "mbar" ? "mbar" : "one";
  std::vector<Pat> pats = read_pats(argv[2], what);
  std::map<std::string, int> by;
  for (size_t i = 0; i < pats.size(); i++) by[pats[i].name] = (int)i;
  std::vector<std::string> names = read_names(argv[3], pats);

  for (auto& n : names) {
    auto it = by.find(n);
    if (it == by.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
    Pat& p = pats[it->second];
    CK(cudaMemset(d_out, 0, OUT_WORDS * sizeof(u32)));
    if (what == "mbar") {
      if (p.rank < 0 || p.rank >= NB) { fprintf(stderr, "unknown mbar kernel %d\n", p.rank); return 2; }
      bkinds[p.rank]<<<1, 32, 2048>>>(d_out);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      printf("L %s mbar\n", n.c_str());
      u32 flag;
      CK(cudaMemcpy(&flag, d_out + FLAG_IDX, 4, cudaMemcpyDeviceToHost));
      if (flag) printf("E %s: mbarrier wait gave up (%08x)\n", n.c_str(), flag);
      fflush(stdout);
      continue;
    }
    if (what == "tma") {
      unsigned char* tin = p.dtype == "u32" ? d_t32 : d_t16;
      Tmap tl, ts;
      if (!encode(&tl, tin, p) || !encode(&ts, d_tout, p)) { printf("S %s skipped: no tensor map\n", n.c_str()); fflush(stdout); continue; }
      int m = parse_mode(force_mode.empty() ? p.mode : force_mode);
      bool dumping = mode == "tmadump";
      if (dumping) m |= M_DUMP;
      int es = esize(p);
      int bytes = p.B[0] * es * p.B[1] * p.B[2];
      int dump_bytes = (int)(((p.tile_off + tile_bytes(p)) + 127) / 128 * 128);
      if (dump_bytes > 32768) dump_bytes = 32768;
      CK(cudaMemcpy(d_o, p.o.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
      CK(cudaMemset(d_tout, 0, TBUF));
      tma_k<<<1, 32, TMA_SMEM>>>(tl, ts, d_o, d_out, m, p.rank, p.c[0], p.c[1], p.c[2], bytes, p.tile_off, dump_bytes);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      printf("L %s tma\n", n.c_str());
      CK(cudaMemcpy(h_out.data(), d_out, OUT_WORDS * sizeof(u32), cudaMemcpyDeviceToHost));
      if (h_out[FLAG_IDX]) printf("E %s: mbarrier wait gave up (%08x)\n", n.c_str(), h_out[FLAG_IDX]);
      if (dumping) {
        for (int w0 = 0; w0 < dump_bytes / 4; w0 += 32) {
          printf("T %s %d", n.c_str(), w0 * 4);
          for (int j = 0; j < 32; j++) printf(" %08x", h_out[128 + w0 + j]);
          printf("\n");
        }
        for (int l = 0; l < 32; l++)
          printf("R %s %d %08x %08x %08x %08x\n", n.c_str(), l, h_out[l * 4], h_out[l * 4 + 1], h_out[l * 4 + 2], h_out[l * 4 + 3]);
        if (m & M_STORE) {
          // expected output: the box's in-bounds elements copied, everything else 0
          std::vector<unsigned char> want(TBUF, 0), got(TBUF);
          const unsigned char* src = p.dtype == "u32" ? (const unsigned char*)h32.data() : (const unsigned char*)h16.data();
          for (int k2 = 0; k2 < p.B[2]; k2++)
            for (int k1 = 0; k1 < p.B[1]; k1++)
              for (int k0 = 0; k0 < p.B[0]; k0++) {
                long long g0 = p.c[0] + k0, g1 = p.c[1] + k1, g2 = p.c[2] + k2;
                if (g0 < 0 || g0 >= p.D[0] || g1 < 0 || g1 >= p.D[1] || g2 < 0 || g2 >= p.D[2]) continue;
                long long off = g0 * es + g1 * p.Pt[0] + g2 * p.Pt[1];
                if (off < 0 || off + es > TBUF) continue;
                memcpy(&want[off], src + off, es);
              }
          CK(cudaMemcpy(got.data(), d_tout, TBUF, cudaMemcpyDeviceToHost));
          long long mism = 0, written = 0;
          for (long long b = 0; b < TBUF; b++) {
            written += got[b] != 0;
            mism += got[b] != want[b];
          }
          printf("G %s written %lld mismatches %lld\n", n.c_str(), written, mism);
        }
      }
      fflush(stdout);
      continue;
    }
    CK(cudaMemcpy(d_o, p.o.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    bool store = false;
    int flags = 0;
    MFn mf = nullptr;
    CFn cf = nullptr;
    for (int i = 0; i < NM; i++) if (p.kind == mkinds[i].name) { mf = mkinds[i].f; store = p.kind[0] == 's'; }
    for (int i = 0; i < NC; i++) if (p.kind == ckinds[i].name) { cf = ckinds[i].f; store = true; }
    if (!mf && !cf) { fprintf(stderr, "unknown kind %s\n", p.kind.c_str()); return 2; }
    if (mode == "dump") flags = (store ? F_FILL_SENT : F_FILL_IDX) | (store ? F_DUMP : 0);
    if (cf && p.warm) flags |= F_WARM;
    if (mf) {
      mf<<<1, 32, SMEM_BYTES>>>(d_o, d_out, flags);
    } else {
      CK(cudaMemcpy(d_s, p.s.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
      CK(cudaMemcpy(d_z, p.z.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
      cf<<<1, 32, SMEM_BYTES>>>(d_o, d_s, d_z, d_g, d_out, flags);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("L %s %s\n", n.c_str(), p.kind.c_str());
    if (mode == "dump") {
      CK(cudaMemcpy(h_out.data(), d_out, OUT_WORDS * sizeof(u32), cudaMemcpyDeviceToHost));
      if (!store) {
        for (int l = 0; l < 32; l++)
          printf("R %s %d %08x %08x %08x %08x\n", n.c_str(), l, h_out[l * 4], h_out[l * 4 + 1],
                 h_out[l * 4 + 2], h_out[l * 4 + 3]);
      } else {
        for (int w = 0; w < SMEM_BYTES / 4; w++)
          if (h_out[128 + w] != 0xEEEEEEEEu) printf("W %s %d %08x\n", n.c_str(), w * 4, h_out[128 + w]);
      }
    }
    fflush(stdout);
  }
  return 0;
}
#endif
