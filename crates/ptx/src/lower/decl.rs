//! The one reading of a state-space variable declaration's words (`.shared`, `.local`,
//! `.const`): its element size and `name`, `name[N]`, `name[N][M]…` or `name[]`. (Each space
//! keeps its own rules for `.align` and for what an unsized array means.)

/// Bytes of a scalar PTX type (`.u32`, `.bf16` …); none for any other word.
pub(super) fn scalar_bytes(t: &str) -> Option<u64> {
    Some(match t {
        ".b8" | ".u8" | ".s8" => 1,
        ".b16" | ".u16" | ".s16" | ".f16" | ".bf16" => 2,
        ".b32" | ".u32" | ".s32" | ".f32" => 4,
        ".b64" | ".u64" | ".s64" | ".f64" => 8,
        _ => return None,
    })
}

/// Bytes of a declaration's element: its first scalar type (1 without one).
pub(super) fn elem_bytes<S: AsRef<str>>(words: &[S]) -> u64 {
    words
        .iter()
        .find_map(|w| scalar_bytes(w.as_ref()))
        .unwrap_or(1)
}

/// The declared name and element count of `word` (a declaration's last word, `;` allowed):
/// `Some(1)` for a scalar, the product of the dimensions for an array, `None` for `name[]`.
/// `what` names the variable's kind in the error (a size that is not a number, text after
/// the last `]`).
pub(super) fn name_and_count<'a>(
    word: &'a str,
    what: &str,
) -> Result<(&'a str, Option<u64>), String> {
    let word = word.trim().trim_end_matches(';').trim_end();
    let Some((name, mut rest)) = word.find('[').map(|i| word.split_at(i)) else {
        return Ok((word, Some(1)));
    };
    let mut count = Some(1u64);
    let mut dims = 0;
    while let Some(after) = rest.strip_prefix('[') {
        let close = after
            .find(']')
            .ok_or_else(|| format!("{what} `{word}`: a `[` without its `]`"))?;
        let dim = after[..close].trim();
        dims += 1;
        count = match (dim.is_empty(), count) {
            (true, _) => None,
            (false, c) => {
                let n: u64 = dim.parse().map_err(|_| {
                    format!("{what} `{word}`: the array size `{dim}` is not a number")
                })?;
                c.map(|c| c.saturating_mul(n))
            }
        };
        rest = after[close + 1..].trim_start();
    }
    if !rest.is_empty() || (count.is_none() && dims > 1) {
        return Err(format!(
            "{what} `{word}`: not a name with array sizes (`name[N]`, `name[N][M]` or `name[]`)"
        ));
    }
    Ok((name.trim(), count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_scalars_arrays_and_unsized() {
        let v = |w| name_and_count(w, "shared variable");
        assert_eq!(v("flag"), Ok(("flag", Some(1))));
        assert_eq!(v("flag;"), Ok(("flag", Some(1))));
        assert_eq!(v("tile[1024];"), Ok(("tile", Some(1024))));
        assert_eq!(v("m[2][3]"), Ok(("m", Some(6))));
        assert_eq!(v("dyn[]"), Ok(("dyn", None)));
        assert!(v("a[x]").unwrap_err().contains("`x` is not a number"));
        assert!(v("a[3").unwrap_err().contains("without its `]`"));
        assert!(v("a[3]x")
            .unwrap_err()
            .contains("not a name with array sizes"));
        assert!(v("a[][3]")
            .unwrap_err()
            .contains("not a name with array sizes"));
        assert_eq!(elem_bytes(&[".shared", ".align", "4", ".bf16", "x"]), 2);
        assert_eq!(elem_bytes(&[".shared", "x"]), 1);
    }
}
