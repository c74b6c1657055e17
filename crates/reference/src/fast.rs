//! Tight loops for the common shapes of `sum` terms, and integer division by a constant power
//! of two as shifts: the same values, bit for bit, as the closures of [`eval`](super::eval).
//!
//! A `sum` whose term (after hoisting) is one of
//!
//! * `a[…] * b[…]` (a float dot product: `f32`, `f64`, `f16` or `bf16` elements),
//! * `a[…]` (float elements in a float sum, `i32`/`u32` in an integer one),
//! * `a[…] == x ? p : q` in an integer sum (`i32`/`u32` elements, `x` not depending on the
//!   sum variable, `p`, `q` constants: a histogram's count),
//!
//! where each index is *affine* in the sum variable (`+`, `-`, `*` by something that does not
//! depend on it, unary `-`, over constants and slots) runs as a loop over the words with the
//! indices stepped by their strides, no closure per term. Before that loop the indices of the
//! first and the last term are computed (an affine index's value at term `j` is its value at
//! the first term plus `j` times its stride, modulo 2³²); if either lies outside its buffer
//! (or the buffer has 2³¹ elements or more), the sum runs the general loop instead, which
//! reports the fault exactly as before. The terms are added in the same order, with the same
//! operations (`f64` products and sums, wrapping `u32` sums), so the result is identical.

use super::*;

/// A buffer load whose index is affine in the sum variable.
pub(super) struct Affine<'a> {
    words: &'a [u32],
    elem: Elem,
    len: u64,
    signed: bool,
    idx: Fx<'a>,
}

/// A recognised term.
pub(super) enum Shape<'a> {
    /// Float `a[…] * b[…]`.
    Dot(Affine<'a>, Affine<'a>),
    /// A float load in a float sum.
    FloatLoad(Affine<'a>),
    /// A 32-bit integer load in an integer sum.
    IntLoad(Affine<'a>),
    /// `a[…] == x ? p : q` in an integer sum (`x`'s closure; `p`, `q`).
    Count(Affine<'a>, Fx<'a>, u32, u32),
}

/// Whether `e`, as an index, is affine in slot `var` (modulo 2³²) and cannot fault.
pub(super) fn affine(e: &E, var: u16) -> bool {
    match e {
        E::Const(_) | E::Slot(_) => true,
        E::I2(IOp::Add | IOp::Sub, a, b, _) => affine(a, var) && affine(b, var),
        E::I2(IOp::Mul, a, b, _) => {
            affine(a, var) && affine(b, var) && !(uses(a, var) && uses(b, var))
        }
        E::U(Un::INeg, a) => affine(a, var),
        _ => false,
    }
}

fn affine_load<'a>(e: &E, var: u16, srcs: &[Src<'a>], float: bool) -> Option<Affine<'a>> {
    let E::Load {
        buf, signed, idx, ..
    } = e
    else {
        return None;
    };
    let src = srcs.get(*buf as usize)?;
    let ok = match src.elem {
        Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16 => float,
        Elem::I32 | Elem::U32 => !float,
        _ => false,
    };
    (ok && affine(idx, var) && uses(idx, var)).then(|| Affine {
        words: src.words,
        elem: src.elem,
        len: src.len,
        signed: *signed,
        idx: lower(idx, srcs),
    })
}

/// The term of a sum as one of the shapes, if it is one.
pub(super) fn shape<'a>(m: &Sum, srcs: &[Src<'a>]) -> Option<Shape<'a>> {
    let var = m.var;
    let invariant = |e: &E| matches!(e, E::Const(_) | E::Slot(_)) && !uses(e, var);
    match &m.body {
        E::F2(FOp::Mul, a, b) if m.float => Some(Shape::Dot(
            affine_load(a, var, srcs, true)?,
            affine_load(b, var, srcs, true)?,
        )),
        E::Load { .. } if m.float => Some(Shape::FloatLoad(affine_load(&m.body, var, srcs, true)?)),
        E::Load { .. } => Some(Shape::IntLoad(affine_load(&m.body, var, srcs, false)?)),
        E::Sel(c, p, q) if !m.float => {
            let (E::Const(p), E::Const(q)) = (&**p, &**q) else {
                return None;
            };
            let c: &E = match &**c {
                E::U(Un::ITruth, c) => c,
                c => c,
            };
            let E::I2(IOp::Eq, x, y, _) = c else {
                return None;
            };
            let (ld, x): (&E, &E) = if invariant(y) { (x, y) } else { (y, x) };
            if !invariant(x) {
                return None;
            }
            Some(Shape::Count(
                affine_load(ld, var, srcs, false)?,
                lower(x, srcs),
                *p as u32,
                *q as u32,
            ))
        }
        _ => None,
    }
}

