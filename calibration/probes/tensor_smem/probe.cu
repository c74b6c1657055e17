// calibration/probes/tensor_smem: single-warp probes of the shared-memory side of LDSM
// (ldmatrix), STSM (stmatrix), LDGSTS (cp.async), TMA (cp.async.bulk.tensor) and the bulk copy
// on sm_90. Lane addresses come from tables in global memory (opaque to ptxas); every access
// under test is one PTX instruction in `asm volatile`.
//
// Modes (host side, see main):
//   probe one  patterns.txt names|-        one launch of one warp per pattern (read under ncu);
//                                          prints `L name kind` after each launch
//   probe dump patterns.txt names|-        functional truth: shared memory filled with a known
//                                          pattern, registers (LDSM) or shared words (STSM,
//                                          LDGSTS) printed: `R name lane r0 r1 r2 r3`,
//                                          `W name byte_offset word` (words that changed)
//   probe tma  tma_patterns.txt names|-    TMA / bulk-copy / mbarrier launches (ncu); prints
//                                          `L name cfg mode`
//   probe tmadump tma_patterns.txt names|- the same launches, with the tile written back:
//                                          `T name byte_offset w0 … w31` (words of the tile),
//                                          `G name mismatches` for a TMA store
//   probe mix                              one launch of `mix`, one instruction of each kind
//                                          (for the Source page)
// Pattern lines: `name kind o0 … o31` (LDSM/STSM/LDS/STS: lane byte offsets into shared
// memory), `name kind d0 … d31 s0 … s31 srcsize warm` (cp.async: shared destinations, global
// source byte offsets, -1 = lane inactive), `name cfg mode x0 y0 o0 … o31` (TMA).



#define SMEM_BYTES 65536          // dynamic shared memory of the LDSM/STSM/LDGSTS probes
#define TMA_SMEM (65536 + 1024)   // the TMA probe aligns its tile to 1024 bytes by hand
#define OUT_WORDS (16384 + 160)   // the out buffer: registers, a dump of 64 KiB, a flag
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
// and t*8+2j+1 (high).
template <int K>
__global__ void one_m(const int* __restrict__ offs, u32* out, int flags) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int lane = threadIdx.x;
  if (flags & (F_FILL_IDX | F_FILL_SENT)) fill(sm, flags, SMEM_BYTES);
  u32 a = smem_u32(sm) + (u32)offs[lane];
  u32 r0 = ((u32)(lane * 8 + 1) << 16) | (u32)(lane * 8);
  u32 r1 = ((u32)(lane * 8 + 3) << 16) | (u32)(lane * 8 + 2);
  u32 r2 = ((u32)(lane * 8 + 5) << 16) | (u32)(lane * 8 + 4);
  u32 r3 = ((u32)(lane * 8 + 7) << 16) | (u32)(lane * 8 + 6);
  mop<K>(a, r0, r1, r2, r3);
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
// K: 20 ca.4, 21 ca.8, 22 ca.16, 23 cg.16 (no src-size), 24..27 the same with a src-size
// operand (zero-fill), 28 ca.16 closed with cp.async.wait_all instead of commit + wait_group 0
#define CKINDS(X)                                                                              \
  X(20, "ca.4") X(21, "ca.8") X(22, "ca.16") X(23, "cg.16") X(24, "ca.4.z") X(25, "ca.8.z")     \
  X(26, "ca.16.z") X(27, "cg.16.z") X(28, "ca.16.wall")

template <int K>
__device__ __forceinline__ void cop(u32 d, const void* s, int srcsize) {
  if constexpr (K == 20) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 21) asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 22 || K == 28) asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 23) asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(d), "l"(s) : "memory");
  if constexpr (K == 24) asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 25) asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 26) asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
  if constexpr (K == 27) asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(d), "l"(s), "r"(srcsize) : "memory");
}

