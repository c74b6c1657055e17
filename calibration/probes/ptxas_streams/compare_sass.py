#!/usr/bin/env python3
"""Shared-memory access streams: ptxas's SASS against warpsim's merge model.

    compare_sass.py --sass FILE.sass [--stream FILE.stream]
        Per kernel of the SASS (cuobjdump -sass), its sequence of shared accesses (LDS, STS,
        ATOMS, with widths in bits: LDS.128, STS.32, ...), compared with the stream file's
        when given: "stream matches SASS" or the first difference. Without --stream, prints
        the SASS's streams in the stream-file format.
    compare_sass.py --dump [--warpsim BIN] [--no-merge] LAUNCH.ron ... > FILE.stream
        warpsim's stream for each kernel launched by the launch files (`ptx:`/`cuda:`),
        from `warpsim check --code`: its shared loads, stores and atomics in code order, after
        the merge model (or without it, --no-merge).

A stream file has one line per kernel: NAME<TAB>ACCESS ACCESS ... Code order is compared:
ptxas may schedule accesses differently from the PTX, which shows as a difference (the line
also says whether the two agree as multisets).
"""
import re, subprocess, sys
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
        op, mods = m.group(1), [x for x in m.group(2).split(".") if x]
        bits = 32
        for x in mods:
            bits = WIDTHS.get(x, bits)
        out[cur].append("%s.%d" % (op, bits))
    return out


PTX_TYPES = {"8": 8, "16": 16, "32": 32, "64": 64}


def ptx_access(text):
    """The shared access a `check --code` line's PTX text names: LDS.128, STS.32, ..."""
    m = re.search(r"\b(ld|st|atom|red)((?:\.[a-z0-9]+)+)", text)
    if not m or ".shared" not in m.group(2):
        return None
    parts = m.group(2).strip(".").split(".")
    vec = 1
    bits = 32
    for p in parts:
        if p in ("v2", "v4"):
            vec = int(p[1])
        t = re.fullmatch(r"[bfsu](8|16|32|64)", p)
        if t:
            bits = PTX_TYPES[t.group(1)]
    op = {"ld": "LDS", "st": "STS"}.get(m.group(1), "ATOMS")
    return "%s.%d" % (op, bits * vec)


def entry_name(launch, kernel):
    """The PTX entry a launch file's `kernel` names (the mangled name, as SASS has it)."""
    import os
    text = open(launch).read()
    ptx = re.search(r'ptx:\s*\(\s*file:\s*"([^"]+)"', text)
    if not ptx:
        return kernel
    path = os.path.join(os.path.dirname(launch), ptx.group(1))
    try:
        entries = re.findall(r"\.entry\s+([\w$]+)", open(path).read())
    except OSError:
        return kernel
    if kernel in entries:
        return kernel
    plain = kernel.split("<")[0]
    hits = [e for e in entries if e.startswith("_Z%d%s" % (len(plain), plain))]
    return hits[0] if len(hits) == 1 else kernel


def dump(launches, warpsim, no_merge):
    seen = {}
    for f in launches:
        kernel = re.search(r'kernel:\s*"([^"]+)"', open(f).read())
        cmd = [warpsim, "check", f, "--code"] + (["--no-merge"] if no_merge else [])
        text = subprocess.run(cmd, capture_output=True, text=True, env={"NO_COLOR": "1"}).stdout
        stream = []
        for line in text.splitlines():
            m = re.match(r"^\s*\d+\s+line\s+\d+\s+(ld|st|atom)\.shared\S*\s", line)
            if m:
                a = ptx_access(line[m.end():])
                if a:
                    stream.append(a)
        name = entry_name(f, kernel.group(1)) if kernel else f
        seen.setdefault(name, stream)
    for k, s in seen.items():
        print(k + "\t" + " ".join(s))


def read_stream(path):
    out = {}
    for line in open(path):
        if line.strip() and not line.startswith("#"):
            k, _, rest = line.rstrip("\n").partition("\t")
            out[k] = rest.split()
    return out


def compare(sass, stream):
    bad = 0
    for k, want in sorted(stream.items()):
        got = sass.get(k)
        if got is None:
            print("%s: not in the SASS" % k)
            bad += 1
            continue
        if got == want:
            print("%s: stream matches SASS (%d shared accesses)" % (k, len(got)))
            continue
        bad += 1
        i = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        a = got[i] if i < len(got) else "end"
        b = want[i] if i < len(want) else "end"
        same = "same multiset" if Counter(got) == Counter(want) else "multisets differ"
        print("%s: differs at access %d: SASS %s, stream %s (SASS %d accesses, stream %d; %s)"
              % (k, i + 1, a, b, len(got), len(want), same))
        print("    SASS:   " + " ".join(got))
        print("    stream: " + " ".join(want))
    print("%d of %d kernels: stream matches SASS" % (len(stream) - bad, len(stream)))


def main(argv):
    if "--dump" in argv:
        ws = argv[argv.index("--warpsim") + 1] if "--warpsim" in argv else "target/release/warpsim"
        skip = {ws, "--dump", "--warpsim", "--no-merge"}
        dump([a for a in argv if a not in skip], ws, "--no-merge" in argv)
        return
    if "--sass" not in argv:
        sys.exit(__doc__)
    sass = sass_streams(argv[argv.index("--sass") + 1])
    if "--stream" in argv:
        compare(sass, read_stream(argv[argv.index("--stream") + 1]))
    else:
        for k, s in sass.items():
            print(k + "\t" + " ".join(s))


if __name__ == "__main__":
    main(sys.argv[1:])
