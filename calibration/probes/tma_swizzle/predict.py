#!/usr/bin/env python3
"""calibration/probes/tma_swizzle: warpsim's prediction of every box of cases.txt -> predictions.txt.

  python3 predict.py

The rule (crates/kernel/src/tensormap.rs, TensorMap::copy and TmaSwizzle::apply): the box is
written row-major (innermost dimension contiguous; without a swizzle rows dense at the inner
box's bytes, with a swizzle of S bytes each row takes S bytes, as tensor_smem's dumps read);
the byte at unswizzled shared address a then lands at a ^ (((a >> 7) & m) << 4),
m = S/16 - 1 (absolute address bits; host.cu's region is 1024-aligned, so a = soff + offset is
enough); elements outside the tensor are 0, or 0x7fffffff for f32 with the NaN fill. Words the
copy does not write keep host.cu's sentinel 0xdeadbeef. Same line format as host.cu:
  case NAME swizzle S box BWxBH[xBD] at X0,Y0[,Z0] words w0 w1 ...
Alternatives compare.py names when the main line misses (not warpsim's rule):
  alt:dense    swizzled rows dense at the inner box's bytes (warpsim's first rule, before it
               read tensor_smem's dumps), then the same XOR; narrow boxes only
  alt:relative the XOR on the offset from the box's start (misaligned boxes only)
"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
SENTINEL = 0xDEADBEEF
ALIGN = {0: 128, 32: 256, 64: 512, 128: 1024}


def cases():
    for line in open(os.path.join(here, "cases.txt")):
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        name, dtype, fill = f[:3]
        swz, rank, W, H, D, bw, bh, bd, x0, y0, z0, soff = map(int, f[3:15])
        yield dict(name=name, dtype=dtype, fill=fill, swz=swz, rank=rank, dim=(W, H, D),
                   box=(bw, bh, bd), at=(x0, y0, z0), soff=soff)


def swizzle(swz, a):
    m = max(swz // 16 - 1, 0)
    return a ^ (((a >> 7) & m) << 4)


def value(c, i):
    if c["dtype"] == "f32":
        return struct.unpack("<I", struct.pack("<f", i + 0.25))[0]
    return i


def words(c, layout="warpsim"):
    """The dump window (max(box bytes, rows x span) from the box's start) after the copy."""
    (bw, bh, bd), (W, H, D), (x0, y0, z0) = c["box"], c["dim"], c["at"]
    swz, soff = c["swz"], c["soff"]
    rows = bh * bd
    n = max(bw * rows * 4, rows * swz) // 4
    out = [SENTINEL] * n
    fill = 0x7FFFFFFF if (c["dtype"] == "f32" and c["fill"] == "nan") else 0
    for z in range(bd):
        for y in range(bh):
            for x in range(bw):
                gx, gy, gz = x0 + x, y0 + y, z0 + z
                inside = 0 <= gx < W and 0 <= gy < H and 0 <= gz < D
                v = value(c, (gz * H + gy) * W + gx) if inside else fill
                row = z * bh + y
                padded = swz and layout != "dense"
                off = (row * swz if padded else row * bw * 4) + x * 4
                if layout == "relative":
                    s = swizzle(swz, off)
                else:
                    s = swizzle(swz, soff + off) - soff
                out[s // 4] = v
    return out


def line(c, tag, ws):
    bw, bh, bd = c["box"]
    box = f"{bw}x{bh}" + (f"x{bd}" if c["rank"] == 3 else "")
    at = ",".join(str(v) for v in c["at"][: c["rank"]])
    return f"{tag} {c['name']} swizzle {c['swz']} box {box} at {at} words " + " ".join(
        f"{w:08x}" for w in ws)


def main():
    lines = ["# calibration/probes/tma_swizzle: warpsim's rule (crates/kernel/src/tensormap.rs) on "
             "cases.txt, by predict.py"]
    for c in cases():
        if c["soff"] % ALIGN[c["swz"]]:
            lines.append(f"# {c['name']}: warpsim refuses this box (shared address not a multiple of "
                         f"{ALIGN[c['swz']]}: a fault); the words are its formula's")
        lines.append(line(c, "case", words(c)))
        if c["swz"] and c["box"][0] * 4 < c["swz"]:
            lines.append(line(c, "alt:dense", words(c, "dense")))
        if c["soff"] % ALIGN[c["swz"]]:
            lines.append(line(c, "alt:relative", words(c, "relative")))
    with open(os.path.join(here, "predictions.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"predictions.txt: {sum(1 for l in lines if l.startswith('case '))} cases")


if __name__ == "__main__":
    main()
