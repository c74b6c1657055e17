// Integer issue rates on the H200 (issue 38 item 2): does an SM sub-partition issue integer
// instructions of the two pipes that take them (ALU: IADD3, LOP3; FMA: IMAD) side by side, one
// per cycle in all, or one per 2 cycles in all, as warpsim's `issue.int` says? Each kernel: 8
// independent chains a thread, STEPS unrolled steps, one instruction a chain a step, over a
// full wave (132 x 1024 threads: 8 warps a sub-partition). run.sh checks the SASS holds what
// each mode is for (cuobjdump -sass) and measures cycles and instructions with ncu.
//   ./int_pipes MODE     MODE 0..7 (below); prints the checksum
#ifndef __CUDACC_RTC__
#include <cstdio>
#include <cstdlib>
#endif

#define STEPS 256

// MODE: 0 IADD3 only, 1 IMAD only, 2 LOP3 only, 3 IMAD | IADD3 (chains alternate),
// 4 IMAD | LOP3, 5 FFMA | IADD3, 6 IADD3 | LOP3, 7 FFMA only.
template <int MODE>
__global__ void k(unsigned* out, unsigned a, unsigned b, float fa) {
    unsigned x[8];
    float f[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) {
        x[c] = threadIdx.x * (c + 3) + blockIdx.x;
        f[c] = (float)x[c];
    }
#pragma unroll 16
    for (int s = 0; s < STEPS; ++s) {
#pragma unroll
        for (int c = 0; c < 8; ++c) {
            const bool odd = c & 1;
            // (asm volatile: NVVM may not fold a chain of adds or xors into one.)
            if (MODE == 0 || (MODE == 3 && odd) || (MODE == 5 && odd) || (MODE == 6 && !odd))
                asm volatile("add.u32 %0, %0, %1;" : "+r"(x[c]) : "r"(a));           // IADD3
            else if (MODE == 1 || (MODE == 3 && !odd) || (MODE == 4 && !odd))
                asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x[c]) : "r"(a), "r"(b)); // IMAD
            else if (MODE == 2 || (MODE == 4 && odd) || (MODE == 6 && odd))
                asm volatile("xor.b32 %0, %0, %1;" : "+r"(x[c]) : "r"(a));           // LOP3
            else
                asm volatile("fma.rn.f32 %0, %0, %1, 0f3F800000;" : "+f"(f[c]) : "f"(fa)); // FFMA
        }
    }
    unsigned r = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c) r += x[c] + __float_as_uint(f[c]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

#ifndef __CUDACC_RTC__
int main(int argc, char** argv) {
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    unsigned* d;
    cudaMalloc(&d, 132 * 1024 * 4);
    void (*ks[8])(unsigned*, unsigned, unsigned, float) = {k<0>, k<1>, k<2>, k<3>, k<4>, k<5>, k<6>, k<7>};
    if (mode < 0 || mode > 7) return 2;
    for (int rep = 0; rep < 2; ++rep) ks[mode]<<<132, 1024>>>(d, 3u, 0x5bd1e995u, 1.0001f);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    unsigned h[4];
    cudaMemcpy(h, d, 16, cudaMemcpyDeviceToHost);
    printf("mode %d checksum %08x\n", mode, h[0] ^ h[1] ^ h[2] ^ h[3]);
    return 0;
}
#endif
