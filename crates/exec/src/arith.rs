//! Handlers of the computing instructions: integer, `f32` and `f64` arithmetic, comparisons,
//! moves and selects, conversions. Each computes all 32 lanes and writes the active ones.

use super::block::Ctx;
use super::fault::{self, Fault};
use super::lanes::{get64, nonzero, per_lane, put, put64};
use super::validate::elem_words;
use super::warp::At;
use super::Lanes;
use warpsim_kernel::ir::Reg;
use warpsim_kernel::Elem;
use warpsim_smem::WARP;

/// `dst = f(a, b)` on u32 lanes.
#[inline(always)]
pub(super) fn int2(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u32, u32) -> u32,
) {
    let xs = r[a.0 as usize];
    let ys = r[b.0 as usize];
    let v: Lanes = per_lane(|l| f(xs[l], ys[l]));
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `dst = f(a)` on u32 lanes.
#[inline(always)]
pub(super) fn int1(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, f: impl Fn(u32) -> u32) {
    let xs = r[a.0 as usize];
    let v: Lanes = per_lane(|l| f(xs[l]));
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `dst = f(a, b)` on f32 lanes (the result is a u32: a bit pattern or a boolean).
#[inline(always)]
pub(super) fn f32_2(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(f32, f32) -> u32,
) {
    int2(r, at, dst, a, b, |x, y| {
        f(f32::from_bits(x), f32::from_bits(y))
    })
}

/// `dst = f(a)` on f32 lanes.
#[inline(always)]
pub(super) fn f32_1(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, f: impl Fn(f32) -> f32) {
    int1(r, at, dst, a, |x| f(f32::from_bits(x)).to_bits())
}

/// `dst:dst+1 = f(a:a+1, b:b+1)` on f64 lanes.
#[inline(always)]
pub(super) fn f64_2(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(f64, f64) -> f64,
) {
    let xs = get64(r, a);
    let ys = get64(r, b);
    let v: [f64; WARP] = per_lane(|l| f(xs[l], ys[l]));
    put64(r, dst, v, at.active);
}

/// `dst:dst+1 = f(a:a+1)` on f64 lanes.
#[inline(always)]
pub(super) fn f64_1(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, f: impl Fn(f64) -> f64) {
    let xs = get64(r, a);
    let v: [f64; WARP] = per_lane(|l| f(xs[l]));
    put64(r, dst, v, at.active);
}

/// `dst = f(a:a+1, b:b+1)` on f64 lanes, giving a 32-bit boolean.
#[inline(always)]
pub(super) fn f64_cmp(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(f64, f64) -> bool,
) {
    let xs = get64(r, a);
    let ys = get64(r, b);
    let v: Lanes = per_lane(|l| f(xs[l], ys[l]) as u32);
    put(&mut r[dst.0 as usize], v, at.active);
}

/// Faults if an active lane's `b` is zero (`remainder`: in a remainder, else a division).
#[inline(always)]
fn divisor(cx: &Ctx, at: &At, r: &[Lanes], b: Reg, remainder: bool) -> Result<(), Fault> {
    let zero = !nonzero(&r[b.0 as usize]) & at.active;
    if zero != 0 {
        return Err(fault::division_by_zero(
            cx,
            at.pc,
            at.w,
            zero.trailing_zeros(),
            remainder,
        ));
    }
    Ok(())
}

/// `DivS`, `DivU`, `RemS`, `RemU`: `dst = f(a, b)` once no active lane's `b` is zero (else a
/// fault; `remainder` names the operation).
#[inline(always)]
pub(super) fn divide(
    cx: &Ctx,
    at: &At,
    r: &mut [Lanes],
    (dst, a, b): (Reg, Reg, Reg),
    remainder: bool,
    f: impl Fn(u32, u32) -> u32,
) -> Result<(), Fault> {
    divisor(cx, at, r, b, remainder)?;
    int2(r, at, dst, a, b, f);
    Ok(())
}

/// `x / 2^k` for a signed `x`, rounding toward zero (`k` in 1..=31): negative numbers are
/// biased by `2^k - 1` before the arithmetic shift, which alone would round down.
#[inline(always)]
pub(super) fn div_pow2(x: u32, k: u8) -> i32 {
    let k = k as u32 & 31;
    let bias = ((x as i32 >> 31) as u32).wrapping_shr(32 - k);
    (x.wrapping_add(bias) as i32) >> k
}

/// `Mov`.
#[inline(always)]
pub(super) fn mov(r: &mut [Lanes], at: &At, dst: Reg, a: Reg) {
    let v = r[a.0 as usize];
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `Mov64`: a register pair.
#[inline(always)]
pub(super) fn mov64(r: &mut [Lanes], at: &At, dst: Reg, a: Reg) {
    let lo = r[a.0 as usize];
    let hi = r[a.0 as usize + 1];
    put(&mut r[dst.0 as usize], lo, at.active);
    put(&mut r[dst.0 as usize + 1], hi, at.active);
}

/// `Select`: `c ? a : b` per lane.
#[inline(always)]
pub(super) fn select(r: &mut [Lanes], at: &At, dst: Reg, c: Reg, a: Reg, b: Reg) {
    let cs = r[c.0 as usize];
    let (xs, ys) = (r[a.0 as usize], r[b.0 as usize]);
    let v = per_lane(|l| if cs[l] != 0 { xs[l] } else { ys[l] });
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `Select64`: `c ? a : b` per lane, on register pairs.
#[inline(always)]
pub(super) fn select64(r: &mut [Lanes], at: &At, dst: Reg, c: Reg, a: Reg, b: Reg) {
    let cs = r[c.0 as usize];
    let (xl, xh) = (r[a.0 as usize], r[a.0 as usize + 1]);
    let (yl, yh) = (r[b.0 as usize], r[b.0 as usize + 1]);
    let lo = per_lane(|l| if cs[l] != 0 { xl[l] } else { yl[l] });
    let hi = per_lane(|l| if cs[l] != 0 { xh[l] } else { yh[l] });
    put(&mut r[dst.0 as usize], lo, at.active);
    put(&mut r[dst.0 as usize + 1], hi, at.active);
}

/// `Mad`: `a * b + c`, wrapping.
#[inline(always)]
pub(super) fn mad(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, b: Reg, c: Reg) {
    let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
    let v = per_lane(|l| xs[l].wrapping_mul(ys[l]).wrapping_add(zs[l]));
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `Ptx`: `dst = op(a, b, c)` ([`warpsim_kernel::PtxOp`]).
#[inline(always)]
pub(super) fn ptx(
    r: &mut [Lanes],
    at: &At,
    op: warpsim_kernel::PtxOp,
    dst: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
) {
    let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
    let v = per_lane(|l| op.eval(xs[l], ys[l], zs[l]));
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `FFma`: `a * b + c` on f32 with one rounding ([`fma_f32`]).
#[inline(always)]
pub(super) fn ffma<const V3: bool>(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, b: Reg, c: Reg) {
    let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
    let v = per_lane(|l| {
        let f = f32::from_bits;
        fma_f32::<V3>(f(xs[l]), f(ys[l]), f(zs[l])).to_bits()
    });
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `DFma`: `a * b + c` on f64 with one rounding.
#[inline(always)]
pub(super) fn dfma(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, b: Reg, c: Reg) {
    let (xs, ys, zs) = (get64(r, a), get64(r, b), get64(r, c));
    let v = per_lane(|l| xs[l].mul_add(ys[l], zs[l]));
    put64(r, dst, v, at.active);
}

/// `HW`: the caller is compiled with FMA hardware (then `mul_add` is one instruction).
#[inline(always)]
pub(super) fn fma_f32<const HW: bool>(a: f32, b: f32, c: f32) -> f32 {
    if HW || cfg!(target_feature = "fma") {
        // One instruction, vectorized.
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let c = c as f64;
    let s = p + c;
    let bv = s - p;
    let err = (p - (s - bv)) + (c - bv);
    let bits = s.to_bits();
    // Inexact and even: one ulp toward the exact value, which lies strictly between s and
    // that neighbour. (Branch-free, so that the 32 lanes vectorize.)
    let odd = ((err != 0.0) & (err.abs() < f64::INFINITY) & (bits & 1 == 0)) as u64;
    let step = if (err > 0.0) == (s > 0.0) {
        odd
    } else {
        odd.wrapping_neg()
    };
    f64::from_bits(bits.wrapping_add(step)) as f32
}

/// `Cvt`: C conversions between element types, via an exact `f64` when floats are involved
/// (i32, u32 and f32 are all exact in f64, so every conversion rounds at most once; `as`
/// truncates and saturates float → int, NaN → 0).
#[inline(always)]
pub(super) fn cvt(r: &mut [Lanes], dst: Reg, a: Reg, from: Elem, to: Elem, mask: u32) {
    let int = |e: Elem| matches!(e, Elem::U32 | Elem::I32);
    let half = |e: Elem| matches!(e, Elem::F16 | Elem::BF16);
    if half(from) && half(to) && from != to {
        // Through f32 (exact), then one rounding.
        let (hf, ht) = (from.half(), to.half());
        if let (Some(hf), Some(ht)) = (hf, ht) {
            let s = r[a.0 as usize];
            put(
                &mut r[dst.0 as usize],
                per_lane(|l| ht.from_f32(hf.to_f32(s[l] as u16)) as u32),
                mask,
            );
        }
        return;
    }
    if from == to || (int(from) && int(to)) {
        // Same bits: i32 <-> u32 wraps, as in C.
        for k in 0..elem_words(to) {
            let v = r[a.0 as usize + k];
            put(&mut r[dst.0 as usize + k], v, mask);
        }
        return;
    }
    let x: [f64; WARP] = match from {
        Elem::F64 => get64(r, a),
        Elem::F32 => {
            let s = r[a.0 as usize];
            per_lane(|l| f32::from_bits(s[l]) as f64)
        }
        Elem::U32 => {
            let s = r[a.0 as usize];
            per_lane(|l| s[l] as f64)
        }
        Elem::I32 | Elem::I8 | Elem::I16 => {
            let s = r[a.0 as usize];
            per_lane(|l| s[l] as i32 as f64)
        }
        Elem::U8 | Elem::U16 => {
            let s = r[a.0 as usize];
            per_lane(|l| s[l] as f64)
        }
        Elem::F16 | Elem::BF16 => {
            let s = r[a.0 as usize];
            let h = from.half().unwrap_or(warpsim_kernel::fp16::Half::F16);
            per_lane(|l| h.to_f64(s[l] as u16))
        }
    };
    let out: Lanes = match to {
        Elem::F64 => return put64(r, dst, x, mask),
        Elem::F32 => per_lane(|l| (x[l] as f32).to_bits()),
        Elem::U32 => per_lane(|l| x[l] as u32),
        Elem::I32 => per_lane(|l| x[l] as i32 as u32),
        // (Narrow registers hold widened values: the loader converts to them only from halves.)
        Elem::U8 | Elem::U16 => {
            per_lane(|l| x[l] as u32 & warpsim_kernel::narrow::mask(to.bytes()))
        }
        Elem::I8 | Elem::I16 => per_lane(|l| {
            warpsim_kernel::narrow::widen(
                to,
                (x[l] as i32 as u32) & warpsim_kernel::narrow::mask(to.bytes()),
            )
        }),
        Elem::F16 | Elem::BF16 => {
            let h = to.half().unwrap_or(warpsim_kernel::fp16::Half::F16);
            per_lane(|l| h.from_f64(x[l]) as u32)
        }
    };
    put(&mut r[dst.0 as usize], out, mask);
}
