//! The kernel IR of warpsim and its lockstep warp executor.
//!
//! # Brief overview
//!
//! The path of a program: RON text → [`ast`] → [`load`] (checked and lowered) → [`Program`]
//! (a flat list of [`ir::Inst`]s) → [`exec`] (one block at a time) → [`host`] (the CPU
//! reference check).
//!
//! * [`ast`]: the value types of a program file that appear in [`Program`] (element types,
//!   initial contents); the file's own serde types are internal to the loader.
//! * [`expr`]: the C-like expression language inside the file's strings: one parser and one
//!   table of built-in functions, shared by kernel lowering, references, define folding and
//!   `warpsim explain`.
//! * [`load`]: reads a file, resolves defines and names, checks types and bounds, and lowers
//!   the body to [`ir::Inst`]s, giving a [`Program`]. One module per job: declarations,
//!   defines, registers, statements, expressions, built-in calls, reference checks.
//! * [`ir`]: the instruction set; [`ir::Inst::operands`] is the one description of each
//!   instruction's registers.
//! * [`program`]: the checked program: code, buffers, shared arrays, source positions.
//! * [`exec`]: runs one block: its warps take turns, each executing one instruction for all
//!   32 lanes at a time under an active mask, with every shared access priced by
//!   [`warpsim_smem`].
//! * [`race`]: shared-memory race detection between barriers.
//! * [`lint`]: hints for ports from CUDA (shared accesses nvcc would likely merge).
//! * [`host`]: initial buffer contents and the check of final contents against each
//!   buffer's `expect` reference.
//! * [`diag`]: errors that point at the file, line and column and say what to change.

// `Diag` carries the file's text and a span: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

pub mod exec;
pub mod host;
pub mod race;

/// Element types (`warpsim_kernel`'s).
pub mod ast {
    pub use warpsim_kernel::{Elem, Init};
}
/// The RON loader (`warpsim_lang`'s).
pub mod load {
    pub use warpsim_kernel::diag::parse_ron;
    pub use warpsim_lang::{
        load_file, load_str, Layout, Options, H200_SHARED_BYTES, MAX_SHARED_LIMIT,
    };
}
/// The porting lint (`warpsim_lang`'s).
pub mod lint {
    pub use warpsim_lang::{merge_hints, Hint};
}

pub use warpsim_kernel::{diag, expr, fp16, ir, narrow};
/// PTX's 32-bit operations (`warpsim_kernel::PtxOp`).
pub mod bits {
    pub use warpsim_kernel::PtxOp;
}
/// The checked program (`warpsim_kernel`'s).
pub mod program {
    pub use warpsim_kernel::{
        BufferInfo, Expect, InstInfo, LocalInfo, Program, RegInit, SharedInfo,
    };
}

pub use diag::{Diag, Phase};
pub use load::{load_file, load_str, Layout, Options};
pub use program::{BufferInfo, InstInfo, LocalInfo, Program, RegInit, SharedInfo};
