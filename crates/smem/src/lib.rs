//! The shared-memory bank model of warpsim.
//!
//! # Brief overview
//!
//! Shared memory is a set of SRAM banks. One warp instruction asks each of its active lanes'
//! addresses of the banks; the hardware serves the warp in *phases* of consecutive lanes, and
//! each phase takes as many cycles (*wavefronts*) as the most distinct words any one bank must
//! deliver in it. This crate prices one warp access under that rule:
//!
//! * [`Geometry`]: how many banks, how wide each is. [`Geometry::H200`] is the real one.
//! * [`cost`]: one access (`ld`/`st`, 4/8/16 bytes, 32 lane addresses and an active mask)
//!   → [`Cost`] (wavefronts, bank conflicts, phases). Allocation-free, with a fast path for
//!   conflict-free accesses; it can also add each bank's served words to a counter slice.
//! * [`analyze`]: the same access, with every phase, bank, word and lane spelled out
//!   (for `warpsim explain` and for tests).
//!
//! The rule, measured on an NVIDIA H200 (sm_90) with Nsight Compute, is documented in the
//! repository README ("The bank model"); `tests/fixtures/h200/` holds the 374 measured accesses
//! it reproduces exactly.
//!
//! 1. The bank of byte address `A` is `(A / bank_bytes) % banks`; a lane's access of `width`
//!    bytes touches the `bank_bytes`-sized words that its bytes fall in.
//! 2. A phase moves at most `banks × bank_bytes` bytes, so it holds
//!    `min(32, banks × bank_bytes / width)` consecutive lanes (at least one).
//! 3. Loads of 8 or 16 bytes only: if every active lane has the same address as lane `i ^ 1`
//!    (where that lane is active), or every active lane has the same address as lane `i ^ 2`,
//!    a phase holds twice as many lanes (at most 32). Stores never do this.
//! 4. A phase costs the largest number of distinct words asked of any one bank in it; a phase
//!    with no active lane costs nothing.
//! 5. Wavefronts are the sum over phases; bank conflicts are wavefronts minus busy phases.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Lanes in a warp.
pub const WARP: usize = 32;

/// Most banks a geometry may have (keeps the per-phase scratch on the stack).
pub const MAX_BANKS: u32 = 1024;

/// The shape of shared memory: how many banks, and how many bytes each serves per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Geometry {
    /// Number of banks (1 ..= [`MAX_BANKS`]).
    pub banks: u32,
    /// Width of one bank word in bytes (a power of two, 4 ..= 64).
    pub bank_bytes: u32,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry::H200
    }
}

impl fmt::Display for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} banks x {} B", self.banks, self.bank_bytes)
    }
}

/// Errors from building a geometry or pricing an access.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The bank count is out of range.
    #[error("{0} banks is not a supported geometry: use 1 to {MAX_BANKS} banks")]
    Banks(u32),
    /// The bank width is not a supported power of two.
    #[error("a bank width of {0} bytes is not supported: use 4, 8, 16, 32 or 64")]
    BankBytes(u32),
    /// The access width is not 4, 8 or 16 bytes.
    #[error("an access of {0} bytes is not supported: shared accesses are 4, 8 or 16 bytes")]
    Width(u32),
    /// A lane's address is not a multiple of the access width.
    #[error("lane {lane} accesses byte address {addr}, which is not aligned to the {width}-byte access width")]
    Misaligned {
        /// The lane.
        lane: u32,
        /// Its byte address.
        addr: u32,
        /// The access width in bytes.
        width: u32,
    },
}

impl Geometry {
    /// The NVIDIA H200 (and every recent NVIDIA GPU): 32 banks of 4 bytes.
    pub const H200: Geometry = Geometry {
        banks: 32,
        bank_bytes: 4,
    };

    /// A checked geometry.
    pub fn new(banks: u32, bank_bytes: u32) -> Result<Self, Error> {
        if banks == 0 || banks > MAX_BANKS {
            return Err(Error::Banks(banks));
        }
        if !bank_bytes.is_power_of_two() || !(4..=64).contains(&bank_bytes) {
            return Err(Error::BankBytes(bank_bytes));
        }
        Ok(Geometry { banks, bank_bytes })
    }

