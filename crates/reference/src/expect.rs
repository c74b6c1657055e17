//! Checking final buffer contents against their compiled references, in parallel chunks.

use super::*;

/// Elements per parallel work item.
pub(crate) const CHUNK: usize = 4096;

/// Checks every buffer that has an `expect` against the final contents.
///
/// `initial[b]` and `fin[b]` are buffer `b`'s words before and after the run (as from
/// `warpsim_exec::init_words` and the executor); `initial[b]` may be empty for a buffer that no reference
/// reads ([`referenced_buffers`]) and `fin[b]` for a buffer that has no `expect` and that no
/// `check` reads. A buffer's `check` gives a verdict of its own, before its `expect`'s. Returns one verdict per checked buffer, in declaration
/// order, or an error if a reference cannot be evaluated (a type error, an index out of
/// bounds, a division by zero) — pointing at the expression, with [`Phase::Verify`].
pub fn check(prog: &Program, initial: &[Vec<u32>], fin: &[Vec<u32>]) -> Result<Vec<Verdict>, Diag> {
    check_limited(prog, initial, fin, DEFAULT_MAX_TERMS)
}

/// The default limit of [`check_limited`]: as many terms per element as the executor's
/// default `--max-steps`.
pub(crate) const DEFAULT_MAX_TERMS: u64 = 100_000_000;

/// [`check`], with the `sum`s of one element adding at most `max_terms` terms: a reference
/// that needs more (a sum over a huge range, say) is an error rather than a run that never
/// ends.
pub(crate) fn check_limited(
    prog: &Program,
    initial: &[Vec<u32>],
    fin: &[Vec<u32>],
    max_terms: u64,
) -> Result<Vec<Verdict>, Diag> {
    let initial: Vec<&[u32]> = initial.iter().map(|w| &w[..]).collect();
    let fin: Vec<&[u32]> = fin.iter().map(|w| &w[..]).collect();
    check_slices(prog, &initial, &fin, max_terms)
}

/// [`check`] on borrowed words, so that one buffer's words can serve as both its initial
/// and its final contents (a buffer the program never stores to, read in place), with the
/// `sum`s of one element adding at most `max_terms` terms: a reference that needs more (a
/// sum over a huge range, say) is an error rather than a run that never ends.
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
        let len = (words.len() as u64 * 4 / bi.elem.bytes() as u64).min(bi.len);
        srcs.push(Src {
            words,
            elem: bi.elem,
            len,
        });
    }
    let mut out = Vec::new();
    for (k, bi) in prog.buffers.iter().enumerate() {
        if let Some(ex) = &bi.check {
            out.push(predicate::check_predicate(prog, k, bi, ex, fin, max_terms)?);
        }
        let Some(ex) = &bi.expect else { continue };
        if let Some(src) = permutation_source(&ex.node) {
            let s = src.and_then(|s| prog.buffers.iter().position(|b| b.name == s));
            let src_words = s.and_then(|s| initial.get(s)).copied().unwrap_or_default();
            let got_words = fin.get(k).copied().unwrap_or_default();
            out.push(permutation::check_permutation(k, bi, src_words, got_words));
            continue;
        }
        let c = compile_expect(prog, ex)?;
        let got_words = fin.get(k).copied().unwrap_or_default();
        out.push(check_buffer(
            prog, k, bi, ex, &c, &srcs, got_words, max_terms,
        )?);
    }
    Ok(out)
}

/// Compiles every `check` and `expect` of the program without evaluating any, so that a
/// reference that cannot be compiled (an unknown name, a type error) is reported before the
/// kernel runs rather than after it (or not at all, when the kernel faults).
pub fn compile_all(prog: &Program) -> Result<(), Diag> {
    for bi in &prog.buffers {
        if let Some(ex) = &bi.check {
            compile_expect(prog, ex)?;
        }
        if let Some(ex) = &bi.expect {
            if permutation_source(&ex.node).is_none() {
                compile_expect(prog, ex)?;
            }
        }
    }
    Ok(())
}

pub(super) fn elem_value(elem: Elem, words: &[u32], k: usize) -> Option<Num> {
    Some(match elem {
        Elem::F32 => Num::Float(f32::from_bits(*words.get(k)?) as f64),
        Elem::F64 => {
            let lo = *words.get(2 * k)? as u64;
            let hi = *words.get(2 * k + 1)? as u64;
            Num::Float(f64::from_bits(lo | hi << 32))
        }
        Elem::U32 => Num::Int(*words.get(k)? as i64),
        Elem::I32 => Num::Int(*words.get(k)? as i32 as i64),
        Elem::U8 | Elem::U16 => {
            Num::Int(warpsim_kernel::narrow::element(elem, words, k as u64)? as i64)
        }
        Elem::I8 | Elem::I16 => {
            Num::Int(warpsim_kernel::narrow::element(elem, words, k as u64)? as i32 as i64)
        }
        Elem::F16 | Elem::BF16 => {
            let h = elem.half()?;
            Num::Float(h.to_f64(warpsim_kernel::narrow::element(elem, words, k as u64)? as u16))
        }
    })
}

