//! 32-lane helpers: masks, per-lane maps, 64-bit register pairs. Written so that the compiler
//! vectorizes them (see [`movemask`] for why masks are built the way they are).

use super::{Lanes, FULL};
use warpsim_kernel::ir::Reg;
use warpsim_smem::WARP;

/// Writes `v` into the lanes of `d` selected by `mask`.
#[inline(always)]
pub(super) fn put(d: &mut Lanes, v: Lanes, mask: u32) {
    if mask == FULL {
        *d = v;
    } else {
        let on = lane_flags(mask);
        for ((o, n), on) in d.iter_mut().zip(v).zip(on) {
            *o = (n & on) | (*o & !on);
        }
    }
}

/// `BIT[l] = 1 << l`: with it, per-lane mask tests and mask building vectorize (shifting by
/// the lane number does not, without AVX2).
pub(super) const BIT: Lanes = {
    let mut b = [0; WARP];
    let mut l = 0;
    while l < WARP {
        b[l] = 1 << l;
        l += 1;
    }
    b
};

/// `[f(0), f(1), …, f(31)]`, as a plain counted loop (which the compiler unrolls and
/// vectorizes more reliably than `std::array::from_fn`).
#[inline(always)]
pub(super) fn per_lane<T: Copy + Default>(mut f: impl FnMut(usize) -> T) -> [T; WARP] {
    let mut out = [T::default(); WARP];
    for (l, o) in out.iter_mut().enumerate() {
        *o = f(l);
    }
    out
}

/// All ones in the lanes of `mask`, zero elsewhere.
#[inline(always)]
pub(super) fn lane_flags(mask: u32) -> Lanes {
    per_lane(|l| ((mask & BIT[l]) != 0) as u32 * u32::MAX)
}

/// The lanes whose top bit is set in `flags` (a lane of comparison results, all ones or
/// all zeros, gives its truth).
///
/// SSE2 (part of x86-64) has an instruction for four lanes at a time; without it (and even
/// as a map and OR-reduction over `BIT`) the compiler peels lane 0 and reads the rest at
/// 4-byte offsets, which defeats store-to-load forwarding right after the register was
/// written: a fifth of the interpreter's time once went to loop tests.
#[inline(always)]
pub(super) fn movemask(flags: &Lanes) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_packs_epi32,
        };
        // Saturating packs 32 -> 16 -> 8 bits keep each lane's sign, in lane order; then one
        // bit per byte.
        // SAFETY: SSE2 is part of the x86-64 baseline; the eight unaligned loads read the 128
        // bytes of `flags`.
        unsafe {
            let p = flags.as_ptr() as *const __m128i;
            let q = |i: usize| _mm_loadu_si128(p.add(i));
            let lo = _mm_packs_epi16(_mm_packs_epi32(q(0), q(1)), _mm_packs_epi32(q(2), q(3)));
            let hi = _mm_packs_epi16(_mm_packs_epi32(q(4), q(5)), _mm_packs_epi32(q(6), q(7)));
            (_mm_movemask_epi8(lo) as u32 & 0xffff) | (_mm_movemask_epi8(hi) as u32) << 16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        or_lanes(&per_lane(|l| BIT[l] & ((flags[l] as i32) >> 31) as u32))
    }
}

/// The lanes where `flags` is not zero.
#[inline(always)]
pub(super) fn mask_of(flags: &Lanes) -> u32 {
    movemask(&per_lane(|l| ((flags[l] != 0) as u32).wrapping_neg()))
}

/// The OR of all lanes, as a tree over aligned halves.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn or_lanes(x: &Lanes) -> u32 {
    let mut v = *x;
    let mut n = WARP / 2;
    while n >= 1 {
        for l in 0..n {
            v[l] |= v[l + n];
        }
        n /= 2;
    }
    v[0]
}

/// Lanes whose value is not zero.
#[inline(always)]
pub(super) fn nonzero(x: &Lanes) -> u32 {
    mask_of(x)
}

#[inline(always)]
pub(super) fn get64(r: &[Lanes], a: Reg) -> [f64; WARP] {
    let lo = r[a.0 as usize];
    let hi = r[a.0 as usize + 1];
    per_lane(|l| f64::from_bits(lo[l] as u64 | (hi[l] as u64) << 32))
}

#[inline(always)]
pub(super) fn put64(r: &mut [Lanes], dst: Reg, v: [f64; WARP], mask: u32) {
    let lo = per_lane(|l| v[l].to_bits() as u32);
    let hi = per_lane(|l| (v[l].to_bits() >> 32) as u32);
    put(&mut r[dst.0 as usize], lo, mask);
    put(&mut r[dst.0 as usize + 1], hi, mask);
}

/// The 64-bit integer of each lane of the register pair `a:a+1` (low word first).
#[inline(always)]
pub(super) fn get_u64(r: &[Lanes], a: Reg) -> [u64; WARP] {
    let (lo, hi) = (&r[a.0 as usize], &r[a.0 as usize + 1]);
    per_lane(|l| lo[l] as u64 | (hi[l] as u64) << 32)
}

/// Writes 64-bit integers to the register pair `dst:dst+1` in the lanes of `mask`.
#[inline(always)]
pub(super) fn put_u64(r: &mut [Lanes], dst: Reg, v: [u64; WARP], mask: u32) {
    put(&mut r[dst.0 as usize], per_lane(|l| v[l] as u32), mask);
    put(
        &mut r[dst.0 as usize + 1],
        per_lane(|l| (v[l] >> 32) as u32),
        mask,
    );
}

/// Whether every active lane of `x` holds the value of lane `first`.
#[inline(always)]
pub(super) fn is_uniform(x: &Lanes, active: u32, first: usize) -> bool {
    let v0 = x[first];
    movemask(&per_lane(|l| ((x[l] != v0) as u32).wrapping_neg())) & active == 0
}
