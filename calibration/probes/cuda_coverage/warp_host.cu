// Host of the value probes (issue 37): runs the kernels of warp.ptx (built by run.sh with
// ptxas into warp.cubin, loaded through the driver API) and a re-implementation of the CUDA
// samples' reduce6 technique (its last warp shuffles with a ballot mask of fewer lanes than the
// shuffle offsets reach). Prints TSV; see README.md for the formats.
//   warp_host CUBIN shfl SCEN   (SCEN = F P B B2 B3 E A, or C: the CUDA intrinsics)
//   warp_host CUBIN barred | redux | bitops
//   warp_host - reduce6
#ifndef __CUDACC_RTC__
#include <cuda.h>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#endif

typedef unsigned long long u64;

// The reduce6 technique: grid-stride sum of two elements per thread, a full-warp shuffle
// reduction, warp sums to shared memory, then the first ceil(BS/32) lanes of warp 0 reduce
// them with __shfl_down_sync(ballot, ...) at offsets 16, 8, 4, 2, 1 -- offsets that reach
// lanes outside the ballot's mask. TRACE writes warp 0's per-lane values to `trace`:
// row 0 = every lane's value before the last reduction, row 1+k = lanes' values after step k.
template <int BS, bool TRACE>
__global__ void r6(const int* in, int* out, int* trace, unsigned n) {
  __shared__ int warp_sums[BS / 32 > 0 ? BS / 32 : 1];
  const unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * BS * 2 + tid;
  const unsigned grid = BS * 2 * gridDim.x;
  int s = 0;
  while (i < n) {
    s += in[i];
    if (i + BS < n) s += in[i + BS];
    i += grid;
  }
  const unsigned full = __ballot_sync(0xffffffffu, tid < BS);
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(full, s, off);
  if ((tid & 31) == 0) warp_sums[tid / 32] = s;
  __syncthreads();
  const unsigned ext = BS / 32 > 0 ? BS / 32 : 1;
  const unsigned ballot = __ballot_sync(full, tid < ext);
  if (TRACE && blockIdx.x == 0 && tid < 32) trace[tid] = s;
  if (tid < ext) {
    s = warp_sums[tid];
    int step = 1;
    for (int off = 16; off > 0; off >>= 1, ++step) {
      s += __shfl_down_sync(ballot, s, off);
      if (TRACE && blockIdx.x == 0) trace[step * 32 + tid] = s;
    }
  }
  if (tid == 0) out[blockIdx.x] = s;
}
template __global__ void r6<64, false>(const int*, int*, int*, unsigned);
template __global__ void r6<64, true>(const int*, int*, int*, unsigned);
template __global__ void r6<128, false>(const int*, int*, int*, unsigned);
template __global__ void r6<128, true>(const int*, int*, int*, unsigned);
template __global__ void r6<256, false>(const int*, int*, int*, unsigned);
template __global__ void r6<256, true>(const int*, int*, int*, unsigned);
template __global__ void r6<512, false>(const int*, int*, int*, unsigned);
template __global__ void r6<512, true>(const int*, int*, int*, unsigned);
template __global__ void r6<1024, false>(const int*, int*, int*, unsigned);
template __global__ void r6<1024, true>(const int*, int*, int*, unsigned);

// The shuffles as CUDA C writes them (scenario C of `shfl`): lanes outside the mask branch
// around `__shfl_*_sync(mask, v, b, width)`, the mask a run-time value (nvcc then emits the
// VOTE/BRA.DIV/WARPSYNC.COLLECTIVE sequence reduce6 has). Same configurations and output as
// the PTX scenarios; no predicate (the intrinsics do not return it): 9.
template <int MODE>
__global__ void cu_shfl(unsigned* out, const unsigned* cfg) {
  const unsigned k = blockIdx.x, lane = threadIdx.x;
  const unsigned mask = cfg[4 * k], b = cfg[4 * k + 1], c = cfg[4 * k + 2], bmode = cfg[4 * k + 3];
  const int width = 32 - (int)(c >> 8);
  const unsigned v = 0xA0000000u | (k << 8) | lane;
  const int bb = (int)(bmode ? b + lane : b);
  unsigned d = 0xEEEEEEEEu;
  if ((mask >> lane) & 1) {
    if (MODE == 0) d = __shfl_sync(mask, v, bb, width);
    else if (MODE == 1) d = __shfl_up_sync(mask, v, (unsigned)bb, width);
    else if (MODE == 2) d = __shfl_down_sync(mask, v, (unsigned)bb, width);
    else d = __shfl_xor_sync(mask, v, bb, width);
  }
  out[128 * k + lane] = d;
  out[128 * k + 32 + lane] = 9;
  out[128 * k + 64 + lane] = v;
}
template __global__ void cu_shfl<0>(unsigned*, const unsigned*);
template __global__ void cu_shfl<1>(unsigned*, const unsigned*);
template __global__ void cu_shfl<2>(unsigned*, const unsigned*);
template __global__ void cu_shfl<3>(unsigned*, const unsigned*);

