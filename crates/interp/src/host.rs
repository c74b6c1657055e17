//! The host side: initial buffer contents and the CPU reference check.
//!
//! # Initial contents ([`init_words`])
//!
//! * `Zeros`: all zero.
//! * `Iota`: element `i` holds `i` converted to the element type (`i as f32`, `i as f64`,
//!   `i as u32`, `i as i32`, rounding or wrapping like a C cast).
//! * `Random(seed)`: element `i` is drawn from `h = splitmix64(seed + (i + 1) · γ)`, the
//!   `(i + 1)`-th output of the SplitMix64 generator started at `seed` (γ =
//!   `0x9E3779B97F4A7C15`). Each element depends only on `(seed, i)`, so buffers are filled in
//!   parallel and the same seed gives the same contents on every machine. Floats are uniform
//!   in `[-1, 1)`: `f32` = `(h >> 40) · 2⁻²³ − 1` (24 random bits), `f64` =
//!   `(h >> 11) · 2⁻⁵² − 1` (53 bits). Integers (`u32`, `i32`) are `h >> 48`, uniform in
//!   `[0, 65536)`.
//!
//! # The reference ([`check`])
//!
//! A buffer's `expect` is an expression over `i` (the element index), the defines, the
//! buffers' *initial* contents (`buf[index]`) and `sum(k, from, to, term)` (the sum of `term`
//! for `k` = `from` … `to − 1`). It is compiled once into a tree with every name resolved to a
//! slot or a buffer number, then evaluated for every element in parallel (rayon).
//!
//! Its arithmetic:
//!
//! * Integers are 32-bit and wrap, like the kernel's: `i32` unless a `u32` is involved
//!   (a buffer element of type `u32`, a literal with a `u` suffix or above `i32::MAX`,
//!   `u32(…)`); `/ % >> < <= > >= min max` are signed for `i32` and unsigned for `u32`;
//!   shifts by 32 or more give 0 (or the sign bits). `i`, the defines and `sum` variables
//!   are `i32`.
//! * Floats are computed in `f64` (`f32` elements are widened exactly); `f32(x)` rounds to
//!   `f32` precision. An integer meeting a float becomes a float.
//! * Comparisons, `!`, `&&` and `||` give 0 or 1. Unlike in the kernel, `c ? a : b`,
//!   `select`, `&&` and `||` only evaluate the side they need, so `i > 0 ? a[i - 1] : 0` is
//!   a valid reference.
//! * Dividing an integer by zero, or reading a buffer out of bounds, is an error
//!   ([`Phase::Verify`]) pointing at the expression.
//!
//! Comparison with the final contents: integer buffers must match exactly (as 32-bit
//! values; a float reference is converted like a C cast); float buffers must satisfy
//! `|got − want| ≤ tolerance · max(1, max |want| over the buffer)` (NaN matches NaN,
//! infinities must be equal).

// `Diag` is large; errors are rare and leave the hot loop, so it is not boxed here.
#![allow(clippy::result_large_err)]

use crate::ast::{Elem, Init};
use crate::diag::{line_start, Diag, Phase};
use crate::expr::{BinOp, Kind, Node, UnOp};
use crate::ir::{Inst, Space};
use crate::program::{BufferInfo, Expect, Program};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

// ---- initial contents ----------------------------------------------------------------------

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function.
#[inline]
pub fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random draw of element `i` for `Random(seed)`.
#[inline]
pub fn random_bits(seed: u64, i: u64) -> u64 {
    splitmix64(seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// The 32-bit words of element `i` of a buffer of `elem` filled by `init` (the second word
/// is only meaningful for `f64`: low word first).
#[inline]
pub fn init_element(elem: Elem, init: Init, i: u64) -> [u32; 2] {
    let bits64 = |v: f64| {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32]
    };
    match init {
        Init::Zeros => [0, 0],
        Init::Iota => match elem {
            Elem::F32 => [(i as f32).to_bits(), 0],
            Elem::F64 => bits64(i as f64),
            Elem::U32 | Elem::I32 => [i as u32, 0],
        },
        Init::Random(seed) => {
            let h = random_bits(seed, i);
            match elem {
                Elem::F32 => [
                    ((h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0).to_bits(),
                    0,
                ],
                Elem::F64 => bits64((h >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0),
                Elem::U32 | Elem::I32 => [(h >> 48) as u32, 0],
            }
        }
    }
}

/// A buffer's initial contents as 32-bit words (`f64`: two words per element, low first),
/// filled by [`fill_global`] (the allocation is taken over, not copied).
pub fn init_words(b: &BufferInfo) -> Vec<u32> {
    let out: Vec<AtomicU32> = (0..b.words()).map(|_| AtomicU32::new(0)).collect();
    if b.init != Init::Zeros {
        fill_global(b.elem, b.init, &out);
    }
    out.into_iter().map(AtomicU32::into_inner).collect()
}

/// Fills `out` (a whole buffer's words, in global memory) with the initial contents, in
/// parallel and in place.
pub fn fill_global(elem: Elem, init: Init, out: &[AtomicU32]) {
    const CHUNK: usize = 1 << 14;
    let per = (elem.bytes() / 4) as usize;
    out.par_chunks(CHUNK).enumerate().for_each(|(c, ws)| {
        let first = (c * CHUNK / per) as u64;
        for (k, w) in ws.chunks(per).enumerate() {
            let e = init_element(elem, init, first + k as u64);
            for (d, &v) in w.iter().zip(&e) {
                d.store(v, Relaxed);
            }
        }
    });
}

/// Which buffers the program stores to (the others end as they started).
pub fn written_buffers(prog: &Program) -> Vec<bool> {
    let mut out = vec![false; prog.buffers.len()];
    for inst in &prog.code {
        if let Inst::Store(m) = inst {
            if m.space == Space::Global {
                if let Some(w) = out.get_mut(m.array as usize) {
                    *w = true;
                }
            }
        }
    }
    out
}

// ---- verdicts --------------------------------------------------------------------------------

/// A value in a verdict: integers as integers, floats as floats.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// An integer element (`i32` or `u32`).
    Int(i64),
    /// A float element.
    Float(f64),
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(v) => write!(f, "{v}"),
            Num::Float(v) => write!(f, "{v}"),
        }
    }
}

/// The first element that does not match.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// Element index.
    pub index: u64,
    /// What the kernel left there.
    pub got: Num,
    /// What the reference says.
    pub want: Num,
}

/// The result of checking one buffer against its `expect`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The buffer's name.
    pub buffer: String,
    /// Index into [`Program::buffers`].
    #[serde(skip)]
    pub index: usize,
    /// Every element matched.
    pub ok: bool,
    /// Elements compared.
    pub elements: u64,
    /// Elements that did not match.
    pub mismatches: u64,
    /// The lowest-indexed mismatch.
    pub first_mismatch: Option<Mismatch>,
    /// Floats only: the absolute tolerance used (`tolerance · max(1, max |want|)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abs_tolerance: Option<f64>,
    /// Floats only: the largest `|got − want|` seen (NaN-free elements).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_abs_error: Option<f64>,
}

