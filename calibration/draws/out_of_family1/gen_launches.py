#!/usr/bin/env python3
"""Writes launches.tsv (the launch list, read by the host program in ooff.cu, predict.sh and
compare.py) and launches/<label>.cu.ron (one warpsim launch file per launch, the kernel of
../ooff.cu through NVRTC, its output checked against a CPU reference: `expect`/`check`).

launches.tsv: label, kernel, gx, gy, bx, by, smem (dynamic shared bytes), a, b, c (the kernel's
int arguments), xlen, outlen (f32 elements of x and out), family, twin (the label of the
conflict-free twin of a conflicted launch; "-" otherwise), what.

Usage: python3 gen_launches.py   (from anywhere; rewrites both)
"""

import os

HERE = os.path.dirname(os.path.abspath(__file__))
SMS = 132

ROWS = []


def add(label, kernel, grid, block, smem, a, b, c, xlen, outlen, family, what, expect,
        tol=None, check=None, twin="-", defines=None):
    gx, gy = (grid, 1) if isinstance(grid, int) else grid
    bx, by = (block, 1) if isinstance(block, int) else block
    ROWS.append(dict(label=label, kernel=kernel, gx=gx, gy=gy, bx=bx, by=by, smem=smem, a=a, b=b,
                     c=c, xlen=xlen, outlen=outlen, family=family, twin=twin, what=what,
                     expect=expect, tol=tol, check=check, defines=defines or {}))


