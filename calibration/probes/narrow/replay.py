#!/usr/bin/env python3
"""Replays the narrow/atomic bank rule (README, "1- and 2-byte accesses and atomics") over
every measured pattern and compares with Nsight's counters.

usage: replay.py [measured.tsv]   (default measured.tsv; measured_heldout.tsv for the held-out set)
Columns compared: wf_ld bc_ld (loads, and the loads inside compare-and-swap loops),
wf_st bc_st, wf_atom bc_atom, and n_atoms (ATOMS instructions executed = loop trips).
"""
import sys

NATIVE = {"add.u32", "add.s32", "min.u32", "min.s32", "max.u32", "max.s32", "and.b32", "or.b32",
          "xor.b32", "exch.b32", "inc.u32", "dec.u32", "exch.b64", "cas.b32", "cas.b64"}
LOOP = {"add.f32", "add.u64"}


def words(o, width):
    return [(o // 4) + k for k in range(max(1, width // 4))]


def phase_cost(lanes, offs, width, distinct=True):
    """Most words (distinct, or lane-accesses when distinct=False) any bank serves in a phase."""
    per_bank = {}
    for l in lanes:
        for w in words(offs[l], width):
            per_bank.setdefault(w % 32, []).append(w)
    if not per_bank:
        return 0
    return max(len(set(v)) if distinct else len(v) for v in per_bank.values())


def phases(active, width):
    n = 32 if width <= 4 else 128 // width
    return [[l for l in active if p <= l < p + n] for p in range(0, 32, n)]


def load_cost(active, offs, width):
    """The 4/8/16-byte rule of calibration/sources/h200/README.md, plus 1/2-byte (one phase)."""
    n = 32 if width <= 4 else 128 // width
    if width >= 8:
        for m in (1, 2):
            if all(offs[l] == offs[l ^ m] for l in active if (l ^ m) in active):
                n = min(32, 2 * n)
                break
    wf = bc = 0
    for p in range(0, 32, n):
        ph = [l for l in active if p <= l < p + n]
        c = phase_cost(ph, offs, width)
        wf += c
        bc += max(0, c - 1)
    return wf, bc


def store_cost(active, offs, width):
    wf = bc = 0
    for ph in phases(active, width):
        c = phase_cost(ph, offs, width)
        wf += c
        bc += max(0, c - 1)
    return wf, bc


def native_atom(active, offs, width, per_pass):
    """Every lane's update is its own bank access: a phase costs the most lanes on one bank."""
    wf = bc = 0
    for ph in phases(active, width):
        c = phase_cost(ph, offs, width, distinct=False)
        wf += per_pass * c
        bc += max(0, c - 1)
    return wf, bc


def cas_loop(active, offs, width, winner):
    """ptxas's loop: load, then ATOMS.CAST.SPIN; each pass serves one lane per bank per phase,
    which succeeds unless an earlier-served lane of the same pass changed its word."""
    left = sorted(active)
    wf_ld = bc_ld = wf_at = trips = 0
    while left:
        trips += 1
        a, b = load_cost(left, offs, width)
        wf_ld += a
        bc_ld += b
        done = []
        for ph in phases(left, width):
            if not ph:
                continue
            wf_at += 2
            served = {}
            for l in (ph if winner == "low" else reversed(ph)):
                bank = (offs[l] // 4) % 32
                if bank not in served:
                    served[bank] = l
            written = set()
            for l in sorted(served.values()):
                if offs[l] not in written:
                    done.append(l)
                written.add(offs[l])
        written_all = set()
        # a later phase's lane fails if an earlier phase wrote its word in this pass
        ok = []
        for ph in phases(left, width):
            mine = [l for l in done if l in ph]
            for l in mine:
                if offs[l] not in written_all:
                    ok.append(l)
            for l in mine:
                written_all.add(offs[l])
        left = [l for l in left if l not in ok]
    return wf_ld, bc_ld, wf_at, 0, trips


def predict(kind, offs, winner="low"):
    active = [l for l in range(32) if offs[l] >= 0]
    parts = kind.split(".")
    width = {"u8": 1, "s8": 1, "u16": 2, "s16": 2}.get(parts[-1]) or int(parts[-1][1:]) // 8
    z = dict(wf_ld=0, bc_ld=0, wf_st=0, bc_st=0, wf_atom=0, bc_atom=0, n_atoms=0)
    if parts[0] == "ld":
        z["wf_ld"], z["bc_ld"] = load_cost(active, offs, width)
    elif parts[0] == "st":
        z["wf_st"], z["bc_st"] = store_cost(active, offs, width)
    else:
        o = ".".join(parts[1:])
        if o in LOOP:
            z["wf_ld"], z["bc_ld"], z["wf_atom"], z["bc_atom"], z["n_atoms"] = cas_loop(active, offs, width, winner)
        else:
            per = 2 if o.startswith("cas") else 1
            z["wf_atom"], z["bc_atom"] = native_atom(active, offs, width, per)
            z["n_atoms"] = 1
    return z


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "measured.tsv"
    winner = sys.argv[2] if len(sys.argv) > 2 else "low"
    pats = {l.split()[0]: [int(x) for x in l.split()[2:]] for l in open("probe_patterns.txt")}
    lines = [l.rstrip("\n").split("\t") for l in open(path)]
    hdr, rows = lines[0], lines[1:]
    bad = 0
    for r in rows:
        m = dict(zip(hdr, r))
        p = predict(m["kind"], pats[m["name"]], winner)
        diff = {k: (int(m[k]), v) for k, v in p.items() if int(m[k]) != v}
        if diff:
            bad += 1
            print("MISMATCH", m["name"], diff)
    print(f"{len(rows) - bad}/{len(rows)} patterns reproduced ({path})")
