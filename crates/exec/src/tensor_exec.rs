//! Handlers of the warp-wide matrix and asynchronous-copy instructions (issue 41):
//! `ldmatrix`/`stmatrix` ([`Inst::Matrix`](warpsim_kernel::ir::Inst::Matrix)) and `cp.async`
//! with its group instructions. The data move as [`crate::tensor`] defines it (the fragments
//! and byte order the H200 produced in its dumps); the price is the bank model's
//! ([`warpsim_smem::matrix_cost`], [`warpsim_smem::async_copy_cost`]).
//!
//! A `cp.async` copies when it is issued; `commit_group`/`wait_group` change nothing in the
//! data. The race checker ([`crate::race`]) holds each copied word as pending until the
//! `wait_group` that completes its group: any access to it before then is a hazard.

use super::api::PcStats;
use super::block::Ctx;
use super::bytes::decode;
use super::fault::{Fault, FaultKind};
use super::warp::At;
use super::{Lanes, SPARE_WORDS};
use std::sync::atomic::Ordering::Relaxed;
use warpsim_kernel::ir::{CopyOp, FragAt, MatrixOp, Reg};
use warpsim_smem::{AsyncCopy, CopyError, CopyLanes, Matrix, MatrixError, WARP};

/// The end of the block's shared window, in bytes.
pub(super) fn shared_end(cx: &Ctx) -> u32 {
    ((cx.shared.len() - SPARE_WORDS) as u32 * 4).min(cx.prog.shared_bytes.max(4))
}

/// A WMMA fragment's per-lane address (`Inst::FragAddr`): `dst = base + f.offset(lane,
/// stride)`, 64-bit when `wide`.
pub(super) fn frag_addr(
    r: &mut [Lanes],
    at: &At,
    (dst, base, stride): (Reg, Reg, Reg),
    f: FragAt,
    wide: bool,
) {
    let strides = r[stride.0 as usize];
    if wide {
        let xs = crate::lanes::get_u64(r, base);
        let v =
            crate::lanes::per_lane(|l| xs[l].wrapping_add(f.offset(l as u32, strides[l] as u64)));
        crate::lanes::put_u64(r, dst, v, at.active);
    } else {
        let xs = r[base.0 as usize];
        let d = &mut r[dst.0 as usize];
        let mut lanes = at.active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            d[l] = xs[l].wrapping_add(f.offset(l as u32, strides[l] as u64) as u32);
        }
    }
}

