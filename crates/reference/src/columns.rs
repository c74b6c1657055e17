//! A reference evaluated for a run of consecutive elements at once: each node's values for
//! up to [`RUN`] elements come from one loop over a column, so an element costs a few
//! instructions a node rather than a closure call a node. The operations are
//! [`eval`](super::eval)'s own (`int_op`, `float_op`, `unary`, `read`), so the values are the
//! closures', bit for bit.
//!
//! Evaluated eagerly, a node must not fault where the closures would not evaluate it: the lazy
//! sides of `?:`, `&&` and `||` are columns only when they cannot fault (no load, no division
//! by a divisor that may be zero, no `sum`); otherwise the whole lazy node, like a `sum`, runs
//! per element as its closure, inside the run. A dot-product `sum` ([`fast::Shape::Dot`])
//! adds the run's sums side by side, term by term, each in its own order, so that neighbouring
//! elements' loads share cache lines. A reference with more than one `sum` runs as closures
//! throughout (the sums of one element share one budget of terms). A run in which an element
//! faults is evaluated again by the closures, which report the fault as before.

use super::*;

/// Elements per run.
pub(super) const RUN: usize = 256;

/// An operand: a column (an earlier node's values) or a constant.
#[derive(Clone, Copy)]
enum Arg {
    Col(usize),
    Imm(u64),
}

/// An operation computing one column: operation `k` of [`Columns`] writes column `k`.
enum Op<'a> {
    /// `i`.
    Iota,
    Load {
        idx: Arg,
        src: Src<'a>,
        signed: bool,
    },
    Int(IOp, Arg, Arg),
    /// A signed or unsigned division or remainder by `1 << sh`.
    Pow2(IOp, Arg, u32),
    Float(FOp, Arg, Arg),
    Unary(Un, Arg),
    Fma([Arg; 3]),
    /// `c ? a : b` with both sides computed.
    Select([Arg; 3]),
    /// `a && b`, `a || b` (0/1 operands) with both sides computed.
    And(Arg, Arg),
    Or(Arg, Arg),
    /// A node evaluated per element by its closure.
    Each(Fx<'a>),
    /// A float `sum` of `a[…] * b[…]` (affine indices): the run's sums side by side.
    Dot(Box<Dot<'a>>),
}

/// A dot-product `sum` ([`fast::Shape::Dot`]) and its closure (for elements whose indices
/// may leave a buffer).
struct Dot<'a> {
    parts: SumFx<'a>,
    a: fast::Affine<'a>,
    b: fast::Affine<'a>,
    whole: Fx<'a>,
}

/// A reference as a list of column operations.
pub(super) struct Columns<'a> {
    ops: Vec<Op<'a>>,
    root: Arg,
}

/// Whether evaluating `e` may fault (read out of bounds, divide by zero, add too many terms).
fn may_fault(e: &E) -> bool {
    match e {
        E::Const(_) | E::Slot(_) => false,
        E::Load { .. } | E::Sum(_) => true,
        E::I2(op, a, b, _) => {
            let div = matches!(op, IOp::DivS | IOp::DivU | IOp::RemS | IOp::RemU);
            (div && !matches!(**b, E::Const(c) if c as u32 != 0)) || may_fault(a) || may_fault(b)
        }
        E::F2(_, a, b) | E::LAnd(a, b) | E::LOr(a, b) => may_fault(a) || may_fault(b),
        E::U(_, a) => may_fault(a),
        E::Fma(a, b, c) | E::Sel(a, b, c) => may_fault(a) || may_fault(b) || may_fault(c),
    }
}

fn sums(e: &E) -> usize {
    match e {
        E::Const(_) | E::Slot(_) => 0,
        E::Sum(_) => 1,
        E::Load { idx, .. } => sums(idx),
        E::I2(_, a, b, _) | E::F2(_, a, b) | E::LAnd(a, b) | E::LOr(a, b) => sums(a) + sums(b),
        E::U(_, a) => sums(a),
        E::Fma(a, b, c) | E::Sel(a, b, c) => sums(a) + sums(b) + sums(c),
    }
}

