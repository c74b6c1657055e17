//! The general pricing path: phases of lanes, distinct words per bank (with an AVX2 build
//! chosen at run time), for accesses the fast paths do not cover.

use crate::*;

/// Everything but the conflict-free fast path of [`price`] (kept out of line, so that the fast
/// path stays small where it is inlined).
#[inline(never)]
pub(crate) fn slow<S: Sink + ?Sized>(
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
pub(crate) fn slow_avx2<S: Sink + ?Sized>(
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
pub(crate) fn slow_in<S: Sink + ?Sized>(
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
pub(crate) fn scan32(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has AVX2 and POPCNT, checked just above.
        return unsafe { scan32_avx2(shift, addrs, mask) };
    }
    scan32_portable(shift, addrs, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
pub(crate) fn scan32_avx2(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    scan32_portable(shift, addrs, mask)
}

#[inline(always)]
pub(crate) fn scan32_portable(shift: u32, addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
    match shift {
        2 => scan32_with::<2>(addrs, mask),
        3 => scan32_with::<3>(addrs, mask),
        4 => scan32_with::<4>(addrs, mask),
        5 => scan32_with::<5>(addrs, mask),
        _ => scan32_with::<6>(addrs, mask),
    }
}

#[inline(always)]
pub(crate) fn scan32_with<const SHIFT: u32>(addrs: &[u32; WARP], mask: u32) -> (u32, u32) {
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
pub(crate) fn conflict_free(geom: &Geometry, addrs: &[u32; WARP], mask: u32) -> Option<u32> {
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
pub(crate) fn lane_range(start: usize, end: usize) -> u32 {
    let below = |n: usize| if n >= WARP { u32::MAX } else { (1u32 << n) - 1 };
    below(end) & !below(start)
}

/// The general path: per phase, the distinct words each bank is asked for.
#[inline(always)]
pub(crate) fn general<S: Sink + ?Sized>(
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
pub(crate) fn eq_mask(xs: &[u32; WARP], v: u32) -> u32 {
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
pub(crate) fn phase_words<S: Sink + ?Sized>(
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
pub(crate) fn phase_small<S: Sink + ?Sized>(
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
pub(crate) fn phase_large<S: Sink + ?Sized>(
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
