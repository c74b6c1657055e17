//! Half precision as NVRTC's `cuda_fp16.h`/`cuda_bf16.h` emit it: `add sub mul fma neg abs
//! min max setp set` on `.f16 .bf16 .f16x2 .bf16x2` (`.rn`; `.ftz` and `.sat` on `.f16`), and
//! the packing moves `mov.b32 {lo, hi}, r` / `mov.b32 r, {lo, hi}` (and `.b64` of two words).
//! Conversions are `convert.rs`'s.
//!
//! Every rounding is the executor's [`Inst::Half`], whose arithmetic is
//! `warpsim_kernel::fp16` (CUDA's, bit for bit). A half lives in the low 16 bits of a
//! register; a `.f16x2` pair in one register, the first (`lo`) element in the low half. A pair
//! instruction is two half instructions on the unpacked halves, packed again.

use super::{Err, Instr, Lower};
use warpsim_kernel::fp16::{Half, HalfOp};
use warpsim_kernel::ir::{Inst, Reg};

/// The format of a half type and whether it is a pair (`x2`).
pub(super) fn half_type(t: &str) -> Option<(Half, bool)> {
    Some(match t {
        "f16" => (Half::F16, false),
        "bf16" => (Half::Bf16, false),
        "f16x2" => (Half::F16, true),
        "bf16x2" => (Half::Bf16, true),
        _ => return None,
    })
}

/// The instructions [`Lower::half`] lowers on half types.
pub(super) const HALF_OPS: [&str; 10] = [
    "add", "sub", "mul", "fma", "neg", "abs", "min", "max", "setp", "set",
];

