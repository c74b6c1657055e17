#!/usr/bin/env python3
"""Rounding models of mma.sync's f32 results against the GPU's words (raw/device.txt).

Re-creates each lane's operands as mma_forms.cu shapes them (the inputs are warpsim's
Random(seed) words), gathers A, B, C by the PTX ISA layouts, and scores candidate models of
D = A x B + C per form and seed: how many of the used D words each gives exactly.

  python3 analyse.py [raw/device.txt]

Models (every product is exact in each):
  rn        the exact sum rounded to nearest once (warpsim before this probe)
  rz        the exact sum truncated (toward zero) once
  alignN    the addends (the products and C) aligned to the largest one's exponent, each
            truncated below 2^(e_max - 23 - N), summed exactly, the sum truncated to f32
"""
import sys, struct
from fractions import Fraction as Fr

GAMMA = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1

def splitmix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)

def word(seed, i):
    return splitmix((seed + (i + 1) * GAMMA) & M64) >> 32

def f16x2(w): return (w & 0x83ff83ff) | ((((w >> 10) & 0x00070007) + 0x000b000b) << 10)
def f16x2_wide(w):
    lo = ((w >> 10) & 31) % 30 + 1; hi = ((w >> 26) & 31) % 30 + 1
    return (w & 0x83ff83ff) | (lo << 10) | (hi << 26)
def bf16x2(w): return (w & 0x807f807f) | ((((w >> 7) & 0x00070007) + 0x007b007b) << 7)
def f32s(w): return (w & 0x807fffff) | ((((w >> 23) & 7) + 123) << 23)
def fp8x4(w): return w & 0xbfbfbfbf

def half(b, man, ebits):
    s = -1 if b >> (man + ebits) & 1 else 1
    e = (b >> man) & ((1 << ebits) - 1); m = b & ((1 << man) - 1)
    bias = (1 << (ebits - 1)) - 1
    if e == 0: return s * Fr(m, 1 << man) * Fr(2) ** (1 - bias)
    return s * (1 + Fr(m, 1 << man)) * Fr(2) ** (e - bias)

def f32v(b): return half(b, 23, 8)
def tf32v(b): return f32v(b & 0xffffe000)
def fp8v(b, e, m): return half(b, m, e)

# form: (M, K, per-reg elements of A/B, decode, shaper for A/B, regs a, regs b)
FORMS = {
    0: (16, 16, 2, lambda b: half(b, 10, 5), f16x2, 4, 2),
    1: (16, 16, 2, lambda b: half(b, 10, 5), f16x2_wide, 4, 2),
    3: (16, 16, 2, lambda b: half(b, 7, 8), bf16x2, 4, 2),
    4: (16, 8, 1, tf32v, f32s, 4, 2),
    5: (16, 4, 1, tf32v, f32s, 2, 1),
    6: (16, 8, 2, lambda b: half(b, 10, 5), f16x2, 2, 1),
    11: (16, 32, 4, lambda b: fp8v(b, 4, 3), fp8x4, 4, 2),
}

def a_at(M, e, lane, i):
    g, t, j = lane // 4, lane % 4, i // e
    w = e * t + i % e
    return (g + 8 * (j & 1), w + 4 * e * (j >> 1)) if M == 16 else (g, w + 4 * e * j)

def b_at(e, lane, i):
    g, t, j = lane // 4, lane % 4, i // e
    return (e * t + i % e + 4 * e * j, g)

