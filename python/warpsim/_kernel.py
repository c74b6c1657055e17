"""CuPy's kernel API: ``RawModule``, ``RawKernel``; NumPy arrays stand for device buffers."""

import os
import re
import shutil
import tempfile
import weakref

import numpy as np

from . import _native
from ._options import resolve
from ._report import Report

#: NumPy dtypes and warpsim's element types.
DTYPES = {
    np.dtype(np.float32): "F32",
    np.dtype(np.float64): "F64",
    np.dtype(np.uint32): "U32",
    np.dtype(np.int32): "I32",
    np.dtype(np.uint8): "U8",
    np.dtype(np.int8): "I8",
    np.dtype(np.uint16): "U16",
    np.dtype(np.int16): "I16",
    np.dtype(np.float16): "F16",
}

# NVRTC options warpsim always uses (README, "CUDA kernels"): accepted, nothing to do.
_DEFAULT_OPTIONS = {"-std=c++17", "--std=c++17", "-lineinfo", "--generate-line-info"}


def _macros(options):
    """``-DNAME=VALUE`` options as (name, int) pairs and ``-I DIR`` options as absolute folder
    names; any other option is a ValueError."""
    out, dirs = [], []
    opts = list(options)
    i = 0
    while i < len(opts):
        o = str(opts[i])
        if o in ("-D", "--define-macro", "-I", "--include-path") and i + 1 < len(opts):
            i += 1
            o = ("-D" if o in ("-D", "--define-macro") else "-I") + str(opts[i])
        m = re.fullmatch(r"(?:-D|--define-macro=)([A-Za-z_]\w*)=(-?(?:0[xX][0-9a-fA-F]+|\d+))", o)
        inc = re.fullmatch(r"(?:-I|--include-path=)(.+)", o)
        if m:
            out.append((m.group(1), int(m.group(2), 0)))
        elif inc:
            d = os.path.abspath(os.path.expanduser(inc.group(1)))
            if not os.path.isdir(d):
                raise ValueError(f"option {o!r}: {d} is not a folder")
            dirs.append(d)
        elif o not in _DEFAULT_OPTIONS:
            raise ValueError(
                f"option {o!r} is not supported: warpsim compiles with NVRTC's "
                "--gpu-architecture=compute_90 -lineinfo -std=c++17 and takes -DNAME=VALUE "
                "macros with integer values and -I DIR include folders"
            )
        i += 1
    return out, dirs


def _dim3(v, what):
    """An int or a tuple of up to three ints, as (x, y, z)."""
    t = (v,) if isinstance(v, int) or hasattr(v, "__index__") else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what} {v!r}: give one to three sizes")
    t = tuple(int(x) for x in t) + (1,) * (3 - len(t))
    if any(x < 1 or x >= 2**32 for x in t):
        raise ValueError(f"{what} {v!r}: every size is a whole number from 1")
    return t


def _arg(i, a):
    """One kernel argument as the native module takes it."""
    if isinstance(a, np.ndarray):
        elem = DTYPES.get(a.dtype)
        if elem is None:
            names = ", ".join(str(d) for d in DTYPES)
            raise TypeError(f"argument {i}: warpsim has no {a.dtype} buffers; use one of {names}")
        if not a.flags.c_contiguous:
            raise ValueError(
                f"argument {i}: the array is not C-contiguous; pass np.ascontiguousarray(x) "
                "(and read the results from that copy)"
            )
        if not a.flags.writeable:
            raise ValueError(f"argument {i}: the array is read-only; the kernel's writes land in it")
        if a.size == 0:
            raise ValueError(f"argument {i}: the array is empty")
        return ("buffer", elem, a.reshape(-1).view(np.uint8))
    if isinstance(a, (bool, np.bool_)):
        return ("int", "", int(a))
    if isinstance(a, (int, np.integer)):
        return ("int", "", int(a))
    if isinstance(a, (float, np.floating)):
        return ("float", "", float(a))
    raise TypeError(
        f"argument {i}: a {type(a).__name__}; pass a NumPy array (a buffer) or a number"
    )


