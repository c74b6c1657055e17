"""PTX from Numba and Triton through RawModule (the PTX is checked in under ptx/, made by
ptx/make_ptx.py as ptx/README.md says: neither compiler is needed here)."""

import json
import pathlib
import re

import numpy as np
import pytest

import warpsim

PTX = pathlib.Path(__file__).resolve().parent / "ptx"
#: Triton's launch metadata of each kernel: num_warps and shared (bytes).
TRITON = json.loads((PTX / "triton_launch.json").read_text())


def kernel(name, **kw):
    """The only kernel of ptx/NAME.ptx, from its text (``ptx=``) or its path (``path=``)."""
    text = (PTX / f"{name}.ptx").read_text()
    entry = re.search(r"\.entry\s+(\w+)", text).group(1)
    module = warpsim.RawModule(path=PTX / f"{name}.ptx") if kw.get("path") else warpsim.RawModule(ptx=text)
    return module.get_function(entry)


def triton_launch(name):
    """Triton's block (32 x num_warps threads) and dynamic shared memory for kernel NAME."""
    m = TRITON[name]
    return 32 * m["num_warps"], m["shared"]


def test_numba_args_is_numbas_array_abi():
    x = np.zeros((3, 5), np.float32)
    a = warpsim.numba_args(np.float32(2), x)
    assert a[0] == 2 and a[1:5] == (0, 0, 15, 4)
    assert a[5] is x and a[6:] == (3, 5, 20, 4)


def test_numba_axpy():
    n = 1000
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.zeros(n, np.float32)
    rep = kernel("numba_axpy")((n + 255) // 256, 256, warpsim.numba_args(np.float32(2.5), x, y, out))
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6, atol=1e-6)
    # Global memory only: no shared accesses; the timing model ran.
    assert rep.shared["ld_instructions"] == rep.shared["st_instructions"] == 0
    assert rep.timing["elapsed_cycles"] > 0


def test_numba_block_sum_in_shared_memory():
    n, blocks = 1000, 4
    x = np.random.default_rng(1).standard_normal(n, np.float32)
    out = np.zeros(blocks, np.float32)
    rep = kernel("numba_block_sum", path=True)(blocks, 256, warpsim.numba_args(x, out))
    want = np.add.reduceat(np.pad(x, (0, 24)).astype(np.float64), range(0, 1024, 256))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    s = rep.shared
    # The tree: 256 stores, then 8 halving steps (4, 2, 1, … warps) of two loads and a
    # store, and thread 0's final load; s[t] and s[t + step] never share a bank.
    steps = 4 + 2 + 6 * 1
    assert s["ld_instructions"] == blocks * (2 * steps + 1)
    assert s["st_instructions"] == blocks * (8 + steps)
    assert s["ld_bank_conflicts"] == s["st_bank_conflicts"] == 0
    # With path=, make_ptx.py sits beside the PTX: the lines are Numba's Python source.
    texts = {r["text"] for r in rep.to_dict()["per_instruction"]}
    assert any("s[t] += s[t + step]" in t for t in texts), texts


def test_triton_axpy_vector_loads():
    n = 4096
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal(n, np.float32), rng.standard_normal(n, np.float32)
    out = np.zeros(n, np.float32)
    block, shared = triton_launch("axpy")
    # The last two parameters are Triton's scratch pointers (unused here): 0.
    rep = kernel("triton_axpy")(n // 1024, block, (x, y, out, 2.5, n, 0, 0), shared_mem=shared)
    np.testing.assert_allclose(out, np.float32(2.5) * x + y, rtol=1e-6, atol=1e-6)
    ops = [(r["op"], r["width"]) for r in rep.to_dict()["per_instruction"]]
    assert ops.count(("ld", 16)) == 4 and ops.count(("st", 16)) == 2, ops


def test_triton_row_sum():
    rows, cols = 8, 1000
    x = np.random.default_rng(3).standard_normal((rows, cols), np.float32)
    out = np.zeros(rows, np.float32)
    block, shared = triton_launch("row_sum")
    assert shared == 16  # one float a warp
    rep = kernel("triton_row_sum")(rows, block, (x, out, cols, 0, 0), shared_mem=shared)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    s = rep.shared
    assert s["st_instructions"] == s["ld_instructions"] == rows * 4
    assert s["ld_bank_conflicts"] == 0


def test_triton_block_must_match_reqntid():
    x = np.zeros(4096, np.float32)
    with pytest.raises(warpsim.LoadError, match=r"exactly \(128, 1, 1\) threads"):
        kernel("triton_axpy")(4, 256, (x, x.copy(), x.copy(), 2.5, 4096, 0, 0))