#ifndef __CUDACC_RTC__
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)
#define DK(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char* s = "?"; cuGetErrorString(e, &s); fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s); exit(1); } } while (0)

static CUmodule mod;

static CUfunction fn(const char* name) {
  CUfunction f;
  DK(cuModuleGetFunction(&f, mod, name));
  return f;
}

static void launch(CUfunction f, int grid, int block, void** args) {
  DK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, args, 0));
  DK(cuCtxSynchronize());
}

struct Cfg { unsigned mask, b, c, bmode; };

static void mode_shfl(const char* scen) {
  const unsigned masks[] = {0xffffffffu, 0x000000ffu, 0x0000ffffu, 0xffff0000u, 0x55555555u,
                            0x0000000fu, 0x80000001u, 0x0f0f0f0fu, 0x00000001u, 0xfffffffeu};
  struct P { unsigned b, c, bmode; };
  const std::vector<P> pidx = {{0, 0x1f, 0}, {31, 0x1f, 0}, {5, 0x1f, 0}, {1, 0x1f, 1}, {8, 0x1f, 1},
                               {16, 0x1f, 1}, {17, 0x1f, 1}, {3, 0x181f, 1}, {9, 0x181f, 0}};
  const std::vector<P> pup = {{1, 0, 0}, {2, 0, 0}, {4, 0, 0}, {8, 0, 0}, {16, 0, 0}, {1, 0x1800, 0}, {4, 0x1800, 0}};
  const std::vector<P> pdn = {{1, 0x1f, 0}, {2, 0x1f, 0}, {4, 0x1f, 0}, {8, 0x1f, 0}, {16, 0x1f, 0}, {1, 0x181f, 0}, {4, 0x181f, 0}};
  const char* modes[] = {"idx", "up", "down", "bfly"};
  for (const char* m : modes) {
    const std::vector<P>& ps = !strcmp(m, "idx") ? pidx : !strcmp(m, "up") ? pup : pdn;
    std::vector<Cfg> cfg;
    for (unsigned mk : masks) {
      if (!strcmp(scen, "A") && mk == 0xffffffffu) continue;  // ~M would be empty
      for (const P& p : ps) cfg.push_back({mk, p.b, p.c, p.bmode});
    }
    int n = (int)cfg.size();
    CUdeviceptr dout, dcfg;
    DK(cuMemAlloc(&dout, (size_t)n * 512));
    DK(cuMemAlloc(&dcfg, (size_t)n * 16));
    DK(cuMemsetD32(dout, 0x77777777u, (size_t)n * 128));
    DK(cuMemcpyHtoD(dcfg, cfg.data(), (size_t)n * 16));
    if (!strcmp(scen, "C")) {
      unsigned* o = (unsigned*)(uintptr_t)dout;
      const unsigned* g = (const unsigned*)(uintptr_t)dcfg;
      if (!strcmp(m, "idx")) cu_shfl<0><<<n, 32>>>(o, g);
      else if (!strcmp(m, "up")) cu_shfl<1><<<n, 32>>>(o, g);
      else if (!strcmp(m, "down")) cu_shfl<2><<<n, 32>>>(o, g);
      else cu_shfl<3><<<n, 32>>>(o, g);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    } else {
      std::string name = std::string("shfl_") + m + "_" + scen;
      void* args[] = {&dout, &dcfg};
      launch(fn(name.c_str()), n, 32, args);
    }
    std::vector<unsigned> o((size_t)n * 128);
    DK(cuMemcpyDtoH(o.data(), dout, (size_t)n * 512));
    for (int k = 0; k < n; ++k) {
      printf("S\t%s\t%s\t%08x\t%u\t%04x\t%u\t", scen, m, cfg[k].mask, cfg[k].b, cfg[k].c, cfg[k].bmode);
      for (int l = 0; l < 32; ++l) printf("%s%08x", l ? " " : "", o[k * 128 + l]);
      printf("\t");
      for (int l = 0; l < 32; ++l) printf("%u", o[k * 128 + 32 + l]);
      printf("\t");
      for (int l = 0; l < 32; ++l) printf("%s%08x", l ? " " : "", o[k * 128 + 64 + l]);
      printf("\n");
    }
    DK(cuMemFree(dout));
    DK(cuMemFree(dcfg));
  }
}

