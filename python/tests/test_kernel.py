"""RawKernel and RawModule: CuPy's kernel API on NumPy arrays."""

import numpy as np
import pytest

import warpsim

TRANSPOSE = r"""
template <int PAD>
__global__ void transpose(const float* in, float* out, int n) {
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
"""


@pytest.mark.parametrize("pad", [0, 1])
def test_transpose_equals_x_t(nvrtc, pad):
    n = 128
    x = np.random.default_rng(pad).standard_normal((n, n)).astype(np.float32)
    out = np.zeros_like(x)
    k = warpsim.RawKernel(TRANSPOSE, f"transpose<{pad}>")
    rep = k((n // 32, n // 32), (32, 8), (x, out, n))
    np.testing.assert_array_equal(out, x.T)
    s = rep.shared
    assert s["ld_instructions"] == (n // 32) ** 2 * 8 * 4
    # The naive tile reads a column: 32-way conflicts; the padded one none.
    assert s["ld_bank_conflicts"] == (s["ld_instructions"] * 31 if pad == 0 else 0)


def test_counters_and_time_equal_the_cli(root, nvrtc, cli):
    module = warpsim.RawModule(path=root / "programs/cuda/kernels.cu")
    n = 256
    for tile, name in (("32x32", "transpose<0,false>"), ("32x33", "transpose<1,false>")):
        x = np.zeros((n, n), np.float32)
        rep = module.get_function(name)((n // 32, n // 32), (32, 8), (x, np.empty_like(x), n))
        want = cli(root / f"programs/cuda/transpose_n1024_tile{tile}.cu.ron", "-D", f"N={n}")
        assert rep.shared == want["shared"]
        got = rep.to_dict()
        assert got["stall_cycles"] == want["stall_cycles"]
        assert rep.timing == want["timing"]
        # Per instruction: the same counters at the same .cu lines (the buffers' names
        # differ: arg0, arg1 for the arrays).
        key = ("line", "col", "space", "op", "executions", "wavefronts", "bank_conflicts")
        assert [tuple(i[k] for k in key) for i in got["per_instruction"]] == [
            tuple(i[k] for k in key) for i in want["per_instruction"]
        ]


def test_scalars_are_typed_from_the_parameters(nvrtc):
    code = r"""
    extern "C" __global__ void axpy(float a, const float* x, float* y, int n, double b) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + y[i] + (float)b;
    }
    """
    n = 100
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    k = warpsim.RawModule(code=code).get_function("axpy")
    # A float parameter given 2 gets 2.0f; a double given np.float32(0.5) 0.5.
    k((2,), (64,), (2, x, y, np.int32(n), np.float32(0.5)), timing=False)
    np.testing.assert_array_equal(y, 2 * np.arange(n, dtype=np.float32) + 1.5)


def test_narrow_and_double_buffers(nvrtc):
    code = r"""
    extern "C" __global__ void f(unsigned char* b, double* d, short* s) {
        int i = threadIdx.x;
        b[i] = (unsigned char)(b[i] + 1);
        d[i] = d[i] * 2.0;
        s[i] = (short)(-s[i]);
    }
    """
    b = np.arange(37, dtype=np.uint8)
    d = np.linspace(0, 1, 37)
    s = np.arange(37, dtype=np.int16)
    warpsim.RawKernel(code, "f")(1, 37, (b, d, s), timing=False)
    np.testing.assert_array_equal(b, np.arange(1, 38, dtype=np.uint8))
    np.testing.assert_array_equal(d, 2 * np.linspace(0, 1, 37))
    np.testing.assert_array_equal(s, -np.arange(37, dtype=np.int16))


def test_ptx_text(root, nvrtc):
    ptx = (root / "programs/cuda/kernels.ptx").read_text()
    k = warpsim.RawModule(ptx=ptx).get_function("_Z6matmulILi32ELi0ELb0EEvPKfS1_Pfi")
    n = 64
    a = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    k((n // 32, n // 32), (32, 32), (a, b, c, n), timing=False)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_the_example_runs(root, nvrtc):
    import subprocess
    import sys

    p = subprocess.run([sys.executable, str(root / "python/examples/transpose.py")],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("PAD=0: 63488 load bank conflicts"), lines
    assert lines[1].startswith("PAD=1: 0 load bank conflicts"), lines


def test_include_folders_come_from_dash_i(nvrtc, tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "scale.h").write_text("#define SCALE 3.0f\n")
    code = r"""
    #include "scale.h"
    extern "C" __global__ void scale(float* x) { x[threadIdx.x] *= SCALE; }
    """
    x = np.ones(32, np.float32)
    # A header outside the source's folder and the toolkit's is refused at its line...
    with pytest.raises(warpsim.LoadError, match="scale.h"):
        warpsim.RawKernel(code, "scale")(1, 32, (x,), timing=False)
    # ... and found in a folder named with -I.
    for opts in ((f"-I{inc}",), ("-I", str(inc)), (f"--include-path={inc}",)):
        x = np.ones(32, np.float32)
        warpsim.RawKernel(code, "scale", options=opts)(1, 32, (x,), timing=False)
        np.testing.assert_array_equal(x, np.full(32, 3.0, np.float32))
    with pytest.raises(ValueError, match="is not a folder"):
        warpsim.RawKernel(code, "scale", options=(f"-I{tmp_path / 'none'}",))


def test_constant_symbols_keep_their_initialisers_and_take_fills(nvrtc):
    code = r"""
    __constant__ float c_scale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    __constant__ int c_off;
    extern "C" __global__ void apply(float* x) {
        int i = threadIdx.x;
        x[i] = x[i] * c_scale[i % 4] + (float)c_off;
    }
    """
    k = warpsim.RawKernel(code, "apply")
    x = np.ones(32, np.float32)
    rep = k(1, 32, (x,), timing=False)
    np.testing.assert_array_equal(x, np.tile(np.float32([1, 2, 3, 4]), 8))
    assert rep.to_dict()["constant"]["ldc_instructions"] == 1
    x = np.ones(32, np.float32)
    k(1, 32, (x,), constants={"c_scale": np.float32([5, 6, 7, 8]), "c_off": np.int32([10])},
      timing=False)
    np.testing.assert_array_equal(x, np.tile(np.float32([15, 16, 17, 18]), 8))
    with pytest.raises(warpsim.LoadError, match="c_nope"):
        k(1, 32, (x,), constants={"c_nope": np.float32([1])}, timing=False)
