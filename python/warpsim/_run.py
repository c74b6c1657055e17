"""``warpsim.run``: a RON program file, run as ``warpsim run`` runs it."""

import os

from . import _native
from ._options import defines_list, resolve
from ._report import Report


def run(path, defines=None, **options):
    """Loads and runs the RON program at ``path`` with ``defines`` (``{"N": 2048}``, as
    ``-D N=2048``) and ``options`` (see ``warpsim.OPTIONS``); returns a ``Report``.

    Raises ``LoadError`` (the file, line and column), ``CompileError`` (a ``cuda:``
    kernel NVRTC cannot compile: its log) or ``Fault`` (the kernel faulted). A run whose
    buffers differ from their ``expect`` is not an error: ``report.verified`` is False.
    """
    return Report(
        _native.run_file(os.fspath(path), defines_list(defines), resolve(options))
    )
