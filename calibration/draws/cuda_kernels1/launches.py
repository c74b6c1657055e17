#!/usr/bin/env python3
"""The launches of cuda_kernels1, in one place: writes launches/<name>.cu.ron (warpsim's launch
files) and launches_gen.h (the same launches for host.cu on the H200: grid, block, dynamic
shared bytes, buffers and their initial contents, constant fills, arguments).

    launches.py            (re)write both
    launches.py --list     name, file, kernel, family

Assumed launch-file syntax beyond today's (README "Assumed syntax"): `constants: [...]`
(calibration/probes/cuda_coverage/README.md, spec C-1), float kernel arguments as float
literals ("1.5"), integer `Random(seed)` covering the type's whole range (element i of a
U32/I32 buffer = the top 32 bits of the draw), and constants read by name in `expect`.
Standard library only.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


class B:
    """A buffer: name, type (F32, I32, U32), length, init (Zeros, Iota, ("Random", seed))."""

    def __init__(self, name, ty, n, init="Zeros", expect=None, check=None, tol=None):
        self.name, self.ty, self.n, self.init = name, ty, n, init
        self.expect, self.check, self.tol = expect, check, tol


class C:
    """A constant fill: symbol, type, length, and one of init / values / src (a buffer)."""

    def __init__(self, name, ty, n, init=None, values=None, src=None, offset=0):
        self.name, self.ty, self.n = name, ty, n
        self.init, self.values, self.src, self.offset = init, values, src, offset


class L:
    def __init__(self, name, file, kernel, family, grid, block, bufs, args, consts=(), dyn=0,
                 func=None, note=""):
        self.name, self.file, self.kernel, self.family = name, file, kernel, family
        self.grid, self.block, self.bufs, self.args = grid, block, bufs, args
        self.consts, self.dyn, self.note = list(consts), dyn, note
        self.func = func or kernel


def R(seed):
    return ("Random", seed)


def crc_table():
    t = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (0xEDB88320 ^ (c >> 1)) if c & 1 else (c >> 1)
        t.append(c)
    return t


def horner_expect():
    a = "c_poly[15]"
    for k in range(14, -1, -1):
        a = f"fma({a}, x[i], c_poly[{k}])"
    return a


FD = ["0.8", "-0.2", "0.038095238", "-0.0035714286"]  # 8th-order central first derivative, h = 1


def fd_x_term(m, c):
    row = "i - i % 64"
    return (f"{c} * (f[{row} + (i % 64 + {m}) % 64] - f[{row} + (i % 64 + {64 - m}) % 64])")


def fd_y_term(m, c):
    base = "i - (i / 64 % 64) * 64"
    return (f"{c} * (f[{base} + (i / 64 % 64 + {m}) % 64 * 64] - f[{base} + (i / 64 % 64 + {64 - m}) % 64 * 64])")


FDTD_B = "((i / 4096 + 4) * 5184 + (i / 64 % 64 + 4) * 72 + i % 64 + 4)"
LN_ROW = "i / 256 * 256"
LN_S1 = f"sum(k, 0, 256, inp[{LN_ROW} + k])"
LN_S2 = f"sum(k, 0, 256, inp[{LN_ROW} + k] * inp[{LN_ROW} + k])"
LN_R1 = "sum(k, 0, 256, inp[i * 256 + k])"
LN_R2 = "sum(k, 0, 256, inp[i * 256 + k] * inp[i * 256 + k])"
HIST_W = "data[i / 256 * 192 + t]"
GEMM = "1.5 * sum(k, 0, 256, A[i / 512 * 256 + k] * B[k * 512 + i % 512]) + 0.5 * C[i]"


def gemm_bufs(s):
    return [B("A", "F32", 512 * 256, R(s)), B("B", "F32", 256 * 512, R(s + 1)),
            B("C", "F32", 512 * 512, R(s + 2), expect=GEMM)]


GEMM_ARGS = [("i32", 512), ("i32", 512), ("i32", 256), ("f32", "1.5"), ("buf", "A"), ("buf", "B"),
             ("f32", "0.5"), ("buf", "C")]

LAUNCHES = [
    # ---- constant memory (k_const.cu) ----
    L("convRows", "k_const.cu", "convRows", "const: separable convolution (rows)", [4, 64], [16, 4],
      [B("src", "F32", 131072, R(1)), B("filt", "F32", 17, R(2)),
       B("dst", "F32", 131072, expect="sum(j, 0, 17, (i % 512 + j >= 8 && i % 512 + j < 520 ? filt[16 - j] : 0.0)"
                                        " * src[i / 512 * 512 + min(max(i % 512 + j, 8), 519) - 8])")],
      [("buf", "dst"), ("buf", "src"), ("i32", 512), ("i32", 256)],
      [C("c_kernel", "F32", 17, src="filt")]),
    L("convCols", "k_const.cu", "convCols", "const: separable convolution (columns)", [32, 4], [16, 8],
      [B("src", "F32", 131072, R(3)), B("filt", "F32", 17, R(2)),
       B("dst", "F32", 131072, expect="sum(j, 0, 17, (i / 512 + j >= 8 && i / 512 + j < 264 ? filt[16 - j] : 0.0)"
                                        " * src[(min(max(i / 512 + j, 8), 263) - 8) * 512 + i % 512])")],
      [("buf", "dst"), ("buf", "src"), ("i32", 512), ("i32", 256)],
      [C("c_kernel", "F32", 17, src="filt")]),
    L("conv2dTiled", "k_const.cu", "conv2dTiled", "const: tiled 2D convolution, 5x5 mask", [8, 8], [32, 32],
      [B("inp", "F32", 224 * 224, R(4)),
       B("out", "F32", 224 * 224,
         expect="sum(a, 0, 5, sum(b, 0, 5, (i / 224 + a >= 2 && i / 224 + a < 226 && i % 224 + b >= 2 && i % 224 + b < 226"
                " ? c_mask[a * 5 + b] : 0.0) * inp[(min(max(i / 224 + a, 2), 225) - 2) * 224 + min(max(i % 224 + b, 2), 225) - 2]))")],
      [("buf", "inp"), ("buf", "out"), ("i32", 224), ("i32", 224)],
      [C("c_mask", "F32", 25, init=R(5))]),
    L("fdDerivX", "k_const.cu", "fdDerivX", "const: finite differences, x pencils", [16, 64], [64, 4],
      [B("f", "F32", 64 ** 3, R(6)),
       B("df", "F32", 64 ** 3, expect=" + ".join(fd_x_term(m + 1, c) for m, c in enumerate(FD)))],
      [("buf", "f"), ("buf", "df")],
      [C(n, "F32", 1, values=[v]) for n, v in zip(["c_ax", "c_bx", "c_cx", "c_dx"], FD)]),
    L("fdDerivY", "k_const.cu", "fdDerivY", "const: finite differences, y pencils", [16, 64], [4, 64],
      [B("f", "F32", 64 ** 3, R(7)),
       B("df", "F32", 64 ** 3, expect=" + ".join(fd_y_term(m + 1, c) for m, c in enumerate(FD)))],
      [("buf", "f"), ("buf", "df")],
      [C(n, "F32", 1, values=[v]) for n, v in zip(["c_ay", "c_by", "c_cy", "c_dy"], FD)]),
    L("fdtd3d", "k_const.cu", "fdtd3d", "const: FDTD3d radius-4 stencil, z-marching", [2, 4], [32, 16],
      [B("inp", "F32", 72 * 72 * 40, R(8)),
       B("out", "F32", 64 * 64 * 32,
         expect=f"c_stencil[0] * inp[{FDTD_B}] + sum(r, 1, 5, c_stencil[r] * (inp[{FDTD_B} + r * 5184] + inp[{FDTD_B} - r * 5184]"
                f" + inp[{FDTD_B} + r * 72] + inp[{FDTD_B} - r * 72] + inp[{FDTD_B} + r] + inp[{FDTD_B} - r]))")],
      [("buf", "out"), ("buf", "inp"), ("i32", 64), ("i32", 64), ("i32", 32)],
      [C("c_stencil", "F32", 5, values=["0.25", "0.125", "0.0625", "0.03125", "0.015625"])]),
    L("crc32Const", "k_const.cu", "crc32Const", "const: CRC-32 table (divergent LDC)", [32], [128],
      [B("msg", "U32", 4096 * 16, R(9)), B("crc", "U32", 4096)],
      [("buf", "msg"), ("buf", "crc"), ("i32", 16)],
      [C("c_crc", "U32", 256, values=[f"{v}u" for v in crc_table()])],
      note="no expect (a CRC is not an expression); host.cu checks it on the H200"),
    L("hornerConst", "k_const.cu", "hornerConst", "const: Horner polynomial (uniform ULDC)", [1024], [256],
      [B("x", "F32", 262144, R(10)), B("y", "F32", 262144, expect=horner_expect())],
      [("buf", "x"), ("buf", "y"), ("i32", 262144)],
      [C("c_poly", "F32", 16, init=R(11))]),
    # ---- warp and bit operations (k_warp.cu) ----
    L("shflScan", "k_warp.cu", "shflScan", "warp: shuffle scan, width at run time", [256], [256],
      [B("data", "I32", 65536, "Iota", expect="sum(k, i / 256 * 256, i + 1, data[k])"),
       B("sums", "I32", 256, expect="sum(k, i * 256, i * 256 + 256, data[k])")],
      [("buf", "data"), ("i32", 32), ("buf", "sums")], dyn=32),
    L("reduceRedux", "k_warp.cu", "reduceRedux", "warp: reduction with redux.sync", [64], [256],
      [B("inp", "I32", 262144, "Iota"), B("out", "I32", 64, expect="sum(k, 0, 16, sum(t, 0, 256, inp[k * 16384 + i * 256 + t]))")],
      [("buf", "inp"), ("buf", "out"), ("u32", 262144)]),
    L("matchAnyHist", "k_warp.cu", "matchAnyHist", "warp: match.any warp-aggregated histogram", [32], [256],
      [B("data", "U32", 65536, R(12)), B("hist", "U32", 64, expect="sum(k, 0, 65536, u32((data[k] >> 10) % 64 == i))")],
      [("buf", "data"), ("buf", "hist"), ("i32", 65536)]),
    L("syncCountRank", "k_warp.cu", "syncCountRank", "warp: __syncthreads_count, ballot ranks", [256], [256],
      [B("x", "F32", 65536, R(13)),
       B("rank", "I32", 65536, expect="x[i] > 0.25 ? sum(k, i / 256 * 256, i, i32(x[k] > 0.25)) : -1"),
       B("count", "I32", 256, expect="sum(k, i * 256, i * 256 + 256, i32(x[k] > 0.25))")],
      [("buf", "x"), ("f32", "0.25"), ("buf", "rank"), ("buf", "count")]),
    L("bitTricks", "k_warp.cu", "bitTricks", "bits: 64-bit Morton codes, brev/popc/clz/ffs, prmt, shf, mul.hi", [256], [256],
      [B("a", "U32", 131072, R(14)), B("lo", "U32", 65536), B("hi", "U32", 65536), B("out2", "U32", 65536)],
      [("buf", "a"), ("buf", "lo"), ("buf", "hi"), ("buf", "out2"), ("i32", 65536)],
      note="no expect (bit intrinsics are not expressions); host.cu checks it on the H200"),
    # ---- cooperative groups (k_cg.cu) ----
    L("cgTile32Reduce", "k_cg.cu", "cgTile32Reduce", "cg: tile<32> cg::reduce (redux)", [256], [256],
      [B("inp", "I32", 65536, "Iota"), B("out", "I32", 2048, expect="sum(k, i * 32, i * 32 + 32, inp[k])"),
       B("total", "I32", 256, expect="sum(k, i * 256, i * 256 + 256, inp[k])")],
      [("buf", "inp"), ("buf", "out"), ("buf", "total")]),
    L("cgTile16Shfl", "k_cg.cu", "cgTile16Shfl", "cg: tile<16> shfl_down (two masks per warp)", [256], [256],
      [B("inp", "F32", 65536, R(15)), B("out", "F32", 4096, expect="sum(k, i * 16, i * 16 + 16, inp[k])")],
      [("buf", "inp"), ("buf", "out")]),
    L("cgTile64Reduce", "k_cg.cu", "cgTile64Reduce", "cg: tile<64> (multi-warp) reduce, shfl, sync", [256], [256],
      [B("inp", "I32", 65536, "Iota"), B("sums", "I32", 1024, expect="sum(k, i * 64, i * 64 + 64, inp[k])"),
       B("first", "I32", 65536, expect="inp[i - i % 64]"),
       B("out", "I32", 65536, expect="inp[i] + sum(k, i - i % 64, i - i % 64 + 64, inp[k])")],
      [("buf", "inp"), ("buf", "sums"), ("buf", "first"), ("buf", "out")]),
    # ---- sorting networks (k_sort.cu) ----
    L("bitonicSortShared", "k_sort.cu", "bitonicSortShared", "sort: bitonic network, 1024 keys/block", [64], [512],
      [B("src", "U32", 65536, R(16)),
       B("dst", "U32", 65536, expect="permutation(src)", check="i % 1024 == 1023 || dst[i] <= dst[i + 1]")],
      [("buf", "dst"), ("buf", "src"), ("u32", 1)]),
    L("oddEvenMergeSortShared", "k_sort.cu", "oddEvenMergeSortShared", "sort: odd-even merge network", [64], [512],
      [B("src", "U32", 65536, R(17)),
       B("dst", "U32", 65536, expect="permutation(src)", check="i % 1024 == 1023 || dst[i] <= dst[i + 1]")],
      [("buf", "dst"), ("buf", "src"), ("u32", 1)]),
    # ---- register-blocked SGEMM (k_gemm.cu), 512 x 512 x 256, alpha 1.5, beta 0.5 ----
    L("sgemm1DTiling", "k_gemm.cu", "sgemm1DTiling<64,64,8,8>", "gemm: 1D blocktiling TM=8", [8, 8], [512],
      gemm_bufs(18), GEMM_ARGS, func="sgemm1DTiling<64, 64, 8, 8>"),
    L("sgemm2DColA", "k_gemm.cu", "sgemm2DColA<64,64,8,8,8>", "gemm: 2D blocktiling 8x8, As column", [8, 8], [64],
      gemm_bufs(21), GEMM_ARGS, func="sgemm2DColA<64, 64, 8, 8, 8>"),
    L("sgemm2DVec", "k_gemm.cu", "sgemm2DVec<128,128,8,8,8>", "gemm: 2D blocktiling 8x8, float4", [4, 4], [256],
      gemm_bufs(24), GEMM_ARGS, func="sgemm2DVec<128, 128, 8, 8, 8>"),
    # ---- rows (k_rows.cu) ----
    L("softmaxBlock", "k_rows.cu", "softmaxBlock", "rows: softmax, block per row", [128], [128],
      [B("inp", "F32", 128 * 512, R(27)), B("out", "F32", 128 * 512, expect="exp(inp[i]) / sum(k, 0, 512, exp(inp[i / 512 * 512 + k]))")],
      [("buf", "out"), ("buf", "inp"), ("i32", 128), ("i32", 512)], dyn=32),
    L("softmaxOnline", "k_rows.cu", "softmaxOnline", "rows: online softmax, warp per row", [128], [256],
      [B("inp", "F32", 1024 * 128, R(28)), B("out", "F32", 1024 * 128, expect="exp(inp[i]) / sum(k, 0, 128, exp(inp[i / 128 * 128 + k]))")],
      [("buf", "out"), ("buf", "inp"), ("i32", 1024), ("i32", 128)]),
    L("layernormWarp", "k_rows.cu", "layernormWarp", "rows: layernorm, warp per row (cg)", [16], [256],
      [B("inp", "F32", 128 * 256, R(29)), B("weight", "F32", 256, R(30)), B("bias", "F32", 256, R(31)),
       B("out", "F32", 128 * 256,
         expect=f"(inp[i] - {LN_S1} / 256.0) / sqrt({LN_S2} / 256.0 - ({LN_S1} / 256.0) * ({LN_S1} / 256.0) + 0.00001)"
                " * weight[i % 256] + bias[i % 256]"),
       B("mean", "F32", 128, expect=f"{LN_R1} / 256.0"),
       B("rstd", "F32", 128, expect=f"1.0 / sqrt({LN_R2} / 256.0 - ({LN_R1} / 256.0) * ({LN_R1} / 256.0) + 0.00001)")],
      [("buf", "out"), ("buf", "mean"), ("buf", "rstd"), ("buf", "inp"), ("buf", "weight"), ("buf", "bias"),
       ("i32", 128), ("i32", 256)]),
    # ---- byte histogram (k_hist.cu) ----
    L("histogram256", "k_hist.cu", "histogram256", "hist: 256-bin byte histogram, shared atomics", [240], [192],
      [B("data", "U32", 240 * 192, R(32)),
       B("partial", "U32", 240 * 256,
         expect=f"sum(t, 0, 192, u32(({HIST_W} & 255) == i % 256) + u32(({HIST_W} >> 8 & 255) == i % 256)"
                f" + u32(({HIST_W} >> 16 & 255) == i % 256) + u32(({HIST_W} >> 24) == i % 256))")],
      [("buf", "partial"), ("buf", "data"), ("u32", 240 * 192)]),
    L("mergeHistogram256", "k_hist.cu", "mergeHistogram256", "hist: merge of the partial histograms", [256], [256],
      [B("partial", "U32", 240 * 256, "Iota"), B("hist", "U32", 256, expect="sum(k, 0, 240, partial[i + k * 256])")],
      [("buf", "hist"), ("buf", "partial"), ("u32", 240)]),
]


# ---------------------------------------------------------------- warpsim launch files

def ron_init(init):
    if isinstance(init, tuple):
        return f"Random({init[1]})"
    return init


def write_ron(l):
    o = [f"// cuda_kernels1 (calibration/draws/cuda_kernels1): {l.name}, {l.family}.",
         f"// Kernel `{l.kernel}` of ../{l.file}; host.cu launches it on the H200 on the same inputs."]
    if l.note:
        o.append(f"// {l.note}")
    o.append("Program(")
    o.append(f'    name: "{l.name}",')
    dims = lambda v: "[" + ", ".join(str(x) for x in v) + "]"
    dyn = f", dynamic_shared: {l.dyn}" if l.dyn else ""
    o.append(f"    launch: (grid: {dims(l.grid)}, block: {dims(l.block)}{dyn}),")
    o.append("    buffers: [")
    for b in l.bufs:
        f = [f'name: "{b.name}"', f"ty: {b.ty}", f"len: {b.n}"]
        if b.init != "Zeros":
            f.append(f"init: {ron_init(b.init)}")
        if b.expect:
            f.append(f'expect: "{b.expect}"')
        if b.check:
            f.append(f'check: "{b.check}"')
        if b.tol:
            f.append(f"tolerance: {b.tol}")
        o.append(f"        ({', '.join(f)}),")
    o.append("    ],")
    if l.consts:
        o.append("    constants: [")
        for c in l.consts:
            f = [f'name: "{c.name}"', f"ty: {c.ty}", f"len: {c.n}"]
            if c.src:
                f.append(f'from: "{c.src}"')
            elif c.values is not None:
                f.append("init: Values([" + ", ".join(f'"{v}"' for v in c.values) + "])")
            else:
                f.append(f"init: {ron_init(c.init)}")
            if c.offset:
                f.append(f"offset: {c.offset}")
            o.append(f"        ({', '.join(f)}),")
        o.append("    ],")
    args = ", ".join(f'"{a[1]}"' for a in l.args)
    o.append(f'    cuda: (file: "../{l.file}", kernel: "{l.kernel}", args: [{args}]),')
    o.append(")")
    with open(os.path.join(HERE, "launches", l.name + ".cu.ron"), "w") as f:
        f.write("\n".join(o) + "\n")


# ---------------------------------------------------------------- host.cu's table

def c_init(init):
    if isinstance(init, tuple):
        return f"INIT_RANDOM, {init[1]}"
    return {"Zeros": "INIT_ZEROS, 0", "Iota": "INIT_IOTA, 0"}[init]


def cval(ty, v):
    v = v.rstrip("u")
    return f"{float(v)!r}" if ty == "F32" else str(int(v, 0))


def write_header():
    o = ["// Generated by launches.py: the launches of cuda_kernels1 for host.cu (do not edit).", ""]
    for l in LAUNCHES:
        o.append(f"static const BufSpec B_{l.name}[] = {{")
        for b in l.bufs:
            o.append(f'  {{"{b.name}", T_{b.ty}, {b.n}, {c_init(b.init)}}},')
        o.append("};")
        o.append(f"static const ArgSpec A_{l.name}[] = {{")
        for kind, v in l.args:
            if kind == "buf":
                o.append(f'  {{ARG_BUF, "{v}", 0, 0.0f}},')
            elif kind == "f32":
                o.append(f"  {{ARG_F32, nullptr, 0, {float(v)!r}f}},")
            else:
                o.append(f"  {{ARG_{kind.upper()}, nullptr, {v}, 0.0f}},")
        o.append("};")
        for c in l.consts:
            if c.values is not None:
                ty = "double" if c.ty == "F32" else "unsigned long long"
                o.append(f"static const {ty} V_{l.name}_{c.name}[] = {{{', '.join(cval(c.ty, v) for v in c.values)}}};")
        o.append(f"static const ConstSpec K_{l.name}[] = {{")
        for c in l.consts:
            sym = f"(const void*)&{c.name}"
            if c.src:
                o.append(f'  {{"{c.name}", {sym}, T_{c.ty}, {c.n}, CONST_FROM, "{c.src}", nullptr, nullptr, 0, {c.offset}}},')
            elif c.values is not None:
                vals = f"V_{l.name}_{c.name}"
                fv = vals if c.ty == "F32" else "nullptr"
                iv = vals if c.ty != "F32" else "nullptr"
                o.append(f'  {{"{c.name}", {sym}, T_{c.ty}, {c.n}, CONST_VALUES, nullptr, {fv}, {iv}, 0, {c.offset}}},')
            else:
                kind, seed = ("CONST_RANDOM", c.init[1]) if isinstance(c.init, tuple) else ("CONST_IOTA", 0)
                o.append(f'  {{"{c.name}", {sym}, T_{c.ty}, {c.n}, {kind}, nullptr, nullptr, nullptr, {seed}, {c.offset}}},')
        if not l.consts:
            o.append('  {nullptr, nullptr, T_F32, 0, CONST_VALUES, nullptr, nullptr, nullptr, 0, 0},')
        o.append("};")
        o.append("")
    o.append("static const LaunchSpec LAUNCHES[] = {")
    for l in LAUNCHES:
        g = (l.grid + [1, 1])[:3]
        bl = (l.block + [1, 1])[:3]
        o.append(f'  {{"{l.name}", (const void*){l.func}, {{{g[0]}, {g[1]}, {g[2]}}}, {{{bl[0]}, {bl[1]}, {bl[2]}}}, {l.dyn},')
        o.append(f"   B_{l.name}, {len(l.bufs)}, A_{l.name}, {len(l.args)}, K_{l.name}, {len(l.consts)}}},")
    o.append("};")
    o.append(f"static const int N_LAUNCHES = {len(LAUNCHES)};")
    with open(os.path.join(HERE, "launches_gen.h"), "w") as f:
        f.write("\n".join(o) + "\n")


def main(argv):
    if argv and argv[0] == "--list":
        for l in LAUNCHES:
            print(f"{l.name}\t{l.file}\t{l.kernel}\t{l.family}")
        return
    os.makedirs(os.path.join(HERE, "launches"), exist_ok=True)
    for l in LAUNCHES:
        write_ron(l)
    write_header()
    print(f"{len(LAUNCHES)} launches of {len({l.kernel for l in LAUNCHES})} kernels written")


if __name__ == "__main__":
    main(sys.argv[1:])
