#!/usr/bin/env python3
"""const_cold: raw outputs -> tables against warpsim's predictions.
    summarize.py sass FILE.sass      where the first c[0x3] load sits against the LDG and the clocks
    summarize.py table RAWDIR        compare.tsv: per config, predicted vs measured
    summarize.py brief RAWDIR        a short summary (< 1,400 characters)
RAWDIR: the const_cold folder of the tarball (configs from launches.txt / configs.tsv next to
this file; predictions.tsv from RAWDIR, else next to this file)."""
import csv, gzip, io, os, re, statistics, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def opener(p):
    if os.path.exists(p):
        return gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    if os.path.exists(p + ".gz"):
        return gzip.open(p + ".gz", "rt")
    return None


def tsv(p):
    f = opener(p)
    return list(csv.DictReader(f, delimiter="\t")) if f else []


def configs(raw=None):
    for d in ([raw] if raw else []) + [HERE]:
        rows = tsv(os.path.join(d, "configs.tsv"))
        if rows:
            return rows
    return []


def kernel_of_mangled(name):
    m = re.search(r"cc(?:ILi|I)(.*)EEv", name)
    if not m:
        return None
    return "cc<" + ",".join(re.findall(r"Li(\d+)E", "Li" + m.group(1) + "E")) + ">"


