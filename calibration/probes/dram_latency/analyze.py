#!/usr/bin/env python3
"""calibration/probes/dram_latency: quantiles of one hop's cycles per configuration and pass (hop 0 left
out: it includes the chain's start; 132x32 left out: it did not launch, see dramlat.cu), and
the preset's DRAM latency and spread (crates/machine/presets/h200.ron, `dram`, `dram_spread`):
from the idle configurations (1x1 and 132x1), the DRAM pass's mean less the L2 pass's mean
(the probe's own overhead cancels) added to the L2 hit latency of calibration/sources/h200/timing.md
(285), and 32 quantiles of the DRAM pass less its mean.

    python3 calibration/probes/dram_latency/analyze.py [raw/dramlat.tsv.gz]
"""
import gzip, os, sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "raw", "dramlat.tsv.gz")
f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
next(f)
d = defaultdict(list)
for line in f:
    c, w, p, h, cyc = line.split("\t")
    if int(h) > 0 and c != "132x32":
        d[(c, int(p))].append(int(cyc))
qs = [1, 5, 10, 25, 50, 75, 90, 95, 99]
print("config\tpass\tn\tmean\t" + "\t".join("p%d" % q for q in qs))
for (c, p), v in sorted(d.items()):
    v.sort()
    n = len(v)
    print("%s\t%s\t%d\t%.0f\t" % (c, "dram" if p == 0 else "l2", n, sum(v) / n)
          + "\t".join(str(v[min(n - 1, n * q // 100)]) for q in qs))
idle = ["1x1", "132x1"]
dram = sorted(x for c in idle for x in d[(c, 0)])
l2 = [x for c in idle for x in d[(c, 1)]]
m, ml2 = sum(dram) / len(dram), sum(l2) / len(l2)
print("\nidle (1x1, 132x1): DRAM mean %.0f, L2 mean %.0f: DRAM = L2 hit + %.0f = %.0f with timing.md's 285"
      % (m, ml2, m - ml2, 285 + m - ml2))
k = 32
print("dram_spread (32 quantiles less the mean):",
      [round(dram[int((i + 0.5) * len(dram) / k)] - m) for i in range(k)])
