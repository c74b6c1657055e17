//! Registers (variables, constants, special registers, temporaries) and the emission of
//! instructions.

use super::*;

impl Loader<'_> {
    pub(super) fn alloc_var(&mut self, words: u16) -> R<Reg> {
        // Variables and constants take registers above every temporary used so far, so
        // they never collide with the temporaries of earlier statements.
        let r = self.next_reg.max(self.high_water);
        self.next_reg = r + words as usize;
        self.temp_base = self.next_reg;
        self.fixed.resize(self.next_reg, false);
        for f in &mut self.fixed[r..] {
            *f = true;
        }
        self.high_water = self.high_water.max(self.next_reg);
        self.check_regs()?;
        Ok(Reg(r as u16))
    }

    pub(super) fn alloc_temp(&mut self, words: u16) -> R<Reg> {
        let r = self.temp_base;
        self.temp_base += words as usize;
        self.high_water = self.high_water.max(self.temp_base);
        self.check_regs()?;
        Ok(Reg(r as u16))
    }

    pub(super) fn check_regs(&self) -> R<()> {
        if self.high_water > MAX_REGS {
            return Err(self.err_at(
                self.cursor,
                1,
                format!("the program needs more than {MAX_REGS} registers"),
                Some("use fewer registers (Let) or split long expressions".to_owned()),
            ));
        }
        Ok(())
    }

    pub(super) fn const_reg(&mut self, bits: u64, ty: KernelTy) -> R<Reg> {
        let wide = ty == KernelTy::F64;
        if let Some(&r) = self.consts.get(&(bits, wide)) {
            return Ok(r);
        }
        let r = self.alloc_var(ty.words())?;
        self.init.push((r, RegInit::Const(bits as u32)));
        if wide {
            self.init
                .push((Reg(r.0 + 1), RegInit::Const((bits >> 32) as u32)));
        }
        self.consts.insert((bits, wide), r);
        Ok(r)
    }

    pub(super) fn special_reg(&mut self, s: Special) -> R<Reg> {
        if let Some(&r) = self.specials.get(&s) {
            return Ok(r);
        }
        let r = self.alloc_var(1)?;
        self.init.push((r, RegInit::Special(s)));
        self.specials.insert(s, r);
        Ok(r)
    }

    pub(super) fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    // ---- emission ------------------------------------------------------------------------

    pub(super) fn emit(&mut self, i: Inst) -> Pc {
        self.code.push(i);
        self.info.push(InstInfo {
            line: self.cur.0,
            col: self.cur.1,
            text: self.cur.2.clone(),
        });
        (self.code.len() - 1) as Pc
    }

    pub(super) fn emit_at(
        &mut self,
        i: Inst,
        site: Site,
        n: &Node,
        text: impl Into<Arc<str>>,
    ) -> Pc {
        let off = site.base.map_or(site.stmt, |b| b + n.start);
        let (line, col) = self.lines.line_col(&self.src, off);
        self.code.push(i);
        self.info.push(InstInfo {
            line,
            col,
            text: text.into(),
        });
        (self.code.len() - 1) as Pc
    }
}
