//! Compiling an `expect` expression into the [`eval`](super::eval) tree: types, names, buffers,
//! `sum` slots.

use super::*;
use warpsim_kernel::expr::builtins::{self, Builtin, Context};

/// Compiles a reference expression.
pub(super) struct Compiler<'a> {
    pub(super) prog: &'a Program,
    pub(super) expect: &'a Expect,
    /// Byte offset of the expression string in the file, if found.
    pub(super) base: Option<usize>,
    /// Names in scope: `i`, then sum variables (innermost last), with their slots.
    pub(super) vars: Vec<(String, u16)>,
    pub(super) next_slot: u16,
}

pub(super) type R<T> = Result<T, Diag>;

pub(super) fn int_const(v: i64) -> Option<(u64, RefTy)> {
    if let Ok(x) = i32::try_from(v) {
        Some((x as u32 as u64, RefTy::I32))
    } else {
        u32::try_from(v).ok().map(|x| (x as u64, RefTy::U32))
    }
}

pub(super) fn b(e: E) -> Box<E> {
    Box::new(e)
}

impl Compiler<'_> {
    pub(super) fn err(&self, n: &Node, msg: impl Into<String>, help: Option<String>) -> Diag {
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
    pub(super) fn to_f(&self, (e, t): (E, RefTy)) -> E {
        match (t, e) {
            (RefTy::F, e) => e,
            (RefTy::I32, E::Const(v)) => E::Const(fb(v as u32 as i32 as f64)),
            (RefTy::U32, E::Const(v)) => E::Const(fb(v as u32 as f64)),
            (RefTy::I32, e) => E::U(Un::S2F, b(e)),
            (RefTy::U32, e) => E::U(Un::U2F, b(e)),
        }
    }

    /// Converts to 0/1.
    pub(super) fn truth(&self, (e, t): (E, RefTy)) -> E {
        match t {
            RefTy::F => E::U(Un::FTruth, b(e)),
            _ => E::U(Un::ITruth, b(e)),
        }
    }

    pub(super) fn int(&self, n: &Node, (e, t): (E, RefTy), what: &str) -> R<(E, RefTy)> {
        if t == RefTy::F {
            return Err(self.err(
                n,
                format!("{what} must be an integer, and this is {}", t.name()),
                Some("convert it: i32(…)".into()),
            ));
        }
        Ok((e, t))
    }

    pub(super) fn compile(&mut self, n: &Node) -> R<(E, RefTy)> {
        Ok(match &n.kind {
            Kind::Int { value, unsigned } => {
                let c = if *unsigned {
                    u32::try_from(*value).ok().map(|x| (x as u64, RefTy::U32))
                } else {
                    int_const(*value)
                };
                let (v, t) =
                    c.ok_or_else(|| self.err(n, "this constant does not fit in 32 bits", None))?;
                (E::Const(v), t)
            }
            Kind::Float(v) => (E::Const(fb(*v)), RefTy::F),
            Kind::Name(name) => {
                if let Some((_, s)) = self.vars.iter().rev().find(|(v, _)| v == name) {
                    (E::Slot(*s), RefTy::I32)
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
                    Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16 => RefTy::F,
                    Elem::U32 | Elem::U8 | Elem::U16 => RefTy::U32,
                    Elem::I32 | Elem::I8 | Elem::I16 => RefTy::I32,
                };
                (
                    E::Load {
                        buf: buf as u16,
                        signed: it == RefTy::I32,
                        idx: b(i),
                        span: (n.start, n.end),
                    },
                    t,
                )
            }
            Kind::Unary(op, a) => {
                let v = self.compile(a)?;
                match (op, v.1) {
                    (UnOp::Neg, RefTy::F) => (E::U(Un::FNeg, b(v.0)), RefTy::F),
                    (UnOp::Neg, t) => (E::U(Un::INeg, b(v.0)), t),
                    (UnOp::Not, RefTy::F) => (E::U(Un::INot, b(self.truth(v))), RefTy::I32),
                    (UnOp::Not, _) => (E::U(Un::INot, b(v.0)), RefTy::I32),
                    (UnOp::BitNot, RefTy::F) => {
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

    pub(super) fn unify(&self, l: (E, RefTy), r: (E, RefTy)) -> (E, E, RefTy) {
        match (l.1, r.1) {
            (RefTy::F, _) | (_, RefTy::F) => (self.to_f(l), self.to_f(r), RefTy::F),
            (RefTy::U32, _) | (_, RefTy::U32) => (l.0, r.0, RefTy::U32),
            _ => (l.0, r.0, RefTy::I32),
        }
    }

    pub(super) fn binary(
        &self,
        op: BinOp,
        l: (E, RefTy),
        r: (E, RefTy),
        n: &Node,
    ) -> R<(E, RefTy)> {
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
                    RefTy::I32,
                ));
            }
            Shl | Shr => {
                if l.1 == RefTy::F || r.1 == RefTy::F {
                    return Err(self.err(
                        n,
                        "shifts need integers, and this has a float side",
                        Some("convert it: i32(…) or u32(…)".into()),
                    ));
                }
                let iop = match (op, l.1) {
                    (Shl, _) => IOp::Shl,
                    (_, RefTy::I32) => IOp::ShrS,
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
        let rt = if cmp { RefTy::I32 } else { t };
        if t == RefTy::F {
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
        let s = t == RefTy::I32;
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

    pub(super) fn call(&mut self, fname: &str, args: &[Node], n: &Node) -> R<(E, RefTy)> {
        let Some(info) = builtins::lookup(fname, Context::Reference) else {
            return Err(self.err(n, format!("unknown function `{fname}`"), None));
        };
        if info.builtin == Builtin::Sum {
            return self.sum(args, n);
        }
        let arity = info.arity;
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
        let mut next = || v.next().unwrap_or((E::Const(0), RefTy::I32));
        Ok(match info.builtin {
            Builtin::Min | Builtin::Max => {
                let (a, c, t) = self.unify(next(), next());
                let min = info.builtin == Builtin::Min;
                let e = match t {
                    RefTy::F => E::F2(if min { FOp::Min } else { FOp::Max }, b(a), b(c)),
                    RefTy::I32 => E::I2(
                        if min { IOp::MinS } else { IOp::MaxS },
                        b(a),
                        b(c),
                        (n.start, n.end),
                    ),
                    RefTy::U32 => E::I2(
                        if min { IOp::MinU } else { IOp::MaxU },
                        b(a),
                        b(c),
                        (n.start, n.end),
                    ),
                };
                (e, t)
            }
            Builtin::Abs => match next() {
                (e, RefTy::F) => (E::U(Un::FAbs, b(e)), RefTy::F),
                (e, RefTy::I32) => (E::U(Un::IAbs, b(e)), RefTy::I32),
                (e, RefTy::U32) => (e, RefTy::U32),
            },
            Builtin::Sqrt => {
                let x = next();
                (E::U(Un::FSqrt, b(self.to_f(x))), RefTy::F)
            }
            Builtin::Exp => {
                let x = next();
                (E::U(Un::FExp, b(self.to_f(x))), RefTy::F)
            }
            Builtin::Fma => {
                let (x, y, z) = (next(), next(), next());
                (
                    E::Fma(b(self.to_f(x)), b(self.to_f(y)), b(self.to_f(z))),
                    RefTy::F,
                )
            }
            Builtin::Select => {
                let c = next();
                let c = self.truth(c);
                let (a, e, t) = self.unify(next(), next());
                (E::Sel(b(c), b(a), b(e)), t)
            }
            Builtin::I32 | Builtin::U32 => {
                let to = if info.builtin == Builtin::I32 {
                    RefTy::I32
                } else {
                    RefTy::U32
                };
                match next() {
                    (e, RefTy::F) => (
                        E::U(if to == RefTy::I32 { Un::F2S } else { Un::F2U }, b(e)),
                        to,
                    ),
                    (e, _) => (e, to),
                }
            }
            Builtin::F32 => {
                let x = next();
                (E::U(Un::FRound32, b(self.to_f(x))), RefTy::F)
            }
            Builtin::F16 | Builtin::Bf16 => {
                let x = next();
                let un = if info.builtin == Builtin::F16 {
                    Un::FRound16
                } else {
                    Un::FRoundBf16
                };
                (E::U(un, b(self.to_f(x))), RefTy::F)
            }
            _ => {
                let x = next();
                (self.to_f(x), RefTy::F)
            }
        })
    }

    pub(super) fn sum(&mut self, args: &[Node], n: &Node) -> R<(E, RefTy)> {
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
        let unsigned = ft == RefTy::U32 || tt == RefTy::U32;
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
                float: bt == RefTy::F,
                hoisted,
                body,
                span: (n.start, n.end),
            })),
            bt,
        ))
    }

    pub(super) fn new_slot(&mut self, n: &Node) -> R<u16> {
        let s = self.next_slot;
        if s >= 4096 {
            return Err(self.err(n, "the reference nests too many sums", None));
        }
        self.next_slot += 1;
        Ok(s)
    }
}

/// An error at part of an expect expression (`span` relative to the expression string).
pub(super) fn err_at(
    prog: &Program,
    ex: &Expect,
    base: Option<usize>,
    span: (usize, usize),
    msg: impl Into<String>,
    help: Option<String>,
) -> Diag {
    match base {
        Some(b) => {
            let at = |k| warpsim_kernel::literal::offset(&prog.launch_source, b, k);
            let (start, end) = (at(span.0), at(span.1));
            Diag::at(
                Phase::Verify,
                &prog.launch_path,
                &prog.launch_source,
                start,
                (end - start).max(1),
                msg,
                help,
            )
        }
        None => Diag::at_line(
            Phase::Verify,
            &prog.launch_path,
            &prog.launch_source,
            ex.line,
            1,
            msg,
            help,
        ),
    }
}

/// Byte offset of the expect string in the file: where the loader found it, else its text,
/// searched for from its line.
pub(super) fn find_base(prog: &Program, ex: &Expect) -> Option<usize> {
    if ex.offset.is_some() {
        return ex.offset;
    }
    if ex.line == 0 || ex.text.is_empty() {
        return None;
    }
    let start = line_start(&prog.launch_source, ex.line);
    let rest = prog.launch_source.get(start..)?;
    // The string is on its line (or, for a long declaration, soon after).
    let window = rest.len().min(ex.text.len() + 4096);
    let mut end = window;
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    rest[..end].find(&ex.text).map(|o| start + o)
}

/// A compiled reference, ready to evaluate for every element.
pub(super) struct Compiled {
    pub(super) root: E,
    pub(super) ty: RefTy,
    pub(super) nslots: usize,
    pub(super) base: Option<usize>,
}

pub(super) fn compile_expect(prog: &Program, ex: &Expect) -> R<Compiled> {
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
