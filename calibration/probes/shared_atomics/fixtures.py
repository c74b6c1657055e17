#!/usr/bin/env python3
"""Writes tests/fixtures/h200/atomics2_{patterns.txt,measured.tsv} and
atomics2_heldout_{patterns.txt,measured.tsv} from probe_patterns.txt and measured*.tsv, in the
narrow fixtures' format (`name op width o0 … o31`; st columns: the probe's initial store of
each lane's element, a plain store of the width).

Trace op: what the SASS is, in warpsim's names: `red.popc.u32` for an unused
atomicAdd(&x, 1u) (ATOMS.POPC.INC.32), `red.sub.u32` for atomicSub (ATOMS.ADD of -1), `atom.add.u32`
for a used atomicAdd(&x, 1u), the 64-bit and half forms by their PTX names."""
import os
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "../../../tests/fixtures/h200")
pats = {l.split()[0]: (l.split()[1], l.split()[2:]) for l in open(os.path.join(HERE, "probe_patterns.txt"))}

OPS = {
    "red.add1.u32": "red.popc.u32", "red.add1.s32": "red.popc.s32", "red.sub1.u32": "red.sub.u32",
    "atom.add1.u32": "atom.add.u32", "red.add2.u32": "red.add.u32", "red.add1.u64": "red.add.u64",
    "red.add1.f32": "red.add.f32",
}


def op_width(kind):
    t = kind.split(".")[-1]
    w = {"f16": 2, "f16x2": 4, "bf16x2": 4}.get(t) or int(t[1:]) // 8
    return OPS.get(kind, kind), w


COLS = ["wf_ld", "bc_ld", "wf_st", "bc_st", "wf_atom", "bc_atom", "n_atoms"]
for src, stem in (("measured.tsv", "atomics2"), ("measured_heldout.tsv", "atomics2_heldout")):
    lines = [l.rstrip("\n").split("\t") for l in open(os.path.join(HERE, src))]
    hdr = lines[0]
    with open(f"{OUT}/{stem}_patterns.txt", "w") as p, open(f"{OUT}/{stem}_measured.tsv", "w") as m:
        m.write("name\top\twidth\tld_wavefronts\tld_bank_conflicts\tst_wavefronts\tst_bank_conflicts\t"
                "atom_wavefronts\tatom_bank_conflicts\tatoms_executed\n")
        for r in lines[1:]:
            d = dict(zip(hdr, r))
            op, w = op_width(d["kind"])
            p.write(f"{d['name']} {op} {w} " + " ".join(pats[d["name"]][1]) + "\n")
            m.write(f"{d['name']}\t{op}\t{w}\t" + "\t".join(d[c] for c in COLS) + "\n")
print("ok")
