//! Handlers of loads and stores: each active lane's address is checked (all 32 lanes at once),
//! a shared access is priced by the bank model ([`warpsim_smem`]), and the data moves.

use super::api::{FirstAccess, PcStats};
use super::block::Ctx;
use super::fault::{global_fault, shared_fault, Fault, FaultKind};
use super::gather::{copy_atomic, deinterleave, interleave};
#[cfg(target_arch = "x86_64")]
use super::gather::{gather_avx2, gather_rows};
use super::lanes::{is_uniform, lane_flags, movemask, per_lane, put, BIT};
use super::warp::At;
use super::{Lanes, FULL, SPARE_WORDS};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_kernel::ir::{Inst, Mem, Space};
use warpsim_kernel::SharedInfo;
use warpsim_smem::{Cost, Op, WARP};

/// `Load` or `Store`: one access by the active lanes; a shared one adds its wavefronts and
/// conflicts to the instruction's counters `ps`.
///
/// `inst` is read where it lies in the code, not from the copy of the instruction made for the
/// dispatch (fewer stack round trips, which once stalled on store forwarding here).
#[inline(always)]
pub(super) fn load_store<const V3: bool>(
    cx: &mut Ctx,
    at: &At,
    inst: &Inst,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    let (Inst::Load(m) | Inst::Store(m)) = inst else {
        unreachable!("only loads and stores are dispatched here")
    };
    let store = matches!(inst, Inst::Store(_));
    if m.byte_addressed() {
        return super::bytes::access::<V3>(cx, at, m, store, r, ps);
    }
    let cost = access::<V3>(cx, at.pc, at.w, m, store, at.active, r)?;
    ps.wavefronts += cost.wavefronts as u64;
    ps.conflicts += cost.conflicts as u64;
    Ok(())
}

