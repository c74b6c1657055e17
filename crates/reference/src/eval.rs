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

/// `match $op { … }` with one arm per variant of `$ty` listed in `$list`, each evaluating
/// `$body` with `$O` a constant of that variant: one specialised copy of `$body` per
/// operation (the closures of [`lower`] and the loops of [`columns`](super::columns)).
macro_rules! by_op {
    ($op:expr, $ty:ident, $list:ident, |$O:ident| $body:expr) => {
        $list!(by_op_arms, $op, $ty, $O, $body)
    };
}
macro_rules! by_op_arms {
    ($op:expr, $ty:ident, $O:ident, $body:expr, $($v:ident),*) => {
        match $op {
            $($ty::$v => {
                const $O: $ty = $ty::$v;
                $body
            })*
        }
    };
}
macro_rules! INT_OPS {
    ($m:ident, $($args:tt)*) => {
        $m!($($args)*, Add, Sub, Mul, DivS, DivU, RemS, RemU, And, Or, Xor, Shl, ShrS, ShrU, Eq,
            Ne, LtS, LtU, LeS, LeU, MinS, MinU, MaxS, MaxU)
    };
}
macro_rules! FLOAT_OPS {
    ($m:ident, $($args:tt)*) => {
        $m!($($args)*, Add, Sub, Mul, Div, Rem, Min, Max, Eq, Ne, Lt, Le)
    };
}
macro_rules! UNARY_OPS {
    ($m:ident, $($args:tt)*) => {
        $m!($($args)*, INeg, INot, IBitNot, IAbs, FNeg, FAbs, FSqrt, FExp, FRound32, FRound16,
            FRoundBf16, S2F, U2F, F2S, F2U, FTruth, ITruth)
    };
}
pub(super) use {by_op, by_op_arms, FLOAT_OPS, INT_OPS, UNARY_OPS};

/// The value of integer operation `op` on two 32-bit values (zero-extended); `None` for a
/// division or remainder by zero.
#[inline(always)]
pub(super) fn int_op(op: IOp, x: u64, y: u64) -> Option<u64> {
    let u = |v: u64| v as u32;
    let i = |v: u64| v as u32 as i32;
    let r = |v: u32| v as u64;
    if matches!(op, IOp::DivS | IOp::DivU | IOp::RemS | IOp::RemU) && u(y) == 0 {
        return None;
    }
    Some(match op {
        IOp::Add => r(u(x).wrapping_add(u(y))),
        IOp::Sub => r(u(x).wrapping_sub(u(y))),
        IOp::Mul => r(u(x).wrapping_mul(u(y))),
        IOp::DivS => r(i(x).wrapping_div(i(y)) as u32),
        IOp::DivU => r(u(x) / u(y)),
        IOp::RemS => r(i(x).wrapping_rem(i(y)) as u32),
        IOp::RemU => r(u(x) % u(y)),
        IOp::And => x & y,
        IOp::Or => x | y,
        IOp::Xor => x ^ y,
        IOp::Shl => r(u(x).checked_shl(u(y)).unwrap_or(0)),
        IOp::ShrS => r(i(x).checked_shr(u(y)).unwrap_or(i(x) >> 31) as u32),
        IOp::ShrU => r(u(x).checked_shr(u(y)).unwrap_or(0)),
        IOp::Eq => (u(x) == u(y)) as u64,
        IOp::Ne => (u(x) != u(y)) as u64,
        IOp::LtS => (i(x) < i(y)) as u64,
        IOp::LtU => (u(x) < u(y)) as u64,
        IOp::LeS => (i(x) <= i(y)) as u64,
        IOp::LeU => (u(x) <= u(y)) as u64,
        IOp::MinS => r(i(x).min(i(y)) as u32),
        IOp::MinU => r(u(x).min(u(y))),
        IOp::MaxS => r(i(x).max(i(y)) as u32),
        IOp::MaxU => r(u(x).max(u(y))),
    })
}

/// The value of float operation `op` on two `f64` bit patterns.
#[inline(always)]
pub(super) fn float_op(op: FOp, x: u64, y: u64) -> u64 {
    let (x, y) = (f(x), f(y));
    match op {
        FOp::Add => fb(x + y),
        FOp::Sub => fb(x - y),
        FOp::Mul => fb(x * y),
        FOp::Div => fb(x / y),
        FOp::Rem => fb(x % y),
        FOp::Min => fb(x.min(y)),
        FOp::Max => fb(x.max(y)),
        FOp::Eq => (x == y) as u64,
        FOp::Ne => (x != y) as u64,
        FOp::Lt => (x < y) as u64,
        FOp::Le => (x <= y) as u64,
    }
}

