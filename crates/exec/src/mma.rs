//! `mma.sync` ([`Inst::Mma`](warpsim_kernel::ir::Inst::Mma)): the warp's `D = A x B + C` on
//! the tensor cores. [`multiply`] gathers the matrices from the 32 lanes' registers by the
//! PTX ISA's fragment layouts ([`MmaOp::a_at`], [`MmaOp::b_at`], [`MmaOp::cd_at`]) and spreads
//! D back the same way; the handler checks that the whole warp executes it.
//!
//! The arithmetic, as `calibration/probes/mma_numerics` found it (every form, two random
//! draws; the adder's rule fitted on the first, the second predicted exactly):
//!
//! * `f16`, `bf16` and `tf32` inputs with `f32` results, the tensor cores' adder: every
//!   product is exact; each addend (the K products and C) is truncated toward zero to a
//!   multiple of `2^(e - 25)`, where `e` is the largest of the addends' *nominal* exponents (a
//!   product's is the sum of its factors' exponents, though its value may reach the next
//!   binade; C's its own); the truncated addends are summed exactly and the sum truncated
//!   toward zero to `f32`. A `tf32` operand's low 13 mantissa bits are ignored.
//! * `e4m3`/`e5m2` inputs with `f32` results, as their SASS computes them: the operands
//!   unpacked to f16 (exactly), the same adder over the k with `k % 4` in {0, 1} into zero,
//!   again over the others into that, then C added in `f32`, rounded to nearest (derived from
//!   the SASS after the probe's words were seen: post hoc, a fresh draw to confirm it).
//! * `f16` results: `C + sum over k` accumulated in `f64` and rounded once, to nearest even.
//! * Integers (`s8`, `u8`): exact, then wrapped to 32 bits, or clamped with `.satfinite`.
//! * `f64` (`m8n8k4`): a chain of fused multiply-adds in order of `k`, from C.
//!
//! A NaN result is the canonical NaN (`0x7fffffff`, `0x7fff`).

use super::block::Ctx;
use super::fault::{Fault, FaultKind, MaskError};
use super::warp::At;
use super::{Lanes, FULL, WARP};
use warpsim_kernel::fp16::Half;
use warpsim_kernel::ir::{MmaOp, MmaType, Reg};

/// D's words per lane: up to 4 registers of up to 2 words, in register order.
pub type DWords = [[u32; 8]; WARP];

/// The value of one element (`bits`, right-aligned) of type `ty`.
pub(crate) fn float_of(ty: MmaType, bits: u64) -> f64 {
    match ty {
        MmaType::F16 => Half::F16.to_f64(bits as u16),
        MmaType::Bf16 => Half::Bf16.to_f64(bits as u16),
        MmaType::Tf32 => f32::from_bits(bits as u32 & 0xffff_e000) as f64,
        MmaType::F32 => f32::from_bits(bits as u32) as f64,
        MmaType::F64 => f64::from_bits(bits),
        MmaType::E4m3 => fp8(bits as u8, 4, 3),
        MmaType::E5m2 => fp8(bits as u8, 5, 2),
        MmaType::S8 => bits as u8 as i8 as f64,
        MmaType::U8 => bits as u8 as f64,
        MmaType::S32 => bits as u32 as i32 as f64,
    }
}

