//! [`Fault`], and the cold code that words each kind of fault: what went wrong, at which
//! instruction, in which block and thread, and what to change.

use super::block::{Ctx, State, Warp};
use super::{Lanes, LOADER_BUG};
use std::fmt;
use warpsim_kernel::diag::{Diag, Phase};
use warpsim_kernel::ir::Mem;
use warpsim_kernel::Elem;
use warpsim_kernel::Program;
use warpsim_smem::Geometry;

/// A runtime fault: what went wrong, at which instruction, in which block and thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The instruction (None for faults about the run as a whole, such as a bad geometry).
    pub pc: Option<usize>,
    /// The block (`ctaid`).
    pub block: [u32; 3],
    /// The thread (`tid`), when one thread is to blame.
    pub thread: Option<[u32; 3]>,
    /// What went wrong (its `Display` is the message, without the block and thread; see
    /// [`Fault::text`]).
    pub kind: FaultKind,
    /// What to change.
    pub help: Option<String>,
}

impl Fault {
    pub(super) fn new(
        pc: Option<usize>,
        block: [u32; 3],
        kind: FaultKind,
        help: Option<String>,
    ) -> Self {
        Fault {
            pc,
            block,
            thread: None,
            kind,
            help,
        }
    }

    /// The message with the thread and block that faulted.
    pub fn text(&self) -> String {
        match self.thread {
            Some(t) => format!(
                "{} (thread {} of block {})",
                self.kind,
                xyz(t),
                xyz(self.block)
            ),
            None => format!("{} (block {})", self.kind, xyz(self.block)),
        }
    }

