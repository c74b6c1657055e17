#!/usr/bin/env python3
"""predictions.tsv: what warpsim prices today for every LDGSTS launch of ldgsts_patterns.txt,
written before the device call (standard library only).

The rule is crates/smem/src/async_copy.rs (`async_copy_cost`), re-implemented below line for
line (`current`); `--warpsim BIN` also runs `BIN access` on the same launches (the trace format of
crates/cli/src/access_tensor.rs) and refuses to write if any number differs. The first call's
model with tensor_smem_draw2's options (calibration/probes/tensor_smem/model.py, model.DRAW2: no
sector bound, the Ideal from bytes) is given beside it in the d2_* columns.

usage: predict.py [--warpsim BIN] [--out predictions.tsv]
Columns: name kind dst src size  sass_wf sass_bc ideal sectors tags hw_wf hw_bc  (warpsim today)
         d2_sass_wf d2_sass_bc d2_hw_wf d2_hw_bc  (model.DRAW2)
  sass_wf/sass_bc  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts /
                   smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts
  ideal, tags      the Source page's "L1 Wavefronts Shared Ideal", "L1 Tag Requests Global"
  sectors          smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts
  hw_wf            what the launch adds to l1tex__data_pipe_lsu_wavefronts_mem_shared (the
                   all-inactive control launch of its kernel subtracted)
  hw_bc            l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts
Inactive lanes (destination -1) are left out; the all-inactive controls predict 0 everywhere."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WARP = 32
LINE = 128
BANKS, BANK_BYTES = 32, 4


def load_patterns(path=os.path.join(HERE, "ldgsts_patterns.txt")):
    pats = {}
    for line in open(path):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        v = [int(x) for x in f[2:98]]
        pats[f[0]] = {"kind": f[1], "d": v[0:32], "s": v[32:64], "z": v[64:96]}
    return pats


def factors(name):
    """(dst, src, size) from the name (controls: '-')."""
    f = name.split("_")
    if f[0] == "z":
        return f[2], f[3], f[4]
    if f[0] == "n":
        return f[2], f[3], "nosize"
    return "-", "-", "-"


def distinct(v):
    return len(set(v))


def most_repeated(v):
    c = {}
    for x in v:
        c[x] = c.get(x, 0) + 1
    return max(c.values()) if c else 0


def current(kind, d, s, z):
    """crates/smem/src/async_copy.rs async_copy_cost, line for line. kind 'ca.16.z' etc.;
    the src-size (z) applies to kinds with '.z' only (the others read the width)."""
    f = kind.split(".")
    bypass, w, zfill = f[0] == "cg", int(f[1]), "z" in f[2:]
    mask = 0
    for l in range(WARP):
        if d[l] >= 0:
            mask |= 1 << l
    size = list(z) if zfill else [w] * WARP
    dst = [x if x >= 0 else 0 for x in d]
    src = list(s)
    c = dict(sass_wf=0, sass_bc=0, ideal=0, sectors=0, tags=0, hw_wf=0, hw_bc=0)
    if mask == 0:
        return c
    act = lambda l: mask >> l & 1  # noqa: E731
    reads = lambda l: act(l) and size[l] > 0  # noqa: E731
    c["tags"] = distinct([src[l] // LINE for l in range(WARP) if reads(l)])
    g = min(max(BANKS * BANK_BYTES // w, 1), WARP)
    phase_masks = []
    for p0 in range(0, WARP, g):
        m = mask & (((1 << g) - 1) << p0 if g < WARP else 0xFFFFFFFF)
        if m:
            phase_masks.append(m)
    c["ideal"] = len(phase_masks)

    def sectors(m):
        return distinct([src[l] // 32 for l in range(WARP) if m >> l & 1 and reads(l)])

    def dest_cost(m):
        banks = []
        for l in range(WARP):
            if m >> l & 1:
                for word in range(dst[l] // BANK_BYTES, (dst[l] + w - 1) // BANK_BYTES + 1):
                    banks.append(word % BANKS)
        return most_repeated(banks)

    def source_cost(m):
        on = [0] * 32
        for l in range(WARP):
            if m >> l & 1 and size[l] > 0:
                for word in range(src[l] // 4, (src[l] + size[l] - 1) // 4 + 1):
                    on[word % 32] += 1
        return max(on)

    if not bypass:
        c["sectors"] = sectors(mask)
        hw_ideal = 0
        for pm in phase_masks:
            sp = sectors(pm)
            cost = max(dest_cost(pm), source_cost(pm), -(-sp // 4))
            c["sass_wf"] += cost
            hw_ideal += max(-(-sp // 4), 1)
        c["sass_bc"] = c["sass_wf"] - c["ideal"]
        c["hw_wf"] = c["sass_wf"]
        c["hw_bc"] = c["sass_wf"] - hw_ideal
        return c
    kept = 0
    for l in range(WARP):
        if act(l) and not any(act(k) and dst[k] == dst[l] for k in range(l + 1, WARP)):
            kept |= 1 << l

    def key(l):
        return (src[l] // LINE, dst[l] // LINE, (dst[l] % LINE // 16) ^ (src[l] % LINE // 16))

    c["sass_wf"] = distinct([key(l) for l in range(WARP) if kept >> l & 1])

    def group_sectors(m):
        return distinct([(key(l), src[l] // 32) for l in range(WARP) if m >> l & 1 and reads(l)])

    c["sectors"] = group_sectors(kept)
    if zfill:
        fill = 0
        for l in range(WARP):
            if act(l) and size[l] < w:
                fill |= 1 << l
        zwf = hw_wf = hw_ideal = 0
        for pm in phase_masks:
            zwf += dest_cost(pm)
            fl = pm & fill
            if fl:
                sp = group_sectors(fl & kept)
                hw_wf += max(dest_cost(fl), -(-sp // 4))
                hw_ideal += max(-(-sp // 4), 1)
        c["sass_wf"] += zwf
        c["sass_bc"] = zwf - c["ideal"]
        c["hw_wf"] = hw_wf
        c["hw_bc"] = hw_wf - hw_ideal
    return c


def draw2_model(kind, d, s, z):
    """model.ldgsts with model.DRAW2 (tensor_smem_draw2's predictions), or None if model.py is
    not there."""
    sys.path.insert(0, os.path.join(HERE, "..", "tensor_smem"))
    try:
        import model  # noqa: E402
    except ImportError:
        return None
    return model.ldgsts(kind, d, s, z if kind.endswith(".z") else None, **model.DRAW2)


def warpsim_rows(binary, pats):
    """{name: {sass_wf, ...}} from `BIN access --format json` over the launches (controls
    skipped: an all-inactive line is priced 0 by both)."""
    with tempfile.NamedTemporaryFile("w", suffix=".trace", delete=False) as t:
        for name, p in pats.items():
            if all(x < 0 for x in p["d"]):
                continue
            k = p["kind"].split(".")
            op = f"cp.async.{k[0]} {k[1]}"
            d = ["_" if x < 0 else str(x) for x in p["d"]]
            zs = [str(x) for x in p["z"]] if p["kind"].endswith(".z") else []
            t.write(" ".join([name, op] + d + [str(x) for x in p["s"]] + zs) + "\n")
        path = t.name
    out = subprocess.run([binary, "access", path, "--format", "json"], capture_output=True, text=True)
    os.unlink(path)
    if out.returncode:
        sys.exit(f"predict: {binary} access failed: {out.stderr[:2000]}")
    data = json.loads(out.stdout)
    rows = data if isinstance(data, list) else data.get("rows", data.get("accesses", []))
    res = {}
    for r in rows:
        res[r["name"]] = {"sass_wf": r["wavefronts"], "sass_bc": r["bank_conflicts"], "ideal": r.get("ideal"),
                          "sectors": r.get("sectors"), "tags": r.get("tags"), "hw_wf": r.get("hw_wavefronts"),
                          "hw_bc": r.get("hw_bank_conflicts")}
    return res


KEYS = ("sass_wf", "sass_bc", "ideal", "sectors", "tags", "hw_wf", "hw_bc")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--warpsim", help="a warpsim binary: its `access` must agree on every launch")
    ap.add_argument("--out", default=os.path.join(HERE, "predictions.tsv"))
    a = ap.parse_args()
    pats = load_patterns()
    rows = {n: current(p["kind"], p["d"], p["s"], p["z"]) for n, p in pats.items()}
    if a.warpsim:
        ws = warpsim_rows(a.warpsim, pats)
        bad = [(n, k, rows[n][k], ws[n][k]) for n in ws for k in KEYS if ws[n][k] is not None and ws[n][k] != rows[n][k]]
        missing = [n for n in rows if n not in ws and not n.startswith("ctl_")]
        if bad or missing:
            for b in bad[:20]:
                print("differs:", *b, file=sys.stderr)
            sys.exit(f"predict: the re-implementation and {a.warpsim} differ on {len(bad)} numbers, "
                     f"{len(missing)} launches missing")
        print(f"predict: {a.warpsim} access agrees with the re-implementation on all {len(ws)} launches")
    with open(a.out, "w") as f:
        f.write("\t".join(["name", "kind", "dst", "src", "size", *KEYS, "d2_sass_wf", "d2_sass_bc", "d2_hw_wf",
                           "d2_hw_bc"]) + "\n")
        for n, p in pats.items():
            m = draw2_model(p["kind"], p["d"], p["s"], p["z"])
            d2 = [m["sass_wf"], m["sass_bc"], m["hw_wf"], m["hw_bc"]] if m else ["", "", "", ""]
            f.write("\t".join([n, p["kind"], *factors(n)] + [str(rows[n][k]) for k in KEYS]
                              + [str(x) for x in d2]) + "\n")
    print(f"predict: {len(rows)} launches -> {os.path.relpath(a.out)}")


if __name__ == "__main__":
    main()
