// A dependent shared-load chain (d = s[base + d], every value 0), one warp, lane l at word
// l * ways: the timing model's view of a load whose address depends on an earlier load, through
// the CUDA/PTX path (chain_cuda.ron) and the RON path (chain.ron). On the H200 such a chain takes
// 21 + 2N cycles a load for N wavefronts (the H200 facts given to the project, timing.md:
// "shared load latency, lone warp, dependent chain") plus the address arithmetic; the device
// probe of the same shape is lvl<1,0,0,0,1> of ../probe.cu.
__global__ void chain(const float* x, float* out, int ways, int, int reps) {
  __shared__ int sraw[1024];
  volatile int* s = sraw;
  int lane = threadIdx.x & 31;
  int base = (lane * ways) & 1023;
  s[base] = 0;
  __syncthreads();
  int d = 0;
  for (int r = 0; r < reps; r++) d = s[base + d];
  out[threadIdx.x] = __int_as_float(d);
}
