#!/usr/bin/env python3
"""The fixed shared-memory rules of LDSM, STSM, LDGSTS (cp.async) and TMA on the H200 (issue #41),
derived from the first device call (raw/tensor_smem.tar.gz; `analyze.py` checks every rule here
against every launch of it). This file is the reference the crate implementation must reproduce
and what calibration/draws/tensor_smem_draw1 predicts with. Standard library only.

Conventions: a warp access is 32 lane values; a negative destination (or row address) is an
inactive lane. Shared memory has 32 banks of 4-byte words (bank = word % 32). "Phases" are the
lane groups of the house rule: 32 lanes for 4-byte accesses, 16 for 8-byte, 8 for 16-byte.

Counters (Nsight Compute names; see README.md "Which counters a user sees"):
  LDSM: Source page  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm (wf),
        smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm (bc); hardware
        l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld / ..._bank_conflicts_..._op_ld: the same
        numbers, added to the LDS traffic.
  STSM: the same with op_stsm (Source page) and op_st (hardware).
  LDGSTS: Source page op_ldgsts (+ _cache_access for .ca, _cache_bypass for .cg), hardware
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts and the total
        l1tex__data_pipe_lsu_wavefronts_mem_shared (no hardware op_ldgsts wavefront counter).
  TMA (UTMALDG/UTMASTG) and UBLKCP: no LSU shared wavefront on any counter.
"""

WARP = 32
SPAN = {"none": 0, "32B": 32, "64B": 64, "128B": 128}


def _phase_lanes(width):
    return {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}[width]


# ================================================================== LDSM / STSM
def mat_n(kind):
    """'ldsm.x4.trans' -> 4"""
    return int(kind.split(".")[1][1:])


def mat_cost(offs, kind):
    """LDSM/STSM .m8n8 .x1/.x2/.x4 [.trans] .b16: one phase per 8x8 matrix. Matrix m's rows are
    the row addresses of lanes 8m..8m+7 (16 bytes each = 4 words); the phase costs the most
    distinct words asked of one bank (rows on the same address merge, as LDS does); lanes past
    8n give no address (not read, not checked). .trans and load/store cost the same.
    Returns {wf, bc, ideal}: bc = wf - n, ideal (Source page "L1 Wavefronts Shared Ideal") = n."""
    n = mat_n(kind)
    wf = 0
    for m in range(n):
        banks = {}
        for o in offs[8 * m:8 * m + 8]:
            for k in range(4):
                w = o // 4 + k
                banks.setdefault(w % 32, set()).add(w)
        wf += max(len(s) for s in banks.values())
    return {"wf": wf, "bc": wf - n, "ideal": n}


def mat_fault(offs, kind, window=65536):
    """None, or the fault the H200 raises: a used row address not 16-byte aligned is a
    'misaligned address' fault (first call: rows 8- or 4-byte aligned, stride 136); the unused
    lanes' addresses are never checked (misaligned or out of the window: no fault)."""
    n = mat_n(kind)
    for o in offs[:8 * n]:
        if o % 16:
            return "misaligned address"
        if o < 0 or o + 16 > window:
            return "out of range"
    return None


