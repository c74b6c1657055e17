#!/usr/bin/env python3
"""const_cold: the launch table in one place. Writes configs_gen.h (the host's table, included by
const_cold.cu) and launches/NAME.cu.ron (warpsim's launch of the same kernel and grid).
    python3 gen.py            (from anywhere; writes next to this file)
A config: name, L (256-byte constant lines), U (1 ULDC / 0 LDC), ORD (0 constant first / 1 LDG
first), WARM, G (1 with the LDG), grid, block. 132 SMs: grid 132 blocks of W warps (W <= 32),
or 132 k blocks for k blocks an SM (one wave)."""
import os

D = os.path.dirname(os.path.abspath(__file__))


def cfg(name, L, U, ORD, WARM, G, grid, block):
    return dict(name=name, L=L, U=U, ORD=ORD, WARM=WARM, G=G, grid=grid, block=block)


C = []
# 4 warps an SM (one block of 128): the main matrix
W4 = (132, 128)
C += [cfg("g_L0_w4", 0, 1, 0, 0, 1, *W4),      # control: the LDG alone (no constant)
      cfg("none_w4", 0, 1, 0, 0, 0, *W4)]      # control: neither (prologue, clocks, store)
for L in (1, 2, 4, 8):
    C.append(cfg(f"u_L{L}_before_w4", L, 1, 0, 0, 1, *W4))
for L in (1, 8):
    C.append(cfg(f"u_L{L}_after_w4", L, 1, 1, 0, 1, *W4))
    C.append(cfg(f"u_L{L}_warm_w4", L, 1, 0, 1, 1, *W4))
    C.append(cfg(f"u_L{L}_noldg_w4", L, 1, 0, 0, 0, *W4))
    C.append(cfg(f"d_L{L}_before_w4", L, 0, 0, 0, 1, *W4))
    C.append(cfg(f"d_L{L}_warm_w4", L, 0, 0, 1, 1, *W4))
C.append(cfg("d_L1_after_w4", 1, 0, 1, 0, 1, *W4))
# warps an SM: 1, 16 (one block), 64 (two blocks of 1024)
for tag, (g, b) in (("w1", (132, 32)), ("w16", (132, 512)), ("w64", (264, 1024))):
    C.append(cfg(f"g_L0_{tag}", 0, 1, 0, 0, 1, g, b))
    C.append(cfg(f"u_L1_before_{tag}", 1, 1, 0, 0, 1, g, b))
    C.append(cfg(f"u_L8_before_{tag}", 8, 1, 0, 0, 1, g, b))
    C.append(cfg(f"u_L1_warm_{tag}", 1, 1, 0, 1, 1, g, b))
# blocks an SM at 16 warps: 4 blocks of 4 warps; at 64 warps: 16 blocks of 4 warps
for tag, (g, b) in (("w16b4", (528, 128)), ("w64b16", (2112, 128))):
    C.append(cfg(f"g_L0_{tag}", 0, 1, 0, 0, 1, g, b))
    C.append(cfg(f"u_L1_before_{tag}", 1, 1, 0, 0, 1, g, b))

names = [c["name"] for c in C]
assert len(names) == len(set(names))


def kname(c):
    return f"cc<{c['L']},{c['U']},{c['ORD']},{c['WARM']},{c['G']}>"


def expect(c):
    r = "x[i]" if c["G"] else "i"
    for l in range(c["L"]):
        r = f"fma({r}, c_tab[{64 * l}], 1.0)"
    if c["WARM"]:
        w = "0.0"
        for l in range(c["L"]):
            w = f"fma({w}, 0.5, c_tab[{64 * l + 2}])"
        r = f"{r} + {w}"
    return r


def ron(c):
    n = c["grid"] * c["block"]
    what = ("no constant" if c["L"] == 0 else
            f"{c['L']} line(s) of 256 B, {'ULDC (uniform)' if c['U'] else 'LDC (per-lane address, D = 1)'}, "
            f"{'after' if c['ORD'] else 'before'} the LDG" if c["G"] else f"{c['L']} line(s), no LDG")
    if c["WARM"]:
        what += ", warm (the same lines touched first)"
    return f"""// calibration/probes/const_cold (issue 37): {c['name']}: {what};
// {c['grid']} blocks of {c['block']} threads. Kernel `{kname(c)}` of ../const_cold.cu; written by ../gen.py (do not edit).
Program(
    name: "{c['name']}",
    launch: (grid: [{c['grid']}], block: [{c['block']}]),
    buffers: [
        (name: "x", ty: F32, len: {n}, init: Random(1)),
        (name: "y", ty: F32, len: {n}, expect: "{expect(c)}", tolerance: 0.0001),
        (name: "ts", ty: F64, len: {n // 8}),
    ],
    constants: [
        (name: "c_tab", ty: F32, len: 512, init: Random(7)),
    ],
    cuda: (file: "../const_cold.cu", kernel: "{kname(c)}", args: ["x", "y", "ts", "0"]),
)
"""


if __name__ == "__main__":
    os.makedirs(os.path.join(D, "launches"), exist_ok=True)
    with open(os.path.join(D, "configs_gen.h"), "w") as f:
        f.write("// written by gen.py (do not edit): name, kernel, grid, block\n")
        f.write("static const Cfg CFGS[] = {\n")
        for c in C:
            f.write(f'    {{"{c["name"]}", {kname(c)}, {c["grid"]}, {c["block"]}}},\n')
        f.write("};\n")
    for c in C:
        with open(os.path.join(D, "launches", c["name"] + ".cu.ron"), "w") as f:
            f.write(ron(c))
    with open(os.path.join(D, "configs.tsv"), "w") as f:
        f.write("name\tkernel\tL\tU\tORD\tWARM\tG\tgrid\tblock\twarps_per_sm\tblocks_per_sm\n")
        for c in C:
            bps = c["grid"] // 132
            f.write(f"{c['name']}\t{kname(c)}\t{c['L']}\t{c['U']}\t{c['ORD']}\t{c['WARM']}\t{c['G']}\t"
                    f"{c['grid']}\t{c['block']}\t{bps * c['block'] // 32}\t{bps}\n")
    print(f"{len(C)} configs")
