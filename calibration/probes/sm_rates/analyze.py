#!/usr/bin/env python3
"""Summaries of the raw probe outputs (queue.tsv, lat.tsv + lat.sass, disp.tsv, gmem.tsv).

usage: analyze.py RAW_DIR [queue] [lat] [disp]   (prints the summary tables that README.md quotes)
"""
import collections, gzip, os, re, sys

D = sys.argv[1] if len(sys.argv) > 1 else "raw1"
MODES = {0: "LDS", 1: "STS", 2: "LDG.cg(L2)", 3: "LDG(L1 hit)", 4: "STG"}
MODES.update({m + 10: n + "/empty" for m, n in list(MODES.items())})  # run after a pause: queues empty


def opn(name):
    p = os.path.join(D, name)
    return gzip.open(p + ".gz", "rt") if not os.path.exists(p) and os.path.exists(p + ".gz") else open(p)


def queue():
    print("## queue.tsv: 48 independent memory instructions per warp, a clock read after each")
    print("mode K W | knee per warp (first instruction that waited > 6 cycles) | issued by all warps"
          " before the first wait | steady gap of warp 0 | warp 0 gaps")
    cfg = collections.defaultdict(list)
    for line in list(opn("queue.tsv"))[1:]:
        if line.startswith("#"):
            continue
        r = line.split("\t")
        mode, k, w, warp = map(int, r[:4])
        cfg[(mode, k, w)].append(list(map(int, r[4:])))
    for (mode, k, w), ws in sorted(cfg.items()):
        t0 = min(v[0] for v in ws)
        knees, tst = [], []
        for v in ws:
            st = v[1:49]
            g = [st[i] - st[i - 1] for i in range(1, 48)]
            kn = next((i for i, x in enumerate(g) if x > 6), None)
            knees.append(kn + 1 if kn is not None else 48)
            if kn is not None:
                tst.append(st[kn])
        tot = sum(sum(1 for s in v[1:49] if s <= min(tst)) for v in ws) if tst else None
        g0 = [ws[0][i + 1] - ws[0][i] for i in range(0, 49)]
        steady = sorted(g0[40:48])[4]
        print(f"{MODES[mode]:11} K={k:<2} W={w:<2} knees={knees} issued_before_first_wait={tot}"
              f" first_wait_at={min(tst) - t0 if tst else '-'} steady_gap={steady} gaps_w0={' '.join(map(str, g0[:48]))}")


def lat():
    print("\n## lat.tsv: cycles per SASS instruction (SASS counts per 128 steps from lat.sass)")
    sass = None
    counts = {}
    if sass:
        for m in re.finditer(r"Function : (_Z3latILi(\d+)ELi(\d+)E\S*)(.*?)(?=Function :|\Z)", sass, re.S):
            ops = collections.Counter(re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", m.group(4)))
            counts[(int(m.group(2)), int(m.group(3)))] = ops
    rows = [l.rstrip("\n").split("\t") for l in opn("lat.tsv")]
    hdr, rows = rows[0], rows[1:]
    names = []
    for r in rows:
        if r[0] not in names:
            names.append(r[0])
    for r in rows:
        op, ch, w, iters, steps, c0 = r[0], int(r[1]), int(r[2]), int(r[3]), float(r[4]), int(r[5])
        # warp 0's cycles over the instructions one sub-partition issued (warps w % 4 share one)
        per_sp_warps = max(1, w // 4)
        print(f"{op:32} chains={ch} warps={w:<2} cycles/step(warp0)={c0 / steps:7.3f}"
              f"  per sub-partition: {c0 / steps / per_sp_warps:7.3f} cycles per step")
    if counts:
        print("SASS instructions in each latency kernel (CH=1):")
        for i, n in enumerate(names):
            c = counts.get((i, 1))
            if c:
                print(f"  {n:32} " + ", ".join(f"{k} {v}" for k, v in c.most_common(4)))


def disp():
    print("\n## disp.tsv: block dispatch")
    by = collections.defaultdict(list)
    for line in list(opn("disp.tsv"))[1:]:
        r = line.rstrip("\n").split("\t")
        by[r[0]].append(dict(block=int(r[5]), smid=int(r[6]), c0=int(r[7]), c1=int(r[8]), g0=int(r[9]), g1=int(r[10])))
    for name, bl in by.items():
        per = collections.defaultdict(list)
        for b in bl:
            per[b["smid"]].append(b)
        starts, refill = [], []
        for s, lst in per.items():
            lst.sort(key=lambda b: b["c0"])
            for i in range(1, len(lst)):
                starts.append(lst[i]["c0"] - lst[i - 1]["c0"])
            ends = sorted(b["c1"] for b in lst)
            # a block that started after the earliest end on this SM refilled a freed slot
            first_wave = [b for b in lst if b["c0"] < ends[0]]
            later = [b for b in lst if b["c0"] >= ends[0]]
            fe = sorted(b["c1"] for b in lst)
            for j, b in enumerate(sorted(later, key=lambda b: b["c0"])):
                if j < len(fe):
                    refill.append(b["c0"] - fe[j])
        starts.sort(); refill.sort()
        cnt = collections.Counter(b["smid"] for b in bl)
        g0 = min(b["g0"] for b in bl)
        print(f"{name}: blocks={len(bl)} SMs={len(cnt)} blocks/SM {min(cnt.values())}-{max(cnt.values())}; "
              f"start-to-start on one SM: p10 {starts[len(starts) // 10] if starts else '-'} median "
              f"{starts[len(starts) // 2] if starts else '-'}; "
              f"end-of-block -> next start on that SM: median {refill[len(refill) // 2] if refill else '-'}"
              f" (p10 {refill[len(refill) // 10] if refill else '-'}, p90 {refill[9 * len(refill) // 10] if refill else '-'}); "
              f"globaltimer span of block starts in wave 1: {sorted(b['g0'] - g0 for b in bl)[min(len(bl), 132) - 1]} ns;"
              f" kernel span {max(b['g1'] for b in bl) - g0} ns")
        print("   blockIdx -> smid, first 24:", [b["smid"] for b in bl[:24]])


if __name__ == "__main__":
    parts = sys.argv[2:] or ["queue", "lat", "disp"]
    for p in parts:
        globals()[p]()
