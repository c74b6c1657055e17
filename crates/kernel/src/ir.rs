//! The lowered form: a flat list of register instructions, run one warp at a time.
//!
//! Every register holds one 32-bit value per lane (`[u32; 32]`). An `f64` value lives in two
//! consecutive registers: `r` holds the low word and `r + 1` the high word. Booleans are 0 or 1.
//!
//! Control flow is structured: `If`/`Else`/`EndIf` and `LoopStart`/`LoopTest`/`LoopBack`/
//! `LoopEnd` (`ForTest`/`ForNext` for counted loops) push and pop frames of the warp's reconvergence stack, so lanes that diverge meet
//! again right after the construct.

use crate::elem::Elem;
use std::fmt;

mod display;
mod mbarrier;
mod modes;
mod tensor;
mod wgmma;

pub use mbarrier::{BulkOp, MbarKind, MbarOp, MbarState, TensorOp};
pub use modes::{BarRedOp, Cmp64, Op64, ReduxOp, ShflMode, VoteMode};
pub use tensor::{CopyOp, FragAt, MatrixOp, MmaOp, MmaShape, MmaType};
pub use wgmma::{Desc, WgA, WgmmaOp};

/// A register number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg(pub u16);

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "r{}", self.0)
    }
}

/// A program counter: an index into [`crate::Program::code`].
pub type Pc = u32;

/// Which memory an access goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Shared memory: priced by the bank model.
    Shared,
    /// Global memory: counted, not priced.
    Global,
    /// Local memory (PTX `.local`): each thread's own bytes, byte-addressed from 0 in its
    /// window of [`crate::Program::local_bytes`]. Never priced by the bank model, never seen
    /// by the race checker (private); the timing model prices it as global memory through
    /// L1 at the hardware's interleaved addresses.
    Local,
    /// Constant memory (PTX `.const`, CUDA `__constant__`): read-only, byte-addressed like
    /// global memory (a pointer into the [`crate::BufferInfo`] of the symbol, whose
    /// `constant` holds its contents). Priced by the timing model as the H200's `LDC`: one
    /// request per distinct address of the warp (`calibration/probes/cuda_coverage`, C-3).
    Const,
}

impl Space {
    /// `shared`, `global`, `local` or `const` (PTX's names).
    pub fn name(self) -> &'static str {
        match self {
            Space::Shared => "shared",
            Space::Global => "global",
            Space::Local => "local",
            Space::Const => "const",
        }
    }
}

/// One load or store of one element or one vector of 2 or 4 elements per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mem {
    /// Shared array, global buffer or local memory.
    pub space: Space,
    /// Index into [`crate::Program::shared`], [`crate::Program::buffers`] or
    /// [`crate::Program::local`].
    pub array: u16,
    /// Number of index registers used (the array's rank; 1 for buffers). 0: a
    /// byte-addressed access (the PTX front end): `idx[0]` holds the byte address (a shared
    /// memory offset; for global memory the low word of a 64-bit pointer, whose high word is
    /// in the next register: see [`Mem::GLOBAL_BASE_SHIFT`]; for local memory the offset in
    /// the thread's window) and `idx[1]` a register holding a
    /// constant byte offset added to it; `array` names the shared array or buffer for
    /// reports only.
    pub rank: u8,
    /// Logical index per dimension, outermost first (unused entries are `Reg(0)`).
    pub idx: [Reg; 3],
    /// Elements per lane: 1, 2 or 4 (consecutive in the last dimension).
    pub vec: u8,
    /// First data register: the loaded values go to, or the stored values come from,
    /// `data`, `data + 1`, … (`words()` registers in all).
    pub data: Reg,
    /// The element moved when it is not the array's: a byte-addressed global or constant
    /// access of another width than its buffer's elements (`ld.global.u16` of a `u32`
    /// buffer, as NVVM emits for `x & 0xffff`). `None`: the array's element
    /// ([`crate::Program::access_elem`]).
    pub elem: Option<Elem>,
}

impl Mem {
    /// A byte-addressed global pointer into buffer `k` is `((k + 1) << GLOBAL_BASE_SHIFT) +
    /// byte offset` (buffers are at most 4 GiB together).
    pub const GLOBAL_BASE_SHIFT: u32 = 40;

    /// A generic pointer to byte `o` of a thread's local memory is `LOCAL_GENERIC + o` (PTX
    /// `cvta.local`): a tag in the top 16 bits, above every global pointer (`(k + 1) << 40`
    /// with fewer than 2^16 buffers), and the local offset in the low word, so that the low
    /// word of a generic local pointer is its `.local` address.
    pub const LOCAL_GENERIC: u64 = 0xffff << 48;

    /// Whether the access is byte-addressed (`rank` 0, from the PTX front end).
    pub fn byte_addressed(&self) -> bool {
        self.rank == 0
    }

    /// 32-bit registers per lane (a narrow element takes one register, widened).
    pub fn words(&self, elem: Elem) -> u32 {
        self.vec as u32 * elem.regs()
    }
}