/// One load or store by the active lanes of warp `w`.
#[inline(always)]
fn access<const V3: bool>(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<Cost, Fault> {
    match m.space {
        Space::Shared => shared_access::<V3>(cx, pc, w, m, store, active, r),
        Space::Global => global_access(cx, pc, w, m, store, active, r).map(|()| Cost::default()),
        // (Only byte-addressed: the executor's checks refuse any other local or constant
        // access.)
        Space::Local | Space::Const => Ok(Cost::default()),
    }
}

/// A shared access: checks every active lane's index, prices the access, moves the data.
///
/// The checks run on all 32 lanes at once; only when one fails does [`shared_fault`] work
/// out, for the first failing lane, what exactly is wrong.
#[inline(always)]
fn shared_access<const V3: bool>(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<Cost, Fault> {
    let s = &cx.prog.shared[m.array as usize];
    let vec = m.vec as u32;
    let last = m.rank as usize - 1;
    let eb = s.elem.bytes();
    let width = eb * vec;

    if active == 0 {
        return Ok(Cost::default());
    }
    let end =
        (s.base as u64 + s.bytes as u64).min((cx.shared.len() - SPARE_WORDS) as u64 * 4) as u32;

    // A uniform access (every active lane with the same indices: a broadcast load, say) is
    // checked once.
    let first = active.trailing_zeros() as usize;
    let mut uniform = true;
    for i in &m.idx[..=last] {
        if !is_uniform(&r[i.0 as usize], active, first) {
            uniform = false;
            break;
        }
    }
    let addrs: Lanes = if uniform {
        let mut idx = [0u32; 3];
        for (d, i) in idx[..=last].iter_mut().enumerate() {
            *i = r[m.idx[d].0 as usize][first];
        }
        match lane_address(s, &idx[..=last], vec, end) {
            Some(a) => [a; WARP],
            None => return Err(shared_fault(cx, pc, w, *m, first as u32, r)),
        }
    } else {
        spread_addresses(s, m, r, active, end)
            .map_err(|lane| shared_fault(cx, pc, w, *m, lane, r))?
    };

    let op = if store { Op::St } else { Op::Ld };
    let moved = relayout(cx, pc, &addrs, active, width)?;
    let priced = moved.as_ref().unwrap_or(&addrs);
    let counts = &mut cx.pc_bank[cx.bank_row[pc]];
    let geom = &cx.cfg.geometry;
    let cost = if uniform {
        warpsim_smem::cost_uniform_into(geom, op, width, priced[0], active, counts)
    } else {
        warpsim_smem::cost_into(geom, op, width, priced, active, counts)
    }
    .map_err(|e| {
        cx.fault(
            pc,
            FaultKind::Unpriceable(format!("cannot price this shared access: {e}")),
            None,
        )
    })?;
    if let Some(slot @ None) = cx.first_accesses.get_mut(pc) {
        // Once per instruction per worker: not on the hot path.
        *slot = Some(Box::new(FirstAccess {
            block: cx.ctaid,
            warp: w as u32,
            addrs,
            mask: active,
            width,
            store,
        }));
    }

    let data = m.data.0 as usize;
    let words = m.words(s.elem) as usize;
    if let Some(race) = cx.race.as_mut() {
        // (The shadow is per 32-bit word: a narrow access marks the word its bytes are in.)
        let shadow_words = if eb < 4 {
            (width as usize).div_ceil(4)
        } else {
            words
        };
        race.access(pc, w, store, active, &addrs, shadow_words);
    }
    if eb < 4 {
        // 1- and 2-byte elements: packed in memory, one register each (exec/narrow.rs).
        let regs = &mut r[data..data + words];
        super::narrow::shared_move(cx.shared, regs, &addrs, active, s.elem, store);
        return Ok(cost);
    }
    if uniform {
        let at = addrs[0] as usize / 4;
        let cells = &mut cx.shared[at..at + words];
        if store {
            // Of several lanes storing to one word, the highest wins.
            let l = 31 - active.leading_zeros() as usize;
            for (k, c) in cells.iter_mut().enumerate() {
                *c = r[data + k][l];
            }
        } else {
            for (k, &c) in cells.iter().enumerate() {
                put(&mut r[data + k], [c; WARP], active);
            }
        }
    } else {
        move_lanes::<V3>(
            cx.shared,
            &mut r[data..data + words],
            &addrs,
            active,
            width,
            store,
        );
    }
    Ok(cost)
}

/// `Inst::AddrOf`: each active lane's address of the element `m` names into `m.data` — of a
/// shared array its byte address, of a buffer a 64-bit global pointer (low word first) — or
/// the fault of the first lane whose `m.vec` elements from there are not all inside it.
pub(super) fn address_of(cx: &Ctx, at: &At, m: &Mem, r: &mut [Lanes]) -> Result<(), Fault> {
    if m.space != Space::Global {
        let a = shared_addresses(cx, at.pc, at.w, m, at.active, r)?;
        let d = &mut r[m.data.0 as usize];
        let mut lanes = at.active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            d[l] = a[l];
        }
        return Ok(());
    }
    let b = &cx.prog.buffers[m.array as usize];
    let ix = r[m.idx[0].0 as usize];
    let base = (m.array as u64 + 1) << Mem::GLOBAL_BASE_SHIFT;
    let d = m.data.0 as usize;
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if ix[l] as u64 + m.vec as u64 > b.len {
            return Err(global_fault(cx, at.pc, at.w, *m, l as u32, r));
        }
        let p = base + ix[l] as u64 * b.elem.bytes() as u64;
        r[d][l] = p as u32;
        r[d + 1][l] = (p >> 32) as u32;
    }
    Ok(())
}

/// The checked byte addresses of a shared access by the `active` lanes (an atomic's), or the
/// fault of the first lane that fails a check.
pub(super) fn shared_addresses(
    cx: &Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    active: u32,
    r: &[Lanes],
) -> Result<Lanes, Fault> {
    let s = &cx.prog.shared[m.array as usize];
    let end =
        (s.base as u64 + s.bytes as u64).min((cx.shared.len() - SPARE_WORDS) as u64 * 4) as u32;
    spread_addresses(s, m, r, active, end).map_err(|lane| shared_fault(cx, pc, w, *m, lane, r))
}