// ---- the compiled reference ------------------------------------------------------------------

/// Static type of a reference value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    I32,
    U32,
    /// A float, held as `f64`.
    F,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F => "a float",
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum IOp {
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
enum FOp {
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
enum Un {
    INeg,
    /// Logical not of an integer.
    INot,
    IBitNot,
    IAbs,
    FNeg,
    FAbs,
    FSqrt,
    /// Round to f32 precision.
    FRound32,
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
enum E {
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
struct Sum {
    var: u16,
    from: E,
    to: E,
    /// Bounds compare as unsigned.
    unsigned: bool,
    /// The term is a float.
    float: bool,
    /// Loop-invariant parts of the term, computed once before the first term.
    hoisted: Vec<(u16, E)>,
    body: E,
    /// The `sum(…)` in the expression, for messages.
    span: (usize, usize),
}

/// An element type as read by the reference.
#[derive(Clone, Copy, Debug)]
struct Src<'a> {
    words: &'a [u32],
    elem: Elem,
    len: u64,
}

/// Why evaluation stopped.
#[derive(Clone, Debug)]
enum Fault {
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
struct St {
    slots: Vec<u64>,
    fault: Option<Fault>,
    /// Sum terms the current element may still add (see [`check_limited`]).
    budget: u64,
}

impl St {
    #[cold]
    fn fail(&mut self, f: Fault) {
        if self.fault.is_none() {
            self.fault = Some(f);
        }
    }
}

#[inline]
fn f(v: u64) -> f64 {
    f64::from_bits(v)
}
#[inline]
fn fb(v: f64) -> u64 {
    v.to_bits()
}

/// A reference node lowered to a closure. Closures rather than a `match` over nodes: each
/// call site then has one target, which the branch predictor learns (about 3× faster on
/// `sum` terms than an interpreter loop).
type Fx<'a> = Box<dyn Fn(&mut St) -> u64 + Send + Sync + 'a>;

/// A binary operation, specialised for constant and slot operands.
fn bin<'a, O>(a: &E, b: &E, srcs: &[Src<'a>], op: O) -> Fx<'a>
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

fn un<'a, O>(a: &E, srcs: &[Src<'a>], op: O) -> Fx<'a>
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

fn load<'a>(
    words: &'a [u32],
    len: u64,
    elem: Elem,
    signed: bool,
    idx: Fx<'a>,
    fault: Fault,
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
                    if let Fault::Oob { index, .. } = &mut f {
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
    }
}