template <int K>
__global__ void one_c(const int* __restrict__ doffs, const int* __restrict__ soffs, int srcsize,
                      const unsigned char* __restrict__ g, u32* out, int flags) {
  extern __shared__ __align__(1024) unsigned char sm[];
  int lane = threadIdx.x;
  if (flags & (F_FILL_IDX | F_FILL_SENT)) fill(sm, flags, SMEM_BYTES);
  int d = doffs[lane];
  int s = soffs[lane];
  u32 warm = 0;
  if ((flags & F_WARM) && d >= 0) {
    // an L1 hit for the copy: load the source first, and make the copy wait for the value
    warm = __ldg((const u32*)(g + (s & ~3)));  // LDG.E.CONSTANT: allocates in L1
    if (warm == 0xDEADBEEFu) s += 16;  // never true (the buffer holds small values)
  }
  if (d >= 0) cop<K>(smem_u32(sm) + (u32)d, g + s, srcsize);
  if constexpr (K == 28) {
    asm volatile("cp.async.wait_all;" ::: "memory");
  } else {
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  }
  if (flags & F_DUMP) dump(sm, out, SMEM_BYTES);
  out[lane] = warm;
}

#define CINST(k, s) template __global__ void one_c<k>(const int* __restrict__, const int* __restrict__, int, const unsigned char* __restrict__, u32*, int);
CKINDS(CINST)

// ---------------------------------------------------------------- TMA, bulk copy, mbarrier
// The tensor map travels as 128 opaque bytes (CUtensorMap is 64-byte aligned, 128 bytes).
struct alignas(64) Tmap { u64 w[16]; };

#define M_INIT 1      // mbarrier.init only
#define M_MBAR 2      // init + arrive + wait (no copy)
#define M_LOAD 4      // TMA load of the box (init + arrive.expect_tx + copy + wait)
#define M_STORE 8     // TMA store of the tile to the output tensor
#define M_BULK 16     // cp.async.bulk (non-tensor) of the tile's bytes (init + expect_tx + wait)
#define M_LDSM 32     // read back: ldmatrix x4 at tile + offs[lane]
#define M_LDS128 64   // read back: ld.shared.v4.u32 at tile + offs[lane]
#define M_LDS32 128   // read back: ld.shared.u32 at tile + offs[lane]
#define M_DUMP 256    // copy the tile to out[128 ...] (functional, not under ncu)

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

__global__ void tma_k(const __grid_constant__ Tmap tml, const __grid_constant__ Tmap tms,
                      const int* __restrict__ offs, const unsigned char* __restrict__ g,
                      u32* out, int mode, int x0, int y0, int bytes) {
  extern __shared__ __align__(1024) unsigned char smraw[];
  int lane = threadIdx.x;
  u32 raw = smem_u32(smraw);
  u32 tile = (raw + 1023u) & ~1023u;
  u32 mbar = tile + 49152u;
  unsigned char* tile_p = smraw + (tile - raw);
  if (mode & (M_INIT | M_MBAR | M_LOAD | M_BULK)) {
    if (lane == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncwarp();
  }
  if (mode & M_MBAR) {
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(mbar) : "memory");
    mbar_wait(mbar, 0, out);
  }
  if (mode & M_LOAD) {
    if (lane == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar), "r"(bytes) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          :: "r"(tile), "l"((u64)&tml), "r"(x0), "r"(y0), "r"(mbar) : "memory");
    }
    mbar_wait(mbar, 0, out);
  }
  if (mode & M_BULK) {
    if (lane == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar), "r"(bytes) : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
          :: "r"(tile), "l"(g), "r"(bytes), "r"(mbar) : "memory");
    }
    mbar_wait(mbar, 0, out);
  }
  u32 r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  if (mode & M_LDSM) {
    u32 a = tile + (u32)offs[lane];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a) : "memory");
  }
  if (mode & M_LDS128) {
    u32 a = tile + (u32)offs[lane], q0, q1, q2, q3;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(q0), "=r"(q1), "=r"(q2), "=r"(q3) : "r"(a) : "memory");
    r0 ^= q0; r1 ^= q1; r2 ^= q2; r3 ^= q3;
  }
  if (mode & M_LDS32) {
    u32 a = tile + (u32)offs[lane], q;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(q) : "r"(a) : "memory");
    r0 ^= q;
  }
  if (mode & M_STORE) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) {
      asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                   :: "l"((u64)&tms), "r"(x0), "r"(y0), "r"(tile) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    __syncwarp();
  }
  if (mode & M_DUMP) dump(tile_p, out, 16384);
  out[lane * 4 + 0] = r0;
  out[lane * 4 + 1] = r1;
  out[lane * 4 + 2] = r2;
  out[lane * 4 + 3] = r3;
}

