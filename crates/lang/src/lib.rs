//! The RON front end of warpsim: a program file → a checked [`Program`].
//!
//! # Brief overview
//!
//! A program file is one RON `Program(...)` value: defines, launch, buffers with their
//! initial contents and references, shared arrays, and either a `body` of statements in
//! warpsim's kernel language or a `cuda:`/`ptx:` kernel. [`load_str`] (or [`load_file`])
//! reads it, folds the defines, resolves names, types every expression, checks what it can
//! prove (indices against declared sizes, launch limits) and lowers the body to
//! [`warpsim_kernel::ir::Inst`]s, giving a [`Program`]. A `cuda:`/`ptx:` kernel goes to the
//! PTX front end, [`warpsim_ptx::frontend`], called directly: no registration.
//!
//! * `file`: the file's serde types (`deny_unknown_fields`); every string keeps its place in
//!   the file, so that each [`Diag`] points at a line and column.
//! * `load`: one module per job: declarations, defines, registers, statements, expressions,
//!   built-in calls, functions, jumps, atomics, reference checks, and the launch side of a
//!   `cuda:`/`ptx:` kernel (`load/kernel.rs`).
//! * [`merge_hints`]: the porting lint of `warpsim check` (shared accesses nvcc would likely
//!   merge into 8- and 16-byte ones).
//!
//! [`Options`] is what the loader may be told besides the file (defines, the shared-memory
//! limit, forced layouts for `warpsim advise`).

// `Diag` carries the file's text and a span: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

mod file;
mod lint;
mod load;

pub use lint::{merge_hints, Hint};
pub use load::{kernel_file, load_file, load_str, Layout, Options};
pub use warpsim_kernel::{Diag, Program};