/// Lowers a node to a closure reading the buffers in `srcs`.
fn lower<'a>(e: &E, srcs: &[Src<'a>]) -> Fx<'a> {
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
            let fault = Fault::Oob {
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
            let span = *span;
            let u = |v: u64| v as u32;
            let i = |v: u64| v as u32 as i32;
            let r = |v: u32| v as u64;
            macro_rules! div {
                (|$x:ident, $y:ident| $body:expr) => {
                    bin(a, b, srcs, move |s, x, y| {
                        if y as u32 == 0 {
                            s.fail(Fault::DivZero { span });
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
            Un::FRound32 => un(a, srcs, |v| fb(f(v) as f32 as f64)),
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

fn lower_sum<'a>(m: &Sum, srcs: &[Src<'a>]) -> Fx<'a> {
    let from = lower(&m.from, srcs);
    let to = lower(&m.to, srcs);
    let hoisted: Vec<(usize, Fx<'a>)> = m
        .hoisted
        .iter()
        .map(|(slot, h)| (*slot as usize, lower(h, srcs)))
        .collect();
    let body = lower(&m.body, srcs);
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
                s.fail(Fault::Terms { span });
                return 0;
            }
        }
        for (slot, h) in &hoisted {
            let v = h(s);
            s.slots[*slot] = v;
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
fn uses(e: &E, s: u16) -> bool {
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
fn hoist(e: &mut E, var: u16, out: &mut Vec<(u16, E)>, next: &mut u16) {
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

/// Compiles a reference expression.
struct Compiler<'a> {
    prog: &'a Program,
    expect: &'a Expect,
    /// Byte offset of the expression string in the file, if found.
    base: Option<usize>,
    /// Names in scope: `i`, then sum variables (innermost last), with their slots.
    vars: Vec<(String, u16)>,
    next_slot: u16,
}

type R<T> = Result<T, Diag>;

fn int_const(v: i64) -> Option<(u64, Ty)> {
    if let Ok(x) = i32::try_from(v) {
        Some((x as u32 as u64, Ty::I32))
    } else {
        u32::try_from(v).ok().map(|x| (x as u64, Ty::U32))
    }
}

fn b(e: E) -> Box<E> {
    Box::new(e)
}

impl Compiler<'_> {
    fn err(&self, n: &Node, msg: impl Into<String>, help: Option<String>) -> Diag {
        err_at(
            self.prog,
            self.expect,
            self.base,
            (n.start, n.end),
            msg,
            help,
        )
    }

    /// Converts to a float.
    fn to_f(&self, (e, t): (E, Ty)) -> E {
        match (t, e) {
            (Ty::F, e) => e,
            (Ty::I32, E::Const(v)) => E::Const(fb(v as u32 as i32 as f64)),
            (Ty::U32, E::Const(v)) => E::Const(fb(v as u32 as f64)),
            (Ty::I32, e) => E::U(Un::S2F, b(e)),
            (Ty::U32, e) => E::U(Un::U2F, b(e)),
        }
    }

    /// Converts to 0/1.
    fn truth(&self, (e, t): (E, Ty)) -> E {
        match t {
            Ty::F => E::U(Un::FTruth, b(e)),
            _ => E::U(Un::ITruth, b(e)),
        }
    }

    fn int(&self, n: &Node, (e, t): (E, Ty), what: &str) -> R<(E, Ty)> {
        if t == Ty::F {
            return Err(self.err(
                n,
                format!("{what} must be an integer, and this is {}", t.name()),
                Some("convert it: i32(…)".into()),
            ));
        }
        Ok((e, t))
    }

    fn compile(&mut self, n: &Node) -> R<(E, Ty)> {
        Ok(match &n.kind {
            Kind::Int { value, unsigned } => {
                let c = if *unsigned {
                    u32::try_from(*value).ok().map(|x| (x as u64, Ty::U32))
                } else {
                    int_const(*value)
                };
                let (v, t) =
                    c.ok_or_else(|| self.err(n, "this constant does not fit in 32 bits", None))?;
                (E::Const(v), t)
            }
            Kind::Float(v) => (E::Const(fb(*v)), Ty::F),
            Kind::Name(name) => {
                if let Some((_, s)) = self.vars.iter().rev().find(|(v, _)| v == name) {
                    (E::Slot(*s), Ty::I32)
                } else if let Some((_, v)) = self.prog.defines.iter().find(|(d, _)| d == name) {
                    let (v, t) = int_const(*v).ok_or_else(|| {
                        self.err(
                            n,
                            format!("define `{name}` = {v} does not fit in 32 bits"),
                            Some("give it a smaller value with --define".into()),
                        )
                    })?;
                    (E::Const(v), t)
                } else {
                    return Err(self.err(
                        n,
                        format!("unknown name `{name}` in the reference"),
                        None,
                    ));
                }
            }
            Kind::Index(name, idx) => {
                let Some(buf) = self.prog.buffers.iter().position(|b| &b.name == name) else {
                    return Err(self.err(n, format!("`{name}` is not a buffer"), None));
                };
                let [ix] = idx.as_slice() else {
                    return Err(self.err(
                        n,
                        format!("buffer `{name}` takes one index"),
                        Some(format!("write {name}[index]")),
                    ));
                };
                let i = self.compile(ix)?;
                let (i, it) = self.int(ix, i, "an index")?;
                let t = match self.prog.buffers[buf].elem {
                    Elem::F32 | Elem::F64 => Ty::F,
                    Elem::U32 => Ty::U32,
                    Elem::I32 => Ty::I32,
                };
                (
                    E::Load {
                        buf: buf as u16,
                        signed: it == Ty::I32,
                        idx: b(i),
                        span: (n.start, n.end),
                    },
                    t,
                )
            }
            Kind::Unary(op, a) => {
                let v = self.compile(a)?;
                match (op, v.1) {
                    (UnOp::Neg, Ty::F) => (E::U(Un::FNeg, b(v.0)), Ty::F),
                    (UnOp::Neg, t) => (E::U(Un::INeg, b(v.0)), t),
                    (UnOp::Not, Ty::F) => (E::U(Un::INot, b(self.truth(v))), Ty::I32),
                    (UnOp::Not, _) => (E::U(Un::INot, b(v.0)), Ty::I32),
                    (UnOp::BitNot, Ty::F) => {
                        return Err(self.err(n, "`~` does not apply to a float", None))
                    }
                    (UnOp::BitNot, t) => (E::U(Un::IBitNot, b(v.0)), t),
                }
            }
            Kind::Binary(op, x, y) => {
                let l = self.compile(x)?;
                let r = self.compile(y)?;
                self.binary(*op, l, r, n)?
            }
            Kind::Cond(c, x, y) => {
                let c = self.compile(c)?;
                let c = self.truth(c);
                let l = self.compile(x)?;
                let r = self.compile(y)?;
                let (l, r, t) = self.unify(l, r);
                (E::Sel(b(c), b(l), b(r)), t)
            }
            Kind::Call(fname, args) => self.call(fname, args, n)?,
        })
    }

    fn unify(&self, l: (E, Ty), r: (E, Ty)) -> (E, E, Ty) {
        match (l.1, r.1) {
            (Ty::F, _) | (_, Ty::F) => (self.to_f(l), self.to_f(r), Ty::F),
            (Ty::U32, _) | (_, Ty::U32) => (l.0, r.0, Ty::U32),
            _ => (l.0, r.0, Ty::I32),
        }
    }

    fn binary(&self, op: BinOp, l: (E, Ty), r: (E, Ty), n: &Node) -> R<(E, Ty)> {
        use BinOp::*;
        let span = (n.start, n.end);
        match op {
            LAnd | LOr => {
                let (a, c) = (self.truth(l), self.truth(r));
                return Ok((
                    if op == LAnd {
                        E::LAnd(b(a), b(c))
                    } else {
                        E::LOr(b(a), b(c))
                    },
                    Ty::I32,
                ));
            }
            Shl | Shr => {
                if l.1 == Ty::F || r.1 == Ty::F {
                    return Err(self.err(
                        n,
                        "shifts need integers, and this has a float side",
                        Some("convert it: i32(…) or u32(…)".into()),
                    ));
                }
                let iop = match (op, l.1) {
                    (Shl, _) => IOp::Shl,
                    (_, Ty::I32) => IOp::ShrS,
                    _ => IOp::ShrU,
                };
                return Ok((E::I2(iop, b(l.0), b(r.0), span), l.1));
            }
            _ => {}
        }
        let (a, c, t) = self.unify(l, r);
        let (a, c) = if matches!(op, Gt | Ge) {
            (c, a)
        } else {
            (a, c)
        };
        let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
        let rt = if cmp { Ty::I32 } else { t };
        if t == Ty::F {
            let fop = match op {
                Add => FOp::Add,
                Sub => FOp::Sub,
                Mul => FOp::Mul,
                Div => FOp::Div,
                Rem => FOp::Rem,
                Eq => FOp::Eq,
                Ne => FOp::Ne,
                Lt | Gt => FOp::Lt,
                Le | Ge => FOp::Le,
                _ => {
                    return Err(self.err(
                        n,
                        format!("`{}` does not apply to floats", op.symbol()),
                        Some("convert the operands: i32(…) or u32(…)".into()),
                    ))
                }
            };
            return Ok((E::F2(fop, b(a), b(c)), rt));
        }
        let s = t == Ty::I32;
        let iop = match op {
            Add => IOp::Add,
            Sub => IOp::Sub,
            Mul => IOp::Mul,
            Div if s => IOp::DivS,
            Div => IOp::DivU,
            Rem if s => IOp::RemS,
            Rem => IOp::RemU,
            And => IOp::And,
            Or => IOp::Or,
            Xor => IOp::Xor,
            Eq => IOp::Eq,
            Ne => IOp::Ne,
            Lt | Gt if s => IOp::LtS,
            Lt | Gt => IOp::LtU,
            Le | Ge if s => IOp::LeS,
            Le | Ge => IOp::LeU,
            Shl | Shr | LAnd | LOr => unreachable!("handled above"),
        };
        Ok((E::I2(iop, b(a), b(c), span), rt))
    }

    fn call(&mut self, fname: &str, args: &[Node], n: &Node) -> R<(E, Ty)> {
        if fname == "sum" {
            return self.sum(args, n);
        }
        let arity = match fname {
            "min" | "max" => 2,
            "abs" | "sqrt" | "i32" | "u32" | "f32" | "f64" => 1,
            "fma" | "select" => 3,
            _ => return Err(self.err(n, format!("unknown function `{fname}`"), None)),
        };
        if args.len() != arity {
            return Err(self.err(
                n,
                format!("`{fname}` takes {arity} argument(s), not {}", args.len()),
                None,
            ));
        }
        let mut v = Vec::with_capacity(3);
        for a in args {
            v.push(self.compile(a)?);
        }
        let mut v = v.into_iter();
        let mut next = || v.next().unwrap_or((E::Const(0), Ty::I32));
        Ok(match fname {
            "min" | "max" => {
                let (a, c, t) = self.unify(next(), next());
                let min = fname == "min";
                let e = match t {
                    Ty::F => E::F2(if min { FOp::Min } else { FOp::Max }, b(a), b(c)),
                    Ty::I32 => E::I2(
                        if min { IOp::MinS } else { IOp::MaxS },
                        b(a),
                        b(c),
                        (n.start, n.end),
                    ),
                    Ty::U32 => E::I2(
                        if min { IOp::MinU } else { IOp::MaxU },
                        b(a),
                        b(c),
                        (n.start, n.end),
                    ),
                };
                (e, t)
            }
            "abs" => match next() {
                (e, Ty::F) => (E::U(Un::FAbs, b(e)), Ty::F),
                (e, Ty::I32) => (E::U(Un::IAbs, b(e)), Ty::I32),
                (e, Ty::U32) => (e, Ty::U32),
            },
            "sqrt" => {
                let x = next();
                (E::U(Un::FSqrt, b(self.to_f(x))), Ty::F)
            }
            "fma" => {
                let (x, y, z) = (next(), next(), next());
                (
                    E::Fma(b(self.to_f(x)), b(self.to_f(y)), b(self.to_f(z))),
                    Ty::F,
                )
            }
            "select" => {
                let c = next();
                let c = self.truth(c);
                let (a, e, t) = self.unify(next(), next());
                (E::Sel(b(c), b(a), b(e)), t)
            }
            "i32" | "u32" => {
                let to = if fname == "i32" { Ty::I32 } else { Ty::U32 };
                match next() {
                    (e, Ty::F) => (
                        E::U(if to == Ty::I32 { Un::F2S } else { Un::F2U }, b(e)),
                        to,
                    ),
                    (e, _) => (e, to),
                }
            }
            "f32" => {
                let x = next();
                (E::U(Un::FRound32, b(self.to_f(x))), Ty::F)
            }
            _ => {
                let x = next();
                (self.to_f(x), Ty::F)
            }
        })
    }

    fn sum(&mut self, args: &[Node], n: &Node) -> R<(E, Ty)> {
        let [v, from, to, body] = args else {
            return Err(self.err(n, "sum takes 4 arguments: sum(k, from, to, term)", None));
        };
        let Kind::Name(var) = &v.kind else {
            return Err(self.err(v, "the first argument of sum names its variable", None));
        };
        let f = self.compile(from)?;
        let (f, ft) = self.int(from, f, "the start of a sum")?;
        let t = self.compile(to)?;
        let (t, tt) = self.int(to, t, "the end of a sum")?;
        let unsigned = ft == Ty::U32 || tt == Ty::U32;
        let slot = self.new_slot(n)?;
        self.vars.push((var.clone(), slot));
        let body = self.compile(body);
        self.vars.pop();
        let (mut body, bt) = body?;
        let mut hoisted = Vec::new();
        let mut next = self.next_slot;
        hoist(&mut body, slot, &mut hoisted, &mut next);
        self.next_slot = next;
        Ok((
            E::Sum(Box::new(Sum {
                var: slot,
                from: f,
                to: t,
                unsigned,
                float: bt == Ty::F,
                hoisted,
                body,
                span: (n.start, n.end),
            })),
            bt,
        ))
    }

    fn new_slot(&mut self, n: &Node) -> R<u16> {
        let s = self.next_slot;
        if s >= 4096 {
            return Err(self.err(n, "the reference nests too many sums", None));
        }
        self.next_slot += 1;
        Ok(s)
    }
}

/// An error at part of an expect expression (`span` relative to the expression string).
fn err_at(
    prog: &Program,
    ex: &Expect,
    base: Option<usize>,
    span: (usize, usize),
    msg: impl Into<String>,
    help: Option<String>,
) -> Diag {
    match base {
        Some(b) => Diag::at(
            Phase::Verify,
            &prog.path,
            &prog.source,
            b + span.0,
            (span.1 - span.0).max(1),
            msg,
            help,
        ),
        None => Diag::at_line(
            Phase::Verify,
            &prog.path,
            &prog.source,
            ex.line,
            1,
            msg,
            help,
        ),
    }
}

/// Byte offset of the expect string in the file: its text, searched for from its line.
fn find_base(prog: &Program, ex: &Expect) -> Option<usize> {
    if ex.line == 0 || ex.text.is_empty() {
        return None;
    }
    let start = line_start(&prog.source, ex.line);
    let rest = prog.source.get(start..)?;
    // The string is on its line (or, for a long declaration, soon after).
    let window = rest.len().min(ex.text.len() + 4096);
    let mut end = window;
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    rest[..end].find(&ex.text).map(|o| start + o)
}

/// A compiled reference, ready to evaluate for every element.
struct Compiled {
    root: E,
    ty: Ty,
    nslots: usize,
    base: Option<usize>,
}

fn compile_expect(prog: &Program, ex: &Expect) -> R<Compiled> {
    let base = find_base(prog, ex);
    let mut c = Compiler {
        prog,
        expect: ex,
        base,
        vars: vec![("i".to_owned(), 0)],
        next_slot: 1,
    };
    let (root, ty) = c.compile(&ex.node)?;
    Ok(Compiled {
        root,
        ty,
        nslots: c.next_slot as usize,
        base,
    })
}

/// Elements per parallel work item.
const CHUNK: usize = 4096;

/// Checks every buffer that has an `expect` against the final contents.
///
/// `initial[b]` and `fin[b]` are buffer `b`'s words before and after the run (as from
/// [`init_words`] and the executor); `initial[b]` may be empty for a buffer that no reference
/// reads ([`referenced_buffers`]) and `fin[b]` for a buffer without `expect`. Returns one verdict per checked buffer, in declaration
/// order, or an error if a reference cannot be evaluated (a type error, an index out of
/// bounds, a division by zero) — pointing at the expression, with [`Phase::Verify`].
pub fn check(prog: &Program, initial: &[Vec<u32>], fin: &[Vec<u32>]) -> Result<Vec<Verdict>, Diag> {
    check_limited(prog, initial, fin, DEFAULT_MAX_TERMS)
}

/// The default limit of [`check_limited`]: as many terms per element as the executor's
/// default `--max-steps`.
pub const DEFAULT_MAX_TERMS: u64 = 100_000_000;

/// [`check`], with the `sum`s of one element adding at most `max_terms` terms: a reference
/// that needs more (a sum over a huge range, say) is an error rather than a run that never
/// ends.
pub fn check_limited(
    prog: &Program,
    initial: &[Vec<u32>],
    fin: &[Vec<u32>],
    max_terms: u64,
) -> Result<Vec<Verdict>, Diag> {
    let initial: Vec<&[u32]> = initial.iter().map(|w| &w[..]).collect();
    let fin: Vec<&[u32]> = fin.iter().map(|w| &w[..]).collect();
    check_slices(prog, &initial, &fin, max_terms)
}

/// [`check_limited`] on borrowed words, so that one buffer's words can serve as both its
/// initial and its final contents (a buffer the program never stores to, read in place).
pub fn check_slices(
    prog: &Program,
    initial: &[&[u32]],
    fin: &[&[u32]],
    max_terms: u64,
) -> Result<Vec<Verdict>, Diag> {
    let mut srcs = Vec::with_capacity(prog.buffers.len());
    for (k, bi) in prog.buffers.iter().enumerate() {
        let words = initial.get(k).copied().unwrap_or_default();
        // A buffer with fewer words than declared is read as if shorter.
        let len = (words.len() as u64 / (bi.elem.bytes() as u64 / 4)).min(bi.len);
        srcs.push(Src {
            words,
            elem: bi.elem,
            len,
        });
    }
    let mut out = Vec::new();
    for (k, bi) in prog.buffers.iter().enumerate() {
        let Some(ex) = &bi.expect else { continue };
        let c = compile_expect(prog, ex)?;
        let got_words = fin.get(k).copied().unwrap_or_default();
        out.push(check_buffer(
            prog, k, bi, ex, &c, &srcs, got_words, max_terms,
        )?);
    }
    Ok(out)
}

fn elem_value(elem: Elem, words: &[u32], k: usize) -> Option<Num> {
    Some(match elem {
        Elem::F32 => Num::Float(f32::from_bits(*words.get(k)?) as f64),
        Elem::F64 => {
            let lo = *words.get(2 * k)? as u64;
            let hi = *words.get(2 * k + 1)? as u64;
            Num::Float(f64::from_bits(lo | hi << 32))
        }
        Elem::U32 => Num::Int(*words.get(k)? as i64),
        Elem::I32 => Num::Int(*words.get(k)? as i32 as i64),
    })
}

/// Which buffers' initial contents some `expect` reads (the others need not be kept for
/// [`check`]).
pub fn referenced_buffers(prog: &Program) -> Vec<bool> {
    fn walk(n: &Node, prog: &Program, out: &mut [bool]) {
        match &n.kind {
            Kind::Int { .. } | Kind::Float(_) | Kind::Name(_) => {}
            Kind::Index(name, idx) => {
                if let Some(k) = prog.buffers.iter().position(|b| &b.name == name) {
                    out[k] = true;
                }
                idx.iter().for_each(|i| walk(i, prog, out));
            }
            Kind::Call(_, args) => args.iter().for_each(|a| walk(a, prog, out)),
            Kind::Unary(_, a) => walk(a, prog, out),
            Kind::Binary(_, a, b) => {
                walk(a, prog, out);
                walk(b, prog, out);
            }
            Kind::Cond(c, a, b) => {
                walk(c, prog, out);
                walk(a, prog, out);
                walk(b, prog, out);
            }
        }
    }
    let mut out = vec![false; prog.buffers.len()];
    for b in &prog.buffers {
        if let Some(e) = &b.expect {
            walk(&e.node, prog, &mut out);
        }
    }
    out
}

/// What one chunk of elements gave.
#[derive(Clone, Copy)]
struct Acc {
    count: u64,
    first: Option<u64>,
    max_err: f64,
}

impl Acc {
    const ZERO: Acc = Acc {
        count: 0,
        first: None,
        max_err: 0.0,
    };
    fn join(self, b: Acc) -> Acc {
        Acc {
            count: self.count + b.count,
            first: match (self.first, b.first) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            max_err: self.max_err.max(b.max_err),
        }
    }
    fn miss(&mut self, i: u64) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(i);
        }
    }
}

/// A chunk of an integer buffer: its mismatches and the reference at the first, or the
/// first element whose reference faulted.
type ChunkResult = Result<(Acc, Option<u32>), (u64, Fault)>;

#[allow(clippy::too_many_arguments)]
fn check_buffer(
    prog: &Program,
    k: usize,
    bi: &BufferInfo,
    ex: &Expect,
    c: &Compiled,
    srcs: &[Src],
    got: &[u32],
    max_terms: u64,
) -> Result<Verdict, Diag> {
    let n = bi.len as usize;
    let root = lower(&c.root, srcs);
    let new_state = || St {
        slots: vec![0; c.nslots],
        fault: None,
        budget: max_terms,
    };
    let ty = c.ty;
    let fail = |i: u64, f: Fault| fault_diag(prog, bi, ex, c, srcs, i, f, max_terms);
    let (acc, tol, want_of) = if matches!(bi.elem, Elem::F32 | Elem::F64) {
        // Float buffers: the tolerance scales with the largest reference value. Without
        // keeping every reference (which would take as much memory as a buffer of f64), a
        // first pass gives per chunk the largest reference, the largest error, and the
        // largest error of an element that is not exactly right (a NaN error counting as
        // infinite): a chunk where that is within the tolerance has no mismatch, and only the
        // other chunks are computed again to find theirs.
        let to_f = |v: u64| match ty {
            Ty::F => f(v),
            Ty::I32 => v as u32 as i32 as f64,
            Ty::U32 => v as u32 as f64,
        };
        let got_of = |i: usize| match elem_value(bi.elem, got, i) {
            Some(Num::Float(g)) => g,
            _ => f64::NAN,
        };
        // The references of chunk `ci`, each given to `each(i, want)`; or the first fault.
        let chunk = |ci: usize, each: &mut dyn FnMut(usize, f64)| -> Result<(), (u64, Fault)> {
            let mut st = new_state();
            for i in ci * CHUNK..((ci + 1) * CHUNK).min(n) {
                st.slots[0] = i as u32 as u64;
                st.budget = max_terms;
                let v = root(&mut st);
                if let Some(f) = st.fault.take() {
                    return Err((i as u64, f));
                }
                each(i, to_f(v));
            }
            Ok(())
        };
        let firsts: Vec<Result<[f64; 3], (u64, Fault)>> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|ci| {
                let [mut max_ref, mut max_err, mut worst] = [0f64; 3];
                chunk(ci, &mut |i, w| {
                    let g = got_of(i);
                    if w.is_finite() {
                        max_ref = max_ref.max(w.abs());
                    }
                    let d = (g - w).abs();
                    if d.is_finite() {
                        max_err = max_err.max(d);
                    }
                    if !((g.is_nan() && w.is_nan()) || g == w) {
                        worst = worst.max(if d.is_nan() { f64::INFINITY } else { d });
                    }
                })?;
                Ok([max_ref, max_err, worst])
            })
            .collect();
        let mut pass = Vec::with_capacity(firsts.len());
        for r in firsts {
            pass.push(r.map_err(|(i, f)| fail(i, f))?);
        }
        let max = pass.iter().fold(0f64, |m, p| m.max(p[0]));
        let tol = ex.tolerance * max.max(1.0);
        let max_err = pass.iter().fold(0f64, |m, p| m.max(p[1]));
        let recheck: Vec<usize> = (0..pass.len()).filter(|&ci| pass[ci][2] > tol).collect();
        let found: Vec<(Acc, Option<f64>)> = recheck
            .par_iter()
            .map(|&ci| {
                let mut a = Acc::ZERO;
                let mut first_want = None;
                // (The first pass evaluated this chunk without a fault.)
                let _ = chunk(ci, &mut |i, w| {
                    let g = got_of(i);
                    let d = (g - w).abs();
                    if !((g.is_nan() && w.is_nan()) || g == w || d <= tol) {
                        if a.first.is_none() {
                            first_want = Some(w);
                        }
                        a.miss(i as u64);
                    }
                });
                (a, first_want)
            })
            .collect();
        let mut acc = Acc::ZERO;
        let mut want_of = None;
        for (a, w) in found {
            if acc.first.is_none() && a.first.is_some() {
                want_of = w.map(Num::Float);
            }
            acc = acc.join(a);
        }
        acc.max_err = max_err;
        (acc, Some(tol), want_of)
    } else {
        // Integer buffers: exact, so each element is compared as soon as it is computed.
        let signed = bi.elem == Elem::I32;
        let to_bits = |v: u64| match (ty, signed) {
            (Ty::F, true) => f(v) as i32 as u32,
            (Ty::F, false) => f(v) as u32,
            _ => v as u32,
        };
        let chunks: Vec<ChunkResult> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|ci| {
                let mut st = new_state();
                let mut a = Acc::ZERO;
                let mut first_want = None;
                for i in ci * CHUNK..((ci + 1) * CHUNK).min(n) {
                    st.slots[0] = i as u32 as u64;
                    st.budget = max_terms;
                    let v = root(&mut st);
                    if let Some(f) = st.fault.take() {
                        return Err((i as u64, f));
                    }
                    let w = to_bits(v);
                    if got.get(i) != Some(&w) {
                        if a.first.is_none() {
                            first_want = Some(w);
                        }
                        a.miss(i as u64);
                    }
                }
                Ok((a, first_want))
            })
            .collect();
        let mut acc = Acc::ZERO;
        let mut want_of = None;
        for ch in chunks {
            let (a, w) = ch.map_err(|(i, f)| fail(i, f))?;
            if acc.first.is_none() && a.first.is_some() {
                want_of = w.map(|w| Num::Int(if signed { w as i32 as i64 } else { w as i64 }));
            }
            acc = acc.join(a);
        }
        (acc, None, want_of)
    };
    let first_mismatch = acc.first.map(|i| Mismatch {
        index: i,
        got: elem_value(bi.elem, got, i as usize).unwrap_or(Num::Float(f64::NAN)),
        want: want_of.unwrap_or(Num::Float(f64::NAN)),
    });
    Ok(Verdict {
        buffer: bi.name.clone(),
        index: k,
        ok: acc.count == 0,
        elements: bi.len,
        mismatches: acc.count,
        first_mismatch,
        abs_tolerance: tol,
        max_abs_error: tol.map(|_| acc.max_err),
    })
}