impl Affine<'_> {
    /// The word offset of the first term's element and the stride (in elements), if every
    /// one of the `n` terms' indices (`n` ≥ 1) lies in the buffer.
    pub(super) fn range(
        &self,
        s: &mut St,
        var: usize,
        first: u32,
        n: u32,
    ) -> Option<(isize, isize)> {
        if self.len >= 1 << 31 {
            return None;
        }
        s.slots[var] = first as u64;
        let v0 = (self.idx)(s) as u32;
        s.slots[var] = first.wrapping_add(1) as u64;
        let v1 = (self.idx)(s) as u32;
        let stride = v1.wrapping_sub(v0) as i32 as i128;
        let w0 = if self.signed {
            v0 as i32 as i128
        } else {
            v0 as i128
        };
        let last = w0 + stride * (n as i128 - 1);
        let len = self.len as i128;
        ((0..len).contains(&w0) && (0..len).contains(&last))
            .then_some((w0 as isize, stride as isize))
    }
}

/// A float element getter.
trait Get {
    fn get(w: &[u32], k: isize) -> f64;
}
struct F32;
struct F64;
impl Get for F32 {
    #[inline(always)]
    fn get(w: &[u32], k: isize) -> f64 {
        f32::from_bits(w[k as usize]) as f64
    }
}
impl Get for F64 {
    #[inline(always)]
    fn get(w: &[u32], k: isize) -> f64 {
        let k = 2 * k as usize;
        f64::from_bits(w[k] as u64 | (w[k + 1] as u64) << 32)
    }
}
/// 16-bit floats, two a word (element `k` in the low half of word `k / 2` when `k` is even),
/// converted as [`eval`](super::eval)'s loads convert them.
struct F16;
struct Bf16;
#[inline(always)]
fn half_bits(w: &[u32], k: isize) -> u16 {
    (w[k as usize / 2] >> (16 * (k as usize % 2))) as u16
}
impl Get for F16 {
    #[inline(always)]
    fn get(w: &[u32], k: isize) -> f64 {
        warpsim_kernel::fp16::Half::F16.to_f64(half_bits(w, k))
    }
}
impl Get for Bf16 {
    #[inline(always)]
    fn get(w: &[u32], k: isize) -> f64 {
        warpsim_kernel::fp16::Half::Bf16.to_f64(half_bits(w, k))
    }
}

fn dot<A: Get, B: Get>(
    a: &[u32],
    (mut x, sx): (isize, isize),
    b: &[u32],
    (mut y, sy): (isize, isize),
    n: u32,
) -> f64 {
    let mut acc = 0f64;
    for _ in 0..n {
        acc += A::get(a, x) * B::get(b, y);
        x += sx;
        y += sy;
    }
    acc
}

fn fsum<A: Get>(a: &[u32], (mut x, sx): (isize, isize), n: u32) -> f64 {
    let mut acc = 0f64;
    for _ in 0..n {
        acc += A::get(a, x);
        x += sx;
    }
    acc
}

