#!/usr/bin/env python3
"""Writes tests/fixtures/h200/narrow_{patterns.txt,measured.tsv} and
narrow_heldout_{patterns.txt,measured.tsv} from probe_patterns.txt and measured*.tsv.

Trace op: `ld`/`st` for loads and stores (signedness stays in the name), `atom.OP.TYPE` /
`red.OP.TYPE` for atomics; width from the PTX type."""
import os
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../tests/fixtures/h200")
pats = {l.split()[0]: (l.split()[1], l.split()[2:]) for l in open("probe_patterns.txt")}


def op_width(kind):
    p = kind.split(".")
    t = p[-1]
    w = {"u8": 1, "s8": 1, "u16": 2, "s16": 2}.get(t) or int(t[1:]) // 8
    return (p[0] if p[0] in ("ld", "st") else kind), w


COLS = ["wf_ld", "bc_ld", "wf_st", "bc_st", "wf_atom", "bc_atom", "n_atoms"]
for src, stem in (("measured.tsv", "narrow"), ("measured_heldout.tsv", "narrow_heldout")):
    lines = [l.rstrip("\n").split("\t") for l in open(src)]
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
