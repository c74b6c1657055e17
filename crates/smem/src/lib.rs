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
//! * [`atomic_cost`] / [`analyze_atomic`]: shared atomics (`atom.OP`, `red.OP`), which queue
//!   lanes rather than share words, or run as compare-and-swap loops (module `atomic`).
//!
//! Accesses of 1 and 2 bytes follow the same rule as 4 bytes (one phase for the warp; lanes
//! reading or writing different bytes of one word share it), measured like the rest.
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

mod atomic;
pub use atomic::{
    analyze_atomic, atomic_cost, AccessKind, AtomAnalysis, AtomCost, AtomOp, AtomPhase, AtomTy,
    Atomic, AtomicError, Form, Trip,
};

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
    /// The access width is not 1, 2, 4, 8 or 16 bytes.
    #[error("an access of {0} bytes is not supported: shared accesses are 1, 2, 4, 8 or 16 bytes")]
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
        let g = Geometry { banks, bank_bytes };
        g.validate()?;
        Ok(g)
    }

    /// Whether this geometry is one [`Geometry::new`] accepts (the fields are public, so a
    /// geometry may also be written out by hand).
    #[inline]
    pub fn validate(&self) -> Result<(), Error> {
        if self.banks == 0 || self.banks > MAX_BANKS {
            return Err(Error::Banks(self.banks));
        }
        // A power of two (without `is_power_of_two`, which is a software popcount on
        // baseline x86-64), 4 to 64.
        let b = self.bank_bytes;
        if b & b.wrapping_sub(1) != 0 || !(4..=64).contains(&b) {
            return Err(Error::BankBytes(b));
        }
        Ok(())
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

/// What every access is checked for first: a geometry [`Geometry::new`] would accept and a
/// width of 1, 2, 4, 8 or 16 bytes. Gives whether the whole warp fits one phase of one word per lane
/// (`lanes_per_phase(width) == 32` and no wider than a bank, without its division).
#[inline(always)]
fn start(geom: &Geometry, width: u32) -> Result<bool, Error> {
    geom.validate()?;
    if !matches!(width, 1 | 2 | 4 | 8 | 16) {
        return Err(Error::Width(width));
    }
    Ok(width <= geom.bank_bytes
        && geom.banks as u64 * geom.bank_bytes as u64 >= WARP as u64 * width as u64)
}

/// Checks every active lane's alignment to the width.
#[inline]
fn aligned(width: u32, addrs: &[u32; WARP], mask: u32) -> Result<(), Error> {
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

/// Distinct words served per bank, summed over many accesses (see [`cost_into`]).
///
/// An access that asks every bank for exactly one word (the common case in a well laid out
/// kernel) adds one to a single counter rather than one to each bank.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BankCounts {
    /// Words per bank, beyond `all`.
    each: Vec<u64>,
    /// Words served by every bank.
    all: u64,
}

impl BankCounts {
    /// Zero counts for `banks` banks.
    pub fn new(banks: u32) -> Self {
        BankCounts {
            each: vec![0; banks as usize],
            all: 0,
        }
    }

    /// Number of banks counted.
    pub fn banks(&self) -> usize {
        self.each.len()
    }

    /// The words bank `b` served (0 for a bank that is not counted).
    pub fn get(&self, b: usize) -> u64 {
        self.each.get(b).map_or(0, |&n| n + self.all)
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.all == 0 && self.each.iter().all(|&n| n == 0)
    }

    /// Adds the counts to `out[b]`, for every bank `b` that both have.
    pub fn add_to(&self, out: &mut [u64]) {
        for (o, &n) in out.iter_mut().zip(&self.each) {
            *o += n + self.all;
        }
    }

    /// Back to zero.
    pub fn clear(&mut self) {
        self.each.fill(0);
        self.all = 0;
    }
}

/// Where the pricing adds the words each bank served.
trait Sink {
    /// One word from each bank in `used` (bit `b` = bank `b`; fewer than 64 banks, or
    /// exactly 64).
    fn one_each(&mut self, used: u64, banks: u32);
    /// `n` words from bank `b`.
    fn add(&mut self, b: usize, n: u64);
}

impl Sink for () {
    #[inline(always)]
    fn one_each(&mut self, _: u64, _: u32) {}
    #[inline(always)]
    fn add(&mut self, _: usize, _: u64) {}
}

/// Adds one to `each[b]` for the banks of `used`.
#[inline(always)]
fn add_bits(each: &mut [u64], used: u64, banks: u32) {
    if banks == 32 {
        // Without branches: 32 lanes of `bit of used`, which vectorizes.
        let each = &mut each[..32];
        for (b, e) in each.iter_mut().enumerate() {
            *e += (used >> b) & 1;
        }
    } else {
        let mut u = used;
        while u != 0 {
            each[u.trailing_zeros() as usize] += 1;
            u &= u - 1;
        }
    }
}

impl Sink for [u64] {
    #[inline(always)]
    fn one_each(&mut self, used: u64, banks: u32) {
        add_bits(self, used, banks)
    }
    #[inline(always)]
    fn add(&mut self, b: usize, n: u64) {
        self[b] += n;
    }
}

impl Sink for BankCounts {
    #[inline(always)]
    fn one_each(&mut self, used: u64, banks: u32) {
        let every = if banks >= 64 {
            u64::MAX
        } else {
            (1u64 << banks) - 1
        };
        if used == every {
            self.all += 1;
        } else {
            add_bits(&mut self.each, used, banks)
        }
    }
    #[inline(always)]
    fn add(&mut self, b: usize, n: u64) {
        self.each[b] += n;
    }
}

/// [`cost`], adding each bank's served words to `sink`.
#[inline(always)]
fn price<S: Sink + ?Sized>(
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
fn wide_rows(shift: u32, width: u32, addrs: &[u32; WARP]) -> Option<u32> {
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
const ONE_CYCLE: Cost = Cost {
    wavefronts: 1,
    conflicts: 0,
    phases: 1,
};

/// Everything but the conflict-free fast path of [`price`] (kept out of line, so that the fast
/// path stays small where it is inlined).
#[inline(never)]
fn slow<S: Sink + ?Sized>(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    one_phase: bool,
    sink: &mut S,
) -> Result<Cost, Error> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { slow_avx2(geom, op, width, addrs, mask, one_phase, sink) };
    }
    slow_in(geom, op, width, addrs, mask, one_phase, sink)
}

/// [`slow_in`] compiled with AVX2: its 32-lane comparisons take a quarter of the instructions.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn slow_avx2<S: Sink + ?Sized>(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    one_phase: bool,
    sink: &mut S,
) -> Result<Cost, Error> {
    slow_in(geom, op, width, addrs, mask, one_phase, sink)
}