/// The value of unary operation `op`.
#[inline(always)]
pub(super) fn unary(op: Un, v: u64) -> u64 {
    use warpsim_kernel::fp16::Half;
    match op {
        Un::INeg => (v as u32).wrapping_neg() as u64,
        Un::INot => (v as u32 == 0) as u64,
        Un::IBitNot => !(v as u32) as u64,
        Un::IAbs => (v as u32 as i32).wrapping_abs() as u32 as u64,
        Un::FNeg => fb(-f(v)),
        Un::FAbs => fb(f(v).abs()),
        Un::FSqrt => fb(f(v).sqrt()),
        Un::FExp => fb(f(v).exp()),
        Un::FRound32 => fb(f(v) as f32 as f64),
        Un::FRound16 => fb(Half::F16.to_f64(Half::F16.from_f64(f(v)))),
        Un::FRoundBf16 => fb(Half::Bf16.to_f64(Half::Bf16.from_f64(f(v)))),
        Un::S2F => fb(v as u32 as i32 as f64),
        Un::U2F => fb(v as u32 as f64),
        Un::F2S => f(v) as i32 as u32 as u64,
        Un::F2U => f(v) as u32 as u64,
        Un::FTruth => (f(v) != 0.0) as u64,
        Un::ITruth => (v as u32 != 0) as u64,
    }
}

/// Element `k` of buffer words `w` of type `elem` as the reference holds it (floats as `f64`
/// bits, integers zero-extended; a narrow integer element zero-extended from its own bits).
#[inline(always)]
pub(super) fn read(elem: Elem, w: &[u32], k: usize) -> u64 {
    match elem {
        Elem::F32 => fb(f32::from_bits(w[k]) as f64),
        Elem::F64 => w[2 * k] as u64 | (w[2 * k + 1] as u64) << 32,
        Elem::U32 | Elem::I32 => w[k] as u64,
        Elem::U8 | Elem::U16 | Elem::I8 | Elem::I16 => {
            warpsim_kernel::narrow::element(elem, w, k as u64).unwrap_or(0) as u64
        }
        Elem::F16 | Elem::BF16 => {
            let h = elem.half().unwrap_or(warpsim_kernel::fp16::Half::F16);
            fb(h.to_f64(warpsim_kernel::narrow::element(elem, w, k as u64).unwrap_or(0) as u16))
        }
    }
}

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
        Elem::F32 => ld!(|w, k| read(Elem::F32, w, k)),
        Elem::F64 => ld!(|w, k| read(Elem::F64, w, k)),
        Elem::U32 | Elem::I32 => ld!(|w, k| read(Elem::U32, w, k)),
        _ => ld!(|w, k| read(elem, w, k)),
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
            by_op!(*op, IOp, INT_OPS, |O| bin(a, b, srcs, move |s, x, y| {
                int_op(O, x, y).unwrap_or_else(|| {
                    s.fail(EvalFault::DivZero { span });
                    0
                })
            }))
        }
        E::F2(op, a, b) => by_op!(*op, FOp, FLOAT_OPS, |O| bin(
            a,
            b,
            srcs,
            |_, x, y| float_op(O, x, y)
        )),
        E::U(op, a) => by_op!(*op, Un, UNARY_OPS, |O| un(a, srcs, |v| unary(O, v))),
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

/// A `sum`'s bounds and hoisted parts as closures: what every way of adding its terms does
/// first.
pub(super) struct SumFx<'a> {
    from: Fx<'a>,
    to: Fx<'a>,
    hoisted: Vec<(usize, Fx<'a>)>,
    /// The sum variable's slot.
    pub(super) var: usize,
    unsigned: bool,
    span: (usize, usize),
}

impl<'a> SumFx<'a> {
    pub(super) fn new(m: &Sum, srcs: &[Src<'a>]) -> Self {
        SumFx {
            from: lower(&m.from, srcs),
            to: lower(&m.to, srcs),
            hoisted: m
                .hoisted
                .iter()
                .map(|(slot, h)| (*slot as usize, lower(h, srcs)))
                .collect(),
            var: m.var as usize,
            unsigned: m.unsigned,
            span: m.span,
        }
    }

    /// The first term's `k` and the number of terms (≥ 1), with the terms taken from the
    /// element's budget and the hoisted slots set; `None` when the sum is 0 (no term) or a
    /// fault is pending (one of these may have faulted).
    pub(super) fn start(&self, s: &mut St) -> Option<(u32, u32)> {
        let first = (self.from)(s) as u32;
        let end = (self.to)(s) as u32;
        // Terms for k = first .. end - 1 (signed or unsigned bounds).
        let n = if self.unsigned {
            end.saturating_sub(first)
        } else {
            (end as i32 as i64 - first as i32 as i64).max(0) as u32
        };
        if n == 0 || s.fault.is_some() {
            return None;
        }
        // Every term counts against the element's budget, before any is computed.
        match s.budget.checked_sub(n as u64) {
            Some(left) => s.budget = left,
            None => {
                s.fail(EvalFault::Terms { span: self.span });
                return None;
            }
        }
        for (slot, h) in &self.hoisted {
            let v = h(s);
            s.slots[*slot] = v;
        }
        Some((first, n))
    }
}

pub(super) fn lower_sum<'a>(m: &Sum, srcs: &[Src<'a>]) -> Fx<'a> {
    let parts = SumFx::new(m, srcs);
    let body = lower(&m.body, srcs);
    let shape = fast_on().then(|| fast::shape(m, srcs)).flatten();
    let float = m.float;
    Box::new(move |s| {
        // (An empty sum is 0, as an integer and as a float: `fb(0.0)` is 0.)
        let Some((first, n)) = parts.start(s) else {
            return 0;
        };
        let var = parts.var;
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
