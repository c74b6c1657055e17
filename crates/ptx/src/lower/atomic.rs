//! `atom`/`red` on shared and global memory, and conversions of 8- and 16-bit integers.
//!
//! Atomics lower to [`Inst::Atomic`] on an element index: a shared atomic indexes a view of
//! its variable typed as the instruction (`u32`, `s32`, `f32`, `f64`, `f16`; a 64-bit integer
//! is a pair of `u32` words, `i32` for a signed `min`/`max`, `f16x2`/`bf16x2` a pair of halves), so
//! the bank model prices it as the H200 does (`add.f32` as ptxas's compare-and-swap loop); a
//! global one indexes the buffer its pointer came from, whose elements must fit the type
//! ([`global_buffer`]).

use super::{Err, Instr, Lower, Prov};
use warpsim_kernel::ir::{Inst, Mem, Reg, Space};
use warpsim_kernel::Elem;

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

/// What an atomic's type suffix makes of its operand and element.
#[derive(Clone, Copy, PartialEq)]
enum Width {
    /// One 32-bit element (`u32 s32 b32 f32`).
    One(Elem),
    /// A 64-bit integer (`u64 b64 s64`): a pair of 32-bit words of a `u32` view or buffer
    /// (`i32` for a signed `min`/`max`), low word first.
    Pair64(Elem),
    /// `f64`: one 8-byte element.
    F64,
    /// `f16x2` (`F16`) or `bf16x2` (`BF16`): two halves of one word (the register's low
    /// half is element `2i`).
    Half2(Elem),
}

impl Width {
    /// The element type of the view or buffer the atomic indexes.
    fn elem(self) -> Elem {
        match self {
            Width::One(e) | Width::Pair64(e) | Width::Half2(e) => e,
            Width::F64 => Elem::F64,
        }
    }
    /// Elements per lane (the `Mem`'s `vec`).
    fn vec(self) -> u8 {
        match self {
            Width::Pair64(_) | Width::Half2(_) => 2,
            _ => 1,
        }
    }
}

/// Whether an atomic of width `w` may index a buffer of `have` elements: 32-bit ones a 4-byte
/// buffer, a 64-bit integer a `u32` buffer (`i32` for `min.s64`/`max.s64`: the signedness
/// is the buffer's, as for a pair in a kernel), `add.f64` an `f64` one, `add.f16x2` an `f16`
/// one, `add.bf16x2` a `bf16` one.
fn global_buffer(op: &str, w: Width, have: Option<Elem>) -> Result<(), String> {
    let Some(have) = have else {
        return Err(format!("`{op}`: no such buffer"));
    };
    let (ok, want) = match w {
        Width::One(_) => (have.bytes() == 4, "4-byte elements (u32, i32, f32)"),
        Width::Pair64(Elem::I32) => (
            have == Elem::I32,
            "I32 elements (a long long is a pair of i32 words, low first)",
        ),
        Width::Pair64(_) => (
            have == Elem::U32,
            "U32 elements (an unsigned long long is a pair of u32 words, low first)",
        ),
        Width::F64 => (have == Elem::F64, "F64 elements"),
        Width::Half2(Elem::F16) => (have == Elem::F16, "F16 elements"),
        Width::Half2(_) => (have == Elem::BF16, "BF16 elements"),
    };
    match ok {
        true => Ok(()),
        false => Err(format!(
            "`{op}` on a buffer of {have} elements: declare the buffer with {want}"
        )),
    }
}

