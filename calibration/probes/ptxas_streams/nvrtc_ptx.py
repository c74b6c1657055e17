#!/usr/bin/env python3
"""CUDA source -> PTX with NVRTC, as nvcc -arch=sm_90 -lineinfo compiles device code.

    python3 calibration/probes/ptxas_streams/nvrtc_ptx.py IN.cu OUT.ptx [NAME_EXPRESSION ...] [-DNAME=VALUE ...]

Options passed to NVRTC: --gpu-architecture=compute_90 -lineinfo -std=c++17 (the flags of the
H200 campaigns, calibration/draws/classic/run.sh: nvcc -O3 -arch=sm_90 -lineinfo -std=c++17; NVRTC
optimises device code as nvcc does by default). Host code must be guarded by
`#ifndef __CUDACC_RTC__`. Name expressions (`"transpose<0,false>"`) instantiate templates;
`extern "C"` kernels need none. The PTX's `.file 1` names the source by its base name.

Needs libnvrtc: `pip install --user nvidia-cuda-nvrtc-cu12==12.6.77`, or WARPSIM_NVRTC=/path.
"""
import ctypes, glob, os, sys


def nvrtc():
    p = os.environ.get("WARPSIM_NVRTC")
    if not p:
        try:
            import nvidia.cuda_nvrtc as m
            p = sorted(glob.glob(os.path.join(m.__path__[0], "lib", "libnvrtc.so*")))[0]
        except Exception:
            sys.exit("libnvrtc not found: pip install --user nvidia-cuda-nvrtc-cu12==12.6.77")
    return ctypes.CDLL(p)


def compile_ptx(lib, path, names=(), defines=()):
    src = open(path).read()
    prog = ctypes.c_void_p()
    name = os.path.basename(path).encode()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name, 0, None, None) == 0
    for n in names:
        lib.nvrtcAddNameExpression(prog, n.encode())
    opts = [b"--gpu-architecture=compute_90", b"-lineinfo", b"-std=c++17"]
    opts += [d.encode() for d in defines]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    r = lib.nvrtcCompileProgram(prog, len(opts), arr)
    sz = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(sz))
    log = ctypes.create_string_buffer(sz.value)
    lib.nvrtcGetProgramLog(prog, log)
    if r:
        sys.exit(log.value.decode())
    lib.nvrtcGetPTXSize(prog, ctypes.byref(sz))
    buf = ctypes.create_string_buffer(sz.value)
    lib.nvrtcGetPTX(prog, buf)
    return buf.value.decode()


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rest = sys.argv[3:]
    ptx = compile_ptx(nvrtc(), sys.argv[1], [a for a in rest if not a.startswith("-D")],
                      [a for a in rest if a.startswith("-D")])
    open(sys.argv[2], "w").write(ptx)
    print("wrote", sys.argv[2])