#[inline(always)]
fn slow_in<S: Sink + ?Sized>(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    one_phase: bool,
    sink: &mut S,
) -> Result<Cost, Error> {
    // (`price` has checked the geometry and the width.)
    aligned(width, addrs, mask)?;
    if one_phase && geom.banks <= 32 {
        // Broadcasts, and lanes sharing words on otherwise distinct banks.
        if let Some(used) = conflict_free(geom, addrs, mask) {
            sink.one_each(used as u64, geom.banks);
            return Ok(ONE_CYCLE);
        }
    }
    Ok(general(geom, op, width, addrs, mask, sink))
}

/// For 32 banks of `1 << shift` bytes and one word per lane: the OR of the active lanes'
/// addresses (for the alignment check), and the banks they use if every active lane is on
/// a bank of its own (else 0).
///
/// This is the hot path of the whole simulator. It is written as branch-free passes over
/// the lanes that the compiler vectorises; with AVX2 (checked at run time, cached by std)
/// the per-lane `1 << bank` is one instruction, which halves the time.
#[inline(always)]
fn scan32(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has AVX2 and POPCNT, checked just above.
        return unsafe { scan32_avx2(shift, addrs, mask) };
    }
    scan32_portable(shift, addrs, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn scan32_avx2(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    scan32_portable(shift, addrs, mask)
}

#[inline(always)]
fn scan32_portable(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    match shift {
        2 => scan32_with::<2>(addrs, mask),
        3 => scan32_with::<3>(addrs, mask),
        4 => scan32_with::<4>(addrs, mask),
        5 => scan32_with::<5>(addrs, mask),
        _ => scan32_with::<6>(addrs, mask),
    }
}

#[inline(always)]
fn scan32_with<const SHIFT: u32>(addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    let mut ored = [0u32; WARP];
    let mut bits = [0u32; WARP];
    for l in 0..WARP {
        let on = if mask & (1 << l) != 0 { u32::MAX } else { 0 };
        ored[l] = addrs[l] & on;
        bits[l] = (1u32 << ((addrs[l] >> SHIFT) & 31)) & on;
    }
    let ored = ored.iter().fold(0, |acc, a| acc | a);
    let used = bits.iter().fold(0, |acc, b| acc | b);
    // As many banks as active lanes: no two lanes share a bank.
    let distinct = if used.count_ones() == mask.count_ones() {
        used
    } else {
        0
    };
    (ored, distinct)
}

/// For an access of one word per lane, all lanes in one phase, on at most 32 banks: if every
/// bank is asked for at most one distinct word, the banks used (bit `b` = bank `b`).
#[inline]
fn conflict_free(geom: &Geometry, addrs: &[u32; WARP], mask: u32) -> Option<u32> {
    let shift = geom.bank_bytes.trailing_zeros();
    // Every active lane on one word (a broadcast): a branch-free pass.
    let w0 = addrs[mask.trailing_zeros() as usize] >> shift;
    let mut other = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        other |= (((a >> shift) != w0) as u32) << l;
    }
    if other & mask == 0 {
        return Some(1 << (w0 % geom.banks));
    }
    // Anything else: remember each bank's word, stop at the first second word.
    let mut seen = [0u32; 32];
    let mut used = 0u32;
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let word = addrs[l] >> shift;
        let b = (word % geom.banks) as usize;
        if used & (1 << b) != 0 && seen[b] != word {
            return None;
        }
        used |= 1 << b;
        seen[b] = word;
    }
    Some(used)
}

