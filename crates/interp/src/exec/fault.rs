//! [`Fault`], and the cold code that words each kind of fault: what went wrong, at which
//! instruction, in which block and thread, and what to change.

use super::block::{Ctx, State, Warp};
use super::{Lanes, LOADER_BUG};
use crate::ast::Elem;
use crate::diag::{Diag, Phase};
use crate::ir::Mem;
use crate::program::Program;
use std::fmt;

/// A runtime fault: what went wrong, at which instruction, in which block and thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The instruction (None for faults about the run as a whole, such as a bad geometry).
    pub pc: Option<usize>,
    /// The block (`ctaid`).
    pub block: [u32; 3],
    /// The thread (`tid`), when one thread is to blame.
    pub thread: Option<[u32; 3]>,
    /// What went wrong (without the block and thread; see [`Fault::text`]).
    pub message: String,
    /// What to change.
    pub help: Option<String>,
}

impl Fault {
    pub(super) fn new(
        pc: Option<usize>,
        block: [u32; 3],
        message: String,
        help: Option<String>,
    ) -> Self {
        Fault {
            pc,
            block,
            thread: None,
            message,
            help,
        }
    }

    /// The message with the thread and block that faulted.
    pub fn text(&self) -> String {
        match self.thread {
            Some(t) => format!(
                "{} (thread {} of block {})",
                self.message,
                xyz(t),
                xyz(self.block)
            ),
            None => format!("{} (block {})", self.message, xyz(self.block)),
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
            format!(
                "out-of-bounds shared access: {at}{what}{reach} is outside {}",
                index_text(&s.name, &dims)
            ),
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
            format!(
                "misaligned {width}-byte access: {at}{what} is at byte {addr} of shared memory, \
                 not a multiple of {width}"
            ),
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
            format!(
                "the vector access {at}{what} crosses a swizzle group of {} elements, so its \
                 elements are not consecutive in shared memory",
                s.swizzle
            ),
            Some(format!(
                "use a swizzle group that is a multiple of {vec} elements"
            )),
        );
    }
    cx.lane_fault(
        pc,
        w,
        l,
        format!(
            "{at} maps to bytes {addr}..{} of shared memory, outside the bytes of `{}`",
            addr + width as u64,
            s.name
        ),
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
    let i = r[m.idx[0].0 as usize][l as usize] as i32 as i64;
    let what = vec_text(vec, b.elem);
    if i < 0 || (i + vec as i64 - 1) as u64 >= b.len {
        let reach = if vec > 1 {
            format!(", reaching [{}]", i + vec as i64 - 1)
        } else {
            String::new()
        };
        return cx.lane_fault(
            pc,
            w,
            l,
            format!(
                "out-of-bounds global access: {}[{i}]{what}{reach} is outside {}[{}]",
                b.name, b.name, b.len
            ),
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
        format!(
            "misaligned {width}-byte access: {}[{i}]{what} is at byte {} of `{}`, not a \
             multiple of {width}",
            b.name,
            i as u64 * b.elem.bytes() as u64,
            b.name
        ),
        Some(format!("make the index a multiple of {vec}")),
    )
}

/// An active lane of warp `w` divides by zero (`what`: "division" or "remainder").
#[cold]
#[inline(never)]
pub(super) fn division_by_zero(cx: &Ctx, pc: usize, w: usize, lane: u32, what: &str) -> Fault {
    let text = cx.text(pc);
    cx.lane_fault(
        pc,
        w,
        lane,
        if text.is_empty() {
            format!("integer {what} by zero")
        } else {
            format!("integer {what} by zero in `{text}`")
        },
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
pub(super) fn runaway(cx: &Ctx, pc: usize, max_steps: u64, what: &str) -> Fault {
    cx.fault(
        pc,
        format!(
            "the block ran more than {max_steps} warp instructions (the --max-steps limit) \
             without finishing: {what} may never end"
        ),
        Some("raise --max-steps or check the loop's condition".into()),
    )
}

/// A barrier reached by only the `active` lanes of warp `w`'s `live` ones.
#[cold]
#[inline(never)]
pub(super) fn divergent_barrier(cx: &Ctx, pc: usize, w: usize, active: u32, live: u32) -> Fault {
    cx.fault(
        pc,
        format!(
            "barrier inside divergent code: in {}, lanes {} reached it, lanes {} did not",
            warp_list(&[w], cx.threads),
            lane_list(active),
            lane_list(live & !active)
        ),
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
    cx.fault(pc, message, Some(LOADER_BUG.into()))
}

/// The program counter left the code (`len` instructions): only a malformed program can.
#[cold]
#[inline(never)]
pub(super) fn ran_past_end(cx: &Ctx, pc: usize, len: usize) -> Fault {
    cx.fault(
        pc.min(len.saturating_sub(1)),
        format!("execution ran past the end of the program (pc {pc} of {len})"),
        Some(LOADER_BUG.into()),
    )
}

/// The fault when some warps wait at a barrier that the others finished without reaching.
pub(super) fn deadlock(cx: &Ctx, warps: &[Warp]) -> Fault {
    let done: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Done)
        .collect();
    let waiting: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Waiting)
        .collect();
    let pc = warps[waiting[0]].barrier_pc;
    cx.fault(
        pc,
        format!(
            "barrier never reached by {}: they finished without reaching it, while {} wait{} \
             at this barrier",
            warp_list(&done, cx.threads),
            warp_list(&waiting, cx.threads),
            if waiting.len() == 1 { "s" } else { "" },
        ),
        Some(
            "every thread of the block must reach each barrier: move the barrier out of the \
             `If` whose condition differs between warps, or let every warp run it"
                .into(),
        ),
    )
}
