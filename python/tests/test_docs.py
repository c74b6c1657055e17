"""The README's Python example runs as written (from the repository root), and the book's
Numba example where Numba is installed."""

import os
import re

import pytest


def test_readme_example(root, nvrtc, capsys):
    text = (root / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)
    assert len(blocks) == 1
    here = os.getcwd()
    os.chdir(root)
    try:
        exec(compile(blocks[0], "README.md", "exec"), {})
    finally:
        os.chdir(here)
    conflicts, ns = capsys.readouterr().out.split()
    assert int(conflicts) == 1015808 and float(ns) > 0


def test_book_numba_example(root):
    """The book's Numba example (docs/src/python.md), where Numba and its NVVM are installed
    (not on CI: python/tests/test_jit.py runs the same kind of PTX, checked in)."""
    cuda = pytest.importorskip("numba.cuda")
    try:
        cuda.compile_ptx(lambda: None, (), cc=(9, 0))
    except Exception as e:  # no libnvvm, say
        pytest.skip(f"Numba cannot compile PTX here: {e}")
    text = (root / "docs/src/python.md").read_text()
    section = text.split("## PTX from Numba and Triton", 1)[1]
    block = re.search(r"^```python\n(.*?)^```$", section, re.S | re.M).group(1)
    exec(compile(block, "docs/src/python.md", "exec"), {})