def ldsm_regs(offs, kind, mem16):
    """Registers of each lane ([r0..r(n-1)] per lane) after ldmatrix, mem16(byte offset) -> u16.
    PTX ISA fragment: matrix i's row r at offs[8i + r]; non-trans: lane t gets elements
    (t/4, 2(t%4)) low and (t/4, 2(t%4)+1) high; .trans: (2(t%4), t/4) low, (2(t%4)+1, t/4) high."""
    n = mat_n(kind)
    trans = kind.endswith(".trans")
    regs = []
    for t in range(WARP):
        lane = []
        for i in range(n):
            v = []
            for h in range(2):
                r, c = (t // 4, 2 * (t % 4) + h) if not trans else (2 * (t % 4) + h, t // 4)
                v.append(mem16(offs[8 * i + r] + 2 * c))
            lane.append(v[0] | (v[1] << 16))
        regs.append(lane)
    return regs


def stsm_writes(offs, kind, reg16):
    """{byte offset: u16} that stmatrix leaves, reg16(lane, j, h) = half h of register j of lane t.
    Where rows share an address (measured: stsm_x4_pairs, _m1eqm0, _bcast, x4t_pairs): the later
    matrix wins, and inside one matrix the lowest row wins."""
    n = mat_n(kind)
    trans = kind.endswith(".trans")
    out = {}
    for i in range(n):
        for r in reversed(range(8)):          # row 0 written last: it wins inside the matrix
            for c in range(8):
                t, h = (r * 4 + c // 2, c % 2) if not trans else (c * 4 + r // 2, r % 2)
                out[offs[8 * i + r] + 2 * c] = reg16(t, i, h)
    return out


# ================================================================== LDGSTS (cp.async)
def cp_kind(kind):
    """'ca.16.z' -> ('ca', 16, True); 'ca.16.wall' -> ('ca', 16, False)"""
    f = kind.split(".")
    return f[0], int(f[1]), "z" in f[2:]


# The rule's choices where the first call could not decide between equally fitting readings;
# predict.py of the draw names each alternative by the option it changes.
SPEC = {
    "packing": "max",         # .ca phase cost: the most lane-words on one bank ("greedy": first-fit)
    "src_words": "read",      # .ca source words: those of the src-size bytes ("width": all)
    "sector_bound": "phase",  # a phase takes at least ceil(its sectors / 4) wavefronts
                              # ("instr": the instruction at least ceil(sectors / 4); "none")
    "hw_unit": "sectors",     # the hardware conflict ideal counts sectors / 4 ("lines": lines / 4)
    "cg_key": "line",         # .cg groups by source line ("quarter": by quarter-warp)
    "cg_winner": "last",      # .cg lanes on one destination: the highest lane's copy ("first")
    "zfill_hw": "fill",       # .cg.z hardware store: the lanes reading < 16 bytes ("any": all
                              # active lanes once one does)
    "ideal": "phases",        # Source page "Ideal": phases with an active lane ("bytes":
                              # ceil(bytes / 128), .ca active lanes x width, .cg distinct
                              # destinations x 16: tensor_smem_draw1 10 of 10, first call 4 of 4)
}

# The rule after tensor_smem_draw1 (its RESULT.md): no sector bound on the Source page (the
# bound was pre-registered and refuted; without it the .ca max rule is exact on every launch of
# both calls in which no phase is conflicted on both sides), the Ideal from bytes. Where a phase
# is conflicted on both sides the rule is known to be low (draw1: 18 of 21); that part is open.
# tensor_smem_draw2 predicts with these options.
DRAW2 = {"sector_bound": "none", "ideal": "bytes"}


def _lane_words(d, s, n, width, l, src_words):
    db = [(d[l] // 4 + k) % 32 for k in range(width // 4)]
    nb = width if src_words == "width" else n[l]
    sb = [w % 32 for w in range(s[l] // 4, (s[l] + nb - 1) // 4 + 1)] if nb > 0 else []
    return db, sb


def _phase_cost(d, s, n, width, ls, packing, src_words, dest_only=False):
    """A phase's bank cost: the most lane-words on one destination bank or on one source bank
    (global byte address mod 128 / 4, the word's bank in the L1 line), counted with
    multiplicity (no merging: two lanes on one word are two). dest_only: the destination side
    alone (the zero-fill store)."""
    if packing == "greedy":
        waves = []
        for l in ls:
            db, sb = _lane_words(d, s, n, width, l, src_words)
            db, sb = set(db), (set() if dest_only else set(sb))
            for wv in waves:
                if not (wv[0] & db) and not (wv[1] & sb):
                    wv[0] |= db
                    wv[1] |= sb
                    break
            else:
                waves.append([db, sb])
        return len(waves)
    dc, sc = {}, {}
    for l in ls:
        db, sb = _lane_words(d, s, n, width, l, src_words)
        for b in db:
            dc[b] = dc.get(b, 0) + 1
        if not dest_only:
            for b in sb:
                sc[b] = sc.get(b, 0) + 1
    return max(max(dc.values()), max(sc.values()) if sc else 0)


def _sectors(lanes, s, n):
    return len({b // 32 for l in lanes if n[l] > 0 for b in range(s[l], s[l] + n[l])})


def cg_groups(d, s, key="line", winner="last"):
    """.cg (LDGSTS.BYPASS): lanes on one destination merge (the highest lane's copy is the one
    done); the rest fall in groups of equal (source 128-byte line, destination 128-byte line,
    XOR mask = destination 16-byte chunk index ^ source chunk index inside their lines). One
    wavefront a group: a returned line goes into a destination line through one XOR of its
    chunks. Returns {key: [lanes]}."""
    keep = {}
    for l in range(WARP):
        if d[l] >= 0 and (winner == "last" or d[l] not in keep):
            keep[d[l]] = l
    groups = {}
    for dd, l in sorted(keep.items(), key=lambda x: x[1]):
        first = s[l] // 128 if key == "line" else l // 8
        k = (first, dd // 128, ((dd % 128) // 16) ^ ((s[l] % 128) // 16))
        groups.setdefault(k, []).append(l)
    return groups


def ldgsts(kind, d, s, size=None, **opt):
    """Counters of one cp.async (LDGSTS) warp instruction.
    kind: ca.4 ca.8 ca.16 cg.16, '.z' when the instruction has a src-size operand (ZFILL);
    d: shared destinations (-1: lane inactive), s: global source byte addresses, size: src-size
    (bytes read, the rest zero-filled): None (the width), one number or one per lane.
    opt: SPEC's options (the rule's defaults; alternatives for the draw).
    Returns {sass_wf, sass_bc, ideal, sectors, tags, hw_wf, hw_bc}:
      sass_wf/sass_bc  Source page op_ldgsts wavefronts / bank conflicts
      ideal            Source page "L1 Wavefronts Shared Ideal" (phases with an active lane);
                       "Excessive" = sass_wf - ideal (not sass_bc for .cg)
      sectors          "L2 Theoretical Sectors Global" = smsp__sass_l1tex_t_sectors_..._op_ldgsts
      tags             "L1 Tag Requests Global": distinct 128-byte source lines read
      hw_wf            what it adds to l1tex__data_pipe_lsu_wavefronts_mem_shared
      hw_bc            l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts
    Rule (first call, 128/128 launches on all five counters):
      .ca: per phase, the bank cost (_phase_cost), but at least ceil(the phase's sectors / 4)
           (pre-registered for the draw: the first call never had a phase with more sectors
           than 4x its bank cost; its hardware counter implies the bound); sass = hw;
           sass_bc = wf - phases; hw_bc = wf - sum over phases of max(1, ceil(sectors / 4));
           sectors = distinct 32-byte source sectors read.
      .cg: sass_wf = number of cg_groups, sass_bc = 0, nothing on the hardware counters;
           sectors = per group, the distinct source sectors read, summed.
      .cg with src-size: plus a zero-fill store (the destination side over all active lanes) on
           the Source page (wf and its bc = wf - phases), and on the hardware counters only for
           the lanes that read less than 16 bytes (cost and ideal as .ca's, the sectors being
           the groups' sectors of those lanes in the phase)."""
    o = dict(SPEC, **opt)
    typ, w, z = cp_kind(kind)
    n = [w] * WARP if size is None else [size] * WARP if isinstance(size, int) else list(size)
    n = [min(max(x, 0), w) for x in n]
    act = [l for l in range(WARP) if d[l] >= 0]
    if not act:
        return {"sass_wf": 0, "sass_bc": 0, "ideal": 0, "sectors": 0, "tags": 0, "hw_wf": 0, "hw_bc": 0}
    g = _phase_lanes(w)
    phases = [[l for l in act if p0 <= l < p0 + g] for p0 in range(0, WARP, g)]
    phases = [ls for ls in phases if ls]
    if o["ideal"] == "bytes":
        ideal = -(-(len(act) if typ == "ca" else len({d[l] for l in act})) * w // 128)
    else:
        ideal = len(phases)
    tags = len({b // 128 for l in act if n[l] > 0 for b in (s[l], s[l] + n[l] - 1)})
    unit = (lambda ls: len({s[l] // 128 for l in ls if n[l] > 0})) if o["hw_unit"] == "lines" else None
    if typ == "ca":
        sec = _sectors(act, s, n)
        wf = hw_ideal = 0
        for ls in phases:
            sp = _sectors(ls, s, n)
            c = _phase_cost(d, s, n, w, ls, o["packing"], o["src_words"])
            if o["sector_bound"] == "phase":
                c = max(c, -(-sp // 4))
            wf += c
            hw_ideal += max(1, -(-(unit(ls) if unit else sp) // 4))
        if o["sector_bound"] == "instr":
            wf = max(wf, -(-sec // 4))
        if o["sector_bound"] != "phase":
            hw_ideal = max(len(phases), -(-((unit(act) if unit else sec)) // 4))
        hwbc = wf - hw_ideal
        if o["sector_bound"] == "none":
            hwbc = max(0, hwbc)
        return {"sass_wf": wf, "sass_bc": wf - len(phases), "ideal": ideal, "sectors": sec, "tags": tags,
                "hw_wf": wf, "hw_bc": hwbc}
    groups = cg_groups(d, s, o["cg_key"], o["cg_winner"])
    sec = sum(_sectors(ls, s, n) for ls in groups.values())
    r = {"sass_wf": len(groups), "sass_bc": 0, "ideal": ideal, "sectors": sec, "tags": tags,
         "hw_wf": 0, "hw_bc": 0}
    if z:
        zwf = sum(_phase_cost(d, s, n, w, ls, o["packing"], o["src_words"], dest_only=True) for ls in phases)
        r["sass_wf"] += zwf
        r["sass_bc"] = zwf - len(phases)
        fill = [l for l in act if n[l] < w]
        if fill:
            if o["zfill_hw"] == "any":
                fill = act
            fwf = hw_ideal = nph = 0
            for ls in phases:
                fl = [l for l in ls if l in fill]
                if not fl:
                    continue
                nph += 1
                sp = sum(_sectors([l for l in gl if l in fl], s, n) for gl in groups.values())
                if unit:
                    sp_u = unit(fl)
                c = _phase_cost(d, s, n, w, fl, o["packing"], o["src_words"], dest_only=True)
                if o["sector_bound"] == "phase":
                    c = max(c, -(-sp // 4))
                fwf += c
                hw_ideal += max(1, -(-(sp_u if unit else sp) // 4))
            fsec = sum(_sectors([l for l in gl if l in fill], s, n) for gl in groups.values())
            if o["sector_bound"] == "instr":
                fwf = max(fwf, -(-fsec // 4))
            if o["sector_bound"] != "phase":
                hw_ideal = max(nph, -(-((unit(fill) if unit else fsec)) // 4))
            r["hw_wf"] = fwf
            r["hw_bc"] = fwf - hw_ideal if o["sector_bound"] != "none" else max(0, fwf - hw_ideal)
    return r


def ldgsts_writes(kind, d, s, size, gbyte):
    """{shared byte: value} after the copy (gbyte(addr) -> global byte); bytes past src-size are
    0. Lanes on one destination: the highest lane's copy is the one left (.ca: measured,
    cp_ca4_same, cp_ca16_same, cp_ca16_pairs; .cg: assumed the same, the draw checks it)."""
    _, w, _ = cp_kind(kind)
    out = {}
    for l in range(WARP):
        if d[l] < 0:
            continue
        nb = w if size is None else (size if isinstance(size, int) else size[l])
        for i in range(w):
            out[d[l] + i] = gbyte(s[l] + i) if i < nb else 0
    return out


# ================================================================== TMA
def tma_offset(row, q, inner_bytes, swizzle, base=0):
    """Byte offset inside the shared tile of byte q (0 <= q < inner_bytes) of box row `row` (the
    box's outer coordinates flattened, dimension 1 fastest). swizzle none: dense rows of
    inner_bytes. 32B/64B/128B: every row takes a full span of 32/64/128 bytes (rows padded to
    the span: measured for 128B with a 64-byte inner box), then the 16-byte chunk index (address
    bits 4..) XOR address bits 7.. (1, 2, 3 bits): CuTe Swizzle<1|2|3, 4, 3> on bytes. `base`
    is the tile's shared address mod 1024 (the pattern follows the address bits: an
    assumption the draw tests with tiles not 1024-aligned)."""
    span = SPAN[swizzle]
    if not span:
        return row * inner_bytes + q
    assert inner_bytes <= span
    o = base + row * span + q
    b = {32: 1, 64: 2, 128: 3}[span]
    return (o ^ (((o >> 7) & ((1 << b) - 1)) << 4)) - base


def tma_tile_bytes(rows, inner_bytes, swizzle):
    span = SPAN[swizzle]
    return rows * (span if span else inner_bytes)


def tma_counters(box_bytes, load=True):
    """What a TMA load (UTMALDG) or store (UTMASTG) of box_bytes, or a bulk copy, shows:
    0 on every LSU shared wavefront / bank-conflict counter (op_ld, op_st, op_ldgsts, total);
    l1tex__data_bank_writes (load) or _reads (store) += box_bytes / 4 (the data enters or
    leaves the banks, 4 bytes a bank-access); l1tex__m_xbar2l1tex_read_bytes_pipe_tma (load) /
    l1tex__m_l1tex2xbar_write_bytes_pipe_tma (store) = box_bytes, sectors = box_bytes / 32 (a box of
    whole aligned 32-byte sectors; measured: 2, 4, 8 KiB boxes)."""
    return {"hw_wf": 0, "hw_bc": 0, ("bank_writes" if load else "bank_reads"): box_bytes // 4,
            "tma_bytes": box_bytes, "tma_sectors": box_bytes // 32}


# ================================================================== self-test
def _selftest():
    L = range(WARP)
    assert mat_cost([t * 16 for t in L], "ldsm.x4")["wf"] == 4
    assert mat_cost([t * 128 for t in L], "ldsm.x4") == {"wf": 32, "bc": 28, "ideal": 4}
    assert mat_cost([(t // 2) * 16 for t in L], "ldsm.x4")["wf"] == 4     # repeated rows merge
    assert mat_cost([t * 128 if t < 8 else 0 for t in L], "ldsm.x1")["wf"] == 8
    # cp.async: the first call's decisive launches
    c = [t * 4 for t in L]
    assert ldgsts("ca.4", [256] * 32, c)["sass_wf"] == 32                    # no merging
    assert ldgsts("ca.4", c, [512] * 32)["sass_wf"] == 32                    # one source word
    r = ldgsts("ca.4", c, [t * 256 for t in L])                              # scatter
    assert (r["sass_wf"], r["sass_bc"], r["hw_bc"], r["sectors"]) == (32, 31, 24, 32)
    c16 = [t * 16 for t in L]
    assert ldgsts("cg.16", c16, c16)["sass_wf"] == 4
    assert ldgsts("cg.16", [((t * 7) % 32) * 16 for t in L], c16)["sass_wf"] == 20
    assert ldgsts("cg.16", [(31 - t) * 16 for t in L], c16)["sass_wf"] == 4
    assert ldgsts("cg.16", [(t // 2) * 16 for t in L], c16)["sass_wf"] == 16
    assert ldgsts("cg.16", [256] * 32, c16)["sass_wf"] == 1
    r = ldgsts("cg.16.z", [t * 128 for t in L], c16, 8)
    assert (r["sass_wf"], r["sass_bc"], r["hw_wf"], r["hw_bc"], r["sectors"]) == (64, 28, 32, 24, 32)
    assert ldgsts("cg.16.z", [t * 128 for t in L], c16, 16)["hw_wf"] == 0
    # pre-registered (no first-call launch): 32 sectors at distinct banks, one phase -> 8, not 1
    r = ldgsts("ca.4", c, [t * 128 + 4 * t for t in L])
    assert (r["sass_wf"], r["sass_bc"], r["hw_bc"], r["sectors"]) == (8, 7, 0, 32)
    assert ldgsts("ca.4", c, [t * 128 + 4 * t for t in L], sector_bound="none")["sass_wf"] == 1
    # TMA: 128B swizzle, 64-byte rows padded to 128 bytes (tmadump_128Bi64)
    assert tma_offset(1, 0, 64, "128B") == 128 + 16 and tma_offset(4, 0, 64, "128B") == 512 + 64
    assert tma_offset(3, 16, 32, "32B") == 96 + 16 and tma_offset(4, 0, 32, "32B") == 128 + 16


if __name__ == "__main__":
    _selftest()
    print("model.py self-test ok")
