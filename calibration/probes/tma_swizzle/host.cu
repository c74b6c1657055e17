// calibration/probes/tma_swizzle: where a TMA tensor copy (cp.async.bulk.tensor, tile mode,
// global -> shared) puts every element of its box in shared memory, per swizzle mode, and what
// it writes for elements outside the tensor (fill none; f32 with the NaN fill).
//
//   host CASES [NAME]      every case of CASES (cases.txt), or only NAME
//
// Per case: a tensor (element i holds i as u32, or i + 0.25f as f32), a tensor map from
// cuTensorMapEncodeTiled, and one block of `dump`: the 4 KiB shared region (1024-aligned) is
// set to 0xdeadbeef, thread 0 inits an mbarrier, arrives with expect_tx = box bytes and issues
// the copy to base + soff, every thread waits on the barrier (try_wait.parity, bounded), and the
// shared words from base + soff are copied out as they lie: max(box bytes, rows x swizzle span)
// bytes (so rows padded to the span show). Output, one line a case (predict.py writes the same):
//   case NAME swizzle S box BWxBH[xBD] at X0,Y0[,Z0] words w0 w1 ...   (hex)
//   # NAME shared 0x.. dtype .. fill ..      the box's shared address
//   # NAME TIMEOUT | ENCODE rc text | FAULT text
// Exit status: 0, 3 a CUDA fault (the context is lost: run.sh reruns the rest one by one), 2 usage.
#ifndef __CUDACC_RTC__  // (the device part alone also compiles under NVRTC, for checking)
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#endif

#define BUF 4096                // bytes of the dump region
#define SENTINEL 0xdeadbeefu    // every shared word of the region before the copy
#define TRIES (1 << 20)         // try_wait attempts before giving up (a hang is reported)

__global__ void dump(const __grid_constant__ CUtensorMap m, int rank, int x0, int y0, int z0,
                     unsigned soff, unsigned box_bytes, unsigned words, unsigned* out) {
    __shared__ __align__(1024) unsigned char raw[BUF + 1024];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned ra = (unsigned)__cvta_generic_to_shared(raw);
    const unsigned base = (ra + 1023u) & ~1023u;
    unsigned* w = (unsigned*)(raw + (base - ra));
    for (unsigned i = threadIdx.x; i < BUF / 4; i += blockDim.x) w[i] = SENTINEL;
    // The generic proxy's writes before the async proxy's.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar), dst = base + soff;
    const unsigned long long map = (unsigned long long)&m;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(box_bytes)
                     : "memory");
        if (rank == 2)
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                "l"(map), "r"(x0), "r"(y0), "r"(b)
                : "memory");
        else
            asm volatile(
                "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(dst),
                "l"(map), "r"(x0), "r"(y0), "r"(z0), "r"(b)
                : "memory");
    }
    __syncthreads();
    unsigned ok = 0;
    for (int i = 0; i < TRIES && !ok; i++)
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(ok)
            : "r"(b)
            : "memory");
    for (unsigned i = threadIdx.x; i < words; i += blockDim.x) out[i] = w[soff / 4 + i];
    if (!ok) out[words] = 0xdead0000u;
    if (threadIdx.x == 0) out[words + 1] = dst;
}

#ifndef __CUDACC_RTC__
struct Case {
    std::string name, dtype, fill;
    int swz = 0, rank = 2;
    long long dim[3] = {1, 1, 1};
    unsigned box[3] = {1, 1, 1};
    int at[3] = {0, 0, 0};
    unsigned soff = 0;
};

static int fault(const Case& c, const char* where, cudaError_t e) {
    printf("# %s FAULT %s %s\n", c.name.c_str(), where, cudaGetErrorString(e));
    fflush(stdout);
    return 3;
}

