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
//! * an active lane passes a mask that differs from that of another active lane in its mask
//!   (lanes may pass different masks only as disjoint groups, as cooperative groups' tiles
//!   of 16 do: each group then votes, reduces and matches among itself);
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
//! Reading a lane that is not in the mask is undefined in CUDA; warpsim does what the H200
//! does (calibration/probes/cuda_coverage, 807 of 807 reads in each of six scenarios): a
//! source lane that executes this same shuffle gives its value, any other source lane
//! (branched around, predicated off, exited, or holding no thread) gives 0.

use super::block::Ctx;
use super::fault::{Fault, FaultKind, MaskError};
use super::lanes::{nonzero, per_lane, put};
use super::warp::At;
use super::Lanes;
use super::PcStats;
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
    ps: &mut PcStats,
) -> Result<(), Fault> {
    match inst {
        Inst::Shfl {
            dst,
            mask,
            a,
            b,
            mode,
            width,
        } => {
            // PTX's c: the segment mask `32 - width` in bits 8..12, the clamp (31; 0 for up).
            let seg = 32u32.wrapping_sub(width as u32) & 31;
            let clamp = if mode == ShflMode::Up { 0 } else { 31 };
            let c = [seg << 8 | clamp; 32];
            let outside = shfl(cx, at, live, r, (dst, mask, a, b), &c, mode, false)?;
            ps.shfl_outside += outside as u64;
            Ok(())
        }
        Inst::ShflC {
            dst,
            mask,
            a,
            b,
            c,
            mode,
            pred,
        } => {
            let c = r[c.0 as usize];
            let outside = shfl(cx, at, live, r, (dst, mask, a, b), &c, mode, pred)?;
            ps.shfl_outside += outside as u64;
            Ok(())
        }
        Inst::Redux { op, dst, mask, a } => {
            let ms = members(cx, at, live, r, mask, "reduce_sync")?;
            let xs = r[a.0 as usize];
            let reduce = |m: u32| {
                let lanes = m & at.active;
                let first = lanes.trailing_zeros() as usize & 31;
                (0..32)
                    .filter(|l| lanes >> l & 1 != 0)
                    .skip(1)
                    .fold(xs[first], |acc, l| op.apply(acc, xs[l]))
            };
            put(&mut r[dst.0 as usize], ms.per_group(reduce), at.active);
            Ok(())
        }
        Inst::Match {
            all,
            wide,
            pred,
            dst,
            mask,
            a,
        } => {
            let name = if all {
                "match_all_sync"
            } else {
                "match_any_sync"
            };
            let ms = members(cx, at, live, r, mask, name)?;
            let lo = r[a.0 as usize];
            let hi = if wide { r[a.0 as usize + 1] } else { [0; 32] };
            let key = |l: usize| u64::from(lo[l]) | u64::from(hi[l]) << 32;
            let same = |l: usize| {
                (0..32)
                    .filter(|&j| (ms.of(l) & at.active) >> j & 1 != 0 && key(j) == key(l))
                    .fold(0u32, |s, j| s | 1 << j)
            };
            let v: Lanes = per_lane(|l| match (all, pred) {
                (false, _) => same(l),
                (true, p) => {
                    let equal = same(l) == ms.of(l) & at.active;
                    match p {
                        true => equal as u32,
                        false => ms.of(l) * equal as u32,
                    }
                }
            });
            put(&mut r[dst.0 as usize], v, at.active);
            Ok(())
        }
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

/// The member masks of a warp operation that [`members`] accepted.
#[derive(Clone, Copy)]
enum Members {
    /// Every active lane passes this mask.
    One(u32),
    /// Lanes pass different masks, as disjoint groups: each lane's.
    Groups(Lanes),
}

impl Members {
    /// The mask lane `l` passes.
    #[inline]
    fn of(&self, l: usize) -> u32 {
        match self {
            Members::One(m) => *m,
            Members::Groups(ms) => ms[l],
        }
    }

    /// `f(mask)` for every lane: computed once when one mask serves the warp.
    #[inline]
    fn per_group(&self, f: impl Fn(u32) -> u32) -> Lanes {
        match self {
            Members::One(m) => [f(*m); 32],
            Members::Groups(ms) => per_lane(|l| f(ms[l])),
        }
    }
}

/// Checks the member masks in register `mask` against the active lanes and the `live` ones
/// (those that hold a thread); returns them. Lanes may pass different masks when
/// they form disjoint groups (cooperative groups' tiles of 16 in one warp): every lane of a
/// lane's mask that executes the operation passes the same mask.
#[inline]
fn members(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &[Lanes],
    mask: Reg,
    op: &'static str,
) -> Result<Members, Fault> {
    let ms = &r[mask.0 as usize];
    let first = (at.active.trailing_zeros() & 31) as usize;
    let m = ms[first];
    let same = per_lane(|l| (ms[l] == m) as u32);
    let differ = !nonzero(&same) & at.active;
    let outside = at.active & !m;
    let missing = m & live & !at.active;
    if differ | outside | missing == 0 {
        return Ok(Members::One(m));
    }
    if differ != 0 {
        return groups(cx, at, live, ms, op);
    }
    Err(mask_fault(
        cx,
        at,
        op,
        (first as u32, m),
        ms,
        (differ, outside, missing),
    ))
}

/// [`members`] when lanes pass different masks: each must be a group of lanes that pass it.
#[cold]
#[inline(never)]
fn groups(cx: &Ctx, at: &At, live: u32, ms: &Lanes, op: &'static str) -> Result<Members, Fault> {
    for l in (0..32).filter(|l| at.active >> l & 1 != 0) {
        let g = ms[l];
        let differ = (0..32)
            .filter(|&j| (g & at.active) >> j & 1 != 0 && ms[j] != g)
            .fold(0u32, |s, j| s | 1 << j);
        let outside = !g & 1 << l;
        let missing = g & live & !at.active;
        if differ | outside | missing != 0 {
            let e = (differ, outside, missing);
            return Err(mask_fault(cx, at, op, (l as u32, g), ms, e));
        }
    }
    Ok(Members::Groups(*ms))
}

/// The fault for a mask that [`members`] refused.
#[cold]
#[inline(never)]
fn mask_fault(
    cx: &Ctx,
    at: &At,
    op: &'static str,
    (first, mask): (u32, u32),
    ms: &Lanes,
    (differ, outside, missing): (u32, u32, u32),
) -> Fault {
    let low = |x: u32| x.trailing_zeros();
    let (lane, why, help) = if differ != 0 {
        let l = low(differ);
        (
            l,
            MaskError::Differs {
                first,
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
    } else if op == "SyncWarp" {
        // (CUDA lets the two sides of a branch meet at two `__syncwarp`s; warpsim runs one
        // side after the other.)
        (
            low(missing),
            MaskError::NotReached { reached: at.active },
            "warpsim runs a warp's lanes in lockstep, one side of a branch after the other, \
             so a `__syncwarp` cannot wait for lanes on the other side (CUDA allows it from \
             sm_70 on): move it out of the divergent code, or narrow its mask to the lanes \
             that take this path (`__activemask()`)",
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

/// `dst = a` of lane `j` (see the module's table), for the active lanes; `c` is PTX's
/// clamp and segment operand per lane; with `pred`, `dst` = whether `j` was in range.
/// A source lane in range that is not active here (not executing this shuffle) gives 0, as
/// on the H200 (calibration/probes/cuda_coverage, spec S-2); returns how many lanes read one
/// (undefined in CUDA: the report warns).
#[allow(clippy::too_many_arguments)]
#[inline]
fn shfl(
    cx: &Ctx,
    at: &At,
    live: u32,
    r: &mut [Lanes],
    (dst, mask, a, b): (Reg, Reg, Reg, Reg),
    c: &Lanes,
    mode: ShflMode,
    pred: bool,
) -> Result<u32, Fault> {
    members(cx, at, live, r, mask, shfl_name(mode))?;
    let src = r[a.0 as usize];
    let bs = r[b.0 as usize];
    let active = at.active;
    let source = |l: usize| {
        let (lane, bval) = (l as u32, bs[l] & 31);
        let (clamp, seg) = (c[l] & 31, (c[l] >> 8) & 31);
        let min = lane & seg;
        let max = min | (clamp & !seg);
        let (j, ok) = match mode {
            ShflMode::Idx => {
                let j = min | (bval & !seg);
                (j, j <= max)
            }
            ShflMode::Up => (lane.wrapping_sub(bval), lane >= bval && lane - bval >= max),
            ShflMode::Down => (lane + bval, lane + bval <= max),
            ShflMode::Xor => (lane ^ bval, lane ^ bval <= max),
        };
        (j & 31, ok)
    };
    let v: Lanes = per_lane(|l| {
        let (j, ok) = source(l);
        match (pred, ok) {
            (true, _) => ok as u32,
            (false, false) => src[l],
            (false, true) if active >> j & 1 != 0 => src[j as usize],
            (false, true) => 0,
        }
    });
    put(&mut r[dst.0 as usize], v, at.active);
    // Lanes that read a lane not executing the shuffle (none when every lane does).
    let mut outside = 0;
    if !pred && active != u32::MAX {
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let (j, ok) = source(l);
            outside += u32::from(ok && active >> j & 1 == 0);
        }
    }
    Ok(outside)
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
    let ms = members(cx, at, live, r, mask, vote_name(mode))?;
    let votes = nonzero(&r[a.0 as usize]);
    let vote = |m: u32| {
        let lanes = m & at.active;
        let bits = votes & lanes;
        match mode {
            VoteMode::Ballot => bits,
            VoteMode::Any => (bits != 0) as u32,
            VoteMode::All => (bits == lanes) as u32,
            VoteMode::Uni => (bits == lanes || bits == 0) as u32,
        }
    };
    put(&mut r[dst.0 as usize], ms.per_group(vote), at.active);
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
