//! Handlers of control flow and reconvergence: `If`/`Else`/`EndIf`, loops, barriers and
//! `Exit`.
//!
//! A construct pushes a [`Frame`] with the mask it started with; a branch narrows
//! [`At::active`] to the lanes that take it, and the frame's pop widens it again. Each handler
//! leaves [`At::next`] at the instruction to run next (it starts as the one after).

use super::block::{Ctx, Frame, State, Warp};
use super::fault::{self, Fault};
use super::lanes::{movemask, nonzero, per_lane};
use super::warp::At;
use super::Lanes;
use warpsim_kernel::ir::{Inst, Pc, Reg};

/// `If`: the lanes where `c` is set run the then-part; the others wait in the frame for the
/// `Else` (or, if no lane takes it, all go straight to the else-part).
#[inline(always)]
pub(super) fn branch(
    cx: &Ctx,
    at: &mut At,
    frames: &mut [Frame],
    r: &[Lanes],
    c: Reg,
    else_pc: Pc,
) -> Result<(), Fault> {
    let sp = at.sp;
    if sp >= frames.len() {
        let m = format!(
            "`If` nested deeper than the program's max_depth ({})",
            frames.len()
        );
        return Err(fault::malformed(cx, at.pc, m));
    }
    let taken = nonzero(&r[c.0 as usize]) & at.active;
    let other = at.active & !taken;
    if taken != 0 {
        frames[sp] = Frame {
            saved: at.active,
            pending: other,
        };
        at.active = taken;
    } else {
        frames[sp] = Frame {
            saved: at.active,
            pending: 0,
        };
        at.next = else_pc as usize;
    }
    at.sp = sp + 1;
    Ok(())
}

/// `Else`: the lanes left waiting by the `If` run the else-part (if there are none, it is
/// skipped).
#[inline(always)]
pub(super) fn other_side(
    cx: &Ctx,
    at: &mut At,
    frames: &mut [Frame],
    end_pc: Pc,
) -> Result<(), Fault> {
    if at.sp == 0 {
        return Err(fault::malformed(
            cx,
            at.pc,
            "`Else` without a matching `If`".into(),
        ));
    }
    let f = &mut frames[at.sp - 1];
    if f.pending != 0 {
        at.active = f.pending;
        f.pending = 0;
    } else {
        at.next = end_pc as usize;
    }
    Ok(())
}

/// `EndIf` and `LoopEnd`: pops the frame, restoring the mask from before the construct.
#[inline(always)]
pub(super) fn reconverge(cx: &Ctx, at: &mut At, frames: &[Frame], inst: Inst) -> Result<(), Fault> {
    if at.sp == 0 {
        let m = format!("`{inst:?}` without a matching frame");
        return Err(fault::malformed(cx, at.pc, m));
    }
    at.sp -= 1;
    at.active = frames[at.sp].saved;
    Ok(())
}

/// `LoopStart`: pushes the loop's frame.
#[inline(always)]
pub(super) fn loop_start(cx: &Ctx, at: &mut At, frames: &mut [Frame]) -> Result<(), Fault> {
    if at.sp >= frames.len() {
        let m = format!(
            "loop nested deeper than the program's max_depth ({})",
            frames.len()
        );
        return Err(fault::malformed(cx, at.pc, m));
    }
    frames[at.sp] = Frame {
        saved: at.active,
        pending: 0,
    };
    at.sp += 1;
    Ok(())
}

/// `LoopTest`: the lanes where `c` is set stay in the loop; when none does, the loop is left
/// with the mask from before it.
#[inline(always)]
pub(super) fn loop_test(
    cx: &Ctx,
    at: &mut At,
    frames: &[Frame],
    r: &[Lanes],
    c: Reg,
    exit_pc: Pc,
) -> Result<(), Fault> {
    let stay = nonzero(&r[c.0 as usize]) & at.active;
    if stay != 0 {
        at.active = stay;
    } else {
        if at.sp == 0 {
            return Err(fault::malformed(
                cx,
                at.pc,
                "`LoopTest` outside a loop".into(),
            ));
        }
        // Every lane has left: the `LoopEnd` pops the frame, with the mask from before the
        // loop.
        at.active = frames[at.sp - 1].saved;
        at.next = exit_pc as usize;
    }
    Ok(())
}

