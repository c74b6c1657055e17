//! The handler of [`Inst::Atomic`](warpsim_kernel::ir::Inst::Atomic): CUDA's `atomicAdd`, `Sub`,
//! `Min`, `Max`, `And`, `Or`, `Xor`, `Exch`, `CAS`, `Inc`, `Dec` on 32-bit elements, and
//! `atomicAdd` on an `f64` (its two words) and on an `f16` (its half of a word, `__hadd`);
//! pairs (64-bit and `__half2`) in [`super::atomic_pair`].
//!
//! **Semantics.** Every active lane's update is applied, one lane after the other, each
//! reading the value the previous one left: the old value a lane gets back is the element
//! before its own update. The order is the H200's for one warp: lane order (lane 0 first) for
//! a native `ATOMS` and for global atomics; for a shared compare-and-swap loop (`f32`, `f64`,
//! `f16` adds) trip by trip as the pricing rule serves the lanes (each trip's winners lowest
//! first), which is the order the H200 returned in `calibration/probes/shared_atomics/values.tsv.gz`. Lanes
//! hitting one address therefore see 0, 1, 2 … for an `add` of 1 from zero.
//!
//! **Shared** atomics are priced by [`warpsim_smem::atomic_cost`] (README rules 7–9: native
//! `ATOMS` queue lanes per bank, `ATOMS.POPC.INC` — an `add` of the constant 1 whose result
//! is unused, which the loader marks as ptxas does — queues addresses; `add.f32` is a loop of loads and `ATOMS.CAST.SPIN` priced trip
//! by trip). The instruction's `wavefronts`/`conflicts` are its atomic and loop-load wavefronts
//! together (what the shared pipe serves); [`PcStats`] keeps the loop's loads and the `ATOMS`
//! executed apart, as Nsight counts them.
//!
//! **Global** atomics are functional and counted: the words are host atomics (64-bit ones for
//! a 64-bit atomic), so blocks that run in parallel on several threads never lose an update; integer results do not depend on
//! the order the blocks run in, but the old values returned, and a float sum that rounds, do
//! (as on the GPU).

use super::api::PcStats;
use super::block::Ctx;
use super::fault::{global_fault, Fault, FaultKind};
use super::warp::At;
use super::Lanes;
use std::sync::atomic::Ordering::Relaxed;
use warpsim_kernel::fp16::Half;
use warpsim_kernel::ir::{Mem, Space};
use warpsim_kernel::Elem;
use warpsim_smem::{AtomOp, AtomTy, Atomic, WARP};

/// One atomic by the active lanes.
pub(super) fn atomic(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    op: AtomOp,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    if at.active == 0 {
        return Ok(());
    }
    match m.space {
        Space::Shared => shared(cx, at, m, op, r, ps),
        Space::Global => global(cx, at, m, op, r),
        // (The executor's checks refuse atomics on local and constant memory.)
        Space::Local | Space::Const => Ok(()),
    }
}

