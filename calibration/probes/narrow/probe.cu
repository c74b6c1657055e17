// Single-warp probes of 1- and 2-byte shared loads/stores and of shared atomics (sm_90).
// Lane offsets come from a table in global memory (opaque to ptxas); each access is one PTX
// instruction in `asm volatile`. Mode `one`: one launch of one warp per pattern, one access each
// (read under ncu). Mode `thr`: clock64 throughput, W warps x R accesses of one pattern.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <map>
#include <fstream>
#include <sstream>

// THR_VOLATILE: ld/st as .volatile, so that ptxas cannot merge the repeated accesses of the
// throughput loop (the first campaign's plain ld/st were merged: see README.md).
#ifdef THR_VOLATILE
#define SLD "ld.volatile.shared"
#define SST "st.volatile.shared"
#else
#define SLD "ld.shared"
#define SST "st.shared"
#endif

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

typedef unsigned long long u64;

#define KINDS(X) \
  X(0, "ld.u8") X(1, "ld.s8") X(2, "ld.u16") X(3, "ld.s16") X(4, "st.u8") X(5, "st.u16") \
  X(6, "atom.add.u32") X(7, "atom.add.s32") X(8, "atom.add.f32") X(9, "atom.min.u32") \
  X(10, "atom.min.s32") X(11, "atom.max.u32") X(12, "atom.max.s32") X(13, "atom.and.b32") \
  X(14, "atom.or.b32") X(15, "atom.xor.b32") X(16, "atom.exch.b32") X(17, "atom.cas.b32") \
  X(18, "atom.inc.u32") X(19, "atom.dec.u32") X(20, "red.add.u32") X(21, "red.add.f32") \
  X(22, "red.min.u32") X(23, "red.max.s32") X(24, "red.and.b32") X(25, "red.or.b32") \
  X(26, "red.xor.b32") X(27, "red.inc.u32") X(28, "red.dec.u32") X(29, "atom.add.u64") \
  X(30, "atom.exch.b64") X(31, "atom.cas.b64")

#define A32(ptx) { unsigned r; asm volatile(ptx " %0, [%1], %2;" : "=r"(r) : "r"(a), "r"(v) : "memory"); return r; }
#define R32(ptx) { asm volatile(ptx " [%0], %1;" :: "r"(a), "r"(v) : "memory"); return 0; }

template <int K>
__device__ __forceinline__ u64 op(unsigned a, unsigned v) {
  if constexpr (K == 0) { unsigned r; asm volatile(SLD ".u8 %0, [%1];" : "=r"(r) : "r"(a) : "memory"); return r; }
  if constexpr (K == 1) { int r; asm volatile(SLD ".s8 %0, [%1];" : "=r"(r) : "r"(a) : "memory"); return (unsigned)r; }
  if constexpr (K == 2) { unsigned r; asm volatile(SLD ".u16 %0, [%1];" : "=r"(r) : "r"(a) : "memory"); return r; }
  if constexpr (K == 3) { int r; asm volatile(SLD ".s16 %0, [%1];" : "=r"(r) : "r"(a) : "memory"); return (unsigned)r; }
  if constexpr (K == 4) { asm volatile(SST ".u8 [%0], %1;" :: "r"(a), "r"(v) : "memory"); return 0; }
  if constexpr (K == 5) { asm volatile(SST ".u16 [%0], %1;" :: "r"(a), "r"(v) : "memory"); return 0; }
  if constexpr (K == 6) A32("atom.shared.add.u32")
  if constexpr (K == 7) A32("atom.shared.add.s32")
  if constexpr (K == 8) { float r, f = (float)v; asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(r) : "r"(a), "f"(f) : "memory"); return __float_as_uint(r); }
  if constexpr (K == 9) A32("atom.shared.min.u32")
  if constexpr (K == 10) A32("atom.shared.min.s32")
  if constexpr (K == 11) A32("atom.shared.max.u32")
  if constexpr (K == 12) A32("atom.shared.max.s32")
  if constexpr (K == 13) A32("atom.shared.and.b32")
  if constexpr (K == 14) A32("atom.shared.or.b32")
  if constexpr (K == 15) A32("atom.shared.xor.b32")
  if constexpr (K == 16) A32("atom.shared.exch.b32")
  if constexpr (K == 17) { unsigned r, c = 0; asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "r"(a), "r"(c), "r"(v) : "memory"); return r; }
  if constexpr (K == 18) A32("atom.shared.inc.u32")
  if constexpr (K == 19) A32("atom.shared.dec.u32")
  if constexpr (K == 20) R32("red.shared.add.u32")
  if constexpr (K == 21) { float f = (float)v; asm volatile("red.shared.add.f32 [%0], %1;" :: "r"(a), "f"(f) : "memory"); return 0; }
  if constexpr (K == 22) R32("red.shared.min.u32")
  if constexpr (K == 23) R32("red.shared.max.s32")
  if constexpr (K == 24) R32("red.shared.and.b32")
  if constexpr (K == 25) R32("red.shared.or.b32")
  if constexpr (K == 26) R32("red.shared.xor.b32")
  if constexpr (K == 27) R32("red.shared.inc.u32")
  if constexpr (K == 28) R32("red.shared.dec.u32")
  if constexpr (K == 29) { u64 r, w = v; asm volatile("atom.shared.add.u64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"(w) : "memory"); return r; }
  if constexpr (K == 30) { u64 r, w = v; asm volatile("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"(w) : "memory"); return r; }
  if constexpr (K == 31) { u64 r, c = 0, w = v; asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;" : "=l"(r) : "r"(a), "l"(c), "l"(w) : "memory"); return r; }
  return 0;
}

