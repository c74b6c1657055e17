#!/usr/bin/env python3
"""Draw2's measurements against predictions.tsv (committed before the call). As draw1's
compare.py, with what draw1 taught: an LDGSTS launch's hardware total minus its own op_misc
wavefronts (not an all-inactive control's: that one has one more); .ca counted apart where a
phase is conflicted on both sides (`joint`, the open part); the c0-unaligned risky TMA boxes
predicted to fault.

usage: compare.py TABLES [predictions.tsv] [--all]
  TABLES  the folder parse.py wrote (measured.tsv, functional.tsv, source_page.tsv)
Prints, per group and counter, how many launches the fixed rule got exactly; for each
alternative, on how many of the launches where it differs from the rule it was right instead;
today's warpsim; the functional hashes; the Source page columns of the srcpage launches; then
every miss (--all: every launch)."""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path, key="name"):
    return {r[key]: r for r in csv.DictReader(open(path), delimiter="\t")}


def iv(r, c):
    try:
        return int(float(r.get(c, "") or "x"))
    except ValueError:
        return None


class Tally:
    def __init__(self):
        self.t = {}

    def add(self, key, ok, miss=None):
        e = self.t.setdefault(key, [0, 0, []])
        e[1] += 1
        e[0] += bool(ok)
        if not ok and miss:
            e[2].append(miss)

    def lines(self, show=8):
        out = []
        for k, (ok, n, miss) in self.t.items():
            out.append(f"  {k:62s} {ok:4d} / {n}")
            out += [f"      miss {m}" for m in miss[:show]]
        return out


CPK = ("sass_wf", "sass_bc", "sectors", "hw_wf", "hw_bc")


