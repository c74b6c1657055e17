// cuda_kernels1 on the H200: runs every launch of launches.py (launches_gen.h) once, on the same
// inputs as warpsim's launch files (launches/*.cu.ron), and checks each result against a CPU
// reference here. Build: nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -o host host.cu
// Run: ./host [NAME ...] (no names: all, in table order). Prints per launch
// "L <index> <name>" before it, then "V <name> ok|FAIL <detail>".
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>
// the files that include the cooperative groups headers first, before the others' macros
#include "k_cg.cu"
#include "k_rows.cu"
#include "k_const.cu"
#include "k_warp.cu"
#include "k_sort.cu"
#include "k_gemm.cu"
#include "k_hist.cu"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(2); } } while (0)

// ---- warpsim's initial contents (crates/exec/src/init.rs), with integer Random over the
// type's whole range as issue 37 item 3 asks (ASSUMED: element i of a 32-bit integer buffer is
// the top 32 bits of the draw; change rand_u32 if the implementation draws otherwise).
static inline uint64_t splitmix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static inline uint64_t random_bits(uint64_t seed, uint64_t i) { return splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull); }
static inline float random_f32(uint64_t seed, uint64_t i) {
  return (float)(random_bits(seed, i) >> 40) * (1.0f / (float)(1u << 23)) - 1.0f;
}
static inline uint32_t rand_u32(uint64_t seed, uint64_t i) { return (uint32_t)(random_bits(seed, i) >> 32); }

enum Ty { T_F32, T_I32, T_U32 };
enum Init { INIT_ZEROS, INIT_IOTA, INIT_RANDOM };
enum ArgKind { ARG_BUF, ARG_I32, ARG_U32, ARG_F32 };
enum ConstKind { CONST_FROM, CONST_VALUES, CONST_RANDOM, CONST_IOTA };
struct BufSpec { const char* name; Ty ty; size_t n; Init init; uint64_t seed; };
struct ArgSpec { ArgKind kind; const char* buf; long long i; float f; };
struct ConstSpec {
  const char* name; const void* sym; Ty ty; size_t n; ConstKind kind; const char* src;
  const double* fvals; const unsigned long long* ivals; uint64_t seed; size_t offset;
};
struct LaunchSpec {
  const char* name; const void* func; unsigned grid[3]; unsigned block[3]; size_t dyn;
  const BufSpec* bufs; int nb; const ArgSpec* args; int na; const ConstSpec* consts; int nc;
};
#include "launches_gen.h"

static uint32_t word(Ty ty, Init init, uint64_t seed, size_t i) {
  switch (init) {
    case INIT_ZEROS: return 0;
    case INIT_IOTA: { if (ty == T_F32) { float f = (float)i; uint32_t w; memcpy(&w, &f, 4); return w; } return (uint32_t)i; }
    default: {
      if (ty == T_F32) { float f = random_f32(seed, i); uint32_t w; memcpy(&w, &f, 4); return w; }
      return rand_u32(seed, i);
    }
  }
}

// Host copies of a launch's buffers: initial and final words.
struct Run {
  std::map<std::string, std::vector<uint32_t>> init, fin;
  const std::vector<uint32_t>& I(const char* n) { return init.at(n); }
  const std::vector<uint32_t>& F(const char* n) { return fin.at(n); }
  float fi(const char* n, size_t i) { float f; memcpy(&f, &init.at(n)[i], 4); return f; }
  float ff(const char* n, size_t i) { float f; memcpy(&f, &fin.at(n)[i], 4); return f; }
  int ii(const char* n, size_t i) { return (int)init.at(n)[i]; }
  int fI(const char* n, size_t i) { return (int)fin.at(n)[i]; }
};