/// Which buffers' initial contents some `expect` reads (the others need not be kept for
/// [`check`]).
pub fn referenced_buffers(prog: &Program) -> Vec<bool> {
    pub(super) fn walk(n: &Node, prog: &Program, out: &mut [bool]) {
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
            if let Some(Some(src)) = permutation_source(&e.node) {
                if let Some(k) = prog.buffers.iter().position(|b| b.name == src) {
                    out[k] = true;
                }
            }
            walk(&e.node, prog, &mut out);
        }
    }
    out
}

/// What one chunk of elements gave.
#[derive(Clone, Copy)]
pub(super) struct Acc {
    pub(super) count: u64,
    pub(super) first: Option<u64>,
    pub(super) max_err: f64,
}

impl Acc {
    pub(super) const ZERO: Acc = Acc {
        count: 0,
        first: None,
        max_err: 0.0,
    };
    pub(super) fn join(self, b: Acc) -> Acc {
        Acc {
            count: self.count + b.count,
            first: match (self.first, b.first) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            max_err: self.max_err.max(b.max_err),
        }
    }
    pub(super) fn miss(&mut self, i: u64) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(i);
        }
    }
}

/// A chunk of an integer buffer: its mismatches and the reference at the first, or the
/// first element whose reference faulted.
pub(super) type ChunkResult = Result<(Acc, Option<u32>), (u64, EvalFault)>;

/// One buffer's reference lowered to closures (and, where it can be, to columns), evaluated
/// chunk by chunk.
pub(super) struct Reference<'a> {
    pub(super) root: Fx<'a>,
    /// The same reference as columns ([`columns`](super::columns)): runs of elements at once.
    pub(super) cols: Option<Columns<'a>>,
    pub(super) nslots: usize,
    pub(super) max_terms: u64,
    /// Elements in the buffer.
    pub(super) len: usize,
}

