//! `cp.async.bulk` (issue 41): TMA's one-dimensional copies between global and shared memory,
//! as `cuda::memcpy_async` with a `cuda::barrier` emits them on sm_90 for 16-byte aligned
//! sizes. Each active lane copies `size` bytes (a multiple of 16, both addresses 16-aligned)
//! when it is issued. A copy into shared memory then completes `size` transaction bytes of its
//! mbarrier ([`crate::mbarrier::update`]); the race checker holds its words as pending until
//! that barrier's phase completes. A copy out of shared memory is complete at issue (its
//! `bulk_group` commit and wait change nothing).
//!
//! The bytes are not shared accesses in the bank counters (the copy engine writes them, not
//! the LSU pipe; Nsight's counters for it are not measured yet).

use super::block::Ctx;
use super::bytes::decode;
use super::fault::{Fault, FaultKind};
use super::warp::At;
use super::Lanes;
use std::sync::atomic::Ordering::Relaxed;
use warpsim_kernel::ir::{BulkOp, MbarKind};

/// `op` by the active lanes of warp `at.w`.
pub(super) fn copy(cx: &mut Ctx, at: &At, op: &BulkOp, r: &[Lanes]) -> Result<(), Fault> {
    let to_shared = op.mbar.is_some();
    let (s, g) = if to_shared {
        (op.dst, op.src)
    } else {
        (op.src, op.dst)
    };
    let (shared, lo, hi, size) = (
        r[s.0 as usize],
        r[g.0 as usize],
        r[g.0 as usize + 1],
        r[op.size.0 as usize],
    );
    let mbar = op.mbar.map(|m| r[m.0 as usize]);
    let end = super::tensor_exec::shared_end(cx);
    let text = cx.text(at.pc).to_owned();
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let fault =
            |kind, help: &str| cx.lane_fault(at.pc, at.w, l as u32, kind, Some(help.into()));
        let n = size[l];
        if !n.is_multiple_of(16) {
            return Err(fault(
                FaultKind::Unpriceable(format!("a bulk copy of {n} bytes")),
                "cp.async.bulk copies a multiple of 16 bytes",
            ));
        }
        let sa = shared[l];
        if !sa.is_multiple_of(16) || sa as u64 + n as u64 > end as u64 {
            let kind = if sa.is_multiple_of(16) {
                FaultKind::OutOfBounds {
                    global: false,
                    access: format!("{n} bytes of `{text}` at shared byte {sa}"),
                    bounds: format!("the block's {end} bytes of shared memory"),
                }
            } else {
                FaultKind::Misaligned {
                    width: 16,
                    access: format!("the shared side of `{text}`"),
                    byte: sa as u64,
                    memory: "shared memory".into(),
                }
            };
            return Err(fault(
                kind,
                "both addresses of a bulk copy are 16-byte aligned",
            ));
        }
        let ptr = lo[l] as u64 | (hi[l] as u64) << 32;
        let place = decode(lo[l], hi[l], 0)
            .filter(|&(k, _)| k < cx.global.buffers.len() && k < cx.prog.buffers.len());
        let Some((k, byte)) = place else {
            return Err(fault(
                FaultKind::OutOfBounds {
                    global: true,
                    access: format!("the global side of `{text}` at address {ptr:#x}"),
                    bounds: "every buffer of the program".into(),
                },
                "pass a pointer into one of the launch's buffers",
            ));
        };
        let buf = &cx.prog.buffers[k];
        let bytes = buf.len * buf.elem.bytes() as u64;
        if !byte.is_multiple_of(16) || byte + n as u64 > bytes {
            let kind = if byte.is_multiple_of(16) {
                FaultKind::OutOfBounds {
                    global: true,
                    access: format!("{n} bytes of `{text}` at byte {byte} of `{}`", buf.name),
                    bounds: format!("`{}`: {bytes} bytes", buf.name),
                }
            } else {
                FaultKind::Misaligned {
                    width: 16,
                    access: format!("the global side of `{text}`"),
                    byte,
                    memory: format!("`{}`", buf.name),
                }
            };
            return Err(fault(
                kind,
                "both addresses of a bulk copy are 16-byte aligned",
            ));
        }
        let (sw, gw, words) = ((sa / 4) as usize, (byte / 4) as usize, (n / 4) as usize);
        let global = &cx.global.buffers[k];
        if to_shared {
            let phase = match mbar {
                Some(m) => Some((m[l], super::mbarrier::phase(cx, at, l, m[l])?)),
                None => None,
            };
            if let (Some(race), Some((m, p))) = (cx.race.as_mut(), phase) {
                let dst = [sa; 32];
                let one = 1u32 << l;
                race.access(at.pc, at.w, true, one, &dst, words);
                race.copies
                    .copy_to_barrier(at.pc, at.w * 32 + l, sa, n / 4, (m, p));
            }
            for i in 0..words {
                cx.shared[sw + i] = global.get(gw + i).map_or(0, |w| w.load(Relaxed));
            }
            if let Some((m, _)) = phase {
                super::mbarrier::update(cx, at, l, m, MbarKind::CompleteTx, n)?;
            }
        } else {
            if let Some(race) = cx.race.as_mut() {
                race.access(at.pc, at.w, false, 1 << l, &[sa; 32], words);
            }
            for i in 0..words {
                if let Some(w) = global.get(gw + i) {
                    w.store(cx.shared[sw + i], Relaxed);
                }
            }
        }
    }
    Ok(())
}
