//! The compiled form of a reference (a tree with every name resolved to a slot or a buffer)
//! and its lowering to closures, with loop-invariant parts of `sum` terms hoisted.

use super::*;

/// Static type of a reference value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RefTy {
    I32,
    U32,
    /// A float, held as `f64`.
    F,
}

impl RefTy {
    pub(super) fn name(self) -> &'static str {
        match self {
            RefTy::I32 => "i32",
            RefTy::U32 => "u32",
            RefTy::F => "a float",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) enum IOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    Eq,
    Ne,
    LtS,
    LtU,
    LeS,
    LeU,
    MinS,
    MinU,
    MaxS,
    MaxU,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
}

#[derive(Clone, Copy, Debug)]
pub(super) enum Un {
    INeg,
    /// Logical not of an integer.
    INot,
    IBitNot,
    IAbs,
    FNeg,
    FAbs,
    FSqrt,
    /// `e^x`.
    FExp,
    /// Round to f32 precision.
    FRound32,
    /// Rounding to `f16` precision (nearest even).
    FRound16,
    /// Rounding to `bf16` precision (nearest even).
    FRoundBf16,
    /// Signed integer → float.
    S2F,
    /// Unsigned integer → float.
    U2F,
    /// Float → i32 (C cast, saturating, NaN → 0).
    F2S,
    /// Float → u32.
    F2U,
    /// Float → 0/1 (`x != 0`).
    FTruth,
    /// Integer → 0/1.
    ITruth,
}

/// A compiled reference node. Every value is a `u64`: integers are the 32-bit value
/// zero-extended, floats are `f64` bits.
#[derive(Clone, Debug)]
pub(super) enum E {
    Const(u64),
    Slot(u16),
    Load {
        buf: u16,
        signed: bool,
        idx: Box<E>,
        span: (usize, usize),
    },
    I2(IOp, Box<E>, Box<E>, (usize, usize)),
    F2(FOp, Box<E>, Box<E>),
    U(Un, Box<E>),
    Fma(Box<E>, Box<E>, Box<E>),
    /// `c ? a : b`, lazily (c is an integer).
    Sel(Box<E>, Box<E>, Box<E>),
    /// Lazy `&&` of two 0/1 values.
    LAnd(Box<E>, Box<E>),
    /// Lazy `||` of two 0/1 values.
    LOr(Box<E>, Box<E>),
    Sum(Box<Sum>),
}

#[derive(Clone, Debug)]
pub(super) struct Sum {
    pub(super) var: u16,
    pub(super) from: E,
    pub(super) to: E,
    /// Bounds compare as unsigned.
    pub(super) unsigned: bool,
    /// The term is a float.
    pub(super) float: bool,
    /// Loop-invariant parts of the term, computed once before the first term.
    pub(super) hoisted: Vec<(u16, E)>,
    pub(super) body: E,
    /// The `sum(…)` in the expression, for messages.
    pub(super) span: (usize, usize),
}

/// An element type as read by the reference.
#[derive(Clone, Copy, Debug)]
pub(super) struct Src<'a> {
    pub(super) words: &'a [u32],
    pub(super) elem: Elem,
    pub(super) len: u64,
}

/// Why evaluation stopped.
#[derive(Clone, Debug)]
pub(super) enum EvalFault {
    Oob {
        buf: u16,
        index: i64,
        span: (usize, usize),
    },
    DivZero {
        span: (usize, usize),
    },
    /// The sums of one element would add more terms than allowed.
    Terms {
        span: (usize, usize),
    },
}

/// Evaluation state of one worker: the slots (`i`, sum variables, hoisted values) and the
/// first fault.
pub(super) struct St {
    pub(super) slots: Vec<u64>,
    pub(super) fault: Option<EvalFault>,
    /// Sum terms the current element may still add (see [`check_limited`]).
    pub(super) budget: u64,
}

impl St {
    #[cold]
    pub(super) fn fail(&mut self, f: EvalFault) {
        if self.fault.is_none() {
            self.fault = Some(f);
        }
    }
}

#[inline]
pub(super) fn f(v: u64) -> f64 {
    f64::from_bits(v)
}
#[inline]
pub(super) fn fb(v: f64) -> u64 {
    v.to_bits()
}

