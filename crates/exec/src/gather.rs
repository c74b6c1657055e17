//! Moving whole warps of words: SIMD gathers from shared memory, and lane-major copies between
//! registers and memory (a vector per lane).

use super::Lanes;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_smem::WARP;

/// `out[k][l] = sh[a + k]` for `k < W` (2 or 4) and every lane `l`, where `a` is `at[l]`
/// clamped to the last start that fits (zeros if `sh` is shorter than `W`): one 8- or 16-byte
/// load per lane, and the words of four lanes transposed into place with SSE2 (part of
/// x86-64), which beats a gather per word.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn gather_rows<const W: usize>(sh: &[u32], at: &Lanes, out: &mut [Lanes; 4]) {
    use std::arch::x86_64::{
        __m128i, _mm_loadl_epi64, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    };
    let Some(top) = sh.len().checked_sub(W) else {
        return;
    };
    for g in 0..WARP / 4 {
        // SAFETY: every load reads W words from a start at most `sh.len() - W`; every store
        // writes lanes 4g..4g+4 of one of `out`'s four rows.
        unsafe {
            let row = |l: usize| {
                let p = sh.as_ptr().add((at[4 * g + l] as usize).min(top)) as *const __m128i;
                if W == 4 {
                    _mm_loadu_si128(p)
                } else {
                    _mm_loadl_epi64(p)
                }
            };
            let (a, b, c, d) = (row(0), row(1), row(2), row(3));
            let ab_lo = _mm_unpacklo_epi32(a, b); // a0 b0 a1 b1
            let cd_lo = _mm_unpacklo_epi32(c, d); // c0 d0 c1 d1
            let words = [
                _mm_unpacklo_epi64(ab_lo, cd_lo), // a0 b0 c0 d0
                _mm_unpackhi_epi64(ab_lo, cd_lo), // a1 b1 c1 d1
                {
                    let ab_hi = _mm_unpackhi_epi32(a, b); // a2 b2 a3 b3
                    let cd_hi = _mm_unpackhi_epi32(c, d);
                    _mm_unpacklo_epi64(ab_hi, cd_hi)
                },
                {
                    let ab_hi = _mm_unpackhi_epi32(a, b);
                    let cd_hi = _mm_unpackhi_epi32(c, d);
                    _mm_unpackhi_epi64(ab_hi, cd_hi)
                },
            ];
            for (k, w) in words[..W].iter().enumerate() {
                _mm_storeu_si128(out[k].as_mut_ptr().add(4 * g) as *mut __m128i, *w);
            }
        }
    }
}

/// `[sh[min(at[l], sh.len() - 1)] for each lane l]`, with AVX2's gather (eight lanes an
/// instruction). Zeros if `sh` is empty.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn gather_avx2(sh: &[u32], at: &Lanes) -> Lanes {
    use std::arch::x86_64::{
        __m256i, _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_min_epu32, _mm256_set1_epi32,
        _mm256_storeu_si256,
    };
    let mut out = [0u32; WARP];
    // Indices are i32 for the gather; shared memory has at most 2^29 words.
    let Some(last) = sh.len().checked_sub(1).filter(|&l| l <= i32::MAX as usize) else {
        return out;
    };
    let lim = _mm256_set1_epi32(last as i32);
    for c in 0..WARP / 8 {
        // SAFETY: the unaligned loads and stores cover lanes 8c..8c+8 of `at` and `out`; the
        // gather reads `sh` at indices clamped (unsigned) to its last element.
        unsafe {
            let idx = _mm256_loadu_si256(at.as_ptr().add(8 * c) as *const __m256i);
            let idx = _mm256_min_epu32(idx, lim);
            let v = _mm256_i32gather_epi32::<4>(sh.as_ptr() as *const i32, idx);
            _mm256_storeu_si256(out.as_mut_ptr().add(8 * c) as *mut __m256i, v);
        }
    }
    out
}

/// `cells[l * W + k] = regs[k][l]` for the 32 lanes (lane-major words from registers).
#[inline(always)]
pub(super) fn interleave<const W: usize>(cells: &mut [u32], regs: &[Lanes]) {
    let (cells, regs) = (&mut cells[..WARP * W], &regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            cells[l * W + k] = regs[k][l];
        }
    }
}

/// `regs[k][l] = cells[l * W + k]` for the 32 lanes.
#[inline(always)]
pub(super) fn deinterleave<const W: usize>(cells: &[u32], regs: &mut [Lanes]) {
    let (cells, regs) = (&cells[..WARP * W], &mut regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            regs[k][l] = cells[l * W + k];
        }
    }
}

/// [`interleave`] (a store) or [`deinterleave`] (a load) with global memory.
#[inline(always)]
pub(super) fn copy_atomic<const W: usize>(cells: &[AtomicU32], regs: &mut [Lanes], store: bool) {
    let (cells, regs) = (&cells[..WARP * W], &mut regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            if store {
                cells[l * W + k].store(regs[k][l], Relaxed);
            } else {
                regs[k][l] = cells[l * W + k].load(Relaxed);
            }
        }
    }
}
