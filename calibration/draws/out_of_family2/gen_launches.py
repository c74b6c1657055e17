#!/usr/bin/env python3
"""Writes launches.tsv (the launch list, read by the host program in ooff2.cu, predict.sh and
compare.py) and launches/<label>.cu.ron (one warpsim launch file per launch, the kernel of
../ooff2.cu through NVRTC, its output checked against a CPU reference: `expect`/`check`).

launches.tsv: label, kernel, gx, gy, bx, by, smem (dynamic shared bytes), a, b, c (the kernel's
int arguments), xlen, outlen (f32 elements of x and out), family, twin (the label of the
conflict-free twin of a conflicted launch; "-" otherwise), what.

Sizes: one block an SM (132 SMs on the H200 / H100) up to several waves; the reference
expressions are kept cheap enough that every launch verifies under warpsim in seconds.

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


def key(idx):
    """The 24-bit integer key of x[idx] ((x + 1) * 2^23, exact), as the kernels compute it."""
    return f"u32((x[{idx}] + 1.0) * 8388608.0)"


# ---- gemv: y = A v, a thread a row, the A tile in shared with rows of 32 (32-way) or 33; and
# y = A^T v, a thread a column (no conflicts). 512 columns (rows for gemv_t); 128 rows a block.
NC = 512
for G in (SMS, 4 * SMS):
    R = G * 128
    for p in (0, 1):
        lab = f"gemv_n_p{p}_g{G}"
        add(lab, f"gemv_n<{p}>", G, 128, 0, NC, 0, 0, R * NC + NC, R, "gemv",
            f"GEMV a thread a row, A tile rows of {32 + p}, {R} x {NC}, {G} blocks",
            "sum(k, 0, NC, x[i * NC + k] * x[R * NC + k])", tol=1e-3,
            twin=f"gemv_n_p1_g{G}" if p == 0 else "-", defines={"NC": NC, "R": R})
for G in (SMS, 4 * SMS):
    C = G * 128
    add(f"gemv_t_g{G}", "gemv_t", G, 128, 0, NC, 0, 0, NC * C + NC, C, "gemv",
        f"GEMV transposed (weighted column sums) a thread a column, {NC} x {C}, {G} blocks",
        "sum(k, 0, NR, x[k * COLS + i] * x[NR * COLS + k])", tol=1e-3,
        defines={"NR": NC, "COLS": C})

# ---- bitrev: 2^L elements a block through shared memory; the reversed reads 32-way (P 0) or
# padded one element a 2^(L-5)-element row (P 1).
for L, B, Gs in ((10, 256, (8 * SMS, 32 * SMS)), (12, 512, (4 * SMS,))):
    N = 1 << L
    for G in Gs:
        for p in (0, 1):
            lab = f"bitrev_l{L}_p{p}_g{G}"
            add(lab, f"bitrev<{L},{p}>", G, B, (N + N // 32) * 4, 0, 0, 0, G * N, G * N, "bitrev",
                f"bit-reversal permutation of {N} elements a block, {'padded' if p else 'unpadded'}, {G} blocks",
                "x[(i / N) * N + sum(k, 0, L, (((i % N) >> k) & 1) << (L - 1 - k))]", tol=0.0,
                twin=f"bitrev_l{L}_p1_g{G}" if p == 0 else "-", defines={"N": N, "L": L})

# ---- fwht: 1,024 points a block, butterflies dealt group-major; unpadded (up to 32-way) or
# i + i / 32. Reference: sum over the block of (-1)^popc(i & k) x[k] (parity by a 5-bit table).
PAR = "((2523490710u >> ((u32((i % N) & k) ^ (u32((i % N) & k) >> 5u)) & 31u)) & 1u)"  # 0x96696996
for G in (SMS, 4 * SMS):
    for p in (0, 1):
        lab = f"fwht_p{p}_g{G}"
        add(lab, f"fwht<{p}>", G, 512, (1024 + 32) * 4, 0, 0, 0, G * 1024, G * 1024, "fwht",
            f"Walsh-Hadamard transform of 1024 points a block, butterflies group-major, {'padded' if p else 'unpadded'}, {G} blocks",
            f"sum(k, 0, N, {PAR} == 0u ? x[(i / N) * N + k] : -x[(i / N) * N + k])", tol=1e-4,
            twin=f"fwht_p1_g{G}" if p == 0 else "-", defines={"N": 1024})

# ---- oets: odd-even transposition sort of 2B keys a block; natural (2-way) or split halves.
for B, G in ((128, 4 * SMS), (256, SMS)):
    n = 2 * B
    for s in (0, 1):
        lab = f"oets_s{s}_k{n}_g{G}"
        add(lab, f"oets<{s}>", G, B, n * 4, 0, 0, 0, G * n, G * n, "oets",
            f"odd-even transposition sort of {n} keys a block, {'split even/odd halves' if s else 'natural layout'}, {G} blocks",
            "permutation(x)", check="i % NK == NK - 1 || out[i] <= out[i + 1]",
            twin=f"oets_s1_k{n}_g{G}" if s == 0 else "-", defines={"NK": n})

# ---- dhist: 16-bin digit histogram (digit = bits 4..7 of the key) of 4,096 keys a block by
# shared atomics; a counter a bin (collisions) or a counter a bin and lane.
PER = 4096
for G in (SMS, 4 * SMS):
    for v in (0, 1):
        lab = f"dhist_v{v}_g{G}"
        add(lab, f"dhist<{v}>", G, 256, 0, PER, 4, 0, G * PER, G * 16, "dhist",
            f"radix digit histogram (16 bins), shared atomics, {'a counter a bin and lane' if v else 'a counter a bin'}, {PER} keys a block, {G} blocks",
            f"sum(k, 0, PER, (({key('(i / 16) * PER + k')} >> 4u) & 15u) == u32(i % 16) ? 1.0 : 0.0)",
            tol=0.0, twin=f"dhist_v1_g{G}" if v == 0 else "-", defines={"PER": PER})

# ---- psort: 8 keys a thread, 19-comparator network on a private (volatile) shared array;
# thread-major (8-way) or interleaved.
for G in (4 * SMS, 16 * SMS):
    B = 128
    for il in (0, 1):
        lab = f"psort_il{il}_g{G}"
        add(lab, f"psort<{il}>", G, B, 8 * B * 4, 0, 0, 0, G * B * 8, G * B * 8, "psort",
            f"8-key sorting network a thread on a private shared array, {'interleaved' if il else 'thread-major'}, {G} blocks",
            "permutation(x)", check="i % 8 == 7 || out[i] <= out[i + 1]",
            twin=f"psort_il1_g{G}" if il == 0 else "-")

def CU(u, k):
    """C[u][k] = ((u + 1)(2k + 1) mod 8) - 3.5, the kernel's basis."""
    return f"(f32((({u}) + 1) * (2 * ({k}) + 1) & 7) - 3.5)"