# ---- red: Harris's tree, interleaved/strided (conflicts) vs sequential; grid-stride load of 4 a
# thread. One wave: 16 blocks of 128 or 4 of 512 an SM.
for B, wave in ((128, 16 * SMS), (512, 4 * SMS)):
    for w in (1, 8):
        G = wave * w
        n = G * B * 4
        for il in (1, 0):
            lab = f"red_il{il}_b{B}_w{w}"
            add(lab, f"red_tree<{il},{B}>", G, B, 0, n, 0, 0, n, G, "red",
                f"reduction tree {'interleaved (strided index)' if il else 'sequential'}, B {B}, {w} wave(s)",
                "sum(k, 0, PER, x[(k / B) * G * B + i * B + k % B])",
                twin=f"red_il0_b{B}_w{w}" if il else "-", defines={"PER": n // G})
for w in (1, 8):
    G = 8 * SMS * w
    n = G * 256 * 4
    add(f"red_unroll_b256_w{w}", "red_unroll<256>", G, 256, 0, n, 0, 0, n, G, "red",
        f"Harris 5-6: tree to one warp, last warp unrolled, {w} wave(s)",
        "sum(k, 0, PER, x[(k / B) * G * B + i * B + k % B])", defines={"PER": n // G})

# ---- scan4: 4 elements a thread through shared memory, Blelloch over the thread totals.
for B, wave in ((128, 16 * SMS), (512, 4 * SMS)):
    for w in (1, 4):
        G = wave * w
        n = 4 * B
        smem = (n + n // 32 + B + B // 32) * 4
        for pad in (0, 1):
            lab = f"scan4_p{pad}_b{B}_w{w}"
            add(lab, f"scan4<{pad}>", G, B, smem, 0, 0, 0, G * n, G * n, "scan4",
                f"block scan, 4 consecutive elements a thread, Blelloch on totals, pad {pad}, B {B}, {w} wave(s)",
                "sum(k, i - i % NB, i + 1, x[k])", tol=1e-4,
                twin=f"scan4_p1_b{B}_w{w}" if pad == 0 else "-", defines={"NB": n})

# ---- hs_scan: Hillis-Steele, double buffer interleaved (AOS 1: 2-way) or not.
for B, wave in ((256, 8 * SMS), (1024, 2 * SMS)):
    for w in (1, 4):
        G = wave * w
        for aos in (1, 0):
            lab = f"hs_aos{aos}_b{B}_w{w}"
            add(lab, f"hs_scan<{aos}>", G, B, 2 * B * 4, 0, 0, 0, G * B, G * B, "hs_scan",
                f"Hillis-Steele scan, buffers {'interleaved' if aos else 'separate'}, B {B}, {w} wave(s)",
                "sum(k, i - i % NB, i + 1, x[k])", tol=1e-4,
                twin=f"hs_aos0_b{B}_w{w}" if aos else "-", defines={"NB": B})

# ---- sten1d: radius R, 4 outputs a thread, contiguous (STR 0: 4-way) or strided (STR 1).
for R, ws in ((3, (1, 4)), (8, (1,))):
    for w in ws:
        B = 256
        G = 8 * SMS * w
        m = 4 * B
        smem = (m + 2 * R + m) * 4
        for st in (0, 1):
            lab = f"sten1d_r{R}_s{st}_w{w}"
            add(lab, f"sten1d<{R},{st}>", G, B, smem, 0, 0, 0, G * m + 2 * R, G * m, "sten1d",
                f"1-D stencil radius {R}, 4 outputs a thread {'strided' if st else 'contiguous'}, {w} wave(s)",
                "sum(k, 0, 2 * R + 1, x[i + k])",
                twin=f"sten1d_r{R}_s1_w{w}" if st == 0 else "-", defines={"R": R})

# ---- sten2d: 5-point Jacobi, column-major tile, row length 32 + P.
for N in (512, 1024):
    for p in (0, 1):
        lab = f"sten2d_p{p}_n{N}"
        add(lab, f"sten2d<{p}>", (N // 32, N // 16), (32, 16), 0, N, 0, 0, (N + 2) * (N + 2), N * N,
            "sten2d", f"2-D 5-point stencil, column-major tile, row length {32 + p}, N {N}",
            "0.2 * (x[(i / N + 1) * W + i % N + 1] + x[(i / N + 1) * W + i % N] + "
            "x[(i / N + 1) * W + i % N + 2] + x[(i / N) * W + i % N + 1] + x[(i / N + 2) * W + i % N + 1])",
            tol=1e-5, twin=f"sten2d_p1_n{N}" if p == 0 else "-", defines={"N": N, "W": N + 2})

# ---- bitonic: pair formulation (conflicts) vs xor formulation (none), the same keys a block.
for keys, grids in ((1024, (SMS, 8 * SMS)), (256, (8 * SMS,))):
    for G in grids:
        w = "g132" if G == SMS else f"g{G}"
        lab_p, lab_x = f"bitonic_pair_k{keys}_{w}", f"bitonic_xor_k{keys}_{w}"
        chk = "i % NK == NK - 1 || out[i] <= out[i + 1]"
        add(lab_p, "bitonic_pair", G, keys // 2, keys * 4, 0, 0, 0, G * keys, G * keys, "bitonic",
            f"bitonic sort of {keys} keys a block, a thread a pair", "permutation(x)", check=chk,
            twin=lab_x, defines={"NK": keys})
        add(lab_x, "bitonic_xor", G, keys, keys * 4, 0, 0, 0, G * keys, G * keys, "bitonic",
            f"bitonic sort of {keys} keys a block, a thread a key (partner t ^ j)", "permutation(x)",
            check=chk, defines={"NK": keys})

# ---- histo: 256 bins, shared atomics; bins from the data vs from the index.
# (The data reference costs blocks x 256 x per terms: the larger grid has fewer elements a block.)
for G, per in ((SMS, 4096), (4 * SMS, 1024)):
    for mode in ("data", "index"):
        lab = f"histo_{mode}_g{G}"
        b, c = (255, 0) if mode == "data" else (0, 255)
        exp = ("sum(k, 0, PER, i32((x[(i / 256) * PER + k] + 1.0) * 128.0) == i % 256 ? 1.0 : 0.0)"
               if mode == "data" else "f32(PER / 256)")
        add(lab, "histo", G, 256, 0, per, b, c, G * per, G * 256, "histo",
            f"256-bin histogram, shared atomics, bins from the {mode}, {per} elements a block",
            exp, tol=0.0, twin=f"histo_index_g{G}" if mode == "data" else "-", defines={"PER": per})

# ---- gemm_bt: B tile transposed in shared memory, row length T + P.
for T, Ns in ((16, (256, 512)), (32, (512,))):
    for N in Ns:
        for p in (0, 1):
            lab = f"gemm_bt_t{T}_p{p}_n{N}"
            add(lab, f"gemm_bt<{T},{p}>", (N // T, N // T), (T, T), 0, N, 0, 0, 2 * N * N, N * N, "gemm",
                f"tiled SGEMM, B tile transposed, tile {T}, row length {T + p}, N {N}",
                "sum(k, 0, N, x[(i / N) * N + k] * x[N * N + k * N + i % N])", tol=1e-3,
                twin=f"gemm_bt_t{T}_p1_n{N}" if p == 0 else "-", defines={"N": N})

# ---- softmax: one block a row; max and sum trees interleaved vs sequential.
for rows in (SMS, 4 * SMS):
    L, B = 1024, 256
    for il in (1, 0):
        lab = f"softmax_il{il}_l{L}_r{rows}"
        add(lab, f"softmax<{il}>", rows, B, B * 4, L, 0, 0, rows * L, rows * L, "softmax",
            f"softmax rows of {L}, trees {'interleaved' if il else 'sequential'}, {rows} rows",
            "exp(x[i]) / sum(k, 0, L, exp(x[(i / L) * L + k]))", tol=1e-3,
            twin=f"softmax_il0_l{L}_r{rows}" if il else "-", defines={"L": L})

# ---- layernorm: one block a row staged in shared; V consecutive elements a thread.
# (Rows of 512: the reference costs 3 L terms an element.)
for V, B, rowsl in ((4, 128, (SMS, 4 * SMS)), (8, 64, (SMS,))):
    for rows in rowsl:
        L = V * B
        for p in (0, 1):
            lab = f"layernorm_v{V}_p{p}_r{rows}"
            s1 = "sum(k, 0, L, x[(i / L) * L + k])"
            s2 = "sum(k, 0, L, x[(i / L) * L + k] * x[(i / L) * L + k])"
            add(lab, f"layernorm<{V},{p}>", rows, B, (L + L // 32 + B) * 4, L, 0, 0, rows * L, rows * L,
                "layernorm", f"layernorm rows of {L}, {V} consecutive elements a thread, pad {p}, {rows} rows",
                f"(x[i] - {s1} / f32(L)) / sqrt({s2} / f32(L) - ({s1} / f32(L)) * ({s1} / f32(L)) + 1e-5)",
                tol=1e-3, twin=f"layernorm_v{V}_p1_r{rows}" if p == 0 else "-", defines={"L": L})

# ---- transposes not in calibration.
for G in (8 * SMS, 32 * SMS):
    for p in (0, 1):
        lab = f"tr_small_p{p}_g{G}"
        add(lab, f"tr_small<{p}>", G, 256, 0, 0, 0, 0, G * 8 * 256, G * 8 * 256, "transpose",
            f"batched 16x16 transposes, a warp a matrix, row length {16 + p}, {G} blocks",
            "x[(i / 256) * 256 + (i % 16) * 16 + (i % 256) / 16]", tol=0.0,
            twin=f"tr_small_p1_g{G}" if p == 0 else "-")
for N in (1024, 2048):
    for p in (0, 1):
        lab = f"tr_rect_p{p}_n{N}"
        add(lab, f"tr_rect<{p}>", (N // 64, N // 32), (32, 8), 0, N, 0, 0, N * N, N * N, "transpose",
            f"transpose through a 32 x 64 tile, row length {64 + p}, N {N}",
            "x[(i % N) * N + i / N]", tol=0.0, twin=f"tr_rect_p1_n{N}" if p == 0 else "-",
            defines={"N": N})


def ron(r):
    d = {"GX": r["gx"], "GY": r["gy"], "BX": r["bx"], "BY": r["by"], "SMEM": r["smem"],
         "A": r["a"], "BB": r["b"], "C": r["c"], "XLEN": r["xlen"], "OLEN": r["outlen"],
         "G": r["gx"] * r["gy"], "B": r["bx"] * r["by"]}
    d.update(r["defines"])
    defs = ", ".join(f'"{k}": {v}' for k, v in d.items())
    out = f'(name: "out", ty: F32, len: "OLEN", expect: "{r["expect"]}"'
    if r["tol"] is not None:
        out += f", tolerance: {r['tol']}"
    if r["check"]:
        out += f', check: "{r["check"]}"'
    out += ")"
    return f"""// Out-of-family validation set 1 (issue 38 item 3): {r['what']}.
// Kernel `{r['kernel']}` of ../ooff.cu through NVRTC; the launch is row `{r['label']}` of
// ../launches.tsv (written by ../gen_launches.py; do not edit by hand).
Program(
    name: "{r['label']}",
    defines: {{ {defs} }},
    launch: (grid: ["GX", "GY"], block: ["BX", "BY"], dynamic_shared: "SMEM"),
    buffers: [
        (name: "x", ty: F32, len: "XLEN", init: Random(1)),
        {out},
    ],
    cuda: (file: "../ooff.cu", kernel: "{r['kernel']}", args: ["x", "out", "A", "BB", "C"]),
)
"""


def main():
    labels = [r["label"] for r in ROWS]
    assert len(labels) == len(set(labels)), "duplicate labels"
    for r in ROWS:
        assert r["twin"] == "-" or r["twin"] in labels, r["twin"]
    cols = ["label", "kernel", "gx", "gy", "bx", "by", "smem", "a", "b", "c", "xlen", "outlen",
            "family", "twin", "what"]
    with open(os.path.join(HERE, "launches.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in ROWS:
            f.write("\t".join(str(r[c]) for c in cols) + "\n")
    d = os.path.join(HERE, "launches")
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        if old.endswith(".cu.ron"):
            os.remove(os.path.join(d, old))
    for r in ROWS:
        with open(os.path.join(d, r["label"] + ".cu.ron"), "w") as f:
            f.write(ron(r))
    steps = sum(1 for r in ROWS if r["twin"] != "-")
    print(f"{len(ROWS)} launches, {steps} steps, {len(set(r['family'] for r in ROWS))} families")


if __name__ == "__main__":
    main()
