//! Half-precision numbers (`f16`, `bf16`) as CUDA computes them, bit for bit.
//!
//! A half value lives in a 32-bit register as its 16 bits (the high half zero). Conversions
//! round to nearest, ties to even (`__float2half_rn`, `__float2bfloat16_rn`), with
//! subnormals, overflow to infinity and NaN as the hardware does them; a NaN result is the
//! canonical NaN `0x7fff` (what `cvt.rn.f16.f32` and the half arithmetic instructions give).
//!
//! Arithmetic is CUDA's native half arithmetic (`__hadd`, `__hmul`, `__hfma` …: one rounding of
//! the exact result to the half format). It is computed here through `f64`: the sum, difference
//! and product of two halves are exact in `f64` (f16), or rounded there once with 53 ≥ 2·8 + 2
//! bits (bf16), so the second rounding to the half format gives the correctly rounded result
//! (double rounding is innocuous when the wider format has at least 2p + 2 bits); the quotient
//! likewise. `fma` rounds the exact `a·b + c` to odd in `f64` first, so it too rounds once.

/// The two half formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Half {
    /// IEEE binary16: 5 exponent bits, 10 mantissa bits.
    F16,
    /// bfloat16: 8 exponent bits, 7 mantissa bits.
    Bf16,
}

/// The canonical NaN of both formats.
pub const NAN: u16 = 0x7fff;

impl Half {
    /// Explicit mantissa bits and exponent bits.
    const fn shape(self) -> (u32, u32) {
        match self {
            Half::F16 => (10, 5),
            Half::Bf16 => (7, 8),
        }
    }

    /// Rounds `x` to this format, to nearest, ties to even.
    pub fn from_f64(self, x: f64) -> u16 {
        let (man, ebits) = self.shape();
        if x.is_nan() {
            return NAN;
        }
        let sign = ((x.to_bits() >> 63) as u16) << 15;
        let emax_field = (1u32 << ebits) - 1;
        let bias = (emax_field >> 1) as i32;
        let a = x.abs();
        if a.is_infinite() {
            return sign | (emax_field << man) as u16;
        }
        if a < f64::MIN_POSITIVE {
            // (f64 subnormals are far below half of any half format's smallest subnormal)
            return sign;
        }
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let emin = 1 - bias;
        // The spacing of representable values around `a`.
        let q = if e < emin {
            emin - man as i32
        } else {
            e - man as i32
        };
        let n = (a * 2f64.powi(-q)).round_ties_even();
        if e < emin {
            // Subnormal (or rounded up to the smallest normal, whose bits are the same).
            return sign | n as u16;
        }
        let (mut n, mut e) = (n as u32, e);
        if n == 1 << (man + 1) {
            n >>= 1;
            e += 1;
        }
        let field = (e + bias) as u32;
        if field >= emax_field {
            return sign | (emax_field << man) as u16;
        }
        sign | ((field << man) | (n - (1 << man))) as u16
    }

    /// Rounds `x` to this format (`__float2half_rn` / `__float2bfloat16_rn`).
    pub fn from_f32(self, x: f32) -> u16 {
        self.from_f64(x as f64)
    }

    /// The exact value of `h` as an `f32` (`__half2float` / `__bfloat162float`).
    pub fn to_f32(self, h: u16) -> f32 {
        match self {
            Half::Bf16 => f32::from_bits((h as u32) << 16),
            Half::F16 => {
                let (h, sign) = (h as u32, (h as u32 & 0x8000) << 16);
                let e = (h >> 10) & 0x1f;
                let m = h & 0x3ff;
                match e {
                    // Subnormal: m * 2^-24, exact.
                    0 => f32::from_bits(sign | 0x3380_0000) * m as f32,
                    0x1f if m == 0 => f32::from_bits(sign | 0x7f80_0000),
                    0x1f => f32::from_bits(0x7fc0_0000 | (m << 13)),
                    // Normal: the exponent rebiased (15 -> 127), the mantissa widened.
                    _ => f32::from_bits(sign | (e + 112) << 23 | m << 13),
                }
            }
        }
    }

    /// The exact value of `h` as an `f64`.
    pub fn to_f64(self, h: u16) -> f64 {
        self.to_f32(h) as f64
    }

    /// `a op b` rounded once to this format, for `+ - * /`, min and max.
    pub fn arith(self, op: HalfOp, a: u16, b: u16, c: u16) -> u16 {
        let (x, y) = (self.to_f64(a), self.to_f64(b));
        let r = match op {
            HalfOp::Add => x + y,
            HalfOp::Sub => x - y,
            HalfOp::Mul => x * y,
            HalfOp::Div => x / y,
            HalfOp::Min => {
                return if x.is_nan() && y.is_nan() {
                    NAN
                } else if x.is_nan() || (!y.is_nan() && y < x) {
                    b
                } else {
                    a
                }
            }
            HalfOp::Max => {
                return if x.is_nan() && y.is_nan() {
                    NAN
                } else if x.is_nan() || (!y.is_nan() && y > x) {
                    b
                } else {
                    a
                }
            }
            HalfOp::Fma => return self.fma(a, b, c),
            HalfOp::Eq => return (x == y) as u16,
            HalfOp::Ne => return (x != y) as u16,
            HalfOp::Lt => return (x < y) as u16,
            HalfOp::Le => return (x <= y) as u16,
            HalfOp::Neg => return a ^ 0x8000,
            HalfOp::Abs => return a & 0x7fff,
        };
        self.from_f64(r)
    }