def cd_at(lane, i):
    return (lane // 4 + 8 * (i >> 1), 2 * (lane % 4) + (i & 1))

def elem(words, e, i):
    bits = 32 // e
    return (words[i // e] >> (bits * (i % e))) & ((1 << bits) - 1)

def f32_bits_trunc(x):
    """x (a Fraction) truncated toward zero to f32 (normal range only)."""
    if x == 0: return 0
    s = 0x80000000 if x < 0 else 0
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fr(2) ** e > a: e -= 1
    q = a / Fr(2) ** (e - 23)
    m = q.numerator // q.denominator
    return s | ((e + 127) << 23) | (m - (1 << 23))

def f32_bits_rn(x):
    return struct.unpack('<I', struct.pack('<f', float(x)))[0] if abs(x) < 2**127 else None

def exp_of(x):
    a = abs(x)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fr(2) ** e > a: e -= 1
    return e

def trunc_to(x, q):
    """x truncated toward zero to a multiple of 2^q."""
    u = Fr(2) ** q
    n = abs(x) / u
    v = (n.numerator // n.denominator) * u
    return v if x >= 0 else -v

def floor_to(x, q):
    """x rounded toward minus infinity to a multiple of 2^q (two's complement truncation)."""
    u = Fr(2) ** q
    n = x / u
    return (n.numerator // n.denominator) * u

def block(terms, n, cut):
    """The terms aligned to the largest one's exponent, each cut below 2^(e_max - 23 - n),
    summed exactly and truncated to f32 (as a value)."""
    nz = [t for t in terms if t != 0]
    if not nz:
        return Fr(0)
    emax = max(exp_of(t) for t in nz)
    s = sum(cut(t, emax - 23 - n) for t in terms)
    b = f32_bits_trunc(s)
    return f32v(b) if b else Fr(0)

def models(terms, chunks=(4, 8, 16)):
    """terms[0] is C, then the K products in order of k."""
    exact = sum(terms)
    out = {'rn': f32_bits_rn(exact), 'rz': f32_bits_trunc(exact)}
    c, prods = terms[0], terms[1:]
    for n in (2, 3, 4):
        for cname, cut in (('z', trunc_to), ('f', floor_to)):
            for ch in chunks:
                if ch > len(prods):
                    continue
                acc = c
                for i in range(0, len(prods), ch):
                    acc = block([acc] + prods[i:i + ch], n, cut)
                out[f'a{n}{cname}k{ch}'] = f32_bits_trunc(acc)
    return out

def main():
    dev = {}
    for l in open(sys.argv[1] if len(sys.argv) > 1 else 'raw/device.txt'):
        f = l.split()
        if f and f[0] == 'D':
            dev[(int(f[1]), int(f[2]), int(f[3]))] = [int(x, 16) for x in f[4:]]
    for form, (M, K, e, dec, shape, na, nb) in FORMS.items():
        for seed in (1, 2):
            A = {}; B = {}; C = {}
            for lane in range(32):
                pass
            score = {}; total = 0
            for warp in range(8):
                A = [[0] * K for _ in range(M)]; B = [[0] * 8 for _ in range(K)]; C = [[0] * 8 for _ in range(M)]
                for lane in range(32):
                    base = (warp * 32 + lane) * 16
                    x = [word(seed, base + j) for j in range(16)]
                    a = [shape(x[j]) for j in range(na)]
                    b = [shape(x[4 + j]) for j in range(nb)]
                    c = [f32s(x[6 + j]) for j in range(4)]
                    for i in range(M * K // 32):
                        r, k = a_at(M, e, lane, i); A[r][k] = dec(elem(a, e, i))
                    for i in range(K * 8 // 32):
                        k, n = b_at(e, lane, i); B[k][n] = dec(elem(b, e, i))
                    for i in range(4):
                        r, n = cd_at(lane, i); C[r][n] = f32v(c[i])
                for lane in range(32):
                    d = dev[(seed, form, warp * 32 + lane)]
                    for i in range(4):
                        r, n = cd_at(lane, i)
                        terms = [C[r][n]] + [A[r][k] * B[k][n] for k in range(K)]
                        for name, bits in models(terms).items():
                            score[name] = score.get(name, 0) + (bits == d[i])
                        total += 1
            print(f"form {form:2} seed {seed}: " + "  ".join(f"{k} {v}/{total}" for k, v in score.items()))

main()
