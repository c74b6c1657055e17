//! `cp.async` (SASS `LDGSTS`): a copy from global to shared memory that bypasses the
//! registers. The rule measured on the H200 (`calibration/probes/tensor_smem/README.md`,
//! "LDGSTS"; 128 launches exact on every counter), with the choices that first call could not
//! separate taken as `model.py`'s `SPEC` defaults. Not confirmed held out: the random draw
//! (`calibration/draws/tensor_smem_draw1/RESULT.md`) got 57 of 81 `.ca` and 52 of 69 `.cg`
//! Source-page wavefronts (a `.ca` phase conflicted on both sides costs more; no sector
//! bound); the rule here stays until a fresh draw confirms a new one.
//!
//! `.ca` (`LDGSTS.E[.64,.128]`, 4, 8 or 16 bytes), phases as for a store of that width:
//!
//! * A phase costs the most **lane-words** on one destination bank or on one **source** bank,
//!   whichever is larger, counted with multiplicity (no merging: 32 lanes on one word are 32).
//!   The source bank of a global byte address is `(address mod 128) / 4` (its word in the L1
//!   line); the source words are those of the bytes read (src-size; none for 0). A phase
//!   takes at least `ceil(its sectors / 4)` wavefronts.
//! * Source page: wavefronts = the sum; bank conflicts = wavefronts − phases.
//! * Hardware `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts`: wavefronts − the sum
//!   over phases of `max(1, ceil(sectors / 4))`; the wavefronts land in the hardware total.
//!
//! `.cg` (`LDGSTS.E.BYPASS.128`, 16 bytes): lanes on one destination merge (the highest lane's
//! copy is the one done); the rest fall into groups of equal (source 128-byte line,
//! destination 128-byte line, destination 16-byte chunk ^ source chunk), one wavefront a group.
//! Bank conflicts are 0 and no hardware counter sees them. With a src-size operand (`.ZFILL`)
//! the Source page adds a zero-fill store priced as the whole `.ca` copy of the active lanes at
//! full width (destination and source side, whatever each lane's src-size, even 0), whose bank
//! conflicts are that copy's in a phase where some lane reads and its destination side's in a
//! phase where none does (`calibration/probes/ldgsts_tma3`: 78 of 78 `.cg.z` launches; which
//! of "the phase" or "the warp" decides is not separated there). The hardware counters see
//! that store only for the lanes that read less than 16 bytes.
//!
//! Sectors ("L2 Theoretical Sectors Global"): the distinct 32-byte sectors read (`.cg`: per
//! group, summed). Tags ("L1 Tag Requests Global"): the distinct 128-byte lines read.

use crate::*;
use std::fmt;

/// Bytes of an L1 line: the source side's 32 banks of 4 bytes.
const LINE: u64 = 128;

/// One `cp.async` warp instruction's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AsyncCopy {
    /// `.cg` (`LDGSTS.E.BYPASS`, 16 bytes only) rather than `.ca`.
    pub bypass: bool,
    /// Bytes a lane copies: 4, 8 or 16.
    pub width: u32,
    /// The instruction has a src-size operand (`.ZFILL`): bytes past it are written as zero.
    pub zfill: bool,
}

impl fmt::Display for AsyncCopy {
    /// As a trace line writes it: `cp.async.ca 16`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = if self.bypass { "cg" } else { "ca" };
        write!(f, "cp.async.{c} {}", self.width)
    }
}

