// Block dispatch: which SM each block runs on and when it starts and ends.
//
// Thread 0 of every block records %smid, clock64 (per-SM counter) and %globaltimer (ns, one
// clock for the GPU) at the block's start; after a spin of SPIN cycles and __syncthreads it
// records them again at the end. One line per block and configuration.
//
// Usage: disp OUTFILE
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); exit(1); } } while (0)

struct Rec { unsigned long long c0, c1, g0, g1; unsigned smid, pad; };

__device__ __forceinline__ unsigned long long clk64() {
  unsigned long long t; asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory"); return t;
}
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory"); return t;
}

__global__ void probe(Rec* r, long long spin) {
  extern __shared__ unsigned dyn[];
  unsigned long long c0 = clk64(), g0 = gtime();
  unsigned smid; asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (spin > 0) while ((long long)(clk64() - c0) < spin) {}
  if (threadIdx.x == 0) dyn[0] = smid;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned bid = blockIdx.x + gridDim.x * blockIdx.y;
    r[bid].c0 = c0; r[bid].g0 = g0; r[bid].smid = dyn[0];
    r[bid].c1 = clk64(); r[bid].g1 = gtime();
  }
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: disp OUT\n"); return 2; }
  FILE* o = fopen(argv[1], "w");
  fprintf(o, "cfg\tblocks\tthreads\tsmem\tspin\tblock\tsmid\tclk_start\tclk_end\tgt_start_ns\tgt_end_ns\n");
  struct { const char* name; int blocks, threads, smem; long long spin; } cfgs[] = {
    {"wave1_528x256_spin0", 528, 256, 0, 0},
    {"many_16896x256_spin0", 16896, 256, 0, 0},
    {"two_waves_2112x256_spin20000", 2112, 256, 0, 20000},
    {"two_waves_528x1024_spin20000", 528, 1024, 0, 20000},
    {"smem1_396x256_200KB_spin20000", 396, 256, 200 * 1024, 20000},
    {"few_66x256_spin5000", 66, 256, 0, 5000},
    {"tiny_8448x32_spin2000", 8448, 32, 0, 2000},
  };
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, 220 * 1024));
  Rec* d; CK(cudaMalloc(&d, 20000 * sizeof(Rec)));
  std::vector<Rec> h(20000);
  for (auto& c : cfgs) {
    for (int rep = 0; rep < 2; rep++) {  // rep 0 warms up; rep 1 recorded
      probe<<<c.blocks, c.threads, c.smem > 0 ? c.smem : 16>>>(d, c.spin);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    }
    CK(cudaMemcpy(h.data(), d, c.blocks * sizeof(Rec), cudaMemcpyDeviceToHost));
    for (int b = 0; b < c.blocks; b++)
      fprintf(o, "%s\t%d\t%d\t%d\t%lld\t%d\t%u\t%llu\t%llu\t%llu\t%llu\n", c.name, c.blocks, c.threads, c.smem, c.spin,
              b, h[b].smid, h[b].c0, h[b].c1, h[b].g0, h[b].g1);
  }
  fclose(o);
  printf("disp: done\n");
  return 0;
}