/// `dot::<A, B>` for the element types of `a` and `b`.
fn dot_of(a: &Affine, ra: (isize, isize), b: &Affine, rb: (isize, isize), n: u32) -> f64 {
    fn with<A: Get>(b: &Affine, wa: &[u32], ra: (isize, isize), rb: (isize, isize), n: u32) -> f64 {
        let wb = b.words;
        match b.elem {
            Elem::F64 => dot::<A, F64>(wa, ra, wb, rb, n),
            Elem::F16 => dot::<A, F16>(wa, ra, wb, rb, n),
            Elem::BF16 => dot::<A, Bf16>(wa, ra, wb, rb, n),
            _ => dot::<A, F32>(wa, ra, wb, rb, n),
        }
    }
    match a.elem {
        Elem::F64 => with::<F64>(b, a.words, ra, rb, n),
        Elem::F16 => with::<F16>(b, a.words, ra, rb, n),
        Elem::BF16 => with::<Bf16>(b, a.words, ra, rb, n),
        _ => with::<F32>(b, a.words, ra, rb, n),
    }
}

/// [`dot`] for several sums of `n` terms at once (sum `e` from `ra[e]` in `a` and `rb[e]` in
/// `b`, into `out[e]`), the sums advancing side by side: neighbouring elements' loads (a
/// matmul row's columns of B) share cache lines. Each sum adds its terms in the order [`dot`]
/// does, so each value is [`dot`]'s.
fn dots<A: Get, B: Get>(
    a: &[u32],
    b: &[u32],
    ra: &[(isize, isize)],
    rb: &[(isize, isize)],
    n: u32,
    out: &mut [f64],
) {
    out.fill(0.0);
    let m = out.len();
    if m == 0 {
        return;
    }
    let same_stride = |r: &[(isize, isize)]| r.iter().all(|p| p.1 == r[0].1);
    let invariant = |r: &[(isize, isize)]| r.iter().all(|p| p.0 == r[0].0);
    let contiguous =
        |r: &[(isize, isize)]| (r.iter().enumerate()).all(|(e, p)| p.0 == r[0].0 + e as isize);
    if !(same_stride(ra) && same_stride(rb)) {
        let (mut x, mut y): (Vec<isize>, Vec<isize>) = (
            ra.iter().map(|p| p.0).collect(),
            rb.iter().map(|p| p.0).collect(),
        );
        for _ in 0..n {
            for e in 0..m {
                out[e] += A::get(a, x[e]) * B::get(b, y[e]);
                x[e] += ra[e].1;
                y[e] += rb[e].1;
            }
        }
        return;
    }
    let (sa, sb) = (ra[0].1, rb[0].1);
    let (row_a, row_b) = (
        invariant(ra) && contiguous(rb),
        invariant(rb) && contiguous(ra),
    );
    for j in 0..n as isize {
        let (oa, ob) = (ra[0].0 + j * sa, rb[0].0 + j * sb);
        if row_a {
            // A matmul's row times B's columns: one A element, a run of B's row.
            let x = A::get(a, oa);
            for (e, o) in out.iter_mut().enumerate() {
                *o += x * B::get(b, ob + e as isize);
            }
        } else if row_b {
            let y = B::get(b, ob);
            for (e, o) in out.iter_mut().enumerate() {
                *o += A::get(a, oa + e as isize) * y;
            }
        } else {
            for (e, o) in out.iter_mut().enumerate() {
                *o += A::get(a, ra[e].0 - ra[0].0 + oa) * B::get(b, rb[e].0 - rb[0].0 + ob);
            }
        }
    }
}

/// [`dots`] for the element types of `a` and `b`.
pub(super) fn dots_of(
    a: &Affine,
    ra: &[(isize, isize)],
    b: &Affine,
    rb: &[(isize, isize)],
    n: u32,
    out: &mut [f64],
) {
    fn with<A: Get>(
        b: &Affine,
        wa: &[u32],
        ra: &[(isize, isize)],
        rb: &[(isize, isize)],
        n: u32,
        out: &mut [f64],
    ) {
        let wb = b.words;
        match b.elem {
            Elem::F64 => dots::<A, F64>(wa, wb, ra, rb, n, out),
            Elem::F16 => dots::<A, F16>(wa, wb, ra, rb, n, out),
            Elem::BF16 => dots::<A, Bf16>(wa, wb, ra, rb, n, out),
            _ => dots::<A, F32>(wa, wb, ra, rb, n, out),
        }
    }
    match a.elem {
        Elem::F64 => with::<F64>(b, a.words, ra, rb, n, out),
        Elem::F16 => with::<F16>(b, a.words, ra, rb, n, out),
        Elem::BF16 => with::<Bf16>(b, a.words, ra, rb, n, out),
        _ => with::<F32>(b, a.words, ra, rb, n, out),
    }
}

