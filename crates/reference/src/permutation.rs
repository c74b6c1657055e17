//! `expect: "permutation(src)"`: the final buffer holds the initial elements of `src`, in any
//! order, bit for bit. Checked by sorting both (O(n log n)), whatever the buffer's length.

use super::expect::elem_value;
use super::*;

/// The elements of a buffer as sortable bit patterns (one or two words each).
fn elements(elem: Elem, words: &[u32], len: usize) -> Vec<u64> {
    if elem == Elem::F64 {
        words
            .chunks_exact(2)
            .take(len)
            .map(|w| w[0] as u64 | (w[1] as u64) << 32)
            .collect()
    } else {
        words.iter().take(len).map(|&w| w as u64).collect()
    }
}

fn value(elem: Elem, bits: u64) -> Num {
    let words = [bits as u32, (bits >> 32) as u32];
    elem_value(elem, &words, 0).unwrap_or(Num::Float(f64::NAN))
}

/// Buffer `k`'s final words `got` against the initial words `src` of its source. A mismatch
/// is an element of `got` with no partner left in `src`; the first reported is the lowest
/// index holding such a value, with the smallest value of `src` left without a partner.
pub(super) fn check_permutation(k: usize, bi: &BufferInfo, src: &[u32], got: &[u32]) -> Verdict {
    let len = bi.len as usize;
    let mut a = elements(bi.elem, got, len);
    let mut b = elements(bi.elem, src, len);
    a.par_sort_unstable();
    b.par_sort_unstable();
    // Merge: surplus values of `a`, missing values of `b`.
    let (mut i, mut j) = (0, 0);
    let mut surplus: Vec<u64> = Vec::new();
    let mut missing: Option<u64> = None;
    let mut count = 0u64;
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => {
                i += 1;
                j += 1;
            }
            (Some(x), y) if y.is_none_or(|y| x < y) => {
                count += 1;
                if surplus.is_empty() {
                    surplus.push(*x);
                }
                i += 1;
            }
            (_, y) => {
                if missing.is_none() {
                    missing = y.copied();
                }
                j += 1;
            }
        }
    }
    // A shorter final buffer than declared misses elements too.
    count = count.max((b.len() - a.len().min(b.len())) as u64);
    let first_mismatch = match (surplus.first(), missing) {
        (Some(&v), want) => {
            let at = elements(bi.elem, got, len).iter().position(|&e| e == v);
            Some(Mismatch {
                index: at.unwrap_or(0) as u64,
                got: value(bi.elem, v),
                want: want.map_or(Num::Float(f64::NAN), |w| value(bi.elem, w)),
            })
        }
        (None, Some(w)) => Some(Mismatch {
            index: a.len() as u64,
            got: Num::Float(f64::NAN),
            want: value(bi.elem, w),
        }),
        (None, None) => None,
    };
    Verdict {
        buffer: bi.name.clone(),
        index: k,
        ok: count == 0,
        elements: bi.len,
        mismatches: count,
        first_mismatch,
        abs_tolerance: None,
        max_abs_error: None,
        check: None,
        first_failure: None,
    }
}
