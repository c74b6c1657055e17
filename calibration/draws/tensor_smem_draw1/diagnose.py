#!/usr/bin/env python3
"""After the call (not pre-registered): what the draw's misses are, checked against the first
call too (calibration/probes/tensor_smem, 540 launches). RESULT.md quotes diagnosis.txt.

usage: diagnose.py DRAW_TAR DRAW_TABLES CALL1_TABLES
  DRAW_TAR      raw/tensor_smem_draw1.tar.gz (its dump_cp.txt)
  DRAW_TABLES   the folder parse.py wrote from it
  CALL1_TABLES  the tables/ folder inside the first call's raw/tensor_smem.tar.gz
                (bash calibration/lib/restore_raw.sh calibration/probes/tensor_smem; untar)
Standard library only. compare.py (pre-registered) is left as it was run; this script only
adds readings, each printed with how many launches of each call it fits."""
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import expect  # noqa: E402
from expect import model  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
import parse as p1  # noqa: E402


def iv(r, c):
    try:
        return int(float(r.get(c, "") or "x"))
    except ValueError:
        return None


def table(folder, name):
    return {r["name"]: r for r in csv.DictReader(open(os.path.join(folder, name)), delimiter="\t")}


def phases(d, w):
    g = {4: 32, 8: 16, 16: 8}[w]
    act = [lane for lane in range(32) if d[lane] >= 0]
    ph = [[lane for lane in act if p0 <= lane < p0 + g] for p0 in range(0, 32, g)]
    return [x for x in ph if x]


def side(d, s, n, w, ls, which):
    c = {}
    for lane in ls:
        db, sb = model._lane_words(d, s, n, w, lane, "read")
        for b in db if which == "d" else sb:
            c[b] = c.get(b, 0) + 1
    return max(c.values()) if c else 0


def launches(draw, call1):
    """(call, name, kind, d, s, n, measured row, warm) of every LDGSTS launch of both calls."""
    pats = expect.load_patterns()
    for name, m in draw.items():
        p = pats.get(name)
        if p is None or not p["kind"].startswith(("ca.", "cg.")):
            continue
        _, w, z = model.cp_kind(p["kind"])
        n = [min(max(x, 0), w) for x in p["z"]] if z else [w] * 32
        yield "draw", name, p["kind"], p["o"], p["s"], n, m, p["warm"]
    pats1 = p1.load_patterns()
    for name, m in call1.items():
        p = pats1.get(name)
        if p is None or not p["kind"].startswith(("ca.", "cg.")):
            continue
        _, w, z = model.cp_kind(p["kind"])
        n = [min(max(p["srcsize"], 0), w)] * 32 if z else [w] * 32
        yield "call1", name, p["kind"], p["o"], p["s"], n, m, p["warm"]