#[cfg(test)]
thread_local! {
    /// Tests: lower without the fast paths of [`fast`], as the oracle they are compared with.
    pub(super) static PLAIN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether lowering uses the fast paths of [`fast`] (always, outside tests).
#[inline]
pub(super) fn fast_on() -> bool {
    #[cfg(test)]
    return !PLAIN.with(|p| p.get());
    #[cfg(not(test))]
    true
}

/// A reference node lowered to a closure. Closures rather than a `match` over nodes: each
/// call site then has one target, which the branch predictor learns (about 3× faster on
/// `sum` terms than an interpreter loop).
pub(super) type Fx<'a> = Box<dyn Fn(&mut St) -> u64 + Send + Sync + 'a>;

/// A binary operation, specialised for constant and slot operands.
pub(super) fn bin<'a, O>(a: &E, b: &E, srcs: &[Src<'a>], op: O) -> Fx<'a>
where
    O: Fn(&mut St, u64, u64) -> u64 + Send + Sync + Copy + 'a,
{
    match (a, b) {
        (E::Slot(x), E::Const(c)) => {
            let (x, c) = (*x as usize, *c);
            Box::new(move |s| op(s, s.slots[x], c))
        }
        (E::Slot(x), E::Slot(y)) => {
            let (x, y) = (*x as usize, *y as usize);
            Box::new(move |s| op(s, s.slots[x], s.slots[y]))
        }
        (_, E::Const(c)) => {
            let (fa, c) = (lower(a, srcs), *c);
            Box::new(move |s| {
                let x = fa(s);
                op(s, x, c)
            })
        }
        (_, E::Slot(y)) => {
            let (fa, y) = (lower(a, srcs), *y as usize);
            Box::new(move |s| {
                let x = fa(s);
                op(s, x, s.slots[y])
            })
        }
        (E::Slot(x), _) => {
            let (x, fb_) = (*x as usize, lower(b, srcs));
            Box::new(move |s| {
                let y = fb_(s);
                op(s, s.slots[x], y)
            })
        }
        (E::Const(c), _) => {
            let (c, fb_) = (*c, lower(b, srcs));
            Box::new(move |s| {
                let y = fb_(s);
                op(s, c, y)
            })
        }
        _ => {
            let (fa, fb_) = (lower(a, srcs), lower(b, srcs));
            Box::new(move |s| {
                let x = fa(s);
                let y = fb_(s);
                op(s, x, y)
            })
        }
    }
}

pub(super) fn un<'a, O>(a: &E, srcs: &[Src<'a>], op: O) -> Fx<'a>
where
    O: Fn(u64) -> u64 + Send + Sync + Copy + 'a,
{
    match a {
        E::Slot(x) => {
            let x = *x as usize;
            Box::new(move |s| op(s.slots[x]))
        }
        _ => {
            let fa = lower(a, srcs);
            Box::new(move |s| op(fa(s)))
        }
    }
}

pub(super) fn load<'a>(
    words: &'a [u32],
    len: u64,
    elem: Elem,
    signed: bool,
    idx: Fx<'a>,
    fault: EvalFault,
) -> Fx<'a> {
    // The index as a u64 that is out of range when negative (signed) or past the end.
    macro_rules! ld {
        (|$w:ident, $k:ident| $get:expr) => {
            Box::new(move |s: &mut St| {
                let raw = idx(s) as u32;
                let $k = if signed {
                    raw as i32 as i64 as u64
                } else {
                    raw as u64
                };
                if $k >= len {
                    let mut f = fault.clone();
                    if let EvalFault::Oob { index, .. } = &mut f {
                        *index = if signed {
                            raw as i32 as i64
                        } else {
                            raw as i64
                        };
                    }
                    s.fail(f);
                    return 0;
                }
                let $k = $k as usize;
                let $w = words;
                $get
            })
        };
    }
    match elem {
        Elem::F32 => ld!(|w, k| fb(f32::from_bits(w[k]) as f64)),
        Elem::F64 => ld!(|w, k| w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32),
        Elem::U32 | Elem::I32 => ld!(|w, k| w[k] as u64),
        Elem::U8 | Elem::U16 | Elem::I8 | Elem::I16 => {
            ld!(|w, k| warpsim_kernel::narrow::element(elem, w, k as u64).unwrap_or(0) as u64)
        }
        Elem::F16 | Elem::BF16 => {
            let h = elem.half().unwrap_or(warpsim_kernel::fp16::Half::F16);
            ld!(|w, k| fb(
                h.to_f64(warpsim_kernel::narrow::element(elem, w, k as u64).unwrap_or(0) as u16)
            ))
        }
    }
}