    /// A [`Phase::Runtime`] diagnostic at the faulting instruction's source line.
    pub fn into_diag(self, prog: &Program) -> Diag {
        let text = self.text();
        match self.pc.and_then(|pc| prog.info.get(pc)) {
            Some(info) => {
                let mut d = Diag::at_line(
                    Phase::Runtime,
                    &prog.path,
                    &prog.source,
                    info.line,
                    info.col,
                    text,
                    self.help,
                );
                d.label = "faulted here".into();
                d
            }
            None => Diag::file(Phase::Runtime, &prog.path, text, self.help),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl std::error::Error for Fault {}

/// What went wrong in a [`Fault`]; its `Display` is the message.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FaultKind {
    /// The [`Config::geometry`](super::Config::geometry) is not a valid bank geometry.
    InvalidGeometry {
        /// The geometry.
        geometry: Geometry,
        /// Why it is invalid.
        reason: String,
    },
    /// A block has more threads than the executor can number.
    BlockTooLarge {
        /// Threads in the block.
        threads: u64,
    },
    /// The [`Global`](super::Global) memory was not made for this program: a buffer is
    /// smaller than the program's.
    GlobalMismatch {
        /// The buffer's name.
        buffer: String,
        /// Words the program needs (None: more than a `u64` counts).
        need: Option<u64>,
        /// Words the memory has.
        have: u64,
    },
    /// The program is malformed: a bug in warpsim's loader, not in the program's text.
    Malformed(String),
    /// The kernel executed PTX `trap` or `brkpt` (`__trap()`, `__brkpt()`).
    Trap {
        /// `brkpt` (else `trap`).
        brkpt: bool,
    },
    /// An active lane divided by zero.
    DivisionByZero {
        /// A remainder (else a division).
        remainder: bool,
        /// The instruction's source text (may be empty).
        text: String,
    },
    /// An index outside its array.
    OutOfBounds {
        /// In global memory (else shared).
        global: bool,
        /// The access, as `name[i][j]`, with the vector it reads and how far it reaches.
        access: String,
        /// The array's bounds, as `name[n][m]`.
        bounds: String,
    },
    /// A local access (PTX `.local`) outside the thread's local memory.
    LocalOutOfBounds {
        /// The access, as `a 4-byte access at local byte 64`.
        access: String,
        /// The thread's local memory, as `the thread's 64 bytes of local memory`.
        bounds: String,
    },
    /// An access whose address is not a multiple of its width.
    Misaligned {
        /// Bytes per lane.
        width: u32,
        /// The access, as `name[i]`.
        access: String,
        /// Its byte offset in `memory`.
        byte: u64,
        /// `shared memory` or the buffer's name in backquotes.
        memory: String,
    },
    /// A vector access whose elements a swizzle separates.
    SwizzleSplit {
        /// The access, as `name[i][j]` and its vector.
        access: String,
        /// The swizzle group, in elements.
        group: u32,
    },
    /// A barrier reached by only some of a warp's lanes.
    DivergentBarrier {
        /// The warp, as `warp 1 (threads 32-63)`.
        warp: String,
        /// Lanes that reached it.
        reached: u32,
        /// Lanes that did not.
        missed: u32,
    },
    /// Warps wait at a barrier that others finished without reaching.
    DeadlockedBarrier {
        /// The warps that finished, as `warp 1 (threads 32-63)` or a list.
        finished: String,
        /// The warps that wait, likewise.
        waiting: String,
        /// How many wait.
        waiting_warps: usize,
    },
    /// The block ran more warp instructions than [`Config::max_steps`](super::Config::max_steps).
    RunawayLoop {
        /// The limit.
        max_steps: u64,
        /// What may never end: `this loop` or `a loop around this barrier`.
        what: &'static str,
    },
    /// The bank model could not price a shared access.
    Unpriceable(String),
    /// An `mbarrier` used as PTX does not define (before its init, more arrivals than its
    /// phase expects, …), or a wait no arrival can complete.
    Mbarrier(String),
    /// A warp-level operation (`shfl_sync`, a vote, `SyncWarp`) whose member mask does not
    /// match the lanes that execute it (undefined behaviour in CUDA).
    WarpMask {
        /// The operation (`shfl_down_sync`, `ballot_sync`, `SyncWarp`, …).
        op: &'static str,
        /// The mask the lowest active lane passes.
        mask: u32,
        /// The lane at fault.
        lane: u32,
        /// What is wrong.
        why: MaskError,
    },
}

/// What is wrong with a warp-level operation's member mask ([`FaultKind::WarpMask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaskError {
    /// The lane passes another mask (`other`) than the lowest active lane (`first`).
    Differs {
        /// The lowest active lane.
        first: u32,
        /// The mask the faulting lane passes.
        other: u32,
    },
    /// The lane executes the operation but is not in the mask.
    NotInMask,
    /// The lane is in the mask but did not reach the operation; `reached` did.
    NotReached {
        /// The lanes that reached it.
        reached: u32,
    },
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use FaultKind::*;
        match self {
            InvalidGeometry { geometry, reason } => {
                write!(f, "invalid shared-memory geometry ({geometry}): {reason}")
            }
            BlockTooLarge { threads } => {
                write!(f, "a block of {threads} threads is too large to run")
            }
            GlobalMismatch { buffer, need, have } => write!(
                f,
                "global memory does not match the program: buffer `{buffer}` needs {} words, \
                 but has {have}",
                need.map_or_else(|| "too many".to_string(), |n| n.to_string())
            ),
            Malformed(m) | Unpriceable(m) | Mbarrier(m) => f.write_str(m),
            Trap { brkpt } => write!(
                f,
                "the kernel executed `{}`",
                if *brkpt { "brkpt" } else { "trap" }
            ),
            DivisionByZero { remainder, text } => {
                let op = if *remainder { "remainder" } else { "division" };
                if text.is_empty() {
                    write!(f, "integer {op} by zero")
                } else {
                    write!(f, "integer {op} by zero in `{text}`")
                }
            }
            OutOfBounds {
                global,
                access,
                bounds,
            } => {
                let space = if *global { "global" } else { "shared" };
                write!(
                    f,
                    "out-of-bounds {space} access: {access} is outside {bounds}"
                )
            }
            LocalOutOfBounds { access, bounds } => {
                write!(
                    f,
                    "out-of-bounds local access: {access} is outside {bounds}"
                )
            }
            Misaligned {
                width,
                access,
                byte,
                memory,
            } => write!(
                f,
                "misaligned {width}-byte access: {access} is at byte {byte} of {memory}, not a \
                 multiple of {width}"
            ),
            SwizzleSplit { access, group } => write!(
                f,
                "the vector access {access} crosses a swizzle group of {group} elements, so its \
                 elements are not consecutive in shared memory"
            ),
            DivergentBarrier {
                warp,
                reached,
                missed,
            } => write!(
                f,
                "barrier inside divergent code: in {warp}, lanes {} reached it, lanes {} did not",
                lane_list(*reached),
                lane_list(*missed)
            ),
            DeadlockedBarrier {
                finished,
                waiting,
                waiting_warps,
            } => write!(
                f,
                "barrier never reached by {finished}: they finished without reaching it, while \
                 {waiting} wait{} at this barrier",
                if *waiting_warps == 1 { "s" } else { "" },
            ),
            WarpMask {
                op,
                mask,
                lane,
                why,
            } => match why {
                MaskError::Differs { first, other } => write!(
                    f,
                    "lanes pass different masks to `{op}`: lane {first} passes {mask:#010x}, \
                     lane {lane} passes {other:#010x}"
                ),
                MaskError::NotInMask => write!(
                    f,
                    "lane {lane} executes `{op}` but is not in its mask {mask:#010x}"
                ),
                MaskError::NotReached { reached } => write!(
                    f,
                    "lane {lane} is in the mask {mask:#010x} of `{op}` but did not reach it \
                     (lanes {} did)",
                    lane_list(*reached)
                ),
            },
            RunawayLoop { max_steps, what } => write!(
                f,
                "the block ran more than {max_steps} warp instructions (the --max-steps limit) \
                 without finishing: {what} may never end"
            ),
        }
    }
}