    /// `a · b + c` rounded once (`__hfma`, `fma.rn.f16`).
    pub fn fma(self, a: u16, b: u16, c: u16) -> u16 {
        let p = self.to_f64(a) * self.to_f64(b); // exact: at most 2 × 11 significant bits
        let z = self.to_f64(c);
        let s = p + z;
        if !s.is_finite() {
            return self.from_f64(s);
        }
        // TwoSum: the rounding error of `s`; rounding `s` to odd keeps the sticky bit.
        let bb = s - p;
        let err = (p - (s - bb)) + (z - bb);
        let mut bits = s.to_bits();
        if err != 0.0 && bits & 1 == 0 {
            if (err > 0.0) == (s > 0.0) {
                bits += 1;
            } else {
                bits -= 1;
            }
        }
        self.from_f64(f64::from_bits(bits))
    }

    /// Its name in programs.
    pub fn name(self) -> &'static str {
        match self {
            Half::F16 => "f16",
            Half::Bf16 => "bf16",
        }
    }
}

/// An operation of the half arithmetic instruction ([`crate::ir::Inst::Half`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HalfOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (correctly rounded)
    Div,
    /// `min(a, b)` (a NaN loses, as `__hmin`)
    Min,
    /// `max(a, b)` (a NaN loses, as `__hmax`)
    Max,
    /// `fma(a, b, c)`, rounded once
    Fma,
    /// `a == b` (1 or 0)
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `-a` (flips the sign bit)
    Neg,
    /// `abs(a)` (clears the sign bit)
    Abs,
}

impl HalfOp {
    /// Whether the result is a comparison (a 32-bit 0 or 1, not a half).
    pub fn compares(self) -> bool {
        matches!(self, HalfOp::Eq | HalfOp::Ne | HalfOp::Lt | HalfOp::Le)
    }

    /// Its mnemonic.
    pub fn name(self) -> &'static str {
        match self {
            HalfOp::Add => "add",
            HalfOp::Sub => "sub",
            HalfOp::Mul => "mul",
            HalfOp::Div => "div",
            HalfOp::Min => "min",
            HalfOp::Max => "max",
            HalfOp::Fma => "fma",
            HalfOp::Eq => "eq",
            HalfOp::Ne => "ne",
            HalfOp::Lt => "lt",
            HalfOp::Le => "le",
            HalfOp::Neg => "neg",
            HalfOp::Abs => "abs",
        }
    }
}

#[cfg(test)]
mod tests {

    /// Every f16's value, bit for bit, as the arithmetic definition gives it (the conversion
    /// works on the bits).
    #[test]
    fn f16_to_f32_is_the_arithmetic_value() {
        for h in 0..=u16::MAX {
            let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
            let e = (h >> 10) & 0x1f;
            let m = (h & 0x3ff) as f32;
            let want = match e {
                0 => sign * m * 2f32.powi(-24),
                0x1f if m == 0.0 => sign * f32::INFINITY,
                0x1f => f32::from_bits(0x7fc0_0000 | ((h as u32 & 0x3ff) << 13)),
                _ => sign * (1.0 + m / 1024.0) * 2f32.powi(e as i32 - 15),
            };
            assert_eq!(Half::F16.to_f32(h).to_bits(), want.to_bits(), "{h:#06x}");
        }
    }

    use super::*;
    use half::{bf16, f16};
    use proptest::prelude::*;

    fn want_f16(x: f32) -> u16 {
        if x.is_nan() {
            NAN
        } else {
            f16::from_f32(x).to_bits()
        }
    }
    fn want_bf16(x: f32) -> u16 {
        if x.is_nan() {
            NAN
        } else {
            bf16::from_f32(x).to_bits()
        }
    }

