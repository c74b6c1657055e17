//! Initial buffer contents: `Zeros`, `Iota` and `Random(seed)` (see the [module](super) doc).

use super::*;

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function.
#[inline]
pub(super) fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random draw of element `i` for `Random(seed)`.
#[inline]
pub(super) fn random_bits(seed: u64, i: u64) -> u64 {
    splitmix64(seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// The 32-bit words of element `i` of a buffer of `elem` filled by `init` (the second word
/// is only meaningful for `f64`: low word first).
#[inline]
pub(super) fn init_element(elem: Elem, init: Init, i: u64) -> [u32; 2] {
    let bits64 = |v: f64| {
        let b = v.to_bits();
        [b as u32, (b >> 32) as u32]
    };
    match init {
        Init::Zeros => [0, 0],
        Init::Iota => match elem {
            Elem::F32 => [(i as f32).to_bits(), 0],
            Elem::F64 => bits64(i as f64),
            Elem::U32 | Elem::I32 => [i as u32, 0],
            Elem::U8 | Elem::I8 | Elem::U16 | Elem::I16 => [i as u32 & narrow_mask(elem), 0],
            Elem::F16 | Elem::BF16 => [half_bits(elem, i as f64), 0],
        },
        Init::Random(seed) => {
            let h = random_bits(seed, i);
            match elem {
                Elem::F32 => [
                    ((h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0).to_bits(),
                    0,
                ],
                Elem::F64 => bits64((h >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0),
                Elem::U32 | Elem::I32 => [(h >> 48) as u32, 0],
                // The top 8 or 16 bits (signed types read them as two's complement).
                Elem::U8 | Elem::I8 => [(h >> 56) as u32, 0],
                Elem::U16 | Elem::I16 => [(h >> 48) as u32, 0],
                // The f32 draw, rounded to the half format.
                Elem::F16 | Elem::BF16 => [
                    half_bits(
                        elem,
                        ((h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0) as f64,
                    ),
                    0,
                ],
            }
        }
    }
}

fn narrow_mask(elem: Elem) -> u32 {
    crate::narrow::mask(elem.bytes())
}

fn half_bits(elem: Elem, x: f64) -> u32 {
    elem.half().map_or(0, |h| h.from_f64(x) as u32)
}

/// A buffer's initial contents as 32-bit words (`f64`: two words per element, low first),
/// filled by [`fill_global`] (the allocation is taken over, not copied).
pub fn init_words(b: &BufferInfo) -> Vec<u32> {
    let out: Vec<AtomicU32> = (0..b.words()).map(|_| AtomicU32::new(0)).collect();
    if b.init != Init::Zeros {
        fill_global(b.elem, b.init, &out);
    }
    out.into_iter().map(AtomicU32::into_inner).collect()
}

/// Fills `out` (a whole buffer's words, in global memory) with the initial contents, in
/// parallel and in place.
pub fn fill_global(elem: Elem, init: Init, out: &[AtomicU32]) {
    const CHUNK: usize = 1 << 14;
    if elem.is_narrow() {
        // Several elements a word: element `k`'s bits at byte `k * bytes` (little-endian).
        let per = (4 / elem.bytes()) as u64;
        out.par_chunks(CHUNK).enumerate().for_each(|(c, ws)| {
            for (k, w) in ws.iter().enumerate() {
                let word = (c * CHUNK + k) as u64;
                let mut v = 0u32;
                for e in 0..per {
                    let bits = init_element(elem, init, word * per + e)[0];
                    v |= (bits & narrow_mask(elem)) << (e as u32 * elem.bytes() * 8);
                }
                w.store(v, Relaxed);
            }
        });
        return;
    }
    let per = (elem.bytes() / 4) as usize;
    out.par_chunks(CHUNK).enumerate().for_each(|(c, ws)| {
        let first = (c * CHUNK / per) as u64;
        for (k, w) in ws.chunks(per).enumerate() {
            let e = init_element(elem, init, first + k as u64);
            for (d, &v) in w.iter().zip(&e) {
                d.store(v, Relaxed);
            }
        }
    });
}

/// Which buffers the program stores to (the others end as they started).
pub fn written_buffers(prog: &Program) -> Vec<bool> {
    let mut out = vec![false; prog.buffers.len()];
    for inst in &prog.code {
        if let Inst::Store(m) | Inst::Atomic { m, .. } = inst {
            if m.space == Space::Global {
                if let Some(w) = out.get_mut(m.array as usize) {
                    *w = true;
                }
            }
        }
    }
    out
}