/// `ldmatrix` / `stmatrix` by the active lanes of warp `at.w`.
pub(super) fn matrix(
    cx: &mut Ctx,
    at: &At,
    op: &MatrixOp,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    if at.active == 0 {
        return Ok(());
    }
    let shape = Matrix {
        store: op.store,
        n: op.n as u32,
        trans: op.trans,
    };
    let rows: Lanes = r[op.addr.0 as usize];
    let used = shape.used_mask();
    let moved = super::memory::relayout(cx, at.pc, &rows, used & at.active, 16)?;
    let priced = moved.as_ref().unwrap_or(&rows);
    let counts = &mut cx.pc_bank[cx.bank_row[at.pc]];
    let cost =
        warpsim_smem::matrix_cost_counting(&cx.cfg.geometry, shape, priced, at.active, counts)
            .map_err(|e| match e {
                MatrixError::Misaligned { lane, addr } => cx.lane_fault(
                    at.pc,
                    at.w,
                    lane,
                    FaultKind::Misaligned {
                        width: 16,
                        access: format!(
                            "row {} of matrix {} of `{}`",
                            lane % 8,
                            lane / 8,
                            cx.text(at.pc)
                        ),
                        byte: addr as u64,
                        memory: "shared memory".into(),
                    },
                    Some("each row address of ldmatrix/stmatrix must be a multiple of 16".into()),
                ),
                MatrixError::Inactive { lane, .. } => cx.lane_fault(
                    at.pc,
                    at.w,
                    lane,
                    FaultKind::Unpriceable(e.to_string()),
                    Some(
                        "ldmatrix/stmatrix are .sync.aligned: every lane that gives a row address \
                     must execute them together"
                            .into(),
                    ),
                ),
                e => cx.fault(
                    at.pc,
                    FaultKind::Unpriceable(format!("cannot price this matrix access: {e}")),
                    None,
                ),
            })?;
    // Every used row's 16 bytes inside the block's shared memory.
    let end = shared_end(cx);
    let mut lanes = used;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if rows[l] as u64 + 16 > end as u64 {
            let kind = FaultKind::OutOfBounds {
                global: false,
                access: format!(
                    "row {} of matrix {} (16 bytes at shared byte {})",
                    l % 8,
                    l / 8,
                    rows[l]
                ),
                bounds: format!("the block's {end} bytes of shared memory"),
            };
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
        }
    }
    ps.wavefronts += cost.wavefronts as u64;
    ps.conflicts += cost.conflicts as u64;
    if let Some(race) = cx.race.as_mut() {
        // Each row as the access of the lane that gives its address (hazards are between
        // warps, so which lane of the warp reads a row does not matter).
        race.access(at.pc, at.w, op.store, used, &rows, 4);
    }
    let n = op.n as usize;
    let shared = &mut *cx.shared;
    if op.store {
        let mut regs = [[0u32; 4]; WARP];
        for (i, reg) in op.used_regs().iter().enumerate() {
            let v = &r[reg.0 as usize];
            for (l, lane) in regs.iter_mut().enumerate() {
                lane[i] = v[l];
            }
        }
        crate::tensor::stmatrix(n, op.trans, &rows, &regs, |a, v| {
            let (w, sh) = ((a / 4) as usize, (a % 4) * 8);
            if let Some(c) = shared.get_mut(w) {
                *c = (*c & !(0xffff << sh)) | (v as u32) << sh;
            }
        });
    } else {
        let out = crate::tensor::ldmatrix(n, op.trans, &rows, |a| {
            let (w, sh) = ((a / 4) as usize, (a % 4) * 8);
            shared.get(w).map_or(0, |c| (c >> sh) as u16)
        });
        for (i, reg) in op.used_regs().iter().enumerate() {
            let dst = &mut r[reg.0 as usize];
            let mut lanes = at.active;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                dst[l] = out[l][i];
            }
        }
    }
    Ok(())
}

/// Each active lane's global source of a `cp.async`: the 64-bit pointer, its buffer and
/// byte offset (`None`: no buffer).
pub(super) fn copy_sources(
    cx: &Ctx,
    op: &CopyOp,
    r: &[Lanes],
) -> ([u64; WARP], [Option<(usize, u64)>; WARP]) {
    let s = op.src.0 as usize;
    let (lo, hi) = (&r[s], &r[s + 1]);
    let mut ptr = [0u64; WARP];
    let mut at = [None; WARP];
    for l in 0..WARP {
        ptr[l] = lo[l] as u64 | (hi[l] as u64) << 32;
        at[l] = decode(lo[l], hi[l], 0)
            .filter(|&(k, _)| k < cx.global.buffers.len() && k < cx.prog.buffers.len());
    }
    (ptr, at)
}

