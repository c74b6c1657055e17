// Single-warp probes of the shared atomics CUDA C emits that calibration/probes/narrow/ (inline PTX)
// did not reach (issue 14, second campaign): atomicAdd(&s[x], 1u) with the result unused (ptxas:
// ATOMS.POPC.INC.32, warp-aggregated), atomicSub(.., 1u), atomicInc/Dec unused, every 64-bit
// atomic on unsigned long long, f16x2 / bf16x2 / f16 / f64 adds, f32 add unused.
// Written in CUDA C on purpose: the point is the SASS nvcc picks for the source people write.
// Lane offsets come from a table in global memory (opaque to ptxas).
// Modes: `one` (one warp, one access per pattern, read under ncu), `val` (shared memory
// initialised from the host, one access, the lanes' returns and the final words printed: the
// functional result), `thr` (clock64 throughput of 256 accesses per warp, 1 and 16 warps).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <map>
#include <set>
#include <fstream>
#include <sstream>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

typedef unsigned long long u64;
#define MEM 8192  // bytes of shared memory initialised and dumped by `val`

// (index, name, width in bytes). The name: atom = result used, red = result unused.
#define KINDS(X) \
  X(0, "red.add1.u32", 4) X(1, "red.add1.s32", 4) X(2, "red.sub1.u32", 4) \
  X(3, "atom.add1.u32", 4) X(4, "red.add2.u32", 4) X(5, "red.inc.u32", 4) X(6, "red.dec.u32", 4) \
  X(7, "atom.add.u64", 8) X(8, "red.add1.u64", 8) X(9, "red.add.u64", 8) X(10, "atom.exch.b64", 8) \
  X(11, "atom.cas.b64", 8) X(12, "atom.min.u64", 8) X(13, "atom.max.u64", 8) X(14, "atom.and.b64", 8) \
  X(15, "atom.or.b64", 8) X(16, "atom.xor.b64", 8) X(17, "atom.min.s64", 8) \
  X(18, "atom.add.f16x2", 4) X(19, "red.add.f16x2", 4) X(20, "atom.add.bf16x2", 4) \
  X(21, "atom.add.f16", 2) X(22, "atom.add.f64", 8) X(23, "red.add1.f32", 4) X(24, "atom.inc.u32", 4)

// One access of kind K at byte p of shared memory by lane `lane`; `cmp` is the initial value
// of the element (for CAS). Returns the old value where the source uses it, else 0.
template <int K>
__device__ __forceinline__ u64 op(unsigned char* p, int lane, u64 cmp) {
  unsigned v = lane + 1;
  if constexpr (K == 0) { atomicAdd((unsigned*)p, 1u); return 0; }
  if constexpr (K == 1) { atomicAdd((int*)p, 1); return 0; }
  if constexpr (K == 2) { atomicSub((unsigned*)p, 1u); return 0; }
  if constexpr (K == 3) return atomicAdd((unsigned*)p, 1u);
  if constexpr (K == 4) { atomicAdd((unsigned*)p, 2u); return 0; }
  if constexpr (K == 5) { atomicInc((unsigned*)p, 1000u); return 0; }
  if constexpr (K == 6) { atomicDec((unsigned*)p, 1000u); return 0; }
  if constexpr (K == 7) return atomicAdd((u64*)p, (u64)v);
  if constexpr (K == 8) { atomicAdd((u64*)p, 1ull); return 0; }
  if constexpr (K == 9) { atomicAdd((u64*)p, (u64)v); return 0; }
  if constexpr (K == 10) return atomicExch((u64*)p, (u64)v);
  if constexpr (K == 11) return atomicCAS((u64*)p, cmp, (u64)v);
  if constexpr (K == 12) return atomicMin((u64*)p, (u64)v);
  if constexpr (K == 13) return atomicMax((u64*)p, (u64)v);
  if constexpr (K == 14) return atomicAnd((u64*)p, ~(u64)v);
  if constexpr (K == 15) return atomicOr((u64*)p, (u64)v << 32);
  if constexpr (K == 16) return atomicXor((u64*)p, (u64)v);
  if constexpr (K == 17) return (u64)atomicMin((long long*)p, (long long)(16 - (int)v));
  if constexpr (K == 18) { __half2 r = atomicAdd((__half2*)p, __halves2half2(__int2half_rn(v), __int2half_rn(2 * v))); return *(unsigned*)&r; }
  if constexpr (K == 19) { atomicAdd((__half2*)p, __halves2half2(__int2half_rn(v), __int2half_rn(2 * v))); return 0; }
  if constexpr (K == 20) { __nv_bfloat162 r = atomicAdd((__nv_bfloat162*)p, __halves2bfloat162(__float2bfloat16(1.0f), __float2bfloat16(0.5f))); return *(unsigned*)&r; }
  if constexpr (K == 21) { __half r = atomicAdd((__half*)p, __int2half_rn(v)); return *(unsigned short*)&r; }
  if constexpr (K == 22) { double r = atomicAdd((double*)p, (double)v); return __double_as_longlong(r); }
  if constexpr (K == 23) { atomicAdd((float*)p, 1.0f); return 0; }
  if constexpr (K == 24) return atomicInc((unsigned*)p, 1000u);
  return 0;
}