template <int K>
__global__ void one(const int* __restrict__ offs, u64* out) {
  extern __shared__ unsigned char sm[];
  unsigned base = (unsigned)__cvta_generic_to_shared(sm);
  int lane = threadIdx.x;
  int off = offs[lane];
  u64 r = 0;
  if (off >= 0) r = op<K>(base + off, lane + 1);
  out[lane] = r;
}

template <int K>
__global__ void thr(const int* __restrict__ offs, u64* out, long long* cyc, int reps) {
  extern __shared__ unsigned char sm[];
  unsigned base = (unsigned)__cvta_generic_to_shared(sm);
  int lane = threadIdx.x & 31;
  int off = offs[lane];
  u64 acc = 0;
  __syncthreads();
  long long t0 = clock64();
  if (off >= 0) {
    unsigned a = base + off + (threadIdx.x / 32) * 4096;  // each warp its own 4 KiB
#pragma unroll 8
    for (int i = 0; i < reps; i++) acc += op<K>(a, lane + i);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  out[threadIdx.x] = acc;
}

typedef void (*OneFn)(const int*, u64*);
typedef void (*ThrFn)(const int*, u64*, long long*, int);
struct KindFns { const char* name; OneFn o; ThrFn t; };
#define ENTRY(k, s) { s, one<k>, thr<k> },
static KindFns kinds[] = { KINDS(ENTRY) };
static const int NK = sizeof(kinds) / sizeof(kinds[0]);

int main(int argc, char** argv) {
  if (argc < 4) { fprintf(stderr, "usage: probe one|thr patterns.txt names.txt|-\n"); return 2; }
  std::string mode = argv[1];
  std::map<std::string, std::pair<int, std::vector<int>>> pats;
  std::vector<std::string> order;
  { std::ifstream f(argv[2]); std::string line;
    while (std::getline(f, line)) {
      std::istringstream is(line); std::string name, kind; is >> name >> kind;
      int k = -1; for (int i = 0; i < NK; i++) if (kind == kinds[i].name) k = i;
      if (k < 0) { fprintf(stderr, "unknown kind %s\n", kind.c_str()); return 2; }
      std::vector<int> o(32); for (int i = 0; i < 32; i++) is >> o[i];
      pats[name] = {k, o}; order.push_back(name);
    } }
  std::vector<std::string> names;
  if (std::string(argv[3]) == "-") names = order;
  else { std::ifstream f(argv[3]); std::string n; while (f >> n) names.push_back(n); }
  for (int i = 0; i < NK; i++) {
    CK(cudaFuncSetAttribute(kinds[i].o, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    CK(cudaFuncSetAttribute(kinds[i].t, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  }
  int* d_offs; u64* d_out; long long* d_cyc;
  CK(cudaMalloc(&d_offs, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, 1024 * sizeof(u64)));
  CK(cudaMalloc(&d_cyc, sizeof(long long)));
  for (auto& n : names) {
    auto it = pats.find(n);
    if (it == pats.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
    int k = it->second.first;
    CK(cudaMemcpy(d_offs, it->second.second.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    if (mode == "one") {
      kinds[k].o<<<1, 32, 32768>>>(d_offs, d_out);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      printf("L %s %s\n", n.c_str(), kinds[k].name);
    } else {
      const int reps = 256;
      for (int w : {1, 16}) {
        double best = 1e30;
        for (int t = 0; t < 3; t++) {
          kinds[k].t<<<1, 32 * w, 65536>>>(d_offs, d_out, d_cyc, reps);
          CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
          long long c; CK(cudaMemcpy(&c, d_cyc, sizeof c, cudaMemcpyDeviceToHost));
          double per = (double)c / (w * reps);
          if (t > 0 && per < best) best = per;  // first run is the warm-up
        }
        printf("T\t%s\t%s\t%d\t%.3f\n", n.c_str(), kinds[k].name, w, best);
      }
    }
  }
  return 0;
}