/// A special per-thread value, filled into a register when a warp starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Special {
    /// `tid.x`, `tid.y`, `tid.z`: the thread's index in its block.
    Tid(u8),
    /// `tid`: the linear thread index, `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`.
    TidLinear,
    /// `ctaid.x`, …: the block's index in the grid.
    Ctaid(u8),
    /// `ntid.x`, …: block dimensions.
    Ntid(u8),
    /// `nctaid.x`, …: grid dimensions.
    Nctaid(u8),
    /// `laneid`: the lane in the warp (0..32).
    LaneId,
    /// `warpid`: the warp in the block (linear thread index / 32).
    WarpId,
    /// `lanemask_eq`, `_le`, `_lt`, `_ge`, `_gt`: the lanes whose id compares so with this
    /// lane's, as a 32-bit mask.
    LaneMask(LaneMask),
}

/// Which lanes a [`Special::LaneMask`] holds, compared with the lane's own id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum LaneMask {
    Eq,
    Le,
    Lt,
    Ge,
    Gt,
}

impl LaneMask {
    /// Every kind, in the order of their names' suffixes `eq le lt ge gt`.
    pub const ALL: [LaneMask; 5] = [Self::Eq, Self::Le, Self::Lt, Self::Ge, Self::Gt];

    /// The suffix of its name (`lt` of `lanemask_lt`).
    pub fn suffix(self) -> &'static str {
        ["eq", "le", "lt", "ge", "gt"][self as usize]
    }

    /// The mask of lane `lane` (0..32).
    pub fn of(self, lane: u32) -> u32 {
        let below = (1u32 << lane) - 1;
        let bit = 1u32 << lane;
        match self {
            Self::Eq => bit,
            Self::Le => below | bit,
            Self::Lt => below,
            Self::Ge => !below,
            Self::Gt => !(below | bit),
        }
    }
}