template <int K, int W>
__device__ __forceinline__ u64 initial(const unsigned char* init, int off) {
  if (W == 8) return *(const u64*)(init + off);
  if (W == 4) return *(const unsigned*)(init + off);
  return *(const unsigned short*)(init + off);
}

// Sets a lane's element to its initial value (lanes on one element store the same value).
template <int W>
__device__ __forceinline__ void put(unsigned char* p, u64 v) {
  if (W == 8) *(volatile u64*)p = v;
  else if (W == 4) *(volatile unsigned*)p = (unsigned)v;
  else *(volatile unsigned short*)p = (unsigned short)v;
}

// The element is first set to the same initial value `val` uses (one STS per active lane, counted
// by Nsight as a store): the 64-bit min/max loops skip the swap when the value would not change,
// so their price depends on the data.
template <int K, int W>
__global__ void one(const int* __restrict__ offs, const unsigned char* __restrict__ init, u64* out) {
  extern __shared__ unsigned char sm[];
  int lane = threadIdx.x;
  int off = offs[lane];
  u64 r = 0;
  u64 c = off >= 0 ? initial<K, W>(init, off) : 0;
  if (off >= 0) put<W>(sm + off, c);
  __syncwarp();
  if (off >= 0) r = op<K>(sm + off, lane, c);
  out[lane] = r;
}

template <int K, int W>
__global__ void val(const int* __restrict__ offs, const unsigned char* __restrict__ init, u64* out,
                    unsigned* dump) {
  extern __shared__ unsigned char sm[];
  unsigned* s = (unsigned*)sm;
  const unsigned* g = (const unsigned*)init;
  int lane = threadIdx.x;
  for (int i = lane; i < MEM / 4; i += 32) s[i] = g[i];
  __syncthreads();
  int off = offs[lane];
  u64 r = 0;
  if (off >= 0) r = op<K>(sm + off, lane, initial<K, W>(init, off));
  __syncthreads();
  for (int i = lane; i < MEM / 4; i += 32) dump[i] = s[i];
  out[lane] = r;
}

template <int K, int W>
__global__ void thr(const int* __restrict__ offs, const unsigned char* __restrict__ init, u64* out,
                    long long* cyc, int reps) {
  extern __shared__ unsigned char sm[];
  int lane = threadIdx.x & 31;
  int off = offs[lane];
  u64 acc = 0;
  __syncthreads();
  long long t0 = clock64();
  if (off >= 0) {
    unsigned char* p = sm + off + (threadIdx.x / 32) * 4096;  // each warp its own 4 KiB
    u64 c = initial<K, W>(init, off);
#pragma unroll 8
    for (int i = 0; i < reps; i++) acc += op<K>(p, lane + i, c);
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) cyc[0] = t1 - t0;
  out[threadIdx.x] = acc;
}

