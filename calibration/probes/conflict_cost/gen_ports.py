#!/usr/bin/env python3
"""Writes ports/<kernel>.ron: one warpsim launch file per kernel of probe.cu (families 1-6; the
clock64 kernels are nvcc only). Each takes the launch from defines, so predict.py runs every row
of launches.tsv as `warpsim run ports/<kernel>.ron -D G=.. -D B=.. -D SMEM=.. -D A=.. -D BB=..
-D C=.. -D XLEN=.. -D OLEN=..`: the same grid, block, dynamic shared bytes, arguments and buffer
lengths as probe.cu's host launches on the H200. Input x: Random(1), as the host fills it.

Reductions carry their expected sums (warpsim verifies its own run); the other kernels compute
zeros or garbage by design (races between warps in the probes without barriers) and are not
checked.

Usage: python3 gen_ports.py   (from this folder; rewrites ports/)
"""

import csv
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def port_name(kernel):
    """`lvl<2,1,0,1,0>` -> `lvl_2_1_0_1_0`."""
    return re.sub(r"[<>,]+", "_", kernel).strip("_")


EXPECT = {
    "reduce0": "sum(k, 0, B, x[i * B + k])",
    "reduce1": "sum(k, 0, B, x[i * B + k])",
    "reduce1p": "sum(k, 0, B, x[i * B + k])",
    "reduce2": "sum(k, 0, B, x[i * B + k])",
    "reduce3": "sum(k, 0, 2 * B, x[i * 2 * B + k])",
}


def port(kernel):
    expect = EXPECT.get(kernel)
    out = f'(name: "out", ty: F32, len: "OLEN", expect: "{expect}")' if expect else \
        '(name: "out", ty: F32, len: "OLEN")'
    return f"""// Kernel `{kernel}` of ../probe.cu (issue 38, conflict cost), compiled by NVRTC at run time; the
// launch comes from the defines (predict.py passes each row of ../launches.tsv with -D). Written by
// ../gen_ports.py.
Program(
    name: "{port_name(kernel)}",
    defines: {{ "G": 1, "B": 32, "SMEM": 0, "A": 0, "BB": 0, "C": 0, "XLEN": 64, "OLEN": 32 }},
    launch: (grid: ["G"], block: ["B"], dynamic_shared: "SMEM"),
    buffers: [
        (name: "x", ty: F32, len: "XLEN", init: Random(1)),
        {out},
    ],
    cuda: (file: "../probe.cu", kernel: "{kernel}", args: ["x", "out", "A", "BB", "C"]),
)
"""


def main():
    with open(os.path.join(HERE, "launches.tsv")) as f:
        kernels = sorted({r["kernel"] for r in csv.DictReader(f, delimiter="\t")
                          if not r["kernel"].startswith("treeclk")})
    d = os.path.join(HERE, "ports")
    os.makedirs(d, exist_ok=True)
    for k in kernels:
        with open(os.path.join(d, port_name(k) + ".ron"), "w") as f:
            f.write(port(k))
    print(f"{len(kernels)} ports in {d}")


if __name__ == "__main__":
    main()