/// Bits `start..end` (lanes of one phase).
#[inline]
fn lane_range(start: usize, end: usize) -> u32 {
    let below = |n: usize| if n >= WARP { u32::MAX } else { (1u32 << n) - 1 };
    below(end) & !below(start)
}

/// The general path: per phase, the distinct words each bank is asked for.
#[inline(always)]
fn general<S: Sink + ?Sized>(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    sink: &mut S,
) -> Cost {
    let lanes = phase_lanes(geom, op, width, addrs, mask) as usize;
    // Bank widths are powers of two and addresses are aligned, so a lane's bytes fall in
    // `per_lane` whole words (one, if the access is narrower than a bank). Word indices fit in
    // 32 bits. No 64-bit divisions here: they dominated this loop.
    let shift = geom.bank_bytes.trailing_zeros();
    let per_lane = (width >> shift).max(1);
    let pow2 = geom.banks & (geom.banks - 1) == 0;
    let bank_of = |w: u32| {
        if pow2 {
            w & (geom.banks - 1)
        } else {
            w % geom.banks
        }
    };
    // Every lane's (first) word, and for one word per lane its bank, once for all phases.
    let one_word = per_lane == 1 && geom.banks <= 64;
    let mut words = [0u32; WARP];
    let mut banks = [0u32; WARP];
    for l in 0..WARP {
        words[l] = addrs[l] >> shift;
    }
    if one_word {
        for l in 0..WARP {
            banks[l] = bank_of(words[l]);
        }
    }
    let mut out = Cost::default();
    let mut start = 0;
    while start < WARP {
        let end = (start + lanes).min(WARP);
        let phase = mask & lane_range(start, end);
        start = end;
        if phase == 0 {
            continue;
        }
        out.phases += 1;
        if one_word {
            out.wavefronts += phase_words(&words, &banks, phase, sink);
            continue;
        }
        // The distinct first words of the lanes' accesses. Accesses are aligned to their
        // width, so two lanes at different addresses share no word (when an access is narrower
        // than a bank its one word is its first): each distinct first word brings `per_lane`
        // words of its own.
        let mut firsts = [0u32; WARP];
        let mut n = 0;
        let mut m = phase;
        // Every active lane of the phase on one first word (the rows of a 16-byte broadcast
        // load, say): one pass over the lanes instead of one lane at a time.
        let w0 = words[phase.trailing_zeros() as usize];
        if eq_mask(&words, w0) & phase == phase {
            firsts[0] = w0;
            n = 1;
            m = 0;
        }
        while m != 0 {
            let w = words[m.trailing_zeros() as usize];
            m &= m - 1;
            let seen = firsts[..n].iter().fold(false, |d, &x| d | (x == w));
            firsts[n] = w;
            n += !seen as usize;
        }
        let firsts = &firsts[..n];
        out.wavefronts += if geom.banks <= 64 {
            phase_small(firsts, per_lane, geom.banks, bank_of, sink)
        } else {
            phase_large(firsts, per_lane, bank_of, sink)
        };
    }
    out.conflicts = out.wavefronts - out.phases;
    out
}

/// Bit `j` set where `xs[j] == v`: all 32 lanes at once, branch-free (vectorised).
#[inline(always)]
fn eq_mask(xs: &[u32; WARP], v: u32) -> u32 {
    let mut m = 0u32;
    for (j, &x) in xs.iter().enumerate() {
        m |= (1u32 << j) & ((x == v) as u32).wrapping_neg();
    }
    m
}