def main():
    files, dt, c1t = p1.open_src(sys.argv[1]), sys.argv[2], sys.argv[3]
    draw, call1 = table(dt, "measured.tsv"), table(c1t, "measured.tsv")
    out = []

    # 1. the hardware total: the kernel's own op_misc wavefronts
    out.append("== 1. LDGSTS hw_wf: the kernel's own wavefronts (op_misc) per launch")
    own = {}
    for name, m in draw.items():
        if m["group"] != "cp":
            continue
        ctl = name.startswith("d1_ctl_")
        key = "all-inactive control" if ctl else ("warm" if "_warm" in name else "active, cold")
        own.setdefault(key, {}).setdefault(iv(m, "hw_misc_wf"), 0)
        own[key][iv(m, "hw_misc_wf")] += 1
        if ctl:
            assert iv(m, "hw_wf") == iv(m, "hw_misc_wf"), name
    for key, v in sorted(own.items()):
        out.append(f"  {key:22s} op_misc wavefronts: " + ", ".join(f"{k} on {n} launches" for k, n in sorted(v.items())))
    out.append("  (the first call measured hw_wf minus 5, 4 when warm: the same as the active launches'"
               " own op_misc; compare.py subtracted the control's 6)")

    # 2. the rule on every counter with hw_wf = hw_wf - the launch's own op_misc
    out.append("== 2. the rule (model.py, as predicted) with hw_wf minus the launch's own op_misc")
    pred = table(HERE, "predictions.tsv")
    tally = {}
    for call, name, kind, d, s, n, m, warm in launches(draw, {}):
        if name.startswith("d1_ctl_"):
            continue
        p = pred[name]
        typ = kind.split(".")[0] + (".z" if kind.endswith(".z") else "")
        hw = iv(m, "hw_wf") - iv(m, "hw_misc_wf")
        for col, got, want in (("sass_wf", iv(m, "sass_ldgsts_wf"), iv(p, "wf")), ("hw_wf", hw, iv(p, "hw_wf")),
                               ("hw_wf = measured sass_wf", hw, iv(m, "sass_ldgsts_wf"))):
            e = tally.setdefault((typ, col), [0, 0])
            e[0] += got == want
            e[1] += 1
    for (typ, col), (ok, n) in sorted(tally.items()):
        out.append(f"  {typ:5s} {col:28s} {ok:3d} / {n}")

    # 3. .ca Source page wavefronts: the max rule without the sector bound, by phase structure
    out.append("== 3. LDGSTS .ca Source-page wavefronts: per phase max(destination, source) lane-words, no sector bound")
    res = {}
    worst = []
    for call, name, kind, d, s, n, m, warm in launches(draw, call1):
        if not kind.startswith("ca.") or name.startswith("d1_ctl_"):
            continue
        _, w, _ = model.cp_kind(kind)
        ph = phases(d, w)
        got = iv(m, "sass_ldgsts_wf")
        if got is None:
            continue
        pc = [(side(d, s, n, w, x, "d"), side(d, s, n, w, x, "s")) for x in ph]
        v = sum(max(a, b) for a, b in pc)
        both = any(a > 1 and b > 1 for a, b in pc)
        key = (call, "some phase conflicted on both sides" if both else "no phase conflicted on both sides")
        e = res.setdefault(key, [0, 0, 0])
        e[0] += got == v
        e[1] += 1
        e[2] += got > v
        if got != v:
            worst.append(f"    {call} {name}: measured {got}, max rule {v}, per phase (dest, src) {pc}")
    for (call, k), (ok, n, hi) in sorted(res.items()):
        out.append(f"  {call:5s} {k:38s} exact {ok:3d} / {n:3d}   measured above the rule {hi}")
    out += worst

    # 3b. other packings of a phase's lanes into wavefronts, on the same launches
    out.append("== 3b. .ca Source-page wavefronts by other packings (exact launches, draw / first call)")

    def words(d, s, n, w, lane):
        return model._lane_words(d, s, n, w, lane, "read")

    def firstfit(d, s, n, w, ls):
        waves = []
        for lane in ls:
            db, sb = (set(x) for x in words(d, s, n, w, lane))
            for wv in waves:
                if not (wv[0] & db) and not (wv[1] & sb):
                    wv[0] |= db
                    wv[1] |= sb
                    break
            else:
                waves.append([db, sb])
        return len(waves)

    def fifo(d, s, n, w, ls):
        """every bank a queue on both sides: a lane goes one wavefront after the latest earlier
        lane that uses any of its destination or source banks (the longest chain)"""
        last, top = {}, 0
        for lane in ls:
            wd = words(d, s, n, w, lane)
            lv = 1 + max([last.get((k, b), 0) for k in (0, 1) for b in wd[k]] + [0])
            for k in (0, 1):
                for b in wd[k]:
                    last[(k, b)] = lv
            top = max(top, lv)
        return top

    def queues(side):
        def f(d, s, n, w, ls):
            """each wavefront: the head of every `side` bank's queue, in lane order, unless the
            other side's bank is already taken in this wavefront"""
            pend, waves, o = list(ls), 0, 1 - side
            while pend:
                waves += 1
                used, taken, ob = set(), [], set()
                for lane in pend:
                    wd = words(d, s, n, w, lane)
                    qb = set(wd[side])
                    head = not (qb & used)
                    used |= qb
                    if head and not (set(wd[o]) & ob):
                        ob |= set(wd[o])
                        taken.append(lane)
                pend = [x for x in pend if x not in taken]
            return waves
        return f
    for label, fn in (("first-fit in lane order (= the max rule)", firstfit), ("queues on both sides (longest chain)", fifo),
                      ("destination-bank queues, source filter", queues(0)), ("source-bank queues, destination filter", queues(1))):
        ok = {"draw": [0, 0], "call1": [0, 0]}
        for call, name, kind, d, s, n, m, warm in launches(draw, call1):
            if not kind.startswith("ca.") or name.startswith("d1_ctl_") or iv(m, "sass_ldgsts_wf") is None:
                continue
            _, w, _ = model.cp_kind(kind)
            ok[call][0] += sum(fn(d, s, n, w, x) for x in phases(d, w)) == iv(m, "sass_ldgsts_wf")
            ok[call][1] += 1
        out.append(f"  {label:44s} draw {ok['draw'][0]:3d} / {ok['draw'][1]}   first call {ok['call1'][0]:3d} / {ok['call1'][1]}")

    # 4. the Source page "Ideal" column of LDGSTS
    out.append("== 4. Source page 'L1 Wavefronts Shared Ideal' of LDGSTS: ceil(bytes / 128) (.ca: active lanes x width;"
               " .cg: distinct destinations x 16) vs phases with an active lane")
    pats, pats1 = expect.load_patterns(), p1.load_patterns()
    for call, folder, pp in (("draw", dt, pats), ("call1", c1t, pats1)):
        ok_b = ok_p = n_ = 0
        for line in open(os.path.join(folder, "source_page.tsv")).read().splitlines()[1:]:
            f = line.split("\t")
            name = f[1].split()[0]
            p = pp.get(name)
            if p is None or "LDGSTS" not in f[2]:
                continue
            col = dict(x.split("=", 1) for x in f[4:] if "=" in x)
            d = p["o"]
            typ, w, _ = model.cp_kind(p["kind"])
            act = [lane for lane in range(32) if d[lane] >= 0]
            nb = (len(act) if typ == "ca" else len({d[lane] for lane in act})) * w
            ideal = iv(col, "L1 Wavefronts Shared Ideal")
            ok_b += ideal == -(-nb // 128)
            ok_p += ideal == len(phases(d, w))
            n_ += 1
        out.append(f"  {call:5s} ceil(bytes / 128) {ok_b} / {n_}; phases {ok_p} / {n_}")

    # 5. who wins a shared destination
    out.append("== 5. lanes writing one word: whose bytes stay (draw dumps)")
    words = {}
    for line in files["dump_cp.txt"].splitlines():
        f = line.split()
        if f and f[0] == "W":
            words.setdefault(f[1], {})[int(f[2])] = int(f[3], 16)
    win = {}
    for name, p in pats.items():
        if not p["kind"].startswith(("ca.", "cg.")) or name not in words:
            continue
        typ, w, z = model.cp_kind(p["kind"])
        d = p["o"]
        ww = {}
        for lane in range(32):
            if d[lane] >= 0:
                for o in range(d[lane] - d[lane] % 4, d[lane] + w, 4):
                    ww.setdefault(o, []).append(lane)
        for o, ls in ww.items():
            if len(ls) < 2:
                continue

            def val(lane):
                nb = min(max(p["z"][lane], 0), w) if z else w
                b = [expect.gbyte(p["s"][lane] + o + i - d[lane]) if o + i - d[lane] < nb else 0 for i in range(4)]
                return b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24
            got = [lane for lane in ls if val(lane) == words[name].get(o)]
            r = ("several (equal bytes)" if len(got) > 1 else "highest lane" if got == [max(ls)]
                 else "lowest lane" if got == [min(ls)] else "another lane" if got else "none")
            win.setdefault(typ, {}).setdefault(r, 0)
            win[typ][r] += 1
    for typ, v in sorted(win.items()):
        out.append(f"  {typ}: " + ", ".join(f"{k} {n}" for k, n in sorted(v.items())))

    # 6. TMA: the innermost coordinate in bytes
    out.append("== 6. TMA patterns: innermost box coordinate x element size (the dump stopped at the first not 16-byte aligned)")
    for name, p in pats.items():
        if p["kind"] != "tma":
            continue
        es = 4 if p["dtype"] == "u32" else 2
        b = p["c"][0] * es
        out.append(f"  {name:40s} c0 {p['c'][0]:4d} -> {b:5d} bytes {'16-byte aligned' if b % 16 == 0 else 'NOT 16-byte aligned'}")

    # 7. mbarrier controls
    out.append("== 7. mbarrier / fence controls: op_misc wavefronts minus mb_k<0>'s")
    mb0 = iv(draw["d1_mbar_00"], "hw_misc_wf")
    what = ["nothing", "init", "4 x init", "init + fence.mbarrier_init", "init + arrive", "init(4) + 4 x arrive",
            "init + arrive + test_wait", "init + arrive + 8 x test_wait", "4 x fence.proxy.async",
            "init(32) + 32 lanes arrive", "init + arrive.expect_tx 0 + try_wait loop"]
    for k in range(11):
        m = draw.get(f"d1_mbar_{k:02d}")
        if m:
            out.append(f"  mb_k<{k:2d}> {what[k]:42s} {iv(m, 'hw_misc_wf') - mb0:3d}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
