#!/usr/bin/env python3
"""Replays the atomic rules (README rules 7-10) over this campaign's patterns and compares
with Nsight's counters. Reuses ../narrow/replay.py (rules 1-8) for loads, native atomics and
compare-and-swap loops.

usage: replay.py [measured.tsv]   (measured_heldout.tsv only once the rule is fixed)
Columns compared: wf_ld bc_ld (the loops' loads), wf_atom bc_atom, n_atoms (ATOMS executed).
The probe's initial store (wf_st/bc_st) is not the atomic's and is not compared.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "narrow"))
import replay as narrow  # noqa: E402

# kind -> (form, width): native ATOMS (per lane queued), popc, CAS loops, the half's generic loop
FORMS = {
    "red.add1.u32": ("popc", 4), "red.add1.s32": ("popc", 4),
    "red.sub1.u32": ("native1", 4), "atom.add1.u32": ("native1", 4), "red.add2.u32": ("native1", 4),
    "red.inc.u32": ("native1", 4), "red.dec.u32": ("native1", 4), "atom.inc.u32": ("native1", 4),
    "atom.exch.b64": ("native1", 8), "atom.cas.b64": ("native2", 8),
    "atom.add.u64": ("loop", 8), "red.add1.u64": ("loop", 8), "red.add.u64": ("loop", 8),
    "atom.and.b64": ("loop", 8), "atom.or.b64": ("loop", 8), "atom.xor.b64": ("loop", 8),
    "atom.add.f64": ("loop", 8), "red.add1.f32": ("loop", 4),
    "atom.min.u64": ("loop_minmax", 8), "atom.max.u64": ("loop_minmax", 8),
    "atom.min.s64": ("loop_minmax", 8),
    "atom.add.f16x2": ("loop_generic", 4), "red.add.f16x2": ("loop_generic", 4),
    "atom.add.bf16x2": ("loop_generic", 4),
    "atom.add.f16": ("half_cas", 2),
}


def initial(kind, off):
    """probe.cu's fill_init: the element's initial value (u64 kinds: the 8 bytes at off)."""
    i = off // 4
    if FORMS[kind][1] == 8:
        return (i * 7 + 3) if i % 2 == 0 else 0  # even word small, odd word 0
    return i * 7 + 3


def operand(kind, lane):
    v = lane + 1
    if kind == "atom.min.s64":
        return 16 - v
    return v


def changes(kind, old, v):
    """Whether the 64-bit min/max would change `old` (the loop skips the swap when not)."""
    if kind == "atom.min.u64":
        return v < old
    if kind == "atom.max.u64":
        return v > old
    if kind == "atom.min.s64":
        return v < old  # small values: signed = unsigned order here
    return True


def update(kind, old, v):
    """The new value of the loop's element (64-bit wrap; f16x2/f32/f64 adds of small integers
    are exact, so integer arithmetic stands in for them)."""
    op = kind.split(".")[1]
    if op in ("min",):
        return min(old, v)
    if op == "max":
        return max(old, v)
    if op == "and":
        return old & ~v & (2**64 - 1)
    if op == "or":
        return old | (v << 32)
    if op == "xor":
        return old ^ v
    return (old + (1 if op == "add1" else v)) % 2**64


def loop(kind, active, offs, width, minmax):
    """Rule 8 (and its min/max form): trips of a load by the lanes left, then one swap per
    bank per phase by the lowest lane that would change its word; a lane whose load shows
    nothing to change is done without a swap."""
    mem = {}
    left = sorted(active)
    wf_ld = bc_ld = wf_at = trips = 0
    while left:
        a, b = narrow.load_cost(left, offs, width)
        wf_ld += a
        bc_ld += b
        seen = {l: mem.get(offs[l], initial(kind, offs[l])) for l in left}
        trying = [l for l in left if not minmax or changes(kind, seen[l], operand(kind, l))]
        skipped = [l for l in left if l not in trying]
        ok = []
        if trying:
            trips += 1
            for ph in narrow.phases(trying, width):
                if not ph:
                    continue
                wf_at += 2
                served = {}
                for l in ph:
                    banks = {(w % 32) for w in narrow.words(offs[l], width)}
                    if not any(bk in served for bk in banks):
                        for bk in banks:
                            served[bk] = l
                # The swap compares values: it succeeds if the word still holds what the lane
                # loaded (an earlier phase's swap that left the value alone does not fail it).
                for l in sorted(set(served.values())):
                    cur = mem.get(offs[l], initial(kind, offs[l]))
                    if cur == seen[l]:
                        ok.append(l)
                        mem[offs[l]] = update(kind, cur, operand(kind, l))
        left = [l for l in left if l not in ok and l not in skipped]
    return wf_ld, bc_ld, wf_at, 0, trips


def half_cas(active, offs):
    """atomicAdd on a 2-byte half: one generic 4-byte load of the word, then trips of a generic
    ATOM.E.CAS on the word by every lane left, priced as a native 4-byte cas (2 wavefronts a
    lane queued on a bank); one lane of each word succeeds a trip."""
    word = {l: (offs[l] // 4) * 4 for l in active}
    wf_ld, bc_ld = narrow.load_cost(active, word, 4)
    left = sorted(active)
    wf = bc = trips = 0
    while left:
        trips += 1
        a, b = narrow.native_atom(left, word, 4, 2)
        wf += a
        bc += b
        firsts = {}
        for l in left:
            firsts.setdefault(word[l], l)
        left = [l for l in left if firsts[word[l]] != l]
    return wf_ld, bc_ld, wf, bc, trips


def predict(kind, offs):
    active = [l for l in range(32) if offs[l] >= 0]
    form, width = FORMS[kind]
    z = dict(wf_ld=0, bc_ld=0, wf_atom=0, bc_atom=0, n_atoms=1)
    if form == "popc":
        wf = bc = 0
        for ph in narrow.phases(active, width):
            c = narrow.phase_cost(ph, offs, width, distinct=True)
            wf += c
            bc += max(0, c - 1)
        z["wf_atom"], z["bc_atom"] = wf, bc
    elif form.startswith("native"):
        z["wf_atom"], z["bc_atom"] = narrow.native_atom(active, offs, width, int(form[-1]))
    elif form.startswith("loop"):
        r = loop(kind, active, offs, width, form == "loop_minmax")
        z["wf_ld"], z["bc_ld"], z["wf_atom"], z["bc_atom"], z["n_atoms"] = r
        if form == "loop_generic":  # the generic ATOM.E.ADD.F16x2 tried first: 1 wavefront
            z["wf_atom"] += 1
    elif form == "half_cas":
        z["wf_ld"], z["bc_ld"], z["wf_atom"], z["bc_atom"], z["n_atoms"] = half_cas(active, offs)
    return z


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "measured.tsv")
    pats = {l.split()[0]: [int(x) for x in l.split()[2:]]
            for l in open(os.path.join(here, "probe_patterns.txt"))}
    lines = [l.rstrip("\n").split("\t") for l in open(path)]
    hdr, rows = lines[0], lines[1:]
    bad = {}
    for r in rows:
        m = dict(zip(hdr, r))
        p = predict(m["kind"], pats[m["name"]])
        diff = {k: (int(m[k]), v) for k, v in p.items() if int(m[k]) != v}
        if diff:
            bad.setdefault(m["kind"], []).append(m["name"])
            print("MISMATCH", m["name"], "measured/rule:", diff)
    n = sum(len(v) for v in bad.values())
    print(f"{len(rows) - n}/{len(rows)} patterns reproduced ({os.path.basename(path)})")
    for k, v in bad.items():
        print(f"  {k}: {len(v)} off")