    /// Whether this geometry is one [`Geometry::new`] accepts (the fields are public, so a
    /// geometry may also be written out by hand).
    pub fn validate(&self) -> Result<(), Error> {
        Geometry::new(self.banks, self.bank_bytes).map(|_| ())
    }

    /// The bank that byte address `addr` falls in. (A zero field, which [`Geometry::new`]
    /// refuses, counts as one rather than dividing by zero.)
    #[inline]
    pub fn bank_of(&self, addr: u32) -> u32 {
        (addr / self.bank_bytes.max(1)) % self.banks.max(1)
    }

    /// Lanes per phase for an access of `width` bytes, before any load doubling.
    #[inline]
    pub fn lanes_per_phase(&self, width: u32) -> u32 {
        let bytes = self.banks as u64 * self.bank_bytes as u64;
        (bytes / width.max(1) as u64).clamp(1, WARP as u64) as u32
    }
}

/// Whether an access reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// A load (`LDS`).
    Ld,
    /// A store (`STS`).
    St,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Op::Ld => "ld",
            Op::St => "st",
        })
    }
}

impl std::str::FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ld" => Ok(Op::Ld),
            "st" => Ok(Op::St),
            _ => Err(format!("`{s}` is not an access kind: use `ld` or `st`")),
        }
    }
}

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

