//! Where each field of a GPU description stands in its RON text, so that a value out of range
//! is reported at its file:line:col. A small scanner, not a parser: the text has already been
//! parsed by `ron`; this only maps dotted field paths (`global.dram_bytes_per_cycle`) to the
//! byte offset of their values. Linear in the text.

/// (dotted path, byte offset of the value) for every `key: value` of `src`, in order.
pub(crate) fn field_offsets(src: &str) -> Vec<(String, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    // One entry per open bracket: the key whose value it opened, if any.
    let mut stack: Vec<Option<String>> = Vec::new();
    // A key whose value has not opened a bracket or ended yet.
    let mut pending: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = src[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(b, i);
                continue;
            }
            b'"' => {
                i = skip_string(b, i + 1);
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push(pending.take());
            }
            b')' | b']' | b'}' => {
                stack.pop();
                pending = None;
            }
            b',' => pending = None,
            _ if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &src[start..i];
                let mut j = skip_blank(b, i);
                if b.get(j) == Some(&b':') && b.get(j + 1) != Some(&b':') {
                    j = skip_blank(b, j + 1);
                    let mut path: Vec<&str> = stack.iter().flatten().map(String::as_str).collect();
                    path.push(word);
                    let path = path.join(".");
                    out.push((path, j.min(b.len())));
                    pending = Some(word.to_owned());
                    i = j;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The offset after the string whose body starts at `i` (after its opening quote).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// The offset after the (nested, as RON allows) block comment opening at `i`.
fn skip_block_comment(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// The first offset from `i` that is not white space or a comment.
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b.get(i) == Some(&b'/') && b.get(i + 1) == Some(&b'*') {
            i = skip_block_comment(b, i);
        } else {
            return i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_fields_past_comments_and_strings() {
        let src = "Gpu( // a: 1\n name: \"x: (y\", sms: 3, /* b: 2 */ residency: (warps: 4),\n \
                   global: Global(spread: [1, 2], dram: 7))";
        let got = field_offsets(src);
        let find = |p: &str| {
            got.iter()
                .find(|(k, _)| k == p)
                .map(|&(_, o)| &src[o..o + 1])
        };
        assert_eq!(find("sms"), Some("3"));
        assert_eq!(find("residency"), Some("("));
        assert_eq!(find("residency.warps"), Some("4"));
        assert_eq!(find("global.spread"), Some("["));
        assert_eq!(find("global.dram"), Some("7"));
        assert_eq!(find("a"), None);
        assert_eq!(find("b"), None);
        assert_eq!(find("y"), None);
    }

    #[test]
    fn every_preset_field_is_found() {
        let got = field_offsets(crate::H200_RON);
        for p in ["clock_mhz", "barrier.base", "launch.icache_cold_cycles"] {
            assert!(got.iter().any(|(k, _)| k == p), "{p}: {got:?}");
        }
        // Unclosed things end at the end, never past it.
        for s in ["a: \"open", "a: /* open", "x: (b: ["] {
            for (_, o) in field_offsets(s) {
                assert!(o <= s.len());
            }
        }
    }
}
