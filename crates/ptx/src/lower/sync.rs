//! `redux.sync` (every operation and type of sm_90: `add`, `min`, `max` on `.u32`/`.s32`,
//! `and`, `or`, `xor` on `.b32`), `match.{any,all}.sync.{b32,b64}`, and the clocks
//! (`%clock`, `%clock64`, `%globaltimer`: [`Inst::Clock`]).

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{Inst, ReduxOp};

/// Whether operand `a` is a clock (`%clock`, `%clock_hi`, `%clock64`, `%globaltimer`,
/// `%globaltimer_lo`, `%globaltimer_hi`): its width in registers and whether it is the high
/// word.
pub(super) fn clock(a: &str) -> Option<(u8, bool)> {
    Some(match a.trim() {
        "%clock" | "%globaltimer_lo" => (1, false),
        "%clock_hi" | "%globaltimer_hi" => (1, true),
        "%clock64" | "%globaltimer" => (2, false),
        _ => return None,
    })
}

impl Lower<'_> {
    /// `mov.TYPE d, %clock` (and the other clocks of [`clock`]): [`Inst::Clock`].
    pub(super) fn clock(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, name, _, args) = i;
        let (w, hi) = clock(&args[1]).unwrap_or((1, false));
        let (dst, dw) = self.reg(args[0].trim(), off)?;
        if dw != w {
            let msg = format!(
                "`{name}`: `{}` is {} bits, `{}` {}",
                args[1].trim(),
                32 * w,
                args[0].trim(),
                32 * dw
            );
            return Err((off, msg));
        }
        if hi {
            let t = self.alloc(2);
            self.emit(Inst::Clock { dst: t, wide: true });
            self.emit(Inst::Mov {
                dst,
                a: warpsim_kernel::ir::Reg(t.0 + 1),
            });
        } else {
            self.emit(Inst::Clock { dst, wide: w == 2 });
        }
        Ok(())
    }

    /// `redux.sync.OP.TYPE d, a, membermask`.
    pub(super) fn redux(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, name, parts, args) = i;
        let op = match parts {
            ["redux", "sync", op, ty] => match (*op, *ty) {
                ("add", "u32" | "s32") => ReduxOp::Add,
                ("min", "u32") => ReduxOp::MinU,
                ("min", "s32") => ReduxOp::MinS,
                ("max", "u32") => ReduxOp::MaxU,
                ("max", "s32") => ReduxOp::MaxS,
                ("and", "b32") => ReduxOp::And,
                ("or", "b32") => ReduxOp::Or,
                ("xor", "b32") => ReduxOp::Xor,
                _ => None.ok_or_else(|| {
                    let why = "sm_90 has `add/min/max` on .u32/.s32 and `and/or/xor` on .b32 \
                               (`.f32` needs sm_100a)";
                    (
                        off,
                        format!("PTX instruction `{name}` is not supported: {why}"),
                    )
                })?,
            },
            _ => return Err((off, format!("PTX instruction `{name}` is not supported"))),
        };
        if args.len() != 3 {
            let msg = format!("`{name}` takes 3 operands (d, a, membermask)");
            return Err((off, msg));
        }
        let dst = self.reg(args[0].trim(), off)?.0;
        let a = self.val(&args[1], 1, off)?;
        let mask = self.val(&args[2], 1, off)?;
        self.emit(Inst::Redux { op, dst, mask, a });
        Ok(())
    }

    /// `match.any.sync.T d, a, membermask` and `match.all.sync.T d[|p], a, membermask`.
    pub(super) fn match_sync(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, name, parts, args) = i;
        let (all, wide) = match parts {
            ["match", m, "sync", t]
                if matches!(*m, "any" | "all") && matches!(*t, "b32" | "b64") =>
            {
                (*m == "all", *t == "b64")
            }
            _ => return Err((off, format!("PTX instruction `{name}` is not supported"))),
        };
        if args.len() != 3 {
            let msg = format!("`{name}` takes 3 operands (d, a, membermask)");
            return Err((off, msg));
        }
        let (d, p) = match args[0].split_once('|') {
            Some((d, p)) if all => (d.trim(), Some(p.trim())),
            Some(_) => {
                return Err((off, format!("`{name}` has no predicate destination")));
            }
            None => (args[0].trim(), None),
        };
        let a = self.val(&args[1], 1 + wide as u8, off)?;
        let mask = self.val(&args[2], 1, off)?;
        let emit = |me: &mut Self, dst, pred| {
            me.emit(Inst::Match {
                all,
                wide,
                pred,
                dst,
                mask,
                a,
            })
        };
        // The predicate first: `d` may be the operand `a`.
        if let Some(p) = p.filter(|p| self.uses(p)) {
            let p = self.reg(p, off)?.0;
            emit(self, p, true);
        }
        let d = self.reg(d, off)?.0;
        emit(self, d, false);
        Ok(())
    }
}