def sass_order(path):
    """Per kernel: ordered interesting instructions; index of first c[0x3] load, first LDG,
    the three CS2R clocks. Verdict: const_first and whether the load sits between t0 and tm."""
    out = {}
    cur = None
    for l in open(path, errors="replace"):
        if "Function :" in l:
            cur = kernel_of_mangled(l.split("Function :")[1].strip())
            if cur:
                out[cur] = []
            continue
        if cur is None:
            continue
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", l)
        if not m:
            continue
        ins = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip())
        op = ins.split()[0] if ins else ""
        c3 = "c[0x3]" in ins
        key = None
        if op.startswith(("ULDC", "LDC")) and c3:
            key = op + "[c3]"
        elif op.startswith("LDG"):
            key = "LDG"
        elif op.startswith("CS2R") and "SR_CLOCK" in ins:
            key = "CLK"
        elif op.startswith("STG"):
            key = "STG"
        elif op.startswith(("FFMA", "FMUL", "FADD")) and "UR" in ins:
            key = op.split(".")[0] + "(UR)"
        if key:
            out[cur].append((int(m.group(1), 16) // 16, key))
    return out


def sass_verdicts(path):
    res = {}
    for k, ev in sass_order(path).items():
        first_c = next((i for i, x in ev if x.endswith("[c3]")), None)
        first_g = next((i for i, x in ev if x == "LDG"), None)
        clks = [i for i, x in ev if x == "CLK"]
        seq = " ".join(f"{x}@{i}" for i, x in ev)
        if first_c is None:
            v = "no_const"
        elif first_g is None:
            v = "no_ldg"
        else:
            v = "const_first" if first_c < first_g else "ldg_first"
        t0 = clks[-3] if len(clks) >= 3 else None
        inside = "?" if t0 is None or first_c is None else ("yes" if t0 < first_c < clks[-2] else "no")
        res[k] = (v, inside, seq)
    return res


def ncu_csv(path):
    """{launch id: {metric: value}} from ncu --csv (other lines skipped)."""
    f = opener(path)
    if not f:
        return {}
    lines = [l for l in f if l.startswith('"')]
    out = {}
    for r in csv.DictReader(io.StringIO("".join(lines))):
        try:
            out.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
    return out


def source_page(path, n):
    """Per launch (in order): list of (opcode key, samples, {reason: samples})."""
    f = opener(path)
    if not f:
        return []
    blocks, cur = [], None
    for l in f:
        if l.startswith('"Kernel Name"'):
            cur = []
            blocks.append(cur)
        elif cur is not None and l.startswith('"'):
            cur.append(l)
    if n and len(blocks) == 2 * n:  # ncu printed each table twice
        blocks = blocks[0::2]
    out = []
    for b in blocks:
        rows = list(csv.reader(b))
        if not rows:
            out.append([])
            continue
        hdr, body = rows[0], rows[1:]
        ix = {h: j for j, h in enumerate(hdr)}
        reasons = [h for h in hdr if h.startswith("stall_") and "(Not Issued)" not in h]
        ins = []
        for r in body:
            if len(r) < len(hdr):  # a row cut off (the source-page stage timed out)
                continue
            src = r[ix["Source"]].strip()
            src = re.sub(r"^@!?U?P\w+\s+", "", src)
            op = src.split()[0] if src else "?"
            if "c[0x3]" in src:
                op += "[c3]"
            s = int(r[ix.get("Warp Stall Sampling (All Samples)", 2)] or 0)
            ins.append((op, s, {k[6:]: int(r[ix[k]] or 0) for k in reasons}))
        out.append(ins)
    return out


def launches(raw):
    f = opener(os.path.join(raw, "launches.txt"))
    rows = [l.rstrip("\n").split("\t") for l in f] if f else []
    return [r[2] for r in rows if r and r[0] == "LAUNCH"]


def clock_stats(raw):
    by = {}
    for r in tsv(os.path.join(raw, "clock.tsv")):
        by.setdefault((r["config"], r["variant"]), []).append(r)
    out = {}
    for k, rs in by.items():
        out[k] = {c: statistics.median(float(r[c]) for r in rs) for c in
                  ("issue1_first_med", "issue1_med", "total_first_med", "total_med", "rest_med", "event_us")}
    return out


def table(raw):
    cf = configs(raw)
    names = launches(raw) or [c["name"] for c in cf]
    cfg = {c["name"]: c for c in cf}
    pred = {r["name"]: r for r in (tsv(os.path.join(raw, "predictions.tsv")) or tsv(os.path.join(HERE, "predictions.tsv")))}
    m1, m2 = ncu_csv(os.path.join(raw, "ncu_metrics.csv")), ncu_csv(os.path.join(raw, "ncu_metrics2.csv"))
    pc = ncu_csv(os.path.join(raw, "ncu_pcsamp.csv"))
    src = source_page(os.path.join(raw, "source.csv.gz"), len(names))
    ck = clock_stats(raw)
    sv = {}
    so = os.path.join(raw, "sass_order.tsv")
    for r in tsv(so):
        sv[r["kernel"]] = r
    S = "smsp__average_warps_issue_stalled_%s_per_issue_active.ratio"
    cols = ["name", "kernel", "warps_sm", "sass_order", "const_in_t0_tm",
            "pred_elapsed", "elapsed", "elapsed2", "pred_sm_active", "sm_active",
            "pred_imc_per_issue", "imc_per_issue", "long_sb_per_issue", "pred_imc_cyc_warp", "imc_cyc_warp",
            "pcsamp_imc", "pcsamp_all", "imc_latency_ratio", "uldc_imc_requests", "ldc", "idc_miss",
            "src_samples", "src_imc", "src_imc_at", "src_long_sb_at",
            "clk_cold_issue1", "clk_cold_total", "clk_again_issue1", "clk_again_total", "clk_flush_total"]
    rows = []
    for i, n in enumerate(names):
        c = cfg.get(n, {})
        p = pred.get(n, {})
        a, b, q = m1.get(i, {}), m2.get(i, {}), pc.get(i, {})
        warps = int(c.get("grid", 0) or 0) * int(c.get("block", 0) or 0) // 32
        inst = a.get("smsp__inst_executed.sum")
        imc = a.get(S % "imc_miss")
        v = sv.get(c.get("kernel", ""), {})
        s = src[i] if i < len(src) else []
        tot = sum(x[1] for x in s)
        imc_s = sum(x[2].get("imc", 0) for x in s)

        def at(reason):
            per = {}
            for op, _, st in s:
                per[op] = per.get(op, 0) + st.get(reason, 0)
            top = sorted(((v_, k) for k, v_ in per.items() if v_), reverse=True)[:3]
            return " ".join(f"{k}:{v_}" for v_, k in top)

        def f(x, d=0):
            return "" if x is None else f"{x:.{d}f}"
        cold, again, flush = ck.get((n, "cold"), {}), ck.get((n, "again"), {}), ck.get((n, "flush"), {})
        rows.append([n, c.get("kernel", ""), c.get("warps_per_sm", ""), v.get("order", ""), v.get("const_in_t0_tm", ""),
                     p.get("elapsed_cycles", ""), f(a.get("gpc__cycles_elapsed.max")), f(b.get("gpc__cycles_elapsed.max")),
                     p.get("sm_active_cycles_avg", ""), f(a.get("sm__cycles_active.avg"), 1),
                     p.get("imc_miss_per_issue", ""), f(imc, 3), f(a.get(S % "long_scoreboard"), 3),
                     p.get("imc_miss_cycles_per_warp", ""),
                     f(imc * inst / warps if imc is not None and inst and warps else None, 1),
                     f(q.get("smsp__pcsamp_warps_issue_stalled_imc_miss")), f(q.get("smsp__pcsamp_sample_count")),
                     f(q.get("smsp__average_warp_latency_issue_stalled_imc_miss.ratio"), 2),
                     f(a.get("smsp__imc_requests.sum")), f(a.get("smsp__inst_executed_op_ldc.sum")),
                     f(a.get("idc__requests_lookup_miss.sum")),
                     str(tot) if s else "", str(imc_s) if s else "", at("imc"), at("long_sb"),
                     f(cold.get("issue1_first_med")), f(cold.get("total_first_med")),
                     f(again.get("issue1_first_med")), f(again.get("total_first_med")), f(flush.get("total_first_med"))])
    return cols, rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, arg = sys.argv[1], sys.argv[2]
    if cmd == "sass":
        print("kernel\torder\tconst_in_t0_tm\tsequence")
        for k, (v, inside, seq) in sorted(sass_verdicts(arg).items()):
            print(f"{k}\t{v}\t{inside}\t{seq}")
    elif cmd == "table":
        cols, rows = table(arg)
        print("\t".join(cols))
        for r in rows:
            print("\t".join(str(x) for x in r))
    elif cmd == "brief":
        cols, rows = table(arg)
        ix = {c: j for j, c in enumerate(cols)}
        out = ["const_cold: name order | elapsed pred/meas | imc/issue pred/meas | imc samples at | clk cold total"]
        keep = ("g_L0_w4", "u_L1_before_w4", "u_L8_before_w4", "u_L1_after_w4", "u_L1_warm_w4", "u_L1_noldg_w4",
                "d_L1_before_w4", "d_L1_after_w4", "g_L0_w64", "u_L1_before_w64", "u_L1_before_w1")
        for r in rows:
            if r[0] not in keep:
                continue
            g = lambda c: r[ix[c]] or "-"  # noqa: E731
            out.append(f"{r[0]} {g('sass_order')[:5]} | {g('pred_elapsed')}/{g('elapsed')} | "
                       f"{g('pred_imc_per_issue')}/{g('imc_per_issue')} | {g('src_imc_at')[:24]} | {g('clk_cold_total')}")
        n_el = sum(1 for r in rows if r[ix["elapsed"]])
        out.append(f"{len(rows)} launches; ncu metrics for {n_el}; source page for "
                   f"{sum(1 for r in rows if r[ix['src_samples']])}")
        text = "\n".join(out)
        print(text[:1350])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
