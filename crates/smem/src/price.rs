//! The public pricing entry points ([`cost`], [`cost_into`], [`cost_uniform_into`]) and the
//! checks and fast paths in front of the general pricing.

use crate::*;
use serde::{Deserialize, Serialize};

/// The price of one warp access.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// Cycles of the shared-memory pipe (Nsight Compute's `wavefronts`).
    pub wavefronts: u32,
    /// Wavefronts beyond one per busy phase (Nsight Compute's `bank_conflicts`).
    pub conflicts: u32,
    /// Phases that had at least one active lane.
    pub phases: u32,
}

/// What every access is checked for first: a geometry [`Geometry::new`] would accept and a
/// width of 1, 2, 4, 8 or 16 bytes. Gives whether the whole warp fits one phase of one word per lane
/// (`lanes_per_phase(width) == 32` and no wider than a bank, without its division).
#[inline(always)]
pub(crate) fn start(geom: &Geometry, width: u32) -> Result<bool, Error> {
    geom.validate()?;
    if !matches!(width, 1 | 2 | 4 | 8 | 16) {
        return Err(Error::Width(width));
    }
    Ok(width <= geom.bank_bytes
        && geom.banks as u64 * geom.bank_bytes as u64 >= WARP as u64 * width as u64)
}

/// Checks every active lane's alignment to the width.
#[inline]
pub(crate) fn aligned(width: u32, addrs: &[u32; WARP], mask: u32) -> Result<(), Error> {
    let mut bad = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        bad |= ((a & (width - 1) != 0) as u32) << l;
    }
    bad &= mask;
    if bad != 0 {
        let lane = bad.trailing_zeros();
        return Err(Error::Misaligned {
            lane,
            addr: addrs[lane as usize],
            width,
        });
    }
    Ok(())
}

/// Rule 3: does this load pair lanes `i` and `i ^ m` on one address throughout?
#[inline]
pub(crate) fn pairs(addrs: &[u32; WARP], mask: u32, m: usize) -> bool {
    // Lanes whose address differs from their partner's (branch-free)...
    let mut differ = 0u32;
    for i in 0..WARP {
        differ |= ((addrs[i] != addrs[i ^ m]) as u32) << i;
    }
    // ... and whose partner is active too (bit i of `partner` = bit i ^ m of `mask`).
    let low = if m == 1 { 0x5555_5555 } else { 0x3333_3333 };
    let partner = ((mask & low) << m) | ((mask >> m) & low);
    differ & mask & partner == 0
}