/// One instruction. Three-address: `dst = a op b`; every operand is a register.
///
/// Integer instructions work on 32-bit two's complement values; `S`/`U` say whether
/// division, remainder, shifts, comparisons and min/max treat them as signed or unsigned.
/// Shifts by 32 or more give 0 (or all sign bits for `ShrS`).
///
/// Fields follow one convention, so they are not documented one by one: `dst` is the
/// destination register (the first of two for a 64-bit value), `a`, `b`, `c` the source
/// registers in the order the variant's line writes them, `*_pc` the index of an
/// instruction to jump to.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Inst {
    /// `dst = a`
    Mov { dst: Reg, a: Reg },
    /// `dst:dst+1 = a:a+1` (64-bit move)
    Mov64 { dst: Reg, a: Reg },
    /// `dst = c != 0 ? a : b`
    Select { dst: Reg, c: Reg, a: Reg, b: Reg },
    /// `dst:dst+1 = c != 0 ? a:a+1 : b:b+1`
    Select64 { dst: Reg, c: Reg, a: Reg, b: Reg },

    /// Wrapping `a + b`.
    Add { dst: Reg, a: Reg, b: Reg },
    /// Wrapping `a - b`.
    Sub { dst: Reg, a: Reg, b: Reg },
    /// Wrapping `a * b` (low 32 bits).
    Mul { dst: Reg, a: Reg, b: Reg },
    /// `dst = a * b + c` (wrapping): an integer `x * y + z` is lowered to this one
    /// instruction, as GPUs do it with one `IMAD`.
    Mad { dst: Reg, a: Reg, b: Reg, c: Reg },
    /// Signed division, rounding toward zero; faults on zero.
    DivS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned division; faults on zero.
    DivU { dst: Reg, a: Reg, b: Reg },
    /// Signed remainder (sign of `a`); faults on zero.
    RemS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned remainder; faults on zero.
    RemU { dst: Reg, a: Reg, b: Reg },
    /// `dst = a / 2^k`, signed, rounding toward zero (`k` in 1..=30): division of an `i32`
    /// by a constant power of two, without a per-lane hardware division (the GPU's compiler
    /// emits a few shifts for it). Unsigned ones become `ShrU`.
    DivS2 { dst: Reg, a: Reg, k: u8 },
    /// `dst = a % 2^k`, signed: the remainder has the sign of `a` (`k` in 1..=30). Unsigned
    /// ones become `And`.
    RemS2 { dst: Reg, a: Reg, k: u8 },
    /// `a & b`
    And { dst: Reg, a: Reg, b: Reg },
    /// `a | b`
    Or { dst: Reg, a: Reg, b: Reg },
    /// `a ^ b`
    Xor { dst: Reg, a: Reg, b: Reg },
    /// `a << b` (0 when `b >= 32`).
    Shl { dst: Reg, a: Reg, b: Reg },
    /// Arithmetic `a >> b`.
    ShrS { dst: Reg, a: Reg, b: Reg },
    /// Logical `a >> b`.
    ShrU { dst: Reg, a: Reg, b: Reg },
    /// Signed minimum.
    MinS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned minimum.
    MinU { dst: Reg, a: Reg, b: Reg },
    /// Signed maximum.
    MaxS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned maximum.
    MaxU { dst: Reg, a: Reg, b: Reg },
    /// `a == b` (1 or 0); also for f32 bit patterns it is *not* used: see `FEq`.
    Eq { dst: Reg, a: Reg, b: Reg },
    /// `a != b`
    Ne { dst: Reg, a: Reg, b: Reg },
    /// Signed `a < b`.
    LtS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned `a < b`.
    LtU { dst: Reg, a: Reg, b: Reg },
    /// Signed `a <= b`.
    LeS { dst: Reg, a: Reg, b: Reg },
    /// Unsigned `a <= b`.
    LeU { dst: Reg, a: Reg, b: Reg },
    /// Wrapping `-a`.
    Neg { dst: Reg, a: Reg },
    /// `!a`
    Not { dst: Reg, a: Reg },
    /// Signed `|a|` (wrapping).
    AbsS { dst: Reg, a: Reg },

    /// f32 `a + b`
    FAdd { dst: Reg, a: Reg, b: Reg },
    /// f32 `a - b`
    FSub { dst: Reg, a: Reg, b: Reg },
    /// f32 `a * b`
    FMul { dst: Reg, a: Reg, b: Reg },
    /// f32 `a / b`
    FDiv { dst: Reg, a: Reg, b: Reg },
    /// f32 remainder (`fmodf`).
    FRem { dst: Reg, a: Reg, b: Reg },
    /// f32 minimum.
    FMin { dst: Reg, a: Reg, b: Reg },
    /// f32 maximum.
    FMax { dst: Reg, a: Reg, b: Reg },
    /// f32 `a == b`
    FEq { dst: Reg, a: Reg, b: Reg },
    /// f32 `a != b`
    FNe { dst: Reg, a: Reg, b: Reg },
    /// f32 `a < b`
    FLt { dst: Reg, a: Reg, b: Reg },
    /// f32 `a <= b`
    FLe { dst: Reg, a: Reg, b: Reg },
    /// f32 `-a`
    FNeg { dst: Reg, a: Reg },
    /// f32 `|a|`
    FAbs { dst: Reg, a: Reg },
    /// f32 square root.
    FSqrt { dst: Reg, a: Reg },
    /// f32 fused `a * b + c`.
    FFma { dst: Reg, a: Reg, b: Reg, c: Reg },

    /// f64 `a + b`
    DAdd { dst: Reg, a: Reg, b: Reg },
    /// f64 `a - b`
    DSub { dst: Reg, a: Reg, b: Reg },
    /// f64 `a * b`
    DMul { dst: Reg, a: Reg, b: Reg },
    /// f64 `a / b`
    DDiv { dst: Reg, a: Reg, b: Reg },
    /// f64 remainder.
    DRem { dst: Reg, a: Reg, b: Reg },
    /// f64 minimum.
    DMin { dst: Reg, a: Reg, b: Reg },
    /// f64 maximum.
    DMax { dst: Reg, a: Reg, b: Reg },
    /// f64 `a == b` (32-bit boolean result)
    DEq { dst: Reg, a: Reg, b: Reg },
    /// f64 `a != b`
    DNe { dst: Reg, a: Reg, b: Reg },
    /// f64 `a < b`
    DLt { dst: Reg, a: Reg, b: Reg },
    /// f64 `a <= b`
    DLe { dst: Reg, a: Reg, b: Reg },
    /// f64 `-a`
    DNeg { dst: Reg, a: Reg },
    /// f64 `|a|`
    DAbs { dst: Reg, a: Reg },
    /// f64 square root.
    DSqrt { dst: Reg, a: Reg },
    /// f64 fused `a * b + c`.
    DFma { dst: Reg, a: Reg, b: Reg, c: Reg },

    /// Converts between element types with C semantics (float → int truncates and
    /// saturates; NaN → 0).
    Cvt {
        dst: Reg,
        a: Reg,
        from: Elem,
        to: Elem,
    },

    /// f32 `e^a` (`__expf`; warpsim computes it exactly rounded, the GPU's approximation
    /// differs in the last bits).
    FExp { dst: Reg, a: Reg },
    /// f64 `e^a`.
    DExp { dst: Reg, a: Reg },
    /// The number of set bits of a 32-bit integer (`__popc`).
    Popc { dst: Reg, a: Reg },
    /// Half-precision arithmetic (`f16` or `bf16`, CUDA's native half instructions): `dst =
    /// a op b` (`c` for `fma`'s addend; unused operands repeat `a`), rounded once to the
    /// format; comparisons give 1 or 0. See [`crate::fp16`].
    Half {
        op: crate::fp16::HalfOp,
        fmt: crate::fp16::Half,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },

    /// A 32-bit operation of PTX that the RON IR has no statement for (`clz`, `brev`,
    /// `bfind`, `bfe`, `prmt`, `copysign`, `sin`/`cos`/`lg2`/`tanh.approx`): `dst = op(a, b, c)`
    /// (unused operands repeat `a`). See [`PtxOp`](crate::PtxOp).
    Ptx {
        op: crate::bits::PtxOp,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
    },

    /// A bit or integer operation of PTX with up to four operands, 32- or 64-bit (`bfi`,
    /// `bfe.u64`, `prmt.b32.f4e`, `mad.hi`, `clz.b64`, `testp`, `shf`, `dp4a` …): `dst =
    /// op(a, b, c, d)`, each spanning [`BitOp::widths`](crate::BitOp::widths) registers
    /// (unused operands repeat `a`). See [`BitOp`](crate::BitOp).
    Bits {
        op: crate::bitops::BitOp,
        dst: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
        d: Reg,
    },

    /// A load: `data.. = array[idx..]`.
    Load(Mem),
    /// A store: `array[idx..] = data..`.
    Store(Mem),
    /// An atomic read-modify-write of one 32-bit element per lane (`atom.OP`): lane by lane
    /// in lane order, `array[idx..] = op(old, data)` (`cas`: `old == data + 1 ? data : old`,
    /// the compare value in register `data + 1`), then `data = old`. See `exec/atomic.rs`.
    Atomic { m: Mem, op: warpsim_smem::AtomOp },

    /// Splits the warp: lanes where `c != 0` run the then-part, the others the else-part
    /// (starting at `else_pc`); pushes a frame. `end_pc` is the matching `EndIf`.
    If { c: Reg, else_pc: Pc, end_pc: Pc },
    /// End of the then-part: switches to the lanes waiting for the else-part, or jumps to
    /// `end_pc` if there are none.
    Else { end_pc: Pc },
    /// Reconverges: pops the frame and restores the mask from before the `If`.
    EndIf,
    /// Pushes a loop frame (saving the mask).
    LoopStart,
    /// Lanes where `c == 0` leave the loop; if none remain, jumps to `exit_pc` (a `LoopEnd`).
    LoopTest { c: Reg, exit_pc: Pc },
    /// Jumps back to `head_pc` (the first instruction of the condition).
    LoopBack { head_pc: Pc },
    /// The test of a `For` loop (a comparison and a `LoopTest` in one): lanes where `a < b`
    /// does not hold (signed or unsigned) leave the loop; if none remain, jumps to `exit_pc`.
    ForTest {
        a: Reg,
        b: Reg,
        signed: bool,
        exit_pc: Pc,
    },
    /// The end of a `For` loop's body (an `Add` and a `LoopBack` in one): `var += step`
    /// (wrapping) in the active lanes, then back to `head_pc`.
    ForNext { var: Reg, step: Reg, head_pc: Pc },
    /// Pops the loop frame and restores the mask from before the loop.
    LoopEnd,
    /// `__syncthreads()`.
    Barrier,
    /// PTX `%clock`, `%clock64`, `%globaltimer` (`clock()`, `clock64()`): the number of warp
    /// instructions the block has executed so far (timing on or off: a result never depends
    /// on the timing model), 32 bits or, `wide`, 64.
    Clock { dst: Reg, wide: bool },
    /// PTX `trap` or `brkpt` (CUDA's `__trap()`, `__brkpt()`): a fault at the instruction's
    /// source line in the first active lane, ending the run.
    Trap { brkpt: bool },
    /// PTX `call vprintf` (CUDA's `printf`): each active lane, in lane order, formats
    /// [`crate::Program::formats`]`[fmt]` with the arguments packed at byte `args` of its
    /// local memory (the low word of the pointer NVRTC makes from its `__local_depot`), and
    /// appends the text to the run's output; `dst` gets the number of arguments (what CUDA's
    /// `printf` returns).
    Printf { dst: Reg, args: Reg, fmt: u16 },
    /// A barrier that also reduces `a != 0` over the block's threads (PTX `bar.red`,
    /// `__syncthreads_count/and/or`): every live lane of every warp gets, in `dst`, how many
    /// threads had it (`Popc`), 1 if all had it (`And`), 1 if any had it (`Or`).
    BarrierRed { dst: Reg, a: Reg, op: BarRedOp },
    /// The end of the program: the warp is done.
    Exit,

    // ---- Warp-level operations (handlers in `exec/warpops.rs`) ----
    /// `dst = a` as lane `j` holds it, `j` chosen by `mode` from `b` (source lane, delta or
    /// lane mask) within segments of `width` lanes (1, 2, 4, 8, 16 or 32), as PTX's
    /// `shfl.sync` (CUDA's `__shfl_sync`, `__shfl_up_sync`, …): a lane whose `j` falls past its
    /// segment gets its own `a`. `mask` is the member mask; every active lane must pass the
    /// same one, be in it, and every live lane in it must be active (else a fault). One 32-bit
    /// word: a 64-bit value is two of them, as on the GPU.
    Shfl {
        dst: Reg,
        mask: Reg,
        a: Reg,
        b: Reg,
        mode: ShflMode,
        width: u8,
    },
    /// PTX's `shfl.sync.MODE.b32 d[|p], a, b, c, mask` with `b` and `c` per lane (registers):
    /// as [`Inst::Shfl`], with `c`'s clamp (bits 0..4) and segment mask (bits 8..12) as PTX
    /// defines them; `pred` writes the predicate `p` (the source lane was in range, 1 or 0)
    /// instead of the value.
    ShflC {
        dst: Reg,
        mask: Reg,
        a: Reg,
        b: Reg,
        c: Reg,
        mode: ShflMode,
        pred: bool,
    },
    /// PTX's `redux.sync.OP.TYPE d, a, mask` (CUDA's `__reduce_add_sync` …): `dst` = `op`
    /// over `a` of the active lanes of `mask` (checked as for `Shfl`), in every one of them.
    Redux {
        op: ReduxOp,
        dst: Reg,
        mask: Reg,
        a: Reg,
    },
    /// PTX's `match.{any,all}.sync.{b32,b64} d[|p], a, mask` (`__match_any_sync`,
    /// `__match_all_sync`): `any`: the lanes of the mask whose `a` equals this lane's; `all`:
    /// the mask if every member's `a` is equal, else 0 (`pred`: 1 or 0 instead). `wide`: `a`
    /// is a register pair.
    Match {
        all: bool,
        wide: bool,
        pred: bool,
        dst: Reg,
        mask: Reg,
        a: Reg,
    },
    /// A vote over the active lanes of `mask` (checked as for `Shfl`) of `a != 0`:
    /// `__ballot_sync` (the lanes' bits), `__any_sync`, `__all_sync` (1 or 0).
    Vote {
        dst: Reg,
        mask: Reg,
        a: Reg,
        mode: VoteMode,
    },
    /// `dst = ` the active mask (`__activemask()`).
    ActiveMask { dst: Reg },
    /// `__syncwarp(mask)`: checks the mask as `Shfl` does; lanes of a warp run in lockstep,
    /// so there is nothing else to wait for.
    SyncWarp { mask: Reg },
    /// `Break`: the active lanes leave the innermost loop and wait at its `LoopEnd`. The `n`
    /// instructions after it are [`Inst::Scope`]s, the frames it leaves, innermost first (the
    /// last is the loop's, or a function's frame for a `Return` inside a function).
    Break { n: u16 },
    /// `Continue`: the active lanes skip to the innermost loop's next trip; they wait at its
    /// `LoopJoin`. The `n` [`Inst::Scope`]s after it are the frames up to the loop's.
    Continue { n: u16 },
    /// `Return`: the active lanes leave the kernel for good (they no longer take part in
    /// barriers). The `n` [`Inst::Scope`]s after it are every frame open there.
    Return { n: u16 },
    /// Never executed: one frame that the `Break`, `Continue` or `Return` before it leaves.
    /// For an `If`, lanes waiting for its else-part resume at `resume_pc` and lanes waiting
    /// at its end at `end_pc` (its `EndIf`); for a loop, lanes that continued resume at
    /// `resume_pc` (its `LoopJoin`) and the others at `end_pc` (its `LoopEnd`).
    Scope {
        is_loop: bool,
        resume_pc: Pc,
        end_pc: Pc,
    },
    /// Before a loop's step or back-edge: the lanes that took a `Continue` in this trip join
    /// the active ones again.
    LoopJoin,
    // ---- PTX front end (crates/ptx): 64-bit integers and unstructured control flow. A
    // 64-bit integer lives in two registers like an f64 (`r` low word, `r + 1` high word).
    /// 64-bit wrapping `a + b`.
    Add64 { dst: Reg, a: Reg, b: Reg },
    /// 64-bit wrapping `a - b`.
    Sub64 { dst: Reg, a: Reg, b: Reg },
    /// 64-bit wrapping `a * b` (low 64 bits).
    Mul64 { dst: Reg, a: Reg, b: Reg },
    /// `dst:dst+1 = a * b`, 32 × 32 → 64 bits, signed or not (PTX `mul.wide`).
    MulWide {
        dst: Reg,
        a: Reg,
        b: Reg,
        signed: bool,
    },
    /// 64-bit `a << b` (`b` a 32-bit amount; 0 when `b >= 64`).
    Shl64 { dst: Reg, a: Reg, b: Reg },
    /// 64-bit `a >> b`, arithmetic when `signed` (`b` a 32-bit amount).
    Shr64 {
        dst: Reg,
        a: Reg,
        b: Reg,
        signed: bool,
    },
    /// `dst:dst+1 = a`, sign- or zero-extended to 64 bits (PTX `cvt.s64.s32`, `cvt.u64.u32`).
    Ext64 { dst: Reg, a: Reg, signed: bool },
    /// `dst:dst+1 = a op b` on 64-bit integers (PTX `and.b64`, `min.s64`, `div.u64`,
    /// `mul.hi.s64`, …): see [`Op64`]. Division and remainder fault on a zero divisor, as the
    /// 32-bit ones do.
    Int64 { op: Op64, dst: Reg, a: Reg, b: Reg },
    /// `dst = a cmp b` on 64-bit integers (1 or 0 in one register; PTX `setp.lt.s64`).
    Cmp64 {
        cmp: Cmp64,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    /// A conversion between a 64-bit integer (`signed` or not) and an `f32`/`f64` (`float`):
    /// to the integer when `to_int` (truncation toward zero, saturated, NaN → 0; PTX's other
    /// roundings are done by the front end first), else to the float, rounded to nearest even.
    Cvt64 {
        dst: Reg,
        a: Reg,
        float: Elem,
        signed: bool,
        to_int: bool,
    },
    /// An unstructured branch (PTX `@%p bra`): active lanes where `c != 0` (where `c == 0` if
    /// `neg`) go to `target`, the others to the next instruction. When both sides have lanes
    /// the warp splits; the sides meet again at `join`, the branch's immediate
    /// post-dominator (a [`Inst::Join`]), computed when the program is loaded.
    Branch {
        c: Reg,
        neg: bool,
        target: Pc,
        join: Pc,
    },
    /// An unconditional jump of the active lanes (PTX `bra`).
    Jump { target: Pc },
    /// A reconvergence point of `Branch`es: lanes that split at a branch whose `join` is
    /// here wait until every side has arrived (or finished), then go on together.
    Join,
    /// PTX `ret`/`exit`: the active lanes finish; the warp goes on with the lanes that wait
    /// at a reconvergence point, and is done when none is left.
    Ret,
    // ---- Warp-wide matrix and asynchronous copies (issue 41; `exec/tensor_exec.rs`).
    /// `ldmatrix` / `stmatrix`: see [`MatrixOp`].
    Matrix(MatrixOp),
    /// `cp.async`: see [`CopyOp`]. The copy is done when issued; the race checker treats its
    /// bytes as not yet written until the `AsyncWait` that completes its group.
    CpAsync(CopyOp),
    /// `cp.async.commit_group`: the warp's copies since the last commit become one group.
    AsyncCommit,
    /// `cp.async.wait_group n` (all but the `n` most recent groups are complete), or, `all`,
    /// `cp.async.wait_all` (a commit, then `wait_group 0`).
    AsyncWait { n: u8, all: bool },
    /// `mma.sync.aligned`: [`crate::Program::mmas`]`[op]` (its operands are too many to keep
    /// in the instruction).
    Mma { op: u16 },
    /// `wgmma.mma_async`: [`crate::Program::wgmmas`]`[op]`, this warp's quarter of the
    /// warpgroup's `D = A x B (+ D)`, done when issued (`wgmma.fence`, `commit_group` and
    /// `wait_group` lower to nothing).
    Wgmma { op: u16 },
    /// `fence.proxy.async[.shared::cta]`: the warp's earlier shared stores become visible to
    /// the async proxy (`wgmma`, TMA); only the race checker sees it.
    FenceProxyAsync,
    /// An `mbarrier` operation: see [`MbarOp`] (`exec/mbarrier.rs`). A wait whose phase is
    /// not complete suspends the warp (it runs the wait again when another warp has changed
    /// a barrier).
    Mbar(MbarOp),
    /// `cp.async.bulk`: see [`BulkOp`] (`exec/bulk.rs`). The copy is done when issued.
    Bulk(BulkOp),
    /// `cp.async.bulk.tensor`: see [`TensorOp`] (`exec/bulk.rs`). Done when issued.
    BulkTensor(TensorOp),
    /// The byte address of the element access `m` names (a logical index, `rank` ≥ 1), into
    /// `m.data`: for a shared array its offset through its padding and swizzle (a RON
    /// `LoadMatrix` row address for [`Inst::Matrix`]); for a buffer a 64-bit global pointer
    /// (two registers: a RON `CopyAsync` source). `m.vec` elements from there must be
    /// contiguous and inside (an `ldmatrix` row: 16 bytes); it faults as that access would.
    AddrOf(Mem),
    /// A WMMA fragment's per-lane address: `dst = base + at.offset(lane, stride)` (64-bit
    /// registers when `wide`; `stride` in elements, unsigned).
    FragAddr {
        dst: Reg,
        base: Reg,
        stride: Reg,
        at: FragAt,
        wide: bool,
    },
}

