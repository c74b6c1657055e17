// calibration/probes/ldgsts_tma3: LDGSTS (cp.async) with zero-fill, one warp, one instruction a
// launch. The kernel of calibration/draws/tensor_smem_draw1/probe.cu's one_c without the L1-warm
// path: lane addresses, sources and src-sizes come from tables in global memory (opaque to
// ptxas); the copy under test is one PTX instruction in `asm volatile`.
//
//   ldgsts one  ldgsts_patterns.txt NAMES   one launch per pattern (read under ncu); prints
//                                           `L name kind` after each launch
//   ldgsts dump ldgsts_patterns.txt NAMES   functional truth, no ncu: shared memory filled with
//                                           the sentinel 0xEEEEEEEE first, then dumped:
//                                           `W name byte_offset word` for every word that changed
// NAMES: a file with one pattern name a line, or - for all. Global source: 32-bit word i of the
// 1 MiB buffer holds i | 0x00800000.

#define SMEM_BYTES 65536
#define OUT_WORDS (16384 + 160)

typedef unsigned int u32;

#define F_FILL_SENT 2  // fill shared memory with 0xEEEEEEEE first
#define F_DUMP 4       // copy shared memory to out[128 ...] afterwards

__device__ __forceinline__ u32 smem_u32(const void* p) {
  return (u32)__cvta_generic_to_shared(p);
}

// K: 20 ca.4, 21 ca.8, 22 ca.16, 23 cg.16 (no src-size operand), 24..27 the same with a src-size
// operand (zero-fill: LDGSTS.*.ZFILL), read per lane from the pattern
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
  if (flags & F_FILL_SENT) {
    u32* w = (u32*)sm;
    for (int i = lane; i < SMEM_BYTES / 4; i += 32) w[i] = 0xEEEEEEEEu;
    __syncwarp();
  }
  int d = doffs[lane];
  int s = soffs[lane];
  int z = sizes[lane];
  if (d >= 0) cop<K>(smem_u32(sm) + (u32)d, g + s, z);
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  if (flags & F_DUMP) {
    __syncwarp();
    const u32* w = (const u32*)sm;
    for (int i = lane; i < SMEM_BYTES / 4; i += 32) out[128 + i] = w[i];
  }
  out[lane] = (u32)d;
}

// explicit instantiations (so that NVRTC, which sees no host code, compiles them too)
#define CINST(k, s) template __global__ void one_c<k>(const int* __restrict__, const int* __restrict__, const int* __restrict__, const unsigned char* __restrict__, u32*, int);
CKINDS(CINST)

// ================================================================ host
#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
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

typedef void (*CFn)(const int*, const int*, const int*, const unsigned char*, u32*, int);
struct CKind { int k; const char* name; CFn f; };
#define CENTRY(k, s) {k, s, one_c<k>},
static CKind ckinds[] = {CKINDS(CENTRY)};
static const int NC = sizeof(ckinds) / sizeof(ckinds[0]);

struct Pat {
  std::string name, kind;
  std::vector<int> d, s, z;
  int warm = 0;
};

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: ldgsts one|dump PATTERNS NAMES|-\n");
    return 2;
  }
  std::string mode = argv[1];
  std::vector<Pat> pats;
  {
    std::ifstream f(argv[2]);
    std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream is(line);
      Pat p;
      is >> p.name >> p.kind;
      p.d.resize(32); p.s.resize(32); p.z.resize(32);
      for (int i = 0; i < 32; i++) is >> p.d[i];
      for (int i = 0; i < 32; i++) is >> p.s[i];
      for (int i = 0; i < 32; i++) is >> p.z[i];
      is >> p.warm;
      if (is.fail()) { fprintf(stderr, "bad line: %s\n", line.c_str()); return 2; }
      pats.push_back(p);
    }
  }
  std::map<std::string, int> by;
  for (size_t i = 0; i < pats.size(); i++) by[pats[i].name] = (int)i;
  std::vector<std::string> names;
  if (std::string(argv[3]) == "-") {
    for (auto& p : pats) names.push_back(p.name);
  } else {
    std::ifstream f(argv[3]);
    std::string n;
    while (f >> n) names.push_back(n);
  }
  for (int i = 0; i < NC; i++)
    CK(cudaFuncSetAttribute(ckinds[i].f, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
  int *d_d, *d_s, *d_z;
  u32* d_out;
  unsigned char* d_g;
  CK(cudaMalloc(&d_d, 32 * sizeof(int)));
  CK(cudaMalloc(&d_s, 32 * sizeof(int)));
  CK(cudaMalloc(&d_z, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, OUT_WORDS * sizeof(u32)));
  CK(cudaMalloc(&d_g, 1 << 20));
  {
    std::vector<u32> h((1 << 20) / 4);
    for (size_t i = 0; i < h.size(); i++) h[i] = (u32)i | 0x00800000u;
    CK(cudaMemcpy(d_g, h.data(), 1 << 20, cudaMemcpyHostToDevice));
  }
  std::vector<u32> h_out(OUT_WORDS);
  for (auto& n : names) {
    auto it = by.find(n);
    if (it == by.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
    Pat& p = pats[it->second];
    CFn cf = nullptr;
    for (int i = 0; i < NC; i++) if (p.kind == ckinds[i].name) cf = ckinds[i].f;
    if (!cf) { fprintf(stderr, "unknown kind %s\n", p.kind.c_str()); return 2; }
    CK(cudaMemcpy(d_d, p.d.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_s, p.s.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_z, p.z.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    int flags = mode == "dump" ? (F_FILL_SENT | F_DUMP) : 0;
    cf<<<1, 32, SMEM_BYTES>>>(d_d, d_s, d_z, d_g, d_out, flags);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("L %s %s\n", n.c_str(), p.kind.c_str());
    if (mode == "dump") {
      CK(cudaMemcpy(h_out.data(), d_out, OUT_WORDS * sizeof(u32), cudaMemcpyDeviceToHost));
      for (int w = 0; w < SMEM_BYTES / 4; w++)
        if (h_out[128 + w] != 0xEEEEEEEEu) printf("W %s %d %08x\n", n.c_str(), w * 4, h_out[128 + w]);
    }
    fflush(stdout);
  }
  return 0;
}
#endif