/// The byte addresses of a shared access whose lanes' indices differ, or the first active lane
/// that fails a check (out of bounds, misaligned, outside the array's bytes `end`, or a vector
/// that a swizzle splits).
///
/// The checks flag bad lanes (non-zero) in all 32 lanes at once; one mask at the end.
#[inline(always)]
fn spread_addresses(
    s: &SharedInfo,
    m: &Mem,
    r: &[Lanes],
    active: u32,
    end: u32,
) -> Result<Lanes, u32> {
    let vec = m.vec as u32;
    let last = m.rank as usize - 1;
    let eb = s.elem.bytes();
    let width = eb * vec;
    // Bounds: an index is inside when, as an unsigned number, it is below its dimension;
    // the last index leaves room for the vector. Rows are flattened on the way.
    // (Flags are all ones in a bad lane, for `movemask`.)
    let mut flag = [0u32; WARP];
    let mut row = [0u32; WARP];
    for (d, &n) in s.dims[..last].iter().enumerate() {
        let ix = &r[m.idx[d].0 as usize];
        if d == 0 {
            row = *ix;
            flag = per_lane(|l| ((ix[l] >= n) as u32).wrapping_neg());
        } else {
            for ((f, rw), &i) in flag.iter_mut().zip(row.iter_mut()).zip(ix) {
                *f |= ((i >= n) as u32).wrapping_neg();
                *rw = rw.wrapping_mul(n).wrapping_add(i);
            }
        }
    }
    let col = r[m.idx[last].0 as usize];
    // (0 when the last dimension is shorter than the vector: no column fits)
    let lim = s.dims[last].saturating_sub(vec - 1);
    for (f, &c) in flag.iter_mut().zip(&col) {
        *f |= ((c >= lim) as u32).wrapping_neg();
    }
    // Byte addresses (garbage in lanes that are out of bounds or inactive; never used).
    // Element sizes are powers of two.
    let eb_shift = eb.trailing_zeros();
    let addrs: Lanes = if s.swizzle == 0 {
        per_lane(|l| {
            let phys = row[l].wrapping_mul(s.row_len).wrapping_add(col[l]);
            s.base.wrapping_add(phys << eb_shift)
        })
    } else {
        let ok = active & !movemask(&flag);
        per_lane(|l| {
            if ok & BIT[l] != 0 {
                s.base + s.physical(row[l], col[l]) * eb
            } else {
                0
            }
        })
    };
    // Alignment, and (against a malformed layout) the array's own bytes. Without a
    // swizzle or a vector, in-bounds indices of an aligned array whose last element ends
    // inside it give aligned addresses inside it: no lane needs the checks then.
    let rows: u64 = s.dims[..last].iter().map(|&d| d as u64).product();
    let cols = s.dims[last] as u64;
    let fits = s.swizzle == 0
        && vec == 1
        && s.base.is_multiple_of(eb)
        && rows >= 1
        && cols >= 1
        && s.base as u64 + ((rows - 1) * s.row_len as u64 + cols) * eb as u64 <= end as u64;
    if !fits {
        let (top, none_fit) = match end.checked_sub(width) {
            Some(t) => (t, 0),
            None => (0, 1),
        };
        for (f, &a) in flag.iter_mut().zip(&addrs) {
            *f |= (((a & (width - 1)) != 0) as u32 | (a > top) as u32 | none_fit).wrapping_neg();
        }
    }
    let mut bad = movemask(&flag) & active;
    if s.swizzle > 0 && vec > 1 {
        let mut lanes = active & !bad;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let phys = s.physical(row[l], col[l]);
            if (1..vec).any(|k| s.physical(row[l], col[l] + k) != phys + k) {
                bad |= 1 << l;
            }
        }
    }
    if bad != 0 {
        return Err(bad.trailing_zeros());
    }
    Ok(addrs)
}

