//! Lowering statements: declarations, assignments, stores, loops, branches, barriers.

use super::lower_tensor::BarrierStmt;
use super::*;

impl Loader<'_> {
    pub(super) fn stmt_pos(&mut self, s: &Stmt) {
        let first = match s {
            Stmt::Let(t, _) | Stmt::Set(t, _) | Stmt::Store(t, _) | Stmt::StoreVec(t, _) => t.span,
            Stmt::LoadVec(n, t) => n.first().and_then(|n| n.span).or(t.span),
            Stmt::LoadMatrix { regs, at, .. } => regs.first().and_then(|n| n.span).or(at.span),
            Stmt::StoreMatrix { at, .. } => at.span,
            Stmt::Mma { d, shape, .. } => d.first().and_then(|n| n.span).or(shape.span),
            Stmt::CopyAsync { to, .. } => to.span,
            Stmt::BarrierInit { at, .. }
            | Stmt::BarrierArrive { at, .. }
            | Stmt::BarrierArriveCopies { at }
            | Stmt::BarrierWait { at, .. } => at.span,
            Stmt::CommitGroup => self.find_keyword("CommitGroup"),
            Stmt::WaitGroup(_) => self.find_keyword("WaitGroup"),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => cond.span,
            Stmt::For { var, .. } => var.span,
            Stmt::SyncWarp(m) => m.span,
            Stmt::Atomic { op, .. } => op.span,
            Stmt::Barrier => self.src[self.cursor..]
                .find("Barrier")
                .map(|i| self.cursor + i),
            Stmt::Break | Stmt::Continue | Stmt::Return => {
                self.find_keyword(jump::Jump::of(s).map_or("", |j| j.keyword()))
            }
            Stmt::Call(t) => t.span,
        };
        if let (
            Stmt::Barrier
            | Stmt::Break
            | Stmt::Continue
            | Stmt::Return
            | Stmt::CommitGroup
            | Stmt::WaitGroup(_),
            Some(off),
        ) = (s, first)
        {
            self.cursor = off;
        } else if let Some(off) = first {
            // Point at the statement's keyword: the name before the `(` that opens it.
            let before = &self.src[self.cursor.min(off)..off];
            let kw = before.rfind('(').map(|p| {
                let head =
                    before[..p].trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
                self.cursor.min(off) + head.len()
            });
            self.cursor = kw.unwrap_or(off);
        }
        let (line, col) = self.lines.line_col(&self.src, self.cursor);
        let text = match s {
            Stmt::Let(n, e) => format!("{} = {}", n.text, e.text),
            Stmt::Set(n, e) => format!("{} = {}", n.text, e.text),
            Stmt::Store(t, e) => format!("{} = {}", t.text, e.text),
            Stmt::LoadVec(n, t) => format!("({}) = {}", join(n), t.text),
            Stmt::StoreVec(t, v) => format!("{} = ({})", t.text, join(v)),
            Stmt::LoadMatrix { regs, at, .. } => format!("({}) = ldmatrix {}", join(regs), at.text),
            Stmt::StoreMatrix { at, regs, .. } => {
                format!("stmatrix {} = ({})", at.text, join(regs))
            }
            Stmt::Mma { d, types, .. } => format!("({}) = mma.{}", join(d), types.text),
            Stmt::CopyAsync {
                to, from, bytes, ..
            } => {
                format!("cp.async {} = {} ({bytes} bytes)", to.text, from.text)
            }
            Stmt::CommitGroup => "cp.async.commit_group".into(),
            Stmt::WaitGroup(n) => format!("cp.async.wait_group {n}"),
            Stmt::BarrierInit { at, count } => {
                format!("mbarrier.init {} ({})", at.text, count.text)
            }
            Stmt::BarrierArrive { at, .. } => format!("mbarrier.arrive {}", at.text),
            Stmt::BarrierArriveCopies { at } => format!("cp.async.mbarrier.arrive {}", at.text),
            Stmt::BarrierWait { at, parity } => {
                format!("mbarrier.wait {} (parity {})", at.text, parity.text)
            }
            Stmt::If { cond, .. } => format!("if {}", cond.text),
            Stmt::While { cond, .. } => format!("while {}", cond.text),
            Stmt::For { var, to, .. } => format!("for {} < {}", var.text, to.0.text),
            Stmt::Barrier => "barrier".into(),
            Stmt::SyncWarp(m) => format!("syncwarp({})", m.text),
            Stmt::Break => "break".into(),
            Stmt::Continue => "continue".into(),
            Stmt::Return => "return".into(),
            Stmt::Call(t) => t.text.clone(),
            Stmt::Atomic { op, at, value, .. } => {
                format!("atomic {} {} {}", op.text, at.text, value.text)
            }
        };
        self.cur = (line, col, Arc::from(text));
    }

    pub(super) fn block(&mut self, body: &[Stmt]) -> R<()> {
        for (k, s) in body.iter().enumerate() {
            self.stmt_pos(s);
            self.temp_base = self.next_reg;
            self.stmt(s)?;
            if let Some(next) = body.get(k + 1) {
                self.check_reachable(s, next)?;
            }
        }
        Ok(())
    }

    pub(super) fn nested(&mut self, body: &[Stmt]) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.block(body);
        self.scopes.pop();
        r
    }

    pub(super) fn enter(&mut self) {
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
    }

    pub(super) fn declare(&mut self, t: &Text, ty: KernelTy) -> R<Reg> {
        self.check_var_name(t)?;
        let reg = self.alloc_var(ty.words())?;
        let line = self.line_of(t);
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(t.text.clone(), Var { reg, ty, line });
        Ok(reg)
    }

    pub(super) fn check_var_name(&self, t: &Text) -> R<()> {
        let n = &t.text;
        if !is_ident(n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is not a valid register name"),
                Some("use letters, digits and _, starting with a letter".to_owned()),
            ));
        }
        if special(n).is_some() || expr::builtins::lookup(n, expr::Context::Kernel).is_some() {
            return Err(self.err_text(
                t,
                format!("`{n}` is a built-in name"),
                Some("choose another register name".to_owned()),
            ));
        }
        if self.define(n).is_some() {
            return Err(self.err_text(
                t,
                format!("`{n}` is a define"),
                Some("choose another register name".to_owned()),
            ));
        }
        if self.buffers.iter().any(|b| &b.name == n) || self.shared.iter().any(|s| &s.name == n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is an array"),
                Some("choose another register name".to_owned()),
            ));
        }
        // Block scoping as in C: a nested block may shadow an outer name (with a register of
        // its own, never reused, so the outer value is intact after the block); the same
        // block may not declare a name twice.
        if let Some(v) = self.scopes.last().and_then(|s| s.get(n.as_str())) {
            return Err(self.err_text(
                t,
                format!(
                    "register `{n}` is already declared in this block (line {})",
                    v.line
                ),
                Some(format!(
                    "assign it with Set(\"{n}\", …), or choose another name (a nested block \
                     may declare its own `{n}`)"
                )),
            ));
        }
        Ok(())
    }

    pub(super) fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Let(name, e) => self.let_(name, e),
            Stmt::Set(name, e) => self.set(name, e),
            Stmt::Store(target, value) => self.store(target, value),
            Stmt::LoadVec(names, src) => self.load_vec(names, src),
            Stmt::StoreVec(target, values) => self.store_vec(target, values),
            Stmt::LoadMatrix { regs, at, trans } => self.matrix(false, regs, at, *trans),
            Stmt::StoreMatrix { at, regs, trans } => self.matrix(true, regs, at, *trans),
            Stmt::CopyAsync {
                to,
                from,
                bytes,
                bypass,
            } => self.copy_async(to, from, *bytes, *bypass),
            Stmt::CommitGroup => {
                self.emit(Inst::AsyncCommit);
                Ok(())
            }
            Stmt::WaitGroup(n) => {
                self.emit(Inst::AsyncWait { n: *n, all: false });
                Ok(())
            }
            Stmt::BarrierInit { at, count } => self.barrier_op(at, Some(count), BarrierStmt::Init),
            Stmt::BarrierArrive { at, count, tx } => match (count, tx) {
                (Some(c), Some(_)) => Err(self.err_text(
                    c,
                    "BarrierArrive takes `count` or `tx`, not both (an expect_tx arrival is one)",
                    None,
                )),
                (_, Some(t)) => self.barrier_op(at, Some(t), BarrierStmt::ArriveTx),
                (c, None) => self.barrier_op(at, c.as_ref(), BarrierStmt::Arrive),
            },
            Stmt::BarrierArriveCopies { at } => self.barrier_op(at, None, BarrierStmt::Copies),
            Stmt::BarrierWait { at, parity } => {
                self.barrier_op(at, Some(parity), BarrierStmt::Wait)
            }
            Stmt::Mma {
                shape,
                types,
                d,
                a,
                b,
                c,
                satfinite,
            } => self.mma(shape, types, [d, a, b, c], *satfinite),
            Stmt::If {
                cond,
                then,
                otherwise,
            } => self.if_(cond, then, otherwise),
            Stmt::While { cond, body } => self.while_(cond, body),
            Stmt::For {
                var,
                from,
                to,
                step,
                body,
            } => self.for_(var, from, to, step, body),
            Stmt::Barrier => {
                self.emit(Inst::Barrier);
                Ok(())
            }
            Stmt::SyncWarp(mask) => self.sync_warp(mask),
            Stmt::Break => self.jump(jump::Jump::Break),
            Stmt::Continue => self.jump(jump::Jump::Continue),
            Stmt::Return => self.jump(jump::Jump::Return),
            Stmt::Call(t) => self.call_stmt(t),
            Stmt::Atomic {
                op,
                at,
                value,
                compare,
                old,
            } => self.atomic(op, at, value, compare.as_ref(), old.as_ref()),
        }
    }

    /// `Let(name, e)`: a new register holding `e`.
    fn let_(&mut self, name: &Text, e: &Text) -> R<()> {
        let (n, site) = self.parse_expr(e)?;
        let v = self.value(&n, site)?;
        let ty = match v {
            Val::Reg(_, t) => t,
            Val::Const(c) => default_ty(c),
        };
        let reg = self.declare(name, ty)?;
        self.write_to(reg, ty, v, site, &n)?;
        Ok(())
    }

    /// `Set(name, e)`: assigns a declared register.
    fn set(&mut self, name: &Text, e: &Text) -> R<()> {
        let Some(var) = self.lookup(&name.text).cloned() else {
            return Err(self.err_text(
                name,
                format!("no register `{}` to assign", name.text),
                Some(format!("declare it first with Let(\"{}\", …)", name.text)),
            ));
        };
        let (n, site) = self.parse_expr(e)?;
        let v = self.value(&n, site)?;
        let v = self.coerce(v, var.ty, site, &n, "the register's type")?;
        self.write_to(var.reg, var.ty, v, site, &n)?;
        Ok(())
    }

    /// `Store(target, value)`: one element of an array.
    fn store(&mut self, target: &Text, value: &Text) -> R<()> {
        let (tn, tsite) = self.parse_expr(target)?;
        let (vn, vsite) = self.parse_expr(value)?;
        let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
        let Kind::Index(_, idx) = &tn.kind else {
            unreachable!("array_of checks")
        };
        let v = self.expr(&vn, vsite)?;
        let v = self.coerce(
            v,
            KernelTy::of(elem),
            vsite,
            &vn,
            "the array's element type",
        )?;
        let data = self.materialize(v, KernelTy::of(elem))?;
        let idx = self.indices(space, array, idx, tsite, 1)?;
        let mem = Mem {
            space,
            array,
            rank,
            idx,
            vec: 1,
            data,
            elem: None,
        };
        let text = format!("{} = {}", target.text, value.text);
        self.emit_at(Inst::Store(mem), tsite, &tn, text);
        Ok(())
    }

    /// `LoadVec(names, src)`: a vector load into new registers.
    fn load_vec(&mut self, names: &[Text], src: &Text) -> R<()> {
        let (sn, site) = self.parse_expr(src)?;
        let (space, array, elem, rank) = self.array_of(&sn, site)?;
        let Kind::Index(_, idx) = &sn.kind else {
            unreachable!("array_of checks")
        };
        let vec = self.vec_len(names.len(), elem, src, space, array)?;
        let idx = self.indices(space, array, idx, site, vec)?;
        let ty = KernelTy::of(elem);
        let first = Reg(self.next_reg.max(self.high_water) as u16);
        for n in names {
            self.declare(n, ty)?;
        }
        let mem = Mem {
            space,
            array,
            rank,
            idx,
            vec,
            data: first,
            elem: None,
        };
        let text = format!("({}) = {}", join(names), src.text);
        self.emit_at(Inst::Load(mem), site, &sn, text);
        Ok(())
    }

    /// `StoreVec(target, values)`: a vector store.
    fn store_vec(&mut self, target: &Text, values: &[Text]) -> R<()> {
        let (tn, tsite) = self.parse_expr(target)?;
        let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
        let Kind::Index(_, idx) = &tn.kind else {
            unreachable!("array_of checks")
        };
        let vec = self.vec_len(values.len(), elem, target, space, array)?;
        let ty = KernelTy::of(elem);
        let mut vals = Vec::new();
        for v in values {
            let (vn, vsite) = self.parse_expr(v)?;
            let val = self.expr(&vn, vsite)?;
            vals.push(self.coerce(val, ty, vsite, &vn, "the array's element type")?);
        }
        let data = self.alloc_temp(ty.words() * vec as u16)?;
        for (k, v) in vals.into_iter().enumerate() {
            let dst = Reg(data.0 + k as u16 * ty.words());
            let src = self.materialize(v, ty)?;
            self.emit(if ty == KernelTy::F64 {
                Inst::Mov64 { dst, a: src }
            } else {
                Inst::Mov { dst, a: src }
            });
        }
        let idx = self.indices(space, array, idx, tsite, vec)?;
        let mem = Mem {
            space,
            array,
            rank,
            idx,
            vec,
            data,
            elem: None,
        };
        let text = format!("{} = ({})", target.text, join(values));
        self.emit_at(Inst::Store(mem), tsite, &tn, text);
        Ok(())
    }

    /// `If`: a branch (a constant condition keeps only the part that runs).
    fn if_(&mut self, cond: &Text, then: &[Stmt], otherwise: &[Stmt]) -> R<()> {
        let (n, site) = self.parse_expr(cond)?;
        let v = self.expr(&n, site)?;
        let known = match v {
            Val::Const(Const::Int(x, _)) => Some(x != 0),
            _ => None,
        };
        let c = self.truth(v, site, &n)?;
        self.enter();
        if let Some(taken) = known {
            // A constant condition (a define's value, say): only the part that runs
            // is kept, without a frame. The other part is lowered all the same, so
            // that its mistakes are reported whatever the defines, then dropped.
            let start = self.code.len();
            self.nested(if taken { otherwise } else { then })?;
            self.code.truncate(start);
            self.info.truncate(start);
            self.forget_jumps_from(start);
            self.last_product = None;
            self.nested(if taken { then } else { otherwise })?;
            self.depth -= 1;
            return Ok(());
        }
        let at = self.emit(Inst::If {
            c,
            else_pc: 0,
            end_pc: 0,
        });
        self.open_if();
        self.nested(then)?;
        // Without an else-part there is nothing to switch to: lanes that skipped the
        // then-part wait at the `EndIf`.
        let el = (!otherwise.is_empty()).then(|| self.emit(Inst::Else { end_pc: 0 }));
        self.open_else();
        self.nested(otherwise)?;
        let end = self.emit(Inst::EndIf);
        self.close_if(el.map_or(end, |el| el + 1), end);
        self.depth -= 1;
        self.code[at as usize] = Inst::If {
            c,
            else_pc: el.map_or(end, |el| el + 1),
            end_pc: end,
        };
        if let Some(el) = el {
            self.code[el as usize] = Inst::Else { end_pc: end };
        }
        Ok(())
    }

    /// `While`: a loop tested at its head.
    fn while_(&mut self, cond: &Text, body: &[Stmt]) -> R<()> {
        self.emit(Inst::LoopStart);
        self.enter();
        let head = self.code.len() as Pc;
        let c = self.cond(cond)?;
        let test = self.emit(Inst::LoopTest { c, exit_pc: 0 });
        let saved_cur = self.cur.clone();
        self.open_loop(jump::Kind::Loop);
        self.nested(body)?;
        // The back-edge belongs to the `While` (a runaway loop's fault points there).
        self.cur = saved_cur;
        let join = self.loop_join();
        self.emit(Inst::LoopBack { head_pc: head });
        let end = self.emit(Inst::LoopEnd);
        self.close_loop(join, end);
        self.depth -= 1;
        self.code[test as usize] = Inst::LoopTest { c, exit_pc: end };
        Ok(())
    }

    /// `For`: a counted loop.
    fn for_(
        &mut self,
        var: &Text,
        from: &Expr,
        to: &Expr,
        step: &Option<Expr>,
        body: &[Stmt],
    ) -> R<()> {
        let saved_cur = self.cur.clone();
        let (fnode, fsite) = self.parse_expr(&from.0)?;
        let fv = self.expr(&fnode, fsite)?;
        let ty = match fv {
            Val::Reg(_, t) => t,
            Val::Const(c) => default_ty(c),
        };
        if !ty.is_int() {
            return Err(self.err_text(
                &from.0,
                format!(
                    "a loop counter must be an integer, and `{}` is {}",
                    from.0.text,
                    ty.name()
                ),
                Some("loop over integers and convert inside the body".to_owned()),
            ));
        }
        self.scopes.push(HashMap::new());
        let reg = self.declare(var, ty)?;
        self.write_to(reg, ty, fv, fsite, &fnode)?;
        let sval = match step {
            Some(s) => {
                let (n, site) = self.parse_expr(&s.0)?;
                let v = self.expr(&n, site)?;
                match self.coerce(v, ty, site, &n, "the loop counter's type")? {
                    // A computed step (`k + 1`) sits in a temporary that the body would
                    // reuse: keep it in a register of its own, computed once before the loop.
                    Val::Reg(r, t) if !self.fixed.get(r.0 as usize).copied().unwrap_or(false) => {
                        let keep = self.alloc_var(t.words())?;
                        self.write_to(keep, t, Val::Reg(r, t), site, &n)?;
                        Val::Reg(keep, t)
                    }
                    v => v,
                }
            }
            None => Val::Const(Const::Int(1, None)),
        };
        let down = matches!(sval, Val::Const(Const::Int(v, _)) if v < 0);
        if matches!(sval, Val::Const(Const::Int(0, _))) {
            let t = step.as_ref().map(|s| &s.0).unwrap_or(var);
            return Err(self.err_text(
                t,
                "a loop step of 0 never ends".to_owned(),
                Some("use a step other than 0".to_owned()),
            ));
        }
        self.emit(Inst::LoopStart);
        self.enter();
        let head = self.code.len() as Pc;
        self.temp_base = self.next_reg;
        let (tnode, tsite) = self.parse_expr(&to.0)?;
        let tv = self.expr(&tnode, tsite)?;
        let tv = self.coerce(tv, ty, tsite, &tnode, "the loop counter's type")?;
        let bound = self.materialize(tv, ty)?;
        let signed = ty == KernelTy::I32;
        let (a, b) = if down { (bound, reg) } else { (reg, bound) };
        let test = self.emit(Inst::ForTest {
            a,
            b,
            signed,
            exit_pc: 0,
        });
        // The body's own scope is nested inside the counter's.
        self.open_loop(jump::Kind::Loop);
        self.nested(body)?;
        self.cur = saved_cur;
        self.temp_base = self.next_reg;
        let join = self.loop_join();
        let step = self.materialize(sval, ty)?;
        self.emit(Inst::ForNext {
            var: reg,
            step,
            head_pc: head,
        });
        let end = self.emit(Inst::LoopEnd);
        self.close_loop(join, end);
        self.depth -= 1;
        self.scopes.pop();
        self.code[test as usize] = Inst::ForTest {
            a,
            b,
            signed,
            exit_pc: end,
        };
        Ok(())
    }

    pub(super) fn vec_len(
        &self,
        n: usize,
        elem: Elem,
        t: &Text,
        space: Space,
        array: u16,
    ) -> R<u8> {
        let width = n as u32 * elem.bytes();
        let narrow = elem.is_narrow();
        let ok = if narrow {
            // 1- and 2-byte elements: 4, 8 or 16 bytes in all (u8 x4, f16 x2 …).
            matches!(n, 2 | 4 | 8 | 16) && matches!(width, 4 | 8 | 16)
        } else {
            (n == 2 || n == 4) && (width == 8 || width == 16)
        };
        if !ok {
            return Err(self.err_text(
                t,
                if narrow {
                    format!("a vector access of {n} {elem} elements is {width} bytes; vector accesses of {elem} are 4, 8 or 16 bytes")
                } else {
                    format!("a vector access of {n} {elem} elements is {width} bytes; vector accesses are 8 or 16 bytes")
                },
                Some(if narrow {
                    format!(
                        "use {}, {} or {} elements of {elem}",
                        4 / elem.bytes(),
                        8 / elem.bytes(),
                        16 / elem.bytes()
                    )
                } else {
                    "use 2 or 4 elements of f32/i32/u32, or 2 of f64".to_owned()
                }),
            ));
        }
        if space == Space::Shared {
            let s = &self.shared[array as usize];
            if s.swizzle > 0 && s.swizzle < n as u32 {
                return Err(self.err_text(
                    t,
                    format!(
                        "`{}` is swizzled in groups of {} elements, which splits this {n}-element vector access",
                        s.name, s.swizzle
                    ),
                    Some(format!("use a swizzle group of at least {n} (or 0) for `{}`", s.name)),
                ));
            }
        }
        Ok(n as u8)
    }

    pub(super) fn cond(&mut self, t: &Text) -> R<Reg> {
        let (n, site) = self.parse_expr(t)?;
        let v = self.expr(&n, site)?;
        self.truth(v, site, &n)
    }

    /// A 0/1 register from a condition (integers test against 0).
    pub(super) fn truth(&mut self, v: Val, site: Site, n: &Node) -> R<Reg> {
        match v {
            Val::Reg(r, KernelTy::Bool) => Ok(r),
            Val::Reg(r, t) if t.is_int() => {
                let z = self.const_reg(0, t)?;
                let d = self.alloc_temp(1)?;
                self.emit(Inst::Ne { dst: d, a: r, b: z });
                Ok(d)
            }
            Val::Const(Const::Int(x, _)) => self.const_reg((x != 0) as u64, KernelTy::Bool),
            _ => Err(self.err_node(
                site,
                n,
                "a condition must be a comparison or an integer".to_owned(),
                Some("compare floats explicitly, e.g. `x > 0.0`".to_owned()),
            )),
        }
    }

    /// Puts the value `v` of type `ty` into register `dst`.
    pub(super) fn write_to(
        &mut self,
        dst: Reg,
        ty: KernelTy,
        v: Val,
        _site: Site,
        _n: &Node,
    ) -> R<()> {
        match v {
            Val::Reg(r, _) => {
                // The expression's last instruction wrote a temporary: let it write `dst`.
                if !self.fixed.get(r.0 as usize).copied().unwrap_or(false) && r != dst {
                    if let Some(last) = self.code.last_mut() {
                        if last.retarget(r, dst) {
                            return Ok(());
                        }
                    }
                }
                if r != dst {
                    self.emit(if ty == KernelTy::F64 {
                        Inst::Mov64 { dst, a: r }
                    } else {
                        Inst::Mov { dst, a: r }
                    });
                }
            }
            Val::Const(c) => {
                let r = self.materialize(Val::Const(c), ty)?;
                self.emit(if ty == KernelTy::F64 {
                    Inst::Mov64 { dst, a: r }
                } else {
                    Inst::Mov { dst, a: r }
                });
            }
        }
        Ok(())
    }

    /// A register holding `v` as type `ty` (constants go to the constant pool).
    pub(super) fn materialize(&mut self, v: Val, ty: KernelTy) -> R<Reg> {
        Ok(match v {
            Val::Reg(r, _) => r,
            Val::Const(c) => {
                let bits = const_bits(c, ty);
                self.const_reg(bits, ty)?
            }
        })
    }

    /// Converts `v` to `ty` where that is implicit: literals take any fitting type, and
    /// i32/u32 convert into each other (same bits).
    pub(super) fn coerce(
        &mut self,
        v: Val,
        ty: KernelTy,
        site: Site,
        n: &Node,
        what: &str,
    ) -> R<Val> {
        match v {
            Val::Reg(r, t) if t == ty => Ok(Val::Reg(r, t)),
            Val::Reg(r, t) if t.is_int() && ty.is_int() => Ok(Val::Reg(r, ty)),
            Val::Reg(r, KernelTy::Bool) if ty.is_int() => Ok(Val::Reg(r, ty)),
            Val::Reg(_, t) => Err(self.err_node(
                site,
                n,
                format!("this is {}, but {what} is {}", t.name(), ty.name()),
                Some(format!("convert it: {}(…)", ty.name())),
            )),
            Val::Const(c) => {
                self.check_const_fits(c, ty, site, n)?;
                Ok(Val::Const(c))
            }
        }
    }

    pub(super) fn check_const_fits(&self, c: Const, ty: KernelTy, site: Site, n: &Node) -> R<()> {
        match (c, ty) {
            (Const::Int(v, _), KernelTy::I32) if v < i32::MIN as i64 || v > u32::MAX as i64 => {}
            (Const::Int(v, _), KernelTy::U32) if v < i32::MIN as i64 || v > u32::MAX as i64 => {}
            (Const::Int(..), _) => return Ok(()),
            (Const::Float(..), t) if t.is_float() => return Ok(()),
            (Const::Float(..), t) => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("a float where {} is expected", t.name()),
                    Some(format!("convert it: {}(…)", t.name())),
                ))
            }
        }
        Err(self.err_node(
            site,
            n,
            format!("this constant does not fit in {}", ty.name()),
            Some("use a smaller value".to_owned()),
        ))
    }
}