/// Lowers a node to a closure reading the buffers in `srcs`.
pub(super) fn lower<'a>(e: &E, srcs: &[Src<'a>]) -> Fx<'a> {
    match e {
        E::Const(v) => {
            let v = *v;
            Box::new(move |_| v)
        }
        E::Slot(x) => {
            let x = *x as usize;
            Box::new(move |s| s.slots[x])
        }
        E::Load {
            buf,
            signed,
            idx,
            span,
        } => {
            let src = srcs[*buf as usize];
            let fault = EvalFault::Oob {
                buf: *buf,
                index: 0,
                span: *span,
            };
            load(
                src.words,
                src.len,
                src.elem,
                *signed,
                lower(idx, srcs),
                fault,
            )
        }
        E::I2(op, a, b, span) => {
            if let (IOp::DivS | IOp::DivU | IOp::RemS | IOp::RemU, E::Const(c)) = (op, &**b) {
                if let Some(fx) = fast_on()
                    .then(|| fast::div_pow2(*op, a, *c, srcs))
                    .flatten()
                {
                    return fx;
                }
            }
            let span = *span;
            let u = |v: u64| v as u32;
            let i = |v: u64| v as u32 as i32;
            let r = |v: u32| v as u64;
            macro_rules! div {
                (|$x:ident, $y:ident| $body:expr) => {
                    bin(a, b, srcs, move |s, x, y| {
                        if y as u32 == 0 {
                            s.fail(EvalFault::DivZero { span });
                            return 0;
                        }
                        let ($x, $y) = (x, y);
                        $body
                    })
                };
            }
            match op {
                IOp::Add => bin(a, b, srcs, move |_, x, y| r(u(x).wrapping_add(u(y)))),
                IOp::Sub => bin(a, b, srcs, move |_, x, y| r(u(x).wrapping_sub(u(y)))),
                IOp::Mul => bin(a, b, srcs, move |_, x, y| r(u(x).wrapping_mul(u(y)))),
                IOp::DivS => div!(|x, y| r(i(x).wrapping_div(i(y)) as u32)),
                IOp::DivU => div!(|x, y| r(u(x) / u(y))),
                IOp::RemS => div!(|x, y| r(i(x).wrapping_rem(i(y)) as u32)),
                IOp::RemU => div!(|x, y| r(u(x) % u(y))),
                IOp::And => bin(a, b, srcs, move |_, x, y| x & y),
                IOp::Or => bin(a, b, srcs, move |_, x, y| x | y),
                IOp::Xor => bin(a, b, srcs, move |_, x, y| x ^ y),
                IOp::Shl => bin(a, b, srcs, move |_, x, y| {
                    r(u(x).checked_shl(u(y)).unwrap_or(0))
                }),
                IOp::ShrS => bin(a, b, srcs, move |_, x, y| {
                    r(i(x).checked_shr(u(y)).unwrap_or(i(x) >> 31) as u32)
                }),
                IOp::ShrU => bin(a, b, srcs, move |_, x, y| {
                    r(u(x).checked_shr(u(y)).unwrap_or(0))
                }),
                IOp::Eq => bin(a, b, srcs, move |_, x, y| (u(x) == u(y)) as u64),
                IOp::Ne => bin(a, b, srcs, move |_, x, y| (u(x) != u(y)) as u64),
                IOp::LtS => bin(a, b, srcs, move |_, x, y| (i(x) < i(y)) as u64),
                IOp::LtU => bin(a, b, srcs, move |_, x, y| (u(x) < u(y)) as u64),
                IOp::LeS => bin(a, b, srcs, move |_, x, y| (i(x) <= i(y)) as u64),
                IOp::LeU => bin(a, b, srcs, move |_, x, y| (u(x) <= u(y)) as u64),
                IOp::MinS => bin(a, b, srcs, move |_, x, y| r(i(x).min(i(y)) as u32)),
                IOp::MinU => bin(a, b, srcs, move |_, x, y| r(u(x).min(u(y)))),
                IOp::MaxS => bin(a, b, srcs, move |_, x, y| r(i(x).max(i(y)) as u32)),
                IOp::MaxU => bin(a, b, srcs, move |_, x, y| r(u(x).max(u(y)))),
            }
        }
        E::F2(op, a, b) => match op {
            FOp::Add => bin(a, b, srcs, |_, x, y| fb(f(x) + f(y))),
            FOp::Sub => bin(a, b, srcs, |_, x, y| fb(f(x) - f(y))),
            FOp::Mul => bin(a, b, srcs, |_, x, y| fb(f(x) * f(y))),
            FOp::Div => bin(a, b, srcs, |_, x, y| fb(f(x) / f(y))),
            FOp::Rem => bin(a, b, srcs, |_, x, y| fb(f(x) % f(y))),
            FOp::Min => bin(a, b, srcs, |_, x, y| fb(f(x).min(f(y)))),
            FOp::Max => bin(a, b, srcs, |_, x, y| fb(f(x).max(f(y)))),
            FOp::Eq => bin(a, b, srcs, |_, x, y| (f(x) == f(y)) as u64),
            FOp::Ne => bin(a, b, srcs, |_, x, y| (f(x) != f(y)) as u64),
            FOp::Lt => bin(a, b, srcs, |_, x, y| (f(x) < f(y)) as u64),
            FOp::Le => bin(a, b, srcs, |_, x, y| (f(x) <= f(y)) as u64),
        },
        E::U(op, a) => match op {
            Un::INeg => un(a, srcs, |v| (v as u32).wrapping_neg() as u64),
            Un::INot => un(a, srcs, |v| (v as u32 == 0) as u64),
            Un::IBitNot => un(a, srcs, |v| !(v as u32) as u64),
            Un::IAbs => un(a, srcs, |v| (v as u32 as i32).wrapping_abs() as u32 as u64),
            Un::FNeg => un(a, srcs, |v| fb(-f(v))),
            Un::FAbs => un(a, srcs, |v| fb(f(v).abs())),
            Un::FSqrt => un(a, srcs, |v| fb(f(v).sqrt())),
            Un::FExp => un(a, srcs, |v| fb(f(v).exp())),
            Un::FRound32 => un(a, srcs, |v| fb(f(v) as f32 as f64)),
            Un::FRound16 => un(a, srcs, |v| {
                let h = warpsim_kernel::fp16::Half::F16;
                fb(h.to_f64(h.from_f64(f(v))))
            }),
            Un::FRoundBf16 => un(a, srcs, |v| {
                let h = warpsim_kernel::fp16::Half::Bf16;
                fb(h.to_f64(h.from_f64(f(v))))
            }),
            Un::S2F => un(a, srcs, |v| fb(v as u32 as i32 as f64)),
            Un::U2F => un(a, srcs, |v| fb(v as u32 as f64)),
            Un::F2S => un(a, srcs, |v| f(v) as i32 as u32 as u64),
            Un::F2U => un(a, srcs, |v| f(v) as u32 as u64),
            Un::FTruth => un(a, srcs, |v| (f(v) != 0.0) as u64),
            Un::ITruth => un(a, srcs, |v| (v as u32 != 0) as u64),
        },
        E::Fma(a, b, c) => {
            let (fa, fb_, fc) = (lower(a, srcs), lower(b, srcs), lower(c, srcs));
            Box::new(move |s| {
                let x = f(fa(s));
                let y = f(fb_(s));
                fb(x.mul_add(y, f(fc(s))))
            })
        }
        E::Sel(c, a, b) => {
            let (fc, fa, fb_) = (lower(c, srcs), lower(a, srcs), lower(b, srcs));
            Box::new(move |s| if fc(s) as u32 != 0 { fa(s) } else { fb_(s) })
        }
        E::LAnd(a, b) => {
            let (fa, fb_) = (lower(a, srcs), lower(b, srcs));
            Box::new(move |s| (fa(s) != 0 && fb_(s) != 0) as u64)
        }
        E::LOr(a, b) => {
            let (fa, fb_) = (lower(a, srcs), lower(b, srcs));
            Box::new(move |s| (fa(s) != 0 || fb_(s) != 0) as u64)
        }
        E::Sum(m) => lower_sum(m, srcs),
    }
}

