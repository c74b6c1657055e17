#!/usr/bin/env python3
"""Single-warp patterns for the narrow (1-, 2-byte) and atomic shared-memory probes.

Writes probe_patterns.txt: `name kind o0 .. o31` (byte offsets, -1 = lane inactive), where kind is
the probe's PTX instruction (ld.u8, st.u16, atom.add.u32, red.xor.b32, atom.cas.b64, ...), and
throughput.txt: the names timed by the clock64 throughput probe. Random patterns come from a fixed
seed; every 4th random pattern of each kind is held out (name starts `ho_`): its measurement is not
looked at until the rule is fixed.
"""
import random

L = range(32)
rng = random.Random(20261130)

LOADS = ["ld.u8", "ld.s8", "ld.u16", "ld.s16"]
STORES = ["st.u8", "st.u16"]
ATOM4 = ["atom.add.u32", "atom.add.s32", "atom.add.f32", "atom.min.u32", "atom.min.s32",
         "atom.max.u32", "atom.max.s32", "atom.and.b32", "atom.or.b32", "atom.xor.b32",
         "atom.exch.b32", "atom.cas.b32", "atom.inc.u32", "atom.dec.u32"]
RED4 = ["red.add.u32", "red.add.f32", "red.min.u32", "red.max.s32", "red.and.b32",
        "red.or.b32", "red.xor.b32", "red.inc.u32", "red.dec.u32"]
ATOM8 = ["atom.add.u64", "atom.exch.b64", "atom.cas.b64"]


