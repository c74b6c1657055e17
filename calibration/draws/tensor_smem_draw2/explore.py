#!/usr/bin/env python3
"""Exploration launches that ride along with draw2 (not scored, no pre-registered rule): data for
the two LDGSTS parts draw1 left open. Deterministic (no randomness).

  .ca joint (draw1 RESULT §2): ca.4, one phase, a complete grid of a destination banks × b source
      banks (a·b ≤ 32 lanes, one lane per (destination bank, source bank) pair, the other lanes
      inactive), lanes in destination-major or source-major order, each lane's source in its own
      128-byte line or the lanes of one destination bank in one line. The max rule says max(a, b).
  .cg rotations and strides: cg.16, destinations contiguous (4 lines), sources coalesced but
      rotated by k chunks inside each line (k = 1…7); destinations at strides of 3, 5, 7 chunks.

writes explore_patterns.txt (patterns.txt's format), lists/explore.txt, and explore_model.tsv
(name, what, the max rule's / the line-group rule's Source-page wavefronts: model.DRAW2)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "probes", "tensor_smem"))
import model  # noqa: E402

GRIDS = [(2, 2), (2, 4), (4, 2), (4, 4), (2, 8), (8, 2), (4, 8), (8, 4), (2, 16), (16, 2)]


def ca_grid(a, b, order, lines):
    """Lanes over the (destination bank i < a, source bank j < b) pairs; destination bank
    (32 / a)·i, the k-th lane on it one 128-byte row further; source bank 3j mod 32."""
    pairs = [(i, j) for i in range(a) for j in range(b)] if order == "dst" else [(i, j) for j in range(b) for i in range(a)]
    d, s = [-1] * 32, [0] * 32
    seen = {}
    for lane, (i, j) in enumerate(pairs):
        k = seen.get(i, 0)
        seen[i] = k + 1
        d[lane] = 4096 + 128 * k + 4 * ((32 // a) * i)
        line = 2000 + (lane if lines == "own" else i) * 7
        s[lane] = 128 * line + 4 * ((3 * j) % 32)
    return d, s


def main():
    rows, model_rows = [], []
    for a, b in GRIDS:
        for order in ("dst", "src"):
            for lines in ("own", "bydst"):
                name = f"x2_ca4_grid{a}x{b}_{order}_{lines}"
                d, s = ca_grid(a, b, order, lines)
                rows.append(" ".join([name, "ca.4"] + [str(x) for x in d + s + [4] * 32 + [0]]))
                r = model.ldgsts("ca.4", d, s, 4, **model.DRAW2)
                model_rows.append((name, f"ca.4 grid {a}x{b} {order}-major, lines {lines}", r["sass_wf"]))
    for k in range(1, 8):
        name = f"x2_cg16_rot{k}"
        d = [8192 + 16 * t for t in range(32)]
        s = [128 * (3000 + t // 8) + 16 * ((t % 8 + k) % 8) for t in range(32)]
        rows.append(" ".join([name, "cg.16"] + [str(x) for x in d + s + [16] * 32 + [0]]))
        model_rows.append((name, f"cg.16 contiguous, sources rotated by {k} chunks in each line",
                           model.ldgsts("cg.16", d, s, 16, **model.DRAW2)["sass_wf"]))
    for st in (3, 5, 7):
        name = f"x2_cg16_stride{st}"
        d = [8192 + 16 * st * t for t in range(32)]
        s = [128 * (3100 + t // 8) + 16 * (t % 8) for t in range(32)]
        rows.append(" ".join([name, "cg.16"] + [str(x) for x in d + s + [16] * 32 + [0]]))
        model_rows.append((name, f"cg.16 destinations {st} chunks apart, sources coalesced",
                           model.ldgsts("cg.16", d, s, 16, **model.DRAW2)["sass_wf"]))
    with open(os.path.join(HERE, "explore_patterns.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")
    os.makedirs(os.path.join(HERE, "lists"), exist_ok=True)
    with open(os.path.join(HERE, "lists", "explore.txt"), "w") as f:
        f.write("".join(r.split()[0] + "\n" for r in rows))
    with open(os.path.join(HERE, "explore_model.tsv"), "w") as f:
        f.write("name\twhat\tmodel_draw2_sass_wf\n")
        for n, what, v in model_rows:
            f.write(f"{n}\t{what}\t{v}\n")
    print(f"explore: {len(rows)} launches")


if __name__ == "__main__":
    main()