pub(super) fn lower_sum<'a>(m: &Sum, srcs: &[Src<'a>]) -> Fx<'a> {
    let from = lower(&m.from, srcs);
    let to = lower(&m.to, srcs);
    let hoisted: Vec<(usize, Fx<'a>)> = m
        .hoisted
        .iter()
        .map(|(slot, h)| (*slot as usize, lower(h, srcs)))
        .collect();
    let body = lower(&m.body, srcs);
    let shape = fast_on().then(|| fast::shape(m, srcs)).flatten();
    let (var, unsigned, float, span) = (m.var as usize, m.unsigned, m.float, m.span);
    Box::new(move |s| {
        let first = from(s) as u32;
        let end = to(s) as u32;
        // Terms for k = first .. end - 1 (signed or unsigned bounds).
        let n = if unsigned {
            end.saturating_sub(first)
        } else {
            (end as i32 as i64 - first as i32 as i64).max(0) as u32
        };
        if n == 0 || s.fault.is_some() {
            return if float { fb(0.0) } else { 0 };
        }
        // Every term counts against the element's budget, before any is computed.
        match s.budget.checked_sub(n as u64) {
            Some(left) => s.budget = left,
            None => {
                s.fail(EvalFault::Terms { span });
                return 0;
            }
        }
        for (slot, h) in &hoisted {
            let v = h(s);
            s.slots[*slot] = v;
        }
        if let Some(shape) = shape.as_ref().filter(|_| s.fault.is_none()) {
            if let Some(v) = shape.run(s, var, first, n) {
                return v;
            }
        }
        let mut k = first;
        if float {
            let mut acc = 0.0f64;
            for _ in 0..n {
                s.slots[var] = k as u64;
                acc += f(body(s));
                k = k.wrapping_add(1);
                if s.fault.is_some() {
                    break;
                }
            }
            fb(acc)
        } else {
            let mut acc = 0u32;
            for _ in 0..n {
                s.slots[var] = k as u64;
                acc = acc.wrapping_add(body(s) as u32);
                k = k.wrapping_add(1);
                if s.fault.is_some() {
                    break;
                }
            }
            acc as u64
        }
    })
}