/// One phase's cycles when each lane asks for one word (`words`, on bank `banks`): the most
/// distinct words asked of one bank, each bank's count going to `sink`.
///
/// Without a loop that grows with the words seen: a lane holds a *first* ask when no lower
/// lane of the phase asks for its word, found for all lanes at once by comparing against every
/// lane; a bank's count is then the number of first asks on it.
#[inline(always)]
fn phase_words<S: Sink + ?Sized>(
    words: &[u32; WARP],
    banks: &[u32; WARP],
    phase: u32,
    sink: &mut S,
) -> u32 {
    let mut firsts = 0u32;
    for l in 0..WARP {
        let below = phase & ((1u32 << l) - 1);
        let repeat = eq_mask(words, words[l]) & below != 0;
        firsts |= ((!repeat) as u32) << l;
    }
    firsts &= phase;
    let mut worst = 0;
    let mut m = firsts;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        // This bank's first asks; the lowest of them reports the bank.
        let same = eq_mask(banks, banks[l]) & firsts;
        m &= !same;
        let n = same.count_ones();
        sink.add(banks[l] as usize, n as u64);
        worst = worst.max(n);
    }
    worst
}

/// One phase's cycles on at most 64 banks: the most distinct words asked of one bank.
///
/// `firsts` are distinct, each the first of `per_lane` words of its own. A bit set of the
/// banks spots the conflict-free phases; otherwise a count per bank, without sorting.
#[inline(always)]
fn phase_small<S: Sink + ?Sized>(
    firsts: &[u32],
    per_lane: u32,
    banks: u32,
    bank_of: impl Fn(u32) -> u32,
    sink: &mut S,
) -> u32 {
    let mut used = 0u64;
    for &f in firsts {
        for k in 0..per_lane {
            used |= 1u64 << bank_of(f.wrapping_add(k));
        }
    }
    if used.count_ones() == firsts.len() as u32 * per_lane {
        // Every word asked for is on a bank of its own: one cycle.
        sink.one_each(used, banks);
        return 1;
    }
    // Words per bank (at most 32 x 4, so a byte each).
    let mut per_bank = [0u8; 64];
    for &f in firsts {
        for k in 0..per_lane {
            per_bank[bank_of(f.wrapping_add(k)) as usize] += 1;
        }
    }
    let per_bank = &per_bank[..banks as usize];
    let mut worst = 0;
    for (b, &n) in per_bank.iter().enumerate() {
        worst = worst.max(n);
        if n != 0 {
            sink.add(b, n as u64);
        }
    }
    worst as u32
}