// ---- checks -----------------------------------------------------------------------------------
static std::string verdict;
static bool close_all(Run& r, const char* buf, const std::vector<double>& want, double tol = 1e-4) {
  double mx = 0, err = 0; size_t at = 0;
  for (double w : want) mx = std::max(mx, std::fabs(w));
  for (size_t i = 0; i < want.size(); i++) {
    const double e = std::fabs((double)r.ff(buf, i) - want[i]);
    if (!(e <= err)) { err = e; at = i; }
  }
  if (!(err <= tol * std::max(mx, 1e-30))) {
    char b[256];
    snprintf(b, sizeof b, "%s: max error %.3g at [%zu] (got %.9g want %.9g; max |want| %.3g) ", buf, err, at,
             (double)r.ff(buf, at), want[at], mx);
    verdict += b;
    return false;
  }
  return true;
}
static bool equal_all(Run& r, const char* buf, const std::vector<uint32_t>& want) {
  for (size_t i = 0; i < want.size(); i++)
    if (r.F(buf)[i] != want[i]) {
      char b[200];
      snprintf(b, sizeof b, "%s: [%zu] got %u want %u (of %zu) ", buf, i, r.F(buf)[i], want[i], want.size());
      verdict += b;
      return false;
    }
  return true;
}
static std::vector<uint32_t> u32s(const std::vector<long long>& v) {
  std::vector<uint32_t> o(v.size());
  for (size_t i = 0; i < v.size(); i++) o[i] = (uint32_t)v[i];
  return o;
}
static float cf(const LaunchSpec& L, Run& r, const char* name, size_t i);  // a constant's value

static const double FDC[4] = {0.8, -0.2, 0.038095238, -0.0035714286};

