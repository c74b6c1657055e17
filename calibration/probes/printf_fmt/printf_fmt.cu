// calibration/probes/printf_fmt: what the GPU's printf prints for each conversion warpsim
// formats (crates/kernel/src/printf.rs), one block of 32 threads, lane-dependent values
// (integers around 0 and the extremes, floats from tiny to huge, inf, nan, -0.0).
// The same kernel runs in warpsim from printf_fmt.cu.ron; predictions.txt is warpsim's output,
// committed before the device call. On the device: `./printf_fmt > device.txt`.
#ifndef __CUDACC_RTC__
#include <cstdio>
#endif

__device__ double fval(int t) {
  switch (t % 8) {
    case 0: return 0.0;
    case 1: return -0.0;
    case 2: return __longlong_as_double(0x7ff0000000000000LL);
    case 3: return __longlong_as_double((long long)0xfff0000000000000ULL);
    case 4: return 1e300 * (t + 1);
    case 5: return 1e-300 * (t + 1);
    case 6: return (t - 16) * 1234.5678;
    default: return __longlong_as_double(0x7ff8000000000000LL);
  }
}

__global__ void fmt(int* out) {
  int t = threadIdx.x;
  int i = (t - 16) * 123457 + (t == 0 ? -2147483647 - 1 : 0) + (t == 31 ? 2147483647 - 15 * 123457 : 0);
  long long ll = (long long)i * 9876543211LL;
  double d = fval(t);
  float f = (t - 10) * 0.3125f + (t % 3) * 1e-4f;
  printf("%2d i: %d %i %u %x %X %o %#x %#o|%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|\n", t, i, i, i, i, i, i, i, i,
         i, i, i, i, i, i, t % 2);
  printf("%2d n: %c %lld %llu %hhd %hu %*d|%-*d|%lx\n", t, 'A' + t, ll, (unsigned long long)ll,
         i, i, t % 7, i, t % 5, t, (unsigned long)ll);
  printf("%2d f: %f %.2f %8.3f|%-10.1f|%+.1f|%08.2f|%.0f|%#.0f\n", t, f, f, f, f, f, f, f, f);
  printf("%2d e: %e %E %.0e %.3e %#.0e %12.4e|\n", t, f, f, f, f, f, f);
  printf("%2d g: %g %G %.3g %#g %g %.10g %g\n", t, f, f, f, f, f * 1e-6f, f * 1e7f, (double)f * 1e20);
  printf("%2d d: %f %e %g %10.3g|%-12e|%+g\n", t, d, d, d, d, d, d);
  out[t] = t;
}

#ifndef __CUDACC_RTC__
int main() {
  int* o;
  cudaMalloc(&o, 32 * sizeof(int));
  fmt<<<1, 32>>>(o);
  cudaError_t e = cudaDeviceSynchronize();
  fflush(stdout);
  fprintf(stderr, "rc %s\n", cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}
#endif