/// One phase's cycles on more than 64 banks: sort the (bank, word) keys and count runs.
fn phase_large<S: Sink + ?Sized>(
    firsts: &[u32],
    per_lane: u32,
    bank_of: impl Fn(u32) -> u32,
    sink: &mut S,
) -> u32 {
    let mut keys = [0u64; WARP * 4];
    let mut n = 0;
    for &f in firsts {
        for k in 0..per_lane {
            let w = f.wrapping_add(k);
            keys[n] = ((bank_of(w) as u64) << 32) | w as u64;
            n += 1;
        }
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
        if prev != u64::MAX && (k >> 32) != (prev >> 32) {
            sink.add((prev >> 32) as usize, run as u64);
            run = 0;
        }
        run += 1;
        worst = worst.max(run);
        prev = k;
    }
    if prev != u64::MAX {
        sink.add((prev >> 32) as usize, run as u64);
    }
    worst
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
    start(geom, width)?;
    aligned(width, addrs, mask)?;
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
        assert!(matches!(cost(&g, Op::Ld, 3, &a, 1), Err(Error::Width(3))));
        assert!(Geometry::new(0, 4).is_err());
        assert!(Geometry::new(32, 3).is_err());
        assert!(Geometry::new(32, 2).is_err());
    }

    #[test]
    fn scan32_paths_agree() {
        // The AVX2 path (where the CPU has it) and the portable one are the same source; make
        // sure the portable one is exercised too.
        let patterns: [[u32; WARP]; 5] = [
            addrs(|t| t * 4),
            addrs(|t| t * 132),
            addrs(|t| t * 8),
            addrs(|t| (t ^ 5) * 4 + 3),
            addrs(|t| t.wrapping_mul(2654435761)),
        ];
        for a in &patterns {
            for mask in [u32::MAX, 0x5555_5555, 1, 0x8000_0001, 0xffff] {
                for shift in 2..=6 {
                    assert_eq!(scan32(shift, a, mask), scan32_portable(shift, a, mask));
                }
            }
        }
        assert_eq!(
            scan32_portable(2, &addrs(|t| t * 4), u32::MAX),
            (124, u32::MAX)
        );
        assert_eq!(scan32_portable(2, &addrs(|t| t * 8), u32::MAX).1, 0);
        assert_eq!(
            scan32_portable(2, &addrs(|t| t * 8), 0xffff),
            (120, 0x5555_5555)
        );
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

    #[test]
    fn bank_counts() {
        let g = Geometry::H200;
        let mut c = BankCounts::new(32);
        assert!(c.is_empty());
        // Every bank once (kept as one number), twice.
        for _ in 0..2 {
            cost_into(&g, Op::Ld, 4, &addrs(|t| t * 4), u32::MAX, &mut c).unwrap();
        }
        // Banks 0-15 once, from half a warp.
        cost_into(&g, Op::St, 4, &addrs(|t| t * 4), 0xffff, &mut c).unwrap();
        // 32-way on bank 0, with lanes 1 and 2 on one word: 31 distinct words.
        let a = addrs(|t| if t == 2 { 128 } else { t * 128 });
        let cost = cost_into(&g, Op::Ld, 4, &a, u32::MAX, &mut c).unwrap();
        assert_eq!((cost.wavefronts, cost.conflicts), (31, 30));
        let got: Vec<u64> = (0..32).map(|b| c.get(b)).collect();
        let mut want = vec![2u64; 32];
        want[..16].iter_mut().for_each(|n| *n += 1);
        want[0] += 31;
        assert_eq!(got, want);
        let mut out = vec![1u64; 32];
        c.add_to(&mut out);
        assert_eq!(out, want.iter().map(|n| n + 1).collect::<Vec<_>>());
        assert_eq!(c.get(32), 0);
        c.clear();
        assert!(c.is_empty());
        // A smaller counter grows to the geometry.
        let mut small = BankCounts::new(4);
        cost_into(&g, Op::Ld, 4, &addrs(|t| t * 4), 1 << 31, &mut small).unwrap();
        assert_eq!(small.banks(), 32);
        assert_eq!(small.get(31), 1);
    }

    #[test]
    fn wide_rows_fast_path() {
        let g = Geometry::H200;
        // 8-byte rows, an f64 column of a tile padded by one (66 words a row), 16-byte rows,
        // and (slow path) a 2-way conflicted 8-byte access: as the spelled-out analysis says.
        let cases: [(Op, u32, [u32; WARP]); 5] = [
            (Op::Ld, 8, addrs(|t| 800 + t * 8)),
            (Op::St, 8, addrs(|t| t * 33 * 8)),
            (Op::Ld, 16, addrs(|t| t * 16)),
            (Op::St, 8, addrs(|t| t * 16)),
            (Op::Ld, 8, addrs(|t| (t ^ 3) * 8)),
        ];
        for (op, width, a) in cases {
            let mut pb = vec![0u64; 32];
            let c = cost_counting(&g, op, width, &a, u32::MAX, Some(&mut pb)).unwrap();
            let an = analyze(&g, op, width, &a, u32::MAX).unwrap();
            assert_eq!(c, an.cost);
            let mut want = vec![0u64; 32];
            for ph in &an.phases {
                for (b, &n) in ph.per_bank.iter().enumerate() {
                    want[b] += n as u64;
                }
            }
            assert_eq!(pb, want);
        }
        assert_eq!(wide_rows(2, 8, &addrs(|t| t * 8)), Some(2));
        assert_eq!(wide_rows(2, 8, &addrs(|t| t * 16)), None);
        assert_eq!(wide_rows(2, 16, &addrs(|t| t * 16 + 8)), None);
    }

    #[test]
    fn general_path_without_sorting() {
        let g = Geometry::H200;
        // 16-byte loads, four lanes per word group: rule 3 pairs lanes; 2 wavefronts.
        assert_eq!(wf(Op::Ld, 16, |t| (t / 2) * 16), 2);
        // Eight-byte stores on one bank pair, every lane its own words: 32 words on banks 0
        // and 1 per phase of 16 lanes.
        assert_eq!(wf(Op::St, 8, |t| t * 128), 32);
        // Duplicate words in a conflicted phase are served once.
        assert_eq!(wf(Op::Ld, 4, |t| (t % 8) * 128), 8);
        // More than 64 banks: the sorted path.
        let g128 = Geometry::new(128, 4).unwrap();
        let c = cost(&g128, Op::Ld, 4, &addrs(|t| (t % 4) * 512), u32::MAX).unwrap();
        assert_eq!(c.wavefronts, 4);
        let mut pb = vec![0u64; 128];
        cost_counting(
            &g,
            Op::Ld,
            4,
            &addrs(|t| (t % 8) * 128),
            u32::MAX,
            Some(&mut pb),
        )
        .unwrap();
        assert_eq!(pb[0], 8);
    }
}
