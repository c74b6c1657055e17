#!/usr/bin/env python3
"""warpsim's side of cuda_kernels1 (predict.sh calls it; standard library only).

    predict.py tsv PREDDIR                 PREDDIR/<launch>.{json,rc,err} -> predictions.tsv on stdout
    predict.py ptxlaunches PTXDIR OUTDIR   the launch files rewritten to run nvcc's PTX of the device
                                           call (PTXDIR: the raw archive's ptx/, k_*.nvcc.ptx[.gz])
    predict.py compare PREDICTIONS MEASURED   the per-launch comparison and the totals (after the call)
"""
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# PTX entry names of the template kernels (extern "C" kernels are named plainly)
ENTRY = {"sgemm1DTiling<64,64,8,8>": "_Z13sgemm1DTilingILi64ELi64ELi8ELi8EEviiifPKfS1_fPf",
         "sgemm2DColA<64,64,8,8,8>": "_Z11sgemm2DColAILi64ELi64ELi8ELi8ELi8EEviiifPKfS1_fPf",
         "sgemm2DVec<128,128,8,8,8>": "_Z10sgemm2DVecILi128ELi128ELi8ELi8ELi8EEviiifPKfS1_fPf"}
COLS = ["launch", "rc", "accepted", "verified", "ld_inst", "ld_wf", "ld_conf", "st_inst", "st_wf", "st_conf",
        "atom_inst", "atom_wf", "atom_conf", "elapsed", "sm_active", "inst", "refusal"]


def launch_names():
    return sorted(f[:-len(".cu.ron")] for f in os.listdir(os.path.join(HERE, "launches")) if f.endswith(".cu.ron"))


def tsv(pred):
    print("\t".join(COLS))
    for n in launch_names():
        rc = open(os.path.join(pred, n + ".rc")).read().strip() if os.path.exists(os.path.join(pred, n + ".rc")) else "-"
        row = dict(launch=n, rc=rc, accepted="yes" if rc in ("0", "1") else "no")
        try:
            d = json.load(open(os.path.join(pred, n + ".json")))
        except (OSError, ValueError):
            d = None
        if d:
            sh, tm = d.get("shared", {}), d.get("timing") or {}
            row["verified"] = {True: "yes", False: "NO", None: "not checked"}.get(d.get("verified"), str(d.get("verified")))
            for op in ("ld", "st", "atom"):
                row[f"{op}_inst"] = sh.get(f"{op}_instructions", "")
                row[f"{op}_wf"] = sh.get(f"{op}_wavefronts", "")
                row[f"{op}_conf"] = sh.get(f"{op}_bank_conflicts", "")
            row["elapsed"] = tm.get("elapsed_cycles", "")
            row["sm_active"] = round(tm.get("sm_active_cycles_avg", 0) or 0, 1) if tm else ""
            row["inst"] = tm.get("issued_warp_instructions", "")
        err = os.path.join(pred, n + ".err")
        if row["accepted"] == "no" and os.path.exists(err):
            first = next((l.strip(" x\t") for l in open(err, errors="replace") if l.strip().startswith("x ")), "")
            row["refusal"] = re.sub(r"\s+", " ", first)[:200]
        print("\t".join(str(row.get(c, "")) for c in COLS))


def ptxlaunches(ptxdir, outdir):
    os.makedirs(outdir, exist_ok=True)
    for n in launch_names():
        s = open(os.path.join(HERE, "launches", n + ".cu.ron")).read()
        m = re.search(r'cuda: \(file: "\.\./(k_\w+)\.cu", kernel: "([^"]+)"', s)
        k, kern = m.group(1), m.group(2)
        src = os.path.join(ptxdir, k + ".nvcc.ptx")
        if not os.path.exists(src) and os.path.exists(src + ".gz"):
            with gzip.open(src + ".gz", "rt") as f, open(os.path.join(outdir, k + ".nvcc.ptx"), "w") as g:
                g.write(f.read())
            src = os.path.join(outdir, k + ".nvcc.ptx")
        s = s.replace(m.group(0), f'ptx: (file: "{os.path.abspath(src)}", kernel: "{ENTRY.get(kern, kern)}"')
        with open(os.path.join(outdir, n + ".cu.ron"), "w") as f:
            f.write(s)


def read_tsv(p):
    rows = [l.rstrip("\n").split("\t") for l in open(p)]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def compare(pred, meas):
    P = {r["launch"]: r for r in read_tsv(pred)}
    M = {}
    for r in read_tsv(meas):
        M.setdefault(r["launch"], {})[r["metric"]] = r["value"]
    n = len(P)
    acc = ver = exact = close = 0
    print("launch\taccepted\tverified\th200_verified\tshared_equal\tdiffers\telapsed_ratio")
    for name, p in P.items():
        m = M.get(name, {})
        ok_acc = p["accepted"] == "yes"
        diffs = []
        for op in ("ld", "st", "atom"):
            for q in ("inst", "wf", "conf"):
                a, b = p.get(f"{op}_{q}", ""), m.get(f"{op}_{q}", "")
                try:
                    if int(float(a)) != int(float(b)):
                        diffs.append(f"{op}_{q} {a} vs {b}")
                except ValueError:
                    diffs.append(f"{op}_{q} ?")
        ratio = ""
        try:
            ratio = f"{float(p['elapsed']) / float(m['elapsed']):.3f}"
        except (KeyError, ValueError, ZeroDivisionError):
            pass
        acc += ok_acc
        ver += p["verified"] == "yes"
        exact += ok_acc and not diffs
        close += bool(ratio) and abs(float(ratio) - 1) <= 0.15
        print(f"{name}\t{p['accepted']}\t{p['verified']}\t{m.get('h200_verified', '-')}\t{'yes' if ok_acc and not diffs else 'no'}\t"
              f"{'; '.join(diffs)}\t{ratio}")
    print(f"# {n} launches: accepted {acc}, verified {ver}, shared counts equal the H200's {exact}, elapsed within 15% {close}")


if __name__ == "__main__":
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    if a[0] == "tsv":
        tsv(a[1])
    elif a[0] == "ptxlaunches":
        ptxlaunches(a[1], a[2])
    elif a[0] == "compare":
        compare(a[1], a[2])
    else:
        sys.exit(__doc__)
