//! 64-bit integer instructions beyond `add sub mul shl shr` (those lower in `lower.rs`):
//! `and or xor not .b64`, `min max .s64/.u64`, `div rem .s64/.u64` (a zero divisor is a
//! fault, as on 32 bits), `mul.hi .s64/.u64`, `mad.lo .s64/.u64`, `mad.wide .s32/.u32`,
//! `neg abs .s64`, `cvt` between `f32`/`f64` and `.s64`/`.u64` (to the integer `.rzi .rni
//! .rmi .rpi`, saturated, NaN → 0; to the float `.rn`), and `cvt` between 64-bit and 8-, 16-
//! or 64-bit integers.
//!
//! A 64-bit value lives in a register pair (`r` low word, `r + 1` high word); each lowers to
//! the executor's 64-bit instructions (`Int64`, `Cmp64`, `Cvt64`, `Add64` …).

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{Cmp64 as C64, Inst, Op64};
use warpsim_kernel::Elem;

/// Whether `name.…ty` (with `parts`) is a 64-bit instruction of [`Lower::wide`].
pub(super) fn applies(parts: &[&str]) -> bool {
    let ty = parts.last().copied().unwrap_or("");
    let int64 = matches!(ty, "s64" | "u64");
    match (parts[0], parts.get(1).copied()) {
        ("and" | "or" | "xor" | "not", _) => ty == "b64",
        ("min" | "max" | "div" | "rem", _) => int64,
        ("mul", Some("hi")) => int64,
        ("mad", Some("wide")) => matches!(ty, "s32" | "u32"),
        ("mad", _) => int64,
        ("neg" | "abs", _) => ty == "s64",
        ("cvt", _) => cvt_applies(parts),
        _ => false,
    }
}

/// A `cvt` between a 64-bit integer and an `f32`/`f64` or an 8-, 16- or 64-bit integer.
fn cvt_applies(parts: &[&str]) -> bool {
    let n = parts.len();
    if n < 3 {
        return false;
    }
    let (to, from) = (parts[n - 2], parts[n - 1]);
    let float = |t: &str| matches!(t, "f32" | "f64");
    let int = |t: &str| matches!(t, "s64" | "u64");
    let narrow = |t: &str| super::narrow::int16(t) || matches!(t, "u8" | "s8" | "b8");
    (float(to) && int(from))
        || (int(to) && float(from))
        || (int(to) && (narrow(from) || int(from)))
        || (narrow(to) && int(from))
}