impl<'a> Reference<'a> {
    /// `c` over the buffers `srcs`, for a buffer of `len` elements.
    pub(super) fn new(c: &Compiled, srcs: &[Src<'a>], max_terms: u64, len: u64) -> Self {
        Reference {
            root: lower(&c.root, srcs),
            cols: fast_on().then(|| Columns::build(&c.root, srcs)).flatten(),
            nslots: c.nslots,
            max_terms,
            len: len as usize,
        }
    }

    pub(super) fn chunks(&self) -> usize {
        self.len.div_ceil(CHUNK)
    }

    /// Evaluates the elements of chunk `ci` in order, handing each index and value to
    /// `each`; stops at the first fault.
    pub(super) fn eval_chunk(
        &self,
        ci: usize,
        mut each: impl FnMut(usize, u64),
    ) -> Result<(), (u64, EvalFault)> {
        let mut st = St {
            slots: vec![0; self.nslots],
            fault: None,
            budget: self.max_terms,
        };
        let (from, to) = (ci * CHUNK, ((ci + 1) * CHUNK).min(self.len));
        let Some(cols) = &self.cols else {
            return self.eval_each(from, to, &mut st, &mut each);
        };
        let mut scratch = cols.scratch();
        let mut out = [0u64; RUN];
        for base in (from..to).step_by(RUN) {
            let out = &mut out[..RUN.min(to - base)];
            if cols.eval(base, out, &mut scratch, &mut st, self.max_terms) {
                for (k, &v) in out.iter().enumerate() {
                    each(base + k, v);
                }
            } else {
                // An element faulted: the closures say which, and how.
                self.eval_each(base, base + out.len(), &mut st, &mut each)?;
            }
        }
        Ok(())
    }

    /// Elements `from .. to` one by one through the closures.
    fn eval_each(
        &self,
        from: usize,
        to: usize,
        st: &mut St,
        each: &mut impl FnMut(usize, u64),
    ) -> Result<(), (u64, EvalFault)> {
        for i in from..to {
            st.slots[0] = i as u32 as u64;
            st.budget = self.max_terms;
            let v = (self.root)(st);
            if let Some(f) = st.fault.take() {
                return Err((i as u64, f));
            }
            each(i, v);
        }
        Ok(())
    }
}

/// Joins chunks' results in order, keeping the reference at the first mismatch.
fn join_chunks<W>(found: impl IntoIterator<Item = (Acc, Option<W>)>) -> (Acc, Option<W>) {
    let mut acc = Acc::ZERO;
    let mut want = None;
    for (a, w) in found {
        if acc.first.is_none() && a.first.is_some() {
            want = w;
        }
        acc = acc.join(a);
    }
    (acc, want)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn check_buffer(
    prog: &Program,
    k: usize,
    bi: &BufferInfo,
    ex: &Expect,
    c: &Compiled,
    srcs: &[Src],
    got: &[u32],
    max_terms: u64,
) -> Result<Verdict, Diag> {
    let r = Reference::new(c, srcs, max_terms, bi.len);
    let fail = |(i, f): (u64, EvalFault)| fault_diag(prog, bi, ex, c, srcs, i, f, max_terms);
    let (acc, tol, want_of) = if matches!(bi.elem, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16) {
        let (acc, tol, want) = check_floats(&r, c.ty, bi.elem, got, ex.tolerance).map_err(fail)?;
        (acc, Some(tol), want)
    } else {
        let (acc, want) = check_ints(&r, c.ty, bi.elem, got).map_err(fail)?;
        (acc, None, want)
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
        check: None,
        first_failure: None,
    })
}

/// A float buffer: the tolerance scales with the largest reference value. Without keeping
/// every reference (which would take as much memory as a buffer of f64), a first pass gives
/// per chunk the largest reference, the largest error, and the largest error of an element
/// that is not exactly right (a NaN error counting as infinite): a chunk where that is
/// within the tolerance has no mismatch, and only the other chunks are computed again to
/// find theirs. Returns the mismatches, the absolute tolerance and the first mismatch's
/// reference.
fn check_floats(
    r: &Reference,
    ty: RefTy,
    elem: Elem,
    got: &[u32],
    tolerance: f64,
) -> Result<(Acc, f64, Option<Num>), (u64, EvalFault)> {
    let to_f = |v: u64| match ty {
        RefTy::F => f(v),
        RefTy::I32 => v as u32 as i32 as f64,
        RefTy::U32 => v as u32 as f64,
    };
    let got_of = |i: usize| match elem_value(elem, got, i) {
        Some(Num::Float(g)) => g,
        _ => f64::NAN,
    };
    let firsts: Vec<Result<[f64; 3], (u64, EvalFault)>> = (0..r.chunks())
        .into_par_iter()
        .map(|ci| {
            let [mut max_ref, mut max_err, mut worst] = [0f64; 3];
            r.eval_chunk(ci, |i, v| {
                let (g, w) = (got_of(i), to_f(v));
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
    let pass = firsts.into_iter().collect::<Result<Vec<_>, _>>()?;
    let max = pass.iter().fold(0f64, |m, p| m.max(p[0]));
    let tol = tolerance * max.max(1.0);
    let max_err = pass.iter().fold(0f64, |m, p| m.max(p[1]));
    let recheck: Vec<usize> = (0..pass.len()).filter(|&ci| pass[ci][2] > tol).collect();
    let found: Vec<(Acc, Option<f64>)> = recheck
        .par_iter()
        .map(|&ci| {
            let mut a = Acc::ZERO;
            let mut first_want = None;
            // (The first pass evaluated this chunk without a fault.)
            let _ = r.eval_chunk(ci, |i, v| {
                let (g, w) = (got_of(i), to_f(v));
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
    let (mut acc, want) = join_chunks(found);
    acc.max_err = max_err;
    Ok((acc, tol, want.map(Num::Float)))
}

/// An integer buffer: exact, so each element is compared as soon as it is computed. Returns
/// the mismatches and the first mismatch's reference.
fn check_ints(
    r: &Reference,
    ty: RefTy,
    elem: Elem,
    got: &[u32],
) -> Result<(Acc, Option<Num>), (u64, EvalFault)> {
    let signed = matches!(elem, Elem::I32 | Elem::I8 | Elem::I16);
    // (A narrow element compares its own bits: the reference is truncated to them, as a C
    // cast to the element type would.)
    let to_bits = |v: u64| {
        let v = match (ty, signed) {
            (RefTy::F, true) => f(v) as i32 as u32,
            (RefTy::F, false) => f(v) as u32,
            _ => v as u32,
        };
        warpsim_kernel::narrow::widen(elem, v & warpsim_kernel::narrow::mask(elem.bytes()))
    };
    let narrow = elem.is_narrow();
    let got_at = |i: usize| {
        if narrow {
            warpsim_kernel::narrow::element(elem, got, i as u64)
        } else {
            got.get(i).copied()
        }
    };
    let chunks: Vec<ChunkResult> = (0..r.chunks())
        .into_par_iter()
        .map(|ci| {
            let mut a = Acc::ZERO;
            let mut first_want = None;
            r.eval_chunk(ci, |i, v| {
                let w = to_bits(v);
                if got_at(i) != Some(w) {
                    if a.first.is_none() {
                        first_want = Some(w);
                    }
                    a.miss(i as u64);
                }
            })?;
            Ok((a, first_want))
        })
        .collect();
    let (acc, want) = join_chunks(chunks.into_iter().collect::<Result<Vec<_>, _>>()?);
    let want = want.map(|w| Num::Int(if signed { w as i32 as i64 } else { w as i64 }));
    Ok((acc, want))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn fault_diag(
    prog: &Program,
    bi: &BufferInfo,
    ex: &Expect,
    c: &Compiled,
    srcs: &[Src],
    i: u64,
    fault: EvalFault,
    max_terms: u64,
) -> Diag {
    match fault {
        EvalFault::Oob { buf, index, span } => {
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
        EvalFault::DivZero { span } => err_at(
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
        EvalFault::Terms { span } => err_at(
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
