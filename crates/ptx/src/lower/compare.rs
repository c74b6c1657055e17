//! `setp.CMP.TYPE p[|q], a, b` on 32- and 64-bit integers and on `f32`/`f64` (16-bit integers
//! are `narrow.rs`'s, halves `half.rs`'s).
//!
//! Integers: `eq ne lt le gt ge` (signed for `.s*`, unsigned for `.u*`/`.b*`) and the unsigned
//! `lo ls hi hs`. Floats follow IEEE 754 as PTX does: `eq ne lt le gt ge` are *ordered*
//! (false when either operand is NaN), `equ neu ltu leu gtu geu` *unordered* (true when either
//! is NaN), `num` (neither is NaN) and `nan` (either is). The executor's float comparisons are
//! Rust's (`<`, `<=`, `==` ordered, `!=` unordered): `ne` is `a < b || b < a`, an unordered one
//! the negation of the opposite ordered one (`ltu` = `!(a >= b)`). `p|q` also writes `q = !p`.

use super::{words_of, Err, Instr, Lower};
use warpsim_kernel::ir::{Cmp64 as C64, Inst, Reg};

/// Whether `setp` of type `ty` is [`Lower::setp`]'s.
pub(super) fn applies(ty: &str) -> bool {
    matches!(
        ty,
        "s32" | "u32" | "b32" | "s64" | "u64" | "b64" | "f32" | "f64"
    )
}

/// An ordered float comparison: `dst = a < b` (`le`: `<=`, else `==`), f32 or f64.
fn fcmp(wide: bool, kind: &str, dst: Reg, a: Reg, b: Reg) -> Inst {
    use Inst::*;
    match (wide, kind) {
        (false, "lt") => FLt { dst, a, b },
        (false, "le") => FLe { dst, a, b },
        (false, _) => FEq { dst, a, b },
        (true, "lt") => DLt { dst, a, b },
        (true, "le") => DLe { dst, a, b },
        (true, _) => DEq { dst, a, b },
    }
}

impl Lower<'_> {
    /// `setp.CMP.TYPE p[|q], a, b` (see the module's documentation).
    pub(super) fn setp(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let unsup = |why: &str| (off, format!("PTX instruction `{op}` is not supported{why}"));
        if parts.len() != 3 {
            return Err(unsup(
                ": only `setp.CMP.TYPE` (no `.ftz`, no combining with a predicate)",
            ));
        }
        if args.len() != 3 {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes 3 operands, but this one has {}",
                    args.len()
                ),
            ));
        }
        let (cmp, ty) = (parts[1], parts[2]);
        let w = words_of(&format!(".{ty}"));
        let (p, q) = match args[0].split_once('|') {
            Some((p, q)) => (p.trim(), Some(q.trim())),
            None => (args[0].trim(), None),
        };
        let x = self.val(&args[1], w, off)?;
        let y = self.val(&args[2], w, off)?;
        let dst = self.reg(p, off)?.0;
        let one = self.konst(1, 1);
        use Inst::*;
        let mut code = Vec::new();
        if ty.starts_with('f') {
            let wide = ty == "f64";
            let t = self.alloc(1);
            match cmp {
                "eq" => code.push(fcmp(wide, "eq", dst, x, y)),
                "lt" => code.push(fcmp(wide, "lt", dst, x, y)),
                "le" => code.push(fcmp(wide, "le", dst, x, y)),
                "gt" => code.push(fcmp(wide, "lt", dst, y, x)),
                "ge" => code.push(fcmp(wide, "le", dst, y, x)),
                // Ordered `ne`: a < b or b < a.
                "ne" | "equ" => {
                    code.push(fcmp(wide, "lt", t, x, y));
                    code.push(fcmp(wide, "lt", dst, y, x));
                    code.push(Or { dst, a: dst, b: t });
                    if cmp == "equ" {
                        code.push(Xor {
                            dst,
                            a: dst,
                            b: one,
                        });
                    }
                }
                "neu" => {
                    code.push(fcmp(wide, "eq", dst, x, y));
                    code.push(Xor {
                        dst,
                        a: dst,
                        b: one,
                    });
                }
                "ltu" | "leu" | "gtu" | "geu" => {
                    let (kind, a, b) = match cmp {
                        "ltu" => ("le", y, x),
                        "leu" => ("lt", y, x),
                        "gtu" => ("le", x, y),
                        _ => ("lt", x, y),
                    };
                    code.push(fcmp(wide, kind, dst, a, b));
                    code.push(Xor {
                        dst,
                        a: dst,
                        b: one,
                    });
                }
                "num" | "nan" => {
                    code.push(fcmp(wide, "eq", t, x, x));
                    code.push(fcmp(wide, "eq", dst, y, y));
                    code.push(And { dst, a: dst, b: t });
                    if cmp == "nan" {
                        code.push(Xor {
                            dst,
                            a: dst,
                            b: one,
                        });
                    }
                }
                _ => return Err(unsup(&format!(": no comparison `{cmp}` on floats"))),
            }
        } else {
            let signed = ty.starts_with('s');
            let (kind, a, b) = match (cmp, signed) {
                ("eq", _) => ("eq", x, y),
                ("ne", _) => ("ne", x, y),
                ("lt", _) | ("lo", false) => ("lt", x, y),
                ("le", _) | ("ls", false) => ("le", x, y),
                ("gt", _) | ("hi", false) => ("lt", y, x),
                ("ge", _) | ("hs", false) => ("le", y, x),
                _ => return Err(unsup(&format!(": no comparison `{cmp}` on .{ty}"))),
            };
            code.push(match (w, kind, signed) {
                (1, "eq", _) => Eq { dst, a, b },
                (1, "ne", _) => Ne { dst, a, b },
                (1, "lt", true) => LtS { dst, a, b },
                (1, "lt", false) => LtU { dst, a, b },
                (1, _, true) => LeS { dst, a, b },
                (1, _, false) => LeU { dst, a, b },
                (_, k, s) => {
                    let cmp = match (k, s) {
                        ("eq", _) => C64::Eq,
                        ("ne", _) => C64::Ne,
                        ("lt", true) => C64::LtS,
                        ("lt", false) => C64::LtU,
                        ("le", true) => C64::LeS,
                        _ => C64::LeU,
                    };
                    Cmp64 { cmp, dst, a, b }
                }
            });
        }
        // (`dst` is a predicate, never one of the operands, so it may be written first.)
        for i in code {
            self.emit(i);
        }
        if let Some(q) = q {
            let q = self.reg(q, off)?.0;
            self.emit(Xor {
                dst: q,
                a: dst,
                b: one,
            });
        }
        Ok(())
    }
}
