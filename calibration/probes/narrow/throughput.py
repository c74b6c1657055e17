#!/usr/bin/env python3
"""raw/throughput.tsv (clock64: cycles per warp instruction, 1 and 16 warps, each warp in its own
4 KiB) next to the wavefronts the rule gives (loads + atomics, the whole loop for f32/u64 add)."""
import os
import sys

import replay

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lib"))
from common import open_text  # noqa: E402  (raw/throughput.tsv is kept gzipped)

pats = {l.split()[0]: [int(x) for x in l.split()[2:]] for l in open("probe_patterns.txt")}
d = {}
for l in open_text("raw/throughput.tsv"):
    if l.startswith("T"):
        _, n, k, w, c = l.split("\t")
        d.setdefault((n, k), {})[int(w)] = float(c)
print("name\tkind\twavefronts\ttrips\tcycles_1warp\tcycles_16warps\tcycles16_per_wavefront")
for (n, k), v in d.items():
    p = replay.predict(k, pats[n])
    wf = p["wf_ld"] + p["wf_st"] + p["wf_atom"]
    print(f"{n}\t{k}\t{wf}\t{p['n_atoms']}\t{v[1]:.2f}\t{v[16]:.2f}\t{v[16] / wf:.2f}")
