// calibration/probes/ldgsts_tma3: does a TMA box (cp.async.bulk.tensor, tiled mode) with a
// NEGATIVE coordinate fault, and in which direction (load, store)? One case and one mode a
// process (a fault poisons the context): run.sh calls
//
//   tma_neg tma_cases.txt NAME L|S|LS
//
//   L   load alone: shared tile prefilled with 0xEEEEEEEE, mbarrier init + arrive.expect_tx(box
//       bytes) + cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes,
//       wait (gives up after 2^20 tries), tile dumped
//   S   store alone: the tile written by the threads (u32 word i = 0x50000000 + i, u16 half
//       i = 0x4000 + i), fence.proxy.async, cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group,
//       commit + wait_group 0; the output buffer (zeroed before) read back
//   LS  load, then the store of the loaded tile (tensor_smem_draw2's tmadump path, no read-back)
//
// The PTX instructions are those of calibration/draws/tensor_smem_draw1/probe.cu (tma_load,
// tma_store). Tensors: the input tensor's base lies 64 KiB into a 512 KiB buffer whose every
// element encodes its own index relative to that base (u32: 0x40000000 + index, u16:
// (0x2000 + index) & 0xFFFF), so a read before the base is recognisable; the output tensor's base
// lies 64 KiB into a zeroed 512 KiB buffer, so a write before the base is seen.
// Output lines (all flushed before the launch's sync):
//   B name mode                                  before the launch
//   K name mode c0 c1 c2 mode                    the coordinates the kernel received (echo)
//   F name mode flag                             the mbarrier wait gave up (a hang)
//   T name mode byte w0 .. w31                   tile words from `byte` (L, LS)
//   G name mode elem v0 .. v31                   32 output elements from element `elem`
//                                                (relative to the output base) with one non-zero
//   C name mode ran | fault launch|sync TEXT | encode TEXT | hang
// Exit status: 0 ran, 3 fault, 4 hang, 5 tensor map refused, 2 usage.

typedef unsigned int u32;
typedef unsigned long long u64;

#define TILE_MAX 32768
#define TMA_SMEM (1024 + TILE_MAX + 1024)  // 1024-alignment slack, the tile, the mbarrier
#define FLAG_IDX 64
#define OUT_WORDS (128 + TILE_MAX / 4)

#define M_LOAD 1
#define M_STORE 2
#define M_DUMP 4

struct alignas(64) Tmap { u64 w[16]; };

__device__ __forceinline__ u32 smem_u32(const void* p) {
  return (u32)__cvta_generic_to_shared(p);
}

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

__global__ void tma_neg_k(const __grid_constant__ Tmap tml, const __grid_constant__ Tmap tms, u32* out,
                          int mode, int rank, int c0, int c1, int c2, int bytes, int tile_off,
                          int tile_bytes, int es) {
  extern __shared__ __align__(1024) unsigned char smraw[];
  int lane = threadIdx.x;
  u32 raw = smem_u32(smraw);
  u32 base = (raw + 1023u) & ~1023u;
  u32 tile = base + (u32)tile_off;
  u32 mbar = base + TILE_MAX;
  unsigned char* tile_p = smraw + (tile - raw);
  if (lane == 0) {
    out[0] = (u32)c0; out[1] = (u32)c1; out[2] = (u32)c2; out[3] = (u32)mode;
  }
  u32* w = (u32*)tile_p;
  if (mode & M_LOAD) {
    for (int i = lane; i < tile_bytes / 4; i += 32) w[i] = 0xEEEEEEEEu;
  } else {
    for (int i = lane; i < tile_bytes / 4; i += 32)
      w[i] = es == 4 ? 0x50000000u + (u32)i : ((0x4000u + 2u * i + 1u) << 16) | (0x4000u + 2u * i);
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes before the async proxy's
  __syncwarp();
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
  if (mode & M_STORE) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) tma_store(tile, &tms, rank, c0, c1, c2);
    __syncwarp();
  }
  if (mode & M_DUMP) {
    __syncwarp();
    for (int i = lane; i < tile_bytes / 4; i += 32) out[128 + i] = w[i];
  }
}

// ================================================================ host
#ifndef __CUDACC_RTC__
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define TBUF (1 << 19)      // each tensor buffer: 512 KiB
#define TBASE (1 << 16)     // the tensor's base: 64 KiB into its buffer

static std::string g_name, g_mode;

static void fault(const char* where, cudaError_t e) {
  printf("C %s %s fault %s %s\n", g_name.c_str(), g_mode.c_str(), where, cudaGetErrorString(e));
  fflush(stdout);
  exit(3);
}

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) fault("api", e_);                                                   \
  } while (0)

struct Case {
  std::string name, dtype, swz;
  int rank = 0, tile_off = 0;
  long long D[3] = {1, 1, 1}, P[2] = {0, 0};
  int B[3] = {1, 1, 1}, c[3] = {0, 0, 0};
};

static int span(const std::string& s) { return s == "32B" ? 32 : s == "64B" ? 64 : s == "128B" ? 128 : 0; }

