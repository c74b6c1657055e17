#!/usr/bin/env python3
"""predictions.tsv of draw2, written (and committed) before the device call, by the rule as
tensor_smem_draw1 left it: calibration/probes/tensor_smem/model.py with the options model.DRAW2
(no sector bound, the Source-page Ideal from bytes); the first call's rule (model.SPEC's
defaults) and other alternatives in the alt_* columns; `joint` = 1 where some phase of a .ca
copy is conflicted on both the destination and the source side (draw1: the rule low on 18 of 21
such launches, the open part: compare.py counts those apart); today's warpsim in the warpsim_*
columns when a binary is at $WARPSIM (default /work/bin/warpsim; left empty otherwise).

One row per profiled launch (a TMA pattern gives two: NAME with its mode, NAME@load with the
load alone). Columns:
  name group kind
  wf bc ideal      LDSM/STSM: the Source page's op_ldsm/op_stsm and the hardware op_ld/op_st
                   (equal); LDS/STS.128: hardware op_ld/op_st (house rule); LDGSTS: the Source
                   page's op_ldgsts (sass) and its "Ideal"; TMA: the read-back's op_ld (NAME), 0
                   (NAME@load); mbar: empty
  sectors tags     LDGSTS: smsp__sass_l1tex_t_sectors_..._op_ldgsts, Source page "L1 Tag
                   Requests Global"
  hw_wf hw_bc      LDGSTS: what it adds to l1tex__data_pipe_lsu_wavefronts_mem_shared (compare
                   subtracts the all-inactive control launch of its kernel) and
                   l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts; TMA NAME@load: 0/0
                   on op_ld+op_st; mbar: op_misc wavefronts minus d1_mbar_00's (hypothesis M1)
  bank_writes      TMA NAME@load: box bytes / 4 (compare fits one constant for the kernel's own)
  func             sha1 (16 hex) of the functional dump expected (expect.py): LDSM registers,
                   STSM/LDGSTS shared words, TMA tile window; func2: TMA read-back registers
  alt_*            the alternative's numbers where they differ from the rule's ('=' where equal)
  warpsim_wf warpsim_bc   today's warpsim on the load/store equivalent (LDSM/STSM as ld/st 16
                   over the used lanes, LDGSTS as st of its width at the destinations)"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import expect  # noqa: E402
from expect import model  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
from rules import house  # noqa: E402

WARPSIM = os.environ.get("WARPSIM", "/work/bin/warpsim")
CPKEYS = ("sass_wf", "sass_bc", "sectors", "hw_wf", "hw_bc")

# mbarrier controls: per kernel mb_k<K>, the instructions ptxas 12.6 emits (FENCE.VIEW.ASYNC.S,
# SYNCS.EXCH, SYNCS.ARRIVE, SYNCS.PHASECHK; cucheck's SASS); the device's SASS is dumped again.
MB_SASS = {0: (0, 0, 0, 0), 1: (1, 1, 0, 0), 2: (1, 4, 0, 0), 3: (1, 1, 0, 0), 4: (1, 1, 1, 0),
           5: (1, 1, 4, 0), 6: (1, 1, 1, 1), 7: (1, 1, 1, 8), 8: (4, 0, 0, 0), 9: (1, 1, 1, 0),
           10: (1, 1, 1, None)}


def mb_m1(k):
    """M1 (fits the first call: init +3, arrive+try_wait +1, TMA load +1): one op_misc wavefront
    per warp-level FENCE.VIEW.ASYNC.S, SYNCS.EXCH and SYNCS.ARRIVE; none for PHASECHK (test/try
    wait) and MEMBAR."""
    f, e, a, _ = MB_SASS[k]
    return f + e + a


def mb_m2(k):
    """M2: as M1, plus one per executed SYNCS.PHASECHK (test_wait; try_wait loops unknown: -)."""
    f, e, a, p = MB_SASS[k]
    return None if p is None else f + e + a + p


def mb_m3(k):
    """M3: as M1, but an arrive costs one per arriving thread (K 9: 32 lanes)."""
    return mb_m1(k) + (31 if k == 9 else 0)


# ------------------------------------------------------------------ LDGSTS alternatives
# Each alternative changes one option of the rule (model.DRAW2 over model.SPEC, see model.ldgsts):
CP_ALTS = [
    ("rule1", {"sector_bound": "phase", "ideal": "phases"}),  # the first call's rule, as shipped
    ("ca_greedy", {"packing": "greedy"}),       # lanes first-fit in lane order into wavefronts
                                                # with every source and destination bank free
    ("ca_srcfull", {"src_words": "width"}),     # .ca.z: the source words of the full width count
    ("sect_instr", {"sector_bound": "instr"}),  # the sector bound on the instruction, not per phase
    ("sect_none", {"sector_bound": "none"}),    # no sector bound (the hardware conflicts >= 0)
    ("hw_lines", {"hw_unit": "lines"}),         # hardware conflict ideal from lines / 4
    ("cg_quarter", {"cg_key": "quarter"}),      # .cg groups keyed by quarter-warp
    ("cg_first", {"cg_winner": "first"}),       # .cg: the lowest lane's copy is kept
    ("zfill_any", {"zfill_hw": "any"}),         # .cg.z hardware store over all active lanes
]
ALT_COLS = [a for a, _ in CP_ALTS] + ["cg_first_func", "tma_rel", "mb_m2", "mb_m3"]


def joint(k, d, s, z):
    """1 if some phase of a .ca copy has more than one lane-word on a destination bank and more
    than one on a source bank (draw1's open part), else 0."""
    typ, w, _ = model.cp_kind(k)
    if typ != "ca":
        return 0
    n = [min(max(x, 0), w) for x in z]
    g = {4: 32, 8: 16, 16: 8}[w]
    for p0 in range(0, 32, g):
        dc, sc = {}, {}
        for lane in range(p0, p0 + g):
            if d[lane] < 0:
                continue
            db, sb = model._lane_words(d, s, n, w, lane, "read")
            for b in db:
                dc[b] = dc.get(b, 0) + 1
            for b in sb:
                sc[b] = sc.get(b, 0) + 1
        if dc and sc and max(dc.values()) > 1 and max(sc.values()) > 1:
            return 1
    return 0


def cpstr(r):
    return "/".join(str(r[k]) for k in CPKEYS)


def main():
    pats = expect.load_patterns()
    rows, trace = [], []
    for name, p in pats.items():
        k = p["kind"]
        alts = {}
        row = {"name": name, "kind": k}
        if k.startswith(("ldsm", "stsm")):
            c = model.mat_cost(p["o"], k)
            row.update(group="mat", wf=c["wf"], bc=c["bc"], ideal=c["ideal"], func=expect.h(expect.mat_expect(k, p["o"])))
            n = model.mat_n(k)
            trace.append((name, f"{name} {k[:2]} 16 " + " ".join(str(o if l < 8 * n else -1) for l, o in enumerate(p["o"]))))
        elif k in ("lds.128", "sts.128"):
            wf, bc, ph = house(p["o"], 16, k[:2])
            row.update(group="mat", wf=wf, bc=bc, ideal=ph)
            trace.append((name, f"{name} {k[:2]} 16 " + " ".join(str(o) for o in p["o"])))
        elif k.startswith(("ca.", "cg.")):
            c = model.ldgsts(k, p["o"], p["s"], p["z"], **model.DRAW2)
            row.update(group="cp", wf=c["sass_wf"], bc=c["sass_bc"], ideal=c["ideal"], sectors=c["sectors"],
                       tags=c["tags"], hw_wf=c["hw_wf"], hw_bc=c["hw_bc"],
                       func=expect.h(expect.cp_expect(k, p["o"], p["s"], p["z"])))
            for a, opt in CP_ALTS:
                v = cpstr(model.ldgsts(k, p["o"], p["s"], p["z"], **dict(model.DRAW2, **opt)))
                alts[a] = "=" if v == cpstr(c) else v
            f2 = expect.h(expect.cp_expect(k, p["o"], p["s"], p["z"], "first"))
            alts["cg_first_func"] = "=" if f2 == row["func"] else f2
            row["joint"] = joint(k, p["o"], p["s"], p["z"])
            w = model.cp_kind(k)[1]
            if any(x >= 0 for x in p["o"]):
                trace.append((name, f"{name} st {w} " + " ".join(str(o) for o in p["o"])))
        elif k == "tma":
            es, inner, nrows = expect.tma_geom(p)
            box = p["B"][0] * p["B"][1] * p["B"][2] * es
            if "ldsm" in p["mode"]:
                c = model.mat_cost(p["o"], "ldsm.x4")
                wf, bc, ph = c["wf"], c["bc"], c["ideal"]
            else:
                wf, bc, ph = house(p["o"], 16, "ld")
            tile = expect.h(expect.tma_tile_str(p))
            regs = expect.h(expect.tma_regs_str(p))
            row.update(group="tma", kind=f"tma.{p['swz']}.r{p['rank']}", wf=wf, bc=bc, ideal=ph, func=tile, func2=regs)
            rel = (expect.h(expect.tma_tile_str(p, "rel")), expect.h(expect.tma_regs_str(p, "rel")))
            alts["tma_rel"] = "=" if rel == (tile, regs) else f"{rel[0]}/{rel[1]}"
            rows.append((row, alts))
            rows.append(({"name": name + "@load", "group": "tma", "kind": f"tma.{p['swz']}.r{p['rank']}.load",
                          "wf": 0, "bc": 0, "hw_wf": 0, "hw_bc": 0, "bank_writes": box // 4}, {}))
            continue
        elif k == "mbar":
            row.update(group="mbar", hw_wf=mb_m1(p["k"]))
            for a, fn in (("mb_m2", mb_m2), ("mb_m3", mb_m3)):
                v = fn(p["k"])
                alts[a] = "=" if v == row["hw_wf"] else ("-" if v is None else str(v))
        rows.append((row, alts))
    ws = run_warpsim(trace)
    cols = ["name", "group", "kind", "wf", "bc", "ideal", "sectors", "tags", "hw_wf", "hw_bc", "bank_writes",
            "func", "func2"] + ["alt_" + a for a in ALT_COLS] + ["warpsim_wf", "warpsim_bc", "joint"]
    with open(os.path.join(HERE, "predictions.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for row, alts in rows:
            w = ws.get(row["name"])
            cells = [str(row.get(c, "")) for c in cols[:13]] + [alts.get(a, "") for a in ALT_COLS]
            cells += [str(w[0]), str(w[1])] if w else ["", ""]
            cells.append(str(row.get("joint", "")))
            f.write("\t".join(cells) + "\n")
    # how many launches each alternative could decide
    print(f"predictions.tsv: {len(rows)} launches; warpsim priced {len(ws)}")
    for a in ALT_COLS:
        n = sum(1 for _, alts in rows if alts.get(a) not in (None, "", "="))
        print(f"  alt_{a:14s} differs from the rule on {n} launches")
    mat = [(r, ws.get(r["name"])) for r, _ in rows if r["group"] == "mat" and r["kind"].startswith(("ldsm", "stsm"))]
    cp = [(r, ws.get(r["name"])) for r, _ in rows if r["group"] == "cp" and ws.get(r["name"])]
    print(f"  today's warpsim differs from the rule: LDSM/STSM {sum(1 for r, w in mat if w and (w[0], w[1]) != (r['wf'], r['bc']))} "
          f"of {len(mat)}, LDGSTS (Source page wf/bc) {sum(1 for r, w in cp if (w[0], w[1]) != (r['wf'], r['bc']))} of {len(cp)}")


def run_warpsim(trace):
    if not os.access(WARPSIM, os.X_OK):
        print(f"(no warpsim at {WARPSIM}: warpsim columns left empty)", file=sys.stderr)
        return {}
    text = "\n".join(line for _, line in trace) + "\n"
    r = subprocess.run([WARPSIM, "access", "-", "--format", "tsv"], input=text, capture_output=True, text=True)
    if r.returncode != 0:
        print("warpsim access failed:", r.stderr[:2000], file=sys.stderr)
        return {}
    out = {}
    lines = r.stdout.splitlines()
    hdr = lines[0].split("\t")
    iw, ib = hdr.index("wavefronts"), hdr.index("bank_conflicts")
    for line in lines[1:]:
        f = line.split("\t")
        if len(f) > max(iw, ib):
            out[f[0]] = (int(f[iw]), int(f[ib]))
    return out


if __name__ == "__main__":
    main()