/// The registers of a computing instruction (not a memory access or control flow): its
/// destination and its sources, each with the number of 32-bit registers it spans (2 for an
/// f64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operands {
    /// Where the result goes.
    pub dst: (Reg, u8),
    srcs: [(Reg, u8); 4],
    len: u8,
}

impl Operands {
    fn new(dst: (Reg, u8), srcs: &[(Reg, u8)]) -> Self {
        let mut all = [(Reg(0), 0); 4];
        all[..srcs.len()].copy_from_slice(srcs);
        Operands {
            dst,
            srcs: all,
            len: srcs.len() as u8,
        }
    }

    /// The operands read, in the instruction's order.
    pub fn srcs(&self) -> &[(Reg, u8)] {
        &self.srcs[..self.len as usize]
    }
}

impl Inst {
    /// Calls `f` on the destination, then on each source, of an instruction that computes a
    /// value, with the number of 32-bit registers each spans (2 for an f64); returns `false`,
    /// calling nothing, for memory accesses and control flow. The one list of operand shapes:
    /// [`Inst::operands`] (the executor's checks, listings) and [`Inst::retarget`] (the
    /// loader) are built on it.
    fn visit_operands(&mut self, mut f: impl FnMut(&mut Reg, u8)) -> bool {
        use Inst::*;
        let words = |e: Elem| e.regs() as u8;
        match self {
            Mov { dst, a }
            | Neg { dst, a }
            | Not { dst, a }
            | AbsS { dst, a }
            | FNeg { dst, a }
            | FAbs { dst, a }
            | FSqrt { dst, a }
            | FExp { dst, a }
            | Popc { dst, a }
            | DivS2 { dst, a, .. }
            | RemS2 { dst, a, .. } => {
                f(dst, 1);
                f(a, 1);
            }
            Mov64 { dst, a }
            | DNeg { dst, a }
            | DAbs { dst, a }
            | DSqrt { dst, a }
            | DExp { dst, a } => {
                f(dst, 2);
                f(a, 2);
            }
            Add { dst, a, b }
            | Sub { dst, a, b }
            | Mul { dst, a, b }
            | DivS { dst, a, b }
            | DivU { dst, a, b }
            | RemS { dst, a, b }
            | RemU { dst, a, b }
            | And { dst, a, b }
            | Or { dst, a, b }
            | Xor { dst, a, b }
            | Shl { dst, a, b }
            | ShrS { dst, a, b }
            | ShrU { dst, a, b }
            | MinS { dst, a, b }
            | MinU { dst, a, b }
            | MaxS { dst, a, b }
            | MaxU { dst, a, b }
            | Eq { dst, a, b }
            | Ne { dst, a, b }
            | LtS { dst, a, b }
            | LtU { dst, a, b }
            | LeS { dst, a, b }
            | LeU { dst, a, b }
            | FAdd { dst, a, b }
            | FSub { dst, a, b }
            | FMul { dst, a, b }
            | FDiv { dst, a, b }
            | FRem { dst, a, b }
            | FMin { dst, a, b }
            | FMax { dst, a, b }
            | FEq { dst, a, b }
            | FNe { dst, a, b }
            | FLt { dst, a, b }
            | FLe { dst, a, b } => {
                f(dst, 1);
                f(a, 1);
                f(b, 1);
            }
            DAdd { dst, a, b }
            | DSub { dst, a, b }
            | DMul { dst, a, b }
            | DDiv { dst, a, b }
            | DRem { dst, a, b }
            | DMin { dst, a, b }
            | DMax { dst, a, b } => {
                f(dst, 2);
                f(a, 2);
                f(b, 2);
            }
            DEq { dst, a, b } | DNe { dst, a, b } | DLt { dst, a, b } | DLe { dst, a, b } => {
                f(dst, 1);
                f(a, 2);
                f(b, 2);
            }
            Select { dst, c, a, b } => {
                f(dst, 1);
                f(c, 1);
                f(a, 1);
                f(b, 1);
            }
            Select64 { dst, c, a, b } => {
                f(dst, 2);
                f(c, 1);
                f(a, 2);
                f(b, 2);
            }
            Mad { dst, a, b, c } | FFma { dst, a, b, c } => {
                f(dst, 1);
                f(a, 1);
                f(b, 1);
                f(c, 1);
            }
            DFma { dst, a, b, c } => {
                f(dst, 2);
                f(a, 2);
                f(b, 2);
                f(c, 2);
            }
            Cvt { dst, a, from, to } => {
                f(dst, words(*to));
                f(a, words(*from));
            }
            Half { dst, a, b, c, .. } | Ptx { dst, a, b, c, .. } => {
                f(dst, 1);
                f(a, 1);
                f(b, 1);
                f(c, 1);
            }
            Bits {
                op,
                dst,
                a,
                b,
                c,
                d,
            } => {
                let (w, ws) = op.widths();
                f(dst, w);
                for (r, w) in [a, b, c, d].into_iter().zip(ws) {
                    if w > 0 {
                        f(r, w);
                    }
                }
            }
            Shfl {
                dst, mask, a, b, ..
            } => {
                f(dst, 1);
                f(mask, 1);
                f(a, 1);
                f(b, 1);
            }
            ShflC {
                dst, mask, a, b, c, ..
            } => {
                f(dst, 1);
                f(mask, 1);
                f(a, 1);
                f(b, 1);
                f(c, 1);
            }
            Redux { dst, mask, a, .. } => {
                f(dst, 1);
                f(mask, 1);
                f(a, 1);
            }
            Match {
                dst, mask, a, wide, ..
            } => {
                f(dst, 1);
                f(mask, 1);
                f(a, 1 + *wide as u8);
            }
            Vote { dst, mask, a, .. } => {
                f(dst, 1);
                f(mask, 1);
                f(a, 1);
            }
            ActiveMask { dst } => f(dst, 1),
            Clock { dst, wide } => f(dst, 1 + *wide as u8),
            Printf { dst, args, .. } => {
                f(dst, 1);
                f(args, 2);
            }
            BarrierRed { dst, a, .. } => {
                f(dst, 1);
                f(a, 1);
            }
            Add64 { dst, a, b } | Sub64 { dst, a, b } | Mul64 { dst, a, b } => {
                f(dst, 2);
                f(a, 2);
                f(b, 2);
            }
            MulWide { dst, a, b, .. } => {
                f(dst, 2);
                f(a, 1);
                f(b, 1);
            }
            Shl64 { dst, a, b } | Shr64 { dst, a, b, .. } => {
                f(dst, 2);
                f(a, 2);
                f(b, 1);
            }
            Ext64 { dst, a, .. } => {
                f(dst, 2);
                f(a, 1);
            }
            Int64 { dst, a, b, .. } => {
                f(dst, 2);
                f(a, 2);
                f(b, 2);
            }
            FragAddr {
                dst,
                base,
                stride,
                wide,
                ..
            } => {
                f(dst, 1 + *wide as u8);
                f(base, 1 + *wide as u8);
                f(stride, 1);
            }
            Cmp64 { dst, a, b, .. } => {
                f(dst, 1);
                f(a, 2);
                f(b, 2);
            }
            Cvt64 {
                dst,
                a,
                float,
                to_int,
                ..
            } => {
                let fw = words(*float);
                f(dst, if *to_int { 2 } else { fw });
                f(a, if *to_int { fw } else { 2 });
            }
            SyncWarp { .. }
            | Load(_)
            | Store(_)
            | Atomic { .. }
            | If { .. }
            | Else { .. }
            | EndIf
            | LoopStart
            | LoopTest { .. }
            | LoopBack { .. }
            | ForTest { .. }
            | ForNext { .. }
            | LoopEnd
            | Barrier
            | Trap { .. }
            | Exit
            | Break { .. }
            | Continue { .. }
            | Return { .. }
            | Scope { .. }
            | LoopJoin => return false,
            Branch { .. } | Jump { .. } | Join | Ret => return false,
            Matrix(_)
            | CpAsync(_)
            | AsyncCommit
            | AsyncWait { .. }
            | Mma { .. }
            | Wgmma { .. }
            | FenceProxyAsync
            | Mbar(_)
            | Bulk(_)
            | BulkTensor(_)
            | AddrOf(_) => return false,
        }
        true
    }

