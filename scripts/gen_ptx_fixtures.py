#!/usr/bin/env python3
"""Regenerates tests/fixtures/ptx/*.ptx: NVRTC's PTX of programs/cuda/kernels.cu.

Needs libnvrtc (pip install nvidia-cuda-nvrtc-cu12==12.6.77, or WARPSIM_NVRTC=/path/libnvrtc.so).
Run from the repository root: python3 scripts/gen_ptx_fixtures.py
"""
import ctypes, glob, os, sys

def nvrtc():
    p = os.environ.get("WARPSIM_NVRTC")
    if not p:
        try:
            import nvidia.cuda_nvrtc as m
            p = glob.glob(os.path.join(m.__path__[0], "lib", "libnvrtc.so*"))[0]
        except Exception:
            sys.exit("libnvrtc not found: pip install nvidia-cuda-nvrtc-cu12==12.6.77")
    return ctypes.CDLL(p)

def compile(lib, path, names, defines=()):
    src = open(path).read()
    prog = ctypes.c_void_p()
    name = os.path.basename(path).encode()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name, 0, None, None) == 0
    for n in names:
        lib.nvrtcAddNameExpression(prog, n.encode())
    opts = [b"--gpu-architecture=compute_90", b"-lineinfo"] + [f"-D{d}".encode() for d in defines]
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
    lib = nvrtc()
    names = ["transpose<0,false>", "transpose<1,false>", "transpose<0,true>",
             "matmul<32,0,false>", "matmul<32,0,true>", "matmul<32,1,true>",
             "transpose64<0>", "transpose64<1>"]
    os.makedirs("programs/cuda", exist_ok=True)
    ptx = compile(lib, "programs/cuda/kernels.cu", names)
    # The PTX names the .cu by its base name (`.file 1 "kernels.cu"`): it sits beside it.
    open("programs/cuda/kernels.ptx", "w").write(ptx)
    print("wrote programs/cuda/kernels.ptx")