/// Moves the words of a shared access whose lanes' addresses differ: a row of consecutive
/// lanes as one block, else a scatter (store) or gather (load) over all 32 lanes. `regs` are
/// the data registers (one per word of a lane's access, `width` bytes in all).
#[inline(always)]
pub(super) fn move_lanes<const V3: bool>(
    shared: &mut [u32],
    regs: &mut [Lanes],
    addrs: &Lanes,
    active: u32,
    width: u32,
    store: bool,
) {
    let words = regs.len();
    if active == FULL
        && movemask(&per_lane(|l| {
            ((addrs[l] != addrs[0].wrapping_add(l as u32 * width)) as u32).wrapping_neg()
        })) == 0
    {
        // Consecutive lanes at consecutive addresses (a row of the array): one block of
        // words, inside shared memory since its first and last lanes are.
        let at = addrs[0] as usize / 4;
        let cells = &mut shared[at..at + WARP * words];
        if words == 1 {
            let cells: &mut [u32; WARP] = cells.try_into().expect("32 words");
            if store {
                *cells = regs[0];
            } else {
                regs[0] = *cells;
            }
        } else {
            match (words, store) {
                (2, true) => interleave::<2>(cells, regs),
                (2, false) => deinterleave::<2>(cells, regs),
                (4, true) => interleave::<4>(cells, regs),
                (4, false) => deinterleave::<4>(cells, regs),
                _ => {
                    for (l, lane) in cells.chunks_exact_mut(words).enumerate() {
                        for (c, reg) in lane.iter_mut().zip(regs.iter_mut()) {
                            if store {
                                *c = reg[l];
                            } else {
                                reg[l] = *c;
                            }
                        }
                    }
                }
            }
        }
    } else if store {
        // A scatter over all 32 lanes, in lane order: of several lanes storing to one word,
        // the highest wins. (Lanes at different addresses share no word, as accesses are
        // aligned to their width, so word by word is the same as lane by lane.) Inactive
        // lanes store to the spare words past shared memory, which nothing reads; clamping
        // to the last word drops the bounds checks (no lane is beyond it).
        let on = lane_flags(active);
        let spare = (shared.len() - SPARE_WORDS) as u32;
        let at: Lanes = per_lane(|l| ((addrs[l] / 4) & on[l]) | (spare & !on[l]));
        let top = shared.len() - 1;
        for (k, reg) in regs.iter().enumerate() {
            for (&a, &v) in at.iter().zip(reg) {
                shared[(a as usize + k).min(top)] = v;
            }
        }
    } else {
        // A gather over all 32 lanes (inactive ones read word 0 and are not written).
        let on = lane_flags(active);
        let at: Lanes = per_lane(|l| (addrs[l] & on[l]) / 4);
        // Clamping to the last start that fits lets the compiler drop the bounds checks
        // (the active lanes' addresses are already known to fit).
        #[cfg(target_arch = "x86_64")]
        if words == 2 || words == 4 {
            // Vectors: each lane's words in one load, four lanes transposed at a time.
            let mut v = [[0u32; WARP]; 4];
            if words == 4 {
                gather_rows::<4>(shared, &at, &mut v);
            } else {
                gather_rows::<2>(shared, &at, &mut v);
            }
            for (k, v) in v[..words].iter().enumerate() {
                put(&mut regs[k], *v, active);
            }
            return;
        }
        if let Some(top) = shared.len().checked_sub(words) {
            for k in 0..words {
                let sh = &shared[k..=k + top];
                #[cfg(target_arch = "x86_64")]
                let v = if V3 {
                    // SAFETY: `V3` is only set in `run_warp_v3`, which runs on CPUs with AVX2.
                    unsafe { gather_avx2(sh, &at) }
                } else {
                    per_lane(|l| sh[(at[l] as usize).min(top)])
                };
                #[cfg(not(target_arch = "x86_64"))]
                let v = per_lane(|l| sh[(at[l] as usize).min(top)]);
                put(&mut regs[k], v, active);
            }
        }
    }
}

/// The byte address of one lane's shared access at logical `idx` (one per dimension), or
/// None if it is out of bounds, misaligned, outside the array's bytes (`end`), or a vector
/// that a swizzle splits: [`shared_fault`] then says which.
#[inline(always)]
fn lane_address(s: &SharedInfo, idx: &[u32], vec: u32, end: u32) -> Option<u32> {
    let (&col, outer) = idx.split_last()?;
    let mut row = 0u32;
    for (&i, &n) in outer.iter().zip(&s.dims) {
        if i >= n {
            return None;
        }
        row = row * n + i;
    }
    if col >= s.dims.last()?.saturating_sub(vec - 1) {
        return None;
    }
    let eb = s.elem.bytes();
    let width = eb * vec;
    let phys = s.physical(row, col);
    let addr = s.base + phys * eb;
    let contiguous = s.swizzle == 0 || (1..vec).all(|k| s.physical(row, col + k) == phys + k);
    // (Widths are powers of two: a mask, not a division.)
    (addr & (width - 1) == 0 && addr + width <= end && contiguous).then_some(addr)
}