def main():
    tables = sys.argv[1]
    pred = load(sys.argv[2] if len(sys.argv) > 2 and not sys.argv[2].startswith("--") else os.path.join(HERE, "predictions.tsv"))
    meas = load(os.path.join(tables, "measured.tsv"))
    show = 1000 if "--all" in sys.argv else 8
    T, A, W = Tally(), Tally(), Tally()
    mb0 = iv(meas.get("d2_mbar_00", {}), "hw_misc_wf")
    loads = [(n, p) for n, p in pred.items() if n.endswith("@load") and n in meas]
    cfit = sorted(iv(meas[n], "bank_writes") - int(p["bank_writes"]) for n, p in loads if iv(meas[n], "bank_writes") is not None)
    C = cfit[len(cfit) // 2] if cfit else None
    for n, p in pred.items():
        m = meas.get(n)
        if "c0unal" in n:
            continue   # predicted to fault: counted under functional below
        if m is None:
            T.add(f"{p['group']}: launches measured", False, f"{n} not measured")
            continue
        T.add(f"{p['group']}: launches measured", True)
        g, k = p["group"], p["kind"]
        if g == "mat" and k.startswith(("ldsm", "stsm")):
            op, hw = ("ldsm", "ld") if k.startswith("ldsm") else ("stsm", "st")
            want = (iv(p, "wf"), iv(p, "bc"))
            for c in (f"sass_{op}", f"hw_{hw}"):
                got = (iv(m, c + "_wf"), iv(m, c + "_bc"))
                T.add(f"{op}: {c} wf/bc", got == want, f"{n} rule {want} measured {got}")
            if p.get("warpsim_wf"):
                W.add(f"{op}: today's warpsim (ld/st 16) on sass_{op}",
                      (iv(p, "warpsim_wf"), iv(p, "warpsim_bc")) == (iv(m, f"sass_{op}_wf"), iv(m, f"sass_{op}_bc")))
        elif g == "mat":
            hw = "ld" if k.startswith("lds") else "st"
            want, got = (iv(p, "wf"), iv(p, "bc")), (iv(m, f"hw_{hw}_wf"), iv(m, f"hw_{hw}_bc"))
            T.add(f"{k}: hw_{hw} wf/bc (house rule)", got == want, f"{n} rule {want} measured {got}")
        elif g == "cp":
            if n.startswith("d2_ctl_"):
                T.add("ldgsts all-inactive controls: hw_wf = op_misc (nothing else)",
                      iv(m, "hw_wf") == iv(m, "hw_misc_wf"), f"{n} hw_wf {m.get('hw_wf')} op_misc {m.get('hw_misc_wf')}")
                continue
            hwt, misc = iv(m, "hw_wf"), iv(m, "hw_misc_wf")
            got = {"sass_wf": iv(m, "sass_ldgsts_wf"), "sass_bc": iv(m, "sass_ldgsts_bc"),
                   "sectors": iv(m, "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts"),
                   "hw_wf": None if hwt is None or misc is None else hwt - misc,
                   "hw_bc": iv(m, "hw_ldgsts_bc")}
            want = {"sass_wf": iv(p, "wf"), "sass_bc": iv(p, "bc"), "sectors": iv(p, "sectors"),
                    "hw_wf": iv(p, "hw_wf"), "hw_bc": iv(p, "hw_bc")}
            typ = k.split(".")[0] + (".z" if k.endswith(".z") else "")
            if typ.startswith("ca"):
                typ += " (joint)" if p.get("joint") == "1" else " (no joint phase)"
            for c in CPK:
                T.add(f"ldgsts {typ}: {c}", got[c] == want[c], f"{n} rule {want[c]} measured {got[c]}")
            T.add(f"ldgsts {typ}: all five", got == want)
            sub = "cache_access" if typ.startswith("ca") else "cache_bypass"
            if typ.startswith("ca") and p.get("joint") == "1" and got["sass_wf"] is not None:
                T.add("ldgsts ca (joint): sass_wf >= the rule (draw1: 18 of 21 above)",
                      got["sass_wf"] >= want["sass_wf"], f"{n} rule {want['sass_wf']} measured {got['sass_wf']}")
            gs = (iv(m, f"sass_ldgsts_{sub}_wf"), iv(m, f"sass_ldgsts_{sub}_bc"))
            T.add(f"ldgsts {typ}: sass_ldgsts_{sub} wf/bc", gs == (want["sass_wf"], want["sass_bc"]),
                  f"{n} rule {(want['sass_wf'], want['sass_bc'])} measured {gs}")
            gv = "/".join(str(got[c]) for c in CPK)
            for col in p:
                if col.startswith("alt_") and p[col] not in ("", "=") and not col.endswith("_func"):
                    A.add(f"{col}: right where it differs from the rule", p[col] == gv,
                          f"{n} alt {p[col]} measured {gv}")
            if p.get("warpsim_wf"):
                W.add("ldgsts: today's warpsim (st of the width) on sass_ldgsts",
                      (iv(p, "warpsim_wf"), iv(p, "warpsim_bc")) == (got["sass_wf"], got["sass_bc"]))
        elif g == "tma":
            if n.endswith("@load"):
                got = (iv(m, "hw_ld_wf") or 0) + (iv(m, "hw_st_wf") or 0), iv(m, "hw_bc") or 0
                T.add("tma load alone: op_ld + op_st wavefronts, bank conflicts = 0", got == (0, 0), f"{n} measured {got}")
                if C is not None and iv(m, "bank_writes") is not None:
                    T.add(f"tma load alone: bank_writes = {C} + box bytes / 4",
                          iv(m, "bank_writes") - C == int(p["bank_writes"]), f"{n} rule {C}+{p['bank_writes']} measured {m['bank_writes']}")
            else:
                want, got = (iv(p, "wf"), iv(p, "bc")), (iv(m, "hw_ld_wf"), iv(m, "hw_ld_bc"))
                T.add("tma read-back: hw_ld wf/bc", got == want, f"{n} rule {want} measured {got}")
                T.add("tma load+read-back+store: hw_st wf = 0", (iv(m, "hw_st_wf") or 0) == 0, f"{n} hw_st {m.get('hw_st_wf')}")
        elif g == "mbar" and mb0 is not None:
            got = iv(m, "hw_misc_wf")
            got = None if got is None else got - mb0
            T.add("mbar: op_misc wavefronts minus mb_k<0>'s (M1)", got == iv(p, "hw_wf"), f"{n} M1 {p['hw_wf']} measured {got}")
            for col in ("alt_mb_m2", "alt_mb_m3"):
                if p[col] not in ("", "=", "-"):
                    A.add(f"{col}: right where it differs from M1", str(got) == p[col], f"{n} alt {p[col]} measured {got}")
    # functional
    F = Tally()
    fun = {}
    for r in csv.DictReader(open(os.path.join(tables, "functional.tsv")), delimiter="\t"):
        fun.setdefault(r["name"], {})[r["what"]] = r["value"]
    for n, p in pred.items():
        if not p.get("func") or n.endswith("@load") or "c0unal" in n:
            continue
        f = fun.get(n, {})
        what = {"mat": "regs" if p["kind"].startswith("ldsm") else "words", "cp": "words", "tma": "tile"}[p["group"]]
        got = f.get(what)
        F.add(f"{p['group']} {what}", got == p["func"], f"{n} measured {got} rule {p['func']}")
        if p["group"] == "cp" and p.get("alt_cg_first_func") not in ("", "="):
            A.add("alt_cg_first_func (lowest lane wins): right where it differs", got == p["alt_cg_first_func"])
        if p["group"] == "tma":
            F.add("tma read-back registers", f.get("tma_regs") == p["func2"], f"{n} measured {f.get('tma_regs')}")
            st = f.get("store", "")
            F.add("tma store: the output tensor as expected", st.endswith("mismatches 0"), f"{n} {st or 'no store line'}")
            if p.get("alt_tma_rel") not in ("", "="):
                A.add("alt_tma_rel (swizzle restarts at the tile): right where it differs",
                      f"{got}/{f.get('tma_regs')}" == p["alt_tma_rel"])
    for n, f in fun.items():
        if ("error" in f or "skipped" in f) and "c0unal" not in n:
            F.add("errors / skipped launches", False, f"{n}: {f.get('error') or f.get('skipped')}")
    for n in pred:
        if "c0unal" in n and not n.endswith("@load"):
            f = fun.get(f"risky/{n}_dump.txt", {})
            F.add("tma c0 not 16-byte aligned: the dump faults (predicted)", "error" in f,
                  f"{n}: {f.get('error') or 'no fault'}")
    # Source page
    S = Tally()
    sp = os.path.join(tables, "source_page.tsv")
    if os.path.exists(sp):
        for line in open(sp).read().splitlines()[1:]:
            f = line.split("\t")
            name = f[1].split()[0]
            p = pred.get(name)
            if p is None or not any(x in f[2] for x in ("LDGSTS", "LDSM", "STSM")):
                continue
            col = dict(x.split("=", 1) for x in f[4:] if "=" in x)
            chk = {"L1 Wavefronts Shared": p["wf"], "L1 Wavefronts Shared Ideal": p["ideal"]}
            if "LDGSTS" in f[2]:
                chk.update({"L2 Theoretical Sectors Global": p["sectors"], "L1 Tag Requests Global": p["tags"]})
            for c, v in chk.items():
                S.add(f"source page: {c}", col.get(c) == v, f"{name} rule {v} measured {col.get(c)}")
    print("== the fixed rule (model.py), launch by launch")
    print("\n".join(T.lines(show)))
    print("== functional (expect.py hashes)")
    print("\n".join(F.lines(show)))
    print("== Source page of the srcpage launches")
    print("\n".join(S.lines(show)))
    print("== alternatives, on the launches where they differ from the rule")
    print("\n".join(A.lines(3 if show < 1000 else show)))
    print("== today's warpsim")
    print("\n".join(W.lines(0)))


if __name__ == "__main__":
    main()
