"""Makes the PTX in this folder with Numba and Triton (no GPU needed); see README.md.

Run with a Python that has numba, numba-cuda, nvidia-cuda-nvcc-cu12 (libnvvm) and triton:
``python make_ptx.py`` (from this folder). The tests use the checked-in PTX, not this script.
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, text):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write(text)


def numba_ptx():
    from numba import cuda, float32

    @cuda.jit
    def axpy(a, x, y, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = a * x[i] + y[i]

    @cuda.jit
    def block_sum(x, out):
        # 256 threads a block: each block sums its 256 elements in shared memory (a tree).
        s = cuda.shared.array(256, float32)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        s[t] = x[i] if i < x.size else float32(0)
        cuda.syncthreads()
        step = 128
        while step > 0:
            if t < step:
                s[t] += s[t + step]
            cuda.syncthreads()
            step //= 2
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    v = float32[::1]
    write("numba_axpy.ptx", cuda.compile_ptx(axpy, (float32, v, v, v), cc=(9, 0), lineinfo=True)[0])
    write("numba_block_sum.ptx", cuda.compile_ptx(block_sum, (v, v), cc=(9, 0), lineinfo=True)[0])


def triton_ptx():
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, a * x + y, mask=mask)

    @triton.jit
    def row_sum(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
        # One program a row: the row's sum (tl.sum: shuffles, then shared memory across warps).
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
        tl.store(out_ptr + row, tl.sum(x, axis=0))

    target = GPUTarget("cuda", 90, 32)
    # What a launch on CUDA arrays with sizes multiple of 16 compiles (Triton specializes
    # such pointers and integers, tt.divisibility: 16-byte vector loads), with 4 warps.
    aligned = [["tt.divisibility", 16]]
    src = ASTSource(
        fn=axpy,
        signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "a": "fp32",
                   "n": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 1024},
        attrs={(0,): aligned, (1,): aligned, (2,): aligned, (4,): aligned},
    )
    meta = {}

    def compile_one(name, src):
        k = triton.compile(src, target=target, options={"num_warps": 4})
        write(f"triton_{name}.ptx", k.asm["ptx"])
        # A launch needs these: block = 32 * num_warps threads, shared_mem = shared bytes.
        meta[name] = {"num_warps": k.metadata.num_warps, "shared": k.metadata.shared,
                      "triton": triton.__version__}

    compile_one("axpy", src)
    src = ASTSource(
        fn=row_sum,
        signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 1024},
        attrs={(0,): aligned, (1,): aligned, (2,): aligned},
    )
    compile_one("row_sum", src)
    write("triton_launch.json", json.dumps(meta, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    numba_ptx()
    triton_ptx()
