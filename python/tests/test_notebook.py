"""The example notebook runs (with nbclient and ipykernel; skipped without them)."""

import json

import pytest


def test_example_notebook(root, nvrtc):
    nbclient = pytest.importorskip("nbclient")
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(root / "python/examples/warpsim.ipynb", as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(root)}}).execute()
    shown = nb.cells[2].outputs[0]["data"]
    # The report's notebook view: its tables and the chart.
    assert "<table>" in shown["text/html"] and "<svg" in shown["text/html"]
    assert json.dumps(nb.cells[3].outputs[0]["data"]).count("PAD") >= 1