// ---------------------------------------------------------------- mix (Source page)
// One instruction of each kind, each with a fixed pattern whose natural-rule cost is given in
// the comment (wavefronts): the Source page shows what it calls each and what it counts.
__global__ void mix(const __grid_constant__ Tmap tml, const __grid_constant__ Tmap tms,
                    const unsigned char* __restrict__ g, u32* out) {
  extern __shared__ __align__(1024) unsigned char smraw[];
  int t = threadIdx.x;
  u32 raw = smem_u32(smraw);
  u32 b = (raw + 1023u) & ~1023u;  // 1024-aligned base; tile for TMA at b + 32768
  u32 tile = b + 32768u, mbar = b + 49152u;
  u32 v = 0, r0, r1, r2, r3, q;
  u32 s0 = 0x11u * t, s1 = s0 + 1, s2 = s0 + 2, s3 = s0 + 3;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(q) : "r"(b + t * 4) : "memory"); v ^= q;            // LDS 1
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(q) : "r"(b + t * 128) : "memory"); v ^= q;          // LDS 32
  asm volatile("st.shared.u32 [%0], %1;" :: "r"(b + t * 4), "r"(s0) : "memory");                    // STS 1
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(b + t * 16) : "memory"); v ^= r0 ^ r1 ^ r2 ^ r3;  // LDS.128 4
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r0) : "r"(b + t * 16) : "memory"); v ^= r0;   // LDSM x1 1
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(b + t * 128) : "memory"); v ^= r0 ^ r1;  // LDSM x2 16
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(b + t * 16) : "memory"); v ^= r0 ^ r1 ^ r2 ^ r3;  // LDSM x4 4
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(b + t * 256) : "memory"); v ^= r0 ^ r1 ^ r2 ^ r3;  // LDSM x4.trans 32
  asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(b + t * 16), "r"(s0) : "memory");  // STSM x1 1
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" :: "r"(b + t * 128), "r"(s0), "r"(s1), "r"(s2), "r"(s3) : "memory");  // STSM x4 32
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(b + t * 16), "r"(s0), "r"(s1) : "memory");  // STSM x2.trans 2
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(b + 8192 + t * 4), "l"(g + t * 4) : "memory");  // LDGSTS 4: 1
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" :: "r"(b + 8192 + 512 + t * 16), "l"(g + 512 + t * 16) : "memory");  // LDGSTS 16: 4
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(b + 16384 + t * 128), "l"(g + 1024 + t * 16) : "memory");  // LDGSTS.BYPASS 16 stride 128: 32
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(mbar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncwarp();
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar), "r"(8192) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(tile), "l"((u64)&tml), "r"(0), "r"(0), "r"(mbar) : "memory");
  }
  mbar_wait(mbar, 0, out);
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(mbar), "r"(4096) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(b + 20480), "l"(g), "r"(4096), "r"(mbar) : "memory");
  }
  mbar_wait(mbar, 1, out);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncwarp();
  if (t == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"((u64)&tms), "r"(0), "r"(0), "r"(tile) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
  __syncwarp();
  out[t] = v;
}

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
typedef void (*CFn)(const int*, const int*, int, const unsigned char*, u32*, int);
struct MKind { int k; const char* name; MFn f; };
struct CKind { int k; const char* name; CFn f; };
#define MENTRY(k, s) {k, s, one_m<k>},
#define CENTRY(k, s) {k, s, one_c<k>},
static MKind mkinds[] = {MKINDS(MENTRY)};
static CKind ckinds[] = {CKINDS(CENTRY)};
static const int NM = sizeof(mkinds) / sizeof(mkinds[0]);
static const int NC = sizeof(ckinds) / sizeof(ckinds[0]);

struct Pat {
  std::string name, kind;
  std::vector<int> o, s;   // lane offsets (destinations), sources
  int srcsize = 0, warm = 0;
  std::string cfg, mode;   // TMA
  int x0 = 0, y0 = 0;
};