fn xyz(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// `0-15, 17, 20-31`
fn lane_list(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 1 {
            let s = l;
            while l + 1 < 32 && mask >> (l + 1) & 1 == 1 {
                l += 1;
            }
            parts.push(if s == l {
                s.to_string()
            } else {
                format!("{s}-{l}")
            });
        }
        l += 1;
    }
    parts.join(", ")
}

/// `warp 1 (threads 32-63)`, `warps 1 (threads 32-63), 3 (threads 96-127)`, …
fn warp_list(ws: &[usize], threads: u64) -> String {
    let mut s = String::from(if ws.len() == 1 { "warp " } else { "warps " });
    for (i, &w) in ws.iter().enumerate() {
        if i == 8 {
            s.push_str(&format!(" and {} more", ws.len() - 8));
            break;
        }
        if i > 0 {
            s.push_str(", ");
        }
        let first = w as u64 * 32;
        let last = (first + 31).min(threads.saturating_sub(1));
        s.push_str(&format!("{w} (threads {first}-{last})"));
    }
    s
}

/// `name[i][j]`
fn index_text(name: &str, idx: &[i64]) -> String {
    let mut s = name.to_string();
    for i in idx {
        s.push_str(&format!("[{i}]"));
    }
    s
}

/// A vector's description for messages: `` or ` (a vector of 4 f32)`.
fn vec_text(vec: u32, elem: Elem) -> String {
    if vec == 1 {
        String::new()
    } else {
        format!(" (a vector of {vec} {elem})")
    }
}