/// `op(old, v)` (`c`: `cas`'s compare value) on an element of type `elem`.
#[inline]
pub fn apply(op: AtomOp, elem: Elem, old: u32, v: u32, c: u32) -> u32 {
    let signed = elem == Elem::I32;
    match op {
        AtomOp::Add if elem == Elem::F32 => (f32::from_bits(old) + f32::from_bits(v)).to_bits(),
        AtomOp::Add | AtomOp::PopcInc => old.wrapping_add(v),
        AtomOp::Sub => old.wrapping_sub(v),
        AtomOp::Min if signed => (old as i32).min(v as i32) as u32,
        AtomOp::Min => old.min(v),
        AtomOp::Max if signed => (old as i32).max(v as i32) as u32,
        AtomOp::Max => old.max(v),
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::Exch => v,
        AtomOp::Cas => {
            if old == c {
                v
            } else {
                old
            }
        }
        // atomicInc: ((old >= v) ? 0 : (old + 1)); atomicDec: (((old == 0) || (old > v)) ? v : (old - 1)).
        AtomOp::Inc => {
            if old >= v {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
    }
}

/// The smem description of an atomic on `elem` (the old value is always returned: a `red`
/// costs the same, README rule 7; except `ATOMS.POPC.INC`, which the loader picks only where
/// nothing reads the result).
pub(super) fn described(op: AtomOp, elem: Elem, vec: u8) -> Atomic {
    let ty = match elem {
        // A pair: `unsigned long long` on a u32 array, `long long` on an i32 one, `__half2`
        // on an f16 one.
        Elem::U32 if vec == 2 => AtomTy::U64,
        Elem::I32 if vec == 2 => AtomTy::S64,
        Elem::F16 if vec == 2 => AtomTy::F16x2,
        Elem::BF16 if vec == 2 => AtomTy::Bf16x2,
        // `atomicExch(float*, float)` is `atom.exch.b32`: PTX has no `exch.f32` (priced like
        // the integer exchange; the `gen` fuzz target found the f32 one refused at run time).
        Elem::F32 if op == AtomOp::Exch => AtomTy::B32,
        Elem::F32 => AtomTy::F32,
        Elem::F64 => AtomTy::F64,
        Elem::F16 => AtomTy::F16,
        Elem::I32 => AtomTy::S32,
        _ => AtomTy::U32,
    };
    Atomic {
        returns: op != AtomOp::PopcInc,
        op,
        ty: Some(ty),
    }
}

fn shared(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    op: AtomOp,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    let (pc, w, active) = (at.pc, at.w, at.active);
    let elem = cx.prog.shared[m.array as usize].elem;
    let addrs = super::memory::shared_addresses(cx, pc, w, m, active, r)?;
    if m.vec == 2 {
        return super::atomic_pair::shared(cx, at, m, op, elem, &addrs, r, ps);
    }
    let width = elem.bytes() * m.vec as u32;
    // A compare-and-swap loop's lanes land trip by trip (the H200's order: calibration/probes/shared_atomics
    // values.tsv); a native atomic's in lane order.
    let mut order = [0u32; WARP];
    let mut trips = 0;
    let cost = warpsim_smem::atomic_cost_each(
        &cx.cfg.geometry,
        &described(op, elem, m.vec),
        width,
        &addrs,
        active,
        &mut |t| {
            if trips < WARP {
                order[trips] = t.done;
                trips += 1;
            }
        },
    )
    .map_err(|e| {
        cx.fault(
            pc,
            FaultKind::Unpriceable(format!("cannot price this shared atomic: {e}")),
            None,
        )
    })?;
    let total = cost.total();
    ps.wavefronts += total.wavefronts as u64;
    ps.conflicts += total.conflicts as u64;
    ps.loop_load_wavefronts += cost.loads.wavefronts as u64;
    ps.loop_load_conflicts += cost.loads.conflicts as u64;
    ps.atoms += cost.trips as u64;
    if let Some(race) = cx.race.as_mut() {
        race.atomic(pc, w, active, &addrs, elem.bytes().div_ceil(4) as usize);
    }
    if trips == 0 {
        order[0] = active;
        trips = 1;
    }
    let d = m.data.0 as usize;
    for &done in &order[..trips] {
        apply_lanes(cx, op, elem, d, done, &addrs, r);
    }
    Ok(())
}

/// Applies the updates of `lanes`, lowest first.
fn apply_lanes(
    cx: &mut Ctx,
    op: AtomOp,
    elem: Elem,
    d: usize,
    mut lanes: u32,
    addrs: &[u32; WARP],
    r: &mut [Lanes],
) {
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let word = (addrs[l] / 4) as usize;
        match elem {
            // atomicAdd on a double: the element's two words (low first).
            Elem::F64 => {
                if let Some(cells) = cx.shared.get_mut(word..word + 2) {
                    let old = cells[0] as u64 | (cells[1] as u64) << 32;
                    let v = r[d][l] as u64 | (r[d + 1][l] as u64) << 32;
                    let new = (f64::from_bits(old) + f64::from_bits(v)).to_bits();
                    (cells[0], cells[1]) = (new as u32, (new >> 32) as u32);
                    (r[d][l], r[d + 1][l]) = (old as u32, (old >> 32) as u32);
                }
            }
            // atomicAdd on a __half: its 16 bits of the word, `__hadd` (rounded once).
            Elem::F16 => {
                if let Some(cell) = cx.shared.get_mut(word) {
                    let (new, old) = half_add(Half::F16, *cell, addrs[l], r[d][l]);
                    *cell = new;
                    r[d][l] = old;
                }
            }
            _ => {
                if let Some(cell) = cx.shared.get_mut(word) {
                    let old = *cell;
                    *cell = apply(op, elem, old, r[d][l], r[d + 1][l]);
                    r[d][l] = old;
                }
            }
        }
    }
}

/// `word` with the half (of format `fmt`) at byte address `addr` (its low or high 16 bits)
/// increased by the half `v` as `__hadd` does; and the half's old bits.
pub(super) fn half_add(fmt: Half, word: u32, addr: u32, v: u32) -> (u32, u32) {
    let sh = (addr % 4) * 8;
    let old = (word >> sh) & 0xffff;
    let sum = fmt.arith(warpsim_kernel::fp16::HalfOp::Add, old as u16, v as u16, 0);
    ((word & !(0xffff << sh)) | (sum as u32) << sh, old)
}

fn global(cx: &mut Ctx, at: &At, m: &Mem, op: AtomOp, r: &mut [Lanes]) -> Result<(), Fault> {
    let (pc, w, active) = (at.pc, at.w, at.active);
    let b = &cx.prog.buffers[m.array as usize];
    let ix = r[m.idx[0].0 as usize];
    // (Indices past 2^31 are unsigned, for a buffer that long: see `memory.rs`.)
    let lim = b.len;
    let last = m.vec as u64 - 1;
    let bad = (0..32).find(|&l| active >> l & 1 != 0 && ix[l] as u64 + last >= lim);
    if let Some(l) = bad {
        return Err(global_fault(cx, pc, w, *m, l as u32, r));
    }
    let (elem, mem) = (b.elem, &cx.global.buffers[m.array as usize]);
    let d = m.data.0 as usize;
    if let (2, Some(fmt)) = (m.vec, elem.half()) {
        return super::atomic_pair::global_half2(cx, at, fmt, mem, ix, d, r);
    }
    if m.vec == 2 || elem == Elem::F64 {
        return super::atomic_pair::global64(cx, at, mem, op, elem, ix, d, r);
    }
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if elem == Elem::F16 {
            // Two halves a word: a compare-and-swap loop on the word holding element ix.
            let (k, v) = (ix[l] as usize, r[d][l]);
            if let Some(cell) = mem.get(k / 2) {
                let addr = (k % 2 * 2) as u32;
                let old = cell.fetch_update(Relaxed, Relaxed, |w| {
                    Some(half_add(Half::F16, w, addr, v).0)
                });
                let (Ok(w) | Err(w)) = old;
                r[d][l] = half_add(Half::F16, w, addr, v).1;
            }
            continue;
        }
        let Some(cell) = mem.get(ix[l] as usize) else {
            continue;
        };
        let (v, c) = (r[d][l], r[d + 1][l]);
        let old = match (op, elem) {
            (AtomOp::Add, Elem::I32 | Elem::U32) => cell.fetch_add(v, Relaxed),
            (AtomOp::Sub, _) => cell.fetch_sub(v, Relaxed),
            (AtomOp::And, _) => cell.fetch_and(v, Relaxed),
            (AtomOp::Or, _) => cell.fetch_or(v, Relaxed),
            (AtomOp::Xor, _) => cell.fetch_xor(v, Relaxed),
            (AtomOp::Exch, _) => cell.swap(v, Relaxed),
            (AtomOp::Min | AtomOp::Max, Elem::U32) if op == AtomOp::Min => {
                cell.fetch_min(v, Relaxed)
            }
            (AtomOp::Max, Elem::U32) => cell.fetch_max(v, Relaxed),
            (AtomOp::Cas, _) => match cell.compare_exchange(c, v, Relaxed, Relaxed) {
                Ok(o) | Err(o) => o,
            },
            // The rest (f32 add, signed min/max, inc, dec) as a compare-and-swap loop.
            _ => match cell.fetch_update(Relaxed, Relaxed, |o| Some(apply(op, elem, o, v, c))) {
                Ok(o) | Err(o) => o,
            },
        };
        r[d][l] = old;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_atomic_the_loader_accepts_on_shared_memory_can_be_priced() {
        // The loader's table (README "Atomics"): all on i32/u32 but inc/dec on u32 only, add
        // and exch on f32. `exch` on f32 was refused at run time once (`atom.exch.f32` does
        // not exist; nvcc emits `atom.exch.b32`): found by the `gen` fuzz target.
        use AtomOp::*;
        let ints = [Add, Sub, Min, Max, And, Or, Xor, Exch, Cas];
        let cases = ints
            .iter()
            .map(|&op| (op, Elem::I32))
            .chain(ints.iter().chain(&[Inc, Dec]).map(|&op| (op, Elem::U32)))
            .chain([(Add, Elem::F32), (Exch, Elem::F32)]);
        let addrs: [u32; 32] = std::array::from_fn(|l| 4 * l as u32);
        for (op, elem) in cases {
            let a = described(op, elem, 1);
            let cost = warpsim_smem::atomic_cost(&warpsim_smem::Geometry::H200, &a, 4, &addrs, !0);
            assert!(cost.is_ok(), "{op:?} on {elem}: {:?}", cost.err());
        }
    }
}
