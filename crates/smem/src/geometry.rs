//! The shape of shared memory ([`Geometry`]), its validation errors, and the kinds of access
//! ([`Op`]).

use crate::*;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The shape of shared memory: how many banks, and how many bytes each serves per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Geometry {
    /// Number of banks (1 ..= [`MAX_BANKS`]).
    pub banks: u32,
    /// Width of one bank word in bytes (a power of two, 4 ..= 64).
    pub bank_bytes: u32,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry::H200
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} banks x {} B", self.banks, self.bank_bytes)
    }
}

/// Errors from building a geometry or pricing an access.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The bank count is out of range.
    #[error("{0} banks is not a supported geometry: use 1 to {MAX_BANKS} banks")]
    Banks(u32),
    /// The bank width is not a supported power of two.
    #[error("a bank width of {0} bytes is not supported: use 4, 8, 16, 32 or 64")]
    BankBytes(u32),
    /// The access width is not 1, 2, 4, 8 or 16 bytes.
    #[error("an access of {0} bytes is not supported: shared accesses are 1, 2, 4, 8 or 16 bytes")]
    Width(u32),
    /// A lane's address is not a multiple of the access width.
    #[error("lane {lane} accesses byte address {addr}, which is not aligned to the {width}-byte access width")]
    Misaligned {
        /// The lane.
        lane: u32,
        /// Its byte address.
        addr: u32,
        /// The access width in bytes.
        width: u32,
    },
}

impl Geometry {
    /// The NVIDIA H200 (and every recent NVIDIA GPU): 32 banks of 4 bytes.
    pub const H200: Geometry = Geometry {
        banks: 32,
        bank_bytes: 4,
    };

    /// A checked geometry.
    pub fn new(banks: u32, bank_bytes: u32) -> Result<Self, Error> {
        let g = Geometry { banks, bank_bytes };
        g.validate()?;
        Ok(g)
    }

    /// Whether this geometry is one [`Geometry::new`] accepts (the fields are public, so a
    /// geometry may also be written out by hand).
    #[inline]
    pub fn validate(&self) -> Result<(), Error> {
        if self.banks == 0 || self.banks > MAX_BANKS {
            return Err(Error::Banks(self.banks));
        }
        // A power of two (without `is_power_of_two`, which is a software popcount on
        // baseline x86-64), 4 to 64.
        let b = self.bank_bytes;
        if b & b.wrapping_sub(1) != 0 || !(4..=64).contains(&b) {
            return Err(Error::BankBytes(b));
        }
        Ok(())
    }

    /// The bank that byte address `addr` falls in. (A zero field, which [`Geometry::new`]
    /// refuses, counts as one rather than dividing by zero.)
    #[inline]
    pub fn bank_of(&self, addr: u32) -> u32 {
        (addr / self.bank_bytes.max(1)) % self.banks.max(1)
    }

    /// Lanes per phase for an access of `width` bytes, before any load doubling.
    #[inline]
    pub fn lanes_per_phase(&self, width: u32) -> u32 {
        let bytes = self.banks as u64 * self.bank_bytes as u64;
        (bytes / width.max(1) as u64).clamp(1, WARP as u64) as u32
    }
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// A load (`LDS`).
    Ld,
    /// A store (`STS`).
    St,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Ld => "ld",
            Op::St => "st",
        })
    }
}

impl std::str::FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ld" => Ok(Op::Ld),
            "st" => Ok(Op::St),
            _ => Err(format!("`{s}` is not an access kind: use `ld` or `st`")),
        }
    }
}