static void mode_barred() {
  // Predicate patterns over 128 threads (4 words each: bit t%32 of word t/32).
  std::vector<unsigned> cfg;
  auto pat = [&](auto f) { for (int w = 0; w < 4; ++w) { unsigned x = 0; for (int b = 0; b < 32; ++b) if (f(w * 32 + b)) x |= 1u << b; cfg.push_back(x); } };
  pat([](int t) { return true; });
  pat([](int t) { return false; });
  pat([](int t) { return t == 0; });
  pat([](int t) { return t == 127; });
  pat([](int t) { return t % 3 == 0; });
  pat([](int t) { return t < 64; });
  pat([](int t) { return (t & 1) != 0; });
  pat([](int t) { return (t * 7919) % 13 < 5; });
  pat([](int t) { return t != 77; });
  int n = (int)cfg.size() / 4;
  CUdeviceptr dout, dcfg;
  DK(cuMemAlloc(&dout, (size_t)n * 768 * 4));
  DK(cuMemAlloc(&dcfg, cfg.size() * 4));
  DK(cuMemcpyHtoD(dcfg, cfg.data(), cfg.size() * 4));
  void* args[] = {&dout, &dcfg};
  launch(fn("barred"), n, 128, args);
  std::vector<unsigned> o((size_t)n * 768);
  DK(cuMemcpyDtoH(o.data(), dout, o.size() * 4));
  const char* field[] = {"popc", "and", "or", "popc_not", "and_not", "or_not"};
  for (int k = 0; k < n; ++k)
    for (int f = 0; f < 6; ++f) {
      printf("R\t%08x %08x %08x %08x\t%s\t", cfg[4 * k], cfg[4 * k + 1], cfg[4 * k + 2], cfg[4 * k + 3], field[f]);
      bool same = true;
      for (int t = 1; t < 128; ++t) same = same && o[k * 768 + f * 128 + t] == o[k * 768 + f * 128];
      if (same) printf("all %u\n", o[k * 768 + f * 128]);
      else { for (int t = 0; t < 128; ++t) printf("%s%u", t ? " " : "", o[k * 768 + f * 128 + t]); printf("\n"); }
    }
}

