// Host side of calibration/probes/wgmma_draw (run.sh): for each seed (the arguments; 21 22) and form
// F of draw.cu, fills `in` as warpsim's Random(seed) fills a U32 buffer (element i:
// splitmix64(seed + (i + 1) * 0x9E3779B97F4A7C15) >> 32), runs forms<F> on W = 1 block of one
// warpgroup and prints a "D seed F thread w0 .. w(ND-1)" line per thread (the hex words of its D
// registers), or "E seed F error".
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cstdlib>
#include "draw.cu"
static uint64_t splitmix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
typedef void (*Kernel)(const unsigned*, unsigned*);
static Kernel kernels[FORMS] = {forms<0>, forms<1>, forms<2>, forms<3>, forms<4>, forms<5>, forms<6>, forms<7>, forms<8>, forms<9>, forms<10>, forms<11>, forms<12>, forms<13>, forms<14>, forms<15>, forms<16>, forms<17>, forms<18>, forms<19>, forms<20>, forms<21>, forms<22>, forms<23>, forms<24>, forms<25>, forms<26>, forms<27>, forms<28>, forms<29>, forms<30>, forms<31>};
int main(int argc, char** argv) {
    const int W = 1, words = W * IN_WORDS, outs = W * 128 * OUT_WORDS;
    unsigned *din, *dout;
    cudaMalloc(&din, words * 4);
    cudaMalloc(&dout, outs * 4);
    std::vector<unsigned> h(words), o(outs);
    std::vector<int> seeds;
    for (int i = 1; i < argc; i++) seeds.push_back(atoi(argv[i]));
    if (seeds.empty()) seeds = {21, 22};
    for (int seed : seeds) {
        for (int i = 0; i < words; i++)
            h[i] = (unsigned)(splitmix64((uint64_t)seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) >> 32);
        cudaMemcpy(din, h.data(), words * 4, cudaMemcpyHostToDevice);
        for (int f = 0; f < FORMS; f++) {
            cudaMemset(dout, 0, outs * 4);
            kernels[f]<<<W, 128>>>(din, dout);
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { printf("E %d %d %s\n", seed, f, cudaGetErrorString(e)); continue; }
            cudaMemcpy(o.data(), dout, outs * 4, cudaMemcpyDeviceToHost);
            for (int t = 0; t < W * 128; t++) {
                printf("D %d %d %d", seed, f, t);
                for (int j = 0; j < ND[f]; j++) printf(" %08x", o[t * OUT_WORDS + j]);
                printf("\n");
            }
        }
    }
    return 0;
}
