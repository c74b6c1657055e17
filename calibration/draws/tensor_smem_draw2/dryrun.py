#!/usr/bin/env python3
"""Dry run of the draw without a GPU: stand-ins for nvcc, ncu, cuobjdump, nvidia-smi and the
probe that answer as the rule (model.py) says the H200 will, so that run.sh, parse.py and
compare.py run end to end here (control flow, file names, budget, packing, summary size; and
that the probe's print formats and expect.py's canonical forms agree: compare must report
every launch and every dump as predicted).

usage: dryrun.py stubs DIR        writes the stand-ins into DIR (put DIR first in PATH); env:
                                  DRY_SASS (a SASS dump for cuobjdump, e.g. from cucheck),
                                  DRY_BUILD_S (seconds nvcc sleeps), DRY_LAUNCH_S (seconds per
                                  profiled launch)
       dryrun.py probe ARGS…      the probe's stand-in (what the stubbed nvcc builds)
       dryrun.py ncu ARGS…        ncu's stand-in"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import expect  # noqa: E402
from expect import model  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
from rules import house  # noqa: E402

KIND_K = {"ldsm.x1": 0, "ldsm.x2": 1, "ldsm.x4": 2, "ldsm.x1.trans": 3, "ldsm.x2.trans": 4, "ldsm.x4.trans": 5,
          "stsm.x1": 6, "stsm.x2": 7, "stsm.x4": 8, "stsm.x1.trans": 9, "stsm.x2.trans": 10, "stsm.x4.trans": 11,
          "lds.128": 12, "sts.128": 13, "ca.4": 20, "ca.8": 21, "ca.16": 22, "cg.16": 23, "ca.4.z": 24,
          "ca.8.z": 25, "ca.16.z": 26, "cg.16.z": 27}


def all_patterns(pfile):
    """expect.load_patterns of pfile's folder, plus pfile's own lines (explore_patterns.txt)."""
    pats = expect.load_patterns(os.path.dirname(os.path.abspath(pfile)) or ".")
    for line in open(pfile):
        f = line.split()
        if f and f[0] not in pats and f[1].startswith(("ca.", "cg.")):
            pats[f[0]] = {"kind": f[1], "o": [int(v) for v in f[2:34]], "s": [int(v) for v in f[34:66]],
                          "z": [int(v) for v in f[66:98]], "warm": int(f[98])}
    return pats


def words_lines(name, s):
    return [f"W {name} {x.split(':')[0]} {x.split(':')[1]}" for x in s.split()]


def probe(args):
    mode, pfile, names = args[0], args[1], args[2]
    force = args[4] if len(args) > 4 and args[3] == "-m" else None
    pats = all_patterns(pfile)
    lst = [n for n in open(names).read().split()] if names != "-" else list(pats)
    out = []
    for n in lst:
        p = pats[n]
        k = p["kind"]
        if mode == "mbar":
            out.append(f"L {n} mbar")
            continue
        if k == "tma":
            if p["c"][0] * (4 if p["dtype"] == "u32" else 2) % 16:
                # draw1: a box whose innermost coordinate is not 16-byte aligned faults
                print("\n".join(out + ["E cuda error an illegal instruction was encountered"]))
                sys.exit(1)
            out.append(f"L {n} tma")
            if mode == "tmadump":
                tile = expect.tma_tile_str(p).split()
                for i in range(0, len(tile), 32):
                    out.append(f"T {n} {tile[i].split(':')[0]} " + " ".join(x.split(":")[1] for x in tile[i:i + 32]))
                regs = expect.tma_regs_str(p).split()
                for t in range(32):
                    out.append(f"R {n} {t} " + " ".join(regs[4 * t:4 * t + 4]))
                out.append(f"G {n} written 1234 mismatches 0")
            continue
        out.append(f"L {n} {k}")
        if mode != "dump":
            continue
        if k.startswith("ldsm"):
            nm = model.mat_n(k)
            regs = expect.mat_expect(k, p["o"]).split()
            for t in range(32):
                r = regs[nm * t:nm * t + nm] + ["%08x" % (t * 8 + 2 * j + 1 << 16 | t * 8 + 2 * j) for j in range(nm, 4)]
                out.append(f"R {n} {t} " + " ".join(r))
        elif k.startswith("stsm"):
            out += words_lines(n, expect.mat_expect(k, p["o"]))
        elif k.startswith(("ca.", "cg.")):
            out += words_lines(n, expect.cp_expect(k, p["o"], p["s"], p["z"]))
    print("\n".join(out))


HDR = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
       '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')


def counters(n, p, load_only):
    k = p["kind"]
    c = {}
    if k.startswith(("ldsm", "stsm")):
        r = model.mat_cost(p["o"], k)
        op, hw = ("ldsm", "ld") if k.startswith("ldsm") else ("stsm", "st")
        c = {f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}": r["wf"],
             f"smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_{op}": r["bc"],
             f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{hw}": r["wf"],
             f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{hw}": r["bc"]}
    elif k in ("lds.128", "sts.128"):
        wf, bc, _ = house(p["o"], 16, k[:2])
        c = {f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{k[:2]}": wf,
             f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{k[:2]}": bc}
    elif k.startswith(("ca.", "cg.")):
        r = model.ldgsts(k, p["o"], p["s"], p["z"], **model.DRAW2)
        own = 6 if all(x < 0 for x in p["o"]) else 4 if p["warm"] else 5   # draw1's op_misc
        sub = "cache_access" if k.startswith("ca") else "cache_bypass"
        c = {"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts": r["sass_wf"],
             "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts": r["sass_bc"],
             f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts_{sub}": r["sass_wf"],
             f"smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts_{sub}": r["sass_bc"],
             "smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts": r["sectors"],
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts": r["hw_bc"],
             "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc": own,
             "l1tex__data_pipe_lsu_wavefronts_mem_shared": r["hw_wf"] + own}
    elif k == "tma":
        es, inner, rows = expect.tma_geom(p)
        box = p["B"][0] * p["B"][1] * p["B"][2] * es
        if load_only:
            c = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld": 0, "l1tex__data_bank_writes": 128 + box // 4}
        else:
            if "ldsm" in p["mode"]:
                r = model.mat_cost(p["o"], "ldsm.x4")
                wf, bc = r["wf"], r["bc"]
            else:
                wf, bc, _ = house(p["o"], 16, "ld")
            c = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld": wf,
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld": bc,
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st": 0}
    elif k == "mbar":
        sys.path.insert(0, HERE)
        from predict import mb_m1
        c = {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc": 7 + mb_m1(p["k"])}
    return c


def ncu(args):
    i = args.index("./probe")
    cmd = args[i:]
    metrics = args[args.index("--metrics") + 1].split(",") if "--metrics" in args else []
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "probe"] + cmd[1:], capture_output=True, text=True)
    print("==PROF== Connected to process 1 (probe)")
    print(r.stdout, end="")
    launches = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("L ")]
    pats = all_patterns(cmd[2])
    time.sleep(float(os.environ.get("DRY_LAUNCH_S", "0")) * len(launches))
    load_only = "-m" in cmd
    if "--page" in args:   # the Source page: one block per launch, the instruction under test
        cols = ["Address", "Source", "Instructions Executed", "L1 Tag Requests Global", "L1 Wavefronts Shared",
                "L1 Wavefronts Shared Ideal", "L2 Theoretical Sectors Global"]
        for n in launches:
            p = pats[n]
            k = p["kind"]
            print(f'"Kernel Name","void one_x<(int){KIND_K.get(k, 0)}>(const int *)",')
            print(",".join(f'"{c}"' for c in cols))
            if k.startswith(("ca.", "cg.")):
                r = model.ldgsts(k, p["o"], p["s"], p["z"], **model.DRAW2)
                vals = ["0x1", "LDGSTS.E.128", "1", r["tags"], r["sass_wf"], r["ideal"], r["sectors"]]
            else:
                r = model.mat_cost(p["o"], k)
                vals = ["0x1", "LDSM.16.M88.4" if k.startswith("ldsm") else "STSM.16.M88.4", "1", 0, r["wf"], r["ideal"], 0]
            print(",".join(f'"{v}"' for v in vals))
        return
    print(HDR)
    for j, n in enumerate(launches):
        p = pats[n]
        k = p["kind"]
        kn = f"void one_m<{KIND_K[k]}>(const int *, unsigned int *, int)" if k in KIND_K else f"{k}_k"
        c = counters(n, p, load_only)
        for m in metrics:
            v = c.get(m[:-4] if m.endswith(".sum") else m, 0)
            print(f'"{j}","1","probe","h","{kn}","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","{m}","","{v}"')


STUB = {
    "nvcc": '#!/bin/bash\n[ "$1" = --version ] && { echo "Cuda compilation tools, release 0.0 (dry run)"; echo "Build dry"; exit 0; }\n'
            'sleep "${DRY_BUILD_S:-0}"\nout=probe; while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n'
            'printf \'#!/bin/bash\\nexec python3 %s probe "$@"\\n\' "@@" > "$out"; chmod +x "$out"\n',
    "ncu": '#!/bin/bash\n[ "$1" = --version ] && { echo "NVIDIA (R) Nsight Compute (dry run)"; exit 0; }\nexec python3 @@ ncu "$@"\n',
    "cuobjdump": '#!/bin/bash\ncat "${DRY_SASS:-/dev/null}"\n',
    "nvidia-smi": '#!/bin/bash\necho "GPU 0: NVIDIA H200 (dry run)"\necho "name, driver_version"\n',
}


def stubs(d):
    os.makedirs(d, exist_ok=True)
    for name, text in STUB.items():
        path = os.path.join(d, name)
        open(path, "w").write(text.replace("@@", os.path.abspath(__file__)))
        os.chmod(path, 0o755)
    print(f"stand-ins in {d}: PATH={d}:$PATH OUT=... bash calibration/draws/tensor_smem_draw2/run.sh")


if __name__ == "__main__":
    {"stubs": lambda a: stubs(a[0]), "probe": probe, "ncu": ncu}[sys.argv[1]](sys.argv[2:])
