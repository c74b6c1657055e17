//! Lowering the warp-level operations: the shuffles, the votes and `activemask()` (expression
//! built-ins) and the `SyncWarp` statement. Each becomes one instruction per 32-bit word, at
//! the call's line and column (a 64-bit shuffle is two, as nvcc emits two `SHFL`s).

use super::*;
use warpsim_kernel::expr::builtins::{Builtin, BuiltinInfo};
use warpsim_kernel::ir::{ShflMode, VoteMode};

impl Loader<'_> {
    /// A call of a warp-level built-in.
    pub(super) fn warp_op(
        &mut self,
        info: &BuiltinInfo,
        args: &[Node],
        site: Site,
        n: &Node,
    ) -> R<Val> {
        let f = info.name;
        let shuffle = match info.builtin {
            Builtin::ShflSync => Some(ShflMode::Idx),
            Builtin::ShflUpSync => Some(ShflMode::Up),
            Builtin::ShflDownSync => Some(ShflMode::Down),
            Builtin::ShflXorSync => Some(ShflMode::Xor),
            _ => None,
        };
        let (lo, hi, form) = match (shuffle, info.builtin) {
            (Some(_), _) => (3, 4, format!("{f}(mask, value, lane, width)")),
            (_, Builtin::ActiveMask) => (0, 0, "activemask()".to_owned()),
            _ => (2, 2, format!("{f}(mask, predicate)")),
        };
        if args.len() < lo || args.len() > hi {
            let count = if lo == hi {
                lo.to_string()
            } else {
                format!("{lo} or {hi}")
            };
            return Err(self.err_node(
                site,
                n,
                format!("`{f}` takes {count} argument(s), not {}", args.len()),
                Some(format!("write {form}")),
            ));
        }
        let text = self.node_text(n, site);
        if info.builtin == Builtin::ActiveMask {
            let dst = self.alloc_temp(1)?;
            self.emit_at(Inst::ActiveMask { dst }, site, n, text);
            return Ok(Val::Reg(dst, KernelTy::U32));
        }
        let mask = self.mask_arg(&args[0], site, f)?;
        let Some(mode) = shuffle else {
            let v = self.expr(&args[1], site)?;
            let a = self.truth(v, site, &args[1])?;
            let (mode, ty) = match info.builtin {
                Builtin::BallotSync => (VoteMode::Ballot, KernelTy::U32),
                Builtin::AnySync => (VoteMode::Any, KernelTy::I32),
                _ => (VoteMode::All, KernelTy::I32),
            };
            let dst = self.alloc_temp(1)?;
            self.emit_at(Inst::Vote { dst, mask, a, mode }, site, n, text);
            return Ok(Val::Reg(dst, ty));
        };
        let v = self.expr(&args[1], site)?;
        let ty = match v {
            Val::Reg(_, t) => t,
            Val::Const(c) => default_ty(c),
        };
        let a = self.materialize(v, ty)?;
        let lane = self.expr(&args[2], site)?;
        let b = self.int_arg(lane, &args[2], site, f, "lane")?;
        let width = match args.get(3) {
            None => 32,
            Some(w) => self.width_arg(w, site, f)?,
        };
        let dst = self.alloc_temp(ty.words())?;
        for k in 0..ty.words() {
            let inst = Inst::Shfl {
                dst: Reg(dst.0 + k),
                mask,
                a: Reg(a.0 + k),
                b,
                mode,
                width,
            };
            self.emit_at(inst, site, n, text.clone());
        }
        Ok(Val::Reg(dst, ty))
    }

    /// A member mask: an integer, as a u32 register.
    fn mask_arg(&mut self, a: &Node, site: Site, f: &str) -> R<Reg> {
        let v = self.expr(a, site)?;
        self.int_arg(v, a, site, f, "mask")
    }

    /// An integer argument (`what` of `f`) in a register.
    fn int_arg(&mut self, v: Val, a: &Node, site: Site, f: &str, what: &str) -> R<Reg> {
        let ok = match v {
            Val::Reg(_, t) => t.is_int() || t == KernelTy::Bool,
            Val::Const(c) => matches!(c, Const::Int(..)),
        };
        if !ok {
            return Err(self.err_node(
                site,
                a,
                format!("the {what} of `{f}` must be an integer"),
                Some("convert it: u32(…)".to_owned()),
            ));
        }
        let v = self.coerce(v, KernelTy::U32, site, a, &format!("the {what}"))?;
        self.materialize(v, KernelTy::U32)
    }

    /// A shuffle's `width`: a constant 1, 2, 4, 8, 16 or 32.
    fn width_arg(&mut self, w: &Node, site: Site, f: &str) -> R<u8> {
        match self.expr(w, site)? {
            Val::Const(Const::Int(x, _)) if (1..=32).contains(&x) && x.count_ones() == 1 => {
                Ok(x as u8)
            }
            _ => Err(self.err_node(
                site,
                w,
                format!("the width of `{f}` must be a constant 1, 2, 4, 8, 16 or 32"),
                Some(
                    "write a power of two up to 32 (a define will do), or leave the width out \
                     for the whole warp"
                        .to_owned(),
                ),
            )),
        }
    }

    /// `SyncWarp("mask")`: `__syncwarp(mask)`.
    pub(super) fn sync_warp(&mut self, t: &Text) -> R<()> {
        let (n, site) = self.parse_expr(t)?;
        let mask = self.mask_arg(&n, site, "SyncWarp")?;
        let text = format!("syncwarp({})", t.text);
        self.emit_at(Inst::SyncWarp { mask }, site, &n, text);
        Ok(())
    }
}
