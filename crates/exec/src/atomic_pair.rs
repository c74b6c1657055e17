//! Atomics on a pair of elements (`Mem::vec` 2, README "Atomics"): CUDA's 64-bit
//! `atomicAdd`/`Min`/`Max`/`And`/`Or`/`Xor`/`Exch`/`CAS` on `unsigned long long`, held as two
//! words of a shared `u32` array (low word first), and `atomicAdd` on a `__half2`, two halves
//! of an `f16` array (element `2i` in the low 16 bits); a pair of an `i32` array is a `long
//! long` (`atomicMin`/`Max`, signed). On global buffers these, and `atomicAdd` on a `double`,
//! are 64-bit host atomics ([`global64`]). The order the lanes' updates land in
//! is the caller's (trip by trip for the loops, README rules 8 and 10); each lane gets back
//! the pair before its own update.

use super::api::PcStats;
use super::atomic::half_add;
use super::block::Ctx;
use super::fault::{Fault, FaultKind};
use super::warp::At;
use super::words::Words;
use super::Lanes;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_kernel::fp16::Half;
use warpsim_kernel::ir::Mem;
use warpsim_kernel::Elem;
use warpsim_smem::{AtomOp, LoopData, WARP};

/// `op(old, v)` on an `unsigned long long`, or with `signed` a `long long` (`min`/`max`
/// compare as signed; `c`: `cas`'s compare value).
#[inline]
pub fn apply64(op: AtomOp, signed: bool, old: u64, v: u64, c: u64) -> u64 {
    match op {
        AtomOp::Add | AtomOp::PopcInc => old.wrapping_add(v),
        AtomOp::Sub => old.wrapping_sub(v),
        AtomOp::Min if signed => (old as i64).min(v as i64) as u64,
        AtomOp::Max if signed => (old as i64).max(v as i64) as u64,
        AtomOp::Min => old.min(v),
        AtomOp::Max => old.max(v),
        AtomOp::And => old & v,
        AtomOp::Or => old | v,
        AtomOp::Xor => old ^ v,
        AtomOp::Exch => v,
        AtomOp::Cas if old == c => v,
        // (the loader refuses inc/dec on pairs)
        AtomOp::Cas | AtomOp::Inc | AtomOp::Dec => old,
    }
}

/// `word` with both its halves (of format `fmt`) increased by the halves `v0` (low) and `v1`
/// (high), each as `__hadd` does (CUDA's `atomicAdd` on a `__half2`, `__nv_bfloat162`).
#[inline]
pub fn half2_add(fmt: Half, word: u32, v0: u32, v1: u32) -> u32 {
    half_add(fmt, half_add(fmt, word, 0, v0).0, 2, v1).0
}

/// A shared pair atomic by the active lanes at byte addresses `addrs`: priced by
/// [`warpsim_smem`]'s rules (7 for the native 64-bit `exch`/`cas`, 8 for the 64-bit loops,
/// 10 for `__half2`), the loops run on the values in memory ([`Values`]), so their trips and
/// the order the lanes land in are the H200's (a 64-bit `min`/`max` lane whose load shows
/// nothing to change is done without a swap). Register `d` and `d + 1` hold each lane's pair
/// (`cas`: `d + 2`, `d + 3` the compare pair) and get the old pair.
#[allow(clippy::too_many_arguments)]
pub(super) fn shared(
    cx: &mut Ctx,
    at: &At,
    m: &Mem,
    op: AtomOp,
    elem: Elem,
    addrs: &Lanes,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    let (pc, w, active) = (at.pc, at.w, at.active);
    let half2 = elem.half();
    let width = elem.bytes() * 2;
    let d = m.data.0 as usize;
    let a = super::atomic::described(op, elem, 2);
    let word = |x: &Lanes, y: &Lanes, l: usize| x[l] as u64 | (y[l] as u64) << 32;
    let mut data = Values {
        cells: &mut *cx.shared,
        addrs,
        op,
        half2,
        signed: elem == Elem::I32,
        v: std::array::from_fn(|l| word(&r[d], &r[d + 1], l)),
        c: std::array::from_fn(|l| word(&r[d + 2], &r[d + 3], l)),
        old: [0; WARP],
    };
    let native = half2.is_none() && matches!(op, AtomOp::Exch | AtomOp::Cas);
    let cost = if native {
        warpsim_smem::atomic_cost(&cx.cfg.geometry, &a, width, addrs, active)
    } else {
        warpsim_smem::atomic_cost_with(&cx.cfg.geometry, &a, width, addrs, active, &mut data)
    };
    if native {
        // One ATOMS: the lanes land in lane order.
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let seen = data.load(l);
            data.put(l, data.next(l, seen));
            data.old[l] = seen;
        }
    }
    let old = data.old;
    let cost = cost.map_err(|e| {
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
        race.atomic(pc, w, active, addrs, width as usize / 4);
    }
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        (r[d][l], r[d + 1][l]) = if half2.is_some() {
            (old[l] as u32 & 0xffff, old[l] as u32 >> 16)
        } else {
            (old[l] as u32, (old[l] >> 32) as u32)
        };
    }
    Ok(())
}

