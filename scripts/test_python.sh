#!/usr/bin/env bash
# The Python package's tests: builds `python/` with pip into a fresh virtual environment
# (target/py-venv; the build in target/python) and runs pytest on python/tests.
#
# What a clean machine may lack makes it say "skipped" and exit 0: a Python 3.10 or newer
# (PYTHON, else python3) that can make a virtual environment, or PyPI (for maturin, pytest,
# numpy, pandas, dask, nbclient, ipykernel). A package that does not build, or a test that
# fails, exits non-zero.
# The tests that compare with the CLI use target/debug/warpsim (built by `cargo test`) or
# WARPSIM_BIN, those that compile CUDA need NVRTC (WARPSIM_NVRTC); each skips without.
set -uo pipefail
cd "$(dirname "$0")/.."
skip() {
    echo "Python tests skipped: $*" >&2
    exit 0
}
py=${PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || skip "no $py"
"$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' || skip "$py is older than 3.10"
venv=target/py-venv
rm -rf "$venv"
"$py" -m venv "$venv" >/dev/null 2>&1 || skip "$py -m venv failed (Debian and Ubuntu: apt install python3-venv)"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install "maturin>=1.5,<2" pytest numpy pandas "dask[distributed]" nbclient ipykernel ||
    skip "pip could not install maturin, pytest, numpy, pandas, dask, nbclient and ipykernel (no network?)"
# (maturin's build backend runs `maturin` from PATH.)
export PATH="$PWD/$venv/bin:$PATH"
export CARGO_TARGET_DIR="$PWD/target/python"
set -e
echo "Python: building the package (pip install ./python) into $venv" >&2
"${pip[@]}" install --no-build-isolation ./python
"$venv/bin/python" -m pytest -q python/tests