impl<'a> Columns<'a> {
    /// `root` as columns, or `None` where the closures are as good (a constant, a lone
    /// `sum`) or must run throughout (two sums or more).
    pub(super) fn build(root: &E, srcs: &[Src<'a>]) -> Option<Self> {
        let dot = |m: &Sum| matches!(fast::shape(m, srcs), Some(fast::Shape::Dot(..)));
        if sums(root) > 1 || matches!(root, E::Const(_)) || matches!(root, E::Sum(m) if !dot(m)) {
            return None;
        }
        let mut c = Columns {
            ops: Vec::new(),
            root: Arg::Imm(0),
        };
        c.root = c.node(root, srcs)?;
        Some(c)
    }

    /// Appends `op`; the column it writes.
    fn push(&mut self, op: Op<'a>) -> Arg {
        self.ops.push(op);
        Arg::Col(self.ops.len() - 1)
    }

    /// Appends the operations computing `e`; its operand.
    fn node(&mut self, e: &E, srcs: &[Src<'a>]) -> Option<Arg> {
        Some(match e {
            E::Const(v) => Arg::Imm(*v),
            // Outside sums the only slot is `i`.
            E::Slot(0) => self.push(Op::Iota),
            E::Slot(_) => return None,
            E::Load {
                buf, signed, idx, ..
            } => {
                let (idx, src) = (self.node(idx, srcs)?, *srcs.get(*buf as usize)?);
                self.push(Op::Load {
                    idx,
                    src,
                    signed: *signed,
                })
            }
            E::I2(op, a, b, _) => {
                let pow2 = match (op, &**b) {
                    (IOp::DivS | IOp::RemS, E::Const(c)) => fast::pow2_shift(*c, true),
                    (IOp::DivU | IOp::RemU, E::Const(c)) => fast::pow2_shift(*c, false),
                    _ => None,
                };
                let a = self.node(a, srcs)?;
                if let Some(sh) = pow2 {
                    return Some(self.push(Op::Pow2(*op, a, sh)));
                }
                let b = self.node(b, srcs)?;
                self.push(Op::Int(*op, a, b))
            }
            E::F2(op, a, b) => {
                let (a, b) = (self.node(a, srcs)?, self.node(b, srcs)?);
                self.push(Op::Float(*op, a, b))
            }
            E::U(op, a) => {
                let a = self.node(a, srcs)?;
                self.push(Op::Unary(*op, a))
            }
            E::Fma(a, b, c) => {
                let args = [
                    self.node(a, srcs)?,
                    self.node(b, srcs)?,
                    self.node(c, srcs)?,
                ];
                self.push(Op::Fma(args))
            }
            E::Sel(c, a, b) if !may_fault(a) && !may_fault(b) => {
                let args = [
                    self.node(c, srcs)?,
                    self.node(a, srcs)?,
                    self.node(b, srcs)?,
                ];
                self.push(Op::Select(args))
            }
            E::LAnd(a, b) | E::LOr(a, b) if !may_fault(b) => {
                let (x, y) = (self.node(a, srcs)?, self.node(b, srcs)?);
                self.push(match e {
                    E::LAnd(..) => Op::And(x, y),
                    _ => Op::Or(x, y),
                })
            }
            E::Sum(m) if matches!(fast::shape(m, srcs), Some(fast::Shape::Dot(..))) => {
                let Some(fast::Shape::Dot(a, b)) = fast::shape(m, srcs) else {
                    return None;
                };
                let dot = Dot {
                    parts: SumFx::new(m, srcs),
                    a,
                    b,
                    whole: lower(e, srcs),
                };
                self.push(Op::Dot(Box::new(dot)))
            }
            // A lazy node that may fault, or a sum.
            E::Sel(..) | E::LAnd(..) | E::LOr(..) | E::Sum(_) => {
                self.push(Op::Each(lower(e, srcs)))
            }
        })
    }

    /// Scratch space for [`Columns::eval`].
    pub(super) fn scratch(&self) -> Vec<u64> {
        vec![0; self.ops.len().max(1) * RUN]
    }

    /// The values of elements `base .. base + n` (`n` ≤ [`RUN`]) into `out`; `false` if one
    /// of them faulted (`st.fault` is then cleared: the closures find it again).
    pub(super) fn eval(
        &self,
        base: usize,
        out: &mut [u64],
        cols: &mut [u64],
        st: &mut St,
        max_terms: u64,
    ) -> bool {
        let n = out.len();
        let mut ok = true;
        for (dst, op) in self.ops.iter().enumerate() {
            ok &= Self::run(op, dst, base, n, cols, st, max_terms);
        }
        match self.root {
            Arg::Imm(v) => out.fill(v),
            Arg::Col(c) => out.copy_from_slice(&cols[c * RUN..][..n]),
        }
        ok
    }

    /// Operation `op`, writing column `dst`, over the run; `false` if an element faulted.
    fn run(
        op: &Op,
        dst: usize,
        base: usize,
        n: usize,
        cols: &mut [u64],
        st: &mut St,
        max_terms: u64,
    ) -> bool {
        // Every operand is an earlier column: below the destination's.
        let (lo, hi) = cols.split_at_mut(dst * RUN);
        let d = &mut hi[..n];
        let arg = |a: Arg| match a {
            Arg::Col(c) => Val::Col(&lo[c * RUN..][..n]),
            Arg::Imm(v) => Val::Imm(v),
        };
        let mut ok = true;
        match *op {
            Op::Iota => {
                for (k, v) in d.iter_mut().enumerate() {
                    *v = (base + k) as u32 as u64;
                }
            }
            Op::Load { idx, src, signed } => {
                let elem = src.elem;
                match elem {
                    Elem::F32 => {
                        ok = gather(d, arg(idx), src, signed, |w, k| read(Elem::F32, w, k))
                    }
                    Elem::U32 | Elem::I32 => {
                        ok = gather(d, arg(idx), src, signed, |w, k| read(Elem::U32, w, k))
                    }
                    _ => ok = gather(d, arg(idx), src, signed, |w, k| read(elem, w, k)),
                }
            }
            Op::Int(op, a, b) => {
                by_op!(op, IOp, INT_OPS, |O| map2(d, arg(a), arg(b), |x, y| {
                    int_op(O, x, y).unwrap_or_else(|| {
                        ok = false;
                        0
                    })
                }))
            }
            Op::Pow2(op, a, sh) => {
                let mask = (1u32 << sh).wrapping_sub(1);
                match op {
                    IOp::DivS => map1(d, arg(a), |v| {
                        fast::div_pow2_s(v as u32 as i32, sh) as u32 as u64
                    }),
                    IOp::RemS => map1(d, arg(a), |v| {
                        fast::rem_pow2_s(v as u32 as i32, sh) as u32 as u64
                    }),
                    IOp::DivU => map1(d, arg(a), |v| (v as u32 >> sh) as u64),
                    _ => map1(d, arg(a), |v| (v as u32 & mask) as u64),
                }
            }
            Op::Float(op, a, b) => {
                by_op!(op, FOp, FLOAT_OPS, |O| map2(d, arg(a), arg(b), |x, y| {
                    float_op(O, x, y)
                }))
            }
            Op::Unary(op, a) => by_op!(op, Un, UNARY_OPS, |O| map1(d, arg(a), |v| unary(O, v))),
            Op::Fma([a, b, c]) => {
                let (a, b, c) = (arg(a), arg(b), arg(c));
                for (k, v) in d.iter_mut().enumerate() {
                    *v = fb(f(a.at(k)).mul_add(f(b.at(k)), f(c.at(k))));
                }
            }
            Op::Select([c, a, b]) => {
                let (c, a, b) = (arg(c), arg(a), arg(b));
                for (k, v) in d.iter_mut().enumerate() {
                    *v = if c.at(k) as u32 != 0 {
                        a.at(k)
                    } else {
                        b.at(k)
                    };
                }
            }
            Op::And(a, b) => map2(d, arg(a), arg(b), |x, y| (x != 0 && y != 0) as u64),
            Op::Or(a, b) => map2(d, arg(a), arg(b), |x, y| (x != 0 || y != 0) as u64),
            Op::Each(ref fx) => {
                for (k, v) in d.iter_mut().enumerate() {
                    st.slots[0] = (base + k) as u32 as u64;
                    st.budget = max_terms;
                    *v = fx(st);
                    if st.fault.take().is_some() {
                        return false;
                    }
                }
            }
            Op::Dot(ref dot) => return dot.run(base, d, st, max_terms),
        }
        ok
    }
}

impl Dot<'_> {
    /// The run's sums into `d`; `false` if one faulted.
    fn run(&self, base: usize, d: &mut [u64], st: &mut St, max_terms: u64) -> bool {
        // The elements whose every term's indices lie in the buffers, and the common number
        // of terms (the others are added one sum at a time).
        let (mut at, mut ra, mut rb) = ([0usize; RUN], [(0, 0); RUN], [(0, 0); RUN]);
        let (mut m, mut terms) = (0, None);
        for (k, v) in d.iter_mut().enumerate() {
            st.slots[0] = (base + k) as u32 as u64;
            st.budget = max_terms;
            let start = self.parts.start(st);
            if st.fault.take().is_some() {
                return false;
            }
            let Some((first, n)) = start else {
                *v = 0;
                continue;
            };
            let var = self.parts.var;
            let ranges = (self.a.range(st, var, first, n)).zip(self.b.range(st, var, first, n));
            match ranges {
                Some((x, y)) if terms.is_none_or(|t| t == n) => {
                    (at[m], ra[m], rb[m]) = (k, x, y);
                    m += 1;
                    terms = Some(n);
                }
                _ => {
                    st.slots[0] = (base + k) as u32 as u64;
                    st.budget = max_terms;
                    *v = (self.whole)(st);
                    if st.fault.take().is_some() {
                        return false;
                    }
                }
            }
        }
        let mut sums = [0f64; RUN];
        fast::dots_of(
            &self.a,
            &ra[..m],
            &self.b,
            &rb[..m],
            terms.unwrap_or(0),
            &mut sums[..m],
        );
        for e in 0..m {
            d[at[e]] = fb(sums[e]);
        }
        true
    }
}

/// An operand's values over the run.
#[derive(Clone, Copy)]
enum Val<'c> {
    Col(&'c [u64]),
    Imm(u64),
}

impl Val<'_> {
    #[inline(always)]
    fn at(self, k: usize) -> u64 {
        match self {
            Val::Col(c) => c[k],
            Val::Imm(v) => v,
        }
    }
}

