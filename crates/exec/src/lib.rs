//! The lockstep warp executor of warpsim: runs one block of a
//! [`Program`](warpsim_kernel::Program), with its shared-memory race detector and the
//! buffers' initial contents.
//!
//! A block's threads are split into warps of 32 consecutive linear thread indices
//! (`tid.x + ntid.x * (tid.y + ntid.y * tid.z)`); the last warp may be partial, and its missing
//! lanes are never active. Each warp executes one instruction at a time for all of its lanes
//! under an *active mask*; `If` and loops narrow the mask and a per-warp reconvergence stack
//! widens it again after the construct.
//!
//! Scheduling is round robin and deterministic: warp 0 runs until it reaches a `Barrier` or
//! `Exit` (or an `mbarrier` wait it must park at), then warp 1, and so on; when every warp
//! waits at a barrier they are all released.
//!
//! Every shared-memory access is priced with [`warpsim_smem::cost_into`] and added to
//! [`Stats`]; every fault (division by zero, out-of-bounds or misaligned access, a barrier that
//! cannot be passed, a runaway loop, and even a malformed [`Program`](warpsim_kernel::Program)) is a
//! [`Fault`] value with a [`FaultKind`], never a panic.
//!
//! # Brief overview
//!
//! * `api`: the types callers use — [`Config`], [`Global`], [`Stats`] (with [`PcStats`] and
//!   [`FirstAccess`], the first execution of each shared instruction, kept to show which
//!   banks its lanes hit).
//! * `block`: [`Validated`] (a program checked once for a config and global memory; its
//!   [`Validated::run_block`] runs one block) and [`run_block`] (check and run one block); the
//!   block scheduler — a block's warps, registers and reconvergence frames, run round robin
//!   between barriers — and the per-thread scratch reused between blocks.
//! * `validate`: the checks that make running a malformed program a fault, not a panic
//!   (once per run, giving a [`Validated`] program).
//! * `warp`: the warp loop. `warp_loop` fetches and counts each warp instruction; `execute`
//!   dispatches it, one `match` arm per instruction, each one call to a handler in `arith`
//!   (computing instructions), `flow` (control flow and reconvergence) or `memory` (loads and
//!   stores, with the bank model). `At` is the running warp's state the handlers move.
//!   The PTX front end's instructions have their own: `branch` (unstructured branches that
//!   reconverge at immediate post-dominators, `ret`), `wide` (64-bit integer arithmetic on
//!   register pairs), `atomic` and `atomic_pair`, `narrow` and `bytes` (1- and 2-byte
//!   elements), `local`.
//! * `warpops`: the warp-level operations (shuffles, votes, `activemask`, `SyncWarp`) and
//!   their member-mask checks.
//! * `jump`: `Break`, `Continue` and `Return` — the lanes leave the frames they jump out of,
//!   and the warp goes on in the innermost frame with lanes left; lanes that returned leave
//!   the warp's live mask (barriers no longer wait for them).
//! * `fault`: [`Fault`], [`FaultKind`] (whose `Display` is the message), and the cold code that
//!   words each fault.
//! * `hook`: [`Hook`], what a timing model is told about each issued instruction
//!   ([`Validated::run_block_with`]); `()` is no hook, compiled away.
//! * `local`: local memory (PTX `.local`), each thread's private bytes: checks and data
//!   movement, and the offsets the hook is told.
//! * `lanes` and `gather`: 32-lane helpers (masks, per-lane maps, SIMD gathers and copies).
//! * `tensor_exec` and `tensor`: `ldmatrix`/`stmatrix` and `cp.async` (and their data as the
//!   H200 moves it); `mma`: `mma.sync`; `mbarrier`: transaction barriers in shared memory (a
//!   failing wait parks its warp: the block scheduler retries it after a change); `bulk`:
//!   TMA's bulk and tensor copies.
//! * `race`: the shared-memory race detector ([`Config::racecheck`]): a shadow of each
//!   shared word between barriers, whose [`Hazard`]s end in [`Stats::races`].
//! * `init`: the buffers' initial contents ([`init_words`], [`fill_global`]: `Zeros`, `Iota`,
//!   `Random(seed)`).
//!
//! Where a per-instruction observer (the timing model) plugs in: in `warp_loop`, around the
//! call to `execute` — before it, `at.pc`, the instruction and `at.active` are known; after it,
//! the instruction's shared wavefronts and conflicts have been added to its `PcStats`, a
//! barrier or `Exit` has set the warp's state, and `at.next` is where it goes next.

// `Diag` and `Fault` carry a message and a place: large, but only ever on the cold error path.
#![allow(clippy::result_large_err)]
#![warn(missing_docs)]

use warpsim_smem::WARP;

mod api;
mod arith;
mod atomic;
mod atomic_pair;
mod block;
mod branch;
mod bulk;
mod bytes;
mod fault;
mod flow;
mod gather;
mod hook;
mod init;
mod jump;
mod lanes;
mod local;
mod mbarrier;
mod memory;
pub mod mma;
mod narrow;
mod printf;
mod race;
mod race_async;
pub mod tensor;
mod tensor_exec;
mod validate;
mod warp;
mod warpops;
mod wgmma;
mod wide;
mod words;

#[cfg(test)]
mod tests;

pub use api::{Config, FirstAccess, Global, PcStats, Stats};
pub use block::{run_block, Validated};
pub use fault::{Fault, FaultKind, MaskError};
pub use hook::Hook;
pub use init::{const_words, fill_buffer, fill_global, init_words, written_buffers};
pub use printf::{PrintfOut, MAX_PRINTF};
pub use race::{locate, Hazard, HazardKind, Races, Side};
pub use words::Words;

/// One register: a 32-bit value per lane.
type Lanes = [u32; WARP];

/// All 32 lanes.
const FULL: u32 = u32::MAX;

/// Words past the end of shared memory that the inactive lanes of a store write to (as many
/// as one lane stores at most), so that a scatter needs no branch per lane.
const SPARE_WORDS: usize = 4;

/// The help attached to faults that only a malformed [`Program`](warpsim_kernel::Program) can cause.
pub const LOADER_BUG: &str =
    "the program was lowered inconsistently; this is a bug in warpsim's loader, please report it \
     with the program file";