    /// The registers it writes and reads, for every instruction that computes a value (`None`
    /// for memory accesses and control flow), as `Inst::visit_operands` lists them.
    pub fn operands(&self) -> Option<Operands> {
        let mut regs = [(Reg(0), 0); 5];
        let mut n = 0;
        let mut copy = *self;
        let computes = copy.visit_operands(|r, w| {
            regs[n] = (*r, w);
            n += 1;
        });
        computes.then(|| Operands::new(regs[0], &regs[1..n]))
    }

    /// Makes the instruction write `to` instead of `from`, if it computes a value into `from`
    /// or is a one-register load into it; returns whether it did.
    pub fn retarget(&mut self, from: Reg, to: Reg) -> bool {
        if let Inst::Load(m) = self {
            if m.data == from && m.vec == 1 {
                m.data = to;
                return true;
            }
            return false;
        }
        let mut is_dst = true;
        let mut done = false;
        self.visit_operands(|r, _| {
            if is_dst && *r == from {
                *r = to;
                done = true;
            }
            is_dst = false;
        });
        done
    }

    /// Whether it ends straight-line code: a branch, a loop's bookkeeping, a jump out of a
    /// loop or the kernel, a reconvergence point or a barrier.
    pub fn breaks_straight_line(&self) -> bool {
        use Inst::*;
        matches!(
            self,
            Barrier
                | BarrierRed { .. }
                | If { .. }
                | Else { .. }
                | EndIf
                | LoopStart
                | LoopTest { .. }
                | LoopBack { .. }
                | ForTest { .. }
                | ForNext { .. }
                | LoopEnd
                | Break { .. }
                | Continue { .. }
                | Return { .. }
                | Branch { .. }
                | Jump { .. }
                | Join
                | Ret
        )
    }