/// Why lane `l`'s shared access failed the checks of [`shared_access`].
#[cold]
#[inline(never)]
pub(super) fn shared_fault(cx: &Ctx, pc: usize, w: usize, m: Mem, l: u32, r: &[Lanes]) -> Fault {
    let s = &cx.prog.shared[m.array as usize];
    let vec = m.vec as u32;
    let rank = m.rank as usize;
    let last = rank - 1;
    let eb = s.elem.bytes();
    let width = eb * vec;
    let idx: Vec<i64> = (0..rank)
        .map(|d| r[m.idx[d].0 as usize][l as usize] as i32 as i64)
        .collect();
    let inside = idx.iter().zip(&s.dims).enumerate().all(|(d, (&i, &n))| {
        let hi = if d == last { i + vec as i64 - 1 } else { i };
        i >= 0 && hi < n as i64
    });
    let at = index_text(&s.name, &idx);
    let what = vec_text(vec, s.elem);
    if !inside {
        let dims: Vec<i64> = s.dims.iter().map(|&d| d as i64).collect();
        let reach = if vec > 1 {
            let mut hi = idx.clone();
            hi[last] += vec as i64 - 1;
            format!(", reaching {}", index_text("", &hi))
        } else {
            String::new()
        };
        return cx.lane_fault(
            pc,
            w,
            l,
            FaultKind::OutOfBounds {
                global: false,
                access: format!("{at}{what}{reach}"),
                bounds: index_text(&s.name, &dims),
            },
            Some(format!(
                "every index of `{}` must be at least 0 and less than its dimension; check the \
                 index expressions, or guard the access with an `If`",
                s.name
            )),
        );
    }
    let mut row = 0u32;
    for (&i, &n) in idx[..last].iter().zip(&s.dims) {
        row = row * n + i as u32;
    }
    let col = idx[last] as u32;
    let phys = s.physical(row, col);
    let addr = s.base as u64 + phys as u64 * eb as u64;
    if !addr.is_multiple_of(width as u64) {
        return cx.lane_fault(
            pc,
            w,
            l,
            FaultKind::Misaligned {
                width,
                access: format!("{at}{what}"),
                byte: addr,
                memory: "shared memory".into(),
            },
            Some(format!(
                "a {width}-byte access must start at a multiple of {width} bytes: make the last \
                 index a multiple of {vec}, and keep every row aligned (row length plus pad a \
                 multiple of {vec} elements)"
            )),
        );
    }
    if vec > 1 && (1..vec).any(|k| s.physical(row, col + k) != phys + k) {
        return cx.lane_fault(
            pc,
            w,
            l,
            FaultKind::SwizzleSplit {
                access: format!("{at}{what}"),
                group: s.swizzle,
            },
            Some(format!(
                "use a swizzle group that is a multiple of {vec} elements"
            )),
        );
    }
    cx.lane_fault(
        pc,
        w,
        l,
        FaultKind::Malformed(format!(
            "{at} maps to bytes {addr}..{} of shared memory, outside the bytes of `{}`",
            addr + width as u64,
            s.name
        )),
        Some(LOADER_BUG.into()),
    )
}

/// Why lane `l`'s global access failed the checks of [`global_access`].
#[cold]
#[inline(never)]
pub(super) fn global_fault(cx: &Ctx, pc: usize, w: usize, m: Mem, l: u32, r: &[Lanes]) -> Fault {
    let b = &cx.prog.buffers[m.array as usize];
    let vec = m.vec as u32;
    let width = b.elem.bytes() * vec;
    // An index is signed for a buffer of up to 2^31 elements, unsigned past that (so
    // `out[4294967294]` is not printed as `out[-2]`).
    let raw = r[m.idx[0].0 as usize][l as usize];
    let i = if b.len > i32::MAX as u64 {
        raw as i64
    } else {
        raw as i32 as i64
    };
    let what = vec_text(vec, b.elem);
    if i < 0 || (i + vec as i64 - 1) as u64 >= b.len {
        let reach = if vec > 1 {
            format!(", reaching [{}]", i + vec as i64 - 1)
        } else {
            String::new()
        };
        // The register does not say whether the index was signed: a negative one is shown
        // both ways (`out[-1]` of an `i32`, `out[4294967295]` of a `u32`).
        let reach = if i < 0 {
            format!("{reach} (index {raw} if unsigned)")
        } else {
            reach
        };
        return cx.lane_fault(
            pc,
            w,
            l,
            FaultKind::OutOfBounds {
                global: true,
                access: format!("{}[{i}]{what}{reach}", b.name),
                bounds: format!("{}[{}]", b.name, b.len),
            },
            Some(format!(
                "indices of `{}` must be at least 0 and less than {}; check the index \
                 expression, or guard the access with an `If` (e.g. on the thread index when \
                 the grid has more threads than elements)",
                b.name, b.len
            )),
        );
    }
    cx.lane_fault(
        pc,
        w,
        l,
        FaultKind::Misaligned {
            width,
            access: format!("{}[{i}]{what}", b.name),
            byte: i as u64 * b.elem.bytes() as u64,
            memory: format!("`{}`", b.name),
        },
        Some(format!("make the index a multiple of {vec}")),
    )
}

