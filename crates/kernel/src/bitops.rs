//! PTX's bit and integer operations beyond [`PtxOp`](crate::PtxOp)'s 32-bit three-operand
//! ones ([`crate::ir::Inst::Bits`]): `bfi`, 64-bit `bfe`, `prmt`'s modes, `mad.hi`, the `.b64`
//! forms of `clz`/`brev`/`popc`/`bfind`, `testp`, `shf`, `cnot`, `szext`, `bmsk`,
//! `dp4a`/`dp2a`, `lop3`, `mul24`/`mad24`, `sad`, and the flush of an f32 subnormal to zero that
//! `setp.ftz` reads through.
//!
//! Each is one warp instruction of the executor. Values are the H200's, measured on 256 input
//! tuples per operation (`calibration/probes/cuda_coverage`, `tests/fixtures/cuda/bitops_h200.tsv`):
//! the PTX ISA text's, except where ptxas's code departs from it (`bfe.u64`, `bfe.s64` and
//! `bfi.b64` take the whole 32-bit position and length, saturated, not `& 0xff`;
//! `mad.hi.sat.s32` does not saturate). The docs' PTX coverage table lists both. `lop3`,
//! `mul24`/`mad24`, `sad` and `fns` follow the PTX ISA's definitions (not yet measured).

/// One operation: `dst = op(a, b, c, d)`; [`BitOp::widths`] says how many 32-bit registers
/// each operand spans (a 64-bit value is a register pair, low word first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    /// `bfi.b32`/`.b64 d, a, b, c, d`: `b` with `d` bits of `a` inserted from bit `c`.
    Bfi {
        /// `.b64` (else `.b32`).
        wide: bool,
    },
    /// `bfe.u64`/`.s64 d, a, b, c`: `c` bits of `a` from bit `b`, zero- or sign-extended.
    Bfe64 {
        /// `.s64`.
        signed: bool,
    },
    /// `prmt.b32.MODE d, a, b, c`: `f4e b4e rc8 ecl ecr rc16` (0 to 5), selected by `c & 3`.
    Prmt(PrmtMode),
    /// `mad.hi.{u32,s32,u64,s64} d, a, b, c`: the high half of `a * b`, plus `c` (wrapping;
    /// `.sat.s32` is the same on the H200).
    MadHi {
        /// Signed operands.
        signed: bool,
        /// 64-bit operands (else 32-bit).
        wide: bool,
    },
    /// `clz.b64 d, a` (a 32-bit count).
    Clz64,
    /// `brev.b64 d, a`.
    Brev64,
    /// `popc.b64 d, a` (a 32-bit count).
    Popc64,
    /// `bfind[.shiftamt].{u64,s64} d, a` (a 32-bit position, `0xffffffff` when none).
    Bfind64 {
        /// `.s64`.
        signed: bool,
        /// `.shiftamt`.
        shiftamt: bool,
    },
    /// `testp.KIND.{f32,f64} p, a`: 1 or 0.
    Testp {
        /// Which class.
        kind: TestKind,
        /// `.f64` (else `.f32`).
        wide: bool,
    },
    /// `shf.{l,r}.{wrap,clamp}.b32 d, a, b, c`: the funnel shift of `{b, a}` by `c`.
    Shf {
        /// `.l` (else `.r`).
        left: bool,
        /// `.clamp` (the amount is `min(c, 32)`; else `.wrap`, `c & 31`).
        clamp: bool,
    },
    /// `cnot.b32 d, a`: 1 if `a == 0`, else 0.
    Cnot,
    /// `szext.{wrap,clamp}.{u32,s32} d, a, b`: the low `b` bits of `a`, zero- or sign-extended.
    Szext {
        /// `.s32`.
        signed: bool,
        /// `.clamp` (else `.wrap`).
        clamp: bool,
    },
    /// `bmsk.{wrap,clamp}.b32 d, a, b`: `b` one bits from bit `a`.
    Bmsk {
        /// `.clamp` (else `.wrap`).
        clamp: bool,
    },
    /// `dp4a.atype.btype d, a, b, c`: `c` plus the dot product of `a`'s and `b`'s four bytes.
    Dp4a {
        /// `a`'s bytes are signed.
        sa: bool,
        /// `b`'s bytes are signed.
        sb: bool,
    },
    /// `dp2a.{lo,hi}.atype.btype d, a, b, c`: `c` plus the dot product of `a`'s two halves
    /// and two bytes of `b` (bytes 0-1, or 2-3 for `.hi`).
    Dp2a {
        /// `.hi`.
        hi: bool,
        /// `a`'s halves are signed.
        sa: bool,
        /// `b`'s bytes are signed.
        sb: bool,
    },
    /// An f32 subnormal flushed to a zero of its sign (what `.ftz` reads); others unchanged.
    Ftz,
    /// `lop3.b32 d, a, b, c, immLut`: each bit the look-up table's entry for the bits of `a`
    /// (index bit 2), `b` (bit 1) and `c` (bit 0); `d` holds `immLut`.
    Lop3,
    /// `mul24.{lo,hi}.{u32,s32} d, a, b` and `mad24` (which adds `c`): the 48-bit product of
    /// `a`'s and `b`'s low 24 bits (zero- or sign-extended), its bits 0..32 or 16..48.
    Mul24 {
        /// `.hi` (else `.lo`).
        hi: bool,
        /// `.s32`.
        signed: bool,
        /// `mad24` (adds `c`, wrapping).
        add: bool,
    },
    /// `sad.{u32,s32} d, a, b, c`: `c + |a - b|` (wrapping).
    Sad {
        /// `.s32`.
        signed: bool,
    },
    /// `fns.b32 d, mask, base, offset`: the position of the `|offset|`-th set bit of `mask`
    /// counting from bit `base` (itself included) upwards (`offset > 0`) or downwards
    /// (`offset < 0`); for `offset == 0`, `base` if that bit is set; `0xffffffff` when there is
    /// none (and for a `base` above 31, which the PTX ISA leaves undefined).
    Fns,
}

