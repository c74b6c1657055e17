#!/usr/bin/env python3
"""predictions.tsv: what `warpsim access` prices for every launch of patterns.txt (the Source
page's LDGSTS wavefronts and bank conflicts, and the rest of its row), made before the device call.

    python3 predict.py WARPSIM [BASELINE]   (a release build with the rule under test; the
                                            build before it, for the old_* columns)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "ldgsts_tma3"))
import predict as probe  # noqa: E402

KEYS = ("sass_wf", "sass_bc", "ideal", "sectors", "tags", "hw_wf", "hw_bc")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    pats = probe.load_patterns(os.path.join(HERE, "patterns.txt"))
    ws = probe.warpsim_rows(sys.argv[1], pats)
    old = probe.warpsim_rows(sys.argv[2], pats) if len(sys.argv) == 3 else {}
    with open(os.path.join(HERE, "predictions.tsv"), "w") as f:
        f.write("\t".join(("name", "kind") + KEYS + ("old_sass_wf", "old_sass_bc")) + "\n")
        for name, p in pats.items():
            w, o = ws[name], old.get(name, {})
            row = [str(w[k]) for k in KEYS] + [str(o.get("sass_wf", "")), str(o.get("sass_bc", ""))]
            f.write("\t".join([name, p["kind"]] + row) + "\n")
    print(f"{len(pats)} launches -> predictions.tsv")


if __name__ == "__main__":
    main()
