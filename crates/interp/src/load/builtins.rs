//! Lowering calls of the built-in functions (`min`, `max`, `abs`, `sqrt`, `fma`, `select`,
//! conversions).

use super::*;

impl Loader<'_> {
    pub(super) fn call(&mut self, f: &str, args: &[Node], site: Site, n: &Node) -> R<Val> {
        let arity = match f {
            "min" | "max" => 2,
            "abs" | "sqrt" | "i32" | "u32" | "f32" | "f64" => 1,
            "fma" | "select" => 3,
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("unknown function `{f}`"),
                    Some(format!("functions: {}", FUNCTIONS.join(", "))),
                ))
            }
        };
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
        match f {
            "min" | "max" => {
                let (x, y, t) = self.unify(vals[0], vals[1], site, n)?;
                if let (Val::Const(a), Val::Const(b)) = (x, y) {
                    let (p, q) = (const_f64(a), const_f64(b));
                    let pick_a = if f == "min" { p <= q } else { p >= q };
                    return Ok(Val::Const(if pick_a { a } else { b }));
                }
                let a = self.materialize(x, t)?;
                let b = self.materialize(y, t)?;
                let dst = self.alloc_temp(t.words())?;
                let min = f == "min";
                self.emit(match t {
                    Ty::I32 => {
                        if min {
                            Inst::MinS { dst, a, b }
                        } else {
                            Inst::MaxS { dst, a, b }
                        }
                    }
                    Ty::U32 | Ty::Bool => {
                        if min {
                            Inst::MinU { dst, a, b }
                        } else {
                            Inst::MaxU { dst, a, b }
                        }
                    }
                    Ty::F32 => {
                        if min {
                            Inst::FMin { dst, a, b }
                        } else {
                            Inst::FMax { dst, a, b }
                        }
                    }
                    Ty::F64 => {
                        if min {
                            Inst::DMin { dst, a, b }
                        } else {
                            Inst::DMax { dst, a, b }
                        }
                    }
                });
                Ok(Val::Reg(dst, t))
            }
            "abs" | "sqrt" => {
                let v = vals[0];
                if let Val::Const(c) = v {
                    return Ok(Val::Const(match (f, c) {
                        ("abs", Const::Int(x, t)) => Const::Int(x.abs(), t),
                        ("abs", Const::Float(x, t)) => Const::Float(x.abs(), t),
                        // (The type stays: `sqrt(f64(2))` is an f64, as at run time.)
                        (_, Const::Float(x, Some(Ty::F32))) => {
                            Const::Float((x as f32).sqrt() as f64, Some(Ty::F32))
                        }
                        (_, Const::Float(x, t)) => Const::Float(x.sqrt(), t),
                        (_, c) => Const::Float(const_f64(c).sqrt(), None),
                    }));
                }
                let Val::Reg(a, t) = v else { unreachable!() };
                let dst = self.alloc_temp(t.words())?;
                self.emit(match (f, t) {
                    ("abs", Ty::I32) => Inst::AbsS { dst, a },
                    ("abs", Ty::U32) => Inst::Mov { dst, a },
                    ("abs", Ty::F32) => Inst::FAbs { dst, a },
                    ("abs", Ty::F64) => Inst::DAbs { dst, a },
                    ("sqrt", Ty::F32) => Inst::FSqrt { dst, a },
                    ("sqrt", Ty::F64) => Inst::DSqrt { dst, a },
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
            "fma" => {
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
                self.emit(if t == Ty::F32 {
                    Inst::FFma { dst, a, b, c }
                } else {
                    Inst::DFma { dst, a, b, c }
                });
                Ok(Val::Reg(dst, t))
            }
            "select" => {
                let c = self.truth(vals[0], site, &args[0])?;
                self.select(c, vals[1], vals[2], site, n)
            }
            _ => {
                // Conversions.
                let to = match f {
                    "i32" => Ty::I32,
                    "u32" => Ty::U32,
                    "f32" => Ty::F32,
                    _ => Ty::F64,
                };
                match vals[0] {
                    Val::Const(c) => Ok(Val::Const(match (c, to) {
                        (Const::Int(x, _), Ty::I32) => Const::Int(x as i32 as i64, Some(Ty::I32)),
                        (Const::Int(x, _), Ty::U32) => Const::Int(x as u32 as i64, Some(Ty::U32)),
                        (Const::Float(x, _), Ty::I32) => Const::Int(x as i32 as i64, Some(Ty::I32)),
                        (Const::Float(x, _), Ty::U32) => Const::Int(x as u32 as i64, Some(Ty::U32)),
                        (c, t) => Const::Float(const_f64(c), Some(t)),
                    })),
                    Val::Reg(a, from) => {
                        if from == to
                            || (from.is_int() && to.is_int())
                            || (from == Ty::Bool && to.is_int())
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
    }
}