/// An 8-bit float with `e` exponent and `m` mantissa bits (OCP FP8: e4m3 has no infinities
/// and one NaN mantissa, e5m2 is IEEE-like).
fn fp8(b: u8, e: u32, m: u32) -> f64 {
    let sign = if b & 0x80 != 0 { -1.0 } else { 1.0 };
    let ef = ((b as u32) >> m) & ((1 << e) - 1);
    let mf = (b as u32) & ((1 << m) - 1);
    let emax = (1 << e) - 1;
    let bias = (1i32 << (e - 1)) - 1;
    if e == 4 && ef == emax && mf == (1 << m) - 1 {
        return f64::NAN;
    }
    if e == 5 && ef == emax {
        return if mf == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let frac = mf as f64 / (1 << m) as f64;
    let v = if ef == 0 {
        frac * 2f64.powi(1 - bias)
    } else {
        (1.0 + frac) * 2f64.powi(ef as i32 - bias)
    };
    sign * v
}

/// The exponent field's value of a nonzero `x` of type `ty` (a subnormal's is the format's
/// least normal exponent).
pub(crate) fn nominal(ty: MmaType, x: f64) -> i32 {
    let emin = match ty {
        MmaType::F16 | MmaType::E5m2 => -14,
        MmaType::E4m3 => -6,
        _ => -126,
    };
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    e.max(emin)
}

/// `C + sum of terms` as the tensor cores add `f16`/`bf16`/`tf32` products into `f32` (the
/// module's doc): `terms` are (exact product, nominal exponent, whether nonzero). Returns D's
/// bits.
pub(crate) fn tensor_sum(c: f64, terms: impl Iterator<Item = (f64, i32, bool)> + Clone) -> u64 {
    let Some(s) = aligned_sum(c, MmaType::F32, terms.clone(), 25) else {
        let s = terms.fold(c, |s, t| s + t.0);
        return if s.is_nan() {
            0x7fff_ffff
        } else {
            (s as f32).to_bits() as u64
        };
    };
    let r = s as f32;
    // `as` rounds to nearest: step back toward zero when it rounded away.
    let r = if (r as f64).abs() > s.abs() {
        f32::from_bits(r.to_bits() - 1)
    } else {
        r
    };
    r.to_bits() as u64
}

/// The tensor cores' aligned sum of `c` (of type `c_ty`) and `terms` (exact product, nominal
/// exponent, whether nonzero): each addend truncated toward zero to a multiple of
/// `2^(e - bits)`, `e` the largest nominal exponent among the nonzero ones, the truncated
/// addends summed exactly (`c` alone when none is nonzero). None when `c` is NaN or a term is
/// not finite (the callers add those as they are).
pub(crate) fn aligned_sum(
    c: f64,
    c_ty: MmaType,
    terms: impl Iterator<Item = (f64, i32, bool)> + Clone,
    bits: i32,
) -> Option<f64> {
    if c.is_nan() || terms.clone().any(|t| !t.0.is_finite()) {
        return None;
    }
    let ec = (c != 0.0).then(|| nominal(c_ty, c));
    let Some(emax) = terms.clone().filter(|t| t.2).map(|t| t.1).chain(ec).max() else {
        return Some(c);
    };
    // Truncation toward zero to a multiple of 2^q, exact in f64 (the addends have at most 22
    // significant bits and the quantum is no smaller than 2^-151). At most 33 addends below
    // 2^(emax + 2), multiples of 2^(emax - bits) with bits <= 25: the sum is exact.
    let q = 2f64.powi(emax - bits);
    let cut = |x: f64| (x / q).trunc() * q;
    Some(terms.fold(cut(c), |s, t| s + cut(t.0)))
}

/// Element `i` of a fragment of type `ty` held in registers `regs` of lane `lane`.
pub(crate) fn element(
    ty: MmaType,
    regs: &[Reg],
    i: usize,
    lane: usize,
    reg: &impl Fn(Reg, usize) -> u32,
) -> u64 {
    let e = ty.per_reg();
    let r = regs[i / e];
    if ty == MmaType::F64 {
        return reg(r, lane) as u64 | (reg(Reg(r.0.wrapping_add(1)), lane) as u64) << 32;
    }
    let bits = ty.bits();
    let w = reg(r, lane) as u64;
    (w >> (bits as usize * (i % e))) & ((1u64 << bits) - 1)
}

/// `D = A x B + C` of one warp: `reg(r, lane)` reads register `r` of a lane; the result is
/// each lane's D words in the order of [`MmaOp::dsts`] (an `f64` low word first).
pub fn multiply(op: &MmaOp, reg: impl Fn(Reg, usize) -> u32) -> DWords {
    let (m, n, k) = op.shape.mnk();
    // The matrices' values (every element type is exact in f64), row-major; on the stack, at
    // the largest shape's sizes (16 x 32, 32 x 8, 16 x 8: no allocation per instruction).
    let mut a = [0f64; 16 * 32];
    let mut b = [0f64; 32 * 8];
    let mut c = [0f64; 16 * 8];
    for lane in 0..WARP {
        for i in 0..m * k / WARP {
            let (row, col) = op.a_at(lane, i);
            a[row * k + col] = float_of(op.a_ty, element(op.a_ty, &op.a, i, lane, &reg));
        }
        for i in 0..k * n / WARP {
            let (row, col) = op.b_at(lane, i);
            b[row * n + col] = float_of(op.b_ty, element(op.b_ty, &op.b, i, lane, &reg));
        }
        for i in 0..m * n / WARP {
            let (row, col) = op.cd_at(lane, i);
            c[row * n + col] = float_of(op.c_ty, element(op.c_ty, &op.c, i, lane, &reg));
        }
    }
    // D, each element's bits.
    let mut d = [0u64; 16 * 8];
    for (at, v) in d.iter_mut().enumerate().take(m * n) {
        let (row, col) = (at / n, at % n);
        *v = d_element(op, k, |x| (a[row * k + x], b[x * n + col]), c[at]);
    }
    // Spread D over the lanes' registers.
    let mut out = [[0u32; 8]; WARP];
    let e = op.d_ty.per_reg();
    for (lane, words) in out.iter_mut().enumerate() {
        for i in 0..m * n / WARP {
            let (row, col) = op.cd_at(lane, i);
            let v = d[row * n + col];
            if op.d_ty == MmaType::F64 {
                words[2 * i] = v as u32;
                words[2 * i + 1] = (v >> 32) as u32;
            } else {
                let bits = op.d_ty.bits() as usize;
                words[i / e] |= (v as u32) << (bits * (i % e));
            }
        }
    }
    out
}

/// The bits of one element of D (the module's doc): `ab(x)` gives the elements of A's row and
/// B's column at `k = x`, `c` C's element.
pub(crate) fn d_element(op: &MmaOp, k: usize, ab: impl Fn(usize) -> (f64, f64), c: f64) -> u64 {
    let fp8 = matches!(op.a_ty, MmaType::E4m3 | MmaType::E5m2);
    // An addend of the tensor cores' adder: the exact product, its nominal exponent (fp8
    // operands are f16 by then) and whether it is nonzero.
    let (ta, tb) = if fp8 {
        (MmaType::F16, MmaType::F16)
    } else {
        (op.a_ty, op.b_ty)
    };
    let term = |x: usize| {
        let (p, q) = ab(x);
        (p * q, nominal(ta, p) + nominal(tb, q), p != 0.0 && q != 0.0)
    };
    if op.a_ty.is_int() {
        let s = (0..k).fold(c as i64, |s, x| {
            let (p, q) = ab(x);
            s + p as i64 * q as i64
        });
        let v = if op.satfinite {
            s.clamp(i32::MIN as i64, i32::MAX as i64)
        } else {
            s
        };
        v as i32 as u32 as u64
    } else if op.d_ty == MmaType::F64 {
        let s = (0..k).fold(c, |s, x| {
            let (p, q) = ab(x);
            p.mul_add(q, s)
        });
        s.to_bits()
    } else if op.d_ty == MmaType::F32 && fp8 {
        // The SASS: each register's fp8 bytes 0-1 and 2-3 unpacked to f16 pairs
        // (`F2FP.F16.E4M3.UNPACK_B`, exact), an `HMMA.16816.F32` of the k with k % 4 in {0, 1}
        // into zero, a second of those in {2, 3} into its result, then an `FADD` of C (rounded
        // to nearest).
        let first = tensor_sum(0.0, (0..k).filter(|x| x % 4 < 2).map(&term));
        let first = f32::from_bits(first as u32) as f64;
        let second = tensor_sum(first, (0..k).filter(|x| x % 4 >= 2).map(&term));
        let s = f32::from_bits(second as u32) + c as f32;
        if s.is_nan() {
            0x7fff_ffff
        } else {
            s.to_bits() as u64
        }
    } else if op.d_ty == MmaType::F32 {
        tensor_sum(c, (0..k).map(&term))
    } else {
        // f16 results: the exact sum, rounded once.
        let s = (0..k).fold(c, |s, x| {
            let (p, q) = ab(x);
            s + p * q
        });
        Half::F16.from_f64(s) as u64
    }
}

/// `mma.sync` number `k` of the program by warp `at.w`: the whole warp must execute it.
pub(super) fn mma(cx: &mut Ctx, at: &At, k: u16, r: &mut [Lanes]) -> Result<(), Fault> {
    let Some(op) = cx.prog.mmas.get(k as usize).copied() else {
        return Err(cx.fault(
            at.pc,
            FaultKind::Malformed(format!("mma.sync #{k} has no operands in the program")),
            None,
        ));
    };
    if at.active != FULL {
        let missing = !at.active;
        return Err(cx.lane_fault(
            at.pc,
            at.w,
            missing.trailing_zeros(),
            FaultKind::WarpMask {
                op: "mma.sync",
                mask: FULL,
                lane: missing.trailing_zeros(),
                why: MaskError::NotReached { reached: at.active },
            },
            Some(
                "mma.sync.aligned needs all 32 lanes of the warp: run it outside divergent code, \
                 with a block whose size is a multiple of 32"
                    .into(),
            ),
        ));
    }
    let d = multiply(&op, |reg, lane| {
        r.get(reg.0 as usize).map_or(0, |v| v[lane])
    });
    let mut w = 0;
    for (reg, words) in op.dsts() {
        for x in 0..words as usize {
            if let Some(dst) = r.get_mut(reg.0 as usize + x) {
                for (lane, v) in dst.iter_mut().enumerate() {
                    *v = d[lane][w + x];
                }
            }
        }
        w += words as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim_kernel::ir::MmaShape;

    fn op(shape: MmaShape, ab: MmaType, cd: MmaType) -> MmaOp {
        let r = |k: u16| Reg(k);
        MmaOp {
            shape,
            d_ty: cd,
            a_ty: ab,
            b_ty: ab,
            c_ty: cd,
            satfinite: false,
            d: [r(20), r(22), r(24), r(26)],
            a: [r(0), r(1), r(2), r(3)],
            b: [r(4), r(5)],
            c: [r(10), r(12), r(14), r(16)],
        }
    }

    /// The fp8 formats' corners (OCP FP8: e4m3 tops out at 448 and has no infinity).
    #[test]
    fn fp8_values() {
        assert_eq!(fp8(0x7e, 4, 3), 448.0);
        assert_eq!(fp8(0x08, 4, 3), 2f64.powi(-6));
        assert_eq!(fp8(0x01, 4, 3), 2f64.powi(-9));
        assert!(fp8(0x7f, 4, 3).is_nan());
        assert_eq!(fp8(0xb8, 4, 3), -1.0);
        assert_eq!(fp8(0x7b, 5, 2), 57344.0);
        assert_eq!(fp8(0x7c, 5, 2), f64::INFINITY);
        assert!(fp8(0x7d, 5, 2).is_nan());
        assert_eq!(fp8(0x01, 5, 2), 2f64.powi(-16));
    }

    /// The adder truncates: 1 + 0.75 ulp stays 1 (to nearest it would be the next float), and
    /// an addend below 2^(e - 25) vanishes even when several of them would add up to an ulp.
    #[test]
    fn the_adder_truncates() {
        let t = |v: f64, e: i32| (v, e, v != 0.0);
        let one = tensor_sum(1.0, [t(3.0 * 2f64.powi(-25), -24)].into_iter());
        assert_eq!(one, 1f32.to_bits() as u64);
        let tiny = [t(2f64.powi(-26), -26); 8];
        assert_eq!(tensor_sum(1.0, tiny.into_iter()), 1f32.to_bits() as u64);
        // Negative sums truncate toward zero too.
        let neg = tensor_sum(-1.0, [t(-3.0 * 2f64.powi(-25), -24)].into_iter());
        assert_eq!(neg, (-1f32).to_bits() as u64);
        // A product past its nominal binade (1.5 x 1.5 = 2.25, nominal exponent 0) keeps the
        // cut at 2^-25: C = 2^-24 + 2^-25 survives whole and the sum truncates once.
        let c = 2f64.powi(-24) + 2f64.powi(-25);
        let s = tensor_sum(c, [t(2.25, 0)].into_iter());
        assert_eq!(s, 2.25f32.to_bits() as u64);
    }

    /// `D = A x B + C` through the fragments: A the identity, so D is B (plus C).
    #[test]
    #[allow(clippy::needless_range_loop)]
    fn identity_times_b_is_b() {
        let m = op(MmaShape::M16N8K16, MmaType::F16, MmaType::F32);
        let one = 0x3c00u32; // f16 1.0
                             // A (16 x 16) = I, B[k][n] = k * 8 + n (small integers, exact in f16), C = 0.5.
        let mut regs = vec![[0u32; WARP]; 32];
        for lane in 0..WARP {
            for i in 0..8 {
                let (r, k) = m.a_at(lane, i);
                if r == k {
                    regs[i / 2][lane] |= one << (16 * (i % 2));
                }
            }
            for i in 0..4 {
                let (k, n) = m.b_at(lane, i);
                let v = Half::F16.from_f64((k * 8 + n) as f64) as u32;
                regs[4 + i / 2][lane] |= v << (16 * (i % 2));
            }
            for i in 0..4 {
                regs[10 + 2 * i][lane] = 0.5f32.to_bits();
            }
        }
        let d = multiply(&m, |r, lane| regs[r.0 as usize][lane]);
        for (lane, words) in d.iter().enumerate() {
            for (i, w) in words.iter().take(4).enumerate() {
                let (r, n) = m.cd_at(lane, i);
                // D = I x B + C: rows 0-15 of B are its 16 rows (K = 16).
                assert_eq!(
                    f32::from_bits(*w),
                    (r * 8 + n) as f32 + 0.5,
                    "lane {lane} i {i}"
                );
            }
        }
    }

    /// Integers wrap, or clamp with `.satfinite`; every form the checker accepts has its
    /// fragments inside the arrays.
    #[test]
    fn integers_and_forms() {
        let mut m = op(MmaShape::M8N8K16, MmaType::S8, MmaType::S32);
        // A and B all 0x7f (127), C = i32::MAX: 16 * 127 * 127 more wraps, or clamps.
        let reg = |r: Reg, _lane: usize| match r.0 {
            0..=5 => 0x7f7f_7f7f,
            _ => i32::MAX as u32,
        };
        let wrapped = (i32::MAX as i64 + 16 * 127 * 127) as i32 as u32;
        assert_eq!(multiply(&m, reg)[0][0], wrapped);
        m.satfinite = true;
        assert_eq!(multiply(&m, reg)[0][0], i32::MAX as u32);
        assert!(m.check().is_ok());
        m.d_ty = MmaType::F32;
        assert!(m.check().is_err());
        for shape in [
            MmaShape::M16N8K4,
            MmaShape::M16N8K8,
            MmaShape::M16N8K16,
            MmaShape::M16N8K32,
            MmaShape::M8N8K4,
            MmaShape::M8N8K16,
        ] {
            for ab in [
                MmaType::F16,
                MmaType::Bf16,
                MmaType::Tf32,
                MmaType::E4m3,
                MmaType::S8,
                MmaType::F64,
            ] {
                for cd in [MmaType::F32, MmaType::F16, MmaType::S32, MmaType::F64] {
                    let o = op(shape, ab, cd);
                    if o.check().is_ok() {
                        let [na, nb, nc, nd] = o.counts();
                        assert!(na <= 4 && nb <= 2 && nc <= 4 && nd <= 4, "{}", o.ptx_name());
                        let _ = multiply(&o, |_, _| 0);
                    }
                }
            }
        }
    }
}
