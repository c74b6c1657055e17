//! Handlers of the warp-level operations: shuffles (`shfl_sync`, `shfl_up_sync`,
//! `shfl_down_sync`, `shfl_xor_sync`), votes (`ballot_sync`, `any_sync`, `all_sync`),
//! `activemask()` and `SyncWarp`. They move values between the lanes of one warp in
//! registers: no shared memory, no bank model, no race checking.
//!
//! # The member mask
//!
//! CUDA leaves a `*_sync` operation undefined unless every non-exited lane named in its mask
//! executes it, with the same mask. warpsim makes each way of breaking that a fault at the
//! operation's line ([`FaultKind::WarpMask`]):
//!
//! * an active lane passes a different mask than the lowest active lane;
//! * an active lane is not in the mask;
//! * a lane of the warp that holds a thread is in the mask but did not reach the operation
//!   (it is on the other side of an `If`, or left a loop earlier).
//!
//! Mask bits of lanes that hold no thread (past the end of a partial last warp) are ignored,
//! as on the GPU, where such lanes do not exist.
//!
//! # Shuffles
//!
//! Lane `l` reads lane `j` of the value, computed as PTX's `shfl.sync` does (`b` is the
//! source lane, delta or lane mask, taken modulo 32; segments are `width` lanes):
//!
//! | mode | `j` | `j` out of range (own value) |
//! | --- | --- | --- |
//! | idx | first lane of `l`'s segment + `b % width` | never |
//! | up | `l − b` | below the segment's first lane |
//! | down | `l + b` | past the segment's last lane |
//! | xor | `l ^ b` | past the segment's last lane (an earlier segment may be read) |
//!
//! Reading a lane that is inactive or not in the mask is undefined in CUDA; warpsim returns
//! that lane's register as it stands (the value it last wrote, or the register's initial
//! value), deterministically.

use super::block::Ctx;
use super::fault::{Fault, FaultKind, MaskError};
use super::lanes::{nonzero, per_lane, put};
use super::warp::At;
use super::Lanes;
use warpsim_kernel::ir::{Inst, Reg, ShflMode, VoteMode};

/// Executes warp-level instruction `inst` (one arm of the warp loop for all of them, out of
/// line: four arms inlined there made the loop's other instructions cost 1–3% more host
/// instructions, by cachegrind on `matmul.ron`).
#[inline(never)]
pub(super) fn execute(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &mut [Lanes],
    inst: Inst,
) -> Result<(), Fault> {
    match inst {
        Inst::Shfl {
            dst,
            mask,
            a,
            b,
            mode,
            width,
        } => shfl(cx, at, live, r, (dst, mask, a, b), mode, width),
        Inst::Vote { dst, mask, a, mode } => vote(cx, at, live, r, (dst, mask, a), mode),
        Inst::ActiveMask { dst } => {
            active_mask(at, r, dst);
            Ok(())
        }
        Inst::SyncWarp { mask } => sync_warp(cx, at, live, r, mask),
        _ => Ok(()),
    }
}

/// CUDA's name of a shuffle.
fn shfl_name(mode: ShflMode) -> &'static str {
    match mode {
        ShflMode::Idx => "shfl_sync",
        ShflMode::Up => "shfl_up_sync",
        ShflMode::Down => "shfl_down_sync",
        ShflMode::Xor => "shfl_xor_sync",
    }
}

/// CUDA's name of a vote.
fn vote_name(mode: VoteMode) -> &'static str {
    match mode {
        VoteMode::Ballot => "ballot_sync",
        VoteMode::Any => "any_sync",
        VoteMode::All => "all_sync",
        VoteMode::Uni => "uni_sync",
    }
}

/// Checks the member mask in register `mask` against the active lanes and the `live` ones
/// (those that hold a thread); returns it.
#[inline]
fn members(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &[Lanes],
    mask: Reg,
    op: &'static str,
) -> Result<u32, Fault> {
    let ms = &r[mask.0 as usize];
    let first = (at.active.trailing_zeros() & 31) as usize;
    let m = ms[first];
    let same = per_lane(|l| (ms[l] == m) as u32);
    let differ = !nonzero(&same) & at.active;
    let outside = at.active & !m;
    let missing = m & live & !at.active;
    if differ | outside | missing == 0 {
        return Ok(m);
    }
    Err(mask_fault(cx, at, op, m, ms, (differ, outside, missing)))
}

