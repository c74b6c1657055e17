#!/usr/bin/env python3
"""A synthetic raw folder shaped like the device call's, for checking parse.py and compare.py
before the call: counters from the natural rule (H1 for ldsm/stsm, G1 for cp.async, the house
rule for lds/sts.128; the same number in the Source-page and hardware counters), registers and
shared words from the PTX ISA layouts, TMA tiles from the dense+swizzle hypothesis, the stores'
shared-address winner the highest lane.

usage: dryrun.py OUTDIR   then   parse.py OUTDIR OUTDIR/tables && compare.py OUTDIR/tables/measured.tsv predictions.tsv
Expected: every launch and every functional check as predicted (compare: no misses)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from parse import KIND_K, TMA_INNER, load_patterns, src_byte  # noqa: E402
from rules import (g1_store, h1_matrix_phases, house, ldsm_expected, mat_kind,  # noqa: E402
                   stsm_expected, tma_swizzle)

HDR = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"'


def counters(name, p):
    k = p["kind"]
    if k.startswith("ldsm"):
        wf, bc = h1_matrix_phases(p["o"], k)
        return {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum": wf,
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum": bc,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": wf,
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": bc}
    if k.startswith("stsm"):
        wf, bc = h1_matrix_phases(p["o"], k)
        return {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum": wf,
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum": bc,
                "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": wf,
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": bc}
    if k in ("lds.128", "sts.128"):
        op = k[:2]
        wf, bc, _ = house(p["o"], 16, "ld" if op == "ld" else "st")
        return {f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{'ld' if op == 'ld' else 'st'}.sum": wf,
                f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{'ld' if op == 'ld' else 'st'}.sum": bc}
    if k.startswith(("ca.", "cg.")):
        wf, bc = g1_store(p["o"], p["s"], k)
        return {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum": wf,
                "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": bc,
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum": bc}
    return {"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum": "1,234"}


def ncu_file(path, names, pats, tma=False):
    lines, rows = [], [HDR]
    for i, n in enumerate(names):
        p = pats[n]
        k = p["kind"]
        lines.append(f"L {n} {p['cfg']} {p['mode']}" if tma else f"L {n} {k}")
        kn = f"void one_m<{KIND_K[k]}>(const int *, unsigned int *, int)" if k in KIND_K else "tma_k"
        for m, v in counters(n, p).items():
            rows.append(f'"{i}","1","probe","h","{kn}","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","{m}","","{v}"')
    open(path, "w").write("\n".join(lines + ["==PROF== Disconnected"] + rows) + "\n")


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    pats = load_patterns()

    def lst(n):
        return [x for x in open(os.path.join(HERE, "lists", n + ".txt")).read().split()]
    m = lst("m_core")
    ncu_file(os.path.join(out, "ncu_m_core_00.csv"), m[:100], pats)
    ncu_file(os.path.join(out, "ncu_m_core_01.csv"), m[100:], pats)
    ncu_file(os.path.join(out, "ncu_c_core_00.csv"), lst("c_core"), pats)
    ncu_file(os.path.join(out, "ncu_m_extra_00.csv"), lst("m_extra"), pats)
    ncu_file(os.path.join(out, "ncu_tma_00.csv"), lst("tma"), pats, tma=True)
    # functional dumps
    with open(os.path.join(out, "dump_m.txt"), "w") as f:
        for n in lst("dump_m"):
            p = pats[n]
            f.write(f"L {n} {p['kind']}\n")
            if p["kind"].startswith("ldsm"):
                regs = ldsm_expected(p["o"], p["kind"], lambda b: (b // 2) & 0xFFFF)
                _, x, _ = mat_kind(p["kind"])
                for t in range(32):
                    r = regs[t] + [0] * (4 - x)
                    f.write(f"R {n} {t} " + " ".join(f"{v:08x}" for v in r) + "\n")
            else:
                half = {off: max(c) for off, c in stsm_expected(p["o"], p["kind"]).items()}
                words = {}
                for off, v in half.items():
                    w = words.get(off & ~3, 0xEEEEEEEE)
                    sh = 8 * (off & 3)
                    words[off & ~3] = (w & ~(0xFFFF << sh)) | (v << sh)
                for off in sorted(words):
                    f.write(f"W {n} {off} {words[off]:08x}\n")
    with open(os.path.join(out, "dump_c.txt"), "w") as f:
        for n in lst("dump_c"):
            p = pats[n]
            f.write(f"L {n} {p['kind']}\n")
            w = int(p["kind"].split(".")[1])
            byt = {}
            for t in range(32):
                if p["o"][t] < 0:
                    continue
                size = p["srcsize"] if p["kind"].endswith(".z") else w
                for i in range(w):
                    byt[p["o"][t] + i] = src_byte(p["s"][t] + i) if i < size else 0
            words = {}
            for b, v in byt.items():
                words[b & ~3] = (words.get(b & ~3, 0xEEEEEEEE) & ~(0xFF << (8 * (b & 3)))) | (v << (8 * (b & 3)))
            for off in sorted(words):
                f.write(f"W {n} {off} {words[off]:08x}\n")
    with open(os.path.join(out, "dump_tma.txt"), "w") as f:
        for n in lst("dump_tma"):
            p = pats[n]
            f.write(f"L {n} {p['cfg']} {p['mode']}\n")
            half = {}
            if "bulk" in p["mode"]:
                for b in range(0, 8192, 2):
                    half[b] = (src_byte(b + 1) << 8) | src_byte(b)
                nbytes = 8192
            else:
                ib = TMA_INNER[p["cfg"]]
                nbytes = ib * 64
                for r in range(64):
                    for c in range(ib // 2):
                        half[tma_swizzle(r * ib + 2 * c, p["cfg"])] = ((p["y0"] + r) * 256 + p["x0"] + c) & 0xFFFF
            for w0 in range(0, nbytes, 128):
                ws = [half.get(w0 + 4 * j, 0) | (half.get(w0 + 4 * j + 2, 0) << 16) for j in range(32)]
                f.write(f"T {n} {w0} " + " ".join(f"{x:08x}" for x in ws) + "\n")
            if "store" in p["mode"]:
                f.write(f"G {n} written 4096 mismatches 0\n")
    print(f"dry-run raw folder in {out}")


if __name__ == "__main__":
    main()