impl Shape<'_> {
    /// The sum of `n` ≥ 1 terms from `first` (hoisted slots set, no fault pending), or `None`
    /// if an index may leave its buffer (the general loop then runs). Leaves the sum variable
    /// at the last term, as the general loop does.
    pub(super) fn run(&self, s: &mut St, var: usize, first: u32, n: u32) -> Option<u64> {
        let v = match self {
            Shape::Dot(a, b) => {
                let (ra, rb) = (a.range(s, var, first, n)?, b.range(s, var, first, n)?);
                fb(dot_of(a, ra, b, rb, n))
            }
            Shape::FloatLoad(a) => {
                let r = a.range(s, var, first, n)?;
                fb(match a.elem {
                    Elem::F64 => fsum::<F64>(a.words, r, n),
                    Elem::F16 => fsum::<F16>(a.words, r, n),
                    Elem::BF16 => fsum::<Bf16>(a.words, r, n),
                    _ => fsum::<F32>(a.words, r, n),
                })
            }
            Shape::IntLoad(a) => {
                let (mut x, sx) = a.range(s, var, first, n)?;
                let mut acc = 0u32;
                for _ in 0..n {
                    acc = acc.wrapping_add(a.words[x as usize]);
                    x += sx;
                }
                acc as u64
            }
            Shape::Count(a, want, p, q) => {
                let (mut x, sx) = a.range(s, var, first, n)?;
                let want = want(s) as u32;
                let mut acc = 0u32;
                for _ in 0..n {
                    acc = acc.wrapping_add(if a.words[x as usize] == want { *p } else { *q });
                    x += sx;
                }
                acc as u64
            }
        };
        s.slots[var] = first.wrapping_add(n - 1) as u64;
        Some(v)
    }
}

// ---- integer division by a constant power of two --------------------------------------------

/// `x / 2^sh` for a signed `x`, rounding towards zero like `i32::wrapping_div`.
#[inline(always)]
pub(super) fn div_pow2_s(x: i32, sh: u32) -> i32 {
    if sh == 0 {
        return x;
    }
    let bias = ((x >> 31) as u32 >> (32 - sh)) as i32;
    x.wrapping_add(bias) >> sh
}

/// `x % 2^sh` for a signed `x` (the sign of `x`), like `i32::wrapping_rem`.
#[inline(always)]
pub(super) fn rem_pow2_s(x: i32, sh: u32) -> i32 {
    x.wrapping_sub(div_pow2_s(x, sh).wrapping_shl(sh))
}

/// The shift of a positive power-of-two divisor (as `i32` for a signed division, as `u32`
/// otherwise), if `c` is one.
pub(super) fn pow2_shift(c: u64, signed: bool) -> Option<u32> {
    let c = c as u32;
    let positive = !signed || (c as i32) > 0;
    (positive && c.is_power_of_two()).then(|| c.trailing_zeros())
}

/// An integer division or remainder whose divisor is a constant power of two, as shifts.
pub(super) fn div_pow2<'a>(op: IOp, a: &E, c: u64, srcs: &[Src<'a>]) -> Option<Fx<'a>> {
    let signed = matches!(op, IOp::DivS | IOp::RemS);
    let sh = pow2_shift(c, signed)?;
    let mask = (c as u32).wrapping_sub(1);
    Some(match op {
        IOp::DivS => un(a, srcs, move |v| {
            div_pow2_s(v as u32 as i32, sh) as u32 as u64
        }),
        IOp::RemS => un(a, srcs, move |v| {
            rem_pow2_s(v as u32 as i32, sh) as u32 as u64
        }),
        IOp::DivU => un(a, srcs, move |v| (v as u32 >> sh) as u64),
        IOp::RemU => un(a, srcs, move |v| (v as u32 & mask) as u64),
        _ => return None,
    })
}
