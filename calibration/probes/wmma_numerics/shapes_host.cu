// Host side of calibration/probes/wmma_numerics' third part (run2.sh), host.cu for shapes.cu:
// for each seed (the arguments; 9 10) and form F of shapes.cu, fills `in` as warpsim's
// Random(seed) fills a U32 buffer (element i: splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15)
// >> 32), runs shapes<F> on W = 8 warps and prints a "D seed F lane w0 .. w7" line per lane
// (the hex words of `out`), then an
// "X seed F worst" line: the largest |D - ref| / magnitude over the form's elements (the
// kernel's own f64 reference; 0 for exact integer results).
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cstdlib>
#include <cmath>
#include <cstring>
#include <cuda_fp16.h>
#include "shapes.cu"
static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
template <int F>
static void run_form(const unsigned* din, unsigned* dout, float* dref, unsigned short* g16,
                     float* g32, unsigned char* g8, int W) {
    shapes<F><<<W, 32>>>(din, dout, dref, g16, g32, g8);
}
typedef void (*Runner)(const unsigned*, unsigned*, float*, unsigned short*, float*, unsigned char*, int);
static Runner runners[SFORMS] = {run_form<0>, run_form<1>, run_form<2>, run_form<3>,
                                run_form<4>, run_form<5>, run_form<6>, run_form<7>,
                                run_form<8>, run_form<9>, run_form<10>, run_form<11>};
static double value(int f, unsigned w) {
    if (f == 2 || f == 7) { unsigned short h = (unsigned short)w; __half x; memcpy(&x, &h, 2); return (double)__half2float(x); }
    if (f == 4 || f == 5 || f == 9 || f == 10) return (double)(int)w;
    float x; memcpy(&x, &w, 4); return (double)x;
}
int main(int argc, char** argv) {
    const int W = 8, words = W * SWORDS, outs = W * 256;
    unsigned *din, *dout; float *dref, *g32; unsigned short* g16; unsigned char* g8;
    cudaMalloc(&din, words * 4); cudaMalloc(&dout, outs * 4); cudaMalloc(&dref, outs * 8);
    cudaMalloc(&g16, W * 3 * STILE * 2); cudaMalloc(&g32, W * 3 * STILE * 4); cudaMalloc(&g8, W * 3 * STILE);
    std::vector<unsigned> h(words), o(outs);
    std::vector<float> r(outs * 2);
    std::vector<int> seeds;
    for (int i = 1; i < argc; i++) seeds.push_back(atoi(argv[i]));
    if (seeds.empty()) seeds = {9, 10};
    for (int seed : seeds) {
        for (int i = 0; i < words; i++)
            h[i] = (unsigned)(splitmix64((uint64_t)seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
        cudaMemcpy(din, h.data(), words * 4, cudaMemcpyHostToDevice);
        for (int f = 0; f < SFORMS; f++) {
            cudaMemset(dout, 0, outs * 4);
            runners[f](din, dout, dref, g16, g32, g8, W);
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { printf("E %d %d %s\n", seed, f, cudaGetErrorString(e)); continue; }
            cudaMemcpy(o.data(), dout, outs * 4, cudaMemcpyDeviceToHost);
            cudaMemcpy(r.data(), dref, outs * 8, cudaMemcpyDeviceToHost);
            double worst = 0;
            for (int l = 0; l < W * 32; l++) {
                printf("D %d %d %d", seed, f, l);
                for (int j = 0; j < 8; j++) printf(" %08x", o[l * 8 + j]);
                printf("\n");
            }
            for (int i = 0; i < outs; i++) {
                double m = r[2 * i + 1] > 0 ? r[2 * i + 1] : 1;
                worst = fmax(worst, fabs(value(f, o[i]) - r[2 * i]) / m);
            }
            printf("X %d %d %.3e\n", seed, f, worst);
        }
    }
    return 0;
}