#[allow(clippy::too_many_arguments)]
fn fault_diag(
    prog: &Program,
    bi: &BufferInfo,
    ex: &Expect,
    c: &Compiled,
    srcs: &[Src],
    i: u64,
    fault: Fault,
    max_terms: u64,
) -> Diag {
    match fault {
        Fault::Oob { buf, index, span } => {
            let src = &prog.buffers[buf as usize];
            let len = srcs[buf as usize].len;
            err_at(
                prog,
                ex,
                c.base,
                span,
                format!(
                    "the reference for `{}` reads `{}[{index}]` at element i = {i}, outside `{}` ({len} elements)",
                    bi.name, src.name, src.name
                ),
                Some(format!(
                    "keep the index in 0..{len}; guard it with `cond ? {}[…] : 0`",
                    src.name
                )),
            )
        }
        Fault::DivZero { span } => err_at(
            prog,
            ex,
            c.base,
            span,
            format!(
                "the reference for `{}` divides by zero at element i = {i}",
                bi.name
            ),
            Some("guard the divisor: `d != 0 ? x / d : 0`".into()),
        ),
        Fault::Terms { span } => err_at(
            prog,
            ex,
            c.base,
            span,
            format!(
                "the reference for `{}` adds more than {max_terms} terms for element i = {i} \
                 (the --max-steps limit): this sum's range is too large",
                bi.name
            ),
            Some("check the bounds of the sum, or raise --max-steps".into()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{load_str, Options};

    fn prog(buffers: &str, defines: &str) -> Program {
        let src = format!(
            "Program(name: \"t\", defines: {{ {defines} }}, launch: (grid: [1], block: [32]),\n buffers: [\n{buffers}\n], body: [])"
        );
        load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// Global memory filled in place (in parallel chunks) holds, word for word, what
    /// `init_element` gives element by element, and so does `init_words`; the buffers a
    /// program stores to are known; a buffer read in place as both initial and final contents
    /// checks like its copy.
    #[test]
    fn in_place_fill_and_check() {
        let p = prog(
            "(name: \"a\", ty: F64, len: 1000, init: Random(7)),
             (name: \"b\", ty: I32, len: 100000, init: Iota),
             (name: \"c\", ty: F32, len: 1000, expect: \"a[i] * 2.0\")",
            "",
        );
        let g = crate::exec::Global::new(&p);
        for (k, b) in p.buffers.iter().enumerate() {
            fill_global(b.elem, b.init, &g.buffers[k]);
            let per = (b.elem.bytes() / 4) as usize;
            let serial: Vec<u32> = (0..b.len)
                .flat_map(|i| init_element(b.elem, b.init, i)[..per].to_vec())
                .collect();
            assert_eq!(g.read(k), serial);
            assert_eq!(init_words(b), serial);
        }
        assert_eq!(written_buffers(&p), vec![false; 3]);
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../programs/transpose.ron");
        let t = crate::load_file(path, &Options::default()).unwrap();
        assert_eq!(written_buffers(&t), vec![false, true]);
        let mut words = g.into_words();
        words[2] = (0..1000)
            .map(|i| {
                let a = f64::from_bits(words[0][2 * i] as u64 | (words[0][2 * i + 1] as u64) << 32);
                ((a * 2.0) as f32).to_bits()
            })
            .collect();
        let refs: Vec<&[u32]> = words.iter().map(|w| &w[..]).collect();
        let v = check_slices(&p, &refs, &refs, DEFAULT_MAX_TERMS).unwrap();
        assert!(v[0].ok);
        assert_eq!(check(&p, &words, &words).unwrap(), v);
    }

    fn words_of(p: &Program) -> Vec<Vec<u32>> {
        p.buffers.iter().map(init_words).collect()
    }

    /// Checks with the final contents computed by `f` from the initial ones.
    fn run(p: &Program, f: impl Fn(&mut Vec<Vec<u32>>)) -> Result<Vec<Verdict>, Diag> {
        let init = words_of(p);
        let mut fin = init.clone();
        f(&mut fin);
        check(p, &init, &fin)
    }

    #[test]
    fn random_is_reproducible_and_in_range() {
        let p = prog(
            r#"(name: "a", ty: F32, len: 10000, init: Random(3)),
               (name: "b", ty: F64, len: 10000, init: Random(3)),
               (name: "c", ty: U32, len: 10000, init: Random(3)),
               (name: "d", ty: I32, len: 10000, init: Random(4))"#,
            "",
        );
        let w = words_of(&p);
        assert_eq!(w, words_of(&p));
        let a: Vec<f32> = w[0].iter().map(|&x| f32::from_bits(x)).collect();
        assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
        let mean = a.iter().map(|&v| v as f64).sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.05, "{mean}");
        assert!(a.iter().any(|&v| v < -0.9) && a.iter().any(|&v| v > 0.9));
        for k in 0..10000 {
            let v = f64::from_bits(w[1][2 * k] as u64 | (w[1][2 * k + 1] as u64) << 32);
            assert!((-1.0..1.0).contains(&v));
        }
        assert!(w[2].iter().all(|&v| v < 65536));
        assert!(w[2].iter().any(|&v| v > 60000));
        assert_ne!(w[2], w[3], "seeds differ");
        // Element i does not depend on the buffer's length.
        assert_eq!(init_element(Elem::U32, Init::Random(3), 17)[0], w[2][17]);
        // Pinned values: the generator is part of the file format.
        assert_eq!(random_bits(0, 0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn iota_and_zeros() {
        let p = prog(
            r#"(name: "a", ty: F32, len: 5, init: Iota),
               (name: "b", ty: F64, len: 5, init: Iota),
               (name: "c", ty: I32, len: 5, init: Iota),
               (name: "z", ty: U32, len: 5)"#,
            "",
        );
        let w = words_of(&p);
        assert_eq!(
            w[0],
            (0..5).map(|i| (i as f32).to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(w[1][6], 3f64.to_bits() as u32);
        assert_eq!(w[1][7], (3f64.to_bits() >> 32) as u32);
        assert_eq!(w[2], vec![0, 1, 2, 3, 4]);
        assert_eq!(w[3], vec![0; 5]);
    }

    #[test]
    fn transpose_reference() {
        let p = prog(
            r#"(name: "inp", ty: F32, len: "N * N", init: Random(1)),
               (name: "out", ty: F32, len: "N * N", expect: "inp[(i % N) * N + i / N]")"#,
            "\"N\": 64",
        );
        let v = run(&p, |w| {
            for i in 0..64 * 64 {
                w[1][i] = w[0][(i % 64) * 64 + i / 64];
            }
        })
        .unwrap();
        assert_eq!(v.len(), 1);
        assert!(v[0].ok, "{v:?}");
        assert_eq!(v[0].elements, 4096);
        // Untouched output: every nonzero reference mismatches.
        let v = run(&p, |_| {}).unwrap();
        assert!(!v[0].ok);
        assert_eq!(v[0].mismatches, 4096);
        let m = v[0].first_mismatch.unwrap();
        assert_eq!(m.index, 0);
        assert_eq!(m.got, Num::Float(0.0));
    }

    #[test]
    fn float_tolerance_is_relative_to_the_buffer_max() {
        let p = prog(
            r#"(name: "o", ty: F32, len: 4, expect: "f32(i) * 1000.0", tolerance: 1e-3)"#,
            "",
        );
        // Max |want| = 3000, so the absolute tolerance is 3: element 0 may be off by 2.
        let v = run(&p, |w| {
            w[0] = vec![
                2.0f32.to_bits(),
                1000f32.to_bits(),
                2000f32.to_bits(),
                3004f32.to_bits(),
            ]
        })
        .unwrap();
        assert_eq!(v[0].mismatches, 1);
        assert_eq!(v[0].first_mismatch.unwrap().index, 3);
        assert_eq!(v[0].abs_tolerance, Some(3.0));
    }

    /// The sums of one element may add at most `max_terms` terms (nested sums multiply).
    #[test]
    fn sums_have_a_budget_per_element() {
        let p = prog(
            r#"(name: "o", ty: I32, len: 8, expect: "sum(k, 0, 10, sum(m, 0, i, k - k + 1))")"#,
            "",
        );
        let fin: Vec<Vec<u32>> = vec![(0..8).map(|i| 10 * i).collect()];
        let init = words_of(&p);
        // Element 7: 10 outer terms and 10 × 7 inner ones.
        assert!(check_limited(&p, &init, &fin, 80).unwrap()[0].ok);
        let e = check_limited(&p, &init, &fin, 79).unwrap_err();
        assert!(
            e.message
                .contains("adds more than 79 terms for element i = 7"),
            "{e}"
        );
        assert!(e.help.unwrap().contains("--max-steps"));
        // A sum over a huge range fails at once rather than running for minutes.
        let p = prog(
            r#"(name: "o", ty: I32, len: 8, expect: "sum(k, 0, 2000000000, k)")"#,
            "",
        );
        let t = std::time::Instant::now();
        let e = check(&p, &words_of(&p), &words_of(&p)).unwrap_err();
        assert!(e.message.contains("for element i = 0"), "{e}");
        assert!(t.elapsed().as_secs() < 2);
    }

    #[test]
    fn integer_semantics() {
        let p = prog(
            r#"(name: "a", ty: U32, len: 64, init: Iota),
               (name: "o", ty: I32, len: 64, expect: "(i - 32) / 3 + ((i - 32) >> 1) + (-7 % 3) + min(i, 5)"),
               (name: "u", ty: U32, len: 64, expect: "(a[i] - 32) / 3 + (0xFFFFFFFF >> 28) + (u32(i) * 2654435761u >> 16)"),
               (name: "c", ty: I32, len: 64, expect: "i > 0 && a[i - 1] >= 0u ? a[i - 1] : 99"),
               (name: "s", ty: I32, len: 64, expect: "sum(k, 0, i, k * 2) + sum(k, 5, 2, 1)"),
               (name: "f", ty: I32, len: 64, expect: "i32(-2.7) + i32(sqrt(f64(i * i)))")"#,
            "",
        );
        let v = run(&p, |w| {
            for i in 0..64i32 {
                let k = i as usize;
                w[1][k] = ((i - 32) / 3 + ((i - 32) >> 1) + (-7 % 3) + i.min(5)) as u32;
                w[2][k] = ((i as u32).wrapping_sub(32) / 3)
                    + 15
                    + ((i as u32).wrapping_mul(2654435761) >> 16);
                w[3][k] = if i > 0 { (i - 1) as u32 } else { 99 };
                w[4][k] = (i * (i - 1)) as u32;
                w[5][k] = (-2 + i) as u32;
            }
        })
        .unwrap();
        for x in &v {
            assert!(x.ok, "{x:?}");
        }
    }

    #[test]
    fn matmul_sum_is_fast_and_hoisted() {
        let n = 256usize;
        let p = prog(
            r#"(name: "A", ty: F32, len: "N * N", init: Random(1)),
               (name: "B", ty: F32, len: "N * N", init: Random(2)),
               (name: "C", ty: F32, len: "N * N", expect: "sum(k, 0, N, A[(i / N) * N + k] * B[k * N + i % N])")"#,
            "\"N\": 256",
        );
        let init = words_of(&p);
        let a: Vec<f32> = init[0].iter().map(|&x| f32::from_bits(x)).collect();
        let bm: Vec<f32> = init[1].iter().map(|&x| f32::from_bits(x)).collect();
        let mut c = vec![0f32; n * n];
        for r in 0..n {
            for k in 0..n {
                let x = a[r * n + k];
                for col in 0..n {
                    c[r * n + col] += x * bm[k * n + col];
                }
            }
        }
        let mut fin = init.clone();
        fin[2] = c.iter().map(|v| v.to_bits()).collect();
        let t = std::time::Instant::now();
        let v = check(&p, &init, &fin).unwrap();
        let dt = t.elapsed();
        eprintln!("matmul N=256 reference check: {dt:?}");
        assert!(v[0].ok, "{v:?}");
        // `(i / N) * N` and `i % N` do not depend on k: they are computed once per element.
        let ex = p.buffers[2].expect.as_ref().unwrap();
        let cp = compile_expect(&p, ex).unwrap();
        let E::Sum(s) = &cp.root else { panic!() };
        assert_eq!(s.hoisted.len(), 2, "{:?}", s.hoisted);
        // Generous: tests may run unoptimised or on a loaded machine.
        assert!(dt.as_secs_f64() < 10.0, "{dt:?}");
    }

    fn err_of(buffers: &str) -> Diag {
        let p = prog(buffers, "\"N\": 8");
        run(&p, |_| {}).unwrap_err()
    }

    #[test]
    fn out_of_bounds_and_division_by_zero_are_diagnostics() {
        let e = err_of(
            r#"(name: "a", ty: F32, len: 8),
               (name: "o", ty: F32, len: 8, expect: "a[i + 1]")"#,
        );
        assert_eq!(e.phase, Phase::Verify);
        assert!(e.message.contains("a[8]"), "{}", e.message);
        assert!(e.message.contains("i = 7"), "{}", e.message);
        assert_eq!(e.line(), Some(4));
        // The span covers `a[i + 1]` in the file.
        let span = e.span.unwrap();
        let src = "Program(name: \"t\", defines: { \"N\": 8 }";
        assert!(span.offset() > src.len());
        let e = err_of(r#"(name: "o", ty: I32, len: 8, expect: "100 / (i - 3)")"#);
        assert_eq!(e.phase, Phase::Verify);
        assert!(
            e.message.contains("divides by zero at element i = 3"),
            "{}",
            e.message
        );
        let e = err_of(r#"(name: "o", ty: I32, len: 8, expect: "o[-1]")"#);
        assert!(e.message.contains("o[-1]"), "{}", e.message);
        // Float operands of bitwise operators: a type error, not a panic.
        let e = err_of(r#"(name: "o", ty: F32, len: 8, expect: "1.5 & i")"#);
        assert_eq!(e.phase, Phase::Verify);
        let e = err_of(r#"(name: "o", ty: F32, len: 8, expect: "o[1.5]")"#);
        assert!(e.message.contains("index"), "{}", e.message);
    }

    #[test]
    fn lazy_conditions_and_empty_sums() {
        let p = prog(
            r#"(name: "a", ty: I32, len: 8, init: Iota),
               (name: "o", ty: I32, len: 8, expect: "sum(k, 0, i, a[i - 1 - k]) + (i < 1 || a[i - 1] >= 0) + select(i < 8, 1, a[99])")"#,
            "",
        );
        let v = run(&p, |w| {
            for i in 0..8u32 {
                w[1][i as usize] = i * i.saturating_sub(1) / 2 + 2;
            }
        })
        .unwrap();
        assert!(v[0].ok, "{v:?}");
    }

    #[test]
    fn nested_sums_hoist_correctly() {
        let p = prog(
            r#"(name: "a", ty: I32, len: 64, init: Iota),
               (name: "d", ty: F64, len: 16, init: Iota),
               (name: "o", ty: I32, len: 16, expect: "sum(k, 0, 4, sum(m, 0, k, a[i + m] * k + i * 3) + (i / 2) * k)"),
               (name: "f", ty: F64, len: 16, expect: "sum(k, 1u, 3u, d[i] * f64(k) + sqrt(d[i]))")"#,
            "",
        );
        let refs = referenced_buffers(&p);
        assert_eq!(refs, vec![true, true, false, false]);
        let v = run(&p, |w| {
            for i in 0..16i32 {
                let mut t = 0;
                for k in 0..4 {
                    for m in 0..k {
                        t += (i + m) * k + i * 3;
                    }
                    t += (i / 2) * k;
                }
                w[2][i as usize] = t as u32;
                let x = i as f64;
                let fv = (1..3).map(|k| x * k as f64 + x.sqrt()).sum::<f64>();
                let bits = fv.to_bits();
                w[3][2 * i as usize] = bits as u32;
                w[3][2 * i as usize + 1] = (bits >> 32) as u32;
            }
        })
        .unwrap();
        for x in &v {
            assert!(x.ok, "{x:?}");
        }
        // Unreferenced initial contents may be left out.
        let mut init = words_of(&p);
        init[2].clear();
        init[3].clear();
        let fin = words_of(&p);
        let v = check(&p, &init, &fin).unwrap();
        assert!(!v[0].ok);
    }

    #[test]
    fn nan_and_int_buffers_with_float_references() {
        let p = prog(
            r#"(name: "n", ty: F32, len: 2, expect: "sqrt(-1.0)"),
               (name: "q", ty: I32, len: 2, expect: "f32(i) * 2.5")"#,
            "",
        );
        let v = run(&p, |w| {
            w[0] = vec![f32::NAN.to_bits(); 2];
            w[1] = vec![0, 2];
        })
        .unwrap();
        assert!(v.iter().all(|x| x.ok), "{v:?}");
    }
}