/// `prmt`'s modes other than the default (which is [`PtxOp::Prmt`](crate::PtxOp::Prmt)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum PrmtMode {
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

/// `testp`'s classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum TestKind {
    Finite,
    Infinite,
    Number,
    NotANumber,
    /// Normal, or ±0 (the PTX ISA's special case; the H200 agrees).
    Normal,
    Subnormal,
}

impl PrmtMode {
    /// The mode from its PTX name.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "f4e" => PrmtMode::F4e,
            "b4e" => PrmtMode::B4e,
            "rc8" => PrmtMode::Rc8,
            "ecl" => PrmtMode::Ecl,
            "ecr" => PrmtMode::Ecr,
            "rc16" => PrmtMode::Rc16,
            _ => return None,
        })
    }

    fn table(self) -> [[u8; 4]; 4] {
        match self {
            PrmtMode::F4e => [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
            PrmtMode::B4e => [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
            PrmtMode::Rc8 => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
            PrmtMode::Ecl => [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
            PrmtMode::Ecr => [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
            PrmtMode::Rc16 => [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],
        }
    }
}

impl TestKind {
    /// The class from its PTX name.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "finite" => TestKind::Finite,
            "infinite" => TestKind::Infinite,
            "number" => TestKind::Number,
            "notanumber" => TestKind::NotANumber,
            "normal" => TestKind::Normal,
            "subnormal" => TestKind::Subnormal,
            _ => return None,
        })
    }
}

fn sx(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        return v as i64;
    }
    let s = 64 - bits;
    ((v << s) as i64) >> s
}

fn mask(n: u64) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn shl(a: u64, n: u64) -> u64 {
    if n >= 64 {
        0
    } else {
        a << n
    }
}

impl BitOp {
    /// The PTX name (for listings).
    pub fn name(self) -> String {
        format!("{self:?}").to_ascii_lowercase()
    }

    /// The widths (in 32-bit registers) of the result and of the operands it reads
    /// (`a, b, c, d`; 0 for an operand it does not read).
    pub fn widths(self) -> (u8, [u8; 4]) {
        use BitOp::*;
        match self {
            Bfi { wide } => {
                let w = 1 + wide as u8;
                (w, [w, w, 1, 1])
            }
            Bfe64 { .. } => (2, [2, 1, 1, 0]),
            Prmt(_) | Shf { .. } | Dp4a { .. } | Dp2a { .. } => (1, [1, 1, 1, 0]),
            MadHi { wide, .. } => {
                let w = 1 + wide as u8;
                (w, [w, w, w, 0])
            }
            Clz64 | Popc64 | Bfind64 { .. } => (1, [2, 0, 0, 0]),
            Brev64 => (2, [2, 0, 0, 0]),
            Testp { wide, .. } => (1, [1 + wide as u8, 0, 0, 0]),
            Cnot | Ftz => (1, [1, 0, 0, 0]),
            Szext { .. } | Bmsk { .. } | Mul24 { add: false, .. } => (1, [1, 1, 0, 0]),
            Mul24 { add: true, .. } | Sad { .. } | Fns => (1, [1, 1, 1, 0]),
            Lop3 => (1, [1, 1, 1, 1]),
        }
    }

