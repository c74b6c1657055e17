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
use crate::ir::Inst;
use std::ops::ControlFlow;

/// Which jump.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum How {
    Break,
    Continue,
    Return,
}

/// `Break`, `Continue` or `Return` of the active lanes (one arm of the dispatch for the three,
/// and for a `Scope`, which is never run): [`leave`], then the warp goes on where it says.
/// Breaks (the warp stops) when every lane of the warp has returned.
#[inline(always)]
pub(super) fn jump(
    cx: &Ctx,
    at: &mut At,
    warp: &mut Warp,
    frames: &mut [Frame],
) -> Result<ControlFlow<()>, Fault> {
    // (`at` is passed by value and the work is out of line and cold: the warp loop keeps its
    // state in registers, and programs without jumps run as fast as before.)
    match leave(cx, (at.pc, at.active, at.sp), warp, frames)? {
        Some((next, active, sp)) => {
            at.next = next;
            at.active = active;
            at.sp = sp;
            Ok(ControlFlow::Continue(()))
        }
        None => {
            at.active = 0;
            at.sp = 0;
            at.next = at.pc;
            Ok(ControlFlow::Break(()))
        }
    }
}

/// The jump at `pc` of the lanes `active`, with `sp` frames open: where the warp goes on
/// (next pc, active mask, frames open), or `None` when every lane of the warp has returned
/// (the warp is then done).
#[cold]
#[inline(never)]
fn leave(
    cx: &Ctx,
    (pc, active, sp): (usize, u32, usize),
    warp: &mut Warp,
    frames: &mut [Frame],
) -> Result<Option<(usize, u32, usize)>, Fault> {
    let (how, n) = match cx.prog.code.get(pc) {
        Some(Inst::Break { n }) => (How::Break, *n),
        Some(Inst::Continue { n }) => (How::Continue, *n),
        Some(Inst::Return { n }) => (How::Return, *n),
        _ => return Err(fault::malformed(cx, pc, "a `Scope` was executed".into())),
    };
    let n = n as usize;
    let bad = |m: String| Err(fault::malformed(cx, pc, m));
    let whole = how == How::Return;
    if n > sp || sp > frames.len() || (whole && n != sp) || (!whole && n == 0) {
        return bad(format!("`{how:?}` leaving {n} of {sp} frames"));
    }
    let Some(scopes) = cx.prog.code.get(pc + 1..pc + 1 + n) else {
        return bad(format!("`{how:?}` without its {n} scopes"));
    };
    let gone = active;
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
        let (next, active) = if f.pending != 0 {
            (resume_pc, std::mem::take(&mut f.pending))
        } else if f.saved != 0 {
            (end_pc, f.saved)
        } else {
            continue;
        };
        return Ok(Some((next as usize, active, sp - k)));
    }
    // No frame has lanes left: only a `Return` of the warp's last lanes gets here.
    if how != How::Return || warp.live != 0 {
        return bad(format!("`{how:?}` left no lane to run"));
    }
    warp.state = State::Done;
    Ok(None)
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
