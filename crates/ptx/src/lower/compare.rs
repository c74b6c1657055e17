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
        let n = parts.len();
        let mids = parts.get(2..n.saturating_sub(1)).unwrap_or(&[]);
        let ftz = mids.contains(&"ftz");
        let comb = mids
            .iter()
            .copied()
            .find(|m| matches!(*m, "and" | "or" | "xor"));
        let known = mids.len() == ftz as usize + comb.is_some() as usize;
        if n < 3 || !known || (ftz && parts[n - 1] != "f32") {
            return Err(unsup(
                ": only `setp.CMP[.and|.or|.xor][.ftz].TYPE` (`.ftz` on `.f32` only)",
            ));
        }
        let want = 3 + comb.is_some() as usize;
        if args.len() != want {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes {want} operands, but this one has {}",
                    args.len()
                ),
            ));
        }
        let (cmp, ty) = (parts[1], parts[n - 1]);
        let w = words_of(&format!(".{ty}"));
        let (p, q) = match args[0].split_once('|') {
            Some((p, q)) => (p.trim(), Some(q.trim())),
            None => (args[0].trim(), None),
        };
        let mut x = self.val(&args[1], w, off)?;
        let mut y = self.val(&args[2], w, off)?;
        if ftz {
            // `.ftz`: subnormal inputs read as zeros of their sign.
            for v in [&mut x, &mut y] {
                let t = self.alloc(1);
                self.emit(Inst::Bits {
                    op: warpsim_kernel::BitOp::Ftz,
                    dst: t,
                    a: *v,
                    b: *v,
                    c: *v,
                    d: *v,
                });
                *v = t;
            }
        }
        let one = self.konst(1, 1);
        // The combining predicate (`!p` negated), read before `dst` is written.
        let combine = match comb {
            Some(c) => {
                let (name, neg) = match args[3].trim().strip_prefix('!') {
                    Some(r) => (r.trim(), true),
                    None => (args[3].trim(), false),
                };
                let r = self.val(name, 1, off)?;
                // A copy when negated, or when `q` is the combining predicate itself (`q` is
                // written before `p` reads it).
                let aliased = q.is_some_and(|q| q == name);
                if neg || aliased {
                    let t = self.alloc(1);
                    self.emit(match neg {
                        true => Inst::Xor {
                            dst: t,
                            a: r,
                            b: one,
                        },
                        false => Inst::Mov { dst: t, a: r },
                    });
                    Some((c, t))
                } else {
                    Some((c, r))
                }
            }
            None => None,
        };
        let final_p = self.reg(p, off)?.0;
        let dst = match combine {
            Some(_) => self.alloc(1),
            None => final_p,
        };
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
        let comb_inst = |name: &str, dst: Reg, a: Reg, b: Reg| match name {
            "and" => And { dst, a, b },
            "or" => Or { dst, a, b },
            _ => Xor { dst, a, b },
        };
        if let Some(q) = q {
            let q = self.reg(q, off)?.0;
            match combine {
                Some((name, c)) => {
                    let t = self.alloc(1);
                    self.emit(Xor {
                        dst: t,
                        a: dst,
                        b: one,
                    });
                    self.emit(comb_inst(name, q, t, c));
                }
                None => self.emit(Xor {
                    dst: q,
                    a: dst,
                    b: one,
                }),
            }
        }
        if let Some((name, c)) = combine {
            self.emit(comb_inst(name, final_p, dst, c));
        }
        Ok(())
    }
}