static void mode_redux() {
  const unsigned masks[] = {0xffffffffu, 0x0000ffffu, 0x55555555u, 0x80000001u, 0x00000001u, 0xfff0000fu};
  std::vector<unsigned> cfg, vals;
  std::vector<u64> vals64;
  unsigned seed = 12345;
  auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return seed; };
  for (unsigned mk : masks)
    for (int vs = 0; vs < 6; ++vs) {
      cfg.push_back(mk); cfg.push_back(vs);
      for (unsigned l = 0; l < 32; ++l) {
        unsigned v;
        switch (vs) {
          case 0: v = l * 0x01010101u; break;
          case 1: v = rnd(); break;
          case 2: v = l % 4; break;
          case 3: v = 0x80000000u; break;
          case 4: v = l < 16 ? (unsigned)(-(int)l * 7) : l * 1000u; break;
          default: v = (rnd() & 3) ? 0xffffffffu : l / 8; break;
        }
        vals.push_back(v);
        vals64.push_back(((u64)(l % 2) << 32) | v);
      }
    }
  int n = (int)cfg.size() / 2;
  CUdeviceptr dout, dcfg, dv, dv64;
  DK(cuMemAlloc(&dout, (size_t)n * 512 * 4));
  DK(cuMemAlloc(&dcfg, cfg.size() * 4));
  DK(cuMemAlloc(&dv, vals.size() * 4));
  DK(cuMemAlloc(&dv64, vals64.size() * 8));
  DK(cuMemcpyHtoD(dcfg, cfg.data(), cfg.size() * 4));
  DK(cuMemcpyHtoD(dv, vals.data(), vals.size() * 4));
  DK(cuMemcpyHtoD(dv64, vals64.data(), vals64.size() * 8));
  void* args[] = {&dout, &dcfg, &dv, &dv64};
  launch(fn("redux_match"), n, 32, args);
  std::vector<unsigned> o((size_t)n * 512);
  DK(cuMemcpyDtoH(o.data(), dout, o.size() * 4));
  const char* field[] = {"redux.add.u32", "redux.add.s32", "redux.min.u32", "redux.min.s32",
                         "redux.max.u32", "redux.max.s32", "redux.and.b32", "redux.or.b32",
                         "redux.xor.b32", "match.any.b32", "match.all.b32", "match.all.b32.pred",
                         "match.any.b64", "match.all.b64", "match.all.b64.pred", "activemask"};
  for (int k = 0; k < n; ++k) {
    printf("V\t%08x\t%u\tvals", cfg[2 * k], cfg[2 * k + 1]);
    for (int l = 0; l < 32; ++l) printf("%s%08x", l ? " " : "\t", vals[k * 32 + l]);
    printf("\n");
    for (int f = 0; f < 16; ++f) {
      printf("V\t%08x\t%u\t%s", cfg[2 * k], cfg[2 * k + 1], field[f]);
      for (int l = 0; l < 32; ++l) printf("%s%08x", l ? " " : "\t", o[k * 512 + f * 32 + l]);
      printf("\n");
    }
  }
}

static void mode_bitops(int nops) {
  // Input tuples (a, b, c, d): edge values for a and b, (pos, len) pairs for c and d, some
  // with garbage in c's and d's upper bits (half the rows), prmt selectors in c.
  const u64 A[] = {0, 1, 0xffffffffull, 0x80000000ull, 0x7fffffffull, 0x12345678ull, 0xdeadbeefull,
                   0xffffffffffffffffull, 0x8000000000000000ull, 0x100000000ull, 0x0123456789abcdefull,
                   0x3f800000ull, 0x80000000ull | 0x7f800000ull, 0x7f800000ull, 0xff800000ull, 0x7fc00000ull,
                   0x7f800001ull, 0x00000001ull, 0x807fffffull, 0x00800000ull, 0x7f7fffffull,
                   0x3ff0000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                   0x7ff8000000000000ull, 0x7ff0000000000001ull, 0x000fffffffffffffull,
                   0x0010000000000000ull, 0x8000000000000001ull, 0x00000000deadbeefull,
                   0xfffffffe00000001ull, 0x5555aaaa3333ccccull};
  const unsigned PL[][2] = {{0, 0}, {0, 8}, {4, 8}, {28, 8}, {31, 1}, {0, 32}, {8, 32}, {32, 4},
                            {40, 4}, {255, 1}, {5, 255}, {3, 31}, {60, 8}, {0, 64}, {63, 1}, {16, 16}};
  std::vector<u64> in;
  unsigned seed = 777;
  auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return seed; };
  const int N = 256;
  for (int i = 0; i < N; ++i) {
    u64 a = A[i % 32];
    u64 b = (i & 64) ? ((u64)rnd() << 32 | rnd()) : A[(i / 32 + 5 * i) % 32];
    unsigned pos = PL[i % 16][0], len = PL[i % 16][1];
    u64 c = pos, d = len;
    if (i & 128) { c |= (u64)(rnd() & 0xffffff00u); d |= (u64)(rnd() & 0xffffff00u); }
    if (i % 5 == 4) c = rnd();  // a prmt-style selector (also a wild pos)
    in.push_back(a); in.push_back(b); in.push_back(c); in.push_back(d);
  }
  CUdeviceptr dout, din;
  DK(cuMemAlloc(&dout, (size_t)N * nops * 8));
  DK(cuMemAlloc(&din, in.size() * 8));
  DK(cuMemcpyHtoD(din, in.data(), in.size() * 8));
  void* args[] = {&dout, &din};
  launch(fn("bitops"), N / 64, 64, args);
  std::vector<u64> o((size_t)N * nops);
  DK(cuMemcpyDtoH(o.data(), dout, o.size() * 8));
  for (int i = 0; i < N; ++i) {
    printf("B\t%d\t%016llx\t%016llx\t%016llx\t%016llx", i, in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
    for (int j = 0; j < nops; ++j) printf("\t%llx", o[(size_t)i * nops + j]);
    printf("\n");
  }
}