/// The counters of one `cp.async`, as Nsight Compute names them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyCost {
    /// Source page `smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts`.
    pub wavefronts: u32,
    /// Source page `smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts`.
    pub conflicts: u32,
    /// Source page "L1 Wavefronts Shared Ideal": the phases with an active lane.
    pub ideal: u32,
    /// `smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts` ("L2 Theoretical Sectors
    /// Global").
    pub sectors: u32,
    /// "L1 Tag Requests Global": the distinct 128-byte source lines read.
    pub tags: u32,
    /// What it adds to the hardware total `l1tex__data_pipe_lsu_wavefronts_mem_shared`.
    pub hw_wavefronts: u32,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts`.
    pub hw_conflicts: u32,
}

/// Why a `cp.async` cannot be priced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CopyError {
    /// The geometry is not one [`Geometry::new`] accepts.
    #[error(transparent)]
    Geometry(#[from] Error),
    /// Not 4, 8 or 16 bytes (`.cg`: 16 only).
    #[error("{}", if *bypass {
        format!("cp.async.cg copies 16 bytes a lane, not {width}: write 16, or use cp.async.ca for 4 or 8")
    } else {
        format!("cp.async.ca copies 4, 8 or 16 bytes a lane, not {width}")
    })]
    Width {
        /// `.cg`.
        bypass: bool,
        /// The width given.
        width: u32,
    },
    /// A destination not aligned to the width.
    #[error(
        "lane {lane}'s shared destination {addr} is not a multiple of the {width}-byte copy size"
    )]
    Destination {
        /// The lane.
        lane: u32,
        /// Its destination.
        addr: u32,
        /// The copy size.
        width: u32,
    },
    /// A source not aligned to the width.
    #[error("lane {lane}'s global source {addr} is not a multiple of the {width}-byte copy size")]
    Source {
        /// The lane.
        lane: u32,
        /// Its source.
        addr: u64,
        /// The copy size.
        width: u32,
    },
    /// A src-size larger than the copy.
    #[error(
        "lane {lane}'s src-size {size} is larger than the {width}-byte copy: write 0 to {width}"
    )]
    Size {
        /// The lane.
        lane: u32,
        /// Its src-size.
        size: u32,
        /// The copy size.
        width: u32,
    },
}

/// One warp's `cp.async` lanes: shared destinations, global source byte addresses, bytes read
/// (src-size; the width without a src-size operand) and the active lanes.
#[derive(Clone, Copy, Debug)]
pub struct CopyLanes<'a> {
    /// Shared destination byte address of each lane.
    pub dst: &'a [u32; WARP],
    /// Global source byte address of each lane.
    pub src: &'a [u64; WARP],
    /// Bytes read from the source (the rest zero-filled), at most the width.
    pub size: &'a [u32; WARP],
    /// Active lanes.
    pub mask: u32,
}

/// Prices one `cp.async` warp instruction (see the module's rule).
pub fn async_copy_cost(
    geom: &Geometry,
    kind: AsyncCopy,
    lanes: CopyLanes<'_>,
) -> Result<CopyCost, CopyError> {
    geom.validate()?;
    let w = kind.width;
    if !matches!(w, 4 | 8 | 16) || (kind.bypass && w != 16) {
        return Err(CopyError::Width {
            bypass: kind.bypass,
            width: w,
        });
    }
    let CopyLanes {
        dst,
        src,
        size,
        mask,
    } = lanes;
    for l in 0..WARP {
        if mask >> l & 1 == 0 {
            continue;
        }
        let lane = l as u32;
        if dst[l] % w != 0 {
            return Err(CopyError::Destination {
                lane,
                addr: dst[l],
                width: w,
            });
        }
        if src[l] % w as u64 != 0 {
            return Err(CopyError::Source {
                lane,
                addr: src[l],
                width: w,
            });
        }
        if size[l] > w {
            return Err(CopyError::Size {
                lane,
                size: size[l],
                width: w,
            });
        }
    }
    if mask == 0 {
        return Ok(CopyCost::default());
    }
    let reads = |l: usize| mask >> l & 1 != 0 && size[l] > 0;
    // Aligned, a lane's bytes lie in one 32-byte sector and one 128-byte line.
    let mut tags = [0u64; WARP];
    let mut nt = 0;
    for l in (0..WARP).filter(|&l| reads(l)) {
        tags[nt] = src[l] / LINE;
        nt += 1;
    }
    let tags = distinct(&mut tags[..nt]);
    let g = geom.lanes_per_phase(w) as usize;
    let phase_masks = (0..WARP)
        .step_by(g)
        .map(|p0| mask & span(p0, g))
        .filter(|&m| m != 0);
    let mut c = CopyCost {
        ideal: phase_masks.clone().count() as u32,
        tags,
        ..CopyCost::default()
    };
    if !kind.bypass {
        c.sectors = sectors(src, mask, &reads);
        let mut hw_ideal = 0;
        for pm in phase_masks {
            let sp = sectors(src, pm, &reads);
            let cost = dest_cost(geom, w, dst, pm)
                .max(source_cost(src, size, pm))
                .max(sp.div_ceil(4));
            c.wavefronts += cost;
            hw_ideal += sp.div_ceil(4).max(1);
        }
        c.conflicts = c.wavefronts - c.ideal;
        c.hw_wavefronts = c.wavefronts;
        c.hw_conflicts = c.wavefronts - hw_ideal;
        return Ok(c);
    }
    // `.cg`: the lanes left after merging those on one destination (the highest lane stays).
    let mut kept = 0u32;
    for l in 0..WARP {
        if mask >> l & 1 != 0 && !(l + 1..WARP).any(|k| mask >> k & 1 != 0 && dst[k] == dst[l]) {
            kept |= 1 << l;
        }
    }
    let key = |l: usize| {
        let (d, s) = (dst[l] as u64, src[l]);
        let mask = (d % LINE / 16) ^ (s % LINE / 16);
        (s / LINE, d / LINE, mask)
    };
    let mut keys = [(0u64, 0u64, 0u64); WARP];
    let mut nk = 0;
    for l in (0..WARP).filter(|&l| kept >> l & 1 != 0) {
        keys[nk] = key(l);
        nk += 1;
    }
    c.wavefronts = distinct(&mut keys[..nk]);
    // Sectors per group, summed: the distinct (group, sector) pairs.
    let group_sectors = |m: u32| {
        let mut gs = [((0u64, 0u64, 0u64), 0u64); WARP];
        let mut n = 0;
        for l in (0..WARP).filter(|&l| m >> l & 1 != 0 && reads(l)) {
            gs[n] = (key(l), src[l] / 32);
            n += 1;
        }
        distinct(&mut gs[..n])
    };
    c.sectors = group_sectors(kept);
    if kind.zfill {
        // The zero-fill store on the Source page: the whole `.ca` copy of the active lanes at
        // full width, whatever each lane's src-size (ldgsts_tma3: 78 of 78); its conflicts are
        // that copy's where a lane of the phase reads, the destination side's where none does.
        let full = [w; WARP];
        let active = |l: usize| mask >> l & 1 != 0;
        // The lanes that zero-fill (read less than the width), and those that read anything.
        let (mut fill, mut readers) = (0u32, 0u32);
        for l in (0..WARP).filter(|&l| active(l)) {
            fill |= u32::from(size[l] < w) << l;
            readers |= u32::from(size[l] > 0) << l;
        }
        let (mut zwf, mut zbusy, mut hw_wf, mut hw_ideal) = (0, 0, 0, 0);
        for pm in phase_masks {
            let dest = dest_cost(geom, w, dst, pm);
            let ca = dest
                .max(source_cost(src, &full, pm))
                .max(sectors(src, pm, &active).div_ceil(4));
            zwf += ca;
            zbusy += if pm & readers != 0 { ca } else { dest };
            let fl = pm & fill;
            if fl != 0 {
                let sp = group_sectors(fl & kept);
                hw_wf += dest_cost(geom, w, dst, fl).max(sp.div_ceil(4));
                hw_ideal += sp.div_ceil(4).max(1);
            }
        }
        c.wavefronts += zwf;
        c.conflicts = zbusy - c.ideal;
        c.hw_wavefronts = hw_wf;
        c.hw_conflicts = hw_wf - hw_ideal;
    }
    Ok(c)
}

/// [`async_copy_cost`], also adding to `counts` the words each bank served: those of the
/// shared side, counted as for a store of the copy's width to the same destinations
/// ([`cost_into`]).
pub fn async_copy_cost_counting(
    geom: &Geometry,
    kind: AsyncCopy,
    lanes: CopyLanes<'_>,
    counts: &mut BankCounts,
) -> Result<CopyCost, CopyError> {
    let c = async_copy_cost(geom, kind, lanes)?;
    // (The destinations were checked aligned above, so the store prices.)
    let _ = cost_into(geom, Op::St, kind.width, lanes.dst, lanes.mask, counts);
    Ok(c)
}

/// The lanes `p0 … p0+g-1` as a mask.
fn span(p0: usize, g: usize) -> u32 {
    let m = if g >= WARP { u32::MAX } else { (1u32 << g) - 1 };
    m << p0
}

/// The number of distinct values (sorts the slice).
fn distinct<T: Ord + Copy>(v: &mut [T]) -> u32 {
    v.sort_unstable();
    let mut n = 0;
    for i in 0..v.len() {
        if i == 0 || v[i] != v[i - 1] {
            n += 1;
        }
    }
    n
}

/// The distinct 32-byte sectors the lanes of `m` read.
fn sectors(src: &[u64; WARP], m: u32, reads: &dyn Fn(usize) -> bool) -> u32 {
    let mut s = [0u64; WARP];
    let mut n = 0;
    for l in (0..WARP).filter(|&l| m >> l & 1 != 0 && reads(l)) {
        s[n] = src[l] / 32;
        n += 1;
    }
    distinct(&mut s[..n])
}

/// The most lane-words on one destination bank among the lanes of `m`, with multiplicity.
fn dest_cost(geom: &Geometry, w: u32, dst: &[u32; WARP], m: u32) -> u32 {
    let shift = geom.bank_bytes.trailing_zeros();
    // At most 32 lanes of at most 4 words.
    let mut banks = [0u32; 4 * WARP];
    let mut n = 0;
    for l in (0..WARP).filter(|&l| m >> l & 1 != 0) {
        for word in dst[l] >> shift..=(dst[l] + w - 1) >> shift {
            banks[n] = word % geom.banks;
            n += 1;
        }
    }
    most_repeated(&mut banks[..n])
}

/// The most lane-words on one source bank (`(address mod 128) / 4`) among the lanes of `m`,
/// over the bytes each reads.
fn source_cost(src: &[u64; WARP], size: &[u32; WARP], m: u32) -> u32 {
    let mut on = [0u32; 32];
    for l in (0..WARP).filter(|&l| m >> l & 1 != 0 && size[l] > 0) {
        for word in src[l] / 4..=(src[l] + size[l] as u64 - 1) / 4 {
            on[(word % 32) as usize] += 1;
        }
    }
    on.into_iter().max().unwrap_or(0)
}

/// The largest number of equal values (sorts the slice).
fn most_repeated(v: &mut [u32]) -> u32 {
    v.sort_unstable();
    let (mut best, mut run) = (0, 0);
    for i in 0..v.len() {
        run = if i > 0 && v[i] == v[i - 1] {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}
