//! The kernel IR of warpsim: what every front end produces and every back end reads.
//!
//! # Brief overview
//!
//! A [`Program`] is a checked, lowered kernel: a flat list of [`ir::Inst`]s, its registers,
//! global buffers ([`BufferInfo`]), shared arrays ([`SharedInfo`]), local memory, launch, and
//! for every instruction the source position it came from ([`InstInfo`]). The RON front end
//! (`warpsim-lang`) and the PTX front end (`warpsim-ptx`) build one; the executor
//! (`warpsim-exec`), the timing model and the CPU reference read it. Nothing here runs code.
//!
//! * [`ir`]: the instruction set; [`ir::Inst::operands`] is the one description of each
//!   instruction's registers.
//! * [`Elem`] and [`Init`]: element types and a buffer's initial contents; [`narrow`] packs
//!   1- and 2-byte elements in 32-bit words, [`fp16`] rounds and computes f16/bf16, and
//!   [`PtxOp`] is the 32-bit operations only PTX has (`clz`, `prmt`, `sin.approx` …).
//! * [`expr`]: the C-like expression language of program files: one parser and one table of
//!   built-in functions, shared by kernel lowering, references, define folding and
//!   `warpsim explain`.
//! * [`diag`]: [`Diag`], an error that points at a file, line and column and says what to
//!   change, and [`diag::parse_ron`], which reads any RON file (programs, GPU descriptions)
//!   with such errors.
//! * [`input`]: the one reader of every input file (regular files only, capped), and
//!   [`escape`]: control characters made visible in everything printed.
//! * [`tensormap`]: TMA's tensor maps (a launch file's `tensor_maps`) and the layout of a box
//!   in shared memory, which the executor's tensor copies follow.
//! * The front-end interface: a `cuda:`/`ptx:` kernel is asked for with a [`KernelRequest`]
//!   and comes back as [`KernelCode`] or a [`KernelError`]; [`ptxas_op`] is the one rule both
//!   front ends share (ptxas's choice of `ATOMS.POPC.INC`).
//!
//! `ir`, `expr`, `diag`, `escape`, `input`, `fp16`, `narrow` and `tensormap` are public modules (each a namespace of many
//! items); everything else is re-exported here.

// `Diag` carries the file's text and a span: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

mod bitops;
mod bits;
pub mod diag;
mod elem;
pub mod escape;
pub mod expr;
pub mod fp16;
mod frontend;
pub mod input;
pub mod ir;
pub mod literal;
pub mod narrow;
pub mod printf;
mod program;
pub mod tensormap;

pub use bitops::{BitOp, PrmtMode, TestKind};
pub use bits::PtxOp;
pub use diag::{Diag, Phase};
pub use elem::{Elem, Init};
pub use frontend::{
    kernel_diag, ptxas_op, KernelArg, KernelCode, KernelConst, KernelError, KernelRequest,
};
pub use program::{
    BufferInfo, ConstData, ConstFill, Expect, FillSrc, InstInfo, LocalInfo, Program, RegInit,
    SharedInfo,
};

/// The most shared memory a block may be given (2 GiB): the executor addresses shared memory
/// with 32-bit byte offsets and keeps one spare word past the end.
pub const MAX_SHARED_LIMIT: u32 = 1 << 31;
