//! 1- and 2-byte data: the element type of a narrow `ld`/`st` (shared and global accesses
//! lower in `Lower::mem` onto the executor's narrow accesses, priced and race-checked as the
//! RON kernels' are), and 16-bit integer instructions (`setp`, `and`/`or`/`xor`/`not`,
//! `shl`/`shr`, `min`/`max`, `div`/`rem`, `mul`/`mad`, `neg`/`abs` on `.u16`/`.s16`/`.b16`).
//!
//! A 16-bit register lives in a 32-bit one and only its low 16 bits are its value: what wraps
//! into the high half (`add.s16`) is ignored by every instruction that reads the register as
//! 16 bits, which first zero- or sign-extends it (a store keeps the low bytes; half arithmetic
//! reads the low 16 bits).

use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{Inst, Reg};
use warpsim_kernel::Elem;

/// The element of a narrow `ld`/`st` type.
pub(super) fn elem(t: &str) -> Option<Elem> {
    Some(match t {
        "u8" | "b8" => Elem::U8,
        "s8" => Elem::I8,
        "u16" | "b16" => Elem::U16,
        "s16" => Elem::I16,
        "f16" => Elem::F16,
        "bf16" => Elem::BF16,
        _ => return None,
    })
}

/// A 16-bit integer type.
pub(super) fn int16(t: &str) -> bool {
    matches!(t, "u16" | "s16" | "b16")
}