    /// Whether this is an atomic: its operand and operation.
    pub fn atomic(&self) -> Option<(Mem, warpsim_smem::AtomOp)> {
        match *self {
            Inst::Atomic { m, op } => Some((m, op)),
            _ => None,
        }
    }

    /// Whether this is a memory access.
    pub fn mem(&self) -> Option<(Mem, bool)> {
        match *self {
            Inst::Load(m) => Some((m, false)),
            Inst::Store(m) => Some((m, true)),
            _ => None,
        }
    }
}

impl Special {
    /// The name a program uses for it (`tid.x`, `ctaid.y`, `laneid`, …).
    pub fn name(&self) -> String {
        let axis = |d: u8| ["x", "y", "z"].get(d as usize).copied().unwrap_or("?");
        match *self {
            Special::Tid(d) => format!("tid.{}", axis(d)),
            Special::TidLinear => "tid".into(),
            Special::Ctaid(d) => format!("ctaid.{}", axis(d)),
            Special::Ntid(d) => format!("ntid.{}", axis(d)),
            Special::Nctaid(d) => format!("nctaid.{}", axis(d)),
            Special::LaneId => "laneid".into(),
            Special::WarpId => "warpid".into(),
            Special::LaneMask(m) => format!("lanemask_{}", m.suffix()),
        }
    }
}
