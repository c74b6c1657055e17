//! Places inside RON string literals that have escapes (`"\t"`, `"\u{41}"`): the contents a
//! program sees are shorter than what the file holds, so byte `k` of an expression is not
//! byte `k` after the opening quote. [`offset`] maps one to the other, [`find`] finds a
//! literal by its contents.

/// One step of a literal's contents at the start of `s`: the bytes it takes in the file and
/// the character it stands for (`Some(None)` for a line continuation, which stands for
/// nothing; `None` at the closing quote or the end).
fn step(s: &str) -> Option<(usize, Option<char>)> {
    let first = s.chars().next()?;
    if first == '"' {
        return None;
    }
    if first != '\\' {
        return Some((first.len_utf8(), Some(first)));
    }
    let rest = &s[1..];
    let code = |t: &str| u32::from_str_radix(t, 16).ok().and_then(char::from_u32);
    Some(match rest.chars().next() {
        None => (1, Some('\\')),
        Some('u') if rest[1..].starts_with('{') => {
            let close = rest.find('}').unwrap_or(rest.len() - 1);
            (close + 2, code(rest.get(2..close).unwrap_or("")))
        }
        Some('u') => (6.min(s.len()), rest.get(1..5).and_then(code)),
        Some('x') => (4.min(s.len()), rest.get(1..3).and_then(code)),
        // A line continuation: the newline and the next line's indentation are dropped.
        Some('\n') => {
            let blank = rest[1..]
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len() - 1);
            return Some((2 + blank, None));
        }
        Some(c) => {
            let ch = match c {
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                '0' => '\0',
                'b' => '\u{8}',
                'f' => '\u{c}',
                c => c,
            };
            (1 + c.len_utf8(), Some(ch))
        }
    })
    .map(|(n, c)| (ceil_char(s, n), Some(c.unwrap_or('\u{fffd}'))))
}

/// The first character boundary of `s` at or after `n` (a malformed escape such as `\x` before
/// a multi-byte character must not end inside it).
fn ceil_char(s: &str, n: usize) -> usize {
    (n..=s.len())
        .find(|&k| s.is_char_boundary(k))
        .unwrap_or(s.len())
}

/// Byte offset in `src` of byte `k` of the contents of the string literal whose contents
/// start at `base` (equal to `base + k` when the literal has no escapes).
pub fn offset(src: &str, base: usize, k: usize) -> usize {
    let (mut at, mut out) = (base, 0);
    while out < k {
        let Some((file, c)) = src.get(at..).and_then(step) else {
            break;
        };
        at += file;
        out += c.map_or(0, char::len_utf8);
    }
    at + k.saturating_sub(out)
}

/// Where the first string literal at or after byte `from` of `src` whose contents are `v`
/// stands: (offset of its contents, offset just past them). Used for strings with escapes,
/// which the RON reader hands over unescaped, without their place.
pub fn find(src: &str, from: usize, v: &str) -> Option<(usize, usize)> {
    let hay = src.get(from..)?;
    'quotes: for (q, _) in hay.match_indices('"') {
        let start = from + q + 1;
        let (mut at, mut rest) = (start, v);
        while let Some((file, c)) = src.get(at..).and_then(step) {
            if let Some(c) = c {
                match rest.strip_prefix(c) {
                    Some(r) => rest = r,
                    None => continue 'quotes,
                }
            }
            at += file;
        }
        if rest.is_empty() && src.get(at..).is_some_and(|r| r.starts_with('"')) {
            return Some((start, at));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_step_over_escapes() {
        let src = r#"x: "\t\u{41}B + bad", y: "plain", z: "\\n\x41é\"q""#;
        let base = src.find('"').unwrap() + 1;
        // Contents "\tAB + bad": byte 6 (`bad`) is at the file's `b` of `bad`.
        assert_eq!(&src[offset(src, base, 6)..][..3], "bad");
        assert_eq!(offset(src, base, 0), base);
        let plain = src.find("plain").unwrap();
        assert_eq!(offset(src, plain, 3), plain + 3);
        let z = src.find("\\\\n").unwrap();
        // Contents `\nAé"q`: byte 2 is A, 3 é, 5 the quote, 6 q.
        assert_eq!(&src[offset(src, z, 2)..][..4], "\\x41");
        assert_eq!(&src[offset(src, z, 3)..][..2], "é");
        assert_eq!(&src[offset(src, z, 6)..][..1], "q");
        // Malformed escapes before multi-byte characters end on a character boundary.
        for bad in ["\\xé\"", "\\ué\"", "\\u{é\"", "\\"] {
            for k in 0..6 {
                let at = offset(bad, 0, k);
                assert!(at > bad.len() || bad.is_char_boundary(at), "{bad:?} {k}");
            }
            let _ = find(bad, 0, "é");
        }
        // Past the literal: on as if plain.
        assert_eq!(offset(src, z, 100), src.len() + 100 - 8);
    }

    #[test]
    fn literals_are_found_by_their_contents() {
        let src = "a: \"\\tx\", b: \"y\\n\", c: \"\\tx\"";
        assert_eq!(find(src, 0, "\tx"), Some((4, 7)));
        // After the first, the second with the same contents.
        assert_eq!(find(src, 8, "\tx"), Some((24, 27)));
        assert_eq!(find(src, 0, "y\n"), Some((14, 17)));
        assert_eq!(find(src, 0, "nope"), None);
        assert_eq!(find(src, 1000, "y"), None);
    }
}
