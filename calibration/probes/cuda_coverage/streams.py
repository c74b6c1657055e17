#!/usr/bin/env python3
"""Shared-access streams per kernel: ptxas's SASS against warpsim's merge model.

    streams.py sass FILE.sass                      > FILE.stream   (cuobjdump -sass output)
    streams.py model FILE.ptx [--no-merge] [--warpsim BIN] [--args a,b] > FILE.model.stream
    streams.py compare SASS.stream OTHER.stream [--order]

A stream file has one line per kernel: NAME<TAB>ACCESS ACCESS ... with ACCESS one of LDS.32,
LDS.64, LDS.128, STS.32, ... in code order. `model` writes a launch file per entry of the PTX
(grid 1, block 32; each 64-bit parameter a buffer of 65,536 words, each other one `64`) and reads the accesses from
`warpsim check --code` (after the merge model, or without it with --no-merge); an entry
warpsim refuses gets `REFUSED <first line of the message>`. `compare` prints each kernel whose
streams differ (the same multiset in another order counts as equal unless --order) and a count.
Standard library only.
"""
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

SASS_OP = re.compile(r"^\s*(?:@!?U?P\w+\s+)?(LDS|STS|ATOMS|LDSM)((?:\.[A-Z0-9_]+)*)\s")
WIDTHS = {"64": 64, "128": 128, "U8": 8, "S8": 8, "U16": 16, "S16": 16}


def sass_streams(path):
    out, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        text = re.sub(r"^\s*/\*[0-9a-f]+\*/\s*", "", line)
        m = SASS_OP.match(text)
        if cur is None or not m:
            continue
        bits = 32
        for x in m.group(2).split("."):
            bits = WIDTHS.get(x, bits)
        out[cur].append("%s.%d" % (m.group(1), bits))
    return out


def ptx_access(text):
    m = re.search(r"\b(ld|st|atom|red)((?:\.[a-z0-9]+)+)", text)
    if not m or ".shared" not in m.group(2):
        return None
    vec, bits = 1, 32
    for p in m.group(2).strip(".").split("."):
        if p in ("v2", "v4"):
            vec = int(p[1])
        t = re.fullmatch(r"[bfsu](8|16|32|64)", p)
        if t:
            bits = int(t.group(1))
    return "%s.%d" % ({"ld": "LDS", "st": "STS"}.get(m.group(1), "ATOMS"), bits * vec)


def entry_params(src):
    """Entry name -> the types of its parameters, in order."""
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\(([^)]*)\)", src):
        out[m.group(1)] = re.findall(r"\.param\s+\.(\w+)", m.group(2))
    return out


def model_streams(ptx, warpsim, no_merge, args):
    ptx = os.path.abspath(ptx)
    params = entry_params(open(ptx).read())
    entries = list(params)
    out = {}
    env = dict(os.environ, NO_COLOR="1")
    with tempfile.TemporaryDirectory() as d:
        for e in entries:
            ron = os.path.join(d, e + ".ron")
            # every 64-bit parameter a buffer, every other a small number
            names = [f"b{i}" if t in ("u64", "b64", "s64") else "64" for i, t in enumerate(params[e])]
            if args and len(args) == len(names):
                names = args
            bufs = "".join(f'        (name: "{a}", ty: U32, len: 65536),\n' for a in names if not a.isdigit())
            arglist = ", ".join(f'"{a}"' for a in names)
            open(ron, "w").write(
                "Program(\n    name: \"%s\",\n    launch: (grid: [1], block: [32]),\n    buffers: [\n%s    ],\n"
                "    ptx: (file: \"%s\", kernel: \"%s\", args: [%s]),\n)\n" % (e, bufs, ptx, e, arglist))
            cmd = [warpsim, "check", ron, "--code"] + (["--no-merge"] if no_merge else [])
            r = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if r.returncode != 0:
                msg = (r.stderr or r.stdout).strip().splitlines()
                first = next((x.strip(" x") for x in msg if x.strip()), "?")
                out[e] = ["REFUSED", first.replace("\t", " ")]
                continue
            s = []
            for line in r.stdout.splitlines():
                m = re.match(r"^\s*\d+\s+line\s+\d+\s+(ld|st|atom|red)\.shared\S*\s", line)
                if m:
                    a = ptx_access(line[m.end():])
                    if a:
                        s.append(a)
            out[e] = s
    return out


def read(path):
    out = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            k, _, rest = line.rstrip("\n").partition("\t")
            out[k] = rest.split()
    return out


def write(streams):
    for k, s in streams.items():
        print(k + "\t" + " ".join(s))


def compare(a, b, order):
    bad = 0
    for k in a:
        if k not in b:
            print(f"{k}: missing in the second file")
            bad += 1
            continue
        x, y = a[k], b[k]
        same = x == y or (not order and Counter(x) == Counter(y))
        if not same:
            bad += 1
            print(f"{k}:\n    first:  {' '.join(x)}\n    second: {' '.join(y)}")
    print(f"{len(a) - bad} of {len(a)} kernels the same" + (" (in order)" if order else " (as multisets)"))


def main(argv):
    if not argv:
        sys.exit(__doc__)
    if argv[0] == "sass":
        write(sass_streams(argv[1]))
    elif argv[0] == "model":
        ws = argv[argv.index("--warpsim") + 1] if "--warpsim" in argv else os.environ.get("WARPSIM", "/work/bin/warpsim")
        args = argv[argv.index("--args") + 1].split(",") if "--args" in argv else []
        write(model_streams(argv[1], ws, "--no-merge" in argv, args))
    elif argv[0] == "compare":
        compare(read(argv[1]), read(argv[2]), "--order" in argv)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
