//! `cvt` with a half on either side, between a float and an 8- or 16-bit integer, and a
//! float rounded to an integral value (`.rni .rmi .rpi`, and `.rzi` of a float to itself).
//!
//! Each is one [`Inst::Cvt`] (whose roundings are `warpsim_kernel::fp16`'s, CUDA's bit for
//! bit): a narrow integer is extended to 32 bits first or clamped to its range after, and
//! rounding to an integral value is done first in `f32` (halves, `f32`) or `f64`.

use super::half::half_type;
use super::{Err, Instr, Lower};
use warpsim_kernel::ir::{Inst, Reg};
use warpsim_kernel::Elem;

/// Whether a `cvt` is [`Lower::float_cvt`]'s: a half on either side, a float and an 8- or
/// 16-bit integer, or a float rounded to an integral value other than by truncation to an
/// integer (`.rni .rmi .rpi`, and `.rzi` to the same float type).
pub(super) fn float_cvt_applies(parts: &[&str]) -> bool {
    let n = parts.len();
    if n < 3 {
        return false;
    }
    let (to, from) = (parts[n - 2], parts[n - 1]);
    let float = |t: &str| matches!(t, "f32" | "f64");
    let small = |t: &str| super::narrow::elem(t).is_some() && half_type(t).is_none();
    let integral = parts[1..n - 2]
        .iter()
        .any(|m| matches!(*m, "rni" | "rmi" | "rpi") || (*m == "rzi" && to == from));
    half_type(to).is_some()
        || half_type(from).is_some()
        || (float(to) && small(from))
        || (float(from) && small(to))
        || (float(from) && integral)
}

/// A `cvt` operand's type: the element the executor converts, and for an 8- or 16-bit
/// integer its bits and signedness (it is extended to 32 bits first, or clamped to them).
fn cvt_elem(t: &str) -> Option<(Elem, Option<(u32, bool)>)> {
    Some(match t {
        "f32" => (Elem::F32, None),
        "f64" => (Elem::F64, None),
        "f16" => (Elem::F16, None),
        "bf16" => (Elem::BF16, None),
        "s32" => (Elem::I32, None),
        "u32" | "b32" => (Elem::U32, None),
        "s16" => (Elem::I32, Some((16, true))),
        "u16" | "b16" => (Elem::U32, Some((16, false))),
        "s8" => (Elem::I32, Some((8, true))),
        "u8" | "b8" => (Elem::U32, Some((8, false))),
        _ => return None,
    })
}