def numba_args(*args):
    """The arguments of a kernel compiled by Numba (``numba.cuda.compile_ptx``), as its PTX
    takes them: Numba passes each array as ``meminfo, parent, nitems, itemsize, data``, then
    its shape and its strides in bytes (7 parameters for a 1-D array); numbers pass as they
    are. ``k(grid, block, warpsim.numba_args(a, x, y, out))``.
    """
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out += [0, 0, a.size, a.itemsize, a, *a.shape, *a.strides]
        else:
            out.append(a)
    return tuple(out)


class RawModule:
    """A CUDA (``code``, or a ``.cu`` ``path``) or PTX (``ptx``, or a ``.ptx`` ``path``)
    module, as CuPy's ``RawModule``; ``get_function(name)`` gives a kernel to call.

    ``options``: ``-DNAME=VALUE`` macros and ``-I DIR`` folders the source may include from
    (besides its own folder and the toolkit's; others are refused); ``name_expressions``: accepted
    for CuPy's sake (each kernel's name expression, ``"reduce<256>"``, is compiled when it is
    first called).
    """

    def __init__(self, code=None, *, path=None, ptx=None, options=(), name_expressions=(),
                 backend="nvrtc", jitify=False):
        given = [k for k, v in (("code", code), ("path", path), ("ptx", ptx)) if v is not None]
        if len(given) != 1:
            raise TypeError("give exactly one of code, path= and ptx=")
        if jitify:
            raise ValueError("jitify is not supported (NVRTC compiles the source as it is)")
        self.options = tuple(options)
        self.name_expressions = tuple(name_expressions)
        self._macros, self._include_paths = _macros(self.options)
        if path is not None:
            self.file = os.path.abspath(os.fspath(path))
            if not os.path.isfile(self.file):
                raise FileNotFoundError(self.file)
            self.cuda = not self.file.endswith(".ptx")
            self.code = None
        else:
            self.cuda = code is not None
            self.code = code if code is not None else ptx
            d = tempfile.mkdtemp(prefix="warpsim-")
            self._cleanup = weakref.finalize(self, shutil.rmtree, d, True)
            self.file = os.path.join(d, "kernel.cu" if self.cuda else "kernel.ptx")
            with open(self.file, "w", encoding="utf-8") as f:
                f.write(self.code)

    def get_function(self, name):
        """The kernel ``name`` (a name, a template name expression or a PTX entry name)."""
        return RawKernel._of(self, name)


class RawKernel:
    """A kernel, as CuPy's ``RawKernel``: ``RawKernel(code, name, options=())`` with ``code``
    CUDA source; ``kernel(grid, block, args, shared_mem=0, **options)`` runs the launch and
    returns a ``Report``.

    ``args``: NumPy arrays (C-contiguous, writable) are the device buffers, copied in and
    written back with the kernel's writes; numbers are typed from the kernel's parameters (a
    ``float`` parameter given ``1`` gets 1.0f). ``constants``: ``{"c_filter": array}`` fills
    ``__constant__`` symbols before the launch, as ``cudaMemcpyToSymbol`` would: the array's
    bytes from the symbol's start (its other bytes keep the module's initialiser).
    ``options``: see ``warpsim.OPTIONS``.
    """

    def __init__(self, code, name, options=(), backend="nvrtc", *, jitify=False):
        self._module = RawModule(code, options=options, backend=backend, jitify=jitify)
        self.code = code
        self.name = name
        self.options = tuple(options)

    @classmethod
    def _of(cls, module, name):
        k = cls.__new__(cls)
        k._module = module
        k.code = module.code
        k.name = name
        k.options = module.options
        return k

    def __call__(self, grid, block, args, shared_mem=0, constants=None, **options):
        o = resolve(options)
        m = self._module
        fills = []
        for name, a in dict(constants or {}).items():
            a = np.ascontiguousarray(a).reshape(-1)
            if a.dtype not in DTYPES:
                names = ", ".join(str(d) for d in DTYPES)
                raise TypeError(f"constant {name!r}: warpsim has no {a.dtype} values; use one of {names}")
            if a.size == 0:
                raise ValueError(f"constant {name!r}: the array is empty")
            fills.append((str(name), DTYPES[a.dtype], a.copy().view(np.uint8)))
        native = _native.launch(
            m.cuda,
            m.file,
            self.name,
            m._macros,
            _dim3(grid, "grid"),
            _dim3(block, "block"),
            int(shared_mem),
            [_arg(i, a) for i, a in enumerate(args)],
            o,
            m._include_paths,
            fills,
        )
        return Report(native)
