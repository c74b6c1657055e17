// cuda_kernels1, byte histogram (the CUDA samples' histogram256 technique, re-implemented here):
// per-warp sub-histograms of 256 bins in shared memory updated with shared atomics (each 32-bit
// word of input is four bytes), one partial histogram per block, then a merge kernel that adds
// the partials bin by bin with a shared-memory tree. With integer input covering the whole
// 32-bit range every byte position is spread over the 256 bins.
#define HBINS 256
#define HWARPS 6
#define HTPB (HWARPS * 32)

extern "C" __global__ void histogram256(unsigned* partial, const unsigned* data, unsigned words) {
  __shared__ unsigned sub[HWARPS * HBINS];
  unsigned* mine = sub + (threadIdx.x >> 5) * HBINS;
#pragma unroll
  for (unsigned i = 0; i < (HWARPS * HBINS) / HTPB; i++) sub[threadIdx.x + i * HTPB] = 0;
  __syncthreads();
  for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < words; pos += blockDim.x * gridDim.x) {
    const unsigned d = data[pos];
    atomicAdd(mine + ((d >> 0) & 0xFFu), 1u);
    atomicAdd(mine + ((d >> 8) & 0xFFu), 1u);
    atomicAdd(mine + ((d >> 16) & 0xFFu), 1u);
    atomicAdd(mine + ((d >> 24) & 0xFFu), 1u);
  }
  __syncthreads();
  for (unsigned bin = threadIdx.x; bin < HBINS; bin += HTPB) {
    unsigned s = 0;
    for (unsigned w = 0; w < HWARPS; w++) s += sub[bin + w * HBINS];
    partial[blockIdx.x * HBINS + bin] = s;
  }
}

#define MTPB 256
// Block b adds bin b of the `count` partial histograms.
extern "C" __global__ void mergeHistogram256(unsigned* hist, const unsigned* partial, unsigned count) {
  __shared__ unsigned acc[MTPB];
  unsigned s = 0;
  for (unsigned i = threadIdx.x; i < count; i += MTPB) s += partial[blockIdx.x + i * HBINS];
  acc[threadIdx.x] = s;
  for (unsigned stride = MTPB / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) acc[threadIdx.x] += acc[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) hist[blockIdx.x] = acc[0];
}
