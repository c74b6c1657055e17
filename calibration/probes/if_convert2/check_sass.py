#!/usr/bin/env python3
"""What ptxas did with each kernel's `if` (`cuobjdump -sass` output): per kernel the SASS
instructions, `BRA`s, `BSSY`s (ptxas opens one before each `if` it branches over, as in
../if_convert/raw: 138 `BSSY` for the 138 branched levels) and `LDS`; `branched` is yes when
any `BSSY` is there (for an unrolled kernel, `BSSY` per level: 8 = every level branched).

    python3 check_sass.py kernels.sass > sass_check.tsv
"""

import re
import sys


def main():
    rows, name, ops = [], None, []
    for line in open(sys.argv[1]):
        m = re.search(r"Function : (\w+)", line)
        if m:
            if name:
                rows.append((name, ops))
            name, ops = m.group(1), []
            continue
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(.*?)\s*;", line)
        if name and m:
            ops.append(re.sub(r"^@!?U?P\w+\s+", "", m.group(1)).split()[0])
    if name:
        rows.append((name, ops))
    print("kernel\tsass_instructions\tbra\tbssy\tlds\tbranched")
    for name, ops in sorted(rows, key=lambda r: int(re.sub(r"\D", "", r[0]) or 0)):
        bssy = ops.count("BSSY")
        lds = sum(o.startswith("LDS") for o in ops)
        print(f"{name}\t{len(ops)}\t{ops.count('BRA')}\t{bssy}\t{lds}\t{'yes' if bssy else 'no'}")


if __name__ == "__main__":
    main()