/// Checks the geometry, the width and every active lane's alignment.
#[inline]
fn check(geom: &Geometry, width: u32, addrs: &[u32; WARP], mask: u32) -> Result<(), Error> {
    geom.validate()?;
    if !matches!(width, 4 | 8 | 16) {
        return Err(Error::Width(width));
    }
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
fn pairs(addrs: &[u32; WARP], mask: u32, m: usize) -> bool {
    (0..WARP).all(|i| {
        let j = i ^ m;
        mask & (1 << i) == 0 || mask & (1 << j) == 0 || addrs[i] == addrs[j]
    })
}

/// Lanes per phase for this access, after rule 3.
#[inline]
fn phase_lanes(geom: &Geometry, op: Op, width: u32, addrs: &[u32; WARP], mask: u32) -> u32 {
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
/// 4, 8 or 16 and for an address that is not a multiple of the width.
#[inline]
pub fn cost(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<Cost, Error> {
    cost_counting(geom, op, width, addrs, mask, None)
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
    check(geom, width, addrs, mask)?;
    if mask == 0 {
        return Ok(Cost::default());
    }
    // Fast path: one word per lane, whole warp in one phase, every active lane on its own
    // bank (or all lanes on one word).
    if width <= geom.bank_bytes && geom.lanes_per_phase(width) == WARP as u32 {
        let mut seen = [0u32; 32];
        let mut used = 0u32;
        let mut distinct = true;
        if geom.banks <= 32 && geom.bank_bytes.is_power_of_two() {
            let shift = geom.bank_bytes.trailing_zeros();
            let mut m = mask;
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let word = addrs[l] >> shift;
                let b = (word % geom.banks) as usize;
                if used & (1 << b) != 0 && seen[b] != word {
                    distinct = false;
                    break;
                }
                used |= 1 << b;
                seen[b] = word;
            }
            if distinct {
                if let Some(pb) = per_bank {
                    let mut u = used;
                    while u != 0 {
                        pb[u.trailing_zeros() as usize] += 1;
                        u &= u - 1;
                    }
                }
                return Ok(Cost {
                    wavefronts: 1,
                    conflicts: 0,
                    phases: 1,
                });
            }
        }
    }
    Ok(general(geom, op, width, addrs, mask, per_bank))
}

/// The general path: per phase, sort the (bank, word) keys and count runs.
fn general(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    mut per_bank: Option<&mut [u64]>,
) -> Cost {
    let lanes = phase_lanes(geom, op, width, addrs, mask) as usize;
    let words_per_lane = width.div_ceil(geom.bank_bytes).max(1) as usize;
    let mut keys = [0u64; WARP * 16];
    let mut out = Cost::default();
    let mut start = 0;
    while start < WARP {
        let end = (start + lanes).min(WARP);
        let mut n = 0;
        for (l, &a) in addrs.iter().enumerate().take(end).skip(start) {
            if mask & (1 << l) == 0 {
                continue;
            }
            let first = a / geom.bank_bytes;
            let last = (a as u64 + width as u64 - 1) / geom.bank_bytes as u64;
            for w in first as u64..=last {
                let bank = w % geom.banks as u64;
                keys[n] = (bank << 40) | w;
                n += 1;
            }
            debug_assert!(n <= WARP * words_per_lane.max(1));
        }
        start = end;
        if n == 0 {
            continue;
        }
        let ks = &mut keys[..n];
        ks.sort_unstable();
        let mut worst = 0u32;
        let mut run = 0u32;
        let mut prev = u64::MAX;
        for &k in ks.iter() {
            if k == prev {
                continue;
            }
            if prev == u64::MAX || (k >> 40) != (prev >> 40) {
                if prev != u64::MAX {
                    if let Some(pb) = per_bank.as_deref_mut() {
                        pb[(prev >> 40) as usize] += run as u64;
                    }
                }
                run = 0;
            }
            run += 1;
            worst = worst.max(run);
            prev = k;
        }
        if let Some(pb) = per_bank.as_deref_mut() {
            pb[(prev >> 40) as usize] += run as u64;
        }
        out.wavefronts += worst;
        out.phases += 1;
    }
    out.conflicts = out.wavefronts - out.phases;
    out
}

/// One word that a bank delivered in one cycle of a phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Slot {
    /// The cycle within the phase (0-based).
    pub cycle: u32,
    /// The bank.
    pub bank: u32,
    /// The word index (byte address / bank_bytes).
    pub word: u64,
    /// The lanes that asked for this word (bit `l` = lane `l`).
    pub lanes: u32,
}

/// One phase of an access, spelled out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Phase {
    /// First lane of the phase.
    pub first_lane: u32,
    /// Number of lanes the phase holds.
    pub lanes: u32,
    /// The active lanes in the phase (bit `l` = lane `l`).
    pub active: u32,
    /// Cycles this phase took (0 if no lane was active).
    pub wavefronts: u32,
    /// Every word served, in cycle order then bank order.
    pub slots: Vec<Slot>,
    /// For each bank, the distinct words it served.
    pub per_bank: Vec<u32>,
}

/// One access, spelled out phase by phase.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Analysis {
    /// The totals, equal to [`cost`]'s.
    pub cost: Cost,
    /// Lanes per phase after rule 3.
    pub lanes_per_phase: u32,
    /// Whether rule 3 doubled the phase.
    pub doubled: bool,
    /// The phases, in lane order.
    pub phases: Vec<Phase>,
}

