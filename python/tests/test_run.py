"""warpsim.run on RON programs: the report equals the CLI's; the report's views."""

import json

import pytest

import warpsim


def without_speed(d):
    """A JSON report without what differs from run to run (the emulator's speed)."""
    d = dict(d)
    d.pop("emulator")
    return d


def test_run_equals_cli(root, cli):
    prog = root / "programs/transpose.ron"
    for pad in (0, 1):
        rep = warpsim.run(prog, defines={"N": 256, "PAD": pad})
        want = cli(prog, "-D", "N=256", "-D", f"PAD={pad}")
        got = rep.to_dict()
        # The file as given: the CLI was given it relative to the repository.
        got["file"] = want["file"]
        assert without_speed(got) == without_speed(want)
        assert rep.verified is True
    # Bank geometry and timing options, with the CLI's names.
    rep = warpsim.run(prog, defines={"N": 128}, banks=16, bank_bytes=8, timing=False)
    want = cli(prog, "-D", "N=128", "--banks", "16", "--bank-bytes", "8", "--no-timing")
    assert rep.shared == want["shared"]
    assert rep.timing is None and want["timing"] is None


def test_report_views(root):
    rep = warpsim.run(root / "programs/transpose.ron", defines={"N": 128})
    s = rep.shared
    # The naive tile: every shared load is a 32-way conflict.
    assert s["ld_bank_conflicts"] == s["ld_instructions"] * 31 > 0
    assert rep.timing["elapsed_cycles"] > 0
    lines = rep.lines
    rows = lines.to_dict("records") if hasattr(lines, "to_dict") else lines
    assert [r["space"] for r in rows] == ["global", "shared", "shared", "global"]
    assert rows[2]["bank_conflicts"] == s["ld_bank_conflicts"]
    assert rep.svg().lstrip().startswith("<svg")
    html = rep._repr_html_()
    assert "<table>" in html and "<svg" in html
    assert "ld_bank_conflicts" in str(rep) or "conflict" in str(rep)
    assert "verified=True" in repr(rep)


def test_verified_false_is_not_an_error(root, tmp_path):
    src = (root / "programs/transpose.ron").read_text()
    bad = tmp_path / "wrong.ron"
    bad.write_text(src.replace('expect: "inp[(i % N) * N + i / N]"', 'expect: "inp[i]"'))
    assert warpsim.run(bad, defines={"N": 64}).verified is False
    assert warpsim.run(bad, defines={"N": 64}, verify=False).verified is None


def test_lists_without_pandas(root, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now fails
    prog = root / "programs/transpose.ron"
    lines = warpsim.run(prog, defines={"N": 64}, timing=False).lines
    assert isinstance(lines, list) and lines[0]["space"] == "global"
    assert lines[0]["stall_cycles"] is None
    rows = warpsim.sweep(prog, [{"PAD": 0}], defines={"N": 64})
    assert isinstance(rows, list) and rows[0]["PAD"] == 0


def test_the_native_functions_take_one_options_dict(root):
    """Every native function takes the run options as one dict (``Opts`` in python/src):
    ``banks``, ``bank_bytes``, ``racecheck`` and ``max_steps`` may be missing; ``gpu``,
    ``timing`` and ``verify`` may not."""
    from warpsim import _native

    prog = str(root / "programs/transpose.ron")
    short = {"gpu": "h200", "timing": False, "verify": True}
    full = warpsim.run(prog, defines={"N": 64}, timing=False)
    rep = warpsim.Report(_native.run_file(prog, [("N", 64)], short))
    assert without_speed(rep.to_dict()) == without_speed(full.to_dict())
    with pytest.raises(Exception, match="timing"):
        _native.run_file(prog, [], {"gpu": "h200", "verify": True})
    # A sweep row's counters are the Rust crate's (experiment::SWEEP_COUNTERS).
    row = json.loads(rep._native.sweep_row())
    assert warpsim._sweep.ROW_COUNTERS == [*_native.SWEEP_COUNTERS, "error"]
    assert set(row) >= set(warpsim._sweep.ROW_COUNTERS) and row["error"] is None
    assert row["bank_conflicts"] == rep.shared["ld_bank_conflicts"] + rep.shared["st_bank_conflicts"]