typedef void (*OneFn)(const int*, const unsigned char*, u64*);
typedef void (*ValFn)(const int*, const unsigned char*, u64*, unsigned*);
typedef void (*ThrFn)(const int*, const unsigned char*, u64*, long long*, int);
struct KindFns { const char* name; int width; OneFn o; ValFn v; ThrFn t; };
#define ENTRY(k, s, w) { s, w, one<k, w>, val<k, w>, thr<k, w> },
static KindFns kinds[] = { KINDS(ENTRY) };
static const int NK = sizeof(kinds) / sizeof(kinds[0]);

// The initial shared memory of kind k (host side; `val` copies it in, CAS compares with it).
static void fill_init(int k, std::vector<unsigned char>& b) {
  std::string n = kinds[k].name;
  unsigned* w = (unsigned*)b.data();
  for (int i = 0; i < MEM / 4; i++) {
    if (n.find("bf16") != std::string::npos) w[i] = 0x3F803F80u;  // bf16 1.0, 1.0
    else if (n.find("f16") != std::string::npos) w[i] = 0x3C003C00u + (unsigned)(i % 4) * 0x04000400u;  // halves 1,2,4,8
    else if (n.find("f32") != std::string::npos) w[i] = 0x3F800000u;   // 1.0f
    else if (n.find("f64") != std::string::npos) w[i] = (i % 2) ? 0x3FF00000u : 0u;  // 1.0
    else if (kinds[k].width == 8) w[i] = (i % 2) ? 0u : (unsigned)(i * 7 + 3);  // small u64
    else w[i] = (unsigned)(i * 7 + 3);
  }
}

int main(int argc, char** argv) {
  if (argc < 4) { fprintf(stderr, "usage: probe one|val|thr patterns.txt names.txt|-\n"); return 2; }
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
    CK(cudaFuncSetAttribute(kinds[i].v, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
    CK(cudaFuncSetAttribute(kinds[i].t, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536));
  }
  int* d_offs; u64* d_out; long long* d_cyc; unsigned char* d_init; unsigned* d_dump;
  CK(cudaMalloc(&d_offs, 32 * sizeof(int)));
  CK(cudaMalloc(&d_out, 1024 * sizeof(u64)));
  CK(cudaMalloc(&d_cyc, sizeof(long long)));
  CK(cudaMalloc(&d_init, 65536 + MEM));
  CK(cudaMalloc(&d_dump, MEM));
  std::vector<unsigned char> init(MEM);
  std::vector<unsigned> dump(MEM / 4);
  u64 h_out[32];
  for (auto& n : names) {
    auto it = pats.find(n);
    if (it == pats.end()) { fprintf(stderr, "no pattern %s\n", n.c_str()); return 2; }
    int k = it->second.first;
    const std::vector<int>& o = it->second.second;
    fill_init(k, init);
    CK(cudaMemcpy(d_init, init.data(), MEM, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_offs, o.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    if (mode == "one") {
      kinds[k].o<<<1, 32, 32768>>>(d_offs, d_init, d_out);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      printf("L %s %s\n", n.c_str(), kinds[k].name);
    } else if (mode == "val") {
      kinds[k].v<<<1, 32, MEM>>>(d_offs, d_init, d_out, d_dump);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(dump.data(), d_dump, MEM, cudaMemcpyDeviceToHost));
      printf("V\t%s\t%s\t", n.c_str(), kinds[k].name);
      for (int l = 0; l < 32; l++) printf("%s%llx", l ? "," : "", o[l] < 0 ? 0ull : h_out[l]);
      printf("\t");
      std::set<int> words;
      for (int l = 0; l < 32; l++)
        if (o[l] >= 0) for (int b = o[l] / 4; b <= (o[l] + kinds[k].width - 1) / 4; b++) words.insert(b);
      bool first = true;
      for (int wi : words) {
        printf("%s%d=%x>%x", first ? "" : ",", wi * 4, ((unsigned*)init.data())[wi], dump[wi]);
        first = false;
      }
      printf("\n");
    } else {
      const int reps = 256;
      for (int w : {1, 16}) {
        double best = 1e30;
        for (int t = 0; t < 3; t++) {
          kinds[k].t<<<1, 32 * w, 65536>>>(d_offs, d_init, d_out, d_cyc, reps);
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