static std::vector<Pat> read_pats(const char* path, bool tma) {
  std::vector<Pat> v;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    Pat p;
    if (tma) {
      is >> p.name >> p.cfg >> p.mode >> p.x0 >> p.y0;
    } else {
      is >> p.name >> p.kind;
    }
    p.o.resize(32);
    for (int i = 0; i < 32; i++) is >> p.o[i];
    if (!tma && (p.kind.compare(0, 3, "ca.") == 0 || p.kind.compare(0, 3, "cg.") == 0)) {
      p.s.resize(32);
      for (int i = 0; i < 32; i++) is >> p.s[i];
      is >> p.srcsize >> p.warm;
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

// ---- TMA configurations: a 256 x 256 u16 tensor (value r*256+c), boxes of `rows` rows
struct TmaCfg { const char* name; CUtensorMapSwizzle swz; int inner; int rows; };
static TmaCfg tcfgs[] = {
    {"none", CU_TENSOR_MAP_SWIZZLE_NONE, 64, 64},
    {"32B", CU_TENSOR_MAP_SWIZZLE_32B, 16, 64},
    {"64B", CU_TENSOR_MAP_SWIZZLE_64B, 32, 64},
    {"128B", CU_TENSOR_MAP_SWIZZLE_128B, 64, 64},
    {"128Bi64", CU_TENSOR_MAP_SWIZZLE_128B, 32, 64},
};
static const int NT = sizeof(tcfgs) / sizeof(tcfgs[0]);

static bool encode(Tmap* m, void* base, const TmaCfg& c) {
#ifdef NO_TMA  // run.sh's fallback build, without -lcuda
  (void)m; (void)base;
  printf("E encode %s: built with NO_TMA (no driver API)\n", c.name);
  return false;
#else
  cuuint64_t dims[2] = {256, 256};
  cuuint64_t strides[1] = {512};
  cuuint32_t box[2] = {(cuuint32_t)c.inner, (cuuint32_t)c.rows};
  cuuint32_t es[2] = {1, 1};
  CUresult r = cuTensorMapEncodeTiled((CUtensorMap*)m, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, base, dims,
                                      strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, c.swz,
                                      CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    const char* s = "?";
    cuGetErrorString(r, &s);
    printf("E encode %s: %d %s\n", c.name, (int)r, s);
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
    if (tok == "init") v |= M_INIT;
    else if (tok == "mbar") v |= M_MBAR;
    else if (tok == "load") v |= M_LOAD;
    else if (tok == "store") v |= M_STORE;
    else if (tok == "bulk") v |= M_BULK;
    else if (tok == "ldsm") v |= M_LDSM;
    else if (tok == "lds128") v |= M_LDS128;
    else if (tok == "lds32") v |= M_LDS32;
    else if (tok == "none") {}
    else { fprintf(stderr, "unknown mode %s\n", tok.c_str()); exit(2); }
  }
  return v;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: probe one|dump|tma|tmadump PATTERNS NAMES|- ; probe mix\n");
    return 2;
  }
  std::string mode = argv[1];
  for (int i = 0; i < NM; i++)
    CK(cudaFuncSetAttribute(mkinds[i].f, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  for (int i = 0; i < NC; i++)
    CK(cudaFuncSetAttribute(ckinds[i].f, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  CK(cudaFuncSetAttribute(tma_k, cudaFuncAttributeMaxDynamicSharedMemorySize, TMA_SMEM));
  CK(cudaFuncSetAttribute(mix, cudaFuncAttributeMaxDynamicSharedMemorySize, TMA_SMEM));

  int *d_o, *d_s;
  u32* d_out;
  unsigned char* d_g;      // global source of cp.async / bulk copies: 1 MiB, byte i = small values
  unsigned short *d_tin, *d_tout;  // TMA tensors, 256 x 256 u16
  CK(cudaMalloc(&d_o, 32 * sizeof(int)));
  CK(cudaMalloc(&d_s, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, OUT_WORDS * sizeof(u32)));
  CK(cudaMalloc(&d_g, 1 << 20));
  CK(cudaMalloc(&d_tin, 65536 * 2));
  CK(cudaMalloc(&d_tout, 65536 * 2));
  {
    // global source: 32-bit word i holds i | 0x00800000 (a non-zero, recognisable value)
    std::vector<u32> h((1 << 20) / 4);
    for (size_t i = 0; i < h.size(); i++) h[i] = (u32)i | 0x00800000u;
    CK(cudaMemcpy(d_g, h.data(), 1 << 20, cudaMemcpyHostToDevice));
    std::vector<unsigned short> t(65536);
    for (int i = 0; i < 65536; i++) t[i] = (unsigned short)i;  // element (r, c) = r*256 + c
    CK(cudaMemcpy(d_tin, t.data(), 65536 * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_tout, 0, 65536 * 2));
  }
  std::vector<u32> h_out(OUT_WORDS);

  if (mode == "mix") {
    Tmap tl, ts;
    if (!encode(&tl, d_tin, tcfgs[0]) || !encode(&ts, d_tout, tcfgs[0])) return 1;
    CK(cudaMemset(d_out, 0, OUT_WORDS * sizeof(u32)));
    mix<<<1, 32, TMA_SMEM>>>(tl, ts, d_g, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("L mix mix\n");
    u32 flag;
    CK(cudaMemcpy(&flag, d_out + FLAG_IDX, 4, cudaMemcpyDeviceToHost));
    if (flag) printf("E mix: mbarrier wait gave up (%08x)\n", flag);
    return 0;
  }
  if (argc < 4) { fprintf(stderr, "need PATTERNS NAMES\n"); return 2; }
  bool tma = (mode == "tma" || mode == "tmadump");
  std::vector<Pat> pats = read_pats(argv[2], tma);
  std::map<std::string, int> by;
  for (size_t i = 0; i < pats.size(); i++) by[pats[i].name] = (int)i;
  std::vector<std::string> names = read_names(argv[3], pats);

  if (tma) {
    Tmap tl[NT], ts[NT];
    bool ok[NT];
    for (int i = 0; i < NT; i++) ok[i] = encode(&tl[i], d_tin, tcfgs[i]) && encode(&ts[i], d_tout, tcfgs[i]);
    for (auto& n : names) {
      auto it = by.find(n);
      if (it == by.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
      Pat& p = pats[it->second];
      int c = -1;
      for (int i = 0; i < NT; i++) if (p.cfg == tcfgs[i].name) c = i;
      if (c < 0) { fprintf(stderr, "unknown cfg %s\n", p.cfg.c_str()); return 2; }
      if (!ok[c]) { printf("S %s skipped: no tensor map\n", n.c_str()); continue; }
      int m = parse_mode(p.mode);
      if (mode == "tmadump") m |= M_DUMP;
      int bytes = tcfgs[c].inner * 2 * tcfgs[c].rows;
      CK(cudaMemcpy(d_o, p.o.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
      CK(cudaMemset(d_out, 0, OUT_WORDS * sizeof(u32)));
      CK(cudaMemset(d_tout, 0, 65536 * 2));
      tma_k<<<1, 32, TMA_SMEM>>>(tl[c], ts[c], d_o, d_g, d_out, m, p.x0, p.y0, bytes);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      printf("L %s %s %s\n", n.c_str(), p.cfg.c_str(), p.mode.c_str());
      CK(cudaMemcpy(h_out.data(), d_out, OUT_WORDS * sizeof(u32), cudaMemcpyDeviceToHost));
      if (h_out[FLAG_IDX]) printf("E %s: mbarrier wait gave up (%08x)\n", n.c_str(), h_out[FLAG_IDX]);
      if (mode == "tmadump") {
        for (int w0 = 0; w0 < bytes / 4; w0 += 32) {
          printf("T %s %d", n.c_str(), w0 * 4);
          for (int j = 0; j < 32; j++) printf(" %08x", h_out[128 + w0 + j]);
          printf("\n");
        }
        if (m & M_STORE) {
          std::vector<unsigned short> t(65536);
          CK(cudaMemcpy(t.data(), d_tout, 65536 * 2, cudaMemcpyDeviceToHost));
          int mism = 0, written = 0;
          for (int r = 0; r < 256; r++)
            for (int cc = 0; cc < 256; cc++) {
              bool in = r >= p.y0 && r < p.y0 + tcfgs[c].rows && cc >= p.x0 && cc < p.x0 + tcfgs[c].inner;
              unsigned short want = in ? (unsigned short)(r * 256 + cc) : 0;
              if (t[r * 256 + cc] != 0) written++;
              if (t[r * 256 + cc] != want) mism++;
            }
          printf("G %s written %d mismatches %d\n", n.c_str(), written, mism);
        }
      }
      fflush(stdout);
    }
    return 0;
  }

  for (auto& n : names) {
    auto it = by.find(n);
    if (it == by.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
    Pat& p = pats[it->second];
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
    CK(cudaMemset(d_out, 0, OUT_WORDS * sizeof(u32)));
    if (mf) {
      mf<<<1, 32, SMEM_BYTES>>>(d_o, d_out, flags);
    } else {
      CK(cudaMemcpy(d_s, p.s.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
      cf<<<1, 32, SMEM_BYTES>>>(d_o, d_s, p.srcsize, d_g, d_out, flags);
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
