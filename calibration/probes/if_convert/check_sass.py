#!/usr/bin/env python3
"""Which `if` bodies ptxas predicated: per kernel of `cuobjdump -sass` output, the SASS
instructions and the `BRA`s (a kernel whose eight levels ptxas unrolled has a `BRA` per level
where the body is branched over, none where it is predicated, and the final `BRA` to itself;
a kernel left a loop adds its back edge), and the predicated instructions (`@P`/`@!P`).

    python3 check_sass.py kernels.sass > sass_check.tsv
"""

import re
import sys


def main():
    rows, name, sass = [], None, []
    for line in open(sys.argv[1]):
        m = re.search(r"Function : (\w+)", line)
        if m:
            if name:
                rows.append((name, sass))
            name, sass = m.group(1), []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if name and m:
            sass.append(m.group(1))
    if name:
        rows.append((name, sass))
    print("kernel\tsass_instructions\tbra\tpredicated_instructions\tlds\tbar")
    for name, sass in sorted(rows, key=lambda r: int(re.sub(r"\D", "", r[0]) or 0)):
        ops = [re.sub(r"^@!?U?P\w+\s+", "", s).split()[0] for s in sass]
        pred = sum(1 for s in sass if re.match(r"^@!?P[0-6]\s", s))
        print(f"{name}\t{len(sass)}\t{ops.count('BRA')}\t{pred}\t"
              f"{sum(o.startswith('LDS') for o in ops)}\t{sum(o.startswith('BAR') for o in ops)}")


if __name__ == "__main__":
    main()