#[inline(always)]
fn map1(d: &mut [u64], a: Val, mut op: impl FnMut(u64) -> u64) {
    match a {
        Val::Col(a) => d.iter_mut().zip(a).for_each(|(v, &x)| *v = op(x)),
        Val::Imm(x) => d.fill(op(x)),
    }
}

#[inline(always)]
fn map2(d: &mut [u64], a: Val, b: Val, mut op: impl FnMut(u64, u64) -> u64) {
    match (a, b) {
        (Val::Col(a), Val::Col(b)) => {
            for ((v, &x), &y) in d.iter_mut().zip(a).zip(b) {
                *v = op(x, y);
            }
        }
        (Val::Col(a), Val::Imm(y)) => d.iter_mut().zip(a).for_each(|(v, &x)| *v = op(x, y)),
        (Val::Imm(x), Val::Col(b)) => d.iter_mut().zip(b).for_each(|(v, &y)| *v = op(x, y)),
        (Val::Imm(x), Val::Imm(y)) => d.fill(op(x, y)),
    }
}

/// Loads at the indices `idx` (as the closures' loads: a signed index is out of range when
/// negative); `false` if one is outside the buffer (its value is then 0).
#[inline(always)]
fn gather(
    d: &mut [u64],
    idx: Val,
    src: Src,
    signed: bool,
    get: impl Fn(&[u32], usize) -> u64,
) -> bool {
    let mut ok = true;
    for (k, v) in d.iter_mut().enumerate() {
        let raw = idx.at(k) as u32;
        let j = if signed {
            raw as i32 as i64 as u64
        } else {
            raw as u64
        };
        if j < src.len {
            *v = get(src.words, j as usize);
        } else {
            ok = false;
            *v = 0;
        }
    }
    ok
}
