//! Handlers of the jumps out of structured code: `Break`, `Continue`, `Return`, and the
//! `LoopJoin` where lanes that continued meet the others again.
//!
//! # How lanes leave and meet again
//!
//! A jump takes the active lanes (the *leaving* lanes) out of the frames they leave, so that no
//! `EndIf` or `LoopEnd` on the way brings them back, then finds the innermost frame that still
//! has lanes to run and goes on there:
//!
//! * `Break`: the leaving lanes stay in the loop frame's saved mask (which `LoopEnd` restores),
//!   so they wait at the loop's end; they are taken out of every `If` frame inside the loop.
//! * `Continue`: as `Break`, but the lanes are added to the loop frame's `pending` mask, which
//!   `LoopJoin` (before the step or back-edge) adds back to the active mask.
//! * `Return`: the lanes leave every frame and the warp's live mask; a warp whose lanes have
//!   all returned is done. Barriers wait only for live lanes, and the block scheduler does not
//!   wait for a warp whose lanes have all returned: exited threads do not block a barrier, as
//!   on sm_70 and later.
//!
//! The frames to unwind are listed after the jump, innermost first, as `Scope` instructions
//! (never executed), each with the pc where its waiting lanes resume. So the hot loop is not
//! touched: programs without jumps run exactly the instructions they ran before.

use super::block::{Ctx, Frame, State, Warp};
use super::fault::{self, Fault};
use super::warp::At;
use std::ops::ControlFlow;
use warpsim_kernel::ir::Inst;

/// Which jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    Break,
    Continue,
    Return,
}

/// `Break`, `Continue` or `Return` of the active lanes, leaving the `n` frames listed after it.
/// Breaks (the warp stops) when every lane of the warp has returned.
#[inline(never)]
pub(super) fn leave(
    cx: &Ctx,
    at: &mut At,
    warp: &mut Warp,
    frames: &mut [Frame],
    how: How,
    n: u16,
) -> Result<ControlFlow<()>, Fault> {
    let n = n as usize;
    let sp = at.sp;
    let bad = |m: String| Err(fault::malformed(cx, at.pc, m));
    let whole = how == How::Return;
    if n > sp || sp > frames.len() || (whole && n != sp) || (!whole && n == 0) {
        return bad(format!("`{how:?}` leaving {n} of {sp} frames"));
    }
    let Some(scopes) = cx.prog.code.get(at.pc + 1..at.pc + 1 + n) else {
        return bad(format!("`{how:?}` without its {n} scopes"));
    };
    let gone = at.active;
    let outer = sp - n;
    match how {
        How::Return => {
            warp.live &= !gone;
            for f in &mut frames[..sp] {
                f.saved &= !gone;
                f.pending &= !gone;
            }
        }
        How::Break | How::Continue => {
            for f in &mut frames[outer + 1..sp] {
                f.saved &= !gone;
            }
            if how == How::Continue {
                frames[outer].pending |= gone;
            }
        }
    }
    // Resume the innermost frame that still has lanes: those waiting for an else-part or
    // a loop's next trip first, else those waiting at its end.
    for (k, s) in scopes.iter().enumerate() {
        let Inst::Scope {
            resume_pc, end_pc, ..
        } = *s
        else {
            return bad(format!("`{how:?}` followed by `{s:?}`, not a scope"));
        };
        let f = &mut frames[sp - 1 - k];
        if f.pending != 0 {
            at.active = f.pending;
            f.pending = 0;
            at.next = resume_pc as usize;
        } else if f.saved != 0 {
            at.active = f.saved;
            at.next = end_pc as usize;
        } else {
            continue;
        }
        at.sp = sp - k;
        return Ok(ControlFlow::Continue(()));
    }
    // No frame has lanes left: only a `Return` of the warp's last lanes gets here.
    if how != How::Return || warp.live != 0 {
        return bad(format!("`{how:?}` left no lane to run"));
    }
    at.active = 0;
    at.sp = 0;
    warp.state = State::Done;
    at.next = at.pc;
    Ok(ControlFlow::Break(()))
}

/// `LoopJoin`: the lanes that continued in this trip join the active ones.
#[inline(always)]
pub(super) fn join(cx: &Ctx, at: &mut At, frames: &mut [Frame]) -> Result<(), Fault> {
    let Some(f) = at.sp.checked_sub(1).and_then(|i| frames.get_mut(i)) else {
        return Err(fault::malformed(
            cx,
            at.pc,
            "`LoopJoin` outside a loop".into(),
        ));
    };
    at.active |= f.pending;
    f.pending = 0;
    Ok(())
}

/// A `Scope` was executed: it only lists frames for the jump before it.
#[cold]
#[inline(never)]
pub(super) fn stray_scope(cx: &Ctx, at: &At) -> Fault {
    fault::malformed(cx, at.pc, "a `Scope` was executed".into())
}
