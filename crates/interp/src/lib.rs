//! The kernel IR of warpsim and its lockstep warp executor.
//!
//! # Brief overview
//!
//! * [`ast`]: the RON form of a program, as written by hand (serde types).
//! * [`expr`]: the C-like expression language inside its strings.
//! * [`load`]: reads a file, resolves defines and names, checks types and bounds, and lowers
//!   the body to [`ir::Inst`]s — a flat list of register instructions — giving a [`Program`].
//! * [`exec`]: runs one block: its warps take turns, each executing one instruction for all
//!   32 lanes at a time under an active mask, with every shared access priced by
//!   [`warpsim_smem`].
//! * [`diag`]: errors that point at the file, line and column and say what to change.

// `Diag` carries the file's text and a span: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]

pub mod ast;
pub mod diag;
pub mod exec;
pub mod expr;
pub mod host;
pub mod ir;
pub mod load;
pub mod program;
pub mod race;

pub use diag::{Diag, Phase};
pub use load::{load_file, load_str, Layout, Options};
pub use program::{BufferInfo, InstInfo, Program, RegInit, SharedInfo};