template <int BS>
static void r6_run(int grid, unsigned n) {
  std::vector<int> h(n);
  for (unsigned i = 0; i < n; ++i) h[i] = (int)((i * 2654435761u) >> 22) - 300;
  int *din, *dout, *dtr;
  CK(cudaMalloc(&din, n * 4));
  CK(cudaMalloc(&dout, grid * 4));
  CK(cudaMalloc(&dtr, 6 * 32 * 4));
  CK(cudaMemcpy(din, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<int> want(grid, 0);
  for (unsigned i = 0; i < n; ++i) want[(i / (2 * BS)) % grid] += h[i];
  r6<BS, false><<<grid, BS>>>(din, dout, dtr, n);
  CK(cudaDeviceSynchronize());
  std::vector<int> got(grid);
  CK(cudaMemcpy(got.data(), dout, grid * 4, cudaMemcpyDeviceToHost));
  int ok = 0;
  for (int b = 0; b < grid; ++b) ok += got[b] == want[b];
  printf("R6\t%d\tplain\tblocks_right %d of %d\tblock0 got %d want %d\n", BS, ok, grid, got[0], want[0]);
  std::vector<int> tr(6 * 32, 0x7fffffff);
  CK(cudaMemcpy(dtr, tr.data(), tr.size() * 4, cudaMemcpyHostToDevice));
  r6<BS, true><<<grid, BS>>>(din, dout, dtr, n);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(got.data(), dout, grid * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tr.data(), dtr, tr.size() * 4, cudaMemcpyDeviceToHost));
  ok = 0;
  for (int b = 0; b < grid; ++b) ok += got[b] == want[b];
  printf("R6\t%d\ttraced\tblocks_right %d of %d\tblock0 got %d want %d\n", BS, ok, grid, got[0], want[0]);
  for (int r = 0; r < 6; ++r) {
    printf("R6T\t%d\t%s", BS, r == 0 ? "before" : ("after_off" + std::to_string(32 >> r)).c_str());
    for (int l = 0; l < 32; ++l) printf("%s%d", l ? " " : "\t", tr[r * 32 + l]);
    printf("\n");
  }
  CK(cudaFree(din)); CK(cudaFree(dout)); CK(cudaFree(dtr));
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s CUBIN|- shfl SCEN|barred|redux|bitops NOPS|reduce6\n", argv[0]); return 2; }
  CK(cudaFree(0));
  std::string m = argv[2];
  if (m == "reduce6") {
    r6_run<64>(40, 40 * 128 + 17);
    r6_run<128>(40, 40 * 256);
    r6_run<256>(40, 40 * 512 * 3 + 5);
    r6_run<512>(40, 40 * 1024);
    r6_run<1024>(20, 20 * 2048 * 2);
    return 0;
  }
  DK(cuInit(0));
  CUcontext ctx;
  DK(cuCtxGetCurrent(&ctx));
  if (!ctx) { CUdevice dev; DK(cuDeviceGet(&dev, 0)); DK(cuDevicePrimaryCtxRetain(&ctx, dev)); DK(cuCtxSetCurrent(ctx)); }
  DK(cuModuleLoad(&mod, argv[1]));
  if (m == "shfl" && argc > 3) mode_shfl(argv[3]);
  else if (m == "barred") mode_barred();
  else if (m == "redux") mode_redux();
  else if (m == "bitops" && argc > 3) mode_bitops(atoi(argv[3]));
  else { fprintf(stderr, "unknown mode\n"); return 2; }
  return 0;
}
#endif