/// A global access: checks every active lane's index and moves the data.
#[inline(always)]
fn global_access(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    let b = &cx.prog.buffers[m.array as usize];
    if b.elem.is_narrow() {
        return super::narrow::global_access(cx, pc, w, m, store, active, r);
    }
    let mem = &cx.global.buffers[m.array as usize][..];
    let vec = m.vec as u32;
    let ix = r[m.idx[0].0 as usize];
    // In bounds: 0 <= i and i + vec - 1 < len, and aligned to the vector. `lim` 0: no index
    // fits. A negative index (as i32) is huge here; past 2^31 elements, indices are unsigned
    // (a buffer holds at most 2^32 - 1).
    let lim = b
        .len
        .checked_sub(vec as u64 - 1)
        .map_or(0, |l| l.min(u32::MAX as u64) as u32);
    let wpe = b.elem.bytes() as usize / 4;
    let data = m.data.0 as usize;
    let words = m.words(b.elem) as usize;
    let regs = &mut r[data..data + words];

    // Consecutive elements, lane by lane (the coalesced access): the first and the last lane
    // bound the others, and one range check covers the warp.
    let first = ix[0];
    let stride = per_lane(|l| first.wrapping_add(l as u32 * vec));
    if active == FULL
        && movemask(&per_lane(|l| ((ix[l] != stride[l]) as u32).wrapping_neg())) == 0
        && first < lim
        && first + (WARP as u32 - 1) * vec < lim
        && first & (vec - 1) == 0
    {
        let at = first as usize * wpe;
        let cells = &mem[at..at + WARP * words];
        if words == 1 {
            let cells: &[AtomicU32; WARP] = cells.try_into().expect("32 words");
            let reg = &mut regs[0];
            if store {
                for (c, &v) in cells.iter().zip(reg.iter()) {
                    c.store(v, Relaxed);
                }
            } else {
                for (v, c) in reg.iter_mut().zip(cells) {
                    *v = c.load(Relaxed);
                }
            }
        } else {
            match words {
                2 => copy_atomic::<2>(cells, regs, store),
                4 => copy_atomic::<4>(cells, regs, store),
                _ => {
                    for (l, lane) in cells.chunks_exact(words).enumerate() {
                        for (c, reg) in lane.iter().zip(regs.iter_mut()) {
                            if store {
                                c.store(reg[l], Relaxed);
                            } else {
                                reg[l] = c.load(Relaxed);
                            }
                        }
                    }
                }
            }
        }
        return Ok(());
    }

    let bad = movemask(&per_lane(|l| {
        ((ix[l] >= lim) | (ix[l] & (vec - 1) != 0)) as u32 * u32::MAX
    })) & active;
    if bad != 0 {
        return Err(global_fault(cx, pc, w, *m, bad.trailing_zeros(), r));
    }
    if active == 0 {
        return Ok(());
    }
    // Every active lane's words are in `mem` (checked above), so these ranges are too.
    let lead = active.trailing_zeros() as usize;
    if is_uniform(&ix, active, lead) {
        // One element for the warp: a broadcast load, or a store where the highest lane wins.
        let at = ix[lead] as usize * wpe;
        let cells = &mem[at..at + words];
        if store {
            let l = 31 - active.leading_zeros() as usize;
            for (c, reg) in cells.iter().zip(regs.iter()) {
                c.store(reg[l], Relaxed);
            }
        } else {
            for (c, reg) in cells.iter().zip(regs.iter_mut()) {
                put(reg, [c.load(Relaxed); WARP], active);
            }
        }
        return Ok(());
    }
    // Anything else, lane by lane in order (of several lanes storing to one word, the
    // highest wins).
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let at = ix[l] as usize * wpe;
        let cells = &mem[at..at + words];
        for (c, reg) in cells.iter().zip(regs.iter_mut()) {
            if store {
                c.store(reg[l], Relaxed);
            } else {
                reg[l] = c.load(Relaxed);
            }
        }
    }
    Ok(())
}

/// The lanes' shared addresses `addrs` as [`Config::relayout`](crate::Config::relayout) moves
/// them for pricing (None without one; see [`relayout_all`]).
#[inline(always)]
pub(super) fn relayout(
    cx: &Ctx,
    pc: usize,
    addrs: &Lanes,
    active: u32,
    width: u32,
) -> Result<Option<Lanes>, Fault> {
    if cx.cfg.relayout.is_none() {
        return Ok(None);
    }
    let mut out = *addrs;
    let lanes = out
        .iter_mut()
        .enumerate()
        .filter(|(l, _)| active >> l & 1 != 0);
    relayout_all(cx, pc, width, lanes.map(|(_, a)| a))?;
    Ok(Some(out))
}

/// Moves each of `addrs` (accesses of `width` bytes) as [`Config::relayout`](crate::Config::relayout)
/// prices them; an access the layout would split is a fault (the advisor counts that layout
/// as one the kernel cannot use).
pub(super) fn relayout_all<'a>(
    cx: &Ctx,
    pc: usize,
    width: u32,
    addrs: impl Iterator<Item = &'a mut u32>,
) -> Result<(), Fault> {
    let Some(rl) = &cx.cfg.relayout else {
        return Ok(());
    };
    for a in addrs {
        if (rl.start..rl.end).contains(a) && !rl.keeps(width) {
            let why = format!(
                "the layout {} would split this {width}-byte access",
                rl.name()
            );
            return Err(cx.fault(pc, FaultKind::Unpriceable(why), None));
        }
        *a = rl.map(*a);
    }
    Ok(())
}