/// Prices one access like [`cost`] and says how: which words each bank served in which cycle.
///
/// Within a phase, a bank serves its distinct words one a cycle in the order their first
/// lanes come; every lane that asked for a word is served with it.
pub fn analyze(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<Analysis, Error> {
    check(geom, width, addrs, mask)?;
    let base = geom.lanes_per_phase(width);
    let lanes = if mask == 0 {
        base
    } else {
        phase_lanes(geom, op, width, addrs, mask)
    };
    let mut phases = Vec::new();
    let mut cost = Cost::default();
    let mut start = 0u32;
    while start < WARP as u32 {
        let end = (start + lanes).min(WARP as u32);
        let mut slots: Vec<Slot> = Vec::new();
        let mut per_bank = vec![0u32; geom.banks as usize];
        let mut active = 0u32;
        for l in start..end {
            if mask & (1 << l) == 0 {
                continue;
            }
            active |= 1 << l;
            let a = addrs[l as usize] as u64;
            let first = a / geom.bank_bytes as u64;
            let last = (a + width as u64 - 1) / geom.bank_bytes as u64;
            for w in first..=last {
                let bank = (w % geom.banks as u64) as u32;
                if let Some(s) = slots.iter_mut().find(|s| s.word == w) {
                    s.lanes |= 1 << l;
                } else {
                    let cycle = per_bank[bank as usize];
                    per_bank[bank as usize] += 1;
                    slots.push(Slot {
                        cycle,
                        bank,
                        word: w,
                        lanes: 1 << l,
                    });
                }
            }
        }
        slots.sort_by_key(|s| (s.cycle, s.bank));
        let wavefronts = per_bank.iter().copied().max().unwrap_or(0);
        if active != 0 {
            cost.phases += 1;
            cost.wavefronts += wavefronts;
        }
        phases.push(Phase {
            first_lane: start,
            lanes: end - start,
            active,
            wavefronts,
            slots,
            per_bank,
        });
        start = end;
    }
    cost.conflicts = cost.wavefronts - cost.phases;
    Ok(Analysis {
        cost,
        lanes_per_phase: lanes,
        doubled: lanes != base,
        phases,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(f: impl Fn(u32) -> u32) -> [u32; WARP] {
        std::array::from_fn(|l| f(l as u32))
    }

    fn wf(op: Op, width: u32, f: impl Fn(u32) -> u32) -> u32 {
        cost(&Geometry::H200, op, width, &addrs(f), u32::MAX)
            .unwrap()
            .wavefronts
    }

    #[test]
    fn seed_examples() {
        assert_eq!(wf(Op::Ld, 4, |t| t * 4), 1);
        assert_eq!(wf(Op::Ld, 4, |t| t * 8), 2);
        assert_eq!(wf(Op::Ld, 4, |_| 0), 1);
        assert_eq!(wf(Op::Ld, 4, |t| (t % 4) * 128), 4);
        assert_eq!(wf(Op::Ld, 4, |t| t * 128), 32);
        assert_eq!(wf(Op::Ld, 4, |t| t * 33 * 4), 1);
        assert_eq!(wf(Op::Ld, 8, |t| t * 8), 2);
        assert_eq!(wf(Op::Ld, 8, |_| 0), 1);
        assert_eq!(wf(Op::St, 8, |_| 0), 2);
        assert_eq!(wf(Op::Ld, 16, |t| t * 16), 4);
        assert_eq!(wf(Op::Ld, 16, |_| 0), 2);
        assert_eq!(wf(Op::St, 16, |_| 0), 4);
        assert_eq!(wf(Op::Ld, 16, |t| ((t % 4) * 8 + t / 4) * 16), 16);
    }

    #[test]
    fn errors() {
        let g = Geometry::H200;
        let a = addrs(|t| t * 4 + 2);
        assert!(matches!(
            cost(&g, Op::Ld, 4, &a, 1 << 3),
            Err(Error::Misaligned { lane: 3, .. })
        ));
        assert_eq!(cost(&g, Op::Ld, 4, &a, 0).unwrap(), Cost::default());
        assert!(matches!(cost(&g, Op::Ld, 2, &a, 1), Err(Error::Width(2))));
        assert!(Geometry::new(0, 4).is_err());
        assert!(Geometry::new(32, 3).is_err());
        assert!(Geometry::new(32, 2).is_err());
    }

    #[test]
    fn per_bank_counts() {
        let g = Geometry::H200;
        let mut pb = vec![0u64; 32];
        cost_counting(&g, Op::Ld, 4, &addrs(|t| t * 128), u32::MAX, Some(&mut pb)).unwrap();
        assert_eq!(pb[0], 32);
        assert_eq!(pb[1..].iter().sum::<u64>(), 0);
        let mut pb = vec![0u64; 32];
        cost_counting(&g, Op::Ld, 4, &addrs(|t| t * 4), u32::MAX, Some(&mut pb)).unwrap();
        assert!(pb.iter().all(|&c| c == 1));
    }
}
