// calibration/probes/const_cold (issue 37): the cost of a cold `__constant__` line.
// One kernel template, cc<L, U, ORD, WARM, G>: each warp touches L distinct 256-byte lines of
// c_tab (word 0 of line l = c_tab[64 l]) with a warp-uniform address (U = 1: ptxas gives ULDC)
// or a per-lane one that is equal in every lane at run time (U = 0: LDC, D = 1), before
// (ORD = 0) or after (ORD = 1) an independent global load of x[i] (G = 1; G = 0: no LDG), and
// uses both. WARM = 1 touches the same L lines (word 2, same 64-byte line) first, before t0.
// clock64() at t0 (before the first of the two), tm (between them), t1 (after y[i] is stored,
// which waits for both); lane 0 of each warp writes t0, tm, t1, smid to ts.
// The device side is compiled by nvcc (run.sh) and by warpsim's NVRTC (launches/*.cu.ron);
// the host side (#ifndef __CUDACC_RTC__) runs the launch table configs_gen.h (gen.py).
__constant__ __align__(256) float c_tab[512];  // 2 KiB: 8 lines of 256 bytes

template <int L, int U, int ORD, int WARM, int G>
__global__ void __launch_bounds__(1024, 2)
cc(const float* __restrict__ x, float* __restrict__ y, long long* __restrict__ ts, int z) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int off = U ? 0 : (int)threadIdx.x * z;  // z = 0: one address, but per lane for ptxas
  float w = 0.f;
  if (WARM) {
#pragma unroll
    for (int l = 0; l < L; l++) w = fmaf(w, 0.5f, c_tab[l * 64 + 2 + off]);
    if (__float_as_int(w) == 0x7fc00001) y[i] = w;  // waits for the warm-up loads before t0
  }
  const long long t0 = clock64();
  float v = (float)i, c0 = 0.f, c1 = 0.f, c2 = 0.f, c3 = 0.f, c4 = 0.f, c5 = 0.f, c6 = 0.f, c7 = 0.f;
  long long tm;
#define CC_CONST                                                   \
  if (L > 0) c0 = c_tab[0 * 64 + off];                             \
  if (L > 1) c1 = c_tab[1 * 64 + off];                             \
  if (L > 2) c2 = c_tab[2 * 64 + off];                             \
  if (L > 3) c3 = c_tab[3 * 64 + off];                             \
  if (L > 4) c4 = c_tab[4 * 64 + off];                             \
  if (L > 5) c5 = c_tab[5 * 64 + off];                             \
  if (L > 6) c6 = c_tab[6 * 64 + off];                             \
  if (L > 7) c7 = c_tab[7 * 64 + off];
  if (ORD == 0) {
    CC_CONST
    tm = clock64();
    if (G) v = x[i];
  } else {
    if (G) v = x[i];
    tm = clock64();
    CC_CONST
  }
#undef CC_CONST
  float r = v;
  if (L > 0) r = fmaf(r, c0, 1.f);
  if (L > 1) r = fmaf(r, c1, 1.f);
  if (L > 2) r = fmaf(r, c2, 1.f);
  if (L > 3) r = fmaf(r, c3, 1.f);
  if (L > 4) r = fmaf(r, c4, 1.f);
  if (L > 5) r = fmaf(r, c5, 1.f);
  if (L > 6) r = fmaf(r, c6, 1.f);
  if (L > 7) r = fmaf(r, c7, 1.f);
  y[i] = r + w;
  const long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {
#ifdef __CUDACC_RTC__
    const unsigned smid = 0;  // warpsim has no %smid
#else
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
#endif
    long long* o = ts + 4 * (i >> 5);
    o[0] = t0;
    o[1] = tm;
    o[2] = t1;
    o[3] = smid;
  }
}

#ifndef __CUDACC_RTC__
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <map>
#include <vector>

#define CK(x)                                                                          \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                         \
    }                                                                                  \
  } while (0)

typedef void (*Kern)(const float*, float*, long long*, int);
struct Cfg {
  const char* name;
  Kern k;
  int grid, block;
};
#include "configs_gen.h"  // static const Cfg CFGS[] (gen.py)
static const int NCFG = sizeof(CFGS) / sizeof(CFGS[0]);

static float *d_x, *d_y, *d_scrub;
static long long* d_ts;
static const size_t NMAX = 264 * 1024, SCRUB = 256u << 20;  // 256 MiB > the L2 (50-60 MB)
static float h_tab[512];

static void launch(const Cfg& c) {
  c.k<<<c.grid, c.block>>>(d_x, d_y, d_ts, 0);
  CK(cudaGetLastError());
}
static void cold_prep(bool symbol) {  // new constant contents (optional), then the L2 flushed
  if (symbol) CK(cudaMemcpyToSymbol(c_tab, h_tab, sizeof(h_tab)));
  CK(cudaMemset(d_scrub, symbol ? 1 : 2, SCRUB));
  CK(cudaDeviceSynchronize());
}

