#!/usr/bin/env python3
"""Per kernel of a `cuobjdump -sass` dump: SASS count, shared loads/stores by width (predicated in
brackets), shared atomics, barriers. NOTE where an assumption of the set does not hold: the
`gemv_n`, `tile8`, `oets` and `psort` kernels must read and write a thread's consecutive elements as
scalar LDS/STS (a run-time zero offset, and psort's volatile array, keep ptxas from merging them
into LDS.64/128, which would change or remove the conflicts of the step); the other shared-memory
kernels are written one element a thread and should have no vector shared accesses either;
`dhist` must have ATOMS; the integer kernels (fnv1a, lcg, morton_*) no shared accesses.

    python3 check_sass.py ooff2.sass
"""

import re
import sys


def demangle(m):
    # _Z5scan4ILi0EEvPKfPfiii -> scan4<0>
    mm = re.match(r"_Z(\d+)(\w+)", m)
    if not mm:
        return m
    n = int(mm.group(1))
    name, rest = mm.group(2)[:n], mm.group(2)[n:]
    args = re.findall(r"Li(\d+)", rest.split("EEv")[0]) if rest.startswith("I") else []
    return name + (f"<{','.join(args)}>" if args else "")


def main():
    fn, st = None, {}
    for line in open(sys.argv[1], errors="replace"):
        m = re.search(r"Function : (\S+)", line)
        if m:
            fn = demangle(m.group(1))
            st[fn] = {"SASS": 0}
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?);", line)
        if fn and m:
            ins = m.group(1)
            st[fn]["SASS"] += 1
            pred = ins.startswith("@")
            op = ins.split()[1] if pred else ins.split()[0]
            b = op.split(".")[0]
            if b in ("LDS", "STS", "ATOMS", "BAR"):
                key = op if b != "BAR" else "BAR"
                st[fn][key] = st[fn].get(key, 0) + 1
                if pred:
                    st[fn][key + "(pred)"] = st[fn].get(key + "(pred)", 0) + 1
    notes = 0
    for f in sorted(st):
        d = st[f]
        line = f"{f}: " + ", ".join(f"{k} {v}" for k, v in sorted(d.items()))
        vec = [k for k in d if re.match(r"(LDS|STS)\.(64|128)$", k)]
        base = f.split("<")[0]
        if base in ("gemv_n", "tile8", "psort", "bitrev", "fwht", "oets", "dhist") and vec:
            line += f"; NOTE: vector shared accesses {vec} (the step's conflicts may differ)"
            notes += 1
        if base == "dhist" and not any(k.startswith("ATOMS") for k in d):
            line += "; NOTE: no ATOMS"
            notes += 1
        if base in ("fnv1a", "lcg", "morton_enc", "morton_dec") and any(
                k.split(".")[0] in ("LDS", "STS", "ATOMS") for k in d):
            line += "; NOTE: shared accesses in an integer kernel"
            notes += 1
        print(line)
    print(f"sass_check: {len(st)} kernels, {notes} notes")


if __name__ == "__main__":
    main()