static bool check(const LaunchSpec& L, Run& r) {
  const std::string n = L.name;
  if (n == "convRows" || n == "convCols") {
    const int W = 512, H = 256;
    std::vector<double> want(W * H);
    for (int y = 0; y < H; y++)
      for (int x = 0; x < W; x++) {
        double s = 0;
        for (int j = -KR; j <= KR; j++) {
          const int xx = n == "convRows" ? x + j : x, yy = n == "convRows" ? y : y + j;
          if (xx >= 0 && xx < W && yy >= 0 && yy < H) s += (double)r.fi("filt", KR - j) * r.fi("src", yy * W + xx);
        }
        want[y * W + x] = s;
      }
    return close_all(r, "dst", want);
  }
  if (n == "conv2dTiled") {
    const int W = 224;
    std::vector<double> want(W * W);
    for (int y = 0; y < W; y++)
      for (int x = 0; x < W; x++) {
        double s = 0;
        for (int a = 0; a < 5; a++)
          for (int b = 0; b < 5; b++) {
            const int yy = y + a - 2, xx = x + b - 2;
            if (yy >= 0 && yy < W && xx >= 0 && xx < W) s += (double)cf(L, r, "c_mask", a * 5 + b) * r.fi("inp", yy * W + xx);
          }
        want[y * W + x] = s;
      }
    return close_all(r, "out", want);
  }
  if (n == "fdDerivX" || n == "fdDerivY") {
    std::vector<double> want(64 * 64 * 64);
    for (int g = 0; g < 64 * 64 * 64; g++) {
      const int x = g % 64, y = g / 64 % 64, z = g / 4096;
      double s = 0;
      for (int m = 1; m <= 4; m++) {
        const float c = (float)FDC[m - 1];
        int p, q;
        if (n == "fdDerivX") { p = (z * 64 + y) * 64 + (x + m) % 64; q = (z * 64 + y) * 64 + (x + 64 - m) % 64; }
        else { p = (z * 64 + (y + m) % 64) * 64 + x; q = (z * 64 + (y + 64 - m) % 64) * 64 + x; }
        s += (double)c * ((double)r.fi("f", p) - r.fi("f", q));
      }
      want[g] = s;
    }
    return close_all(r, "df", want);
  }
  if (n == "fdtd3d") {
    std::vector<double> want(64 * 64 * 32);
    const float c[5] = {0.25f, 0.125f, 0.0625f, 0.03125f, 0.015625f};
    for (int o = 0; o < 64 * 64 * 32; o++) {
      const int x = o % 64, y = o / 64 % 64, z = o / 4096;
      const int b = (z + 4) * 5184 + (y + 4) * 72 + x + 4;
      double s = c[0] * (double)r.fi("inp", b);
      for (int k = 1; k <= 4; k++)
        s += c[k] * ((double)r.fi("inp", b + k * 5184) + r.fi("inp", b - k * 5184) + r.fi("inp", b + k * 72) +
                     r.fi("inp", b - k * 72) + r.fi("inp", b + k) + r.fi("inp", b - k));
      want[o] = s;
    }
    return close_all(r, "out", want);
  }
  if (n == "crc32Const") {
    uint32_t table[256];
    for (uint32_t k = 0; k < 256; k++) {
      uint32_t c = k;
      for (int b = 0; b < 8; b++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      table[k] = c;
    }
    std::vector<uint32_t> want(4096);
    for (int t = 0; t < 4096; t++) {
      uint32_t c = 0xFFFFFFFFu;
      for (int k = 0; k < 16; k++) {
        uint32_t v = r.I("msg")[t * 16 + k];
        for (int b = 0; b < 4; b++) { c = table[(c ^ v) & 0xFF] ^ (c >> 8); v >>= 8; }
      }
      want[t] = ~c;
    }
    return equal_all(r, "crc", want);
  }
  if (n == "hornerConst") {
    std::vector<double> want(262144);
    for (int i = 0; i < 262144; i++) {
      const double x = r.fi("x", i);
      double a = cf(L, r, "c_poly", 15);
      for (int k = 14; k >= 0; k--) a = a * x + cf(L, r, "c_poly", k);
      want[i] = a;
    }
    return close_all(r, "y", want);
  }
  if (n == "shflScan") {
    std::vector<long long> d(65536), s(256);
    for (int b = 0; b < 256; b++) {
      long long acc = 0;
      for (int t = 0; t < 256; t++) { acc += r.ii("data", b * 256 + t); d[b * 256 + t] = acc; }
      s[b] = acc;
    }
    return equal_all(r, "data", u32s(d)) & equal_all(r, "sums", u32s(s));
  }
  if (n == "reduceRedux") {
    std::vector<long long> o(64, 0);
    for (int i = 0; i < 262144; i++) o[(i / 256) % 64] += r.ii("inp", i);
    return equal_all(r, "out", u32s(o));
  }
  if (n == "matchAnyHist") {
    std::vector<long long> h(64, 0);
    for (int i = 0; i < 65536; i++) h[(r.I("data")[i] >> 10) % 64]++;
    return equal_all(r, "hist", u32s(h));
  }
  if (n == "syncCountRank") {
    std::vector<long long> rank(65536), cnt(256);
    for (int b = 0; b < 256; b++) {
      int c = 0;
      for (int t = 0; t < 256; t++) {
        const bool f = r.fi("x", b * 256 + t) > 0.25f;
        rank[b * 256 + t] = f ? c : -1;
        c += f;
      }
      cnt[b] = c;
    }
    return equal_all(r, "rank", u32s(rank)) & equal_all(r, "count", u32s(cnt));
  }
  if (n == "bitTricks") {
    auto spread = [](uint64_t x) {
      x = (x | (x << 16)) & 0x0000FFFF0000FFFFull; x = (x | (x << 8)) & 0x00FF00FF00FF00FFull;
      x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0Full; x = (x | (x << 2)) & 0x3333333333333333ull;
      x = (x | (x << 1)) & 0x5555555555555555ull; return x;
    };
    std::vector<uint32_t> lo(65536), hi(65536), o2(65536);
    for (int i = 0; i < 65536; i++) {
      const uint32_t x = r.I("a")[2 * i], y = r.I("a")[2 * i + 1];
      const uint64_t m = spread(x) | (spread(y) << 1);
      uint64_t rev = 0;
      for (int b = 0; b < 64; b++) if (m >> b & 1) rev |= 1ull << (63 - b);
      const uint64_t pc = (uint64_t)__builtin_popcountll(m);
      const uint64_t mh = (uint64_t)(((unsigned __int128)m * 0x9E3779B97F4A7C15ull) >> 64);
      const uint64_t rr = rev ^ (pc << 58) ^ mh;
      const int lz = __builtin_clzll(m | 1ull);
      const uint64_t bytes = ((uint64_t)y << 32) | x;  // byte_perm: bytes 0-3 of x, 4-7 of y
      const uint32_t sel = 0x7351;
      uint32_t p = 0;
      for (int k = 0; k < 4; k++) p |= (uint32_t)((bytes >> (8 * ((sel >> (4 * k)) & 7))) & 0xFF) << (8 * k);
      const uint64_t cat = ((uint64_t)y << 32) | x;
      const uint32_t fs = (uint32_t)((cat << (lz & 31)) >> 32);
      const uint32_t q = (uint32_t)(((uint64_t)x * y) >> 32) + (uint32_t)(((int64_t)(int32_t)x * (int32_t)y) >> 32);
      const uint32_t vb = x ^ (y << 16);
      float v; memcpy(&v, &vb, 4);
      const uint32_t cls = (std::isnan(v) ? 1u : 0u) | (std::isinf(v) ? 2u : 0u) | (std::isfinite(v) ? 4u : 0u) | ((vb >> 31) ? 8u : 0u);
      const uint64_t out = rr ^ (uint64_t)(m ? __builtin_ffsll((long long)m) : 0);
      lo[i] = (uint32_t)out; hi[i] = (uint32_t)(out >> 32);
      o2[i] = p ^ fs ^ q ^ (cls << 28) ^ (uint32_t)lz;
    }
    return equal_all(r, "lo", lo) & equal_all(r, "hi", hi) & equal_all(r, "out2", o2);
  }
  if (n == "cgTile32Reduce") {
    std::vector<long long> o(2048, 0), t(256, 0);
    for (int i = 0; i < 65536; i++) { o[i / 32] += r.ii("inp", i); t[i / 256] += r.ii("inp", i); }
    return equal_all(r, "out", u32s(o)) & equal_all(r, "total", u32s(t));
  }
  if (n == "cgTile16Shfl") {
    std::vector<double> o(4096, 0);
    for (int i = 0; i < 65536; i++) o[i / 16] += r.fi("inp", i);
    return close_all(r, "out", o);
  }
  if (n == "cgTile64Reduce") {
    std::vector<long long> s(1024, 0), f(65536), o(65536);
    for (int i = 0; i < 65536; i++) s[i / 64] += r.ii("inp", i);
    for (int i = 0; i < 65536; i++) { f[i] = r.ii("inp", i - i % 64); o[i] = r.ii("inp", i) + s[i / 64]; }
    return equal_all(r, "sums", u32s(s)) & equal_all(r, "first", u32s(f)) & equal_all(r, "out", u32s(o));
  }
  if (n == "bitonicSortShared" || n == "oddEvenMergeSortShared") {
    std::vector<uint32_t> want = r.I("src");
    for (int b = 0; b < 64; b++) std::sort(want.begin() + b * 1024, want.begin() + (b + 1) * 1024);
    return equal_all(r, "dst", want);
  }
  if (n.rfind("sgemm", 0) == 0) {
    const int M = 512, N = 512, K = 256;
    std::vector<double> want(M * N);
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0;
        for (int k = 0; k < K; k++) s += (double)r.fi("A", i * K + k) * r.fi("B", k * N + j);
        want[i * N + j] = 1.5 * s + 0.5 * r.fi("C", i * N + j);
      }
    return close_all(r, "C", want);
  }
  if (n == "softmaxBlock" || n == "softmaxOnline") {
    const int N = n == "softmaxBlock" ? 128 : 1024, C = n == "softmaxBlock" ? 512 : 128;
    std::vector<double> want(N * C);
    for (int row = 0; row < N; row++) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < C; c++) m = std::max(m, (double)r.fi("inp", row * C + c));
      for (int c = 0; c < C; c++) s += std::exp(r.fi("inp", row * C + c) - m);
      for (int c = 0; c < C; c++) want[row * C + c] = std::exp(r.fi("inp", row * C + c) - m) / s;
    }
    return close_all(r, "out", want);
  }
  if (n == "layernormWarp") {
    const int N = 128, C = 256;
    std::vector<double> want(N * C), mean(N), rstd(N);
    for (int row = 0; row < N; row++) {
      double s = 0, v = 0;
      for (int c = 0; c < C; c++) s += r.fi("inp", row * C + c);
      const double m = s / C;
      for (int c = 0; c < C; c++) { const double d = r.fi("inp", row * C + c) - m; v += d * d; }
      const double rs = 1.0 / std::sqrt(v / C + 1e-5);
      mean[row] = m; rstd[row] = rs;
      for (int c = 0; c < C; c++) want[row * C + c] = (r.fi("inp", row * C + c) - m) * rs * r.fi("weight", c) + r.fi("bias", c);
    }
    return close_all(r, "out", want) & close_all(r, "mean", mean) & close_all(r, "rstd", rstd);
  }
  if (n == "histogram256") {
    std::vector<long long> p(240 * 256, 0);
    for (int w = 0; w < 240 * 192; w++) {
      const uint32_t d = r.I("data")[w];
      for (int k = 0; k < 4; k++) p[(w / 192) * 256 + ((d >> (8 * k)) & 0xFF)]++;
    }
    return equal_all(r, "partial", u32s(p));
  }
  if (n == "mergeHistogram256") {
    std::vector<long long> h(256, 0);
    for (int b = 0; b < 256; b++) for (int k = 0; k < 240; k++) h[b] += r.I("partial")[b + k * 256];
    return equal_all(r, "hist", u32s(h));
  }
  verdict = "no reference";
  return false;
}

