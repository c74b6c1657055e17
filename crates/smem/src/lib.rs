//! The shared-memory bank model of warpsim.
//!
//! # Brief overview
//!
//! Shared memory is a set of SRAM banks. One warp instruction asks each of its active lanes'
//! addresses of the banks; the hardware serves the warp in *phases* of consecutive lanes, and
//! each phase takes as many cycles (*wavefronts*) as the most distinct words any one bank must
//! deliver in it. This crate prices one warp access under that rule:
//!
//! * [`Geometry`]: how many banks, how wide each is. [`Geometry::H200`] is the real one.
//! * [`cost`]: one access (`ld`/`st`, 4/8/16 bytes, 32 lane addresses and an active mask)
//!   → [`Cost`] (wavefronts, bank conflicts, phases). Allocation-free, with a fast path for
//!   conflict-free accesses; it can also add each bank's served words to a counter slice.
//! * [`analyze`]: the same access, with every phase, bank, word and lane spelled out
//!   (for `warpsim explain` and for tests).
//! * [`atomic_cost`] / [`analyze_atomic`]: shared atomics (`atom.OP`, `red.OP`), which queue
//!   lanes rather than share words, or run as compare-and-swap loops (module `atomic`).
//! * [`matrix_cost`]: `ldmatrix`/`stmatrix` (`LDSM`/`STSM`), one phase per 8x8 matrix (module
//!   `matrix`); [`async_copy_cost`]: `cp.async` (`LDGSTS`), whose price depends on the global
//!   source too, with every counter Nsight shows for it (module `async_copy`).
//! * [`Relayout`]: another layout of one region (a swizzle, a padding) that addresses move
//!   through before they are priced, for the advisor's "what if" on code it cannot rewrite.
//!
//! Accesses of 1 and 2 bytes follow the same rule as 4 bytes (one phase for the warp; lanes
//! reading or writing different bytes of one word share it), measured like the rest.
//!
//! Modules: `geometry` ([`Geometry`], [`Op`], [`Error`]); `price` (the entry points, their
//! checks and fast paths); `slow` (the general path, phase by phase, with an AVX2 build);
//! `counts` ([`BankCounts`]); `analysis` ([`analyze`]).
//!
//! The rule, measured on an NVIDIA H200 (sm_90) with Nsight Compute, is documented in the
//! repository README ("The bank model"); `tests/fixtures/h200/` holds the 374 measured accesses
//! it reproduces exactly.
//!
//! 1. The bank of byte address `A` is `(A / bank_bytes) % banks`; a lane's access of `width`
//!    bytes touches the `bank_bytes`-sized words that its bytes fall in.
//! 2. A phase moves at most `banks × bank_bytes` bytes, so it holds
//!    `min(32, banks × bank_bytes / width)` consecutive lanes (at least one).
//! 3. Loads of 8 or 16 bytes only: if every active lane has the same address as lane `i ^ 1`
//!    (where that lane is active), or every active lane has the same address as lane `i ^ 2`,
//!    a phase holds twice as many lanes (at most 32). Stores never do this.
//! 4. A phase costs the largest number of distinct words asked of any one bank in it; a phase
//!    with no active lane costs nothing.
//! 5. Wavefronts are the sum over phases; bank conflicts are wavefronts minus busy phases.

/// Lanes in a warp.
pub const WARP: usize = 32;

/// Most banks a geometry may have (keeps the per-phase scratch on the stack).
pub const MAX_BANKS: u32 = 1024;

mod analysis;
mod async_copy;
mod atomic;
mod counts;
mod geometry;
mod matrix;
mod price;
mod relayout;
mod slow;

pub use analysis::*;
pub use async_copy::{
    async_copy_cost, async_copy_cost_counting, AsyncCopy, CopyCost, CopyError, CopyLanes,
};
pub use atomic::{
    analyze_atomic, atomic_cost, atomic_cost_each, atomic_cost_with, AccessKind, AtomAnalysis,
    AtomCost, AtomOp, AtomPhase, AtomTy, Atomic, AtomicError, Form, LoopData, Trip, Versions,
    ATOM_OPS,
};
pub use counts::*;
pub use geometry::*;
pub use matrix::*;
pub use price::*;
pub use relayout::{Relayout, RelayoutKind};
pub(crate) use slow::*;

#[cfg(test)]
mod tests;
