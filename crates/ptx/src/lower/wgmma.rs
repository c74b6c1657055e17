//! `wgmma` (issue 41): Hopper's warpgroup matrix multiply.
//!
//! * `wgmma.mma_async.sync.aligned.m64nNkK[.satfinite].{d}.{a}.{b} {d..}, a, b-desc, scale-d[,
//!   imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b]` → [`Inst::Wgmma`] (its operands
//!   in `Lowered::wgmmas`); `a` is four registers (`{..}`) or a 64-bit descriptor;
//! * `wgmma.fence`, `wgmma.commit_group` and `wgmma.wait_group N` (`.sync.aligned`) lower to
//!   nothing: the multiply is done when it is issued, so a program that waits as the PTX ISA
//!   requires sees what the GPU gives it.

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{Inst, MmaType, WgA, WgmmaOp};

impl Lower<'_> {
    /// Lowers a `wgmma.*` instruction.
    pub(super) fn wgmma(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: String| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        match parts {
            ["wgmma", "fence" | "commit_group", "sync", "aligned"] if args.is_empty() => Ok(()),
            ["wgmma", "wait_group", "sync", "aligned"] => match args {
                [n] if self.const_of(n).is_some_and(|n| (0..=255).contains(&n)) => Ok(()),
                _ => Err(unsup(
                    "its operand must be one constant from 0 to 255".into(),
                )),
            },
            ["wgmma", "mma_async", rest @ ..] => self.wgmma_mma(i, rest),
            _ => Err(unsup(
                "warpsim runs wgmma.mma_async (dense), wgmma.fence, wgmma.commit_group and \
                 wgmma.wait_group"
                    .into(),
            )),
        }
    }

    fn wgmma_mma(&mut self, i: Instr, rest: &[&str]) -> Result<(), Err> {
        let Instr(off, op, _, args) = i;
        let unsup = |why: String| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let (mut shape, mut types, mut satfinite) = (None, Vec::new(), false);
        for p in rest {
            match *p {
                "sync" | "aligned" => {}
                "satfinite" => satfinite = true,
                p if MmaType::of(p).is_some() => types.extend(MmaType::of(p)),
                s if s.starts_with("m64n") => shape = Some(s),
                other => {
                    return Err(unsup(format!(
                        "`.{other}` (the sparse `.sp` and the single-bit forms are not modelled)"
                    )))
                }
            }
        }
        if !rest.contains(&"sync") || !rest.contains(&"aligned") {
            return Err(unsup("wgmma.mma_async is `.sync.aligned`".into()));
        }
        let (Some(shape), &[d_ty, a_ty, b_ty]) = (shape, &types[..]) else {
            return Err(unsup(
                "wgmma.mma_async needs a shape and three types (`.m64n128k16.f32.f16.f16`)".into(),
            ));
        };
        // `m64n{N}k{K}`, K the 32 bytes of A's type.
        let n = shape
            .strip_prefix("m64n")
            .and_then(|s| s.split_once('k'))
            .and_then(|(n, k)| Some((n.parse::<u16>().ok()?, k.parse::<u32>().ok()?)));
        let Some((n, _)) = n.filter(|&(_, k)| k * a_ty.bits() == 256) else {
            return Err(unsup(format!(
                "`.{shape}` is not a shape of `.{}` operands (m64nNk16 for f16/bf16, m64nNk8 for \
                 tf32, m64nNk32 for 8-bit types)",
                a_ty.name()
            )));
        };
        let sixteen = a_ty.bits() == 16;
        let int = a_ty.is_int();
        let a_regs = args.get(1).is_some_and(|a| a.trim().starts_with('{'));
        // Operands after scale-d: imm-scale-a and -b (floats), imm-trans-a (16-bit types,
        // descriptors) and imm-trans-b (16-bit types).
        let imms = if int {
            0
        } else {
            2 + (sixteen && !a_regs) as usize + sixteen as usize
        };
        if args.len() != 4 + imms {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes {} operands (d, a, b-desc, scale-d{}), but this \
                     one has {}",
                    4 + imms,
                    match (int, sixteen, a_regs) {
                        (true, _, _) => "",
                        (_, false, _) => ", imm-scale-a, imm-scale-b",
                        (_, true, true) => ", imm-scale-a, imm-scale-b, imm-trans-b",
                        (_, true, false) => ", imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b",
                    },
                    args.len()
                ),
            ));
        }
        let imm = |this: &Self, s: &str, ok: &[i64], what: &str| match this.const_of(s) {
            Some(v) if ok.contains(&v) => Ok(v),
            _ => Err((
                off,
                format!(
                    "PTX instruction `{op}`: {what} must be one of {ok:?}, not `{}`",
                    s.trim()
                ),
            )),
        };
        let mut at = 4;
        let mut next = |this: &Self, ok: &[i64], what: &str| {
            let v = imm(this, &args[at], ok, what);
            at += 1;
            v
        };
        let (mut neg_a, mut neg_b, mut trans_a, mut trans_b) = (false, false, false, false);
        if !int {
            neg_a = next(self, &[1, -1], "imm-scale-a")? == -1;
            neg_b = next(self, &[1, -1], "imm-scale-b")? == -1;
            if sixteen && !a_regs {
                trans_a = next(self, &[0, 1], "imm-trans-a")? == 1;
            }
            if sixteen {
                trans_b = next(self, &[0, 1], "imm-trans-b")? == 1;
            }
        }
        let a = if a_regs {
            let names = super::reg_list(&args[1]);
            if names.len() != 4 {
                return Err((
                    off,
                    format!(
                        "PTX instruction `{op}` takes 4 registers of A, but `{}` names {}",
                        args[1].trim(),
                        names.len()
                    ),
                ));
            }
            let mut r = [warpsim_kernel::ir::Reg(0); 4];
            for (k, name) in names.iter().enumerate() {
                r[k] = self.val(name, 1, off)?;
            }
            WgA::Regs(r)
        } else {
            WgA::Desc(self.val(&args[1], 2, off)?)
        };
        let b = self.val(&args[2], 2, off)?;
        let scale_d = self.val(&args[3], 1, off)?;
        let mut d = Vec::new();
        for name in super::reg_list(&args[0]) {
            let (r, w) = self.reg(name, off)?;
            if w != 1 {
                return Err((
                    off,
                    format!("PTX instruction `{op}`: D's register `{name}` is not 32-bit"),
                ));
            }
            d.push(r);
        }
        let w = WgmmaOp {
            n,
            d_ty,
            a_ty,
            b_ty,
            satfinite,
            d,
            a,
            b,
            scale_d,
            neg_a,
            neg_b,
            trans_a,
            trans_b,
        };
        w.check().map_err(|e| (off, e))?;
        let k = u16::try_from(self.wgmmas.len()).map_err(|_| {
            (
                off,
                "more than 65,535 wgmma.mma_async instructions in one kernel".to_owned(),
            )
        })?;
        self.wgmmas.push(w);
        self.emit(Inst::Wgmma { op: k });
        Ok(())
    }
}