/// `cp.async` by the active lanes of warp `at.w`: checks, prices and copies.
pub(super) fn cp_async(
    cx: &mut Ctx,
    at: &At,
    op: &CopyOp,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    if at.active == 0 {
        return Ok(());
    }
    let width = op.width as u32;
    let dst: Lanes = r[op.dst.0 as usize];
    let size: Lanes = match op.size {
        Some(s) => r[s.0 as usize],
        None => [width; WARP],
    };
    let (ptr, src) = copy_sources(cx, op, r);
    let end = shared_end(cx);
    let text = cx.text(at.pc).to_owned();
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let fault = |kind, help: Option<String>| cx.lane_fault(at.pc, at.w, l as u32, kind, help);
        if size[l] > width {
            let msg = CopyError::Size {
                lane: l as u32,
                size: size[l],
                width,
            };
            return Err(fault(FaultKind::Unpriceable(msg.to_string()), None));
        }
        if !dst[l].is_multiple_of(width) {
            return Err(fault(
                FaultKind::Misaligned {
                    width,
                    access: format!("the destination of `{text}`"),
                    byte: dst[l] as u64,
                    memory: "shared memory".into(),
                },
                None,
            ));
        }
        if dst[l] as u64 + width as u64 > end as u64 {
            return Err(fault(
                FaultKind::OutOfBounds {
                    global: false,
                    access: format!(
                        "a {width}-byte cp.async destination at shared byte {}",
                        dst[l]
                    ),
                    bounds: format!("the block's {end} bytes of shared memory"),
                },
                None,
            ));
        }
        let Some((k, byte)) = src[l] else {
            return Err(fault(
                FaultKind::OutOfBounds {
                    global: true,
                    access: format!("a {width}-byte cp.async source at address {:#x}", ptr[l]),
                    bounds: "every buffer of the program".into(),
                },
                None,
            ));
        };
        let buf = &cx.prog.buffers[k];
        if !byte.is_multiple_of(width as u64) {
            return Err(fault(
                FaultKind::Misaligned {
                    width,
                    access: format!("the source of `{text}`"),
                    byte,
                    memory: format!("`{}`", buf.name),
                },
                None,
            ));
        }
        let bytes = buf.len * buf.elem.bytes() as u64;
        if byte + size[l] as u64 > bytes {
            return Err(fault(
                FaultKind::OutOfBounds {
                    global: true,
                    access: format!(
                        "a {}-byte cp.async read at byte {byte} of `{}`",
                        size[l], buf.name
                    ),
                    bounds: format!("`{}`: {bytes} bytes", buf.name),
                },
                None,
            ));
        }
    }
    let kind = AsyncCopy {
        bypass: op.bypass,
        width,
        zfill: op.size.is_some(),
    };
    let moved = super::memory::relayout(cx, at.pc, &dst, at.active, width)?;
    let lanes = CopyLanes {
        dst: moved.as_ref().unwrap_or(&dst),
        src: &ptr,
        size: &size,
        mask: at.active,
    };
    let counts = &mut cx.pc_bank[cx.bank_row[at.pc]];
    let cost = warpsim_smem::async_copy_cost_counting(&cx.cfg.geometry, kind, lanes, counts)
        .map_err(|e| {
            cx.fault(
                at.pc,
                FaultKind::Unpriceable(format!("cannot price this cp.async: {e}")),
                None,
            )
        })?;
    ps.wavefronts += cost.wavefronts as u64;
    ps.conflicts += cost.conflicts as u64;
    ps.copy_sectors += cost.sectors as u64;
    ps.copy_hw_wavefronts += cost.hw_wavefronts as u64;
    ps.copy_hw_conflicts += cost.hw_conflicts as u64;
    if let Some(race) = cx.race.as_mut() {
        race.access(at.pc, at.w, true, at.active, &dst, (width / 4) as usize);
        race.copies.copy(at.pc, at.w, at.active, &dst, width / 4);
    }
    let global = cx.global;
    let shared = &mut *cx.shared;
    crate::tensor::cp_async(
        width,
        &dst,
        &ptr,
        &size,
        at.active,
        |p| {
            let lane_src = decode(p as u32, (p >> 32) as u32, 0);
            lane_src
                .and_then(|(k, b)| global.buffers.get(k)?.get((b / 4) as usize))
                .map_or(0, |w| (w.load(Relaxed) >> ((p % 4) * 8)) as u8)
        },
        |a, v| {
            let (w, sh) = ((a / 4) as usize, (a % 4) * 8);
            if let Some(c) = shared.get_mut(w) {
                *c = (*c & !(0xff << sh)) | (v as u32) << sh;
            }
        },
    );
    Ok(())
}

/// `cp.async.commit_group` / `wait_group n` / `wait_all`: only the race checker keeps count.
pub(super) fn group(cx: &mut Ctx, at: &At, wait: Option<(u8, bool)>) {
    if let Some(race) = cx.race.as_mut() {
        match wait {
            None => race.copies.commit(at.w),
            Some((n, all)) => {
                if all {
                    race.copies.commit(at.w);
                }
                race.copies.wait(at.w, n as u32);
            }
        }
    }
}

/// For the timing hook: the buffer of the first active lane's source and each lane's source
/// in units of the copy's width.
pub(super) fn copy_indices(cx: &Ctx, op: &CopyOp, r: &[Lanes], active: u32) -> (u16, Lanes) {
    let (_, src) = copy_sources(cx, op, r);
    let first = active.trailing_zeros() as usize % WARP;
    let k = src[first].map_or(0, |(k, _)| k as u16);
    let mut idx = [0u32; WARP];
    for (i, s) in idx.iter_mut().zip(&src) {
        *i = s.map_or(0, |(_, b)| (b / op.width.max(1) as u64) as u32);
    }
    (k, idx)
}