/// A pair loop's lanes on shared memory: what they load, whether they swap, and their swaps,
/// applied as the loop serves them (each lane's old value is what its successful load saw).
struct Values<'a> {
    cells: &'a mut [u32],
    addrs: &'a Lanes,
    op: AtomOp,
    /// The halves' format of a `__half2`/`__nv_bfloat162` add (`None`: a 64-bit integer).
    half2: Option<Half>,
    /// A `long long` (a pair of `i32`s): `min`/`max` signed.
    signed: bool,
    /// Each lane's operand (a `__half2`: its word) and `cas` compare value.
    v: [u64; WARP],
    c: [u64; WARP],
    old: [u64; WARP],
}

impl Values<'_> {
    fn word(&self, l: usize) -> usize {
        (self.addrs[l] / 4) as usize
    }
    /// What lane `l`'s update makes of `seen`.
    fn next(&self, l: usize, seen: u64) -> u64 {
        if let Some(fmt) = self.half2 {
            half2_add(fmt, seen as u32, self.v[l] as u32, (self.v[l] >> 32) as u32) as u64
        } else {
            apply64(self.op, self.signed, seen, self.v[l], self.c[l])
        }
    }
    fn put(&mut self, l: usize, x: u64) {
        let k = self.word(l);
        if let Some(c) = self.cells.get_mut(k) {
            *c = x as u32;
        }
        if self.half2.is_none() {
            if let Some(c) = self.cells.get_mut(k + 1) {
                *c = (x >> 32) as u32;
            }
        }
    }
}

impl LoopData for Values<'_> {
    fn load(&mut self, l: usize) -> u64 {
        let k = self.word(l);
        let lo = self.cells.get(k).copied().unwrap_or(0) as u64;
        if self.half2.is_some() {
            lo
        } else {
            lo | (self.cells.get(k + 1).copied().unwrap_or(0) as u64) << 32
        }
    }
    fn wants(&mut self, l: usize, seen: u64) -> bool {
        // The 64-bit min/max loops skip the swap when nothing would change (README rule 8).
        let skip = self.half2.is_none()
            && matches!(self.op, AtomOp::Min | AtomOp::Max)
            && self.next(l, seen) == seen;
        if skip {
            self.old[l] = seen;
        }
        !skip
    }
    fn swap(&mut self, l: usize, seen: u64) -> bool {
        if self.load(l) != seen {
            return false;
        }
        let x = self.next(l, seen);
        self.put(l, x);
        self.old[l] = seen;
        true
    }
}

/// A global `__half2` (`fmt` F16) or `__nv_bfloat162` (Bf16) add by the active lanes (lane
/// order): a compare-and-swap loop on each lane's word, host-atomic, so blocks on other
/// threads lose nothing. `ix`: the element indices (checked in bounds); an odd one is a
/// misaligned 4-byte access.
pub(super) fn global_half2(
    cx: &Ctx,
    at: &At,
    fmt: Half,
    mem: &[AtomicU32],
    ix: Lanes,
    d: usize,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let k = ix[l] as usize;
        if !k.is_multiple_of(2) {
            return Err(misaligned(cx, at, l, 4, k as u64 * 2));
        }
        let (v0, v1) = (r[d][l], r[d + 1][l]);
        if let Some(cell) = mem.get(k / 2) {
            let (Ok(old) | Err(old)) =
                cell.fetch_update(Relaxed, Relaxed, |w| Some(half2_add(fmt, w, v0, v1)));
            (r[d][l], r[d + 1][l]) = (old & 0xffff, old >> 16);
        }
    }
    Ok(())
}

/// The misaligned-access fault of lane `l`'s `width`-byte global atomic at byte `byte`.
fn misaligned(cx: &Ctx, at: &At, l: usize, width: u32, byte: u64) -> Fault {
    let b = cx.prog.code.get(at.pc).and_then(|i| i.atomic());
    let name = b.map_or_else(String::new, |(m, _)| {
        format!("`{}`", cx.prog.buffers[m.array as usize].name)
    });
    let kind = FaultKind::Misaligned {
        width,
        access: cx.text(at.pc).to_owned(),
        byte,
        memory: name,
    };
    cx.lane_fault(at.pc, at.w, l as u32, kind, None)
}