// Per launch: the per-warp deltas tm - t0 (first part's issue), t1 - tm, t1 - t0 over all warps
// (min, median, mean, max), and over SMs of the earliest-starting warp of each SM (median).
static void report(FILE* f, const Cfg& c, const char* variant, int round, float ms) {
  const int nw = c.grid * c.block / 32;
  std::vector<long long> h(4 * (size_t)nw);
  CK(cudaMemcpy(h.data(), d_ts, h.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<double> d[3];
  std::map<long long, int> first;  // smid -> warp with the smallest t0
  for (int w = 0; w < nw; w++) {
    const long long* o = &h[4 * (size_t)w];
    d[0].push_back((double)(o[1] - o[0]));
    d[1].push_back((double)(o[2] - o[1]));
    d[2].push_back((double)(o[2] - o[0]));
    auto it = first.find(o[3]);
    if (it == first.end() || h[4 * (size_t)it->second] > o[0]) first[o[3]] = w;
  }
  fprintf(f, "%s\t%s\t%d\t%.3f\t%zu", c.name, variant, round, ms * 1000.0, first.size());
  for (int k = 0; k < 3; k++) {
    std::vector<double> v = d[k];
    std::sort(v.begin(), v.end());
    double s = 0;
    for (double x : v) s += x;
    std::vector<double> fw;
    for (auto& p : first) fw.push_back(d[k][p.second]);
    std::sort(fw.begin(), fw.end());
    fprintf(f, "\t%.0f\t%.0f\t%.1f\t%.0f\t%.0f", v.front(), v[v.size() / 2], s / v.size(), v.back(),
            fw[fw.size() / 2]);
  }
  fprintf(f, "\n");
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "clock";
  const int rep = argc > 2 ? atoi(argv[2]) : 1;
  for (int k = 0; k < 512; k++) h_tab[k] = 1.0f + 0.001f * (k % 97);
  CK(cudaMalloc(&d_x, NMAX * 4));
  CK(cudaMalloc(&d_y, NMAX * 4));
  CK(cudaMalloc(&d_ts, NMAX / 32 * 4 * 8));
  CK(cudaMalloc(&d_scrub, SCRUB));
  std::vector<float> hx(NMAX);
  for (size_t k = 0; k < NMAX; k++) hx[k] = 0.25f + (float)(k % 13) * 0.125f;
  CK(cudaMemcpy(d_x, hx.data(), NMAX * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(c_tab, h_tab, sizeof(h_tab)));
  if (!strcmp(mode, "list")) {
    for (int c = 0; c < NCFG; c++) printf("LAUNCH\t%d\t%s\t%d\t%d\n", c, CFGS[c].name, CFGS[c].grid, CFGS[c].block);
    return 0;
  }
  if (!strcmp(mode, "ncu")) {  // each config `rep` times, in table order (ncu flushes the caches)
    for (int c = 0; c < NCFG; c++)
      for (int r = 0; r < rep; r++) {
        printf("LAUNCH\t%d\t%s\t%d\t%d\t%d\n", c * rep + r, CFGS[c].name, CFGS[c].grid, CFGS[c].block, r);
        launch(CFGS[c]);
        CK(cudaDeviceSynchronize());
      }
    printf("ncu mode: %d launches done\n", NCFG * rep);
    return 0;
  }
  // clock mode: per config and round, three launches: `cold` (cudaMemcpyToSymbol, then the L2
  // flushed), `again` (right after, nothing in between), `flush` (the L2 flushed only).
  FILE* f = fopen(argc > 3 ? argv[3] : "clock.tsv", "w");
  if (!f) return 1;
  fprintf(f, "config\tvariant\tround\tevent_us\tsms");
  const char* dn[3] = {"issue1", "rest", "total"};
  for (int k = 0; k < 3; k++)
    fprintf(f, "\t%s_min\t%s_med\t%s_mean\t%s_max\t%s_first_med", dn[k], dn[k], dn[k], dn[k], dn[k]);
  fprintf(f, "\n");
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int c = 0; c < NCFG; c++) launch(CFGS[c]);  // warm-up (module load)
  CK(cudaDeviceSynchronize());
  for (int round = 0; round < rep; round++)
    for (int c = 0; c < NCFG; c++)
      for (int v = 0; v < 3; v++) {
        if (v == 0) cold_prep(true);
        if (v == 2) cold_prep(false);
        CK(cudaEventRecord(e0));
        launch(CFGS[c]);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        report(f, CFGS[c], v == 0 ? "cold" : v == 1 ? "again" : "flush", round, ms);
      }
  fclose(f);
  // the results (x -> y) checked for one config of each kind: y = chain of fmaf over the constants
  printf("clock mode: %d configs x %d rounds done\n", NCFG, rep);
  return 0;
}
#endif
