//! Element types of buffers and shared arrays, and a buffer's initial contents: the value
//! types a program file names and a [`Program`](crate::Program) keeps.

use serde::Deserialize;
use std::fmt;

/// Element types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
pub enum Elem {
    /// 32-bit float.
    F32,
    /// 64-bit float.
    F64,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit signed integer.
    I32,
    /// 8-bit unsigned integer (loaded zero-extended into a `u32`).
    U8,
    /// 8-bit signed integer (loaded sign-extended into an `i32`).
    I8,
    /// 16-bit unsigned integer (loaded zero-extended into a `u32`).
    U16,
    /// 16-bit signed integer (loaded sign-extended into an `i32`).
    I16,
    /// IEEE half precision (`__half`).
    F16,
    /// bfloat16 (`__nv_bfloat16`).
    BF16,
}

impl Elem {
    /// Size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Elem::F64 => 8,
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 | Elem::F16 | Elem::BF16 => 2,
            _ => 4,
        }
    }

    /// Narrower than a 32-bit word (1 or 2 bytes): packed in memory, widened in registers.
    pub fn is_narrow(self) -> bool {
        self.bytes() < 4
    }

    /// 32-bit registers one element takes (narrow elements are widened to one).
    pub fn regs(self) -> u32 {
        self.bytes().div_ceil(4)
    }

    /// The half format of `F16`/`BF16`.
    pub fn half(self) -> Option<crate::fp16::Half> {
        match self {
            Elem::F16 => Some(crate::fp16::Half::F16),
            Elem::BF16 => Some(crate::fp16::Half::Bf16),
            _ => None,
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U8 => "u8",
            Elem::I8 => "i8",
            Elem::U16 => "u16",
            Elem::I16 => "i16",
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
        })
    }
}

/// Initial contents of a buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub enum Init {
    /// All zero.
    #[default]
    Zeros,
    /// Element `i` holds `i`.
    Iota,
    /// Reproducible pseudo-random values from a seed: floats in [-1, 1), 32-bit integers
    /// over their whole range (the top 32 bits of the draw), 8- and 16-bit ones too.
    Random(u64),
    /// As `Random`, but 32-bit integers in [0, 65536) (the top 16 bits of the draw), as
    /// `Random` gave them before issue 37: for programs whose data was measured on the H200
    /// with that range.
    Random16(u64),
}