# ---- tile8: Y = C X C^T on 8 x 8 tiles, 32 tiles a block; rows of 8 (8- and 4-way) or 9.
for G in (4 * SMS, 16 * SMS):
    nt = G * 32
    for p in (0, 1):
        lab = f"tile8_p{p}_g{G}"
        add(lab, f"tile8<{p}>", G, 256, 0, 0, 0, 0, nt * 64, nt * 64, "tile8",
            f"separable 8x8 tile transform C X C^T (fixed integer basis), rows of {8 + p}, {nt} tiles",
            f"sum(j, 0, 8, sum(k, 0, 8, {CU('(i / 8) % 8', 'j')} * x[(i / 64) * 64 + j * 8 + k] * {CU('i % 8', 'k')}))",
            tol=1e-4, twin=f"tile8_p1_g{G}" if p == 0 else "-")

# ---- ksum: grid-stride sum, plain or Kahan, warp-shuffle trees (no conflicts).
n = 8 * SMS * 256 * 16
for G in (2 * SMS, 8 * SMS):
    for c in (0, 1):
        lab = f"ksum_c{c}_g{G}"
        add(lab, f"ksum<{c}>", G, 256, 0, n, 0, 0, n, G, "ksum",
            f"grid-stride sum {'Kahan-compensated' if c else 'plain'}, {n // (G * 256)} elements a thread, shuffle trees, {G} blocks",
            "sum(k, 0, PER, x[(k / B) * G * B + i * B + k % B])", defines={"PER": n // G})

# ---- hash: FNV-1a over 8 keys a thread; the NR LCG, 256 rounds on 4 keys a thread.
for G in (8 * SMS, 32 * SMS):
    T = G * 256
    h = "2166136261u"
    for j in range(8):
        for b in range(3):
            h = f"(({h}) ^ (({key(f'{j} * T + i')} >> {8 * b}u) & 255u)) * 16777619u"
    add(f"fnv1a_g{G}", "fnv1a", G, 256, 0, 0, 0, 0, 8 * T, T, "hash",
        f"FNV-1a of 8 keys (3 bytes each) a thread, {G} blocks", f"f32(({h}) >> 8u)", tol=0.0,
        defines={"T": T})
RND, A_, C_ = 256, 1664525, 1013904223
AK = pow(A_, RND, 1 << 32)
CK = (C_ * sum(pow(A_, q, 1 << 32) for q in range(RND))) % (1 << 32)
for G in (8 * SMS, 32 * SMS):
    T = G * 256
    terms = " ^ ".join(f"({key(f'{j} * T + i')} * {AK}u + {CK}u)" for j in range(4))
    add(f"lcg_g{G}", "lcg", G, 256, 0, RND, 0, 0, 4 * T, T, "hash",
        f"LCG, {RND} rounds on 4 keys a thread, {G} blocks", f"f32(({terms}) >> 8u)", tol=0.0,
        defines={"T": T})


# ---- morton: 3-D Morton encode / decode of 8-bit coordinates, 4 keys a thread.
def part(v):
    v = f"(({v}) & 255u)"
    for sh, m in ((8, 0x0000F00F), (4, 0x000C30C3), (2, 0x00249249)):
        v = f"(({v} | ({v} << {sh}u)) & {m}u)"
    return v


def compact(v):
    v = f"(({v}) & {0x00249249}u)"
    for sh, m in ((2, 0x000C30C3), (4, 0x0000F00F), (8, 0xFF)):
        v = f"(({v} | ({v} >> {sh}u)) & {m}u)"
    return v


for G in (8 * SMS, 16 * SMS):
    T = G * 256
    enc = " ^ ".join(f"({part(key(f'{j} * T + i'))} | ({part(key(f'{j} * T + i') + ' >> 8u')} << 1u)"
                     f" | ({part(key(f'{j} * T + i') + ' >> 16u')} << 2u))" for j in range(4))
    dec = " ^ ".join(f"({compact(key(f'{j} * T + i'))} | ({compact(key(f'{j} * T + i') + ' >> 1u')} << 8u)"
                     f" | ({compact(key(f'{j} * T + i') + ' >> 2u')} << 16u))" for j in range(4))
    add(f"morton_enc_g{G}", "morton_enc", G, 256, 0, 0, 0, 0, 4 * T, T, "morton",
        f"3-D Morton encode of 8-bit coordinates, 4 keys a thread, {G} blocks", f"f32({enc})",
        tol=0.0, defines={"T": T})
    add(f"morton_dec_g{G}", "morton_dec", G, 256, 0, 0, 0, 0, 4 * T, T, "morton",
        f"3-D Morton decode to 8-bit coordinates, 4 keys a thread, {G} blocks", f"f32({dec})",
        tol=0.0, defines={"T": T})


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
    return f"""// Out-of-family validation set 2: {r['what']}.
// Kernel `{r['kernel']}` of ../ooff2.cu through NVRTC; the launch is row `{r['label']}` of
// ../launches.tsv (written by ../gen_launches.py; do not edit by hand).
Program(
    name: "{r['label']}",
    defines: {{ {defs} }},
    launch: (grid: ["GX", "GY"], block: ["BX", "BY"], dynamic_shared: "SMEM"),
    buffers: [
        (name: "x", ty: F32, len: "XLEN", init: Random(1)),
        {out},
    ],
    cuda: (file: "../ooff2.cu", kernel: "{r['kernel']}", args: ["x", "out", "A", "BB", "C"]),
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
    print(f"{len(ROWS)} launches, {len(set(r['kernel'] for r in ROWS))} kernels, {steps} steps, {len(set(r['family'] for r in ROWS))} families")


if __name__ == "__main__":
    main()
