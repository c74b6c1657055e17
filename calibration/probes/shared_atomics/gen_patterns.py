#!/usr/bin/env python3
"""Single-warp patterns for the second atomics campaign (CUDA C atomics, see probe.cu).

Writes probe_patterns.txt: `name kind o0 .. o31` (byte offsets below 4096, -1 = lane inactive),
kind one of probe.cu's KINDS; and throughput.txt, the names timed by the clock64 probe.
Training patterns (fixed shapes + random draws from seed 20261201) derive the rule; the held-out
set (names `ho_…`) is drawn from a *different* generator (seed 7770131) after them, and is not
looked at until the rule is fixed.
"""
import random

L = range(32)
rng = random.Random(20261201)
held = random.Random(7770131)

POPC = "red.add1.u32"  # atomicAdd(&s[x], 1u), result unused: ATOMS.POPC.INC.32 expected
INT4_SIDE = ["red.add1.s32", "red.sub1.u32", "atom.add1.u32", "red.add2.u32", "red.inc.u32",
             "red.dec.u32", "atom.inc.u32"]
U64_MAIN = ["red.add1.u64", "atom.min.u64", "atom.xor.b64"]
U64_SIDE = ["atom.max.u64", "atom.and.b64", "atom.or.b64", "atom.min.s64", "atom.add.u64", "red.add.u64", "atom.exch.b64", "atom.cas.b64", "atom.add.f64"]
F4_MAIN = ["atom.add.f16x2"]
F4_SIDE = ["red.add.f16x2", "atom.add.bf16x2", "red.add1.f32"]
F2 = ["atom.add.f16"]


def width(kind):
    t = kind.split(".")[-1]
    fixed_w = {"f16": 2, "f16x2": 4, "bf16x2": 4}
    return fixed_w[t] if t in fixed_w else int(t[1:]) // 8


def mask(offs, act):
    return [o if a else -1 for o, a in zip(offs, act)]


