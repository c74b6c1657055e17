//! The front-end interface: what a front end for `cuda:`/`ptx:` kernels is asked
//! ([`KernelRequest`]) and gives back ([`KernelCode`] or a [`KernelError`]), and the rules
//! both front ends share ([`ptxas_op`]).
//!
//! The RON loader checks the launch side of a program (defines, launch, buffers, arguments)
//! and asks the PTX front end for the kernel; the PTX front end depends on this crate alone.

use crate::diag::{Diag, Phase};
use crate::elem::Elem;
use crate::ir::{Inst, Reg, Space};
use crate::program::{BufferInfo, InstInfo, LocalInfo, RegInit, SharedInfo};
use std::sync::Arc;
use warpsim_smem::AtomOp;

/// One argument of the kernel, as the launch gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelArg {
    /// A pointer to element `offset` of buffer `index`.
    Buffer {
        /// Index into [`crate::Program::buffers`].
        index: u16,
        /// Elements past the buffer's start.
        offset: i64,
    },
    /// An integer.
    Int(i64),
    /// A number with a fraction or an exponent (`"1.5"`, `"1e-3"`), for a float parameter.
    Float(f64),
    /// Tensor map `k` of the launch file (a `CUtensorMap` parameter):
    /// [`crate::Program::tensor_maps`]`[k]`.
    TensorMap(u16),
}

/// What the loader asks the front end to compile.
#[derive(Clone, Debug)]
pub struct KernelRequest<'a> {
    /// CUDA source (compile with NVRTC first), else PTX.
    pub cuda: bool,
    /// The `.cu` or `.ptx` file (relative to the program file's directory, resolved).
    pub file: String,
    /// The kernel's name or name expression.
    pub kernel: String,
    /// The arguments, in order.
    pub args: Vec<KernelArg>,
    /// The defines to pass as `-DNAME=VALUE`.
    pub macros: Vec<(String, i64)>,
    /// The program's buffers.
    pub buffers: &'a [BufferInfo],
    /// Threads per block.
    pub block: [u32; 3],
    /// Blocks in the grid.
    pub grid: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub dynamic_shared: u32,
    /// Shared memory a block may use, in bytes.
    pub shared_limit: u32,
    /// Merge shared accesses as ptxas does (off with `--no-merge`).
    pub merge: bool,
    /// The launch file's element type of each constant symbol it fills (by the symbol's
    /// name as the PTX or the `.cu` writes it).
    pub const_types: &'a [(String, Elem)],
    /// CUDA: folders a `.cu` may include from besides its own and the toolkit's
    /// (`--include-path`), searched after its own.
    pub include_paths: &'a [String],
    /// CUDA: let a `.cu` include any file the user can read (`--any-include`).
    pub any_include: bool,
}

/// A constant symbol of the kernel's module (PTX `.const`, CUDA `__constant__`), in
/// declaration order: the loader makes it buffer `buffers.len() + k` of the program (the
/// `k`-th symbol), as the front end's pointers into it assume.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelConst {
    /// Its name in the PTX.
    pub name: String,
    /// Its name without C++ mangling (`_ZN2ns1cE` → `c`).
    pub short: String,
    /// Element type: the launch's for the symbol, else the PTX scalar's, else `u32`/`u8`.
    pub elem: Elem,
    /// Elements.
    pub len: u64,
    /// Its bytes as the module initialises them (zeros where it does not).
    pub bytes: Vec<u8>,
    /// Byte offset of the declaration in the PTX.
    pub off: usize,
    /// A device variable (PTX `.global`, CUDA `__device__`): writable, outside the constant
    /// bank.
    pub device: bool,
}

/// The kernel, lowered.
#[derive(Clone, Debug)]
pub struct KernelCode {
    /// The code; the loader appends the final [`Inst::Exit`].
    pub code: Vec<Inst>,
    /// Where each instruction came from, in `path`.
    pub info: Vec<InstInfo>,
    /// Registers filled when a warp starts.
    pub init: Vec<(Reg, RegInit)>,
    /// Registers a warp needs.
    pub nregs: usize,
    /// The shared arrays (views of the block's shared memory), with their places.
    pub shared: Vec<SharedInfo>,
    /// Shared memory a block uses, in bytes (static and dynamic).
    pub shared_bytes: u32,
    /// Views of local memory (PTX `.local`), and its bytes per thread.
    pub local: Vec<LocalInfo>,
    /// Local memory per thread, in bytes.
    pub local_bytes: u32,
    /// The reconvergence stack's size.
    pub max_depth: usize,
    /// The file the source positions point into (the `.cu`, or the `.ptx` without line
    /// information) and its text.
    pub path: String,
    /// Its text.
    pub source: Arc<str>,
    /// The headers a `.cu` includes (the CUDA toolkit's aside; none for PTX).
    pub headers: Vec<String>,
    /// The module's constant symbols, in declaration order (each a buffer after the
    /// launch's).
    pub constants: Vec<KernelConst>,
    /// The formats of its `printf`s ([`crate::Program::formats`]).
    pub formats: Vec<crate::printf::Format>,
    /// The operands of its `mma.sync`s ([`crate::Program::mmas`]).
    pub mmas: Vec<crate::ir::MmaOp>,
    /// The operands of its `wgmma.mma_async`s ([`crate::Program::wgmmas`]).
    pub wgmmas: Vec<crate::ir::WgmmaOp>,
}

/// A front end's error.
#[derive(Debug)]
pub enum KernelError {
    /// An error in the kernel's files (or the compiler's), already located.
    Diag(Box<Diag>),
    /// An error about the launch: argument `arg` (None: the kernel as a whole).
    Launch {
        /// The argument it is about.
        arg: Option<usize>,
        /// What is wrong.
        message: String,
        /// What to change.
        help: Option<String>,
    },
}

/// The operation ptxas compiles an atomic to (README rule 9): a shared 32-bit integer `add`
/// of the constant 1 (`operand`: the operand's value when it is a constant) whose result
/// nobody reads becomes `ATOMS.POPC.INC` ([`AtomOp::PopcInc`]), the lanes on one address
/// aggregated; anything else (a run-time operand, even one holding 1, a read result, another
/// constant, `sub`, another type or space) stays `op`. The RON loader and the PTX front end
/// both ask this.
pub fn ptxas_op(
    op: AtomOp,
    space: Space,
    elem: Elem,
    result_read: bool,
    operand: Option<i64>,
) -> AtomOp {
    let popc = op == AtomOp::Add
        && space == Space::Shared
        && matches!(elem, Elem::I32 | Elem::U32)
        && !result_read
        && operand == Some(1);
    if popc {
        AtomOp::PopcInc
    } else {
        op
    }
}

/// A diagnostic in a kernel's file (for front ends).
pub fn kernel_diag(
    path: &str,
    src: &Arc<str>,
    offset: usize,
    len: usize,
    message: impl Into<String>,
    help: Option<String>,
) -> KernelError {
    KernelError::Diag(Box::new(Diag::at(
        Phase::Check,
        path,
        src,
        offset,
        len,
        message,
        help,
    )))
}
