// What `fns.b32` (CUDA's __fns) returns on the H200 (issue 37 item 2: warpsim refuses `fns`
// until its values are measured). One thread per (mask, base, offset): 12 masks x bases 0..31
// x offsets -34..34. Prints "mask base offset result" lines (hex mask, decimal rest).
#include <cstdio>

__global__ void k(const unsigned* masks, unsigned* out, int nm) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int per = 32 * 69;
    if (i >= nm * per) return;
    unsigned m = masks[i / per];
    int r = i % per;
    unsigned base = r / 69;
    int off = r % 69 - 34;
    out[i] = __fns(m, base, off);
}

int main() {
    const unsigned masks[12] = {0u, 0xffffffffu, 0x80000001u, 0x1u, 0x80000000u, 0x55555555u,
                                0x0f0f00f0u, 0x9e3779b9u, 0x12345678u, 0xdeadbeefu, 0x00010000u,
                                0xfffe7fffu};
    const int nm = 12, n = nm * 32 * 69;
    unsigned *dm, *dout;
    cudaMalloc(&dm, sizeof masks);
    cudaMalloc(&dout, n * 4);
    cudaMemcpy(dm, masks, sizeof masks, cudaMemcpyHostToDevice);
    k<<<(n + 255) / 256, 256>>>(dm, dout, nm);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    static unsigned h[12 * 32 * 69];
    cudaMemcpy(h, dout, n * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        int per = 32 * 69, r = i % per;
        printf("%08x %d %d %u\n", masks[i / per], r / 69, r % 69 - 34, h[i]);
    }
    return 0;
}