// The host value of constant `name` element i as the launch filled it.
static float cf(const LaunchSpec& L, Run& r, const char* name, size_t i) {
  for (int c = 0; c < L.nc; c++) {
    const ConstSpec& k = L.consts[c];
    if (strcmp(k.name, name)) continue;
    if (k.kind == CONST_FROM) return r.fi(k.src, i);
    if (k.kind == CONST_VALUES) return (float)k.fvals[i];
    uint32_t w = word(k.ty, k.kind == CONST_IOTA ? INIT_IOTA : INIT_RANDOM, k.seed, i);
    float f; memcpy(&f, &w, 4); return f;
  }
  fprintf(stderr, "no constant %s\n", name); exit(2);
}

static bool want(int argc, char** argv, const char* k) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; i++) if (!strcmp(argv[i], k)) return true;
  return false;
}

int main(int argc, char** argv) {
  CK(cudaFree(0));
  int failed = 0, ran = 0;
  for (int li = 0; li < N_LAUNCHES; li++) {
    const LaunchSpec& L = LAUNCHES[li];
    if (!want(argc, argv, L.name)) continue;
    Run r;
    std::map<std::string, uint32_t*> dev;
    for (int b = 0; b < L.nb; b++) {
      const BufSpec& s = L.bufs[b];
      std::vector<uint32_t> h(s.n);
      for (size_t i = 0; i < s.n; i++) h[i] = word(s.ty, s.init, s.seed, i);
      uint32_t* d;
      CK(cudaMalloc(&d, s.n * 4 + 256));
      CK(cudaMemcpy(d, h.data(), s.n * 4, cudaMemcpyHostToDevice));
      dev[s.name] = d;
      r.init[s.name] = h;
    }
    for (int c = 0; c < L.nc; c++) {
      const ConstSpec& k = L.consts[c];
      std::vector<uint32_t> h(k.n);
      for (size_t i = 0; i < k.n; i++) {
        if (k.kind == CONST_FROM) h[i] = r.init.at(k.src)[i];
        else if (k.kind == CONST_VALUES && k.ty == T_F32) { float f = (float)k.fvals[i]; memcpy(&h[i], &f, 4); }
        else if (k.kind == CONST_VALUES) h[i] = (uint32_t)k.ivals[i];
        else h[i] = word(k.ty, k.kind == CONST_IOTA ? INIT_IOTA : INIT_RANDOM, k.seed, i);
      }
      CK(cudaMemcpyToSymbol(k.sym, h.data(), k.n * 4, k.offset, cudaMemcpyHostToDevice));
    }
    std::vector<uint64_t> store(L.na);
    std::vector<void*> args(L.na);
    for (int a = 0; a < L.na; a++) {
      const ArgSpec& s = L.args[a];
      if (s.kind == ARG_BUF) { void* p = dev.at(s.buf); memcpy(&store[a], &p, sizeof p); }
      else if (s.kind == ARG_F32) { float f = s.f; memcpy(&store[a], &f, 4); }
      else { uint32_t v = (uint32_t)s.i; memcpy(&store[a], &v, 4); }
      args[a] = &store[a];
    }
    printf("L %d %s\n", ran, L.name);
    fflush(stdout);
    CK(cudaLaunchKernel(L.func, dim3(L.grid[0], L.grid[1], L.grid[2]), dim3(L.block[0], L.block[1], L.block[2]),
                        args.data(), L.dyn, 0));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int b = 0; b < L.nb; b++) {
      std::vector<uint32_t> h(L.bufs[b].n);
      CK(cudaMemcpy(h.data(), dev[L.bufs[b].name], h.size() * 4, cudaMemcpyDeviceToHost));
      r.fin[L.bufs[b].name] = h;
    }
    verdict.clear();
    const bool ok = check(L, r);
    printf("V %s %s %s\n", L.name, ok ? "ok" : "FAIL", verdict.c_str());
    fflush(stdout);
    failed += !ok;
    ran++;
    for (auto& kv : dev) CK(cudaFree(kv.second));
  }
  printf("cuda_kernels1: %d launches, %d verified, %d failed\n", ran, ran - failed, failed);
  return 0;
}