    /// `op(a, b, c, d)`, each operand and the result as a 64-bit value (32-bit ones in the
    /// low half; a 32-bit result is returned zero-extended).
    #[inline]
    pub fn eval(self, a: u64, b: u64, c: u64, d: u64) -> u64 {
        use BitOp::*;
        let (a32, b32, c32, d32) = (a as u32, b as u32, c as u32, d as u32);
        let v = match self {
            Bfi { wide: false } => {
                let (pos, len) = (c & 0xff, d & 0xff);
                let m = (mask(len) << pos.min(63)) & u64::from(u32::MAX);
                let m = if pos >= 32 { 0 } else { m };
                (u64::from(b32) & !m) | ((u64::from(a32) << pos.min(63)) & m)
            }
            Bfi { wide: true } => {
                let (pos, len) = (u64::from(c32), u64::from(d32));
                let m = shl(mask(len), pos);
                (b & !m) | (shl(a, pos) & m)
            }
            Bfe64 { signed: false } => {
                let (pos, len) = (u64::from(b32), u64::from(c32));
                (if pos >= 64 { 0 } else { a >> pos }) & mask(len)
            }
            Bfe64 { signed: true } => {
                let (pos, len) = (u64::from(b32), u64::from(c32));
                if len == 0 {
                    return 0;
                }
                let x = ((a as i64) >> pos.min(63)) as u64;
                if len >= 64 {
                    x
                } else {
                    sx(x & mask(len), len as u32) as u64
                }
            }
            Prmt(mode) => {
                let src = (u64::from(b32) << 32 | u64::from(a32)).to_le_bytes();
                let tab = mode.table()[(c32 & 3) as usize];
                let v = (0..4).fold(0u32, |v, i| v | u32::from(src[tab[i] as usize]) << (8 * i));
                u64::from(v)
            }
            MadHi {
                signed: false,
                wide: false,
            } => u64::from(((u64::from(a32) * u64::from(b32)) >> 32) as u32).wrapping_add(c) as u32
                as u64,
            MadHi {
                signed: true,
                wide: false,
            } => {
                let hi = (i64::from(a32 as i32) * i64::from(b32 as i32)) >> 32;
                u64::from(hi.wrapping_add(i64::from(c32 as i32)) as u32)
            }
            MadHi {
                signed: false,
                wide: true,
            } => (((a as u128 * b as u128) >> 64) as u64).wrapping_add(c),
            MadHi {
                signed: true,
                wide: true,
            } => ((((a as i64 as i128) * (b as i64 as i128)) >> 64) as u64).wrapping_add(c),
            Clz64 => u64::from(a.leading_zeros()),
            Brev64 => a.reverse_bits(),
            Popc64 => u64::from(a.count_ones()),
            Bfind64 { signed, shiftamt } => {
                let x = if signed && (a as i64) < 0 { !a } else { a };
                if x == 0 {
                    u64::from(u32::MAX)
                } else if shiftamt {
                    u64::from(x.leading_zeros())
                } else {
                    u64::from(63 - x.leading_zeros())
                }
            }
            Testp { kind, wide } => {
                let (exp, man) = if wide {
                    ((a >> 52) & 0x7ff == 0x7ff, a & ((1 << 52) - 1))
                } else {
                    ((a32 >> 23) & 0xff == 0xff, u64::from(a32 & 0x7f_ffff))
                };
                let zero_exp = if wide {
                    (a >> 52) & 0x7ff == 0
                } else {
                    (a32 >> 23) & 0xff == 0
                };
                let (nan, inf) = (exp && man != 0, exp && man == 0);
                let sub = zero_exp && man != 0;
                u64::from(match kind {
                    TestKind::Finite => !exp,
                    TestKind::Infinite => inf,
                    TestKind::Number => !nan,
                    TestKind::NotANumber => nan,
                    TestKind::Normal => !exp && !sub,
                    TestKind::Subnormal => sub,
                })
            }
            Shf { left, clamp } => {
                let n = if clamp { c32.min(32) } else { c32 & 31 };
                let x = u64::from(b32) << 32 | u64::from(a32);
                let v = if left { (x << n) >> 32 } else { x >> n };
                u64::from(v as u32)
            }
            Cnot => u64::from(a32 == 0),
            Szext { signed, clamp } => {
                let n = if clamp { b32.min(32) } else { b32 & 31 };
                if n == 0 {
                    return 0;
                }
                let v = u64::from(a32) & mask(u64::from(n));
                let v = if signed { sx(v, n) as u64 } else { v };
                u64::from(v as u32)
            }
            Bmsk { clamp } => {
                let (pos, len) = if clamp {
                    (a32.min(32), b32.min(32))
                } else {
                    (a32 & 31, b32 & 31)
                };
                u64::from((mask(u64::from(len)) << pos) as u32)
            }
            Dp4a { sa, sb } => {
                let mut s = if sa || sb {
                    i64::from(c32 as i32)
                } else {
                    i64::from(c32)
                };
                for i in 0..4 {
                    let (x, y) = (u64::from((a32 >> (8 * i)) & 0xff), (b32 >> (8 * i)) & 0xff);
                    let x = if sa { sx(x, 8) } else { x as i64 };
                    let y = if sb {
                        sx(u64::from(y), 8)
                    } else {
                        i64::from(y)
                    };
                    s += x * y;
                }
                u64::from(s as u32)
            }
            Dp2a { hi, sa, sb } => {
                let mut s = if sa || sb {
                    i64::from(c32 as i32)
                } else {
                    i64::from(c32)
                };
                let base = if hi { 2 } else { 0 };
                for i in 0..2 {
                    let x = u64::from((a32 >> (16 * i)) & 0xffff);
                    let y = u64::from((b32 >> (8 * (base + i))) & 0xff);
                    let x = if sa { sx(x, 16) } else { x as i64 };
                    let y = if sb { sx(y, 8) } else { y as i64 };
                    s += x * y;
                }
                u64::from(s as u32)
            }
            Ftz => {
                let sub = (a32 >> 23) & 0xff == 0 && a32 & 0x7f_ffff != 0;
                u64::from(if sub { a32 & 0x8000_0000 } else { a32 })
            }
            Lop3 => {
                let mut v = 0u32;
                for k in 0..8 {
                    if d32 >> k & 1 == 1 {
                        let pick = |x: u32, bit: u32| if k >> bit & 1 == 1 { x } else { !x };
                        v |= pick(a32, 2) & pick(b32, 1) & pick(c32, 0);
                    }
                }
                u64::from(v)
            }
            Mul24 { hi, signed, add } => {
                let x = |v: u32| {
                    let v = u64::from(v & 0xff_ffff);
                    if signed {
                        sx(v, 24)
                    } else {
                        v as i64
                    }
                };
                let t = x(a32) * x(b32);
                let v = if hi { t >> 16 } else { t } as u32;
                u64::from(if add { v.wrapping_add(c32) } else { v })
            }
            Sad { signed } => {
                let diff = if signed {
                    (i64::from(a32 as i32) - i64::from(b32 as i32)).unsigned_abs() as u32
                } else {
                    a32.abs_diff(b32)
                };
                u64::from(c32.wrapping_add(diff))
            }
            Fns => u64::from(fns(a32, b32, c32 as i32)),
        };
        match self.widths().0 {
            2 => v,
            _ => v & u64::from(u32::MAX),
        }
    }
}

/// `fns.b32` as the PTX ISA's pseudo-code defines it (see [`BitOp::Fns`]).
fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    let set = |p: i64| (0..32).contains(&p) && mask >> p & 1 == 1;
    if offset == 0 {
        return if set(i64::from(base)) { base } else { u32::MAX };
    }
    let step = offset.signum() as i64;
    let mut count = i64::from(offset).abs();
    let mut pos = i64::from(base);
    while (0..32).contains(&pos) {
        if set(pos) {
            count -= 1;
            if count == 0 {
                return pos as u32;
            }
        }
        pos += step;
    }
    u32::MAX
}
