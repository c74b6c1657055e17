"""warpsim from Python: CUDA and PTX kernels run on a warp-level emulator of the H200, with
its shared-memory bank conflicts exact and a timing model, no GPU needed.

* ``RawKernel``/``RawModule``: CuPy's kernel API; NumPy arrays stand for device buffers;
  PTX from Numba (``numba_args`` passes arrays as Numba's PTX takes them) or Triton runs too.
* ``run``: a RON program file, as ``warpsim run`` runs it.
* ``sweep``: variants of a program or a kernel call, locally or on any
  ``concurrent.futures.Executor`` (a Dask cluster's, for one).
* ``Report``: what a run found; ``Error`` and its ``LoadError``, ``CompileError``, ``Fault``.
"""

from ._native import CompileError, Error, Fault, LoadError
from ._options import OPTIONS
from ._report import Report
from ._run import run
from ._kernel import RawKernel, RawModule, numba_args
from ._sweep import sweep

__all__ = [
    "CompileError",
    "Error",
    "Fault",
    "LoadError",
    "OPTIONS",
    "RawKernel",
    "RawModule",
    "Report",
    "numba_args",
    "run",
    "sweep",
]
__version__ = "0.1.0"
