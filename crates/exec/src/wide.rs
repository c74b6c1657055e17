//! Handlers of the PTX front end's 64-bit integer instructions (on register pairs): `add`,
//! `sub`, `mul`, shifts, `mul.wide` and extensions ([`arith64`], [`shift64`], [`mul_wide`],
//! [`extend`]), bitwise logic, min/max, division and remainder, the high half of a product,
//! comparisons, and conversions to and from floats.

use super::block::Ctx;
use super::fault::{self, Fault};
use super::lanes::{get64, get_u64, nonzero, per_lane, put, put64, put_u64};
use super::warp::At;
use super::Lanes;
use warpsim_kernel::ir::{Cmp64, Op64, Reg};
use warpsim_kernel::{BitOp, Elem};
use warpsim_smem::WARP;

/// `Int64`: `dst = a op b` on 64-bit lanes; a division or remainder by zero in an active lane
/// is a fault (as for 32 bits).
pub(super) fn int64(
    cx: &Ctx,
    at: &At,
    r: &mut [Lanes],
    op: Op64,
    (dst, a, b): (Reg, Reg, Reg),
) -> Result<(), Fault> {
    let (xs, ys) = (get_u64(r, a), get_u64(r, b));
    if op.divides() {
        let zero = per_lane(|l| (ys[l] == 0) as u32);
        let lanes = nonzero(&zero) & at.active;
        if lanes != 0 {
            let remainder = matches!(op, Op64::RemS | Op64::RemU);
            return Err(fault::division_by_zero(
                cx,
                at.pc,
                at.w,
                lanes.trailing_zeros(),
                remainder,
            ));
        }
    }
    let s = |v: u64| v as i64;
    let f = |x: u64, y: u64| -> u64 {
        match op {
            Op64::And => x & y,
            Op64::Or => x | y,
            Op64::Xor => x ^ y,
            Op64::MinS => s(x).min(s(y)) as u64,
            Op64::MinU => x.min(y),
            Op64::MaxS => s(x).max(s(y)) as u64,
            Op64::MaxU => x.max(y),
            Op64::DivS => s(x).checked_div(s(y)).unwrap_or(s(x)) as u64,
            Op64::DivU => x.checked_div(y).unwrap_or(0),
            Op64::RemS => s(x).checked_rem(s(y)).unwrap_or(0) as u64,
            Op64::RemU => x.checked_rem(y).unwrap_or(0),
            Op64::MulHiS => ((s(x) as i128 * s(y) as i128) >> 64) as u64,
            Op64::MulHiU => ((x as u128 * y as u128) >> 64) as u64,
        }
    };
    put_u64(r, dst, per_lane(|l| f(xs[l], ys[l])), at.active);
    Ok(())
}

/// `Cmp64`: `dst = a cmp b` (1 or 0).
pub(super) fn cmp64(r: &mut [Lanes], at: &At, cmp: Cmp64, (dst, a, b): (Reg, Reg, Reg)) {
    let (xs, ys) = (get_u64(r, a), get_u64(r, b));
    let s = |v: u64| v as i64;
    let v = per_lane(|l| {
        let (x, y) = (xs[l], ys[l]);
        (match cmp {
            Cmp64::Eq => x == y,
            Cmp64::Ne => x != y,
            Cmp64::LtS => s(x) < s(y),
            Cmp64::LtU => x < y,
            Cmp64::LeS => s(x) <= s(y),
            Cmp64::LeU => x <= y,
        }) as u32
    });
    put(&mut r[dst.0 as usize], v, at.active);
}

/// `Cvt64`: a 64-bit integer to or from an `f32`/`f64` (`as`: float → integer truncates and
/// saturates, NaN → 0; integer → float rounds to nearest even, once).
pub(super) fn cvt64(
    r: &mut [Lanes],
    at: &At,
    (dst, a): (Reg, Reg),
    float: Elem,
    signed: bool,
    to_int: bool,
) {
    let wide = float == Elem::F64;
    if to_int {
        let x: [f64; 32] = match wide {
            true => get64(r, a),
            false => {
                let s = r[a.0 as usize];
                per_lane(|l| f32::from_bits(s[l]) as f64)
            }
        };
        let v = match signed {
            true => per_lane(|l| x[l] as i64 as u64),
            false => per_lane(|l| x[l] as u64),
        };
        put_u64(r, dst, v, at.active);
        return;
    }
    let x = get_u64(r, a);
    match (wide, signed) {
        (true, true) => put64(r, dst, per_lane(|l| x[l] as i64 as f64), at.active),
        (true, false) => put64(r, dst, per_lane(|l| x[l] as f64), at.active),
        (false, true) => put(
            &mut r[dst.0 as usize],
            per_lane(|l| (x[l] as i64 as f32).to_bits()),
            at.active,
        ),
        (false, false) => put(
            &mut r[dst.0 as usize],
            per_lane(|l| (x[l] as f32).to_bits()),
            at.active,
        ),
    }
}

/// `dst = f(a, b)` on 64-bit lanes.
#[inline(always)]
pub(super) fn arith64(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u64, u64) -> u64,
) {
    let (xs, ys) = (get_u64(r, a), get_u64(r, b));
    put_u64(r, dst, per_lane(|l| f(xs[l], ys[l])), at.active);
}

/// 64-bit shifts: `dst = f(a, b)` with `b` a 32-bit amount.
#[inline(always)]
pub(super) fn shift64(
    r: &mut [Lanes],
    at: &At,
    dst: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u64, u32) -> u64,
) {
    let xs = get_u64(r, a);
    let ys = r[b.0 as usize];
    put_u64(r, dst, per_lane(|l| f(xs[l], ys[l])), at.active);
}

/// `mul.wide`: 32 × 32 → 64 bits.
#[inline(always)]
pub(super) fn mul_wide(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, b: Reg, signed: bool) {
    let (xs, ys) = (r[a.0 as usize], r[b.0 as usize]);
    let v = if signed {
        per_lane(|l| (xs[l] as i32 as i64).wrapping_mul(ys[l] as i32 as i64) as u64)
    } else {
        per_lane(|l| xs[l] as u64 * ys[l] as u64)
    };
    put_u64(r, dst, v, at.active);
}

/// Sign or zero extension of a 32-bit value to 64 bits.
#[inline(always)]
pub(super) fn extend(r: &mut [Lanes], at: &At, dst: Reg, a: Reg, signed: bool) {
    let xs = r[a.0 as usize];
    let v = if signed {
        per_lane(|l| xs[l] as i32 as i64 as u64)
    } else {
        per_lane(|l| xs[l] as u64)
    };
    put_u64(r, dst, v, at.active);
}

/// `Bits`: `dst = op(a, b, c, d)` ([`warpsim_kernel::BitOp`]), each operand read at its width
/// (a register pair for 64 bits).
pub(super) fn bits(r: &mut [Lanes], at: &At, op: BitOp, dst: Reg, srcs: [Reg; 4]) {
    let (w, ws) = op.widths();
    let get = |i: usize| -> [u64; WARP] {
        match ws[i] {
            2 => get_u64(r, srcs[i]),
            1 => {
                let x = r[srcs[i].0 as usize];
                per_lane(|l| u64::from(x[l]))
            }
            _ => [0; WARP],
        }
    };
    let (a, b, c, d) = (get(0), get(1), get(2), get(3));
    let v = per_lane(|l| op.eval(a[l], b[l], c[l], d[l]));
    if w == 2 {
        put_u64(r, dst, v, at.active);
    } else {
        put(&mut r[dst.0 as usize], per_lane(|l| v[l] as u32), at.active);
    }
}
