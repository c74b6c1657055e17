"""Errors are exceptions under warpsim.Error, with where and what to change."""

import numpy as np
import pytest

import warpsim


def test_load_error_has_file_line_col(tmp_path):
    p = tmp_path / "bad.ron"
    p.write_text('Program(\n    name: "x",\n    launch: (grid: [1], block: [32]),\n    body: [Let("a", "nope + 1")],\n)\n')
    with pytest.raises(warpsim.LoadError) as e:
        warpsim.run(p)
    err = e.value
    assert isinstance(err, warpsim.Error)
    assert err.file == str(p)
    assert err.line == 4 and err.col > 1
    assert "nope" in str(err)


def test_missing_file_and_bad_define(root, tmp_path):
    with pytest.raises(warpsim.LoadError):
        warpsim.run(tmp_path / "none.ron")
    with pytest.raises(TypeError):
        warpsim.run(root / "programs/transpose.ron", defines={"N": 1.5})
    with pytest.raises(TypeError, match="unknown option"):
        warpsim.run(root / "programs/transpose.ron", bankz=16)
    with pytest.raises(warpsim.LoadError, match="banks"):
        warpsim.run(root / "programs/transpose.ron", banks=2048)


def test_compile_error_has_the_log(nvrtc):
    k = warpsim.RawKernel('extern "C" __global__ void f(float* x) {\n  x[0] = y;\n}\n', "f")
    with pytest.raises(warpsim.CompileError) as e:
        k(1, 32, (np.zeros(32, np.float32),))
    assert e.value.line == 2
    assert e.value.log and "identifier" in e.value.log


def test_fault_has_the_source_line(nvrtc):
    code = 'extern "C" __global__ void f(float* x) {\n  x[threadIdx.x + 100000] = 1.0f;\n}\n'
    with pytest.raises(warpsim.Fault) as e:
        warpsim.RawKernel(code, "f")(1, 32, (np.zeros(32, np.float32),), timing=False)
    assert e.value.line == 2


def test_argument_errors(nvrtc):
    code = 'extern "C" __global__ void f(float* x, int n) { if (threadIdx.x < n) x[threadIdx.x] = 1.0f; }'
    k = warpsim.RawKernel(code, "f")
    x = np.zeros(32, np.float32)
    with pytest.raises(warpsim.LoadError, match="parameter 1 .*pointer"):
        k(1, 32, (3, 32))
    with pytest.raises(ValueError, match="C-contiguous"):
        k(1, 32, (np.zeros((8, 8), np.float32)[:, ::2], 32))
    ro = np.zeros(32, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        k(1, 32, (ro, 32))
    with pytest.raises(TypeError, match="int64"):
        k(1, 32, (np.zeros(32, np.int64), 32))
    with pytest.raises(warpsim.LoadError, match="integer"):
        k(1, 32, (x, 1.5))
    with pytest.raises(warpsim.LoadError, match="takes 2 parameters"):
        k(1, 32, (x,))
    with pytest.raises(ValueError, match="not supported"):
        warpsim.RawKernel(code, "f", options=("--use_fast_math",))
