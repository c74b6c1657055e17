//! Narrow (1- and 2-byte) elements in 32-bit words: memory holds them packed, little-endian
//! (element `k` of a byte array is byte `k` of the array, so byte `k % 4` of word `k / 4`);
//! registers hold them widened (`u8`/`u16` zero-extended, `i8`/`i16` sign-extended, `f16`/`bf16`
//! as their 16 bits with the high half zero).

use crate::elem::Elem;

/// The raw bits (zero-extended) of the `bytes`-byte element at byte address `byte` of `words`;
/// `None` past the end.
#[inline]
pub fn get(words: &[u32], bytes: u32, byte: u64) -> Option<u32> {
    let w = *words.get((byte / 4) as usize)?;
    let shift = (byte % 4) * 8;
    Some((w >> shift) & mask(bytes))
}

/// Writes the low `bytes` bytes of `bits` at byte address `byte` of `words` (nothing past
/// the end).
#[inline]
pub fn set(words: &mut [u32], bytes: u32, byte: u64, bits: u32) {
    if let Some(w) = words.get_mut((byte / 4) as usize) {
        let shift = (byte % 4) * 8;
        let m = mask(bytes) << shift;
        *w = (*w & !m) | ((bits << shift) & m);
    }
}

/// The mask of a `bytes`-byte element's bits (all 32 for 4 bytes or more).
#[inline]
pub fn mask(bytes: u32) -> u32 {
    match bytes {
        1 => 0xff,
        2 => 0xffff,
        _ => u32::MAX,
    }
}

/// Element `k` of a buffer of `elem` as a register value: widened (see the module doc).
#[inline]
pub fn element(elem: Elem, words: &[u32], k: u64) -> Option<u32> {
    let b = elem.bytes();
    get(words, b, k * b as u64).map(|bits| widen(elem, bits))
}

/// Raw element bits as the register holds them.
#[inline]
pub fn widen(elem: Elem, bits: u32) -> u32 {
    match elem {
        Elem::I8 => bits as u8 as i8 as i32 as u32,
        Elem::I16 => bits as u16 as i16 as i32 as u32,
        _ => bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_little_endian() {
        let mut w = vec![0u32; 2];
        set(&mut w, 1, 1, 0xab);
        set(&mut w, 2, 6, 0x1234);
        assert_eq!(w, vec![0x0000_ab00, 0x1234_0000]);
        assert_eq!(get(&w, 1, 1), Some(0xab));
        assert_eq!(get(&w, 2, 6), Some(0x1234));
        assert_eq!(element(Elem::I8, &w, 1), Some(0xffff_ffab));
        assert_eq!(element(Elem::U16, &w, 3), Some(0x1234));
        assert_eq!(get(&w, 1, 8), None);
    }
}