impl Lower<'_> {
    /// Lowers a 64-bit instruction [`applies`] accepts.
    pub(super) fn wide(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let signed = ty == "s64";
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let name = parts[0];
        let n = match name {
            "not" | "neg" | "abs" | "cvt" => 2,
            "mad" => 4,
            _ => 3,
        };
        if args.len() != n {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes {n} operands, but this one has {}",
                    args.len()
                ),
            ));
        }
        if name == "cvt" {
            return self.cvt64(off, parts, args, &unsup);
        }
        if name == "mad" && parts.get(1) == Some(&"wide") {
            // d = a * b + c, 32 × 32 → 64 bits: the product in a temporary (d may be c).
            let x = self.val(&args[1], 1, off)?;
            let y = self.val(&args[2], 1, off)?;
            let z = self.val(&args[3], 2, off)?;
            let dst = self.reg(args[0].trim(), off)?.0;
            let t = self.alloc(2);
            self.emit(Inst::MulWide {
                dst: t,
                a: x,
                b: y,
                signed: ty == "s32",
            });
            self.emit(Inst::Add64 { dst, a: t, b: z });
            return Ok(());
        }
        if name == "mad" && parts.get(1) != Some(&"lo") {
            return Err(unsup(
                "only mad.lo and mad.wide (of 32 bits) on 64-bit integers",
            ));
        }
        let x = self.val(&args[1], 2, off)?;
        let y = match n {
            2 => x,
            _ => self.val(&args[2], 2, off)?,
        };
        let dst = self.reg(args[0].trim(), off)?.0;
        use Inst::*;
        let int = |op: Op64| Int64 {
            op,
            dst,
            a: x,
            b: y,
        };
        let inst = match (name, parts.get(1).copied()) {
            ("and", _) => int(Op64::And),
            ("or", _) => int(Op64::Or),
            ("xor", _) => int(Op64::Xor),
            ("not", _) => {
                let ones = self.konst(u64::MAX, 2);
                Int64 {
                    op: Op64::Xor,
                    dst,
                    a: x,
                    b: ones,
                }
            }
            ("min", _) => int(if signed { Op64::MinS } else { Op64::MinU }),
            ("max", _) => int(if signed { Op64::MaxS } else { Op64::MaxU }),
            ("div", _) => int(if signed { Op64::DivS } else { Op64::DivU }),
            ("rem", _) => int(if signed { Op64::RemS } else { Op64::RemU }),
            ("mul", _) => int(if signed { Op64::MulHiS } else { Op64::MulHiU }),
            ("mad", _) => {
                // d = a * b + c: the product in a temporary (d may be c).
                let z = self.val(&args[3], 2, off)?;
                let t = self.alloc(2);
                self.emit(Mul64 { dst: t, a: x, b: y });
                Add64 { dst, a: t, b: z }
            }
            ("neg", _) => {
                let zero = self.konst(0, 2);
                Sub64 { dst, a: zero, b: x }
            }
            _ => {
                // abs: c = a < 0; d = c ? 0 - a : a (wrapping: |i64::MIN| is i64::MIN).
                let zero = self.konst(0, 2);
                let (t, c) = (self.alloc(2), self.alloc(1));
                self.emit(Sub64 {
                    dst: t,
                    a: zero,
                    b: x,
                });
                self.emit(Cmp64 {
                    cmp: C64::LtS,
                    dst: c,
                    a: x,
                    b: zero,
                });
                Select64 { dst, c, a: t, b: x }
            }
        };
        self.emit(inst);
        Ok(())
    }

    /// `cvt` between a 64-bit integer and an 8-, 16- or 64-bit one: widening extends by the
    /// source's signedness (an 8- or 16-bit source first to 32 bits), narrowing keeps the low
    /// bits (extended by the destination's signedness, as 16-bit registers are held).
    fn int_cvt64(
        &mut self,
        off: usize,
        (to, from): (&str, &str),
        args: &[String],
    ) -> Result<(), Err> {
        let bits = |t: &str| t[1..].parse::<u32>().unwrap_or(32);
        let (tb, fb) = (bits(to), bits(from));
        let dst = self.reg(args[0].trim(), off)?.0;
        if tb == 64 && fb == 64 {
            let x = self.val(&args[1], 2, off)?;
            self.emit(Inst::Mov64 { dst, a: x });
        } else if tb == 64 {
            let x = self.extended(&args[1], fb, from.starts_with('s'), off)?;
            self.emit(Inst::Ext64 {
                dst,
                a: x,
                signed: from.starts_with('s'),
            });
        } else {
            // The low word, then its low `tb` bits.
            let x = self.val(&args[1], 2, off)?;
            self.emit(Inst::Mov { dst, a: x });
            self.extend(dst, tb, to.starts_with('s'));
        }
        Ok(())
    }

    /// `cvt` between `f32`/`f64` and `.s64`/`.u64`.
    fn cvt64(
        &mut self,
        off: usize,
        parts: &[&str],
        args: &[String],
        unsup: &dyn Fn(&str) -> Err,
    ) -> Result<(), Err> {
        let n = parts.len();
        let (to, from) = (parts[n - 2], parts[n - 1]);
        let mods = &parts[1..n - 2];
        let float_side = |t: &str| t.starts_with('f');
        if !float_side(to) && !float_side(from) {
            return self.int_cvt64(off, (to, from), args);
        }
        let to_int = to.ends_with("64") && !to.starts_with('f');
        let (fty, ity) = if to_int { (from, to) } else { (to, from) };
        let float = if fty == "f64" { Elem::F64 } else { Elem::F32 };
        let fw = if float == Elem::F64 { 2 } else { 1 };
        let signed = ity == "s64";
        let x = self.val(&args[1], if to_int { fw } else { 2 }, off)?;
        let dst = self.reg(args[0].trim(), off)?.0;
        let a =
            if to_int {
                match mods {
                    ["rzi"] => x,
                    [m @ ("rni" | "rmi" | "rpi")] => self.integral(x, float, m).0,
                    [] => {
                        return Err(unsup(
                            "a float to integer cvt needs .rzi, .rni, .rmi or .rpi",
                        ))
                    }
                    _ => return Err(unsup(
                        "to an integer, one of .rzi .rni .rmi .rpi is supported (no .ftz, .sat)",
                    )),
                }
            } else {
                match mods {
                    [] | ["rn"] => x,
                    _ => return Err(unsup("from a 64-bit integer only .rn is supported")),
                }
            };
        self.emit(Inst::Cvt64 {
            dst,
            a,
            float,
            signed,
            to_int,
        });
        Ok(())
    }
}
