//! The preprocessor's first steps, as far as [`super::directives`] needs them: line splices
//! removed (with a map back to the original offsets), and comments and the text of string,
//! character and raw-string literals blanked, so that no `/*` or `#if 0` inside a literal hides
//! a real `#include` and no `#include` inside a comment or literal counts. Where the text
//! cannot be read for certain, [`blank`] says where, and the scan treats it as an include it
//! cannot follow.

use super::{directive, INCLUDES};

/// `text` with its line splices (a `\` that ends a line) removed, as the preprocessor does
/// before anything else, and each splice's offset there with the bytes removed up to it.
pub(super) fn splice(text: &str) -> (String, Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut splices = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let n = match &b[i..] {
            [b'\\', b'\n', ..] => 2,
            [b'\\', b'\r', b'\n', ..] => 3,
            _ => 0,
        };
        if n == 0 {
            out.push(b[i]);
            i += 1;
        } else {
            i += n;
            splices.push((out.len(), i - out.len()));
        }
    }
    // Only whole ASCII characters were removed: still UTF-8.
    let out = String::from_utf8_lossy(&out).into_owned();
    (out, splices)
}

/// The offset in the text of byte `i` of its spliced form ([`splice`]).
pub(super) fn original(splices: &[(usize, usize)], i: usize) -> usize {
    let k = splices.partition_point(|&(at, _)| at <= i);
    i + k.checked_sub(1).map_or(0, |k| splices[k].1)
}

/// `s` (spliced, [`splice`]) with its comments and the text of its literals blanked (offsets
/// unchanged; a block comment's newlines too: a line goes on after one), and where it can no
/// longer be read for certain ([`Lexer::token`]).
pub(super) fn blank(s: &str, splices: &[(usize, usize)]) -> (String, Option<usize>) {
    let mut lx = Lexer {
        s,
        splices,
        out: s.as_bytes().to_vec(),
        line: 0,
        first: true,
        hash_line: None,
        last: Last::Other,
    };
    let (mut i, mut doubt) = (0, None);
    while i < s.len() {
        match lx.token(i) {
            Some(end) => i = end,
            None => {
                doubt = Some(i);
                break;
            }
        }
    }
    // Only whole characters were blanked, from ASCII to ASCII: still UTF-8.
    let out = String::from_utf8_lossy(&lx.out).into_owned();
    (out, doubt)
}

/// The state of [`blank`].
struct Lexer<'a> {
    s: &'a str,
    splices: &'a [(usize, usize)],
    /// `s` blanked so far.
    out: Vec<u8>,
    /// Where the line starts.
    line: usize,
    /// Whether a header name may come yet on the line (no quote or `<` so far).
    first: bool,
    /// Whether the line is a directive's, once known.
    hash_line: Option<bool>,
    /// The token before: a name right after a literal is its suffix, not a prefix.
    last: Last,
}

/// What a [`Lexer`]'s last token was.
#[derive(Clone, Copy, PartialEq)]
enum Last {
    Other,
    Literal,
    Header,
}

