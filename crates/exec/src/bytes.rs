//! Byte-addressed loads and stores (`Mem::rank` 0, from the PTX front end): each active lane's
//! address is a byte address plus a constant offset, checked against the whole shared window
//! or the buffer the pointer points into, priced by the bank model like any shared access.
//!
//! The access's width is its array's element times the vector. Elements of 4 bytes or more,
//! and any global access of 4 bytes or more, move whole words between memory and consecutive
//! registers; narrower ones (a 1- or 2-byte shared element, or a global access under 4 bytes)
//! move element by element, one widened register each (`exec/narrow.rs`), a store changing
//! only its own bytes.

use super::api::{FirstAccess, PcStats};
use super::block::Ctx;
use super::fault::{Fault, FaultKind};
use super::lanes::per_lane;
use super::memory::move_lanes;
use super::warp::At;
use super::{Lanes, SPARE_WORDS};
use std::sync::atomic::Ordering::Relaxed;
use warpsim_kernel::ir::{Mem, Space};
use warpsim_kernel::Elem;
use warpsim_smem::{Op, WARP};

/// A byte-addressed load or store by the active lanes.
#[inline]
pub(super) fn access<const V3: bool>(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    store: bool,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    if at.active == 0 {
        return Ok(());
    }
    match m.space {
        Space::Shared => shared::<V3>(cx, at, m, store, r, ps),
        Space::Global => global(cx, at, m, store, r),
        // (A constant symbol is a read-only buffer: the checks refuse stores to it.) Its
        // distinct addresses, for the report, before the load may overwrite them.
        Space::Const => {
            let (_, d) = const_distinct(m, r, at.active);
            ps.const_requests += d as u64;
            ps.const_divergent += u64::from(d > 1);
            global(cx, at, m, store, r)
        }
        Space::Local => super::local::access(cx, at, m, store, r),
    }
}

/// The element of a byte-addressed access (its array's).
#[inline]
fn elem(cx: &Ctx, m: &Mem) -> Elem {
    if let Some(e) = m.elem {
        return e;
    }
    match m.space {
        Space::Shared => cx.prog.shared[m.array as usize].elem,
        Space::Global | Space::Const => cx.prog.buffers[m.array as usize].elem,
        Space::Local => cx.prog.local[m.array as usize].elem,
    }
}

/// Bytes per lane of a byte-addressed access (the array's element times the vector).
#[inline]
fn width(cx: &Ctx, m: &Mem) -> u32 {
    elem(cx, m).bytes() * m.vec as u32
}

fn shared<const V3: bool>(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    store: bool,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    let width = width(cx, m);
    let (base, off) = (&r[m.idx[0].0 as usize], &r[m.idx[1].0 as usize]);
    let addrs: Lanes = per_lane(|l| base[l].wrapping_add(off[l]));
    let end = ((cx.shared.len() - SPARE_WORDS) as u32 * 4).min(cx.prog.shared_bytes.max(4));
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let a = addrs[l];
        if !a.is_multiple_of(width) {
            return Err(misaligned(
                cx,
                at,
                l,
                width,
                a as u64,
                "shared memory".into(),
            ));
        }
        if a as u64 + width as u64 > end as u64 {
            let name = &cx.prog.shared[m.array as usize].name;
            let kind = FaultKind::OutOfBounds {
                global: false,
                access: format!("a {width}-byte access at shared byte {a} (near `{name}`)"),
                bounds: format!("the block's {end} bytes of shared memory"),
            };
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
        }
    }
    let op = if store { Op::St } else { Op::Ld };
    let moved = super::memory::relayout(cx, at.pc, &addrs, at.active, width)?;
    let priced = moved.as_ref().unwrap_or(&addrs);
    let counts = &mut cx.pc_bank[cx.bank_row[at.pc]];
    let cost = warpsim_smem::cost_into(&cx.cfg.geometry, op, width, priced, at.active, counts)
        .map_err(|e| {
            cx.fault(
                at.pc,
                FaultKind::Unpriceable(format!("cannot price this shared access: {e}")),
                None,
            )
        })?;
    ps.wavefronts += cost.wavefronts as u64;
    ps.conflicts += cost.conflicts as u64;
    if let Some(slot @ None) = cx.first_accesses.get_mut(at.pc) {
        *slot = Some(Box::new(FirstAccess {
            block: cx.ctaid,
            warp: at.w as u32,
            addrs,
            mask: at.active,
            width,
            store,
        }));
    }
    let words = (width / 4) as usize;
    if let Some(race) = cx.race.as_mut() {
        // (The shadow is per 32-bit word: a narrow access marks the word its bytes are in.)
        race.access(at.pc, at.w, store, at.active, &addrs, words.max(1));
    }
    let data = m.data.0 as usize;
    let e = elem(cx, m);
    if e.is_narrow() {
        // 1- and 2-byte elements: packed in memory, one register each (exec/narrow.rs).
        let regs = &mut r[data..data + m.vec as usize];
        super::narrow::shared_move(cx.shared, regs, &addrs, at.active, e, store);
        return Ok(());
    }
    move_lanes::<V3>(
        cx.shared,
        &mut r[data..data + words],
        &addrs,
        at.active,
        width,
        store,
    );
    Ok(())
}

