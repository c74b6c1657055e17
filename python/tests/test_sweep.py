"""warpsim.sweep: locally, on a thread pool and on a Dask LocalCluster, the same rows."""

import concurrent.futures

import numpy as np
import pytest

import warpsim

VARIANTS = [
    {"PAD": 0},
    {"PAD": 1},
    {"PAD": 0, "banks": 16, "bank_bytes": 8},
    {"PAD": 1, "banks": 2048},  # more banks than a GPU may have: a failed row
]


def rows(frame):
    return frame.to_dict("records") if hasattr(frame, "to_dict") else frame


def missing(v):
    """None, or NaN (how a DataFrame holds a missing value)."""
    return v is None or (isinstance(v, float) and v != v)


def same(a, b):
    """Rows equal, NaN (a failed row's counters in a DataFrame) equal to NaN."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.keys() == y.keys()
        for k in x:
            if isinstance(x[k], float) and x[k] != x[k]:
                assert y[k] != y[k], k
            else:
                assert x[k] == y[k], k


def test_local_sweep_equals_single_runs(root):
    prog = root / "programs/transpose.ron"
    table = rows(warpsim.sweep(prog, VARIANTS, defines={"N": 128}))
    assert [r["PAD"] for r in table] == [0, 1, 0, 1]
    for v, r in zip(VARIANTS[:3], table):
        one = warpsim.run(prog, defines={"N": 128, "PAD": v["PAD"]},
                          banks=v.get("banks"), bank_bytes=v.get("bank_bytes"))
        assert r["bank_conflicts"] == one.shared["ld_bank_conflicts"] + one.shared["st_bank_conflicts"]
        assert r["elapsed_cycles"] == one.timing["elapsed_cycles"]
        assert missing(r["error"]) and r["verified"] is True
    assert table[0]["bank_conflicts"] > 0 and table[1]["bank_conflicts"] == 0
    failed = table[3]
    assert failed["error"] and "banks" in failed["error"]
    assert missing(failed["wavefronts"]) and missing(failed["elapsed_cycles"])


def test_executor_sweep_equals_local(root):
    prog = root / "programs/transpose.ron"
    local = rows(warpsim.sweep(prog, VARIANTS, defines={"N": 64}))
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        same(rows(warpsim.sweep(prog, VARIANTS, ex, defines={"N": 64})), local)


def test_dask_sweep_equals_local(root):
    distributed = pytest.importorskip("distributed")
    prog = root / "programs/transpose.ron"
    local = rows(warpsim.sweep(prog, VARIANTS, defines={"N": 64}))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            on_dask = rows(warpsim.sweep(prog, VARIANTS, client.get_executor(), defines={"N": 64}))
    same(on_dask, local)


def launch_transpose(pad, n=64):
    """A kernel call as a sweep target (module level: an executor pickles it)."""
    from test_kernel import TRANSPOSE

    x = np.ones((n, n), np.float32)
    return warpsim.RawKernel(TRANSPOSE, f"transpose<{pad}>")((n // 32, n // 32), (32, 8),
                                                          (x, np.empty_like(x), n))


def test_sweep_of_a_kernel_call(nvrtc):
    vs = [{"pad": 0}, {"pad": 1}, {"pad": 2, "n": 48}]
    local = rows(warpsim.sweep(launch_transpose, vs))
    assert local[0]["bank_conflicts"] > 0 and local[1]["bank_conflicts"] == 0
    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        same(rows(warpsim.sweep(launch_transpose, vs, ex)), local)
