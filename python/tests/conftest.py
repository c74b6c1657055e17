"""Shared fixtures: the repository, the CLI binary, NVRTC."""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import warpsim

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: A kernel to find out whether NVRTC is there.
_PROBE = 'extern "C" __global__ void probe(float* x) { x[threadIdx.x] = 1.0f; }'


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def nvrtc():
    """Skips a test that needs NVRTC where it cannot be opened (WARPSIM_NVRTC, or
    `pip install nvidia-cuda-nvrtc-cu12`)."""
    try:
        warpsim.RawKernel(_PROBE, "probe")(1, 32, (np.zeros(32, np.float32),), timing=False)
    except warpsim.LoadError as e:
        if "NVRTC (libnvrtc)" in str(e):
            pytest.skip("NVRTC is not installed: " + str(e).splitlines()[0])
        raise


@pytest.fixture(scope="session")
def cli():
    """Runs the `warpsim` binary (WARPSIM_BIN, else target/release or target/debug) and
    gives its JSON; skips where it is not built."""
    env = os.environ.get("WARPSIM_BIN")
    candidates = [env] if env else [ROOT / "target/release/warpsim", ROOT / "target/debug/warpsim"]
    found = [c for c in candidates if c and pathlib.Path(c).is_file()]
    if not found:
        pytest.skip("the warpsim binary is not built (cargo build, or set WARPSIM_BIN)")
    binary = str(found[0])

    def run(*args):
        p = subprocess.run(
            [binary, "run", "--format", "json", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        assert p.returncode in (0, 1), p.stderr
        return json.loads(p.stdout)

    return run