// 0 done (a line or an ENCODE note), 3 a CUDA fault.
static int run_case(const Case& c, unsigned* dout) {
    const long long n = c.dim[0] * c.dim[1] * c.dim[2];
    std::vector<unsigned> h(n);
    for (long long i = 0; i < n; i++) {
        if (c.dtype == "f32") {
            float f = (float)i + 0.25f;
            memcpy(&h[i], &f, 4);
        } else {
            h[i] = (unsigned)i;
        }
    }
    void* dt = nullptr;
    cudaError_t e = cudaMalloc(&dt, n * 4);
    if (e != cudaSuccess) return fault(c, "malloc", e);
    e = cudaMemcpy(dt, h.data(), n * 4, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) return fault(c, "copy", e);

    CUtensorMap m;
    memset(&m, 0, sizeof m);
    cuuint64_t gdim[3] = {(cuuint64_t)c.dim[0], (cuuint64_t)c.dim[1], (cuuint64_t)c.dim[2]};
    cuuint64_t gstride[2] = {(cuuint64_t)(c.dim[0] * 4), (cuuint64_t)(c.dim[0] * c.dim[1] * 4)};
    cuuint32_t box[3] = {c.box[0], c.box[1], c.box[2]};
    cuuint32_t estride[3] = {1, 1, 1};
    CUtensorMapSwizzle sw = c.swz == 32    ? CU_TENSOR_MAP_SWIZZLE_32B
                            : c.swz == 64  ? CU_TENSOR_MAP_SWIZZLE_64B
                            : c.swz == 128 ? CU_TENSOR_MAP_SWIZZLE_128B
                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMapDataType dtype =
        c.dtype == "f32" ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : CU_TENSOR_MAP_DATA_TYPE_UINT32;
    CUtensorMapFloatOOBfill fill = c.fill == "nan" ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                                   : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    CUresult r = cuTensorMapEncodeTiled(&m, dtype, (cuuint32_t)c.rank, dt, gdim, gstride, box, estride,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
    if (r != CUDA_SUCCESS) {
        const char* s = "?";
        cuGetErrorString(r, &s);
        printf("# %s ENCODE %d %s\n", c.name.c_str(), (int)r, s);
        fflush(stdout);
        cudaFree(dt);
        return 0;
    }
    const unsigned rows = c.box[1] * c.box[2];
    const unsigned box_bytes = c.box[0] * rows * 4;
    unsigned bytes = rows * (unsigned)c.swz;
    if (bytes < box_bytes) bytes = box_bytes;
    const unsigned words = bytes / 4;
    if (c.soff + bytes > BUF) {
        printf("# %s USAGE the dump passes %d bytes\n", c.name.c_str(), BUF);
        return 0;
    }
    e = cudaMemset(dout, 0, (BUF / 4 + 2) * 4);
    if (e != cudaSuccess) return fault(c, "memset", e);
    dump<<<1, 128>>>(m, c.rank, c.at[0], c.at[1], c.at[2], c.soff, box_bytes, words, dout);
    e = cudaGetLastError();
    if (e != cudaSuccess) return fault(c, "launch", e);
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return fault(c, "sync", e);
    std::vector<unsigned> o(words + 2);
    e = cudaMemcpy(o.data(), dout, (words + 2) * 4, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) return fault(c, "copy back", e);
    printf("case %s swizzle %d box %ux%u", c.name.c_str(), c.swz, c.box[0], c.box[1]);
    if (c.rank == 3) printf("x%u", c.box[2]);
    printf(" at %d,%d", c.at[0], c.at[1]);
    if (c.rank == 3) printf(",%d", c.at[2]);
    printf(" words");
    for (unsigned i = 0; i < words; i++) printf(" %08x", o[i]);
    printf("\n# %s shared 0x%x dtype %s fill %s\n", c.name.c_str(), o[words + 1], c.dtype.c_str(),
           c.fill.c_str());
    if (o[words]) printf("# %s TIMEOUT\n", c.name.c_str());
    fflush(stdout);
    cudaFree(dt);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: host CASES [NAME]\n");
        return 2;
    }
    std::vector<Case> cases;
    std::ifstream f(argv[1]);
    std::string line;
    while (std::getline(f, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream is(line);
        Case c;
        is >> c.name >> c.dtype >> c.fill >> c.swz >> c.rank >> c.dim[0] >> c.dim[1] >> c.dim[2] >>
            c.box[0] >> c.box[1] >> c.box[2] >> c.at[0] >> c.at[1] >> c.at[2] >> c.soff;
        if (is.fail()) {
            fprintf(stderr, "bad line: %s\n", line.c_str());
            return 2;
        }
        if (argc < 3 || c.name == argv[2]) cases.push_back(c);
    }
    if (cases.empty()) {
        fprintf(stderr, "no case\n");
        return 2;
    }
    unsigned* dout = nullptr;
    cudaError_t e = cudaMalloc(&dout, (BUF / 4 + 2) * 4);
    if (e != cudaSuccess) return fault(cases[0], "malloc", e);
    for (const Case& c : cases)
        if (run_case(c, dout)) return 3;
    return 0;
}
#endif