/// The fault for a mask that [`members`] refused.
#[cold]
#[inline(never)]
fn mask_fault(
    cx: &Ctx,
    at: &At,
    op: &'static str,
    mask: u32,
    ms: &Lanes,
    (differ, outside, missing): (u32, u32, u32),
) -> Fault {
    let low = |x: u32| x.trailing_zeros();
    let (lane, why, help) = if differ != 0 {
        let l = low(differ);
        (
            l,
            MaskError::Differs {
                first: low(at.active),
                other: ms[l as usize],
            },
            "every lane that executes it must pass the same mask (CUDA leaves the result \
             undefined otherwise)",
        )
    } else if outside != 0 {
        (
            low(outside),
            MaskError::NotInMask,
            "name every lane that executes it in the mask: `activemask()` gives the lanes \
             active here, `0xffffffff` the whole warp",
        )
    } else {
        (
            low(missing),
            MaskError::NotReached { reached: at.active },
            "every lane named in the mask must reach the same operation (CUDA leaves the \
             result undefined otherwise): narrow the mask to the lanes that take this path \
             (`activemask()`, or a `ballot_sync` of the branch condition before the `If`), or \
             move the operation out of the divergent code",
        )
    };
    cx.lane_fault(
        at.pc,
        at.w,
        lane,
        FaultKind::WarpMask {
            op,
            mask,
            lane,
            why,
        },
        Some(help.into()),
    )
}

/// `dst = a` of lane `j` (see the module's table), for the active lanes.
#[allow(clippy::too_many_arguments)]
#[inline]
fn shfl(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &mut [Lanes],
    (dst, mask, a, b): (Reg, Reg, Reg, Reg),
    mode: ShflMode,
    width: u8,
) -> Result<(), Fault> {
    members(cx, at, live, r, mask, shfl_name(mode))?;
    // PTX: the segment mask c[12:8] = 32 − width (the verifier holds `width` to 1, 2, …, 32).
    let seg = 32u32.wrapping_sub(width as u32) & 31;
    let src = r[a.0 as usize];
    let bs = r[b.0 as usize];
    let v: Lanes = per_lane(|l| {
        let lane = l as u32;
        let bval = bs[l] & 31;
        let min = lane & seg;
        let max = min | (31 & !seg);
        let (j, ok) = match mode {
            ShflMode::Idx => (min | (bval & !seg), true),
            ShflMode::Up => (lane.wrapping_sub(bval), bval <= lane - min),
            ShflMode::Down => (lane + bval, lane + bval <= max),
            ShflMode::Xor => (lane ^ bval, lane ^ bval <= max),
        };
        src[if ok { (j & 31) as usize } else { l }]
    });
    put(&mut r[dst.0 as usize], v, at.active);
    Ok(())
}

/// `dst = ` the vote `mode` of `a != 0` over the active lanes.
#[inline]
fn vote(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &mut [Lanes],
    (dst, mask, a): (Reg, Reg, Reg),
    mode: VoteMode,
) -> Result<(), Fault> {
    members(cx, at, live, r, mask, vote_name(mode))?;
    let bits = nonzero(&r[a.0 as usize]) & at.active;
    let v = match mode {
        VoteMode::Ballot => bits,
        VoteMode::Any => (bits != 0) as u32,
        VoteMode::All => (bits == at.active) as u32,
        VoteMode::Uni => (bits == at.active || bits == 0) as u32,
    };
    put(&mut r[dst.0 as usize], [v; 32], at.active);
    Ok(())
}

/// `dst = ` the active mask.
#[inline]
fn active_mask(at: &At, r: &mut [Lanes], dst: Reg) {
    put(&mut r[dst.0 as usize], [at.active; 32], at.active);
}

/// `SyncWarp(mask)`: checks the mask; the lanes run in lockstep, so none waits.
#[inline]
fn sync_warp(cx: &Ctx, at: &At, live: u32, r: &[Lanes], mask: Reg) -> Result<(), Fault> {
    members(cx, at, live, r, mask, "SyncWarp").map(|_| ())
}
