#!/usr/bin/env python3
"""share.cu's issue stamps read as a queue: per D (p50 over SM-launches), how many LDS
sub-partition 1 issues before its first gap > 40 cycles (room it finds on joining), the gaps of
its LDS while both flood, and after sub-partition 0's last LDS: how many of sub-partition 1's
next LDS come ~64 cycles apart (one of every two departures) before they come ~32 apart. The
last 4 stamps of a warp are left out: ptxas reads them after its last LDS (raw/share.sass.gz).

    python3 calibration/probes/queue_share/analyze.py raw/share.txt.gz
"""
import collections, gzip, statistics as st, sys

runs = collections.defaultdict(dict)
for line in gzip.open(sys.argv[1], "rt"):
    t = line.split()
    d, rep, sm, w = int(t[1]), int(t[2]), int(t[3]), int(t[4])
    runs[(d, rep, sm)][w] = [int(x) for x in t[6:-1]][:-4]

for d in sorted({k[0] for k in runs}):
    room, both, tail64, n = [], [], [], 0
    for (dd, _, _), ws in runs.items():
        if dd != d:
            continue
        n += 1
        i0 = sorted(x for w in ws if w % 4 == 0 for x in ws[w])
        i1 = sorted(x for w in ws if w % 4 == 1 for x in ws[w])
        k = next((j for j in range(1, len(i1)) if i1[j] - i1[j - 1] > 40), len(i1))
        room.append(k)
        last0 = i0[-1]
        g = [b - a for a, b in zip(i1, i1[1:]) if a > i1[k - 1] and b < last0]
        if g:
            both.append(st.median(g))
        after = [x for x in i1 if x > last0 + 100]
        gaps = [b - a for a, b in zip(after, after[1:])]
        m = next((j for j, x in enumerate(gaps) if x < 48), len(gaps))
        tail64.append(m)
    print(f"D {d}: sp 1 LDS before its first wait p50 {st.median(room)} (p10 {sorted(room)[n // 10]}, "
          f"p90 {sorted(room)[9 * n // 10]}); its gap while both flood p50 {st.median(both) if both else '-'}; "
          f"after sp 0's last: LDS ~64 apart before ~32 p50 {st.median(tail64)} ({n} SM-launches)")
