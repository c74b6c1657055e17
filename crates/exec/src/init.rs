//! Initial buffer contents: `Zeros`, `Iota` and `Random(seed)`.
//!
//! * `Zeros`: all zero.
//! * `Iota`: element `i` holds `i` converted to the element type (`i as f32`, `i as f64`,
//!   `i as u32`, `i as i32`, rounding or wrapping like a C cast).
//! * `Random(seed)`: element `i` is drawn from `h = splitmix64(seed + (i + 1) · γ)`, the
//!   `(i + 1)`-th output of the SplitMix64 generator started at `seed` (γ =
//!   `0x9E3779B97F4A7C15`). Each element depends only on `(seed, i)`, so buffers are filled in
//!   parallel and the same seed gives the same contents on every machine. Floats are uniform
//!   in `[-1, 1)`: `f32` = `(h >> 40) · 2⁻²³ − 1` (24 random bits), `f64` =
//!   `(h >> 11) · 2⁻⁵² − 1` (53 bits). 32-bit integers (`u32`, `i32`) are `h >> 32`, the
//!   whole range (`i32` reads the bits as two's complement; until issue 37 they were
//!   `h >> 48`, in `[0, 65536)`); 8- and 16-bit ones the top 8 or 16 bits.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_kernel::ir::{Inst, Space};
use warpsim_kernel::{BufferInfo, ConstData, Elem, FillSrc, Init, Program};

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// Words a parallel fill task writes.
const CHUNK: usize = 1 << 14;

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
        Init::Random(seed) | Init::Random16(seed) => {
            let h = random_bits(seed, i);
            match elem {
                // (`Random16`: the draw before issue 37, for data measured on the H200 with it.)
                Elem::U32 | Elem::I32 if matches!(init, Init::Random16(_)) => [(h >> 48) as u32, 0],
                Elem::F32 => [
                    ((h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0).to_bits(),
                    0,
                ],
                Elem::F64 => bits64((h >> 11) as f64 * (1.0 / (1u64 << 52) as f64) - 1.0),
                Elem::U32 | Elem::I32 => [(h >> 32) as u32, 0],
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
    warpsim_kernel::narrow::mask(elem.bytes())
}

fn half_bits(elem: Elem, x: f64) -> u32 {
    elem.half().map_or(0, |h| h.from_f64(x) as u32)
}

/// A buffer's initial contents as 32-bit words (`f64`: two words per element, low first),
/// filled by [`fill_global`] (the allocation is taken over, not copied).
pub fn init_words(b: &BufferInfo) -> Vec<u32> {
    let out: Vec<AtomicU32> = (0..b.words()).map(|_| AtomicU32::new(0)).collect();
    fill_buffer(b, &out);
    out.into_iter().map(AtomicU32::into_inner).collect()
}

/// Fills `out` (buffer `b`'s words) with its initial contents: [`fill_global`], or for a
/// constant symbol its [`ConstData`] (the module's bytes, then the fills in order).
pub fn fill_buffer(b: &BufferInfo, out: &[AtomicU32]) {
    match &b.constant {
        Some(c) => {
            for (d, w) in out.iter().zip(const_words(c, out.len())) {
                d.store(w, Relaxed);
            }
        }
        None if b.init != Init::Zeros => fill_global(b.elem, b.init, out),
        None => {}
    }
}

/// A constant symbol's `words` 32-bit words: its module bytes, then each fill's elements
/// written from the fill's byte offset (bytes past the symbol's end are dropped: the loader
/// refuses such a fill).
pub fn const_words(c: &ConstData, words: usize) -> Vec<u32> {
    let mut bytes = c.bytes.clone();
    bytes.resize(words * 4, 0);
    for f in &c.fills {
        let eb = f.elem.bytes() as u64;
        for i in 0..f.len {
            let e = match &f.src {
                FillSrc::Init(init) => init_element(f.elem, *init, i),
                FillSrc::Values(v) => v.get(i as usize).copied().unwrap_or([0, 0]),
            };
            let v = e[0] as u64 | (e[1] as u64) << 32;
            for k in 0..eb {
                let at = f.offset + i * eb + k;
                if let Some(b) = bytes.get_mut(at as usize) {
                    *b = (v >> (8 * k)) as u8;
                }
            }
        }
    }
    bytes
        .chunks(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect()
}

/// Fills `out` (a whole buffer's words, in global memory) with the initial contents, in
/// parallel and in place.
pub fn fill_global(elem: Elem, init: Init, out: &[AtomicU32]) {
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
    // The common fills as loops of their own (the element's type and fill decided once, not
    // per element); the words are `init_element`'s.
    match (elem, init) {
        (Elem::F32, Init::Random(seed)) => fill_words(out, |i| {
            let h = random_bits(seed, i);
            ((h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0).to_bits()
        }),
        (Elem::U32 | Elem::I32, Init::Random(seed)) => {
            fill_words(out, |i| (random_bits(seed, i) >> 32) as u32)
        }
        (Elem::F32, Init::Iota) => fill_words(out, |i| (i as f32).to_bits()),
        (Elem::U32 | Elem::I32, Init::Iota) => fill_words(out, |i| i as u32),
        _ => {
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
    }
}

/// Fills a buffer of one-word elements: word `i` is `f(i)`, in parallel chunks.
fn fill_words(out: &[AtomicU32], f: impl Fn(u64) -> u32 + Sync) {
    out.par_chunks(CHUNK).enumerate().for_each(|(c, ws)| {
        let first = (c * CHUNK) as u64;
        for (k, w) in ws.iter().enumerate() {
            w.store(f(first + k as u64), Relaxed);
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

#[cfg(test)]
mod tests {
    use super::*;
    use warpsim_lang::{load_file, load_str, Options};

    fn prog(buffers: &str) -> Program {
        let src = format!(
            "Program(name: \"t\", launch: (grid: [1], block: [32]),\n buffers: [\n{buffers}\n], body: [])"
        );
        load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"))
    }

    fn words_of(p: &Program) -> Vec<Vec<u32>> {
        p.buffers.iter().map(init_words).collect()
    }

    /// Global memory filled in place (in parallel chunks) holds, word for word, what
    /// `init_element` gives element by element, and so does `init_words`; the buffers a
    /// program stores to are known.
    #[test]
    fn in_place_fill() {
        let p = prog(
            "(name: \"a\", ty: F64, len: 1000, init: Random(7)),
             (name: \"b\", ty: I32, len: 100000, init: Iota),
             (name: \"r\", ty: F32, len: 70000, init: Random(3)),
             (name: \"u\", ty: U32, len: 70000, init: Random(4)),
             (name: \"f\", ty: F32, len: 70000, init: Iota),
             (name: \"c\", ty: F32, len: 1000, expect: \"a[i] * 2.0\")",
        );
        let g = crate::Global::new(&p);
        for (k, b) in p.buffers.iter().enumerate() {
            fill_global(b.elem, b.init, &g.buffers[k]);
            let per = (b.elem.bytes() / 4) as usize;
            let serial: Vec<u32> = (0..b.len)
                .flat_map(|i| init_element(b.elem, b.init, i)[..per].to_vec())
                .collect();
            assert_eq!(g.read(k), serial);
            assert_eq!(init_words(b), serial);
        }
        assert_eq!(written_buffers(&p), vec![false; 6]);
        let path = warpsim_testkit::path("programs/transpose.ron");
        let t = load_file(path.to_str().unwrap(), &Options::default()).unwrap();
        assert_eq!(written_buffers(&t), vec![false, true]);
    }

    #[test]
    fn random_is_reproducible_and_in_range() {
        let p = prog(
            r#"(name: "a", ty: F32, len: 10000, init: Random(3)),
               (name: "b", ty: F64, len: 10000, init: Random(3)),
               (name: "c", ty: U32, len: 10000, init: Random(3)),
               (name: "d", ty: I32, len: 10000, init: Random(4))"#,
        );
        let w = words_of(&p);
        assert_eq!(w, words_of(&p));
        let a: Vec<f32> = w[0].iter().map(|&x| f32::from_bits(x)).collect();
        assert!(a.iter().all(|v| (-1.0..1.0).contains(v)));
        let mean = a.iter().map(|&v| v as f64).sum::<f64>() / a.len() as f64;
        assert!(mean.abs() < 0.05, "{mean}");
        assert!(a.iter().any(|&v| v < -0.9) && a.iter().any(|&v| v > 0.9));
        for k in 0..10000 {
            let v = f64::from_bits(w[1][2 * k] as u64 | (w[1][2 * k + 1] as u64) << 32);
            assert!((-1.0..1.0).contains(&v));
        }
        // The whole 32-bit range: every byte of a word varies.
        for shift in [0, 8, 16, 24] {
            assert!(
                w[2].iter().any(|&v| (v >> shift) & 0xff > 0xf0),
                "byte {shift}"
            );
        }
        assert!(w[2].iter().any(|&v| v > 0xf000_0000));
        assert_eq!(w[2][17], (random_bits(3, 17) >> 32) as u32);
        // Random16: the draw before issue 37, below 65,536.
        let old = |i| init_element(Elem::U32, Init::Random16(3), i)[0];
        assert!((0..10000).all(|i| old(i) < 65536) && (0..10000).any(|i| old(i) > 60000));
        assert_eq!(old(17), (random_bits(3, 17) >> 48) as u32);
        assert_ne!(w[2], w[3], "seeds differ");
        // Element i does not depend on the buffer's length.
        assert_eq!(init_element(Elem::U32, Init::Random(3), 17)[0], w[2][17]);
        // Pinned values: the generator is part of the file format.
        assert_eq!(random_bits(0, 0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn iota_and_zeros() {
        let p = prog(
            r#"(name: "a", ty: F32, len: 5, init: Iota),
               (name: "b", ty: F64, len: 5, init: Iota),
               (name: "c", ty: I32, len: 5, init: Iota),
               (name: "z", ty: U32, len: 5)"#,
        );
        let w = words_of(&p);
        assert_eq!(
            w[0],
            (0..5).map(|i| (i as f32).to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(w[1][6], 3f64.to_bits() as u32);
        assert_eq!(w[1][7], (3f64.to_bits() >> 32) as u32);
        assert_eq!(w[2], vec![0, 1, 2, 3, 4]);
        assert_eq!(w[3], vec![0; 5]);
    }
}