/// A 64-bit global atomic by the active lanes, in lane order, each one 64-bit host atomic
/// ([`Words::pair`]), so blocks on other threads never lose or tear an update: `atomicAdd` on
/// a `double` (`elem` F64, `ix` its element indices) or a pair of 32-bit words (`elem` U32:
/// `unsigned long long`, I32: `long long`; `ix` the low word's index, which must be even,
/// else the misaligned-access fault). `ix` is checked in bounds. Registers `d`, `d + 1` hold
/// each lane's operand (`cas`: `d + 2`, `d + 3` the compare value) and get the old value.
#[allow(clippy::too_many_arguments)]
pub(super) fn global64(
    cx: &Ctx,
    at: &At,
    mem: &Words,
    op: AtomOp,
    elem: Elem,
    ix: Lanes,
    d: usize,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    let word = |x: &Lanes, y: &Lanes, l: usize| x[l] as u64 | (y[l] as u64) << 32;
    let signed = elem == Elem::I32;
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let k = match elem {
            Elem::F64 => ix[l] as usize * 2,
            _ => ix[l] as usize,
        };
        if !k.is_multiple_of(2) {
            return Err(misaligned(cx, at, l, 8, k as u64 * 4));
        }
        let Some(cell) = mem.pair(k) else {
            continue;
        };
        let v = word(&r[d], &r[d + 1], l);
        let old = match op {
            AtomOp::Add if elem == Elem::F64 => {
                let add = |o: u64| Some((f64::from_bits(o) + f64::from_bits(v)).to_bits());
                let (Ok(o) | Err(o)) = cell.fetch_update(Relaxed, Relaxed, add);
                o
            }
            AtomOp::Add => cell.fetch_add(v, Relaxed),
            AtomOp::And => cell.fetch_and(v, Relaxed),
            AtomOp::Or => cell.fetch_or(v, Relaxed),
            AtomOp::Xor => cell.fetch_xor(v, Relaxed),
            AtomOp::Exch => cell.swap(v, Relaxed),
            AtomOp::Min if !signed => cell.fetch_min(v, Relaxed),
            AtomOp::Max if !signed => cell.fetch_max(v, Relaxed),
            AtomOp::Cas => {
                let c = word(&r[d + 2], &r[d + 3], l);
                let (Ok(o) | Err(o)) = cell.compare_exchange(c, v, Relaxed, Relaxed);
                o
            }
            // long long min/max (and what the loader refuses) as a compare-and-swap loop.
            _ => {
                let f = |o: u64| Some(apply64(op, signed, o, v, 0));
                let (Ok(o) | Err(o)) = cell.fetch_update(Relaxed, Relaxed, f);
                o
            }
        };
        (r[d][l], r[d + 1][l]) = (old as u32, (old >> 32) as u32);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_four_bit_ops_carry_and_compare_as_unsigned_long_long() {
        use AtomOp::*;
        let big = 0xffff_ffffu64;
        assert_eq!(apply64(Add, false, big, 1, 0), 1 << 32);
        assert_eq!(apply64(Min, false, 1 << 40, 3, 0), 3);
        assert_eq!(apply64(Max, false, 1 << 40, u64::MAX, 0), u64::MAX);
        assert_eq!(apply64(Cas, false, 5 << 32, 9, 5 << 32), 9);
        assert_eq!(apply64(Cas, false, 5 << 32, 9, 5), 5 << 32);
        assert_eq!(apply64(Xor, false, 0b1100, 0b1010, 0), 0b0110);
        // long long: -1 is below 3 signed, above it unsigned.
        assert_eq!(apply64(Min, true, u64::MAX, 3, 0), u64::MAX);
        assert_eq!(apply64(Min, false, u64::MAX, 3, 0), 3);
        assert_eq!(apply64(Max, true, 1 << 63, 5, 0), 5);
        assert_eq!(apply64(Max, true, 7, (-2i64) as u64, 0), 7);
    }

    #[test]
    fn half2_adds_each_half_on_its_own() {
        // 1.0 = 0x3c00, 2.0 = 0x4000, 3.0 = 0x4200, 0.5 = 0x3800, 1.5 = 0x3e00
        assert_eq!(
            half2_add(Half::F16, 0x4000_3c00, 0x4000, 0x3800),
            0x4100_4200
        );
        assert_eq!(half2_add(Half::F16, 0x3c00_3800, 0x3c00, 0), 0x3c00_3e00);
        // bf16: 1.0 = 0x3f80, 0.5 = 0x3f00, 1.5 = 0x3fc0, 2.0 = 0x4000 (the H200's first
        // `atom_add_bf16x2` update, calibration/probes/shared_atomics/values.tsv.gz).
        assert_eq!(
            half2_add(Half::Bf16, 0x3f80_3f80, 0x3f80, 0x3f00),
            0x3fc0_4000
        );
    }
}