impl Lower<'_> {
    /// The `total / 4` words at `words` = the narrow elements in `regs` (of `bytes` each),
    /// packed little-endian.
    pub(super) fn pack_words(&mut self, words: Reg, regs: &[Reg], bytes: u32, total: u32) {
        let mask = self.konst(if bytes == 1 { 0xff } else { 0xffff }, 1);
        let zero = self.konst(0, 1);
        for k in 0..total / 4 {
            self.emit(Inst::Mov {
                dst: Reg(words.0 + k as u16),
                a: zero,
            });
        }
        let t = self.alloc(1);
        for (i, &r) in regs.iter().enumerate() {
            let at = i as u32 * bytes;
            let word = Reg(words.0 + (at / 4) as u16);
            let sh = self.konst(((at % 4) * 8) as u64, 1);
            self.emit(Inst::And {
                dst: t,
                a: r,
                b: mask,
            });
            self.emit(Inst::Shl {
                dst: t,
                a: t,
                b: sh,
            });
            self.emit(Inst::Or {
                dst: word,
                a: word,
                b: t,
            });
        }
    }

    /// `regs` = the narrow elements of type `ty` packed in the words at `words` (`_` sinks
    /// included), each extended as `ty` says.
    pub(super) fn unpack_words(&mut self, regs: &[Reg], words: Reg, ty: &str) {
        let e = elem(ty).unwrap_or(Elem::U16);
        let bytes = e.bytes();
        let signed = matches!(e, Elem::I8 | Elem::I16);
        for (i, &r) in regs.iter().enumerate() {
            let at = i as u32 * bytes;
            let word = Reg(words.0 + (at / 4) as u16);
            let sh = self.konst(((at % 4) * 8) as u64, 1);
            self.emit(Inst::ShrU {
                dst: r,
                a: word,
                b: sh,
            });
            self.extend(r, bytes * 8, signed);
        }
    }

    /// After a narrow global load into `regs` from buffer `buf`: each value extended as the
    /// load's type `ty` says when the buffer's element differs (`ld.global.s8` of a `u8`
    /// buffer sign-extends).
    pub(super) fn retype(&mut self, regs: &[Reg], ty: &str, buf: u16) {
        let Some(e) = elem(ty) else { return };
        let signed = matches!(e, Elem::I8 | Elem::I16);
        let same = |b: Elem| b.bytes() == e.bytes() && matches!(b, Elem::I8 | Elem::I16) == signed;
        if matches!(e, Elem::F16 | Elem::BF16) || self.buffer_elem(buf).is_some_and(same) {
            return;
        }
        for &r in regs {
            self.extend(r, e.bytes() * 8, signed);
        }
    }

    /// A copy of operand `a` extended from its low `bits` bits (by `signed`).
    pub(super) fn extended(
        &mut self,
        a: &str,
        bits: u32,
        signed: bool,
        off: usize,
    ) -> Result<Reg, Err> {
        let x = self.val(a, 1, off)?;
        let t = self.alloc(1);
        self.emit(Inst::Mov { dst: t, a: x });
        self.extend(t, bits, signed);
        Ok(t)
    }

    /// `setp`, `and`/`or`/`xor`/`not`, `shl`/`shr`, `min`/`max`, `div`/`rem`, `mul.{lo,hi,wide}`,
    /// `mad.{lo,wide}`, `neg`, `abs.s16` on a 16-bit integer type: the operands extended (by the
    /// type's signedness), then the 32-bit instruction.
    pub(super) fn int16_op(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let signed = ty == "s16";
        let unsup = || (off, format!("PTX instruction `{op}` is not supported"));
        let arg = |i: usize| args.get(i).map(String::as_str).unwrap_or("");
        let n = match parts[0] {
            "not" | "neg" | "abs" => 2,
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
        if parts[0] == "setp" && parts.len() != 3 {
            // (`setp.CMP.BOOL.TYPE d, a, b, c` combines with a predicate: not supported)
            return Err(unsup());
        }
        let x = self.extended(arg(1), 16, signed, off)?;
        let y = match parts[0] {
            "not" | "neg" | "abs" => x,
            // A shift count is a 32-bit operand.
            "shl" | "shr" => self.val(arg(2), 1, off)?,
            _ => self.extended(arg(2), 16, signed, off)?,
        };
        let dst = self.reg(arg(0).trim(), off)?.0;
        use Inst::*;
        let (a, b) = (x, y);
        let inst = match (parts[0], parts.get(1).copied()) {
            ("setp", Some(cmp)) => match (cmp, signed) {
                ("eq", _) => Eq { dst, a, b },
                ("ne", _) => Ne { dst, a, b },
                ("lt", true) => LtS { dst, a, b },
                ("le", true) => LeS { dst, a, b },
                ("gt", true) => LtS { dst, a: b, b: a },
                ("ge", true) => LeS { dst, a: b, b: a },
                ("lt" | "lo", false) => LtU { dst, a, b },
                ("le" | "ls", false) => LeU { dst, a, b },
                ("gt" | "hi", false) => LtU { dst, a: b, b: a },
                ("ge" | "hs", false) => LeU { dst, a: b, b: a },
                _ => return Err(unsup()),
            },
            ("and", _) => And { dst, a, b },
            ("or", _) => Or { dst, a, b },
            ("xor", _) => Xor { dst, a, b },
            ("not", _) => Not { dst, a },
            ("shl", _) => Shl { dst, a, b },
            ("shr", _) if signed => ShrS { dst, a, b },
            ("shr", _) => ShrU { dst, a, b },
            ("min", _) if signed => MinS { dst, a, b },
            ("min", _) => MinU { dst, a, b },
            ("max", _) if signed => MaxS { dst, a, b },
            ("max", _) => MaxU { dst, a, b },
            // Division and remainder of the extended values (a zero divisor is a fault, as on
            // 32 bits): exact, and `-32768 / -1` keeps 0x8000 in its low 16 bits, PTX's wrap.
            ("div", _) if signed => DivS { dst, a, b },
            ("div", _) => DivU { dst, a, b },
            ("rem", _) if signed => RemS { dst, a, b },
            ("rem", _) => RemU { dst, a, b },
            // The 32-bit product of the extended values is exact: `.wide` is all of it, `.hi`
            // its high 16 bits, `.lo` its low ones.
            ("mul", Some("hi")) => {
                let (t, k) = (self.alloc(1), self.konst(16, 1));
                self.emit(Mul { dst: t, a, b });
                match signed {
                    true => ShrS { dst, a: t, b: k },
                    false => ShrU { dst, a: t, b: k },
                }
            }
            ("mul", Some("lo" | "wide")) => Mul { dst, a, b },
            ("mad", Some("lo" | "wide")) => {
                // `.lo`: the low 16 bits of a · b + c; `.wide`: a 32-bit c added to the product.
                let c = self.val(arg(3), 1, off)?;
                Mad { dst, a, b, c }
            }
            ("neg", _) => Neg { dst, a },
            ("abs", _) if signed => AbsS { dst, a },
            _ => return Err(unsup()),
        };
        self.emit(inst);
        Ok(())
    }
}
