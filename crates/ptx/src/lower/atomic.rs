//! `atom`/`red` on shared and global memory, and conversions of 8- and 16-bit integers.
//!
//! Atomics lower to [`Inst::Atomic`] on an element index: a shared atomic indexes a view of
//! its variable typed as the instruction (`u32`, `s32`, `f32`), so the bank model prices it as
//! the H200 does (`add.f32` as ptxas's compare-and-swap loop); a global one indexes the buffer
//! its pointer came from.

use super::{Err, Lower, Prov};
use warpsim_interp::ast::Elem;
use warpsim_interp::ir::{Inst, Mem, Reg, Space};

/// `[base+disp]` → (base, disp).
fn address(a: &str, off: usize) -> Result<(String, i64), Err> {
    let inner = a
        .trim()
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .ok_or((off, format!("bad address `{a}`")))?
        .trim();
    Ok(match inner.rsplit_once('+') {
        Some((b, d)) => (
            b.trim().to_owned(),
            super::int(d.trim()).ok_or((off, format!("bad address `{a}`")))?,
        ),
        None => (inner.to_owned(), 0),
    })
}

impl Lower<'_> {
    /// `atom.{shared,global}.OP.TYPE d, [a], b[, c]` and `red.{shared,global}.OP.TYPE [a], b`.
    pub(super) fn atomic(
        &mut self,
        off: usize,
        op: &str,
        parts: &[&str],
        args: &[String],
    ) -> Result<(), Err> {
        let red = parts[0] == "red";
        let space = match () {
            _ if parts.contains(&"shared") => Space::Shared,
            _ if parts.contains(&"global") => Space::Global,
            _ => {
                return Err((
                    off,
                    format!("`{op}`: only .shared and .global atomics are supported (generic addressing is not)"),
                ))
            }
        };
        let aop = parts
            .iter()
            .find_map(|p| warpsim_smem::ATOM_OPS.iter().find(|(n, _)| n == p))
            .map(|(_, o)| *o)
            .ok_or((off, format!("`{op}`: unknown atomic operation")))?;
        let elem = match parts.last().copied().unwrap_or("") {
            "u32" | "b32" => Elem::U32,
            "s32" => Elem::I32,
            "f32" => Elem::F32,
            t => {
                return Err((
                    off,
                    format!("`{op}`: {t} atomics are not supported (32-bit ones are)"),
                ))
            }
        };
        let (dst, addr, vals) = match red {
            true => (None, args.first(), args.get(1..).unwrap_or(&[])),
            false => (args.first(), args.get(1), args.get(2..).unwrap_or(&[])),
        };
        let addr = addr.ok_or((off, format!("`{op}`: no address")))?;
        let cas = aop == warpsim_smem::AtomOp::Cas;
        if vals.len() != 1 + cas as usize {
            return Err((off, format!("`{op}`: wrong number of operands")));
        }
        let (base, disp) = address(addr, off)?;
        // data = the value (cas: the new value), data + 1 = cas's compare value.
        let data = self.alloc(2);
        let (v, c) = match cas {
            true => (self.val(&vals[1], 1, off)?, self.val(&vals[0], 1, off)?),
            false => {
                let v = self.val(&vals[0], 1, off)?;
                (v, v)
            }
        };
        self.emit(Inst::Mov { dst: data, a: v });
        self.emit(Inst::Mov {
            dst: Reg(data.0 + 1),
            a: c,
        });
        let sym = self.vars.iter().position(|x| x.0 == base);
        let prov = self.prov.get(&base).copied();
        let (array, from) = match (space, prov, sym) {
            (Space::Shared, _, Some(k)) | (Space::Shared, Some(Prov::Shared(k)), None) => {
                (self.view_as(k, elem), -(self.vars[k].1 as i64))
            }
            (Space::Shared, _, None) => (self.view_as(0, elem), 0),
            (Space::Global, Some(Prov::Buffer(b)), None) => {
                let eb = self
                    .req
                    .buffers
                    .get(b as usize)
                    .map_or(0, |x| x.elem.bytes());
                if eb != 4 {
                    return Err((off, format!("`{op}` on a buffer of {eb}-byte elements")));
                }
                (b, 0)
            }
            (Space::Global, ..) => {
                return Err((
                    off,
                    format!("`{op}`: the pointer `{base}` does not come from a buffer argument"),
                ))
            }
        };
        // The element index: (address + disp - the variable's base) / 4.
        let idx = self.alloc(1);
        match sym {
            Some(k) => {
                let at = (self.vars[k].1 as i64 + disp + from) / 4;
                let kreg = self.konst(at as u64 & 0xffff_ffff, 1);
                self.emit(Inst::Mov { dst: idx, a: kreg });
            }
            None => {
                let lo = self.reg(&base, off)?.0;
                let d = self.konst((disp + from) as u64 & 0xffff_ffff, 1);
                let two = self.konst(2, 1);
                self.emit(Inst::Add {
                    dst: idx,
                    a: lo,
                    b: d,
                });
                self.emit(Inst::ShrU {
                    dst: idx,
                    a: idx,
                    b: two,
                });
            }
        }
        let m = Mem {
            space,
            array,
            rank: 1,
            idx: [idx, Reg(0), Reg(0)],
            vec: 1,
            data,
        };
        self.emit(Inst::Atomic { m, op: aop });
        if let Some(d) = dst {
            let d = self.reg(d.trim(), off)?.0;
            self.emit(Inst::Mov { dst: d, a: data });
        }
        Ok(())
    }

    /// `dst` = its low `bits` bits, zero- or sign-extended.
    pub(super) fn extend(&mut self, dst: Reg, bits: u32, signed: bool) {
        if signed {
            let k = self.konst((32 - bits) as u64, 1);
            self.emit(Inst::Shl { dst, a: dst, b: k });
            self.emit(Inst::ShrS { dst, a: dst, b: k });
        } else {
            let m = self.konst(((1u64 << bits) - 1) & 0xffff_ffff, 1);
            self.emit(Inst::And { dst, a: dst, b: m });
        }
    }

    /// `cvt` where one side is an 8- or 16-bit integer (registers hold them widened).
    pub(super) fn narrow_cvt(
        &mut self,
        off: usize,
        parts: &[&str],
        args: &[String],
    ) -> Result<(), Err> {
        let n = parts.len();
        let (to, from) = (parts[n - 2], parts[n - 1]);
        let width = |t: &str| t[1..].parse::<u32>().ok();
        let (Some(tw), Some(fw)) = (width(to), width(from)) else {
            return Err((
                off,
                format!("PTX instruction `{}` is not supported", parts.join(".")),
            ));
        };
        if tw > 32 || fw > 32 {
            return Err((
                off,
                format!("PTX instruction `{}` is not supported", parts.join(".")),
            ));
        }
        let dst = self.reg(args[0].trim(), off)?.0;
        let a = self.val(&args[1], 1, off)?;
        self.emit(Inst::Mov { dst, a });
        // Narrowing keeps the low bits; widening extends by the source's signedness.
        let (bits, signed) = if tw < fw {
            (tw, to.starts_with('s'))
        } else {
            (fw, from.starts_with('s'))
        };
        if bits < 32 {
            self.extend(dst, bits, signed);
        }
        Ok(())
    }
}
