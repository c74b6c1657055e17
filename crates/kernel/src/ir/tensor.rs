//! The operands of the warp-wide matrix and asynchronous-copy instructions (issue 41):
//! `ldmatrix`/`stmatrix` ([`MatrixOp`]) and `cp.async` ([`CopyOp`]). The executor's handlers
//! are in `exec/tensor_exec.rs`; the bank rules in `warpsim_smem::matrix` and
//! `warpsim_smem::async_copy`.

use super::Reg;

/// `ldmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16 {regs}, [addr]` (a load) or
/// `stmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16 [addr], {regs}` (a store): `n` 8x8
/// matrices of 16-bit elements; lane `8i + r` gives the shared byte address of row `r` of
/// matrix `i` in `addr`; each lane's register `regs[i]` holds its two elements of matrix `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixOp {
    /// `stmatrix` (else `ldmatrix`).
    pub store: bool,
    /// Matrices: 1, 2 or 4.
    pub n: u8,
    /// `.trans`.
    pub trans: bool,
    /// The row address (a shared byte address; the low word of a 64-bit register).
    pub addr: Reg,
    /// One register per matrix (the first `n` are used).
    pub regs: [Reg; 4],
    /// The shared array the address points into, for reports only.
    pub array: u16,
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], width[, size]`: each active lane copies
/// `width` bytes from global byte address `src` (a 64-bit pointer, as byte-addressed global
/// accesses hold it) to shared byte address `dst`; with `size`, only the first `size` bytes
/// are read and the rest are written as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyOp {
    /// `.cg` (bypasses L1; 16 bytes only).
    pub bypass: bool,
    /// Bytes a lane copies: 4, 8 or 16.
    pub width: u8,
    /// The shared destination (byte address).
    pub dst: Reg,
    /// The global source: a register pair (low word first).
    pub src: Reg,
    /// The src-size operand, if the instruction has one (`.ZFILL` in SASS).
    pub size: Option<Reg>,
    /// The shared array the destination points into, for reports only.
    pub array: u16,
}

impl MatrixOp {
    /// The registers it uses (`regs[..n]`).
    pub fn used_regs(&self) -> &[Reg] {
        &self.regs[..(self.n as usize).min(4)]
    }
}
