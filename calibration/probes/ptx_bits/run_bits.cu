// Runs kernel `bit_ops` of tests/fixtures/ptx/bits.ptx on the GPU (driver API: the PTX as
// it is, JIT-compiled) and prints outi (288 words) and outf (128 words) as hex, one per line,
// for tests/ptx_bits.rs. Build: nvcc -o run_bits run_bits.cu -lcuda; run from the repository
// root: ./run_bits tests/fixtures/ptx/bits.ptx > calibration/probes/ptx_bits/h200.txt
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
  CUfunction fn; CK(cuModuleGetFunction(&fn, mod, "bit_ops"));
  CUdeviceptr oi, of;
  CK(cuMemAlloc(&oi, 288 * 4)); CK(cuMemAlloc(&of, 128 * 4));
  CK(cuMemsetD32(oi, 0, 288)); CK(cuMemsetD32(of, 0, 128));
  void* args[] = {&oi, &of};
  CK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args, 0));
  CK(cuCtxSynchronize());
  std::vector<unsigned> hi(288), hf(128);
  CK(cuMemcpyDtoH(hi.data(), oi, 288 * 4)); CK(cuMemcpyDtoH(hf.data(), of, 128 * 4));
  for (unsigned v : hi) printf("%08x\n", v);
  for (unsigned v : hf) printf("%08x\n", v);
  return 0;
}