/// The active lanes of warp `w` executed `trap` (`brkpt`: `brkpt`).
#[cold]
#[inline(never)]
pub(super) fn trap(cx: &Ctx, pc: usize, w: usize, lane: u32, brkpt: bool) -> Fault {
    cx.lane_fault(
        pc,
        w,
        lane,
        FaultKind::Trap { brkpt },
        Some(
            "on the GPU this aborts the kernel (`cudaErrorLaunchFailure`; a `brkpt` stops in a \
             debugger): find the condition that led this thread here"
                .into(),
        ),
    )
}

/// An active lane of warp `w` divides by zero (`remainder`: in a remainder).
#[cold]
#[inline(never)]
pub(super) fn division_by_zero(cx: &Ctx, pc: usize, w: usize, lane: u32, remainder: bool) -> Fault {
    let text = cx.text(pc).to_string();
    cx.lane_fault(
        pc,
        w,
        lane,
        FaultKind::DivisionByZero { remainder, text },
        Some(
            "make sure the divisor is never 0 in a thread that runs this: guard the division \
             with an `If` (`?:` evaluates both sides, so it does not help)"
                .into(),
        ),
    )
}

/// The block ran more than `max_steps` warp instructions; `what` may never end.
#[cold]
#[inline(never)]
pub(super) fn runaway(cx: &Ctx, pc: usize, max_steps: u64, what: &'static str) -> Fault {
    cx.fault(
        pc,
        FaultKind::RunawayLoop { max_steps, what },
        Some("raise --max-steps or check the loop's condition".into()),
    )
}

/// A barrier reached by only the `active` lanes of warp `w`'s `live` ones.
#[cold]
#[inline(never)]
pub(super) fn divergent_barrier(cx: &Ctx, pc: usize, w: usize, active: u32, live: u32) -> Fault {
    cx.fault(
        pc,
        FaultKind::DivergentBarrier {
            warp: warp_list(&[w], cx.threads),
            reached: active,
            missed: live & !active,
        },
        Some(
            "every thread of the block must reach each barrier together: move the barrier out \
             of the `If` or loop whose condition differs between lanes"
                .into(),
        ),
    )
}

/// A fault that only a malformed [`Program`] can cause (a reconvergence frame missing or one
/// too many).
#[cold]
#[inline(never)]
pub(super) fn malformed(cx: &Ctx, pc: usize, message: String) -> Fault {
    cx.fault(pc, FaultKind::Malformed(message), Some(LOADER_BUG.into()))
}

/// The program counter left the code (`len` instructions): only a malformed program can.
#[cold]
#[inline(never)]
pub(super) fn ran_past_end(cx: &Ctx, pc: usize, len: usize) -> Fault {
    cx.fault(
        pc.min(len.saturating_sub(1)),
        FaultKind::Malformed(format!(
            "execution ran past the end of the program (pc {pc} of {len})"
        )),
        Some(LOADER_BUG.into()),
    )
}

/// The fault when some warps wait at a barrier that the others finished without reaching.
pub(super) fn deadlock(cx: &Ctx, warps: &[Warp]) -> Fault {
    let done: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Done && warps[w].live != 0)
        .collect();
    let waiting: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Waiting)
        .collect();
    let pc = warps[waiting[0]].barrier_pc;
    cx.fault(
        pc,
        FaultKind::DeadlockedBarrier {
            finished: warp_list(&done, cx.threads),
            waiting: warp_list(&waiting, cx.threads),
            waiting_warps: waiting.len(),
        },
        Some(
            "every thread of the block must reach each barrier: move the barrier out of the \
             `If` whose condition differs between warps, or let every warp run it"
                .into(),
        ),
    )
}