/// Lanes per phase for this access, after rule 3.
#[inline]
pub(crate) fn phase_lanes(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> u32 {
    let lanes = geom.lanes_per_phase(width);
    if op == Op::Ld && width >= 8 && (pairs(addrs, mask, 1) || pairs(addrs, mask, 2)) {
        (lanes * 2).min(WARP as u32)
    } else {
        lanes
    }
}

/// Prices one warp access.
///
/// `addrs[l]` is lane `l`'s byte address in shared memory, used only where bit `l` of `mask`
/// is set. Errors for a geometry that [`Geometry::new`] would refuse, for a width other than
/// 1, 2, 4, 8 or 16 and for an address that is not a multiple of the width.
#[inline]
pub fn cost(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<Cost, Error> {
    price(geom, op, width, addrs, mask, &mut ())
}

/// [`cost`], also adding to `per_bank[b]` the number of distinct words bank `b` served
/// (over all phases). `per_bank` must have at least `geom.banks` entries.
#[inline]
pub fn cost_counting(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    per_bank: Option<&mut [u64]>,
) -> Result<Cost, Error> {
    match per_bank {
        Some(pb) => price(geom, op, width, addrs, mask, pb),
        None => price(geom, op, width, addrs, mask, &mut ()),
    }
}

/// [`cost`], also adding the words each bank served to `counts` (the cheapest way to keep
/// per-bank totals over many accesses; it grows to `geom.banks` banks if it is smaller).
#[inline]
pub fn cost_into(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    counts: &mut BankCounts,
) -> Result<Cost, Error> {
    if counts.each.len() < geom.banks as usize {
        counts.each.resize(geom.banks as usize, 0);
    }
    price(geom, op, width, addrs, mask, counts)
}

/// [`cost_into`] for an access in which every active lane has the same address `addr` (a
/// broadcast): on geometries where a warp fits one phase, without looking at 32 lanes.
#[inline(always)]
pub fn cost_uniform_into(
    geom: &Geometry,
    op: Op,
    width: u32,
    addr: u32,
    mask: u32,
    counts: &mut BankCounts,
) -> Result<Cost, Error> {
    let one_phase = start(geom, width)?;
    if mask == 0 {
        return Ok(Cost::default());
    }
    if one_phase && addr & (width - 1) == 0 {
        // One phase, and one word (the access is no wider than a bank) that every lane asks
        // for: one cycle of one bank.
        if counts.each.len() < geom.banks as usize {
            counts.each.resize(geom.banks as usize, 0);
        }
        let bank = (addr >> geom.bank_bytes.trailing_zeros()) % geom.banks;
        counts.add(bank as usize, 1);
        return Ok(ONE_CYCLE);
    }
    cost_into(geom, op, width, &[addr; WARP], mask, counts)
}

/// [`cost`], adding each bank's served words to `sink`.
#[inline(always)]
pub(crate) fn price<S: Sink + ?Sized>(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    sink: &mut S,
) -> Result<Cost, Error> {
    let one_phase = start(geom, width)?;
    if mask == 0 {
        return Ok(Cost::default());
    }
    // Fast paths: one word per lane and the whole warp in one phase, so the access is
    // conflict-free if no bank is asked for two distinct words.
    if one_phase && geom.banks == 32 {
        // One branch-free pass: alignment, and every active lane on its own bank.
        let (ored, distinct) = scan32(geom.bank_bytes.trailing_zeros(), addrs, mask);
        if ored & (width - 1) == 0 && distinct != 0 {
            sink.one_each(distinct as u64, 32);
            return Ok(ONE_CYCLE);
        }
    } else if geom.banks == 32 && mask == u32::MAX && width > geom.bank_bytes {
        // Several words per lane (8- and 16-byte accesses on 4-byte banks): conflict-free if
        // each phase asks every bank for exactly one word.
        if let Some(phases) = wide_rows(geom.bank_bytes.trailing_zeros(), width, addrs) {
            for _ in 0..phases {
                sink.one_each(u32::MAX as u64, 32);
            }
            return Ok(Cost {
                wavefronts: phases,
                conflicts: 0,
                phases,
            });
        }
    }
    slow(geom, op, width, addrs, mask, one_phase, sink)
}

/// For 32 banks of `1 << shift` bytes, a whole warp (every lane active) and accesses of
/// `width` bytes, more than a bank's: the number of phases, if every address is aligned and
/// every phase asks each bank for exactly one word (so each phase takes one cycle).
///
/// A phase then holds `32 × bank bytes / width` lanes of `width / bank bytes` words each,
/// 32 words in all. Aligned, a lane's words are consecutive banks that do not wrap around, so
/// a bit set per lane, ORed over the phase, must be all 32 banks. Rule 3 cannot apply: it
/// needs partner lanes of a phase at one address, and all of them are active and distinct.
#[inline(always)]
pub(crate) fn wide_rows(shift: u32, width: u32, addrs: &[u32; WARP]) -> Option<u32> {
    let per_lane = width >> shift;
    if !(2..=32).contains(&per_lane) || !(WARP as u32).is_multiple_of(per_lane) {
        return None;
    }
    let lanes = WARP / per_lane as usize;
    let run = if per_lane == 32 {
        u32::MAX
    } else {
        (1u32 << per_lane) - 1
    };
    let mut ored = 0u32;
    let mut bits = [0u32; WARP];
    for (b, &a) in bits.iter_mut().zip(addrs) {
        ored |= a;
        *b = run << ((a >> shift) & 31);
    }
    if ored & (width - 1) != 0 {
        return None;
    }
    let mut all = u32::MAX;
    for phase in bits.chunks_exact(lanes) {
        all &= phase.iter().fold(0, |u, &b| u | b);
    }
    // Every phase covers all 32 banks with its 32 words: each bank once.
    (all == u32::MAX).then_some(per_lane)
}

/// The cost of an access that one phase serves in one cycle.
pub(crate) const ONE_CYCLE: Cost = Cost {
    wavefronts: 1,
    conflicts: 0,
    phases: 1,
};