impl Lower<'_> {
    fn half_inst(&mut self, op: HalfOp, fmt: Half, dst: Reg, a: Reg, b: Reg, c: Reg) {
        self.emit(Inst::Half {
            op,
            fmt,
            dst,
            a,
            b,
            c,
        });
    }

    /// `.ftz`: a copy of the f16 in `v`'s low half with a subnormal flushed to a zero of its
    /// sign.
    fn flush(&mut self, v: Reg) -> Reg {
        let (exp, sign, zero) = (
            self.konst(0x7c00, 1),
            self.konst(0x8000, 1),
            self.konst(0, 1),
        );
        let (e, s, r) = (self.alloc(1), self.alloc(1), self.alloc(1));
        self.emit(Inst::And {
            dst: e,
            a: v,
            b: exp,
        });
        self.emit(Inst::Eq {
            dst: e,
            a: e,
            b: zero,
        });
        self.emit(Inst::And {
            dst: s,
            a: v,
            b: sign,
        });
        self.emit(Inst::Select {
            dst: r,
            c: e,
            a: s,
            b: v,
        });
        r
    }

    /// `v`'s high half, in the low half of a new register.
    pub(super) fn high(&mut self, v: Reg) -> Reg {
        let k16 = self.konst(16, 1);
        let t = self.alloc(1);
        self.emit(Inst::ShrU {
            dst: t,
            a: v,
            b: k16,
        });
        t
    }

    /// `dst` = `lo`'s low half | `hi` << 16.
    pub(super) fn pack_pair(&mut self, dst: Reg, lo: Reg, hi: Reg) {
        let (k16, m) = (self.konst(16, 1), self.konst(0xffff, 1));
        let (t, u) = (self.alloc(1), self.alloc(1));
        self.emit(Inst::Shl {
            dst: t,
            a: hi,
            b: k16,
        });
        self.emit(Inst::And {
            dst: u,
            a: lo,
            b: m,
        });
        self.emit(Inst::Or { dst, a: u, b: t });
    }

    /// `add sub mul fma neg abs min max setp set` on a half type.
    pub(super) fn half(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let Some((fmt, pair)) = half_type(ty) else {
            return Err((off, format!("PTX instruction `{op}` is not supported")));
        };
        let name = parts[0];
        if name == "setp" || name == "set" {
            return self.half_compare(off, op, parts, args, fmt, pair);
        }
        let (mut ftz, mut sat) = (false, false);
        for m in &parts[1..parts.len() - 1] {
            match *m {
                "rn" => {}
                "ftz" if fmt == Half::F16 => ftz = true,
                "sat" if fmt == Half::F16 && name != "neg" && name != "abs" => sat = true,
                _ => {
                    return Err((
                        off,
                        format!(
                            "PTX instruction `{op}`: the modifier .{m} is not supported on {ty} \
                             (only .rn, and .ftz and .sat on f16)"
                        ),
                    ))
                }
            }
        }
        let (hop, n) = match name {
            "add" => (HalfOp::Add, 3),
            "sub" => (HalfOp::Sub, 3),
            "mul" => (HalfOp::Mul, 3),
            "fma" => (HalfOp::Fma, 4),
            "neg" => (HalfOp::Neg, 2),
            "abs" => (HalfOp::Abs, 2),
            "min" => (HalfOp::Min, 3),
            "max" => (HalfOp::Max, 3),
            _ => return Err((off, format!("PTX instruction `{op}` is not supported"))),
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
        let dst = self.reg(args[0].trim(), off)?.0;
        let mut srcs = Vec::new();
        for a in &args[1..] {
            srcs.push(self.val(a, 1, off)?);
        }
        let lanes: Vec<Vec<Reg>> = if pair {
            let hi: Vec<Reg> = srcs.iter().map(|&s| self.high(s)).collect();
            vec![srcs, hi]
        } else {
            vec![srcs]
        };
        let mut outs = Vec::new();
        for mut s in lanes {
            if ftz {
                s = s.iter().map(|&v| self.flush(v)).collect();
            }
            let at = |k: usize| s.get(k).copied().unwrap_or(s[0]);
            let t = self.alloc(1);
            self.half_inst(hop, fmt, t, at(0), at(1), at(2));
            let mut r = t;
            if sat {
                // Clamped to [0, 1]; a NaN becomes 0 (min and max lose NaNs).
                let (zero, one) = (self.konst(0, 1), self.konst(0x3c00, 1));
                self.half_inst(HalfOp::Max, fmt, r, r, zero, r);
                self.half_inst(HalfOp::Min, fmt, r, r, one, r);
            }
            if ftz {
                r = self.flush(r);
            }
            outs.push(r);
        }
        match outs.as_slice() {
            [r] => self.emit(Inst::Mov { dst, a: *r }),
            [lo, hi] => self.pack_pair(dst, *lo, *hi),
            _ => {}
        }
        Ok(())
    }

    /// `setp.CMP.T p[|q], a, b` and `set.CMP.D.T d, a, b` on halves (`|q`: a pair's high
    /// halves). `set` gives 1.0 for a float `D`, all ones for an integer one.
    fn half_compare(
        &mut self,
        off: usize,
        op: &str,
        parts: &[&str],
        args: &[String],
        fmt: Half,
        pair: bool,
    ) -> Result<(), Err> {
        let set = parts[0] == "set";
        let want = if set { 4 } else { 3 };
        let ftz = parts.get(2) == Some(&"ftz");
        if parts.len() != want + ftz as usize || args.len() != 3 || (pair && set) {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` is not supported (setp.CMP.T p, a, b, setp.CMP.T p|q, \
                     a, b on pairs, set.CMP.D.T d, a, b on one half)"
                ),
            ));
        }
        let cmp = parts[1];
        let dsts: Vec<&str> = args[0].split('|').map(str::trim).collect();
        if dsts.len() != 1 + pair as usize {
            return Err((off, format!("`{op}`: a pair compares into `p|q`")));
        }
        let mut a = self.val(&args[1], 1, off)?;
        let mut b = self.val(&args[2], 1, off)?;
        for (k, d) in dsts.iter().enumerate() {
            if k == 1 {
                a = self.high(a);
                b = self.high(b);
            }
            let (x, y) = if ftz {
                (self.flush(a), self.flush(b))
            } else {
                (a, b)
            };
            let t = self
                .compare(fmt, cmp, x, y)
                .ok_or_else(|| (off, format!("`{op}`: unknown comparison `{cmp}`")))?;
            let dst = self.reg(d, off)?.0;
            if set {
                let one = match parts[parts.len() - 2] {
                    "f16" => 0x3c00u64,
                    "bf16" => 0x3f80,
                    "f32" => 0x3f80_0000,
                    "u16" | "s16" | "b16" => 0xffff,
                    "u32" | "s32" | "b32" => 0xffff_ffff,
                    d => return Err((off, format!("`{op}`: a .{d} result is not supported"))),
                };
                let (one, zero) = (self.konst(one, 1), self.konst(0, 1));
                self.emit(Inst::Select {
                    dst,
                    c: t,
                    a: one,
                    b: zero,
                });
            } else {
                self.emit(Inst::Mov { dst, a: t });
            }
        }
        Ok(())
    }

    /// `x CMP y` on halves into a new register (1 or 0); `None` for an unknown comparison.
    /// The ordered comparisons are false when either is NaN, the `u` ones true.
    fn compare(&mut self, fmt: Half, cmp: &str, x: Reg, y: Reg) -> Option<Reg> {
        use HalfOp::{Eq, Le, Lt, Ne};
        let (t, u) = (self.alloc(1), self.alloc(1));
        // (op, a, b), then how to combine with the second (op, a, b), then negate?
        type Step = (HalfOp, bool);
        let (first, second, join_or, negate): (Step, Option<Step>, bool, bool) = match cmp {
            "eq" => ((Eq, false), None, false, false),
            "lt" => ((Lt, false), None, false, false),
            "le" => ((Le, false), None, false, false),
            "gt" => ((Lt, true), None, false, false),
            "ge" => ((Le, true), None, false, false),
            "ne" => ((Lt, false), Some((Lt, true)), true, false),
            "neu" => ((Ne, false), None, false, false),
            "equ" => ((Lt, false), Some((Lt, true)), true, true),
            "ltu" => ((Le, true), None, false, true),
            "leu" => ((Lt, true), None, false, true),
            "gtu" => ((Le, false), None, false, true),
            "geu" => ((Lt, false), None, false, true),
            "num" | "nan" => {
                let o = if cmp == "num" { Eq } else { Ne };
                self.half_inst(o, fmt, t, x, x, x);
                self.half_inst(o, fmt, u, y, y, y);
                self.emit(if cmp == "num" {
                    Inst::And { dst: t, a: t, b: u }
                } else {
                    Inst::Or { dst: t, a: t, b: u }
                });
                return Some(t);
            }
            _ => return None,
        };
        let ab = |swap: bool| if swap { (y, x) } else { (x, y) };
        let (a, b) = ab(first.1);
        self.half_inst(first.0, fmt, t, a, b, a);
        if let Some((o, swap)) = second {
            let (a, b) = ab(swap);
            self.half_inst(o, fmt, u, a, b, a);
            self.emit(if join_or {
                Inst::Or { dst: t, a: t, b: u }
            } else {
                Inst::And { dst: t, a: t, b: u }
            });
        }
        if negate {
            let one = self.konst(1, 1);
            self.emit(Inst::Xor {
                dst: t,
                a: t,
                b: one,
            });
        }
        Some(t)
    }

    /// `mov.b32 {lo, hi}, r` / `mov.b32 r, {lo, hi}` (two 16-bit halves) and `mov.b64` of two
    /// 32-bit words; `_` is an element nobody reads.
    pub(super) fn pack(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let ty = parts.last().copied().unwrap_or("");
        let bad = || {
            (
                off,
                format!(
                    "PTX instruction `{op}` is not supported (mov.b32 of two 16-bit halves, \
                     mov.b64 of two 32-bit words)"
                ),
            )
        };
        if args.len() != 2 || !matches!(ty, "b32" | "b64") {
            return Err(bad());
        }
        let list = |a: &str| -> Option<Vec<String>> {
            let inner = a.trim().strip_prefix('{')?.strip_suffix('}')?;
            let v: Vec<String> = inner.split(',').map(|s| s.trim().to_owned()).collect();
            (v.len() == 2).then_some(v)
        };
        let wide = ty == "b64";
        match (list(&args[0]), list(&args[1])) {
            (Some(d), None) => {
                // Both parts into temporaries first: a destination may be the source.
                let r = self.val(&args[1], 1 + wide as u8, off)?;
                let (lo, hi) = if wide {
                    let t = self.alloc(2);
                    self.emit(Inst::Mov64 { dst: t, a: r });
                    (t, Reg(t.0 + 1))
                } else {
                    let (m, t) = (self.konst(0xffff, 1), self.alloc(1));
                    let h = self.high(r);
                    self.emit(Inst::And { dst: t, a: r, b: m });
                    (t, h)
                };
                for (name, src) in d.iter().zip([lo, hi]) {
                    if name != "_" {
                        let dst = self.reg(name, off)?.0;
                        self.emit(Inst::Mov { dst, a: src });
                    }
                }
            }
            (None, Some(s)) => {
                let lo = self.val(&s[0], 1, off)?;
                let hi = self.val(&s[1], 1, off)?;
                let dst = self.reg(args[0].trim(), off)?.0;
                if wide {
                    // Through a temporary: `dst` may be one of the sources.
                    let t = self.alloc(2);
                    self.emit(Inst::Mov { dst: t, a: lo });
                    self.emit(Inst::Mov {
                        dst: Reg(t.0 + 1),
                        a: hi,
                    });
                    self.emit(Inst::Mov64 { dst, a: t });
                } else {
                    self.pack_pair(dst, lo, hi);
                }
            }
            _ => return Err(bad()),
        }
        Ok(())
    }
}
