//! The words of one global buffer ([`Words`]): 32-bit host atomics, as every global access
//! uses them, held in 8-byte-aligned storage so that an aligned pair of words is also one
//! 64-bit host atomic ([`Words::pair`]) — what a 64-bit global atomic (`unsigned long long`,
//! `long long`, `double`) needs so that blocks running on several threads never lose or tear
//! an update.
//!
//! A kernel that mixes a 64-bit atomic and a 32-bit access of the same word in blocks that
//! run at the same time is racing on the GPU as well; on the host the two are atomic each
//! (x86-64 and AArch64 keep both sizes coherent), but which one lands first is the scheduler's.

use std::ops::Deref;
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A buffer's words: `len` [`AtomicU32`]s (what it derefs to), stored as [`AtomicU64`]s.
#[derive(Debug, Default)]
pub struct Words {
    cells: Box<[AtomicU64]>,
    len: usize,
}

impl Words {
    /// `len` zeroed words.
    pub fn zeroed(len: usize) -> Self {
        Words {
            cells: (0..len.div_ceil(2)).map(|_| AtomicU64::new(0)).collect(),
            len,
        }
    }

    /// Words `k` and `k + 1` as one 64-bit atomic (word `k` the low half, as on the
    /// little-endian GPU); `None` if `k` is odd or the pair is not all in the buffer.
    #[inline]
    pub fn pair(&self, k: usize) -> Option<&AtomicU64> {
        if !k.is_multiple_of(2) || k + 2 > self.len {
            return None;
        }
        self.cells.get(k / 2)
    }

    /// The words as plain `u32`s, without a copy: the exclusive borrow means no atomic
    /// access can happen while the view lives.
    pub fn as_plain(&mut self) -> &[u32] {
        // SAFETY: as for `Deref` below (size, alignment, initialised halves, little-endian);
        // `&mut self` rules out any other access, atomic or not, while the slice lives.
        unsafe { std::slice::from_raw_parts(self.cells.as_ptr().cast::<u32>(), self.len) }
    }

    /// The words, consumed.
    pub fn into_vec(self) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .cells
            .into_vec()
            .into_iter()
            .flat_map(|c| {
                let x = c.into_inner();
                [x as u32, (x >> 32) as u32]
            })
            .collect();
        out.truncate(self.len);
        out
    }
}

impl Deref for Words {
    type Target = [AtomicU32];
    #[inline]
    fn deref(&self) -> &[AtomicU32] {
        // SAFETY: `cells` holds `2 × cells.len() ≥ len` properly aligned, initialised 4-byte
        // halves; `AtomicU32` has the size and alignment of `u32` and, like `AtomicU64`, is an
        // `UnsafeCell`, so shared mutation through either view is what both types allow. The
        // slice borrows `self`, so the storage outlives it. (Little-endian hosts only: the
        // low half of a pair is its first word.)
        unsafe { std::slice::from_raw_parts(self.cells.as_ptr().cast::<AtomicU32>(), self.len) }
    }
}

#[cfg(target_endian = "big")]
compile_error!("global buffers assume a little-endian host (a pair's low word first)");

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn a_pair_is_its_two_words_low_first() {
        let w = Words::zeroed(5);
        assert_eq!(w.len(), 5);
        w[2].store(0x1111, Relaxed);
        w[3].store(0x2222, Relaxed);
        assert_eq!(w.pair(2).unwrap().load(Relaxed), 0x2222_0000_1111);
        w.pair(2).unwrap().fetch_add(0xffff_ffff, Relaxed);
        assert_eq!((w[2].load(Relaxed), w[3].load(Relaxed)), (0x1110, 0x2223));
        assert!(w.pair(3).is_none(), "odd");
        assert!(w.pair(4).is_none(), "word 5 is past the end");
        let mut w = w;
        assert_eq!(w.as_plain(), &[0, 0, 0x1110, 0x2223, 0]);
        assert_eq!(w.into_vec(), vec![0, 0, 0x1110, 0x2223, 0]);
    }
}