/// Whether `e` reads slot `s` (looking inside sums and their hoisted parts).
pub(super) fn uses(e: &E, s: u16) -> bool {
    match e {
        E::Const(_) => false,
        E::Slot(t) => *t == s,
        E::Load { idx, .. } => uses(idx, s),
        E::I2(_, a, b, _) | E::F2(_, a, b) | E::LAnd(a, b) | E::LOr(a, b) => {
            uses(a, s) || uses(b, s)
        }
        E::U(_, a) => uses(a, s),
        E::Fma(a, b, c) | E::Sel(a, b, c) => uses(a, s) || uses(b, s) || uses(c, s),
        E::Sum(m) => {
            uses(&m.from, s)
                || uses(&m.to, s)
                || uses(&m.body, s)
                || m.hoisted.iter().any(|(_, h)| uses(h, s))
        }
    }
}

/// Moves the largest parts of `e` that do not read slot `var` into new slots, evaluated
/// before the loop. Only parts that every term evaluates are moved (not the lazy sides of
/// `?:`, `&&`, `||`, nor the terms of an inner sum), so hoisting never evaluates anything the
/// plain loop would not.
pub(super) fn hoist(e: &mut E, var: u16, out: &mut Vec<(u16, E)>, next: &mut u16) {
    if matches!(e, E::Const(_) | E::Slot(_)) {
        return;
    }
    if !uses(e, var) {
        let slot = *next;
        *next += 1;
        let taken = std::mem::replace(e, E::Slot(slot));
        out.push((slot, taken));
        return;
    }
    match e {
        E::Const(_) | E::Slot(_) => {}
        E::Load { idx, .. } => hoist(idx, var, out, next),
        E::I2(_, a, b, _) | E::F2(_, a, b) => {
            hoist(a, var, out, next);
            hoist(b, var, out, next);
        }
        E::U(_, a) => hoist(a, var, out, next),
        E::Fma(a, b, c) => {
            hoist(a, var, out, next);
            hoist(b, var, out, next);
            hoist(c, var, out, next);
        }
        E::Sel(c, _, _) | E::LAnd(c, _) | E::LOr(c, _) => hoist(c, var, out, next),
        E::Sum(m) => {
            hoist(&mut m.from, var, out, next);
            hoist(&mut m.to, var, out, next);
        }
    }
}