fn misaligned(cx: &Ctx, at: &At, l: usize, width: u32, byte: u64, memory: String) -> Fault {
    let kind = FaultKind::Misaligned {
        width,
        access: cx.text(at.pc).to_owned(),
        byte,
        memory,
    };
    cx.lane_fault(at.pc, at.w, l as u32, kind, None)
}

/// The buffer and byte offset a 64-bit global pointer points at (`None`: no buffer).
#[inline]
pub(super) fn decode(lo: u32, hi: u32, off: u32) -> Option<(usize, u64)> {
    let ptr = (lo as u64 | (hi as u64) << 32).wrapping_add(off as i32 as i64 as u64);
    let k = (ptr >> Mem::GLOBAL_BASE_SHIFT).checked_sub(1)?;
    Some((k as usize, ptr & ((1 << Mem::GLOBAL_BASE_SHIFT) - 1)))
}

fn global(cx: &mut Ctx, at: &At, m: &Mem, store: bool, r: &mut [Lanes]) -> Result<(), Fault> {
    let width = width(cx, m);
    let a = m.idx[0].0 as usize;
    let (lo, hi, off) = (r[a], r[a + 1], r[m.idx[1].0 as usize]);
    let data = m.data.0 as usize;
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let Some((k, byte)) = decode(lo[l], hi[l], off[l])
            .filter(|&(k, _)| k < cx.global.buffers.len() && k < cx.prog.buffers.len())
        else {
            let kind = FaultKind::OutOfBounds {
                global: true,
                access: format!(
                    "a {width}-byte access at address {:#x}",
                    lo[l] as u64 | (hi[l] as u64) << 32
                ),
                bounds: "every buffer of the program".into(),
            };
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
        };
        let buf = &cx.prog.buffers[k];
        let mem = &cx.global.buffers[k];
        if !byte.is_multiple_of(width as u64) {
            let name = format!("`{}`", buf.name);
            return Err(misaligned(cx, at, l, width, byte, name));
        }
        let at_word = (byte / 4) as usize;
        let end = (byte + width as u64).div_ceil(4) as usize;
        let inside = byte + width as u64 <= buf.len * buf.elem.bytes() as u64;
        let Some(cells) = mem.get(at_word..end).filter(|_| inside) else {
            let kind = FaultKind::OutOfBounds {
                global: true,
                access: format!("a {width}-byte access at byte {byte} of `{}`", buf.name),
                bounds: format!(
                    "`{}`: {} bytes",
                    buf.name,
                    buf.len * buf.elem.bytes() as u64
                ),
            };
            return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
        };
        // (A narrow access of 4 bytes or more moves whole words, as a wide one: the PTX
        // front end packs and unpacks its elements.)
        let e = elem(cx, m);
        if width < 4 {
            for k in 0..m.vec as usize {
                let b = byte + (k as u32 * e.bytes()) as u64;
                super::narrow::global_move(mem, e, b, store, &mut r[data + k][l]);
            }
            continue;
        }
        for (k, c) in cells.iter().enumerate() {
            if store {
                c.store(r[data + k][l], Relaxed);
            } else {
                r[data + k][l] = c.load(Relaxed);
            }
        }
    }
    Ok(())
}

/// The buffer and element indices (in units of the access's width) a byte-addressed global
/// access touches, for the timing hook: `(buffer, index)` of the first active lane's buffer.
#[inline]
pub(super) fn global_lanes(cx: &Ctx, m: &Mem, r: &[Lanes], active: u32) -> (u16, Lanes, u32) {
    let width = width(cx, m).max(1);
    let a = m.idx[0].0 as usize;
    let (lo, hi, off) = (&r[a], &r[a + 1], &r[m.idx[1].0 as usize]);
    let first = active.trailing_zeros() as usize % WARP;
    let k = decode(lo[first], hi[first], off[first]).map_or(m.array as usize, |(k, _)| k);
    let idx =
        per_lane(|l| decode(lo[l], hi[l], off[l]).map_or(0, |(_, b)| (b / width as u64) as u32));
    (k as u16, idx, width)
}

/// The distinct byte addresses the active lanes of a byte-addressed constant load read, as
/// byte offsets in its buffer, the first active lane's first (the H200's `LDC` makes one
/// constant-cache request per distinct address: `calibration/probes/cuda_coverage`, spec C-3),
/// and how many. For the report and the timing hook.
#[inline]
pub(super) fn const_distinct(m: &Mem, r: &[Lanes], active: u32) -> ([u32; WARP], usize) {
    let a = m.idx[0].0 as usize;
    let (lo, hi, off) = (&r[a], &r[a + 1], &r[m.idx[1].0 as usize]);
    let mut seen = [0u64; WARP];
    let mut n = 0usize;
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let p = (lo[l] as u64 | (hi[l] as u64) << 32).wrapping_add(off[l] as i32 as i64 as u64);
        if !seen[..n].contains(&p) {
            seen[n] = p;
            n += 1;
        }
    }
    // (The byte in the buffer: below the buffer number's bits, `Mem::GLOBAL_BASE_SHIFT`.)
    let byte = |p: u64| (p & ((1u64 << Mem::GLOBAL_BASE_SHIFT) - 1)).min(u32::MAX as u64) as u32;
    (seen.map(byte), n)
}
