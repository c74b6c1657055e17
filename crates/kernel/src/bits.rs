//! PTX's 32-bit operations that the RON IR has no statement for ([`crate::ir::Inst::Ptx`]):
//! bit fields and permutations (`clz`, `brev`, `bfind`, `bfe`, `prmt`), `copysign`, and the
//! special-function approximations NVRTC's math emits (`sin`, `cos`, `lg2`). Each is one
//! warp instruction of the executor; the approximations are computed exactly rounded here (the
//! GPU's differ in the last bits; no shared-memory count depends on them).

/// One operation: `dst = op(a, b, c)` on 32-bit values (unused operands repeat `a`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtxOp {
    /// `clz.b32`: the number of leading zero bits (32 for 0).
    Clz,
    /// `brev.b32`: the bits reversed.
    Brev,
    /// `bfind.u32`/`.s32`: the position of the most significant bit that is not a sign bit
    /// (for `.s32` and a negative value, the most significant 0), `0xffffffff` when there
    /// is none; with `shiftamt`, `31 -` that position (still `0xffffffff` when none).
    Bfind {
        /// `.s32` (else `.u32`).
        signed: bool,
        /// `.shiftamt`: the left shift that would bring that bit to bit 31.
        shiftamt: bool,
    },
    /// `bfe.u32`/`.s32`: `c & 0xff` bits of `a` from bit `b & 0xff`, zero- or sign-extended
    /// (PTX's rule: bits past bit 31 repeat the sign bit, bit 31's or 0).
    Bfe {
        /// `.s32` (sign-extended; else `.u32`, zero-extended).
        signed: bool,
    },
    /// `prmt.b32` (the default mode): byte `i` of the result is byte `c[4i+2:4i]` of the
    /// eight bytes `{b, a}` (a's bytes are 0–3), its top bit copied over it when `c[4i+3]`.
    Prmt,
    /// `copysign.f32`: `b` with the sign of `a`.
    Copysign,
    /// `sin.approx.f32`.
    Sin,
    /// `cos.approx.f32`.
    Cos,
    /// `lg2.approx.f32`: the base-2 logarithm.
    Lg2,
    /// `tanh.approx.f32` (`MUFU.TANH`).
    Tanh,
}