impl Lexer<'_> {
    /// Blanks the token (or byte) at `i`; where the next starts, or `None` if it cannot be
    /// read for certain: a raw string literal that is malformed, not closed, has a splice in
    /// it or spans lines in a directive; a name or number with characters of an unknown
    /// class before a quote or `#`, or in a directive; a control character or a lone `\r`.
    fn token(&mut self, i: usize) -> Option<usize> {
        let b = self.s.as_bytes();
        let (c, next) = (b[i], b.get(i + 1).copied().unwrap_or(0));
        let prev = std::mem::replace(&mut self.last, Last::Other);
        if c == b'/' && (next == b'/' || next == b'*') {
            let end = match next {
                b'/' => self.s[i..].find('\n').map_or(b.len(), |e| i + e),
                _ => self.s[i + 2..].find("*/").map_or(b.len(), |e| i + e + 4),
            };
            self.out[i..end].fill(b' ');
            Some(end)
        } else if word_byte(c, next) || (c == b'.' && next.is_ascii_digit()) {
            self.word(i, prev)
        } else if c == b'"' || c == b'\'' || (c == b'<' && self.first) {
            Some(self.literal(i))
        } else if (c < b' ' && !b"\t\n\x0b\x0c\r".contains(&c)) || c == 0x7f {
            None
        } else if c == b'\r' && next != b'\n' {
            // A `\r` alone: not a newline in NVRTC, maybe not a blank either.
            None
        } else {
            if c == b'\n' {
                (self.line, self.first, self.hash_line) = (i + 1, true, None);
            }
            Some(i + 1)
        }
    }

    /// The name or number at `i` (after a token `prev`), and the raw string it may start.
    fn word(&mut self, i: usize, prev: Last) -> Option<usize> {
        let end = word_end(self.s.as_bytes(), i);
        let word = &self.s[i..end];
        let quote = self.s[end..].starts_with(['"', '\'']);
        let plain = word
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"_.'+-".contains(&c));
        // A character of an unknown class: maybe a blank, a name's or a number's.
        let unknown = !plain
            && (quote
                || word.contains('\'')
                || self.s[end..].trim_start().starts_with('#')
                || self.s[end..].trim_start().starts_with("%:")
                || self.in_directive(i));
        if unknown || (quote && prev == Last::Header) {
            return None;
        }
        let raw = matches!(word, "R" | "u8R" | "uR" | "UR" | "LR");
        if !raw || prev == Last::Literal || !self.s[end..].starts_with('"') {
            return Some(end);
        }
        let (open, close, last) = raw_string(self.s, end)?;
        let k = self.splices.partition_point(|&(at, _)| at <= end);
        let spliced = self.splices.get(k).is_some_and(|&(at, _)| at < last);
        if spliced || (self.s[open..close].contains('\n') && self.in_directive(i)) {
            return None;
        }
        for o in &mut self.out[open..close] {
            if *o != b'\n' {
                *o = b' ';
            }
        }
        self.last = Last::Literal;
        Some(last)
    }

    /// Whether the line up to `i` is a directive's (known once per line).
    fn in_directive(&mut self, i: usize) -> bool {
        let prefix = &self.out[self.line..i];
        *self.hash_line.get_or_insert_with(|| {
            std::str::from_utf8(prefix)
                .ok()
                .and_then(directive)
                .is_some()
        })
    }

    /// The string or char literal, or the header name (after `#include`), at `i`: a literal's
    /// text is blanked; a header name has no escapes and is kept.
    fn literal(&mut self, i: usize) -> usize {
        let b = self.s.as_bytes();
        let header = self.first && b[i] != b'\'' && include_line(&self.out[self.line..i]);
        self.first = false;
        if b[i] == b'<' && !header {
            return i + 1;
        }
        let close = if b[i] == b'<' { b'>' } else { b[i] };
        let mut j = i + 1;
        while j < b.len() && b[j] != close && b[j] != b'\n' {
            j += if b[j] == b'\\' && !header { 2 } else { 1 };
        }
        let j = j.min(b.len());
        if !header {
            self.out[i + 1..j].fill(b' ');
        }
        if b.get(j) != Some(&close) {
            return j;
        }
        self.last = if header { Last::Header } else { Last::Literal };
        j + 1
    }
}

/// Whether `c` (followed by `next`) can be part of a name or number.
fn word_byte(c: u8, next: u8) -> bool {
    c.is_ascii_alphanumeric()
        || c == b'_'
        || c == b'$'
        || c >= 0x80
        || (c == b'\\' && matches!(next, b'u' | b'U'))
}

/// The end of the name or number (a pp-number, with its `'` separators and `e+` exponents)
/// at `i` of `b`.
fn word_end(b: &[u8], i: usize) -> usize {
    let number = b[i].is_ascii_digit() || b[i] == b'.';
    let mut j = i;
    while j < b.len() {
        let (c, next) = (b[j], b.get(j + 1).copied().unwrap_or(0));
        // An exponent's sign, or a digit separator, takes the byte after it along.
        let exponent = matches!(c, b'e' | b'E' | b'p' | b'P') && matches!(next, b'+' | b'-');
        let separator = c == b'\'' && (word_byte(next, 0) || next == b'\\');
        j += if number && (exponent || separator) {
            2
        } else if word_byte(c, next) || (number && c == b'.') {
            1
        } else {
            break;
        };
    }
    j.min(b.len())
}

/// The raw string literal whose `"` is at `q` of `s`: where its text starts and ends and
/// where it ends; `None` if its delimiter is malformed or it is not closed.
fn raw_string(s: &str, q: usize) -> Option<(usize, usize, usize)> {
    let n = s[q + 1..].bytes().take(17).position(|c| c == b'(')?;
    let delim = &s[q + 1..q + 1 + n];
    if !delim
        .bytes()
        .all(|c| c.is_ascii_graphic() && !b"()\\".contains(&c))
    {
        return None;
    }
    let open = q + n + 2;
    let close = open + s[open..].find(&format!("){delim}\""))?;
    Some((open, close, close + n + 2))
}

/// Whether `prefix` (a line's start, comments blanked) is an `#include` and blanks, so that
/// a header name follows.
fn include_line(prefix: &[u8]) -> bool {
    std::str::from_utf8(prefix)
        .ok()
        .and_then(directive)
        .is_some_and(|(word, rest)| INCLUDES.contains(&word) && rest.is_empty())
}