static bool encode(Tmap* m, void* base, const Case& p) {
  cuuint64_t dims[3] = {(cuuint64_t)p.D[0], (cuuint64_t)p.D[1], (cuuint64_t)p.D[2]};
  cuuint64_t strides[2] = {(cuuint64_t)p.P[0], (cuuint64_t)p.P[1]};
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
    printf("C %s %s encode %d %s\n", g_name.c_str(), g_mode.c_str(), (int)r, s);
    fflush(stdout);
    return false;
  }
  return true;
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: tma_neg CASES NAME L|S|LS\n");
    return 2;
  }
  g_name = argv[2];
  g_mode = argv[3];
  Case p;
  bool found = false;
  {
    std::ifstream f(argv[1]);
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream is(line);
      Case q;
      is >> q.name >> q.dtype >> q.rank >> q.D[0] >> q.D[1] >> q.D[2] >> q.P[0] >> q.P[1] >> q.B[0] >> q.B[1] >> q.B[2]
         >> q.swz >> q.tile_off >> q.c[0] >> q.c[1] >> q.c[2];
      if (is.fail()) { fprintf(stderr, "bad line: %s\n", line.c_str()); return 2; }
      if (q.name == g_name) { p = q; found = true; }
    }
  }
  if (!found) { fprintf(stderr, "no case %s\n", g_name.c_str()); return 2; }
  int mode = g_mode == "L" ? (M_LOAD | M_DUMP) : g_mode == "S" ? M_STORE : g_mode == "LS" ? (M_LOAD | M_STORE | M_DUMP) : 0;
  if (!mode) { fprintf(stderr, "mode L, S or LS\n"); return 2; }
  int es = p.dtype == "u32" ? 4 : 2;
  int inner = p.B[0] * es;
  int rows = p.B[1] * p.B[2];
  int tile_bytes = rows * (span(p.swz) ? span(p.swz) : inner);
  tile_bytes = (tile_bytes + 127) / 128 * 128;
  int bytes = inner * rows;
  if (p.tile_off + tile_bytes > TILE_MAX) { fprintf(stderr, "tile too large\n"); return 2; }

  CK(cudaFuncSetAttribute(tma_neg_k, cudaFuncAttributeMaxDynamicSharedMemorySize, TMA_SMEM));
  unsigned char *d_in, *d_outt;
  u32* d_out;
  CK(cudaMalloc(&d_in, TBUF));
  CK(cudaMalloc(&d_outt, TBUF));
  CK(cudaMalloc(&d_out, OUT_WORDS * sizeof(u32)));
  {
    std::vector<unsigned char> h(TBUF);
    if (es == 4) {
      for (int j = 0; j < TBUF / 4; j++) {
        u32 v = 0x40000000u + (u32)(j - TBASE / 4);
        memcpy(&h[4 * j], &v, 4);
      }
    } else {
      for (int j = 0; j < TBUF / 2; j++) {
        unsigned short v = (unsigned short)((0x2000 + (j - TBASE / 2)) & 0xFFFF);
        memcpy(&h[2 * j], &v, 2);
      }
    }
    CK(cudaMemcpy(d_in, h.data(), TBUF, cudaMemcpyHostToDevice));
  }
  CK(cudaMemset(d_outt, 0, TBUF));
  CK(cudaMemset(d_out, 0, OUT_WORDS * sizeof(u32)));
  Tmap tl, ts;
  if (!encode(&tl, d_in + TBASE, p) || !encode(&ts, d_outt + TBASE, p)) return 5;
  printf("B %s %s\n", g_name.c_str(), g_mode.c_str());
  fflush(stdout);
  tma_neg_k<<<1, 32, TMA_SMEM>>>(tl, ts, d_out, mode, p.rank, p.c[0], p.c[1], p.c[2], bytes, p.tile_off,
                                 tile_bytes, es);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) fault("launch", e);
  e = cudaDeviceSynchronize();
  if (e != cudaSuccess) fault("sync", e);
  std::vector<u32> h_out(OUT_WORDS);
  CK(cudaMemcpy(h_out.data(), d_out, OUT_WORDS * sizeof(u32), cudaMemcpyDeviceToHost));
  const char* n = g_name.c_str();
  const char* md = g_mode.c_str();
  printf("K %s %s %d %d %d %u\n", n, md, (int)h_out[0], (int)h_out[1], (int)h_out[2], h_out[3]);
  bool hang = h_out[FLAG_IDX] != 0;
  if (hang) printf("F %s %s %08x\n", n, md, h_out[FLAG_IDX]);
  if (mode & M_DUMP) {
    for (int w0 = 0; w0 < tile_bytes / 4; w0 += 32) {
      printf("T %s %s %d", n, md, w0 * 4);
      for (int j = 0; j < 32 && w0 + j < tile_bytes / 4; j++) printf(" %08x", h_out[128 + w0 + j]);
      printf("\n");
    }
  }
  if (mode & M_STORE) {
    std::vector<unsigned char> got(TBUF);
    CK(cudaMemcpy(got.data(), d_outt, TBUF, cudaMemcpyDeviceToHost));
    int ne = TBUF / es;
    for (int e0 = 0; e0 < ne; e0 += 32) {
      bool any = false;
      u32 v[32];
      for (int j = 0; j < 32; j++) {
        v[j] = 0;
        memcpy(&v[j], &got[(size_t)(e0 + j) * es], es);
        any |= v[j] != 0;
      }
      if (!any) continue;
      printf("G %s %s %d", n, md, e0 - TBASE / es);
      for (int j = 0; j < 32; j++) printf(es == 4 ? " %08x" : " %04x", v[j]);
      printf("\n");
    }
  }
  printf("C %s %s %s\n", n, md, hang ? "hang" : "ran");
  fflush(stdout);
  return hang ? 4 : 0;
}
#endif