def fixed(w, full):
    """Named shapes for an element of w bytes (2, 4 or 8); `full` adds the long list."""
    p = {}
    p["tid"] = [i * w for i in L]
    p["const0"] = [0] * 32
    p["pairs"] = [(i // 2) * w for i in L]
    p["mod4"] = [(i % 4) * w for i in L]
    p["bank0_32words"] = [i * 128 for i in L]
    p["bank0_4words"] = [(i % 4) * 128 for i in L]
    p["bank0_8words_4each"] = [(i // 4) * 128 for i in L]
    p["const0_8lanes"] = mask([0] * 32, [i < 8 for i in L])
    p["even_lanes_tid"] = mask([i * w for i in L], [i % 2 == 0 for i in L])
    p["one_lane"] = mask([i * w for i in L], [i == 5 for i in L])
    if w == 2:
        p["sameword"] = [(i % 2) * 2 for i in L]
        p["word_pairs"] = [(i // 2) * 4 + (i % 2) * 2 for i in L]
        p["bank0_16words_halves"] = [(i // 2) * 128 + (i % 2) * 2 for i in L]
    if not full:
        return p
    p["rev"] = [(31 - i) * w for i in L]
    p["perm7"] = [((i * 7) % 32) * w for i in L]
    p["stride2"] = [i * 2 * w for i in L]
    p["stride3"] = [i * 3 * w for i in L]
    p["stride8"] = [i * 8 * w for i in L]
    p["const_w"] = [77 * w] * 32
    p["quads"] = [(i // 4) * w for i in L]
    p["oct"] = [(i // 8) * w for i in L]
    p["halves"] = [(i // 16) * w for i in L]
    p["mod2"] = [(i % 2) * w for i in L]
    p["mod8"] = [(i % 8) * w for i in L]
    p["mod16"] = [(i % 16) * w for i in L]
    p["bank0_2words"] = [(i % 2) * 128 for i in L]
    p["bank0_8words_interleaved"] = [(i % 8) * 128 for i in L]
    p["bank0_16words_pairs"] = [(i // 2) * 128 for i in L]
    p["bank0_4words_plus_tid"] = [(i % 4) * 128 if i < 16 else i * w for i in L]
    p["bank0_4words_then_const"] = [(i % 4) * 128 if i < 16 else 0 for i in L]
    p["bank0_one_addr_16_plus_15words"] = [0 if i < 16 else (i - 15) * 128 for i in L]
    p["two_banks_queues_3_5"] = [(i % 3) * 128 if i < 12 else max(w, 4) + (i % 5) * 128 for i in L]
    p["mixed_tid_plus_const"] = [i * w if i % 2 else 0 for i in L]
    p["sixteen_addrs_2lanes_bank0"] = [(i % 16) * 128 for i in L]
    p["word_and_neighbour"] = [(i % 2) * w + (i // 2) * 128 for i in L]
    for n in (2, 3, 4, 16, 24):
        p[f"const0_{n}lanes"] = mask([0] * 32, [i < n for i in L])
    p["const0_even"] = mask([0] * 32, [i % 2 == 0 for i in L])
    p["low16_tid"] = mask([i * w for i in L], [i < 16 for i in L])
    p["half_bank0_32words"] = mask([i * 128 for i in L], [i % 2 == 1 for i in L])
    p["odd_bank0_4words"] = mask([(i % 8) * 128 for i in L], [i % 2 == 1 for i in L])
    p["sparse_pairs"] = mask([(i // 4) * 128 for i in L], [i % 4 < 2 for i in L])
    if w == 2:
        p["bank0_8words_allhalves"] = [((i // 2) % 8) * 128 + (i % 2) * 2 for i in L]
        p["halves_of_16words"] = [(i % 16) * 4 + (i // 16) * 2 for i in L]
    if w == 8:
        p["odd_word_bank1"] = [i * 128 + 8 * (i % 2) for i in L]
        p["halfwarp_same_addr"] = [0 if i < 16 else 8 for i in L]
        p["halfwarp_cross_same"] = [(i % 16) * 8 for i in L]
    return p


def rand_offsets(g, w, nbytes, pactive):
    offs = [g.randrange(nbytes // w) * w for _ in L]
    if pactive < 1.0:
        act = [g.random() < pactive for _ in L]
        if not any(act):
            act[g.randrange(32)] = True
        offs = mask(offs, act)
    return offs


def randoms(g, w, n, hist):
    out = []
    for _ in range(n):
        sizes = [32, 128, 512, 1024, 4096] if w >= 4 else [16, 64, 256, 1024, 4096]
        if hist:  # histogram-like: bins of 4 bytes, 8 .. 1024 bins
            sizes = [32, 128, 256, 1024, 1024, 4096]
        nbytes = g.choice(sizes)
        pact = g.choice([1.0, 1.0, 0.75, 0.4])
        out.append(rand_offsets(g, w, nbytes, pact))
    return out


rows = []  # (name, kind, offs)


def add(kind, full, ntrain, nheld, hist=False):
    short = kind.replace(".", "_")
    w = width(kind)
    for name, offs in fixed(w, full).items():
        rows.append((f"{short}_{name}", kind, offs))
    for j, offs in enumerate(randoms(rng, w, ntrain, hist)):
        rows.append((f"{short}_rand{j:02d}", kind, offs))
    for j, offs in enumerate(randoms(held, w, nheld, hist)):
        rows.append((f"ho_{short}_rand{j:02d}", kind, offs))


add(POPC, True, 24, 16, hist=True)
for k in INT4_SIDE:
    add(k, k == "red.sub1.u32", 3, 2, hist=True)
for k in U64_MAIN:
    add(k, True, 6, 4)
for k in U64_SIDE:
    add(k, False, 2, 1)
for k in F4_MAIN:
    add(k, True, 8, 6)
for k in F4_SIDE:
    add(k, False, 2, 2)
for k in F2:
    add(k, True, 6, 4)

names = set()
with open("probe_patterns.txt", "w") as f:
    for name, kind, offs in rows:
        assert len(offs) == 32 and all(o < 4096 for o in offs) and name not in names, name
        assert all(o < 0 or o % width(kind) == 0 for o in offs), name
        names.add(name)
        f.write(f"{name} {kind} " + " ".join(map(str, offs)) + "\n")

TP = ["tid", "const0", "pairs", "bank0_4words", "bank0_32words", "const0_8lanes", "mod4"]
with open("throughput.txt", "w") as f:
    for name, kind, offs in rows:
        if not name.startswith("ho_") and any(name.endswith("_" + t) for t in TP) and (
                kind in (POPC, "atom.add.f16x2", "atom.min.u64", "red.add1.u64", "atom.add.f16")):
            f.write(name + "\n")
print(len(rows), "patterns;", sum(1 for r in rows if r[0].startswith("ho_")), "held out;",
      sum(1 for _ in open("throughput.txt")), "throughput")
