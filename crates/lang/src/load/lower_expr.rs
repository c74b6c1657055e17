//! Lowering expressions: arrays and their indices, names, operators, constant folding and
//! strength reduction.

use super::*;

impl Loader<'_> {
    /// Resolves an `a[i]…` node to its array: (space, index, element type, rank).
    pub(super) fn array_of(&self, n: &Node, site: Site) -> R<(Space, u16, Elem, u8)> {
        let Kind::Index(name, idx) = &n.kind else {
            return Err(self.err_node(
                site,
                n,
                "expected an array element such as `tile[r][c]`".to_owned(),
                None,
            ));
        };
        if let Some(i) = self.shared.iter().position(|s| &s.name == name) {
            let s = &self.shared[i];
            if idx.len() != s.dims.len() {
                return Err(self.err_node(
                    site,
                    n,
                    format!(
                        "`{name}` has {} dimensions but is indexed with {}",
                        s.dims.len(),
                        idx.len()
                    ),
                    Some(format!("write {name}{}", "[…]".repeat(s.dims.len()))),
                ));
            }
            return Ok((Space::Shared, i as u16, s.elem, idx.len() as u8));
        }
        if let Some(i) = self.buffers.iter().position(|b| &b.name == name) {
            if idx.len() != 1 {
                return Err(self.err_node(
                    site,
                    n,
                    format!(
                        "buffer `{name}` is one-dimensional but is indexed with {} indices",
                        idx.len()
                    ),
                    Some(format!("compute a flat index: {name}[row * width + col]")),
                ));
            }
            return Ok((Space::Global, i as u16, self.buffers[i].elem, 1));
        }
        Err(self.err_node(
            site,
            n,
            format!("no array named `{name}`"),
            Some(self.array_list()),
        ))
    }

    pub(super) fn array_list(&self) -> String {
        let names: Vec<_> = self
            .shared
            .iter()
            .map(|s| s.name.as_str())
            .chain(self.buffers.iter().map(|b| b.name.as_str()))
            .collect();
        if names.is_empty() {
            "the program declares no arrays".into()
        } else {
            format!("arrays: {}", names.join(", "))
        }
    }

    /// Compiles index expressions into registers, checking constant ones against the bounds.
    pub(super) fn indices(
        &mut self,
        space: Space,
        array: u16,
        idx: &[Node],
        site: Site,
        vec: u8,
    ) -> R<[Reg; 3]> {
        let dims: Vec<u64> = match space {
            Space::Shared => self.shared[array as usize]
                .dims
                .iter()
                .map(|&d| d as u64)
                .collect(),
            // (RON kernels have no local memory: the loader asks only for shared and global.)
            Space::Global | Space::Local | Space::Const => vec![self.buffers[array as usize].len],
        };
        let name = match space {
            Space::Shared => self.shared[array as usize].name.clone(),
            Space::Global | Space::Local | Space::Const => {
                self.buffers[array as usize].name.clone()
            }
        };
        let mut out = [Reg(0); 3];
        for (d, n) in idx.iter().enumerate() {
            let v = self.expr(n, site)?;
            let last = d + 1 == idx.len();
            if let Val::Const(Const::Int(x, _)) = v {
                let extra = if last { vec as i64 - 1 } else { 0 };
                if x < 0 || x >= dims[d] as i64 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!(
                            "index {x} is out of bounds: dimension {d} of `{name}` has {} elements",
                            dims[d]
                        ),
                        Some("indices run from 0 to the size minus 1".to_owned()),
                    ));
                }
                if x + extra >= dims[d] as i64 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!(
                            "the {vec} elements from index {x} reach index {}, past the end: \
                             dimension {d} of `{name}` has {} elements",
                            x + extra,
                            dims[d]
                        ),
                        Some(if dims[d] as i64 >= vec as i64 {
                            format!(
                                "a vector of {vec} starts at most at index {} here",
                                dims[d] as i64 - vec as i64
                            )
                        } else {
                            format!("use fewer than {vec} elements, or a longer `{name}`")
                        }),
                    ));
                }
            }
            let v = match v {
                Val::Reg(_, t) if !t.is_int() => {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("an index must be an integer, and this is {}", t.name()),
                        Some("convert it: i32(…)".to_owned()),
                    ))
                }
                Val::Const(Const::Float(..)) => {
                    return Err(self.err_node(
                        site,
                        n,
                        "an index must be an integer".to_owned(),
                        Some("convert it: i32(…)".to_owned()),
                    ))
                }
                v => v,
            };
            out[d] = self.materialize(v, KernelTy::I32)?;
        }
        Ok(out)
    }

    // ---- expressions ---------------------------------------------------------------------

    pub(super) fn expr(&mut self, n: &Node, site: Site) -> R<Val> {
        match &n.kind {
            Kind::Int { value, unsigned } => {
                if *unsigned && (*value < 0 || *value > u32::MAX as i64) {
                    return Err(self.err_node(
                        site,
                        n,
                        "this constant does not fit in u32".to_owned(),
                        None,
                    ));
                }
                Ok(Val::Const(Const::Int(
                    *value,
                    unsigned.then_some(KernelTy::U32),
                )))
            }
            Kind::Float(v) => Ok(Val::Const(Const::Float(*v, None))),
            Kind::Name(name) => self.name(name, n, site),
            Kind::Index(..) => {
                let (space, array, elem, rank) = self.array_of(n, site)?;
                let Kind::Index(_, idx) = &n.kind else {
                    unreachable!("array_of checks")
                };
                let idx = self.indices(space, array, idx, site, 1)?;
                let ty = KernelTy::of(elem);
                let data = self.alloc_temp(ty.words())?;
                let text = self.node_text(n, site);
                self.emit_at(
                    Inst::Load(Mem {
                        space,
                        array,
                        rank,
                        idx,
                        vec: 1,
                        data,
                        elem: None,
                    }),
                    site,
                    n,
                    text,
                );
                Ok(Val::Reg(data, ty))
            }
            Kind::Unary(op, a) => {
                let v = self.expr(a, site)?;
                self.unary(*op, v, site, n)
            }
            Kind::Binary(op, a, b) => {
                let x = self.expr(a, site)?;
                let y = self.expr(b, site)?;
                self.binary(*op, x, y, site, n)
            }
            Kind::Cond(c, a, b) => {
                let cv = self.expr(c, site)?;
                let x = self.expr(a, site)?;
                let y = self.expr(b, site)?;
                if let Val::Const(Const::Int(k, _)) = cv {
                    if matches!((x, y), (Val::Const(_), Val::Const(_))) {
                        return Ok(if k != 0 { x } else { y });
                    }
                }
                let cr = self.truth(cv, site, c)?;
                self.select(cr, x, y, site, n)
            }
            Kind::Call(f, _) if self.is_function_call(n) => Err(self.nested_call(f, site, n)),
            Kind::Call(f, args) => self.call(f, args, site, n),
        }
    }

    pub(super) fn node_text(&self, n: &Node, site: Site) -> String {
        match site.base {
            Some(b) => self
                .src
                .get(b + n.start..b + n.end)
                .unwrap_or("")
                .to_owned(),
            None => String::new(),
        }
    }

    pub(super) fn name(&mut self, name: &str, n: &Node, site: Site) -> R<Val> {
        if let Some(v) = self.lookup(name) {
            return Ok(Val::Reg(v.reg, v.ty));
        }
        if let Some(v) = self.define(name) {
            return Ok(Val::Const(Const::Int(v, None)));
        }
        if let Some(s) = special(name) {
            let r = self.special_reg(s)?;
            return Ok(Val::Reg(r, KernelTy::I32));
        }
        if self.shared.iter().any(|s| s.name == name) || self.buffers.iter().any(|b| b.name == name)
        {
            return Err(self.err_node(
                site,
                n,
                format!("`{name}` is an array"),
                Some(format!("index it: {name}[…]")),
            ));
        }
        let mut known: Vec<&str> = self
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(|k| k.as_str()))
            .collect();
        known.sort();
        known.dedup();
        let close = known
            .iter()
            .find(|k| similar(k, name))
            .map(|k| format!("did you mean `{k}`? "));
        Err(self.err_node(
            site,
            n,
            format!("unknown name `{name}`"),
            Some(format!(
                "{}registers here: {}; defines: {}; special registers: tid.x/y/z, tid, ctaid.*, ntid.*, nctaid.*, laneid, warpid",
                close.unwrap_or_default(),
                if known.is_empty() { "none".to_owned() } else { known.join(", ") },
                self.define_list()
            )),
        ))
    }

    /// Types both operands alike: literals adopt the other side's type; i32 with u32 gives u32.
    pub(super) fn unify(
        &mut self,
        x: Val,
        y: Val,
        site: Site,
        n: &Node,
    ) -> R<(Val, Val, KernelTy)> {
        let t = match (x, y) {
            (Val::Reg(_, a), Val::Reg(_, b)) => {
                if a == b {
                    a
                } else if a.is_int() && b.is_int() {
                    KernelTy::U32
                } else {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("mismatched types: {} and {}", a.name(), b.name()),
                        Some(format!(
                            "convert one side, e.g. {}(…)",
                            if a.is_float() { a.name() } else { b.name() }
                        )),
                    ));
                }
            }
            (Val::Reg(_, a), Val::Const(c)) | (Val::Const(c), Val::Reg(_, a)) => {
                self.check_const_fits(c, a, site, n)?;
                a
            }
            (Val::Const(a), Val::Const(b)) => match (a, b) {
                (Const::Float(_, t), _) | (_, Const::Float(_, t)) => t.unwrap_or(KernelTy::F32),
                (Const::Int(_, ta), Const::Int(_, tb)) => ta.or(tb).unwrap_or(KernelTy::I32),
            },
        };
        Ok((x, y, t))
    }

    pub(super) fn binary(&mut self, op: BinOp, x: Val, y: Val, site: Site, n: &Node) -> R<Val> {
        use BinOp::*;
        // Fold constants.
        if let (Val::Const(a), Val::Const(b)) = (x, y) {
            return self.fold(op, a, b, site, n);
        }
        if matches!(op, Shl | Shr) {
            let tx = match x {
                Val::Reg(_, t) => t,
                Val::Const(c) => default_ty(c),
            };
            if !tx.is_int() {
                return Err(self.err_node(
                    site,
                    n,
                    format!("shifts need integers, and the left side is {}", tx.name()),
                    None,
                ));
            }
            if let Val::Reg(_, t) = y {
                if !t.is_int() {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("a shift amount must be an integer, not {}", t.name()),
                        None,
                    ));
                }
            }
            let a = self.materialize(x, tx)?;
            let b = self.materialize(y, KernelTy::U32)?;
            let dst = self.alloc_temp(1)?;
            self.emit(match (op, tx) {
                (Shl, _) => Inst::Shl { dst, a, b },
                (_, KernelTy::I32) => Inst::ShrS { dst, a, b },
                _ => Inst::ShrU { dst, a, b },
            });
            return Ok(Val::Reg(dst, tx));
        }
        if matches!(op, LAnd | LOr) {
            let a = self.truth(x, site, n)?;
            let b = self.truth(y, site, n)?;
            let dst = self.alloc_temp(1)?;
            self.emit(if op == LAnd {
                Inst::And { dst, a, b }
            } else {
                Inst::Or { dst, a, b }
            });
            return Ok(Val::Reg(dst, KernelTy::Bool));
        }
        let (x, y, t) = self.unify(x, y, site, n)?;
        if let Some(v) = self.strength_reduce(op, x, y, t)? {
            return Ok(v);
        }
        let (x, y) = match op {
            Gt | Ge => (y, x),
            _ => (x, y),
        };
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
        let rt = if cmp { KernelTy::Bool } else { t };
        let dst = self.alloc_temp(rt.words())?;
        let bad = |s: &Self| {
            Err(s.err_node(
                site,
                n,
                format!("`{}` does not apply to {}", op.symbol(), t.name()),
                Some(match t {
                    KernelTy::Bool => "compare with == / != or combine with && / ||".to_owned(),
                    _ => "convert the operands to an integer type".to_owned(),
                }),
            ))
        };
        let inst = match t {
            KernelTy::I32 | KernelTy::U32 | KernelTy::Bool => {
                let s = t == KernelTy::I32;
                match op {
                    Add if t != KernelTy::Bool => Inst::Add { dst, a, b },
                    Sub if t != KernelTy::Bool => Inst::Sub { dst, a, b },
                    Mul if t != KernelTy::Bool => Inst::Mul { dst, a, b },
                    Div if t != KernelTy::Bool => {
                        if s {
                            Inst::DivS { dst, a, b }
                        } else {
                            Inst::DivU { dst, a, b }
                        }
                    }
                    Rem if t != KernelTy::Bool => {
                        if s {
                            Inst::RemS { dst, a, b }
                        } else {
                            Inst::RemU { dst, a, b }
                        }
                    }
                    And => Inst::And { dst, a, b },
                    Or => Inst::Or { dst, a, b },
                    Xor => Inst::Xor { dst, a, b },
                    Eq => Inst::Eq { dst, a, b },
                    Ne => Inst::Ne { dst, a, b },
                    Lt | Gt if t != KernelTy::Bool => {
                        if s {
                            Inst::LtS { dst, a, b }
                        } else {
                            Inst::LtU { dst, a, b }
                        }
                    }
                    Le | Ge if t != KernelTy::Bool => {
                        if s {
                            Inst::LeS { dst, a, b }
                        } else {
                            Inst::LeU { dst, a, b }
                        }
                    }
                    _ => return bad(self),
                }
            }
            KernelTy::F32 => match op {
                Add => Inst::FAdd { dst, a, b },
                Sub => Inst::FSub { dst, a, b },
                Mul => Inst::FMul { dst, a, b },
                Div => Inst::FDiv { dst, a, b },
                Rem => Inst::FRem { dst, a, b },
                Eq => Inst::FEq { dst, a, b },
                Ne => Inst::FNe { dst, a, b },
                Lt | Gt => Inst::FLt { dst, a, b },
                Le | Ge => Inst::FLe { dst, a, b },
                _ => return bad(self),
            },
            KernelTy::F64 => match op {
                Add => Inst::DAdd { dst, a, b },
                Sub => Inst::DSub { dst, a, b },
                Mul => Inst::DMul { dst, a, b },
                Div => Inst::DDiv { dst, a, b },
                Rem => Inst::DRem { dst, a, b },
                Eq => Inst::DEq { dst, a, b },
                Ne => Inst::DNe { dst, a, b },
                Lt | Gt => Inst::DLt { dst, a, b },
                Le | Ge => Inst::DLe { dst, a, b },
                _ => return bad(self),
            },
            KernelTy::F16 | KernelTy::BF16 => match self.half_binary(op, t, dst, a, b) {
                Some(i) => i,
                None => return bad(self),
            },
        };
        let product = matches!(inst, Inst::Mul { .. });
        // Point faults (division by zero) at the operation itself.
        let text = self.cur.2.clone();
        let pc = self.emit_at(inst, site, n, text);
        self.last_product = product.then_some(pc as usize);
        Ok(Val::Reg(dst, rt))
    }

    /// Cheaper instructions for a few integer operations, with the same results:
    ///
    /// * `x * y + z` (or `z + x * y`) whose product was the instruction just emitted, into a
    ///   temporary: one [`Inst::Mad`] instead of the `Mul` and an `Add`;
    /// * division and remainder by a constant power of two: shifts and masks instead of a
    ///   division in every lane (32 hardware divides: about 70 ns more per warp instruction
    ///   than a mask, measured).
    ///
    /// `None`: nothing to do, lower `x op y` as it is.
    pub(super) fn strength_reduce(
        &mut self,
        op: BinOp,
        x: Val,
        y: Val,
        t: KernelTy,
    ) -> R<Option<Val>> {
        if !matches!(t, KernelTy::I32 | KernelTy::U32) {
            return Ok(None);
        }
        match (op, x, y) {
            (BinOp::Add, x, y) => {
                let Some(&Inst::Mul { dst, a, b }) = self.code.last() else {
                    return Ok(None);
                };
                // The product must be this expression's own: a temporary (a variable's
                // register keeps its value for later reads) that `binary` has just written.
                if self.last_product != Some(self.code.len() - 1)
                    || self.fixed.get(dst.0 as usize).copied().unwrap_or(false)
                {
                    return Ok(None);
                }
                let other = match (x, y) {
                    (Val::Reg(p, _), other) | (other, Val::Reg(p, _)) if p == dst => other,
                    _ => return Ok(None),
                };
                // (`other` is a register or a constant: neither emits an instruction.)
                let c = self.materialize(other, t)?;
                if let Some(last) = self.code.last_mut() {
                    *last = Inst::Mad { dst, a, b, c };
                }
                self.last_product = None;
                Ok(Some(Val::Reg(dst, t)))
            }
            (BinOp::Div | BinOp::Rem, x @ Val::Reg(..), Val::Const(Const::Int(d, _)))
                if (2..=1 << 30).contains(&d) && (d as u64).is_power_of_two() =>
            {
                let k = d.trailing_zeros() as u8;
                let a = self.materialize(x, t)?;
                let dst = self.alloc_temp(1)?;
                let inst = match (op, t) {
                    (BinOp::Div, KernelTy::I32) => Inst::DivS2 { dst, a, k },
                    (BinOp::Rem, KernelTy::I32) => Inst::RemS2 { dst, a, k },
                    (BinOp::Div, _) => Inst::ShrU {
                        dst,
                        a,
                        b: self.const_reg(k as u64, KernelTy::U32)?,
                    },
                    _ => Inst::And {
                        dst,
                        a,
                        b: self.const_reg(d as u64 - 1, KernelTy::U32)?,
                    },
                };
                self.emit(inst);
                Ok(Some(Val::Reg(dst, t)))
            }
            _ => Ok(None),
        }
    }

    pub(super) fn fold(&self, op: BinOp, a: Const, b: Const, site: Site, n: &Node) -> R<Val> {
        use BinOp::*;
        let err = |m: String| self.err_node(site, n, m, None);
        Ok(Val::Const(match (a, b) {
            (Const::Int(x, ta), Const::Int(y, tb)) => {
                let t = ta.or(tb);
                let v = if t == Some(KernelTy::U32) {
                    // u32 arithmetic wraps, as it does at run time.
                    fold_u32(op, x as u32, y as u32).map_err(err)?
                } else {
                    fold_i64(op, x, y).map_err(err)?
                };
                let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge | LAnd | LOr);
                let v = match t {
                    Some(KernelTy::U32) if !cmp => v as u32 as i64,
                    _ => v,
                };
                Const::Int(v, if cmp { None } else { t })
            }
            (a, b) => {
                let x = const_f64(a);
                let y = const_f64(b);
                let t = match (a, b) {
                    (Const::Float(_, t), _) | (_, Const::Float(_, t)) => t,
                    _ => None,
                };
                let r = match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    Div => x / y,
                    Rem => x % y,
                    Eq => return Ok(Val::Const(Const::Int((x == y) as i64, None))),
                    Ne => return Ok(Val::Const(Const::Int((x != y) as i64, None))),
                    Lt => return Ok(Val::Const(Const::Int((x < y) as i64, None))),
                    Le => return Ok(Val::Const(Const::Int((x <= y) as i64, None))),
                    Gt => return Ok(Val::Const(Const::Int((x > y) as i64, None))),
                    Ge => return Ok(Val::Const(Const::Int((x >= y) as i64, None))),
                    _ => return Err(err(format!("`{}` does not apply to floats", op.symbol()))),
                };
                Const::Float(r, t)
            }
        }))
    }

    pub(super) fn unary(&mut self, op: UnOp, v: Val, site: Site, n: &Node) -> R<Val> {
        if let Val::Const(c) = v {
            return Ok(Val::Const(match (op, c) {
                (UnOp::Neg, Const::Int(x, t)) => Const::Int(
                    x.checked_neg()
                        .ok_or_else(|| self.err_node(site, n, "overflow".to_owned(), None))?,
                    t,
                ),
                (UnOp::Neg, Const::Float(x, t)) => Const::Float(-x, t),
                (UnOp::Not, Const::Int(x, _)) => Const::Int((x == 0) as i64, None),
                (UnOp::BitNot, Const::Int(x, Some(KernelTy::U32))) => {
                    Const::Int(!(x as u32) as i64, Some(KernelTy::U32))
                }
                (UnOp::BitNot, Const::Int(x, t)) => Const::Int(!x, t),
                _ => {
                    return Err(self.err_node(
                        site,
                        n,
                        "this operator does not apply to a float".to_owned(),
                        None,
                    ))
                }
            }));
        }
        let Val::Reg(a, t) = v else { unreachable!() };
        let dst = self.alloc_temp(t.words())?;
        let inst = match (op, t) {
            (UnOp::Neg, KernelTy::I32 | KernelTy::U32) => Inst::Neg { dst, a },
            (UnOp::Neg, KernelTy::F32) => Inst::FNeg { dst, a },
            (UnOp::Neg, KernelTy::F64) => Inst::DNeg { dst, a },
            (UnOp::Neg, KernelTy::F16 | KernelTy::BF16) => Inst::Half {
                op: warpsim_kernel::fp16::HalfOp::Neg,
                fmt: t.half().unwrap_or(warpsim_kernel::fp16::Half::F16),
                dst,
                a,
                b: a,
                c: a,
            },
            (UnOp::BitNot, KernelTy::I32 | KernelTy::U32) => Inst::Not { dst, a },
            (UnOp::Not, KernelTy::Bool) => {
                let one = self.const_reg(1, KernelTy::Bool)?;
                Inst::Xor { dst, a, b: one }
            }
            (UnOp::Not, KernelTy::I32 | KernelTy::U32) => {
                let z = self.const_reg(0, t)?;
                self.emit(Inst::Eq { dst, a, b: z });
                return Ok(Val::Reg(dst, KernelTy::Bool));
            }
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("this operator does not apply to {}", t.name()),
                    None,
                ))
            }
        };
        self.emit(inst);
        Ok(Val::Reg(dst, t))
    }

    pub(super) fn select(&mut self, c: Reg, x: Val, y: Val, site: Site, n: &Node) -> R<Val> {
        let (x, y, t) = self.unify(x, y, site, n)?;
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let dst = self.alloc_temp(t.words())?;
        self.emit(if t == KernelTy::F64 {
            Inst::Select64 { dst, c, a, b }
        } else {
            Inst::Select { dst, c, a, b }
        });
        Ok(Val::Reg(dst, t))
    }
}

pub(super) fn const_f64(c: Const) -> f64 {
    match c {
        Const::Int(x, _) => x as f64,
        Const::Float(x, _) => x,
    }
}

pub(super) fn default_ty(c: Const) -> KernelTy {
    match c {
        Const::Int(_, t) => t.unwrap_or(KernelTy::I32),
        Const::Float(_, t) => t.unwrap_or(KernelTy::F32),
    }
}

/// The bits of a constant as a value of type `ty` (the low 32 bits, or 64 for f64).
pub(super) fn const_bits(c: Const, ty: KernelTy) -> u64 {
    match ty {
        KernelTy::I32 | KernelTy::U32 | KernelTy::Bool => match c {
            Const::Int(x, _) => x as u32 as u64,
            Const::Float(x, _) => x as i64 as u32 as u64,
        },
        KernelTy::F32 => (const_f64(c) as f32).to_bits() as u64,
        KernelTy::F64 => const_f64(c).to_bits(),
        KernelTy::F16 | KernelTy::BF16 => ty.half().map_or(0, |h| h.from_f64(const_f64(c))) as u64,
    }
}
