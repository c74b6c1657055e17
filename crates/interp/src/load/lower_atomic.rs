//! Lowering `Atomic(op: …, at: …, value: …, compare: …, old: …)` to [`Inst::Atomic`]: the
//! operand (and `cas`'s compare value) go to two consecutive registers, the atomic writes the
//! old value over the first, and `old` names a copy of it.

use super::*;
use warpsim_smem::{AtomOp, ATOM_OPS};

impl Loader<'_> {
    /// `Atomic(op, at, value, compare, old)`.
    pub(super) fn atomic(
        &mut self,
        op: &Text,
        at: &Text,
        value: &Text,
        compare: Option<&Text>,
        old: Option<&Text>,
    ) -> R<()> {
        // `popc` (ATOMS.POPC.INC) is not written: it is picked below, as ptxas picks it.
        let written = || ATOM_OPS.iter().filter(|p| p.1 != AtomOp::PopcInc);
        let names = written().map(|p| p.0).collect::<Vec<_>>().join(" ");
        let Some(&(name, mut aop)) = written().find(|p| p.0 == op.text) else {
            return Err(self.err_text(
                op,
                format!("`{}` is not an atomic operation", op.text),
                Some(format!("use one of: {names}")),
            ));
        };
        let (tn, tsite) = self.parse_expr(at)?;
        let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
        let Kind::Index(_, idx) = &tn.kind else {
            unreachable!("array_of checks")
        };
        // CUDA's atomics on 32-bit elements: atomicAdd/Exch on float too; Inc/Dec on unsigned;
        // atomicAdd on a double (shared only here: global words are 32-bit host atomics) and
        // on a __half (README rules 8 and 10).
        let allowed = match (elem, aop) {
            (Elem::I32 | Elem::U32, AtomOp::Inc | AtomOp::Dec) => elem == Elem::U32,
            (Elem::I32 | Elem::U32, _) => true,
            (Elem::F32, AtomOp::Add | AtomOp::Exch) => true,
            (Elem::F64, AtomOp::Add) => space == Space::Shared,
            (Elem::F16, AtomOp::Add) => true,
            _ => false,
        };
        if !allowed {
            let help = match elem {
                Elem::F32 => "f32 elements take `add` and `exch` (CUDA's float atomics)".to_owned(),
                Elem::F64 if aop == AtomOp::Add => {
                    "an f64 atomicAdd works on shared arrays only here (global buffers are \
                     32-bit words): add into a shared array, then store"
                        .to_owned()
                }
                Elem::F64 | Elem::F16 => {
                    "f64 and f16 elements take `add` only (CUDA's atomicAdd)".to_owned()
                }
                Elem::I32 => {
                    "`inc` and `dec` are unsigned (atomicInc/atomicDec): use a u32 array".to_owned()
                }
                _ => "atomics work on i32, u32 and f32 elements (4 bytes), and `add` on f64 \
                      (shared) and f16"
                    .to_owned(),
            };
            return Err(self.err_text(
                op,
                format!("there is no atomic `{name}` on {elem} elements"),
                Some(help),
            ));
        }
        match (aop == AtomOp::Cas, compare) {
            (true, None) => {
                return Err(self.err_text(
                    op,
                    "`cas` needs `compare:` (the value the element must hold) besides `value:` (the new one)",
                    Some("write Atomic(op: \"cas\", at: \"…\", compare: \"c\", value: \"v\", old: \"o\")".to_owned()),
                ))
            }
            (false, Some(c)) => {
                return Err(self.err_text(
                    c,
                    format!("only `cas` takes `compare:`, not `{name}`"),
                    Some("remove `compare:`".to_owned()),
                ))
            }
            _ => {}
        }
        let ty = KernelTy::of(elem);
        let data = self.alloc_temp(2)?;
        for (k, t) in std::iter::once(value).chain(compare).enumerate() {
            let (vn, vsite) = self.parse_expr(t)?;
            let v = self.expr(&vn, vsite)?;
            // ptxas compiles a shared 32-bit integer `atomicAdd(&x, 1)` whose result is unused
            // to ATOMS.POPC.INC.32 (lanes on one address aggregated; README rule 9). A
            // run-time operand (a register, even one holding 1) stays ATOMS.ADD.
            if k == 0
                && aop == AtomOp::Add
                && space == Space::Shared
                && matches!(elem, Elem::I32 | Elem::U32)
                && old.is_none()
                && matches!(v, Val::Const(Const::Int(1, _)))
            {
                aop = AtomOp::PopcInc;
            }
            let v = self.coerce(v, ty, vsite, &vn, "the element type")?;
            // (A loaded or computed operand is written there directly; a variable or a
            // constant is moved.)
            self.write_to(Reg(data.0 + k as u16), ty, v, vsite, &vn)?;
        }
        let idx = self.indices(space, array, idx, tsite, 1)?;
        let m = Mem {
            space,
            array,
            rank,
            idx,
            vec: 1,
            data,
        };
        let text = format!("atomic {name} {} {}", at.text, value.text);
        self.emit_at(Inst::Atomic { m, op: aop }, tsite, &tn, text);
        if let Some(o) = old {
            let reg = self.declare(o, ty)?;
            self.emit(if elem == Elem::F64 {
                Inst::Mov64 { dst: reg, a: data }
            } else {
                Inst::Mov { dst: reg, a: data }
            });
        }
        Ok(())
    }
}
