#!/usr/bin/env python3
"""Per kernel of a `cuobjdump -sass` dump: SASS count, shared loads/stores by width (predicated in
brackets), shared atomics, barriers. NOTE where an assumption of the set does not hold: the
`scan4`, `sten1d` and `layernorm` kernels must read and write their consecutive elements as scalar
LDS/STS (a run-time zero offset keeps ptxas from merging them, which would remove the conflicts
of the step); `histo` must have one ATOMS.

    python3 check_sass.py ooff.sass
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
        if f.split("<")[0] in ("scan4", "sten1d", "layernorm") and vec:
            line += f"; NOTE: vector shared accesses {vec} (the step's conflicts may be gone)"
            notes += 1
        if f == "histo" and not any(k.startswith("ATOMS") for k in d):
            line += "; NOTE: no ATOMS"
            notes += 1
        print(line)
    print(f"sass_check: {len(st)} kernels, {notes} notes")


if __name__ == "__main__":
    main()
