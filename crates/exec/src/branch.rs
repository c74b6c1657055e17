//! Handlers of the PTX front end's control flow: unstructured branches that reconverge at
//! immediate post-dominators, and `ret` of some lanes.
//!
//! # The reconvergence stack
//!
//! A warp's [`Frame`]s hold, for a program with `Branch`es, two kinds of entries, told apart
//! by the top bit of [`Frame::pending`]:
//!
//! * a *join* entry (`pending = JOIN | pc`): the lanes `saved` will go on together at `pc`
//!   (a [`Inst::Join`](warpsim_kernel::ir::Inst::Join)) once every side of the split has arrived;
//! * a *path* entry (`pending = pc`): the lanes `saved` are still to run from `pc`, up to the
//!   join entry below them.
//!
//! A divergent `Branch` whose join point is not the current one pushes a join entry with the
//! whole active mask, runs one side and pushes the other as a path entry. A side that goes
//! straight to the join point just waits (its lanes are in the join entry's mask). When the
//! current join point already is the branch's (the exits of a loop, say), no entry is pushed:
//! the leaving lanes simply drop out of the active mask, so a loop never grows the stack. At a
//! `Join` whose pc is the nearest join entry's, the next path entry runs, or, when none is
//! left, the join entry is popped and its lanes go on. `Ret` retires the active lanes from
//! the warp and from every entry, then resumes the next entry.
//!
//! This is the classic immediate-post-dominator stack (as in GPGPU-Sim); a barrier reached by
//! only some live lanes is a fault, as for structured code.

use super::block::{Ctx, Frame, State, Warp};
use super::fault::{self, Fault};
use super::lanes::nonzero;
use super::warp::At;
use super::Lanes;
use std::ops::ControlFlow;
use warpsim_kernel::ir::{Pc, Reg};

/// The top bit of [`Frame::pending`] marks a join entry.
const JOIN: u32 = 1 << 31;

/// The nearest join entry: its index and pc.
#[inline]
fn nearest_join(frames: &[Frame], sp: usize) -> Option<(usize, u32)> {
    (0..sp)
        .rev()
        .find(|&i| frames[i].pending & JOIN != 0)
        .map(|i| (i, frames[i].pending & !JOIN))
}

/// Pushes an entry, or faults when the stack is full.
#[inline]
fn push(cx: &Ctx, at: &mut At, frames: &mut [Frame], f: Frame) -> Result<(), Fault> {
    if at.sp >= frames.len() {
        let m = format!(
            "branches nested deeper than the program's reconvergence stack ({} entries)",
            frames.len()
        );
        return Err(fault::malformed(cx, at.pc, m));
    }
    frames[at.sp] = f;
    at.sp += 1;
    Ok(())
}

/// `Branch`: see the module's overview.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn branch(
    cx: &Ctx,
    at: &mut At,
    frames: &mut [Frame],
    r: &[Lanes],
    (c, neg): (Reg, bool),
    target: Pc,
    join: Pc,
) -> Result<(), Fault> {
    let set = nonzero(&r[c.0 as usize]);
    let taken = if neg { !set } else { set } & at.active;
    let other = at.active & !taken;
    if (target as usize) <= at.pc && taken != 0 {
        super::flow::count_steps(cx, at, "this loop")?;
    }
    if other == 0 {
        at.next = target as usize;
        return Ok(());
    }
    if taken == 0 {
        return Ok(());
    }
    let fall = at.pc as u32 + 1;
    if nearest_join(frames, at.sp).map(|(_, pc)| pc) != Some(join) {
        let f = Frame {
            saved: at.active,
            pending: JOIN | join,
        };
        push(cx, at, frames, f)?;
    }
    // A forward branch's side runs first (an exit from a loop finishes before the loop's
    // next trip can split again, so loops with several exits keep the stack short).
    let sides = if target > fall {
        [(target, taken), (fall, other)]
    } else {
        [(fall, other), (target, taken)]
    };
    let mut going = sides.iter().filter(|s| s.0 != join);
    match (going.next(), going.next()) {
        (None, _) => at.next = join as usize,
        (Some(&(pc, mask)), None) => {
            at.active = mask;
            at.next = pc as usize;
        }
        (Some(&(pc, mask)), Some(&(later, later_mask))) => {
            let f = Frame {
                saved: later_mask,
                pending: later,
            };
            push(cx, at, frames, f)?;
            at.active = mask;
            at.next = pc as usize;
        }
    }
    Ok(())
}

/// `Jump`: the active lanes go to `target`.
#[inline]
pub(super) fn jump(cx: &Ctx, at: &mut At, target: Pc) -> Result<(), Fault> {
    if (target as usize) <= at.pc {
        super::flow::count_steps(cx, at, "this loop")?;
    }
    at.next = target as usize;
    Ok(())
}

/// `Join`: when this is the nearest join entry's point, the next waiting path runs, or, when
/// none is left, the entry's lanes go on together.
#[inline]
pub(super) fn join(at: &mut At, frames: &[Frame]) {
    while let Some((i, pc)) = nearest_join(frames, at.sp) {
        if pc as usize != at.pc {
            return;
        }
        let top = frames[at.sp - 1];
        at.sp -= 1;
        if i < at.sp {
            // A path entry above the join entry: run it.
            at.active = top.saved;
            at.next = top.pending as usize;
            return;
        }
        at.active = top.saved;
    }
}

/// `Ret`: the active lanes are done; the warp resumes the next entry of its stack, or is done.
#[inline]
pub(super) fn ret(at: &mut At, warp: &mut Warp, frames: &mut [Frame]) -> ControlFlow<()> {
    let gone = at.active;
    warp.live &= !gone;
    for f in &mut frames[..at.sp] {
        f.saved &= !gone;
    }
    while at.sp > 0 {
        at.sp -= 1;
        let f = frames[at.sp];
        if f.saved == 0 {
            continue;
        }
        at.active = f.saved;
        // A join entry resumes at its `Join` (which pops any deeper entry of the same point).
        at.next = (f.pending & !JOIN) as usize;
        return ControlFlow::Continue(());
    }
    at.active = 0;
    at.next = at.pc;
    warp.state = State::Done;
    ControlFlow::Break(())
}
