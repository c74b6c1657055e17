//! Control characters made visible before anything reaches a terminal.
//!
//! Kernel names, file names, trace names, `explain` arguments and quoted source lines come
//! from users (or from untrusted kernels); printed raw, an escape sequence in them would move
//! the cursor, clear the screen, set the window title or hide text. Everything warpsim prints
//! passes through here: every control character (C0, DEL, C1) and every bidirectional
//! override (U+202A-U+202E, U+2066-U+2069, which reorder what a terminal shows) is written as
//! `\u{…}` (`\n`, `\r`, `\t` by name where they are not kept).

use std::borrow::Cow;
use std::path::Path;

/// Whether `c` is escaped (tab and newline are kept where text spans lines: see [`lines`]).
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

fn escape_with(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) && !keep(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line of text (a name, an argument): every control character escaped, newlines too.
pub fn text(s: &str) -> Cow<'_, str> {
    escape_with(s, |_| false)
}

/// Text of several lines (a report, a message): newlines and tabs kept, every other control
/// character escaped.
pub fn lines(s: &str) -> Cow<'_, str> {
    escape_with(s, |c| c == '\n' || c == '\t')
}

/// A path as printed: lossy UTF-8, every control character escaped.
pub fn path(p: &Path) -> String {
    text(&p.to_string_lossy()).into_owned()
}

/// One line of `s` escaped as [`text`] (a tab kept), with `at`, a byte offset into `s`,
/// moved to the same character of the result; returns the bytes the escapes added before it.
pub fn line_keeping(s: &str, at: usize) -> (String, usize) {
    let mut out = String::with_capacity(s.len());
    let mut added = 0;
    for (i, c) in s.char_indices() {
        if is_unsafe(c) && c != '\t' {
            let before = out.len();
            push_escaped(&mut out, c);
            if i < at {
                added += out.len() - before - c.len_utf8();
            }
        } else {
            out.push(c);
        }
    }
    (out, added)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_overrides_are_visible() {
        assert_eq!(text("plain"), "plain");
        assert!(matches!(text("plain"), Cow::Borrowed(_)));
        assert_eq!(text("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(text("x\ny\t\r"), "x\\ny\\t\\r");
        assert_eq!(text("\u{9b}\u{7f}\u{202e}é"), "\\u{9b}\\u{7f}\\u{202e}é");
        assert_eq!(lines("a\n\tb\u{7}"), "a\n\tb\\u{7}");
        assert_eq!(
            path(Path::new("/tmp/\u{1b}]0;x\u{7}")),
            "/tmp/\\u{1b}]0;x\\u{7}"
        );
    }

    #[test]
    fn offsets_follow_the_escapes() {
        let s = "a\u{1b}bc\u{7}d";
        let at = s.find('c').unwrap();
        let (out, added) = line_keeping(s, at);
        assert_eq!(&out[at + added..at + added + 1], "c");
        assert_eq!(out, "a\\u{1b}bc\\u{7}d");
    }
}
