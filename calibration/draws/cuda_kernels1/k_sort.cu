// cuda_kernels1, sorting networks in shared memory (the CUDA samples' sortingNetworks
// technique, re-implemented here, keys only): bitonic sort and Batcher's odd-even merge sort of
// SORT_N keys per block by SORT_N / 2 threads, each thread one compare-exchange per step.
#define SORT_N 1024

__device__ __forceinline__ void compareSwap(unsigned& a, unsigned& b, unsigned ascending) {
  if ((a > b) == (ascending != 0)) {
    const unsigned t = a;
    a = b;
    b = t;
  }
}

extern "C" __global__ void bitonicSortShared(unsigned* dst, const unsigned* src, unsigned ascending) {
  __shared__ unsigned keys[SORT_N];
  const unsigned base = blockIdx.x * SORT_N;
  keys[threadIdx.x] = src[base + threadIdx.x];
  keys[threadIdx.x + SORT_N / 2] = src[base + threadIdx.x + SORT_N / 2];
  // build bitonic sequences of growing size, each half sorted in opposite directions
  for (unsigned size = 2; size < SORT_N; size <<= 1) {
    const unsigned dir = ascending ^ ((threadIdx.x & (size / 2)) != 0);
    for (unsigned stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      compareSwap(keys[pos], keys[pos + stride], dir);
    }
  }
  // the final merge of the whole block
  for (unsigned stride = SORT_N / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    compareSwap(keys[pos], keys[pos + stride], ascending);
  }
  __syncthreads();
  dst[base + threadIdx.x] = keys[threadIdx.x];
  dst[base + threadIdx.x + SORT_N / 2] = keys[threadIdx.x + SORT_N / 2];
}

extern "C" __global__ void oddEvenMergeSortShared(unsigned* dst, const unsigned* src, unsigned ascending) {
  __shared__ unsigned keys[SORT_N];
  const unsigned base = blockIdx.x * SORT_N;
  keys[threadIdx.x] = src[base + threadIdx.x];
  keys[threadIdx.x + SORT_N / 2] = src[base + threadIdx.x + SORT_N / 2];
  for (unsigned size = 2; size <= SORT_N; size <<= 1) {
    unsigned stride = size / 2;
    const unsigned offset = threadIdx.x & (stride - 1);
    {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      compareSwap(keys[pos], keys[pos + stride], ascending);
      stride >>= 1;
    }
    for (; stride > 0; stride >>= 1) {
      __syncthreads();
      const unsigned pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      if (offset >= stride) compareSwap(keys[pos - stride], keys[pos], ascending);
    }
  }
  __syncthreads();
  dst[base + threadIdx.x] = keys[threadIdx.x];
  dst[base + threadIdx.x + SORT_N / 2] = keys[threadIdx.x + SORT_N / 2];
}