/// The lanes where `a < b` (`signed` or not): the condition of a `ForTest`.
#[inline(always)]
pub(super) fn below(r: &[Lanes], a: Reg, b: Reg, signed: bool) -> u32 {
    let (xs, ys) = (&r[a.0 as usize], &r[b.0 as usize]);
    if signed {
        movemask(&per_lane(|l| {
            (((xs[l] as i32) < (ys[l] as i32)) as u32).wrapping_neg()
        }))
    } else {
        movemask(&per_lane(|l| ((xs[l] < ys[l]) as u32).wrapping_neg()))
    }
}

/// `ForTest`: as [`loop_test`], with the lanes [`below`] their bound.
///
/// (Its own handler, not `loop_test`'s: one body shared by the two tests measured 7% slower
/// on transpose, as the compiler merged their tails.)
#[inline(always)]
pub(super) fn for_test(
    cx: &Ctx,
    at: &mut At,
    frames: &[Frame],
    below: u32,
    exit_pc: Pc,
) -> Result<(), Fault> {
    let stay = below & at.active;
    if stay != 0 {
        at.active = stay;
    } else {
        if at.sp == 0 {
            return Err(fault::malformed(
                cx,
                at.pc,
                "`ForTest` outside a loop".into(),
            ));
        }
        at.active = frames[at.sp - 1].saved;
        at.next = exit_pc as usize;
    }
    Ok(())
}

/// Faults once the block has run more than [`Config::max_steps`](super::Config::max_steps)
/// warp instructions (checked at every backward jump and barrier, so every run ends), and
/// tells the progress callback how far a long block got.
#[inline(always)]
pub(super) fn count_steps(cx: &Ctx, at: &mut At, what: &'static str) -> Result<(), Fault> {
    if at.steps > at.check_at {
        return checkpoint(cx, at, what);
    }
    Ok(())
}

/// [`count_steps`] past [`At::check_at`]: the runaway fault, or [`PROGRESS_STEPS`] more
/// steps for the progress callback and the next check point.
#[cold]
#[inline(never)]
pub(super) fn checkpoint(cx: &Ctx, at: &mut At, what: &'static str) -> Result<(), Fault> {
    let max = cx.cfg.max_steps;
    if at.steps > max {
        return Err(fault::runaway(cx, at.pc, max, what));
    }
    if let Some(progress) = cx.progress {
        progress(PROGRESS_STEPS);
    }
    at.check_at = next_check(at.steps, max, cx.progress.is_some());
    Ok(())
}

/// Warp instructions of one block between two calls of the progress callback (tens of
/// milliseconds of emulation).
pub const PROGRESS_STEPS: u64 = 1 << 22;

/// The step count at which a block that has run `steps` warp instructions looks again.
pub(super) fn next_check(steps: u64, max_steps: u64, progress: bool) -> u64 {
    if progress {
        steps.saturating_add(PROGRESS_STEPS).min(max_steps)
    } else {
        max_steps
    }
}

/// `LoopBack`: jumps to the loop's head.
#[inline(always)]
pub(super) fn loop_back(cx: &Ctx, at: &mut At, head_pc: Pc) -> Result<(), Fault> {
    count_steps(cx, at, "this loop")?;
    at.next = head_pc as usize;
    Ok(())
}

/// `ForNext`: `var += step`, then jumps to the loop's head.
#[inline(always)]
pub(super) fn for_next(
    cx: &Ctx,
    at: &mut At,
    r: &mut [Lanes],
    (var, step): (Reg, Reg),
    head_pc: Pc,
) -> Result<(), Fault> {
    count_steps(cx, at, "this loop")?;
    super::arith::int2(r, at, var, var, step, |x, y| x.wrapping_add(y));
    at.next = head_pc as usize;
    Ok(())
}

/// `Barrier`: the warp waits for the others (all of its live lanes must be here).
#[inline(always)]
pub(super) fn barrier(cx: &Ctx, at: &mut At, warp: &mut Warp) -> Result<(), Fault> {
    if at.active != warp.live {
        return Err(fault::divergent_barrier(
            cx, at.pc, at.w, at.active, warp.live,
        ));
    }
    count_steps(cx, at, "a loop around this barrier")?;
    warp.state = State::Waiting;
    warp.barrier_pc = at.pc;
    Ok(())
}

/// `Exit`: the warp is done (it stays at its `Exit`).
#[inline(always)]
pub(super) fn exit(at: &mut At, warp: &mut Warp) -> Result<(), Fault> {
    warp.state = State::Done;
    at.next = at.pc;
    Ok(())
}
