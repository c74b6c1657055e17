//! PTX's bit and integer instructions of [`BitOp`]: `bfi`, `bfe.u64`/`.s64`, `prmt`'s modes,
//! `mad.hi` (32 and 64 bits, `.sat.s32`), `clz`/`brev`/`popc`/`bfind` on `.b64`, `testp`,
//! `shf`, `cnot`, `szext`, `bmsk`, `dp4a`, `dp2a`, `lop3`, `mul24`/`mad24`, `sad` and `fns`: each one
//! [`Inst::Bits`].

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::Inst;
use warpsim_kernel::{BitOp, PrmtMode, TestKind};

/// The [`BitOp`] an instruction is, if it is one.
pub(super) fn bit_op(parts: &[&str]) -> Option<BitOp> {
    let signed = |t: &str| match t {
        "s32" => Some(true),
        "u32" => Some(false),
        _ => None,
    };
    let mode = |m: &str| match m {
        "wrap" => Some(false),
        "clamp" => Some(true),
        _ => None,
    };
    Some(match *parts {
        ["bfi", "b32"] => BitOp::Bfi { wide: false },
        ["bfi", "b64"] => BitOp::Bfi { wide: true },
        ["bfe", "u64"] => BitOp::Bfe64 { signed: false },
        ["bfe", "s64"] => BitOp::Bfe64 { signed: true },
        ["prmt", "b32", m] => BitOp::Prmt(PrmtMode::from_name(m)?),
        ["mad", "hi", t] | ["mad", "hi", "sat", t] => {
            let (signed, wide) = match t {
                "u32" => (false, false),
                "s32" => (true, false),
                "u64" => (false, true),
                "s64" => (true, true),
                _ => return None,
            };
            if parts.len() == 4 && t != "s32" {
                return None;
            }
            BitOp::MadHi { signed, wide }
        }
        ["clz", "b64"] => BitOp::Clz64,
        ["brev", "b64"] => BitOp::Brev64,
        ["popc", "b64"] => BitOp::Popc64,
        ["bfind", t] | ["bfind", "shiftamt", t] if matches!(t, "u64" | "s64") => BitOp::Bfind64 {
            signed: t == "s64",
            shiftamt: parts.len() == 3,
        },
        ["testp", k, t] if matches!(t, "f32" | "f64") => BitOp::Testp {
            kind: TestKind::from_name(k)?,
            wide: t == "f64",
        },
        ["shf", lr, m, "b32"] if matches!(lr, "l" | "r") => BitOp::Shf {
            left: lr == "l",
            clamp: mode(m)?,
        },
        ["cnot", "b32"] => BitOp::Cnot,
        ["szext", m, t] => BitOp::Szext {
            signed: signed(t)?,
            clamp: mode(m)?,
        },
        ["bmsk", m, "b32"] => BitOp::Bmsk { clamp: mode(m)? },
        ["dp4a", ta, tb] => BitOp::Dp4a {
            sa: signed(ta)?,
            sb: signed(tb)?,
        },
        ["dp2a", hl, ta, tb] if matches!(hl, "lo" | "hi") => BitOp::Dp2a {
            hi: hl == "hi",
            sa: signed(ta)?,
            sb: signed(tb)?,
        },
        ["lop3", "b32"] => BitOp::Lop3,
        [m @ ("mul24" | "mad24"), hl, t] if matches!(hl, "lo" | "hi") => BitOp::Mul24 {
            hi: hl == "hi",
            signed: signed(t)?,
            add: m == "mad24",
        },
        ["sad", t] => BitOp::Sad { signed: signed(t)? },
        ["fns", "b32"] => BitOp::Fns,
        _ => return None,
    })
}

impl Lower<'_> {
    /// `OP d, a[, b[, c[, d]]]` for a [`BitOp`].
    pub(super) fn bits(&mut self, i: Instr, op: BitOp) -> Result<(), Err> {
        let Instr(off, name, _, args) = i;
        let (w, ws) = op.widths();
        let n = ws.iter().filter(|w| **w > 0).count();
        if args.len() != n + 1 {
            let msg = format!(
                "`{name}` takes {} operands, but this one has {}",
                n + 1,
                args.len()
            );
            return Err((off, msg));
        }
        let d = args[0].trim();
        let (dst, dw) = self.reg(d, off)?;
        if dw != w {
            let msg = format!(
                "`{name}` writes {} bits, but `{d}` is a {}-bit register",
                32 * w,
                32 * dw
            );
            return Err((off, msg));
        }
        let a = self.val(&args[1], ws[0], off)?;
        let mut srcs = [a; 4];
        for k in 1..n {
            srcs[k] = self.val(&args[k + 1], ws[k], off)?;
        }
        self.emit(Inst::Bits {
            op,
            dst,
            a,
            b: srcs[1],
            c: srcs[2],
            d: srcs[3],
        });
        Ok(())
    }
}
