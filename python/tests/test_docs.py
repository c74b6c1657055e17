"""The README's Python example runs as written (from the repository root)."""

import os
import re


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