impl Lower<'_> {
    /// `atom.{shared,global}.OP.TYPE d, [a], b[, c]` and `red.{shared,global}.OP.TYPE [a], b`:
    /// 32-bit types, the 64-bit ones (`u64 b64 s64`, `add.f64`; README "64-bit and `__half2`
    /// atomics") and `add.noftz.f16x2`/`bf16x2`, lowered as the `Atomic` statement lowers (a pair of
    /// elements for 64-bit integers and `__half2`). A shared 32-bit `add` of the constant 1
    /// whose result is unread becomes `ATOMS.POPC.INC`, by the loader's own rule
    /// ([`warpsim_kernel::ptxas_op`]).
    pub(super) fn atomic(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        use warpsim_smem::AtomOp;
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
        let mut aop = parts
            .iter()
            .find_map(|p| warpsim_smem::ATOM_OPS.iter().find(|(n, _)| n == p))
            .map(|(_, o)| *o)
            .ok_or((off, format!("`{op}`: unknown atomic operation")))?;
        let ty = parts.last().copied().unwrap_or("");
        let int64 = matches!(
            aop,
            AtomOp::Add
                | AtomOp::Min
                | AtomOp::Max
                | AtomOp::And
                | AtomOp::Or
                | AtomOp::Xor
                | AtomOp::Exch
                | AtomOp::Cas
        );
        let signed = matches!(aop, AtomOp::Min | AtomOp::Max);
        let w = match ty {
            "u32" | "b32" => Width::One(Elem::U32),
            "s32" => Width::One(Elem::I32),
            "f32" => Width::One(Elem::F32),
            "u64" | "b64" if int64 => Width::Pair64(Elem::U32),
            "s64" if int64 && signed => Width::Pair64(Elem::I32),
            // (an s64 add, and, …: the same bits as unsigned)
            "s64" if int64 => Width::Pair64(Elem::U32),
            "f64" if aop == AtomOp::Add => Width::F64,
            "f16x2" if aop == AtomOp::Add => Width::Half2(Elem::F16),
            "bf16x2" if aop == AtomOp::Add => Width::Half2(Elem::BF16),
            "f16x2" | "bf16x2" => {
                return Err((
                    off,
                    format!("`{op}`: of the half-pair atomics only add was measured on the H200 (README rule 10), so warpsim does not price this one"),
                ))
            }
            "u64" | "b64" | "s64" | "f64" => {
                return Err((off, format!("`{op}`: CUDA has no such atomic (on 64-bit integers: add min max and or xor exch cas; on f64: add only)")))
            }
            t => {
                return Err((
                    off,
                    format!("`{op}`: {t} atomics are not supported (32- and 64-bit ones and add.f16x2/bf16x2 are)"),
                ))
            }
        };
        let (dst, addr, vals) = match red {
            true => (None, args.first(), args.get(1..).unwrap_or(&[])),
            false => (args.first(), args.get(1), args.get(2..).unwrap_or(&[])),
        };
        let addr = addr.ok_or((off, format!("`{op}`: no address")))?;
        let cas = aop == AtomOp::Cas;
        if vals.len() != 1 + cas as usize {
            return Err((off, format!("`{op}`: wrong number of operands")));
        }
        let (base, disp) = address(addr, off)?;
        // The operands, as the `Atomic` statement lays them out: one element: data = the
        // value (cas: the new value), data + 1 = cas's compare value; a pair: data, data + 1
        // the value's words or halves, data + 2, data + 3 cas's compare value.
        let data = self.operands(off, w, cas, vals)?;
        let elem = w.elem();
        if let (Width::One(_), false) = (w, cas) {
            let read = dst.is_some_and(|d| self.uses(d.trim()));
            let k = self.const_of(&vals[0]);
            aop = warpsim_kernel::ptxas_op(aop, space, elem, read, k);
        }
        let sym = self.vars.iter().position(|x| x.0 == base);
        let prov = self.prov.get(&base).copied();
        let (array, from) = match (space, prov, sym) {
            (Space::Shared, _, Some(k)) | (Space::Shared, Some(Prov::Shared(k)), None) => {
                (self.view_as(k, elem), -(self.vars[k].1 as i64))
            }
            (Space::Shared, _, None) => (self.view_as(0, elem), 0),
            (Space::Global, Some(Prov::Buffer(b)), None) => {
                let have = self.buffer_elem(b);
                global_buffer(op, w, have).map_err(|m| (off, m))?;
                (b, 0)
            }
            // (Not reached: `space` above is shared or global.)
            (Space::Local, ..) => return Err((off, format!("`{op}`: no atomics on .local"))),
            (Space::Const, ..) => {
                return Err((off, format!("`{op}`: constant memory is read-only")))
            }
            (Space::Global, ..) => {
                return Err((
                    off,
                    format!(
                        "`{op}`: the pointer `{base}` does not come from a buffer argument \
                         (warpsim must know which buffer a global atomic updates when the kernel \
                         loads; a pointer loaded from memory does not say)"
                    ),
                ))
            }
        };
        // The element index: (address + disp - the variable's base) / the element's bytes.
        // A 64-bit pair indexes words, so an address 4 bytes off its alignment is the
        // executor's misaligned-access fault.
        let bytes = elem.bytes() as i64;
        let idx = self.alloc(1);
        match sym {
            Some(k) => {
                let at = (self.vars[k].1 as i64 + disp + from) / bytes;
                let kreg = self.konst(at as u64 & 0xffff_ffff, 1);
                self.emit(Inst::Mov { dst: idx, a: kreg });
            }
            None => {
                let lo = self.reg(&base, off)?.0;
                let d = self.konst((disp + from) as u64 & 0xffff_ffff, 1);
                let sh = self.konst(bytes.trailing_zeros() as u64, 1);
                self.emit(Inst::Add {
                    dst: idx,
                    a: lo,
                    b: d,
                });
                self.emit(Inst::ShrU {
                    dst: idx,
                    a: idx,
                    b: sh,
                });
            }
        }
        let m = Mem {
            space,
            array,
            rank: 1,
            idx: [idx, Reg(0), Reg(0)],
            vec: w.vec(),
            data,
            elem: None,
        };
        self.emit(Inst::Atomic { m, op: aop });
        if let Some(d) = dst {
            let d = self.reg(d.trim(), off)?.0;
            match w {
                Width::One(_) => self.emit(Inst::Mov { dst: d, a: data }),
                Width::Pair64(_) | Width::F64 => self.emit(Inst::Mov64 { dst: d, a: data }),
                // The old halves back into one register: low | high << 16.
                Width::Half2(_) => {
                    let k16 = self.konst(16, 1);
                    let hi = Reg(data.0 + 1);
                    self.emit(Inst::Shl {
                        dst: hi,
                        a: hi,
                        b: k16,
                    });
                    self.emit(Inst::Or {
                        dst: d,
                        a: data,
                        b: hi,
                    });
                }
            }
        }
        Ok(())
    }

    /// The operand registers of an atomic of width `w` (see [`Lower::atomic`]).
    fn operands(&mut self, off: usize, w: Width, cas: bool, vals: &[String]) -> Result<Reg, Err> {
        // PTX writes cas's compare value first: `atom.cas d, [a], compare, new`.
        let (v, c) = match cas {
            true => (&vals[1], &vals[0]),
            false => (&vals[0], &vals[0]),
        };
        match w {
            Width::One(_) => {
                let data = self.alloc(2);
                for (k, x) in [v, c].into_iter().enumerate() {
                    let x = self.val(x, 1, off)?;
                    self.emit(Inst::Mov {
                        dst: Reg(data.0 + k as u16),
                        a: x,
                    });
                }
                Ok(data)
            }
            Width::F64 => {
                let data = self.alloc(2);
                let x = self.val(v, 2, off)?;
                self.emit(Inst::Mov64 { dst: data, a: x });
                Ok(data)
            }
            Width::Pair64(_) => {
                let data = self.alloc(4);
                for (k, x) in [v, c].into_iter().enumerate() {
                    let x = self.val(x, 2, off)?;
                    self.emit(Inst::Mov64 {
                        dst: Reg(data.0 + 2 * k as u16),
                        a: x,
                    });
                }
                Ok(data)
            }
            // The register's two halves, each in a register of its own (the executor adds
            // each half's low 16 bits).
            Width::Half2(_) => {
                let data = self.alloc(4);
                let x = self.val(v, 1, off)?;
                let k16 = self.konst(16, 1);
                self.emit(Inst::Mov { dst: data, a: x });
                self.emit(Inst::ShrU {
                    dst: Reg(data.0 + 1),
                    a: x,
                    b: k16,
                });
                Ok(data)
            }
        }
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