impl PtxOp {
    /// The PTX name (for listings).
    pub fn name(self) -> &'static str {
        match self {
            PtxOp::Clz => "clz.b32",
            PtxOp::Brev => "brev.b32",
            PtxOp::Bfind { signed: false, .. } => "bfind.u32",
            PtxOp::Bfind { signed: true, .. } => "bfind.s32",
            PtxOp::Bfe { signed: false } => "bfe.u32",
            PtxOp::Bfe { signed: true } => "bfe.s32",
            PtxOp::Prmt => "prmt.b32",
            PtxOp::Copysign => "copysign.f32",
            PtxOp::Sin => "sin.approx.f32",
            PtxOp::Cos => "cos.approx.f32",
            PtxOp::Lg2 => "lg2.approx.f32",
            PtxOp::Tanh => "tanh.approx.f32",
        }
    }

    /// How many operands it reads (1 to 3).
    pub fn arity(self) -> usize {
        match self {
            PtxOp::Clz | PtxOp::Brev | PtxOp::Bfind { .. } => 1,
            PtxOp::Sin | PtxOp::Cos | PtxOp::Lg2 | PtxOp::Tanh => 1,
            PtxOp::Copysign => 2,
            PtxOp::Bfe { .. } | PtxOp::Prmt => 3,
        }
    }

    /// Whether it goes to the special-function unit (MUFU) rather than the integer one.
    pub fn special_function(self) -> bool {
        matches!(self, PtxOp::Sin | PtxOp::Cos | PtxOp::Lg2 | PtxOp::Tanh)
    }

    /// `op(a, b, c)`.
    #[inline]
    pub fn eval(self, a: u32, b: u32, c: u32) -> u32 {
        let f = f32::from_bits;
        match self {
            PtxOp::Clz => a.leading_zeros(),
            PtxOp::Brev => a.reverse_bits(),
            PtxOp::Bfind { signed, shiftamt } => {
                let x = if signed && (a as i32) < 0 { !a } else { a };
                if x == 0 {
                    u32::MAX
                } else if shiftamt {
                    x.leading_zeros()
                } else {
                    31 - x.leading_zeros()
                }
            }
            PtxOp::Bfe { signed } => {
                let (pos, len) = (b & 0xff, c & 0xff);
                let sbit = if !signed || len == 0 {
                    0
                } else {
                    (a >> (pos + len - 1).min(31)) & 1
                };
                (0..32u32).fold(0, |d, i| {
                    let bit = if i < len && pos + i <= 31 {
                        (a >> (pos + i)) & 1
                    } else {
                        sbit
                    };
                    d | (bit << i)
                })
            }
            PtxOp::Prmt => {
                let bytes = (u64::from(b) << 32 | u64::from(a)).to_le_bytes();
                (0..4).fold(0, |d, i| {
                    let s = (c >> (4 * i)) & 0xf;
                    let byte = bytes[(s & 7) as usize];
                    let byte = if s & 8 != 0 {
                        if byte & 0x80 != 0 {
                            0xff
                        } else {
                            0
                        }
                    } else {
                        byte
                    };
                    d | u32::from(byte) << (8 * i)
                })
            }
            PtxOp::Copysign => (b & 0x7fff_ffff) | (a & 0x8000_0000),
            PtxOp::Sin => f(a).sin().to_bits(),
            PtxOp::Cos => f(a).cos().to_bits(),
            PtxOp::Lg2 => f(a).log2().to_bits(),
            PtxOp::Tanh => f(a).tanh().to_bits(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PtxOp::*;

    #[test]
    fn tanh_is_the_rounded_hyperbolic_tangent() {
        // tanh(0.5) = 0.46211715726…, whose nearest f32 is 0x3eec9a9f.
        assert_eq!(Tanh.eval(0.5f32.to_bits(), 0, 0), 0x3eec_9a9f);
        assert_eq!(Tanh.eval((-30f32).to_bits(), 0, 0), (-1f32).to_bits());
    }

    #[test]
    fn bit_operations_follow_ptx() {
        assert_eq!(Clz.eval(0, 0, 0), 32);
        assert_eq!(Clz.eval(1, 0, 0), 31);
        assert_eq!(Brev.eval(1, 0, 0), 0x8000_0000);
        let bfind = |s, k, a: i32| {
            super::PtxOp::Bfind {
                signed: s,
                shiftamt: k,
            }
            .eval(a as u32, 0, 0)
        };
        assert_eq!(bfind(false, false, 0), u32::MAX);
        assert_eq!(bfind(false, false, 0x10), 4);
        assert_eq!(bfind(false, true, 0x10), 27);
        assert_eq!(bfind(true, false, -1), u32::MAX);
        assert_eq!(bfind(true, false, -17), 4); // !(-17) = 16
        assert_eq!(bfind(false, false, -1), 31);
        let bfe = |s, a: u32, p, l| super::PtxOp::Bfe { signed: s }.eval(a, p, l);
        assert_eq!(bfe(false, 0xabcd_1234, 8, 8), 0x12);
        assert_eq!(bfe(true, 0x0000_8000, 8, 8), 0xffff_ff80);
        assert_eq!(bfe(false, 0xf000_0000, 28, 8), 0xf);
        assert_eq!(bfe(true, 0xf000_0000, 28, 8), 0xffff_ffff);
        assert_eq!(bfe(true, 0x1234, 4, 0), 0);
        // __byte_perm(x, y, 0x3210) is x; 0x7654 is y; 0x0123 reverses x's bytes.
        assert_eq!(Prmt.eval(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(Prmt.eval(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
        assert_eq!(Prmt.eval(0x4433_2211, 0x8877_6655, 0x0123), 0x1122_3344);
        // Sign replication of byte 7 (0x88) and byte 0 (0x11).
        assert_eq!(Prmt.eval(0x4433_2211, 0x8877_6655, 0x8f), 0x1111_00ff);
        assert_eq!(
            Copysign.eval((-1f32).to_bits(), 2f32.to_bits(), 0),
            (-2f32).to_bits()
        );
        assert_eq!(Lg2.eval(8f32.to_bits(), 0, 0), 3f32.to_bits());
    }
}