impl Lower<'_> {
    /// `cvt` with a half on either side, or between a float and an 8- or 16-bit integer:
    /// one [`Inst::Cvt`] (a narrow integer extended first, or clamped to its range after).
    /// To a half: `.rn` (from f32, f64, integers, the other half format); to an integer:
    /// `.rzi` (truncation, NaN → 0, saturated). `cvt.rn.f16x2.f32 d, a, b` packs two.
    pub(super) fn float_cvt(&mut self, i: Instr) -> Result<(), Err> {
        let Instr(off, op, parts, args) = i;
        let n = parts.len();
        let (to, from) = (parts[n - 2], parts[n - 1]);
        let mods = &parts[1..n - 2];
        let unsup = |why: &str| {
            (
                off,
                format!("PTX instruction `{op}` is not supported: {why}"),
            )
        };
        let (te, tsmall) = match to {
            "f16x2" => (Elem::F16, None),
            "bf16x2" => (Elem::BF16, None),
            t => cvt_elem(t).ok_or_else(|| unsup(&format!("conversion to .{t}")))?,
        };
        let (fe, fsmall) =
            cvt_elem(from).ok_or_else(|| unsup(&format!("conversion from .{from}")))?;
        let float = |e: Elem| matches!(e, Elem::F32 | Elem::F64 | Elem::F16 | Elem::BF16);
        let narrowing = match (te, fe) {
            (Elem::F16 | Elem::BF16, f) => f != te,
            (Elem::F32, f) => !float(f) || f == Elem::F64,
            (Elem::F64, f) => !float(f),
            // float → integer
            _ => false,
        };
        let to_int = !float(te);
        let round = match mods {
            [] => None,
            [r] => Some(*r),
            _ => return Err(unsup("more than a rounding modifier")),
        };
        // Rounding to an integral value first (`.rni .rmi .rpi`; `.rzi` of a float to itself).
        let mut integral = None;
        if to_int && float(fe) {
            match round {
                Some("rzi") => {}
                Some(r @ ("rni" | "rmi" | "rpi")) => integral = Some(r),
                Some(r) => {
                    return Err(unsup(&format!(
                        ".{r}: to an integer, .rzi .rni .rmi .rpi are supported"
                    )))
                }
                None => {
                    return Err(unsup(
                        "a float to integer cvt needs .rzi, .rni, .rmi or .rpi",
                    ))
                }
            }
        } else if te == fe && float(fe) && round.is_some() {
            match round {
                Some(r @ ("rzi" | "rni" | "rmi" | "rpi")) => integral = Some(r),
                Some(r) => return Err(unsup(&format!(".{r} of a float to itself"))),
                None => {}
            }
        } else {
            match round {
                None if narrowing => return Err(unsup("a narrowing cvt needs .rn")),
                None | Some("rn") => {}
                Some(r) => return Err(unsup(&format!(".{r}: only .rn is supported here"))),
            }
        }
        let pair = to.ends_with("x2");
        if args.len() != 2 + pair as usize {
            return Err((
                off,
                format!(
                    "PTX instruction `{op}` takes {} operands, but this one has {}",
                    2 + pair as usize,
                    args.len()
                ),
            ));
        }
        let dst = self.reg(args[0].trim(), off)?.0;
        let fw = if fe == Elem::F64 { 2 } else { 1 };
        let mut outs = Vec::new();
        for a in &args[1..] {
            let x = match fsmall {
                Some((bits, signed)) => self.extended(a, bits, signed, off)?,
                None => self.val(a, fw, off)?,
            };
            let (x, fe) = match integral {
                Some(mode) => self.integral(x, fe, mode),
                None => (x, fe),
            };
            let t = self.alloc(if te == Elem::F64 { 2 } else { 1 });
            self.emit(if fe == te && te == Elem::F64 {
                Inst::Mov64 { dst: t, a: x }
            } else if fe == te {
                Inst::Mov { dst: t, a: x }
            } else {
                Inst::Cvt {
                    dst: t,
                    a: x,
                    from: fe,
                    to: te,
                }
            });
            if let Some((bits, signed)) = tsmall {
                // Saturated to the narrow type's range.
                let (lo, hi) = match signed {
                    true => (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1),
                    false => (0, (1i64 << bits) - 1),
                };
                let (lo, hi) = (
                    self.konst(lo as u64 & 0xffff_ffff, 1),
                    self.konst(hi as u64, 1),
                );
                if signed {
                    self.emit(Inst::MaxS {
                        dst: t,
                        a: t,
                        b: lo,
                    });
                    self.emit(Inst::MinS {
                        dst: t,
                        a: t,
                        b: hi,
                    });
                } else {
                    self.emit(Inst::MinU {
                        dst: t,
                        a: t,
                        b: hi,
                    });
                }
            }
            outs.push(t);
        }
        match outs.as_slice() {
            // `cvt.rn.f16x2.f32 d, a, b`: a in the high half, b in the low.
            [hi, lo] => self.pack_pair(dst, *lo, *hi),
            [t] if te == Elem::F64 => self.emit(Inst::Mov64 { dst, a: *t }),
            [t] => self.emit(Inst::Mov { dst, a: *t }),
            _ => {}
        }
        Ok(())
    }

    /// `x` (of `fe`) rounded to an integral value by `mode` (`rni` to nearest even, `rmi`
    /// down, `rpi` up, `rzi` toward zero), as an `f32` (halves and `f32`) or an `f64`: the
    /// addition and subtraction of 1.5 · 2^23 (2^52) rounds to nearest even where |x| < 2^22
    /// (2^51), beyond which every value is integral; down and up correct that by one.
    pub(super) fn integral(&mut self, x: Reg, fe: Elem, mode: &str) -> (Reg, Elem) {
        let wide = fe == Elem::F64;
        let (w, e) = if wide { (2, Elem::F64) } else { (1, Elem::F32) };
        let x = match fe {
            Elem::F16 | Elem::BF16 => {
                let t = self.alloc(1);
                self.emit(Inst::Cvt {
                    dst: t,
                    a: x,
                    from: fe,
                    to: Elem::F32,
                });
                t
            }
            _ => x,
        };
        let k = |l: &mut Self, f: f64| match wide {
            true => l.konst(f.to_bits(), 2),
            false => l.konst((f as f32).to_bits() as u64, 1),
        };
        let (magic, lim, one, zero) = match wide {
            true => (
                k(self, 1.5 * 2f64.powi(52)),
                k(self, 2f64.powi(51)),
                k(self, 1.0),
                k(self, 0.0),
            ),
            false => (
                k(self, 1.5 * 2f64.powi(23)),
                k(self, 2f64.powi(22)),
                k(self, 1.0),
                k(self, 0.0),
            ),
        };
        let (a, c, t, r, u) = (
            self.alloc(w),
            self.alloc(1),
            self.alloc(w),
            self.alloc(w),
            self.alloc(w),
        );
        use Inst::*;
        let sel = |d: Reg, c: Reg, a: Reg, b: Reg| match wide {
            true => Select64 { dst: d, c, a, b },
            false => Select { dst: d, c, a, b },
        };
        type Op2 = fn(Reg, Reg) -> Inst;
        type Op3 = fn(Reg, Reg, Reg) -> Inst;
        let (abs, lt, add, sub): (Op2, Op3, Op3, Op3) = match wide {
            true => (
                |d, a| DAbs { dst: d, a },
                |d, a, b| DLt { dst: d, a, b },
                |d, a, b| DAdd { dst: d, a, b },
                |d, a, b| DSub { dst: d, a, b },
            ),
            false => (
                |d, a| FAbs { dst: d, a },
                |d, a, b| FLt { dst: d, a, b },
                |d, a, b| FAdd { dst: d, a, b },
                |d, a, b| FSub { dst: d, a, b },
            ),
        };
        // r = x to nearest even.
        self.emit(abs(a, x));
        self.emit(lt(c, a, lim));
        self.emit(add(t, x, magic));
        self.emit(sub(t, t, magic));
        self.emit(sel(r, c, t, x));
        // Down: one less where r > x; up: one more where r < x; toward zero: down for x >= 0,
        // up below.
        let down = |l: &mut Self, d: Reg| {
            l.emit(lt(c, x, r));
            l.emit(sub(u, r, one));
            l.emit(sel(d, c, u, r));
        };
        let up = |l: &mut Self, d: Reg| {
            l.emit(lt(c, r, x));
            l.emit(add(u, r, one));
            l.emit(sel(d, c, u, r));
        };
        match mode {
            "rmi" => down(self, r),
            "rpi" => up(self, r),
            "rzi" => {
                let (f, g) = (self.alloc(w), self.alloc(w));
                down(self, f);
                up(self, g);
                self.emit(lt(c, x, zero));
                self.emit(sel(r, c, g, f));
            }
            _ => {}
        }
        (r, e)
    }
}
