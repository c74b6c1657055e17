"""The shipped program (programs/...) and `-D` defines that port a measured launch, by the
launch's name. One table for what draw4's predict.py (kernels.cu's templates), swizzle's
predict.py (swz.cu's swizzled variants) and the held-out set needed (merged in issue 36); the
held-out set's CUDA ports of programs/examples (reduce, vectors, divergence) added so that its
summaries report every row.
"""
import re

SWIZZLE = {"_xor": ["SWIZZLE=1"], "_g2": ["SWIZZLE=2"], "_g4": ["SWIZZLE=4"], "_g8": ["SWIZZLE=8"],
           "_swzA": ["SWIZZLE=1"], "_swzAB": ["SWIZZLE=1", "SWIZZLE_B=1"], "_swz4": ["SWIZZLE=4"]}


def program(name):
    """(program path relative to programs/, [defines]) for a launch name; ValueError if none."""
    # kernels.cu's templates (draws 4-11, the held-out set)
    m = re.match(r"transpose_n(\d+)_tile32x3(\d)(_xor)?$", name)
    if m:
        return "transpose.ron", ["N=" + m[1]] + (["PAD=1"] if m[2] == "3" else []) + (["SWIZZLE=1"] if m[3] else [])
    m = re.match(r"transpose64_n(\d+)_tile32x3(\d)$", name)
    if m:
        return "transpose_f64.ron", ["N=" + m[1]] + (["PAD=1"] if m[2] == "3" else [])
    m = re.match(r"matmul_n(\d+)_t(\d+)(_transA)?(_pad1)?$", name)
    if m:
        return "matmul.ron", ["N=" + m[1], "TILE=" + m[2]] + (["TRANS_A=1"] if m[3] else []) + (["PAD=1"] if m[4] else [])
    m = re.match(r"sgemm4x4_n(\d+)(_pad4)?$", name)
    if m:
        return "sgemm_4x4.ron", ["N=" + m[1]] + (["PAD=4"] if m[2] else [])
    # swz.cu's swizzled variants (calibration/draws/swizzle)
    tail = [v for k, v in SWIZZLE.items() if name.endswith(k)]
    tail = tail[0] if tail else []
    m = re.match(r"transpose(64)?_n(\d+)_tile32x32", name)
    if m:
        return ("transpose_f64.ron" if m[1] else "transpose.ron"), ["N=" + m[2]] + tail
    m = re.match(r"sgemm4x4_n(\d+)", name)
    if m:
        return "sgemm_4x4.ron", ["N=" + m[1]] + tail
    m = re.match(r"matmul_n(\d+)_t(\d+)(_transA)?", name)
    if m:
        return "matmul.ron", ["N=" + m[1], "TILE=" + m[2]] + (["TRANS_A=1"] if m[3] else []) + tail
    # the held-out set's CUDA ports of the examples (heldout.cu: reduce_k, vectors_k, divergence_k)
    m = re.match(r"reduce_block(\d+)_blocks(\d+)$", name)
    if m:
        return "examples/reduce.ron", ["BLOCK=" + m[1], "BLOCKS=" + m[2]]
    m = re.match(r"(vectors|divergence)_n(\d+)$", name)
    if m:
        return f"examples/{m[1]}.ron", ["N=" + m[2]]
    raise ValueError(f"no shipped program ports the launch {name!r}")


def template(name):
    """Which family a launch belongs to: "kernels.cu" (the four templates the model was developed
    on: transposes, transpose64, matmul, sgemm4x4) or "examples" (the ports of programs/examples)."""
    return "examples" if re.match(r"(reduce_block|vectors_n|divergence_n)", name) else "kernels.cu"


def blocks(name):
    """The launch's grid size, from its name (as kernels.cu's and heldout.cu's launchers set it)."""
    m = re.match(r"reduce_block\d+_blocks(\d+)$", name)
    if m:
        return int(m[1])
    m = re.match(r"(vectors|divergence)_n(\d+)$", name)
    if m:
        return int(m[2]) // (512 if m[1] == "vectors" else 64)
    n = int(re.search(r"_n(\d+)", name)[1])
    t = 64 if name.startswith("sgemm") else 32 if ("_t32" in name or name.startswith("transpose")) else 16
    return (-(-n // t)) ** 2


def blocks_per_sm(name):
    """Blocks resident on one SM of the H200 at once (threads, registers and block limits)."""
    if name.startswith("reduce_block"):
        return 8  # 256 threads
    if name.startswith("vectors"):
        return 16  # 128 threads
    if name.startswith("divergence"):
        return 32  # 64 threads: the 32-block limit
    return 4 if name.startswith("sgemm") else 2 if "_t32" in name else 8


def waves(name):
    """Blocks over what 132 SMs hold at once."""
    return blocks(name) / (132 * blocks_per_sm(name))