def width(kind):
    t = kind.split(".")[-1]
    return {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2}.get(t, int(t[1:]) // 8)


def mask(offs, act):
    return [o if a else -1 for o, a in zip(offs, act)]


def narrow_fixed(e):
    p = {}
    for k in (1, 2, 3, 4, 8, 16, 32, 64):
        p[f"stride{k}"] = [i * k * e for i in L]
    p["const0"] = [0] * 32
    p["const_odd"] = [37 * e + 64] * 32
    p["rev"] = [(31 - i) * e for i in L]
    # same word, different bytes (or halves): lanes spread over the bytes of word 0
    p["sameword"] = [(i % (4 // e)) * e for i in L]
    # same word, pairs of lanes on each of the word's elements, word per 4/2 lanes
    p["word_per_lanegroup"] = [(i // (4 // e)) * 4 + (i % (4 // e)) * e for i in L]
    # same bank, different words: one element per lane on bank 0
    p["bank0_32words"] = [i * 128 for i in L]
    p["bank0_8words_allbytes"] = [(i // (4 // e)) * 128 + (i % (4 // e)) * e for i in L][:32]
    p["bank0_4words"] = [(i % 4) * 128 for i in L]
    p["bank0_2words_bytes"] = [(i % 2) * 128 + ((i // 2) % (4 // e)) * e for i in L]
    p["two_banks_16words"] = [(i // 2) * 128 + (i % 2) * 4 for i in L]
    p["bytes_of_16words"] = [(i % 16) * 4 + (i // 16) * e for i in L]
    p["perm7"] = [((i * 7) % 32) * e for i in L]
    p["word_stride_perm"] = [((i * 7) % 32) * 4 + (i % (4 // e)) * e for i in L]
    p["even_lanes_tid"] = mask([i * e for i in L], [i % 2 == 0 for i in L])
    p["low16_tid"] = mask([i * e for i in L], [i < 16 for i in L])
    p["one_lane"] = mask([i * e for i in L], [i == 5 for i in L])
    p["half_bank0_32words"] = mask([i * 128 for i in L], [i % 2 == 1 for i in L])
    p["half_stride32"] = mask([i * 32 * e for i in L], [i < 16 for i in L])
    p["quarter_sameword"] = mask([(i % (4 // e)) * e for i in L], [i % 4 == 0 for i in L])
    return p


def atom_fixed(e):
    p = {}
    w = e  # element size: 4 or 8
    p["tid"] = [i * w for i in L]
    p["rev"] = [(31 - i) * w for i in L]
    p["perm7"] = [((i * 7) % 32) * w for i in L]
    p["stride2"] = [i * 2 * w for i in L]
    p["stride3"] = [i * 3 * w for i in L]
    p["const0"] = [0] * 32
    p["const_w"] = [77 * w] * 32
    p["pairs"] = [(i // 2) * w for i in L]
    p["quads"] = [(i // 4) * w for i in L]
    p["oct"] = [(i // 8) * w for i in L]
    p["mod2"] = [(i % 2) * w for i in L]
    p["mod4"] = [(i % 4) * w for i in L]
    p["mod8"] = [(i % 8) * w for i in L]
    p["bank0_32words"] = [i * 128 for i in L]
    p["bank0_4words"] = [(i % 4) * 128 for i in L]
    p["bank0_8words_4each"] = [(i // 4) * 128 for i in L]
    p["bank0_2words"] = [(i % 2) * 128 for i in L]
    p["bank0_16words_pairs"] = [(i // 2) * 128 for i in L]
    p["mixed_tid_plus_const"] = [i * w if i % 2 else 0 for i in L]
    for n in (2, 3, 4, 8, 16, 24):
        p[f"const0_{n}lanes"] = mask([0] * 32, [i < n for i in L])
    p["const0_even"] = mask([0] * 32, [i % 2 == 0 for i in L])
    p["even_lanes_tid"] = mask([i * w for i in L], [i % 2 == 0 for i in L])
    p["low16_tid"] = mask([i * w for i in L], [i < 16 for i in L])
    p["one_lane"] = mask([i * w for i in L], [i == 5 for i in L])
    p["half_bank0_32words"] = mask([i * 128 for i in L], [i % 2 == 1 for i in L])
    return p


def rand_offsets(e, nbytes, pactive):
    offs = [rng.randrange(nbytes // e) * e for _ in L]
    if pactive < 1.0:
        act = [rng.random() < pactive for _ in L]
        if not any(act):
            act[rng.randrange(32)] = True
        offs = mask(offs, act)
    return offs


def randoms(kind, n):
    e = width(kind)
    out = []
    for j in range(n):
        nbytes = rng.choice([16, 64, 256, 1024, 4096]) if e < 4 else rng.choice([32, 128, 512, 4096])
        nbytes = max(nbytes, e * 2)
        pact = rng.choice([1.0, 1.0, 0.75, 0.4])
        out.append(rand_offsets(e, nbytes, pact))
    return out


rows = []  # (name, kind, offs)
def add(kind, fixed, nrand):
    short = kind.replace(".", "_")
    for name, offs in fixed.items():
        rows.append((f"{short}_{name}", kind, offs))
    for j, offs in enumerate(randoms(kind, nrand)):
        prefix = "ho_" if j % 4 == 3 else ""
        rows.append((f"{prefix}{short}_rand{j:02d}", kind, offs))

for k in LOADS + STORES:
    e = width(k)
    main = k in ("ld.u8", "ld.u16", "st.u8", "st.u16")
    add(k, narrow_fixed(e), 24 if main else 4)
for k in ATOM4 + RED4:
    main = k in ("atom.add.u32", "red.add.u32", "atom.cas.b32", "atom.add.f32", "atom.exch.b32")
    add(k, atom_fixed(4), 12 if main else 4)
for k in ATOM8:
    f = atom_fixed(8)
    del f["bank0_16words_pairs"]
    add(k, f, 4)

with open("probe_patterns.txt", "w") as f:
    for name, kind, offs in rows:
        assert len(offs) == 32 and all(o < 32768 for o in offs)
        f.write(f"{name} {kind} " + " ".join(map(str, offs)) + "\n")

TP = ["tid", "stride1", "const0", "pairs", "bank0_4words", "bank0_32words", "const0_2lanes",
      "const0_16lanes", "sameword", "stride32", "mod4"]
with open("throughput.txt", "w") as f:
    for name, kind, offs in rows:
        if any(name.endswith("_" + t) for t in TP):
            f.write(name + "\n")
print(len(rows), "patterns;", sum(1 for r in rows if r[0].startswith("ho_")), "held out;",
      sum(1 for _ in open("throughput.txt")), "throughput")
