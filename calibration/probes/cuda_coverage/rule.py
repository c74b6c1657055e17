#!/usr/bin/env python3
"""The merge rule derived from ptxas 12.6 (sm_90) on merge_family.ptx, as a predictor over
gen_merge.py's kernel parameters (not over PTX): each kernel's static stream of shared
accesses, as `streams.py sass` writes it.

    rule.py [heldout N]      > FILE.rule.stream     (training family, or held-out draw N)

The rule (README.md, "The merge rule"):
 1. Same base: accesses merge only when ptxas sees one base plus constants. It does for a
    shared symbol plus immediates, one register plus immediates, and registers made from one
    register by adding constants (64-bit `add.s64 r, base, imm`, an immediate moved to a
    register first, a chain of such adds, 32-bit `add.s32` on 32-bit shared addresses). It
    does not through a 32-bit index (`or`/`add.s32`/`mad.lo` on the index, then `mul.wide`
    and `add.s64`: the 32-bit wrap hides the constant), nor through `cvta` (generic and back).
    `ld.volatile` never merges.
 2. Alignment: a symbol plus immediates has an exact address (ptxas's layout: variables in
    declaration order, each at its declared alignment). A register base has only a known
    power-of-two alignment: the least of the index's (shl/mul/and of it, a masked loaded
    value, a loop-carried index) and that of the variable's address (its lowest set bit, not
    its residue: s at byte 12 through a register is 4-aligned, no merge at all).
 3. Windows are aligned in shared memory (exact addresses for a symbol; from the base for a
    register, up to its known alignment), 16 bytes (8 when only 8-byte alignment is known): all of a window's words -> one access of the window; three of a
    16-byte window's four 4-byte words (loads only) -> LDS.128 of all four, even when the
    fourth lies in another variable or past the end of the shared allocation; two words of an
    aligned 8-byte half -> LDS.64 (STS.64); two 8-byte elements of a 16-byte window ->
    LDS.128; else one access each.
 4. Groups end at a shared store (loads), a shared load (stores), `bar.sync`; not at a
    global load, not at the order of the accesses.
 5. Loops with a constant trip count are unrolled by ptxas first (fully when small: 512 trips
    of a 5-instruction body were), then 1-4 apply across trips; a run-time count: per trip.
"""
import sys

import gen_merge as G

MERGEABLE = {"sym", "r64imm", "add64", "add64reg", "add64chain", "sh32", "sh32add"}


def layout(k):
    """Byte address of s (ptxas: declaration order, each at its alignment)."""
    a = 0
    if k.pad:
        a = k.pad
    return (a + k.salign - 1) // k.salign * k.salign


def chunk(offs, es, known, store):
    """Accesses for one group: offs are absolute byte offsets modulo `known` (the provable
    alignment, 16 at most); returns SASS names."""
    name = "STS" if store else "LDS"
    out = []
    if known < 8 or (es == 8 and known < 16):
        return [f"{name}.{8 * es}"] * len(offs)
    win = 16 if known >= 16 else 8
    by = {}
    for o in offs:
        by.setdefault(o // win, []).append(o)
    for w, m in sorted(by.items()):
        m = sorted(set(m))
        per = win // es
        if len(m) == per:
            out.append(f"{name}.{8 * win}")
        elif es == 4 and win == 16 and len(m) == 3 and not store:
            out.append(f"{name}.128")
        elif es == 4:
            halves = {}
            for o in m:
                halves.setdefault(o // 8, []).append(o)
            for h in halves.values():
                out += [f"{name}.64"] if len(h) == 2 else [f"{name}.32"] * len(h)
        else:
            out += [f"{name}.64"] * len(m)
    return out


def predict_k(k):
    es = 8 if k.ty == "f64" else 4
    pro = ["STS.32"] + (["STS.32"] if k.pad else [])
    order = list(range(k.n))
    if k.ordr == "desc":
        order = order[::-1]
    elif k.ordr == "perm":
        G.random.Random(k.n * 31 + k.start).shuffle(order)
    half = len(order) // 2 if k.midat < 0 else k.midat
    # groups: split where a shared store or a barrier sits in the middle
    split = k.mid in ("st_same", "st_other", "bar")
    groups = [order[:half], order[half:]] if split and k.mid != "none" else [order]
    mids = ["STS.32"] if k.mid in ("st_same", "st_other") else []
    s_addr = layout(k)
    if k.af == "sym":
        a_b = 1 << 20
    elif k.bk == "none":
        a_b = es
    else:
        a_b = k.al * es
    # A symbol plus immediates: exact addresses. A register: only a power of two dividing it
    # (the variable's address's and the index's), so windows count from the base.
    if k.af == "sym":
        known, base_mod = 16, s_addr % 16
    else:
        tz = (s_addr & -s_addr) if s_addr else 1 << 20
        known, base_mod = min(a_b, tz, 16), 0
    acc = []
    mergeable = k.af in MERGEABLE and not k.vol
    for gi, g in enumerate(groups):
        if gi == 1:
            acc += mids
        offs = [(base_mod + (k.start + i) * es) for i in g]
        if mergeable:
            acc += chunk([o % (1 << 30) for o in offs], es, known, bool(k.st))
        else:
            acc += [("STS" if k.st else "LDS") + f".{8 * es}"] * len(g)
    if k.bk == "loop":
        # 4 trips of a constant-count loop: ptxas unrolls it (rule 5); the trips are 64
        # elements apart, so nothing merges across them
        acc = acc * 4
    tail = []
    if k.st:
        tail = [f"LDS.{8 * es}"]
    return pro + acc + tail


def predict_h(h):
    """Loops: unrolled fully when the trip count is constant (the training family's T <= 512
    with a small body), then merged across trips; a run-time count: per trip as written."""
    pro = ["STS.32"]
    name = "STS" if h.st else "LDS"
    if h.T == 0 or h.work > 16 or h.T * h.k > 256:
        return None  # partial unrolling or a run-time count: not predicted
    offs = [(t * h.c + j) * 4 for t in range(h.T) for j in range(h.k)]
    known = min(h.al * 4, 16)
    acc = chunk(offs, 4, known, bool(h.st)) if known >= 8 else [f"{name}.32"] * len(offs)
    tail = ["LDS.32"] if h.st else []
    return pro + acc + tail


def main(argv):
    ks = G.heldout(int(argv[1])) if argv and argv[0] == "heldout" else G.training()
    for k in ks:
        p = predict_h(k) if isinstance(k, G.H) else predict_k(k)
        if p is None:
            print(f"{k.name}\tNOT_PREDICTED")
        else:
            print(f"{k.name}\t{' '.join(p)}")


if __name__ == "__main__":
    main(sys.argv[1:])
