#!/usr/bin/env python3
"""Rules and layouts shared by gen_patterns.py, predict.py and parse.py (standard library only).

* `house(offs, width, op)`: the measured bank rule of /work/shared/h200/README.md (LDS/STS of
  4/8/16 bytes, and 1/2 bytes), the rule warpsim implements (crates/smem): phases of
  128/width lanes, rule 3 (8/16-byte loads: lanes i and i^1, or i and i^2, on one address
  throughout the warp double the phase), cost = most distinct 4-byte words asked of one bank.
* Hypotheses for LDSM/STSM (`h_*`) and LDGSTS (`g_*`), see README.md "Hypotheses".
* Swizzles: CuTe's Swizzle<B,M,S> on element indices, TMA's 32/64/128-byte modes on bytes.
* Fragment layouts of ldmatrix/stmatrix .m8n8 .b16 (PTX ISA), for the functional checks.
"""

WARP = 32


def house(offs, width, op):
    """(wavefronts, bank_conflicts, busy phases) of one warp access; offs[l] < 0: inactive."""
    if width >= 4:
        lanes = min(WARP, 128 // width)
    else:
        lanes = WARP
    if op == "ld" and width >= 8 and (_pairs(offs, 1) or _pairs(offs, 2)):
        lanes = min(WARP, 2 * lanes)
    wf = ph = 0
    for p0 in range(0, WARP, lanes):
        banks = {}
        for l in range(p0, p0 + lanes):
            o = offs[l]
            if o is None or o < 0:
                continue
            for w in range(max(1, width // 4)):
                word = o // 4 + w
                banks.setdefault(word % 32, set()).add(word)
        if banks:
            ph += 1
            wf += max(len(s) for s in banks.values())
    return wf, wf - ph, ph


def _pairs(offs, m):
    for i in range(WARP):
        j = i ^ m
        if offs[i] >= 0 and offs[j] >= 0 and offs[i] != offs[j]:
            return False
    return True


def words_cost(lane_offs, width=16):
    """Most distinct words asked of one bank by these (active) lanes: one phase's cost."""
    banks = {}
    for o in lane_offs:
        for w in range(width // 4):
            word = o // 4 + w
            banks.setdefault(word % 32, set()).add(word)
    return max(len(s) for s in banks.values()) if banks else 0


# ------------------------------------------------------------------ LDSM / STSM hypotheses

def mat_kind(kind):
    """'ldsm.x4.trans' -> ('ld', 4, True); 'stsm.x1' -> ('st', 1, False)."""
    f = kind.split(".")
    op = "ld" if f[0] == "ldsm" else "st"
    return op, int(f[1][1:]), len(f) > 2 and f[2] == "trans"


def h1_matrix_phases(offs, kind):
    """H1 (natural): one phase per 8x8 matrix (its 8 row addresses, 16 bytes each), costing the
    most distinct words of one bank; x1/x2/x4 = 1/2/4 phases; lanes past 8*n unused."""
    _, n, _ = mat_kind(kind)
    wf = sum(words_cost(offs[8 * m:8 * m + 8]) for m in range(n))
    return wf, wf - n


def h2_lds128(offs, kind):
    """H2: priced as LDS.128/STS.128 by the house rule over the used lanes (rule 3's doubling
    for loads: lanes i, i^1 or i, i^2 on one address halve the phases)."""
    op, n, _ = mat_kind(kind)
    used = [o if l < 8 * n else -1 for l, o in enumerate(offs)]
    wf, bc, _ = house(used, 16, op)
    return wf, bc


def h3_all_lanes(offs, kind):
    """H3: the unused lanes' addresses are priced too (LDS.128/STS.128 over all 32 lanes)."""
    op, _, _ = mat_kind(kind)
    wf, bc, _ = house(offs, 16, op)
    return wf, bc


def h4_pair_phases(offs, kind):
    """H4: phases over pairs of matrices (16 rows, 256 bytes): the most distinct words of one
    bank in the pair, at least 2 wavefronts a pair (x1: one matrix, as H1)."""
    _, n, _ = mat_kind(kind)
    if n == 1:
        return h1_matrix_phases(offs, kind)
    wf = 0
    for p in range(n // 2):
        wf += max(2, words_cost(offs[16 * p:16 * p + 16]))
    return wf, wf - n


def h5_no_merge(offs, kind):
    """H5: as H1, but rows that share an address are not merged (each of a matrix's 8 rows is
    its own access to its 4 banks: cost = most rows on one bank, repeated or not)."""
    _, n, _ = mat_kind(kind)
    wf = 0
    for m in range(n):
        banks = {}
        for o in offs[8 * m:8 * m + 8]:
            for w in range(4):
                b = (o // 4 + w) % 32
                banks[b] = banks.get(b, 0) + 1
        wf += max(banks.values())
    return wf, wf - n


MAT_HYPS = [("H1", h1_matrix_phases), ("H2", h2_lds128), ("H3", h3_all_lanes), ("H4", h4_pair_phases),
            ("H5", h5_no_merge)]


# ------------------------------------------------------------------ LDGSTS hypotheses

def cp_width(kind):
    return int(kind.split(".")[1])


def g1_store(d, s, kind):
    """G1 (natural): a shared store of the copy's width at the destinations (no doubling)."""
    wf, bc, _ = house(d, cp_width(kind), "st")
    return wf, bc


def g2_load(d, s, kind):
    """G2: priced as a shared load of that width (rule 3's doubling applies)."""
    wf, bc, _ = house(d, cp_width(kind), "ld")
    return wf, bc


def _grouped(d, s, kind, unit):
    w = cp_width(kind)
    groups = {}
    for l in range(WARP):
        if d[l] >= 0:
            groups.setdefault(s[l] // unit, []).append(l)
    wf = ph = 0
    for lanes in groups.values():
        sub = [d[l] if l in lanes else -1 for l in range(WARP)]
        a, _, p = house(sub, w, "st")
        wf += a
        ph += p
    return wf, wf - ph


def g3_per_line(d, s, kind):
    """G3: the data returns per 128-byte global line and each line's lanes are written as a
    separate store (G1 over each line's lanes, summed)."""
    return _grouped(d, s, kind, 128)


def g4_per_sector(d, s, kind):
    """G4: as G3 per 32-byte sector."""
    return _grouped(d, s, kind, 32)


CP_HYPS = [("G1", g1_store), ("G2", g2_load), ("G3", g3_per_line), ("G4", g4_per_sector)]


# ------------------------------------------------------------------ swizzles

def cute_swizzle(x, b, m, s):
    """CuTe Swizzle<B,M,S> on an index x: bits [M+S, M+S+B) XORed into bits [M, M+B)."""
    yyy = ((1 << b) - 1) << (m + s)
    return x ^ ((x & yyy) >> s)


def cute_swizzle_bytes(o, b, m, s, esize=2):
    """Swizzle<B,M,S> applied to the element index of byte offset o (elements of esize bytes)."""
    return cute_swizzle(o // esize, b, m, s) * esize + o % esize


TMA_SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128, "128Bi64": 128}


def tma_swizzle(o, cfg):
    """Where TMA's swizzle mode puts byte offset o of a 1024-byte-aligned tile (the hypothesis
    the dump checks): the 16-byte chunk index (bits 4..) XOR bits 7.. of the offset, as many
    bits as the span has chunks (32B: 1, 64B: 2, 128B: 3) - CuTe's Swizzle<B,4,3> on bytes."""
    span = TMA_SPAN[cfg]
    if not span:
        return o
    b = {32: 1, 64: 2, 128: 3}[span]
    return o ^ (((o >> 7) & ((1 << b) - 1)) << 4)


# ------------------------------------------------------------------ fragment layouts

def ldsm_expected(offs, kind, mem16):
    """Registers each lane receives: [[r0..r(n-1)] per lane], mem16(byte_offset) -> u16.
    Matrix i's row r is at offs[8*i + r]; element (r, c) at that address + 2c. Non-trans: lane t
    gets (row t/4, cols 2(t%4), 2(t%4)+1) in (low, high); .trans: (rows 2(t%4), 2(t%4)+1, col t/4)."""
    _, n, trans = mat_kind(kind)
    regs = []
    for t in range(WARP):
        lane = []
        for i in range(n):
            vals = []
            for h in range(2):
                if not trans:
                    r, c = t // 4, 2 * (t % 4) + h
                else:
                    r, c = 2 * (t % 4) + h, t // 4
                vals.append(mem16(offs[8 * i + r] + 2 * c))
            lane.append(vals[0] | (vals[1] << 16))
        regs.append(lane)
    return regs


def stsm_expected(offs, kind):
    """{byte_offset: u16} that stmatrix writes when register j of lane t holds the b16 values
    t*8+2j (low) and t*8+2j+1 (high) (as probe.cu's one_m does). Where several rows share an
    address the value is ambiguous: those offsets map to a set of candidates."""
    _, n, trans = mat_kind(kind)
    out = {}
    for i in range(n):
        for r in range(8):
            for c in range(8):
                if not trans:
                    t, h = r * 4 + c // 2, c % 2
                else:
                    t, h = c * 4 + r // 2, r % 2
                val = t * 8 + 2 * i + h
                out.setdefault(offs[8 * i + r] + 2 * c, set()).add(val)
    return out


def _selftest():
    # house rule against the README's examples
    tid = list(range(32))
    assert house([t * 4 for t in tid], 4, "ld")[0] == 1
    assert house([t * 8 for t in tid], 4, "ld")[0] == 2
    assert house([t * 128 for t in tid], 4, "ld")[0] == 32
    assert house([0] * 32, 8, "ld")[0] == 1 and house([0] * 32, 8, "st")[0] == 2
    assert house([t * 16 for t in tid], 16, "ld")[0] == 4
    assert house([0] * 32, 16, "ld")[0] == 2 and house([0] * 32, 16, "st")[0] == 4
    assert house([((t % 4) * 8 + t // 4) * 16 for t in tid], 16, "ld")[0] == 16
    assert tma_swizzle(128 + 16, "128B") == 128 + 0 and tma_swizzle(7 * 128, "128B") == 7 * 128 + 7 * 16
    assert cute_swizzle_bytes(128, 3, 3, 3) == 128 + 16
    assert cute_swizzle_bytes(128, 3, 4, 3, esize=1) == 128 + 16


if __name__ == "__main__":
    _selftest()
    print("rules.py self-test ok")
