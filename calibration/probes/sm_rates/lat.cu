// Fixed instruction latencies and issue rates of one SM sub-partition.
//
// lat<OP, CH>: each thread runs CH independent chains of the instruction OP (inline PTX, one
// SASS instruction per step except where the name says "pair"), 128 steps per loop iteration,
// for `iters` iterations, and reads clock64 around the loop.
//   CH = 1, one warp:   cycles per step = the dependent-issue latency of OP.
//   CH = 8, W warps:    cycles per step per sub-partition = the issue interval (throughput).
// Operands y[], z[] come from memory so nothing folds; the SASS (lat.sass) is the check.
//
// Usage: lat OUTFILE   -> one line per (op, ch, w): cycles of warp 0, mean over warps
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

__device__ __forceinline__ long long clk64() {
  long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}

template <int OP>
__device__ __forceinline__ void step(unsigned& x, float& f, double& d, unsigned y, unsigned z,
                                     float a, float b, double da, double db,
                                     unsigned long long& w) {
  if (OP == 0) asm volatile("add.u32 %0, %0, %1;" : "+r"(x) : "r"(y));
  if (OP == 1) asm volatile("lop3.b32 %0, %0, %1, %2, 0xE8;" : "+r"(x) : "r"(y), "r"(z));
  if (OP == 2) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(y), "r"(z));
  if (OP == 3) asm volatile("{.reg .pred p; setp.lt.u32 p, %0, %1; selp.u32 %0, %1, %2, p;}"
                            : "+r"(x) : "r"(y), "r"(z));
  if (OP == 4) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f) : "f"(a), "f"(b));
  if (OP == 5) asm volatile("add.f32 %0, %0, %1;" : "+f"(f) : "f"(a));
  if (OP == 6) asm volatile("mul.f32 %0, %0, %1;" : "+f"(f) : "f"(a));
  if (OP == 7) asm volatile("{.reg .u32 l, h; mov.b64 {l, h}, %0; mul.wide.u32 %0, h, %1;}"
                            : "+l"(w) : "r"(y | 0x80000000u));
  if (OP == 8) asm volatile("{.reg .f32 g; cvt.rn.f32.u32 g, %0; add.f32 g, g, %1; cvt.rzi.u32.f32 %0, g;}"
                            : "+r"(x) : "f"(a));
  if (OP == 9) asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(d) : "d"(da), "d"(db));
  if (OP == 10) asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(f));
  if (OP == 11) asm volatile("{.reg .f64 e; cvt.f64.f32 e, %0; cvt.rn.f32.f64 %0, e;}" : "+f"(f));
}

template <int OP, int CH>
__global__ void lat(const unsigned* in, unsigned* out, long long* cyc, int iters) {
  unsigned y[8], z[8];
  float a[8], b[8];
  double da[8], db[8];
#pragma unroll
  for (int j = 0; j < 8; j++) {
    y[j] = in[j]; z[j] = in[8 + j];
    a[j] = __uint_as_float(in[16 + j]); b[j] = __uint_as_float(in[24 + j]);
    da[j] = (double)a[j]; db[j] = (double)b[j];
  }
  unsigned long long zz = in[32];
  unsigned x[CH]; float f[CH]; double d[CH]; unsigned long long w[CH];
#pragma unroll
  for (int c = 0; c < CH; c++) {
    x[c] = in[40 + c] + threadIdx.x; f[c] = __uint_as_float(in[48 + c]) + threadIdx.x;
    d[c] = f[c]; w[c] = zz + c;
  }
  long long t0 = clk64();
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int s = 0; s < 128; s++)
#pragma unroll
      for (int c = 0; c < CH; c++)
        step<OP>(x[c], f[c], d[c], y[s & 7], z[s & 7], a[s & 7], b[s & 7], da[s & 7], db[s & 7], w[c]);
  }
  long long t1 = clk64();
  unsigned acc = 0;
#pragma unroll
  for (int c = 0; c < CH; c++) acc += x[c] + __float_as_uint(f[c]) + (unsigned)__double_as_longlong(d[c]) + (unsigned)w[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if ((threadIdx.x & 31) == 0) cyc[threadIdx.x >> 5] = t1 - t0;
}

typedef void (*kfn)(const unsigned*, unsigned*, long long*, int);
struct Cfg { const char* name; int ch; kfn f; };
#define L(O, NAME) {NAME, 1, lat<O, 1>}, {NAME, 8, lat<O, 8>}
static Cfg cfgs[] = {
  L(0, "IADD3"), L(1, "LOP3"), L(2, "IMAD"), L(3, "ISETP+SEL_pair"), L(4, "FFMA"), L(5, "FADD"),
  L(6, "FMUL"), L(7, "IMAD.WIDE"), L(8, "I2F+FADD+F2I_triple"), L(9, "DFMA"), L(10, "MUFU.RSQ"),
  L(11, "F2F.F64.F32+F2F.F32.F64_pair"),
};

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: lat OUT\n"); return 2; }
  unsigned h_in[64];
  for (int i = 0; i < 64; i++) h_in[i] = 0x3f800000u + (i * 2654435761u >> 12);  // floats near 1..2
  unsigned *in, *out; long long* cyc;
  CK(cudaMalloc(&in, sizeof h_in)); CK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&out, 1024 * 4)); CK(cudaMalloc(&cyc, 32 * 8));
  FILE* o = fopen(argv[1], "w");
  fprintf(o, "op\tchains\twarps\titers\tsteps_per_warp\tcycles_warp0\tcycles_mean\tcycles_per_step_warp0\t"
             "cycles_per_inst_per_subpartition\n");
  int ws[] = {1, 4, 8, 16, 32};
  std::vector<long long> h(32);
  for (auto& c : cfgs) for (int w : ws) {
    if (c.ch == 1 && w > 1) continue;
    int iters = 64;
    for (int rep = 0; rep < 2; rep++) {  // rep 0 warms up
      c.f<<<1, 32 * w>>>(in, out, cyc, iters);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h.data(), cyc, 32 * 8, cudaMemcpyDeviceToHost));
    double mean = 0; for (int i = 0; i < w; i++) mean += h[i]; mean /= w;
    double steps = (double)iters * 128 * c.ch;
    double per_sp = w >= 4 ? mean / (steps * w / 4) : mean / steps;
    fprintf(o, "%s\t%d\t%d\t%d\t%.0f\t%lld\t%.1f\t%.3f\t%.3f\n", c.name, c.ch, w, iters, steps, h[0], mean,
            h[0] / steps, per_sp);
  }
  fclose(o);
  printf("lat: done\n");
  return 0;
}
