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
use warpsim_kernel::ir::{BulkOp, MbarKind, TensorOp};
use warpsim_kernel::tensormap::{TensorMap, TENSORMAP_BASE};

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
        let what = (
            format!("{n} bytes of `{text}`"),
            format!("the shared side of `{text}`"),
        );
        if let Some(kind) = shared_side(sa, n as u64, 16, end, what) {
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
                race.async_write(sa, words);
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
                race.async_read(at.pc, at.w, &[sa], words);
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

/// The fault of `bytes` at shared byte `sa` that must be `align`-aligned and end within the
/// block's `end` bytes, if they are not (`what`: the bytes, then the access, for messages).
fn shared_side(
    sa: u32,
    bytes: u64,
    align: u32,
    end: u32,
    what: (String, String),
) -> Option<FaultKind> {
    if !sa.is_multiple_of(align) {
        return Some(FaultKind::Misaligned {
            width: align,
            access: what.1,
            byte: sa as u64,
            memory: "shared memory".into(),
        });
    }
    (sa as u64 + bytes > end as u64).then(|| FaultKind::OutOfBounds {
        global: false,
        access: format!("{} at shared byte {sa}", what.0),
        bounds: format!("the block's {end} bytes of shared memory"),
    })
}

/// The tensor map a lane's pointer names ([`TENSORMAP_BASE`]` + 128 k`).
fn tensor_map<'a>(cx: &Ctx<'a>, ptr: u64) -> Option<&'a TensorMap> {
    let off = ptr.checked_sub(TENSORMAP_BASE)?;
    if !off.is_multiple_of(128) {
        return None;
    }
    cx.prog.tensor_maps.get((off / 128) as usize)
}

/// `op` (a tensor copy: TMA with a tensor map) by the active lanes of warp `at.w`.
pub(super) fn tensor(cx: &mut Ctx, at: &At, op: &TensorOp, r: &[Lanes]) -> Result<(), Fault> {
    let rank = (op.rank as usize).min(5);
    let (lo, hi) = (r[op.map.0 as usize], r[op.map.0 as usize + 1]);
    let (smem, mbar) = (r[op.smem.0 as usize], r[op.mbar.0 as usize]);
    let end = super::tensor_exec::shared_end(cx);
    let text = cx.text(at.pc).to_owned();
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let fault = |kind, help: String| cx.lane_fault(at.pc, at.w, l as u32, kind, Some(help));
        let ptr = lo[l] as u64 | (hi[l] as u64) << 32;
        let Some(m) = tensor_map(cx, ptr) else {
            return Err(fault(
                FaultKind::Unpriceable(format!("`{text}` names no tensor map (address {ptr:#x})")),
                "pass the kernel's CUtensorMap parameter's address (a tensor map of the launch \
                 file's `tensor_maps`)"
                    .into(),
            ));
        };
        if m.rank != op.rank {
            return Err(fault(
                FaultKind::Unpriceable(format!(
                    "a {}-D tensor copy with the {}-D tensor map `{}`",
                    op.rank, m.rank, m.name
                )),
                "copy with as many coordinates as the tensor map has dimensions".into(),
            ));
        }
        let sa = smem[l];
        // (128 bytes, swizzled or not: the H200 applies the swizzle to the address bits of a
        // box at any multiple of 128, `calibration/probes/tma_swizzle`.)
        let align = 128u32;
        let bytes = m.box_bytes();
        let span = if m.swizzle.bytes() > 0 {
            m.footprint().div_ceil(128) * 128
        } else {
            bytes
        };
        let what = (
            format!("the {bytes}-byte box of `{text}`"),
            format!("the box of `{text}`"),
        );
        if let Some(kind) = shared_side(sa, span, align, end, what) {
            return Err(fault(
                kind,
                format!(
                    "a box's shared address is a multiple of {align} bytes (tensor map `{}`)",
                    m.name
                ),
            ));
        }
        let at_coords: Vec<i32> = op.coords[..rank]
            .iter()
            .map(|c| r[c.0 as usize][l] as i32)
            .collect();
        let words = &cx.global.buffers[m.buffer as usize];
        let esize = m.esize;
        let thread = at.w * 32 + l;
        if op.store {
            if let Some(race) = cx.race.as_mut() {
                race.access(at.pc, at.w, false, 1 << l, &[sa; 32], (span / 4) as usize);
                race.async_read(at.pc, at.w, &[sa], (span / 4) as usize);
            }
            let shared = &*cx.shared;
            m.copy(sa, &at_coords, |s, g| {
                if let Some(g) = g {
                    for b in 0..esize {
                        let a = sa.wrapping_add(s).wrapping_add(b);
                        let v = shared
                            .get((a / 4) as usize)
                            .map_or(0, |w| (w >> ((a % 4) * 8)) as u8);
                        put_byte(words, g + b as u64, v);
                    }
                }
            });
        } else {
            let phase = super::mbarrier::phase(cx, at, l, mbar[l])?;
            if let Some(race) = cx.race.as_mut() {
                race.access(at.pc, at.w, true, 1 << l, &[sa; 32], (span / 4) as usize);
                race.async_write(sa, (span / 4) as usize);
                race.copies
                    .copy_to_barrier(at.pc, thread, sa, (span / 4) as u32, (mbar[l], phase));
            }
            let fill = fill_byte(m);
            let shared = &mut *cx.shared;
            m.copy(sa, &at_coords, |s, g| {
                for b in 0..esize {
                    let v = match g {
                        Some(g) => get_byte(words, g + b as u64),
                        None => fill(b),
                    };
                    let a = sa.wrapping_add(s).wrapping_add(b);
                    if let Some(w) = shared.get_mut((a / 4) as usize) {
                        let sh = (a % 4) * 8;
                        *w = (*w & !(0xff << sh)) | (v as u32) << sh;
                    }
                }
            });
            super::mbarrier::update(cx, at, l, mbar[l], MbarKind::CompleteTx, bytes as u32)?;
        }
    }
    Ok(())
}

/// Byte `b` of an element outside the tensor: zero, or (`fill: Nan`) the NaN the H200 writes,
/// `0x7ff7` in every 16 bits (an f32 reads `0x7ff77ff7`: `calibration/probes/tma_swizzle`; the
/// same pattern is a NaN of f16, bf16 and f64 too, not measured there).
fn fill_byte(m: &TensorMap) -> impl Fn(u32) -> u8 {
    let nan = m.fill_nan;
    move |b| match (nan, b % 2) {
        (false, _) => 0,
        (true, 0) => 0xf7,
        (true, _) => 0x7f,
    }
}

fn get_byte(words: &super::Words, byte: u64) -> u8 {
    words
        .get((byte / 4) as usize)
        .map_or(0, |w| (w.load(Relaxed) >> ((byte % 4) * 8)) as u8)
}

fn put_byte(words: &super::Words, byte: u64, v: u8) {
    if let Some(w) = words.get((byte / 4) as usize) {
        let sh = (byte % 4) * 8;
        let _ = w.fetch_update(Relaxed, Relaxed, |x| {
            Some((x & !(0xff << sh)) | (v as u32) << sh)
        });
    }
}
