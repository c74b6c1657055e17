//! Lowering calls of the built-in functions (`min`, `max`, `abs`, `sqrt`, `fma`, `select`,
//! conversions).

use super::*;
use warpsim_kernel::expr::builtins::{self, Builtin, BuiltinInfo, Context, Returns};

impl Loader<'_> {
    pub(super) fn call(&mut self, f: &str, args: &[Node], site: Site, n: &Node) -> R<Val> {
        let Some(info) = builtins::lookup(f, Context::Kernel) else {
            return Err(self.err_node(
                site,
                n,
                format!("unknown function `{f}`"),
                Some(format!("functions: {}", builtins::names(Context::Kernel))),
            ));
        };
        if info.builtin.is_warp() {
            return self.warp_op(info, args, site, n);
        }
        let arity = info.arity;
        if args.len() != arity {
            return Err(self.err_node(
                site,
                n,
                format!("`{f}` takes {arity} argument(s), not {}", args.len()),
                None,
            ));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a, site)?);
        }
        match info.builtin {
            Builtin::Min | Builtin::Max => self.min_max(info, &vals, site, n),
            Builtin::Abs | Builtin::Sqrt => self.abs_sqrt(info, &vals, site, n),
            Builtin::Fma => self.fma(&vals, site, n),
            Builtin::Exp | Builtin::Popc => self.exp_popc(info, vals[0], site, n),
            Builtin::Select => {
                let c = self.truth(vals[0], site, &args[0])?;
                self.select(c, vals[1], vals[2], site, n)
            }
            // Conversions (`sum` is not callable in kernels).
            _ => self.convert(info, &vals, site, n),
        }
    }

    /// `min(a, b)`, `max(a, b)` in the operands' common type.
    fn min_max(&mut self, info: &BuiltinInfo, vals: &[Val], site: Site, n: &Node) -> R<Val> {
        let (x, y, t) = self.unify(vals[0], vals[1], site, n)?;
        if let (Val::Const(a), Val::Const(b)) = (x, y) {
            let (p, q) = (const_f64(a), const_f64(b));
            let min = info.builtin == Builtin::Min;
            let pick_a = if min { p <= q } else { p >= q };
            return Ok(Val::Const(if pick_a { a } else { b }));
        }
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let dst = self.alloc_temp(t.words())?;
        let min = info.builtin == Builtin::Min;
        self.emit(match t {
            KernelTy::I32 => {
                if min {
                    Inst::MinS { dst, a, b }
                } else {
                    Inst::MaxS { dst, a, b }
                }
            }
            KernelTy::U32 | KernelTy::Bool => {
                if min {
                    Inst::MinU { dst, a, b }
                } else {
                    Inst::MaxU { dst, a, b }
                }
            }
            KernelTy::F32 => {
                if min {
                    Inst::FMin { dst, a, b }
                } else {
                    Inst::FMax { dst, a, b }
                }
            }
            KernelTy::F64 => {
                if min {
                    Inst::DMin { dst, a, b }
                } else {
                    Inst::DMax { dst, a, b }
                }
            }
            KernelTy::F16 | KernelTy::BF16 => {
                let op = if min {
                    warpsim_kernel::fp16::HalfOp::Min
                } else {
                    warpsim_kernel::fp16::HalfOp::Max
                };
                match self.half_op(op, t, dst, a, b, a) {
                    Some(i) => i,
                    None => unreachable!("a half type has a format"),
                }
            }
        });
        Ok(Val::Reg(dst, t))
    }

    /// `abs(x)`, `sqrt(x)`.
    fn abs_sqrt(&mut self, info: &BuiltinInfo, vals: &[Val], site: Site, n: &Node) -> R<Val> {
        let f = info.name;
        let v = vals[0];
        let abs = info.builtin == Builtin::Abs;
        if let Val::Const(c) = v {
            return Ok(Val::Const(match (abs, c) {
                (true, Const::Int(x, t)) => Const::Int(x.abs(), t),
                (true, Const::Float(x, t)) => Const::Float(x.abs(), t),
                // (The type stays: `sqrt(f64(2))` is an f64, as at run time.)
                (_, Const::Float(x, Some(KernelTy::F32))) => {
                    Const::Float((x as f32).sqrt() as f64, Some(KernelTy::F32))
                }
                (_, Const::Float(x, t)) => Const::Float(x.sqrt(), t),
                (_, c) => Const::Float(const_f64(c).sqrt(), None),
            }));
        }
        let Val::Reg(a, t) = v else { unreachable!() };
        let dst = self.alloc_temp(t.words())?;
        self.emit(match (abs, t) {
            (true, KernelTy::I32) => Inst::AbsS { dst, a },
            (true, KernelTy::U32) => Inst::Mov { dst, a },
            (true, KernelTy::F32) => Inst::FAbs { dst, a },
            (true, KernelTy::F64) => Inst::DAbs { dst, a },
            (false, KernelTy::F32) => Inst::FSqrt { dst, a },
            (false, KernelTy::F64) => Inst::DSqrt { dst, a },
            (true, KernelTy::F16 | KernelTy::BF16) => Inst::Half {
                op: warpsim_kernel::fp16::HalfOp::Abs,
                fmt: t.half().unwrap_or(warpsim_kernel::fp16::Half::F16),
                dst,
                a,
                b: a,
                c: a,
            },
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("`{f}` does not apply to {}", t.name()),
                    Some("convert the argument: f32(…)".to_owned()),
                ))
            }
        });
        Ok(Val::Reg(dst, t))
    }

    /// `fma(a, b, c)` on floats of one type.
    fn fma(&mut self, vals: &[Val], site: Site, n: &Node) -> R<Val> {
        let (x, y, t) = self.unify(vals[0], vals[1], site, n)?;
        let (_, z, t2) = self.unify(Val::Reg(Reg(0), t), vals[2], site, n)?;
        if !t2.is_float() || t != t2 {
            return Err(self.err_node(
                site,
                n,
                "fma takes floats of one type".to_owned(),
                Some("convert the arguments: f32(…)".to_owned()),
            ));
        }
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let c = self.materialize(z, t)?;
        let dst = self.alloc_temp(t.words())?;
        self.emit(match t {
            KernelTy::F32 => Inst::FFma { dst, a, b, c },
            KernelTy::F16 | KernelTy::BF16 => Inst::Half {
                op: warpsim_kernel::fp16::HalfOp::Fma,
                fmt: t.half().unwrap_or(warpsim_kernel::fp16::Half::F16),
                dst,
                a,
                b,
                c,
            },
            _ => Inst::DFma { dst, a, b, c },
        });
        Ok(Val::Reg(dst, t))
    }

    /// `i32(x)`, `u32(x)`, `f32(x)`, `f64(x)`.
    fn convert(&mut self, info: &BuiltinInfo, vals: &[Val], site: Site, n: &Node) -> R<Val> {
        let f = info.name;
        // Conversions (`sum` is not callable in kernels).
        let Returns::Convert(elem) = info.returns else {
            return Err(self.err_node(site, n, format!("`{f}` is not a kernel function"), None));
        };
        let to = KernelTy::of(elem);
        match vals[0] {
            Val::Const(c) => Ok(Val::Const(match (c, to) {
                (Const::Int(x, _), KernelTy::I32) => {
                    Const::Int(x as i32 as i64, Some(KernelTy::I32))
                }
                (Const::Int(x, _), KernelTy::U32) => {
                    Const::Int(x as u32 as i64, Some(KernelTy::U32))
                }
                (Const::Float(x, _), KernelTy::I32) => {
                    Const::Int(x as i32 as i64, Some(KernelTy::I32))
                }
                (Const::Float(x, _), KernelTy::U32) => {
                    Const::Int(x as u32 as i64, Some(KernelTy::U32))
                }
                (c, t) => Const::Float(super::lower_half::round_const(const_f64(c), t), Some(t)),
            })),
            Val::Reg(a, from) => {
                if from == to
                    || (from.is_int() && to.is_int())
                    || (from == KernelTy::Bool && to.is_int())
                {
                    return Ok(Val::Reg(a, to));
                }
                let dst = self.alloc_temp(to.words())?;
                self.emit(Inst::Cvt {
                    dst,
                    a,
                    from: from.elem(),
                    to: to.elem(),
                });
                Ok(Val::Reg(dst, to))
            }
        }
    }
}
