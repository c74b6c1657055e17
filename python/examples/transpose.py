"""The README's Python example: a CUDA transpose on NumPy arrays, naive and padded tile.

Run: python python/examples/transpose.py (needs NVRTC: pip install nvidia-cuda-nvrtc-cu12).
"""

import numpy as np

import warpsim  # in place of `import cupy`

code = r"""
template <int PAD>
__global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}"""
n = 256
x = np.random.rand(n, n).astype(np.float32)
for pad in (0, 1):
    out = np.empty_like(x)
    report = warpsim.RawKernel(code, f"transpose<{pad}>")((n // 32, n // 32), (32, 8), (x, out, n))
    assert (out == x.T).all()
    print(f"PAD={pad}: {report.shared['ld_bank_conflicts']} load bank conflicts, "
          f"{report.timing['duration_ns']:.0f} ns")
