// Runs the launches of calibration/draws/loops/configs.txt ("kernel G B K" a line) of
// tests/fixtures/ptx/loop_loads.ptx on the GPU (driver API: the PTX as it is, JIT-compiled),
// one after the other, for Nsight Compute (calibration/draws/loops/run.sh). x holds 8 x 4096 floats.
// Build: nvcc -o run_loops run_loops.cu -lcuda; run from the repository root.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { CUresult e = (x); if (e != CUDA_SUCCESS) { const char* s; cuGetErrorString(e, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(1); } } while (0)
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb");
  if (!f) { perror(argv[1]); return 1; }
  std::vector<char> ptx(1 << 20);
  size_t n = fread(ptx.data(), 1, ptx.size() - 1, f);
  ptx[n] = 0;
  CK(cuInit(0));
  CUdevice dev; CK(cuDeviceGet(&dev, 0));
  CUcontext ctx; CK(cuDevicePrimaryCtxRetain(&ctx, dev)); CK(cuCtxSetCurrent(ctx));
  CUmodule mod; CK(cuModuleLoadData(&mod, ptx.data()));
  CUdeviceptr x, y;
  CK(cuMemAlloc(&x, 8 * 4096 * 4)); CK(cuMemAlloc(&y, 1024 * 4));
  std::vector<float> hx(8 * 4096);
  for (size_t i = 0; i < hx.size(); i++) hx[i] = (float)(i % 97) * 0.25f;
  CK(cuMemcpyHtoD(x, hx.data(), hx.size() * 4));
  FILE* c = fopen(argv[2], "r");
  if (!c) { perror(argv[2]); return 1; }
  char name[64]; unsigned g, b, k;
  while (fscanf(c, "%63s %u %u %u", name, &g, &b, &k) == 4) {
    CUfunction fn; CK(cuModuleGetFunction(&fn, mod, name));
    unsigned s = 4096;  // sum_stride's step (the other kernels take 3 parameters)
    void* args[] = {&x, &y, &k, &s};
    CK(cuLaunchKernel(fn, g, 1, 1, b, 1, 1, 0, 0, args, 0));
    CK(cuCtxSynchronize());
    printf("LAUNCH %s %u %u %u\n", name, g, b, k);
  }
  return 0;
}
