"""The options every run takes, with the CLI's names."""

#: Each option and its default: ``timing`` (the cycle model; ``--no-timing`` is
#: ``timing=False``), ``gpu`` (a preset name or a GPU description file), ``banks`` and
#: ``bank_bytes`` (the bank geometry; None: the GPU's), ``racecheck``, ``verify`` (check the
#: buffers' ``expect``; ``--no-verify`` is ``verify=False``), ``max_steps`` (None: the CLI's
#: default).
OPTIONS = {
    "timing": True,
    "gpu": "h200",
    "banks": None,
    "bank_bytes": None,
    "racecheck": False,
    "verify": True,
    "max_steps": None,
}


def resolve(options, allowed=OPTIONS):
    """The options with their defaults; a name not among ``allowed`` is a TypeError."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise TypeError(
            f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"the options are {', '.join(allowed)}"
        )
    out = {k: allowed[k] for k in allowed}
    out.update(options)
    for k in ("banks", "bank_bytes", "max_steps"):
        v = out.get(k)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise TypeError(f"option {k}={v!r}: expected a whole number or None")
    if not isinstance(out["gpu"], str):
        out["gpu"] = str(out["gpu"])
    for k in ("timing", "racecheck", "verify"):
        if k in out:
            out[k] = bool(out[k])
    return out


def defines_list(defines):
    """``{"N": 1024}`` (or pairs) as a list of (name, int); a value that is not an integer
    is a TypeError."""
    if defines is None:
        return []
    items = defines.items() if hasattr(defines, "items") else defines
    out = []
    for name, value in items:
        if isinstance(value, bool) or not hasattr(value, "__index__"):
            raise TypeError(f"define {name}={value!r}: expected an integer")
        out.append((str(name), int(value)))
    return out
