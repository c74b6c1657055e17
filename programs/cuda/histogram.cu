// The three kernels of calibration/draws/histogram_fp16/histogram.cu (measured on the H200; host code and
// common.h left out so NVRTC compiles it): NVRTC's PTX is histogram.ptx beside it.
#define BINS 256

__global__ void histogram256(const unsigned char* __restrict__ in, unsigned int* hist, int n) {
  __shared__ unsigned int s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], 1u);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}

__global__ void histogram256_inc(const unsigned char* __restrict__ in, unsigned int* hist, int n,
                                 unsigned int inc) {
  __shared__ unsigned int s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], inc);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}

__global__ void histogram256_f32(const unsigned char* __restrict__ in, float* hist, int n) {
  __shared__ float s[BINS];
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) s[i] = 0.0f;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&s[in[i]], 1.0f);
  __syncthreads();
  for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&hist[i], s[i]);
}
