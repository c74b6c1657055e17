//! Local memory (PTX `.local`, [`Space::Local`](warpsim_kernel::ir::Space::Local)): each thread's
//! private bytes, [`Program::local_bytes`](warpsim_kernel::Program::local_bytes) of them, addressed
//! from 0. A block's local memory is one run of words in the scratch, zeroed when the block
//! starts (the GPU leaves it undefined; zeros keep runs deterministic): thread `t`'s window
//! is words `t * local_bytes / 4 ..`, laid out thread by thread (the functional result does
//! not depend on the layout; the timing model prices the hardware's interleaved layout from
//! the offsets [`offsets`] gives the hook).
//!
//! An access is byte-addressed like a shared one (`idx[0]` + `idx[1]`); each active lane's
//! offset must be a multiple of the access's width and the access must end inside the
//! window, else it is a fault with the lane. Never priced by the bank model and never seen by
//! the race checker: no other thread can reach these bytes.

use super::block::Ctx;
use super::fault::{Fault, FaultKind};
use super::lanes::per_lane;
use super::warp::At;
use super::{Lanes, LOADER_BUG};
use warpsim_kernel::ir::Mem;
use warpsim_kernel::narrow;
use warpsim_smem::WARP;

/// Each lane's byte offset in its local window, and the access's bytes per lane.
#[inline]
pub(super) fn offsets(cx: &Ctx, m: &Mem, r: &[Lanes]) -> (Lanes, u32) {
    let width = cx
        .prog
        .local
        .get(m.array as usize)
        .map_or(4, |v| v.elem.bytes())
        * m.vec as u32;
    let (base, off) = (&r[m.idx[0].0 as usize], &r[m.idx[1].0 as usize]);
    (per_lane(|l| base[l].wrapping_add(off[l])), width)
}

/// A local load or store by the active lanes of warp `at.w`.
pub(super) fn access(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    store: bool,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    if at.active == 0 {
        return Ok(());
    }
    let Some(elem) = cx.prog.local.get(m.array as usize).map(|v| v.elem) else {
        return Err(malformed(cx, at));
    };
    let (addrs, width) = offsets(cx, m, r);
    let size = cx.prog.local_bytes;
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let a = addrs[l];
        if !a.is_multiple_of(width) {
            let kind = FaultKind::Misaligned {
                width,
                access: cx.text(at.pc).to_owned(),
                byte: a as u64,
                memory: "the thread's local memory".into(),
            };
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
        }
        if a as u64 + width as u64 > size as u64 {
            let kind = FaultKind::LocalOutOfBounds {
                access: format!("a {width}-byte access at local byte {}", a as i32),
                bounds: format!("the thread's {size} bytes of local memory"),
            };
            let help = "a local array indexed at run time: check the index against the \
                        array's length"
                .to_owned();
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, Some(help)));
        }
    }
    let lw = size.div_ceil(4) as usize;
    let first = at.w * WARP * lw;
    let Some(warp) = cx.local.get_mut(first..first + WARP * lw) else {
        return Err(malformed(cx, at));
    };
    let data = m.data.0 as usize;
    let eb = elem.bytes();
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let window = &mut warp[l * lw..(l + 1) * lw];
        let a = addrs[l];
        if elem.is_narrow() {
            // 1- and 2-byte elements: packed in memory, one widened register each.
            for k in 0..m.vec as usize {
                let byte = a as u64 + (k as u32 * eb) as u64;
                if store {
                    narrow::set(window, eb, byte, r[data + k][l]);
                } else if let Some(bits) = narrow::get(window, eb, byte) {
                    r[data + k][l] = narrow::widen(elem, bits);
                }
            }
            continue;
        }
        // (Checked above: aligned to the width, which is a multiple of 4, and inside.)
        let at_word = (a / 4) as usize;
        let cells = &mut window[at_word..at_word + (width / 4) as usize];
        for (k, c) in cells.iter_mut().enumerate() {
            if store {
                *c = r[data + k][l];
            } else {
                r[data + k][l] = *c;
            }
        }
    }
    Ok(())
}

#[cold]
fn malformed(cx: &Ctx, at: &At) -> Fault {
    cx.fault(
        at.pc,
        FaultKind::Malformed("a local access without its local memory".into()),
        Some(LOADER_BUG.into()),
    )
}
