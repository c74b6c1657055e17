"""``warpsim.sweep``: variants of a RON program or of a kernel call, one row each."""

import json
import os

from . import _native
from ._options import defines_list, resolve
from ._report import _frame

#: The counters of a row (``warpsim sweep --format json``'s keys, from the Rust crate's
#: ``experiment::SWEEP_COUNTERS``) and ``error``; a failed variant has them None and its
#: ``error`` set, never zeros.
ROW_COUNTERS = [*_native.SWEEP_COUNTERS, "error"]

_SWEEP_OPTIONS = {k: v for k, v in resolve({}).items() if k != "racecheck"}
_GEOMETRY = ("banks", "bank_bytes")


def _split(variant):
    """A variant dict → (banks, bank_bytes, defines)."""
    if not hasattr(variant, "items"):
        raise TypeError(f"a variant is a dict such as {{'N': 1024, 'banks': 16}}, not {variant!r}")
    defs = {k: v for k, v in variant.items() if k not in _GEOMETRY}
    return variant.get("banks"), variant.get("bank_bytes"), defines_list(defs)


def _file_rows(path, variants, defines, o):
    """Rows of variants of the RON program at ``path`` (the native sweep, in parallel)."""
    vs = []
    for v in variants:
        banks, bank_bytes, defs = _split(v)
        vs.append((
            o["banks"] if banks is None else banks,
            o["bank_bytes"] if bank_bytes is None else bank_bytes,
            defs,
        ))
    rows = _native.sweep_file(path, vs, defines, o)
    out = []
    for text in rows:
        r = json.loads(text)
        row = {"banks": r["banks"], "bank_bytes": r["bank_bytes"]}
        row.update(r.get("defines") or {})
        row.update({k: r.get(k) for k in ROW_COUNTERS})
        out.append(row)
    return out


def _file_one(path, variant, defines, o):
    """One variant's row (what an executor's task runs)."""
    return _file_rows(path, [variant], defines, o)[0]


def _call_one(target, variant):
    """One variant of a callable target: ``target(**variant)`` gives a Report."""
    from ._native import Error

    row = dict(variant)
    try:
        rep = target(**variant)
        counters = json.loads(rep._native.sweep_row())
        row.update({k: counters[k] for k in ROW_COUNTERS})
    except Error as e:
        row.update({k: None for k in ROW_COUNTERS})
        row["error"] = str(e)
    return row


def sweep(target, variants, executor=None, *, defines=None, **options):
    """Runs every variant of ``target`` and gives one row per variant, in order (a pandas
    DataFrame when pandas is installed, else a list of dicts).

    ``target``: a RON program's path, each variant a dict of defines and bank geometry
    (``{"N": 1024, "PAD": 1, "banks": 16, "bank_bytes": 8}``; ``defines`` are the others'
    values), or a callable, called as ``target(**variant)`` and returning a ``Report`` (a
    function launching a ``RawKernel``, say). A variant that fails is a row with ``error``
    set and its counters None, never zeros.

    ``executor``: None runs the variants here (a program's on the Rust thread pool, in
    parallel); any ``concurrent.futures.Executor`` (``distributed.Client(...).get_executor()``
    for a Dask cluster) gets one task per variant. The rows are the same either way.
    ``options``: ``gpu``, ``timing``, ``verify``, ``max_steps``, and ``banks``/``bank_bytes``
    for the variants that do not set them.
    """
    variants = list(variants)
    if callable(target):
        if defines is not None or options:
            raise TypeError("a callable target takes its settings from the variants alone")
        if executor is None:
            rows = [_call_one(target, v) for v in variants]
        else:
            rows = [f.result() for f in [executor.submit(_call_one, target, v) for v in variants]]
    else:
        o = resolve(options, _SWEEP_OPTIONS)
        path = os.path.abspath(os.fspath(target))
        defs = defines_list(defines)
        for v in variants:
            _split(v)  # a malformed variant is an error before anything runs
        if executor is None:
            rows = _file_rows(path, variants, defs, o) if variants else []
        else:
            futures = [executor.submit(_file_one, path, v, defs, o) for v in variants]
            rows = [f.result() for f in futures]
    return _frame(rows)