    #[test]
    fn edges() {
        let h = Half::F16;
        assert_eq!(h.from_f32(1.0), 0x3c00);
        assert_eq!(h.from_f32(65504.0), 0x7bff);
        assert_eq!(h.from_f32(65520.0), 0x7c00); // halfway to 2^16 rounds to even: inf
        assert_eq!(h.from_f32(65519.99), 0x7bff);
        assert_eq!(h.from_f32(2f32.powi(-24)), 0x0001); // smallest subnormal
        assert_eq!(h.from_f32(2f32.powi(-25)), 0x0000); // a tie: to even (0)
        assert_eq!(h.from_f32(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(h.from_f32(3.0 * 2f32.powi(-25)), 0x0002); // 1.5 ulp: tie to even 2
        assert_eq!(h.from_f32(-0.0), 0x8000);
        assert_eq!(h.from_f32(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(h.from_f32(f32::NAN), NAN);
        assert_eq!(h.from_f32(1.0 + 2f32.powi(-11)), 0x3c00); // tie: even
        assert_eq!(h.from_f32(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(Half::Bf16.from_f32(1.0), 0x3f80);
        assert_eq!(Half::Bf16.from_f32(f32::MAX), 0x7f80); // rounds up to inf
        assert_eq!(Half::Bf16.from_f32(f32::from_bits(1)), 0x0000);
        assert_eq!(Half::Bf16.from_f32(f32::from_bits(0x8000)), 0x0000); // 2^-134: a tie, to 0
        assert_eq!(Half::Bf16.from_f32(f32::from_bits(0x1_0000)), 0x0001); // 2^-133
        assert_eq!(Half::Bf16.from_f32(f32::from_bits(0x1_8000)), 0x0002); // a tie, to 2
        assert!(h.to_f32(0x7e00).is_nan());
        assert_eq!(h.to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(h.to_f32(0xfbff), -65504.0);
    }

    #[test]
    fn every_f16_and_bf16_round_trips() {
        for b in 0..=u16::MAX {
            for (fmt, v) in [
                (Half::F16, f16::from_bits(b).to_f32()),
                (Half::Bf16, bf16::from_bits(b).to_f32()),
            ] {
                let got = fmt.to_f32(b);
                assert!(
                    got.to_bits() == v.to_bits() || (got.is_nan() && v.is_nan()),
                    "{b:#x}"
                );
                if !v.is_nan() {
                    assert_eq!(fmt.from_f32(v), b, "{fmt:?} {b:#x}");
                }
            }
        }
    }

    #[test]
    fn fma_rounds_once() {
        // 1 + 2^-11 is a tie in f16; with a tiny addend the exact sum is just above it.
        let h = Half::F16;
        let a = h.from_f32(1.0 + 2f32.powi(-10)); // 1 + ulp
        let b = h.from_f32(1.0 - 2f32.powi(-11)); // 1 - ulp/2 (exact in f16)
        let c = h.from_f32(2f32.powi(-24));
        // a·b = 1 + 2^-10 - 2^-11 - 2^-21 = 1 + 2^-11 - 2^-21: below the tie, so 1.0 ...
        // plus c = 2^-24 still below the tie.
        assert_eq!(h.fma(a, b, c), 0x3c00);
        // ... while 2^-11 + 2^-21 above the tie rounds up.
        let d = h.from_f32(2f32.powi(-20));
        assert_eq!(h.fma(a, b, d), 0x3c01);
    }

    #[test]
    fn fma_and_f64_round_once() {
        // 0.06884765625 · 29.046875 − 5476 = −5474.000190734863: nearer −5476 (0xed59) than
        // −5472. (Rounding through f32 first gives −5474.0, a tie, and −5472: the half crate's
        // `f16::from_f64` does that.)
        assert_eq!(Half::F16.fma(11368, 20291, 60761), 60761);
        assert_eq!(Half::F16.from_f64(-5474.000190734863), 0xed59);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20000))]
        #[test]
        fn conversions_match_the_half_crate(bits in any::<u32>()) {
            let x = f32::from_bits(bits);
            prop_assert_eq!(Half::F16.from_f32(x), want_f16(x));
            prop_assert_eq!(Half::Bf16.from_f32(x), want_bf16(x));
        }

        #[test]
        fn arithmetic_rounds_the_exact_result(a in any::<u16>(), b in any::<u16>()) {
            // Reference: the f32 result rounded by the half crate (exact for *, and for + and -
            // f32's 24 bits ≥ 2·11 + 2 make the double rounding innocuous).
            let (x, y) = (f16::from_bits(a).to_f32(), f16::from_bits(b).to_f32());
            for (op, r) in [(HalfOp::Add, x + y), (HalfOp::Sub, x - y), (HalfOp::Mul, x * y), (HalfOp::Div, x / y)] {
                prop_assert_eq!(Half::F16.arith(op, a, b, 0), want_f16(r), "{:?} {:#x} {:#x}", op, a, b);
            }
            // (The half crate's `from_f64` rounds through f32, twice: compare only where the
            // exact result is an f32.)
            let (x, y) = (bf16::from_bits(a).to_f32(), bf16::from_bits(b).to_f32());
            for (op, r) in [(HalfOp::Add, x as f64 + y as f64), (HalfOp::Mul, x as f64 * y as f64)] {
                if r.is_nan() || (r as f32) as f64 == r {
                    prop_assert_eq!(Half::Bf16.arith(op, a, b, 0), want_bf16(r as f32));
                }
            }
        }

        #[test]
        fn fma_matches_an_exact_reference(a in any::<u16>(), b in any::<u16>(), c in any::<u16>()) {
            // Reference: the exact a·b + c in f64 is exact when the exponents are close;
            // there f16's fma is the half crate's rounding of that f64.
            let (x, y, z) = (f16::from_bits(a).to_f64(), f16::from_bits(b).to_f64(), f16::from_bits(c).to_f64());
            let p = x * y;
            let s = p + z;
            let bb = s - p;
            if s.is_finite() && (p - (s - bb)) + (z - bb) == 0.0 && (s as f32) as f64 == s {
                prop_assert_eq!(Half::F16.fma(a, b, c), want_f16(s as f32));
            }
        }
    }
}
