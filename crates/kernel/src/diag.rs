//! Diagnostics: every error names the file, line and column, and says what to change.
//!
//! A diagnostic never carries the whole file: it keeps a bounded excerpt (the line it points
//! at and its neighbours, each cut to [`EXCERPT_CHARS`] characters around the place), so a
//! 10 MB line is neither echoed nor handed to miette's renderer (which fails past column
//! 65,535), and messages are cut to [`MAX_MESSAGE_BYTES`]. [`LineIndex`] turns offsets into
//! lines and columns in logarithmic time for loaders that need many of them.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
use std::cell::Cell;
use std::sync::Arc;

/// Most characters of one source line a diagnostic shows.
pub const EXCERPT_CHARS: usize = 120;
/// Most bytes of a message (or help) a diagnostic keeps; a longer one is cut in the middle.
pub const MAX_MESSAGE_BYTES: usize = 2000;

/// What went wrong, broadly (all exit with code 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// The file could not be read or parsed as RON.
    Syntax,
    /// The program is well-formed RON but not a valid program.
    Check,
    /// The program faulted while running.
    Runtime,
    /// Verification against the CPU reference failed to run.
    Verify,
}

/// An error with its place in the program file.
#[derive(Clone, Debug, thiserror::Error, miette::Diagnostic)]
#[error("{location}: {message}")]
pub struct Diag {
    /// What kind of error.
    pub phase: Phase,
    /// `file:line:col` (or just the file).
    pub location: String,
    /// What is wrong.
    pub message: String,
    /// The file, for the source snippet.
    #[source_code]
    pub src: Option<Excerpt>,
    /// Where in the file.
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    /// The label under the snippet.
    pub label: String,
    /// What to change.
    #[help]
    pub help: Option<String>,
    /// Other places that explain it (the definition of a function called here, the call a
    /// function's error happened in).
    #[related]
    pub related: Vec<Diag>,
}

/// 1-based (line, column) of a byte offset (the column counts characters). Linear in the
/// offset: for many look-ups in one file use a [`LineIndex`].
pub fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let offset = floor_char(src, offset.min(src.len()));
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (sat32(line), sat32(col))
}

/// Byte offset of the start of a 1-based line.
pub fn line_start(src: &str, line: u32) -> usize {
    if line <= 1 {
        return 0;
    }
    src.match_indices('\n')
        .nth(line as usize - 2)
        .map_or(src.len(), |(i, _)| i + 1)
}

fn sat32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The largest char boundary at or below `i`.
fn floor_char(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Line starts of one file, found once: offset → (line, column) by binary search, and the
/// column counted from the previous look-up when it is on the same line and further on (a
/// loader's look-ups mostly go forward), so a file's worth of look-ups costs time linear in
/// its size even when it is one long line.
#[derive(Debug, Default)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// The last look-up: (offset, column).
    last: Cell<(usize, u32)>,
}

impl LineIndex {
    /// Indexes `src`.
    pub fn new(src: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            src.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex {
            starts,
            last: Cell::new((0, 1)),
        }
    }

    /// 1-based (line, column in characters) of a byte offset of `src` (the indexed text).
    pub fn line_col(&self, src: &str, offset: usize) -> (u32, u32) {
        let offset = floor_char(src, offset);
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let (last_off, last_col) = self.last.get();
        let col = if last_off >= start && last_off <= offset {
            last_col.saturating_add(sat32(src[last_off..offset].chars().count()))
        } else {
            sat32(src[start..offset].chars().count() + 1)
        };
        self.last.set((offset, col));
        (sat32(line), col)
    }
}

/// A bounded piece of a file that a diagnostic shows: a few lines, each cut around the
/// place the diagnostic points at, numbered as in the file.
#[derive(Clone, Debug)]
pub struct Excerpt {
    name: String,
    text: String,
    /// 0-based line of the file where `text` starts.
    first_line: usize,
    /// 0-based character column of the file where the pointed-at line's excerpt starts,
    /// less the bytes of the `…` put before it.
    col_shift: isize,
    /// 0-based line of `text` that holds the span.
    span_line: usize,
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner = self.text.as_str().read_span(span, before, after)?;
        let column = if inner.line() == self.span_line {
            (inner.column() as isize + self.col_shift).max(0) as usize
        } else {
            inner.column()
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            column,
            inner.line_count(),
        )))
    }
}

/// Cuts `line` to at most [`EXCERPT_CHARS`] characters around byte `at` (a char boundary);
/// returns the piece (with `…` where cut), the byte offset in the piece that `at` became, and
/// how many characters of the line were dropped in front less the `…`'s bytes.
fn clip_line(line: &str, at: usize) -> (String, usize, isize) {
    if line.len() <= EXCERPT_CHARS {
        return escaped_clip(line.to_owned(), at, 0);
    }
    // Start a third of the window before `at`.
    let lead = &line[..at];
    let back = lead
        .char_indices()
        .rev()
        .nth(EXCERPT_CHARS / 3 - 1)
        .map_or(0, |(i, _)| i);
    let dropped = lead[..back].chars().count();
    let end = line[back..]
        .char_indices()
        .nth(EXCERPT_CHARS)
        .map_or(line.len(), |(i, _)| back + i);
    let mut out = String::new();
    if back > 0 {
        out.push('…');
    }
    let shift = out.len();
    out.push_str(&line[back..end]);
    if end < line.len() {
        out.push('…');
    }
    // miette counts the excerpt's columns in bytes: the `…` is three.
    escaped_clip(out, at - back + shift, dropped as isize - shift as isize)
}

/// A clipped line with its control characters made visible (`crate::escape`): the span's
/// offset moved past the escapes before it, and the column shift less them, so the column
/// shown stays the file's.
fn escaped_clip(line: String, at: usize, shift: isize) -> (String, usize, isize) {
    if !line
        .chars()
        .any(|c| c != '\t' && crate::escape::is_unsafe(c))
    {
        return (line, at, shift);
    }
    let (out, added) = crate::escape::line_keeping(&line, at);
    (out, at + added, shift - added as isize)
}

/// Cuts an over-long message in the middle, on char boundaries.
pub fn bound_message(s: String) -> String {
    if s.len() <= MAX_MESSAGE_BYTES {
        return s;
    }
    let head = floor_char(&s, MAX_MESSAGE_BYTES * 3 / 4);
    let tail = s.len() - MAX_MESSAGE_BYTES / 4;
    let tail = (tail..=s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    format!(
        "{} … ({} bytes left out) … {}",
        &s[..head],
        tail - head,
        &s[tail..]
    )
}

/// The excerpt of `src` around `offset..offset+len`, and the span in the excerpt.
fn excerpt(path: &str, src: &str, offset: usize, len: usize, line: u32) -> (Excerpt, SourceSpan) {
    let lstart = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let lend = src[offset..].find('\n').map_or(src.len(), |i| offset + i);
    let (mid, at, shift) = clip_line(&src[lstart..lend], offset - lstart);
    let mut text = String::new();
    let mut span_line = 0;
    let mut first_line = line as usize - 1;
    if lstart > 0 {
        let pstart = src[..lstart - 1].rfind('\n').map_or(0, |i| i + 1);
        text.push_str(&clip_line(&src[pstart..lstart - 1], 0).0);
        text.push('\n');
        span_line = 1;
        first_line -= 1;
    }
    let span_start = text.len() + at;
    text.push_str(&mid);
    let span_len = len.min(mid.len() - at.min(mid.len()));
    if lend < src.len() {
        let nend = src[lend + 1..]
            .find('\n')
            .map_or(src.len(), |i| lend + 1 + i);
        text.push('\n');
        text.push_str(&clip_line(&src[lend + 1..nend], 0).0);
    }
    (
        Excerpt {
            name: path.to_owned(),
            text,
            first_line,
            col_shift: shift,
            span_line,
        },
        (span_start, span_len).into(),
    )
}

impl Diag {
    /// An error at a byte range of the file.
    pub fn at(
        phase: Phase,
        path: &str,
        src: &Arc<str>,
        offset: usize,
        len: usize,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Self {
        let offset = floor_char(src, offset);
        let len = len.min(src.len() - offset);
        let (line, col) = line_col(src, offset);
        let (ex, span) = excerpt(path, src, offset, len, line);
        Diag {
            phase,
            location: format!("{path}:{line}:{col}"),
            label: "here".into(),
            message: bound_message(message.into()),
            src: Some(ex),
            span: Some(span),
            help: help.map(bound_message),
            related: Vec::new(),
        }
    }

    /// An error about a whole line of the file (a runtime fault at an instruction).
    pub fn at_line(
        phase: Phase,
        path: &str,
        src: &Arc<str>,
        line: u32,
        col: u32,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Self {
        let start = line_start(src, line);
        let end = src[start..].find('\n').map_or(src.len(), |e| start + e);
        // `col` counts characters.
        let off = src[start..end]
            .char_indices()
            .nth(col.saturating_sub(1) as usize)
            .map_or(end, |(i, _)| start + i);
        let mut d = Diag::at(phase, path, src, off, end - off, message, help);
        d.location = format!("{path}:{line}:{col}");
        d
    }

    /// An error about the file as a whole (it could not be read, say).
    pub fn file(
        phase: Phase,
        path: &str,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Self {
        Diag {
            phase,
            location: path.to_owned(),
            message: bound_message(message.into()),
            src: None,
            span: None,
            label: String::new(),
            help: help.map(bound_message),
            related: Vec::new(),
        }
    }

    /// Makes every control character of what this error prints visible (its excerpt's are
    /// at construction): call before printing; escaping twice changes nothing more.
    pub fn escape_all(&mut self) {
        use crate::escape::{lines, text};
        self.location = text(&self.location).into_owned();
        self.message = lines(&self.message).into_owned();
        self.label = text(&self.label).into_owned();
        if let Some(h) = &mut self.help {
            *h = lines(h).into_owned();
        }
        if let Some(ex) = &mut self.src {
            ex.name = text(&ex.name).into_owned();
        }
        for r in &mut self.related {
            r.escape_all();
        }
    }

    /// The 1-based line this error points at, if any.
    pub fn line(&self) -> Option<u32> {
        self.location.split(':').rev().nth(1)?.parse().ok()
    }
}

/// Largest program file read by default, in bytes (64 MiB; `WARPSIM_MAX_FILE_BYTES` sets
/// another): a bigger one is refused after reading this much, not read to the end; what is
/// not a regular file (`/dev/zero`, a FIFO, a directory) is refused unread ([`crate::input`]).
pub const MAX_PROGRAM_BYTES: u64 = 64 << 20;

/// What loading takes at its peak per byte of a RON program, counted against `--max-memory`
/// before the program is read (measured: 12 bytes a byte for a 15.6 MB program of 400,000
/// statements).
pub const LOAD_BYTES_PER_SOURCE_BYTE: u64 = 16;

/// What a loaded program takes per instruction, counted against `--max-memory` with its
/// buffers: loading it and running it without timing (measured on the program above: 480
/// bytes an instruction at the peak of `check`, 710 of `run --no-timing`; the timing model's
/// own per-instruction sums are counted apart).
pub const LOADED_BYTES_PER_INST: u64 = 768;

/// Reads a program file of at most [`MAX_PROGRAM_BYTES`] (or `WARPSIM_MAX_FILE_BYTES`); a file that is not UTF-8 is
/// refused with the line and column of its first bad byte.
pub fn read_program(path: &str) -> Result<Arc<str>, Diag> {
    use crate::input::{read_capped, InputError};
    let bytes = read_capped(std::path::Path::new(path), MAX_PROGRAM_BYTES).map_err(|e| {
        let help = match &e {
            InputError::Io(_) => "check the path; programs live in programs/".to_owned(),
            InputError::TooLarge(_) => format!(
                "a program is a RON text file, at most 64 MiB unless {} says more; generate \
                 large kernels with defines and loops instead of unrolling them",
                crate::input::MAX_FILE_BYTES_VAR
            ),
            InputError::NotRegular(_) => e.help(),
        };
        Diag::file(
            Phase::Syntax,
            path,
            format!("cannot read the program: {e}"),
            Some(help),
        )
    })?;
    match String::from_utf8(bytes) {
        // A UTF-8 byte order mark (editors on Windows write one) is not part of the text.
        Ok(s) => Ok(s.strip_prefix('\u{feff}').unwrap_or(&s).into()),
        Err(e) => {
            let good = e.utf8_error().valid_up_to();
            let bad = e.as_bytes()[good];
            // The text before the bad byte is UTF-8: count lines and columns in it (the
            // snippet is left out: the rest may be binary).
            let before = std::str::from_utf8(&e.as_bytes()[..good]).unwrap_or("");
            let (line, col) = line_col(before, good);
            let mut d = Diag::file(
                Phase::Syntax,
                path,
                format!("the program is not UTF-8 text: byte 0x{bad:02x} at offset {good}"),
                Some(
                    "a program is RON text in UTF-8: save it as UTF-8, or check that this is \
                     the program file and not a binary or an archive"
                        .into(),
                ),
            );
            d.location = format!("{path}:{line}:{col}");
            Err(d)
        }
    }
}

/// Parses any RON file into `T` with the program's diagnostics: file:line:col, the field's
/// path, and `help` when there is nothing more specific to say. Program files and GPU
/// descriptions both go through it (the RON front end wraps it so that its strings know their
/// place in the file).
pub fn parse_ron<T: serde::de::DeserializeOwned>(
    path: &str,
    src: &Arc<str>,
    help: &str,
) -> Result<T, Diag> {
    let ron_opts =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let mut de = ron::Deserializer::from_str_with_options(src, &ron_opts)
        .map_err(|e| ron_diag(path, src, e, "", help))?;
    let res = serde_path_to_error::deserialize(&mut de);
    match res {
        Ok(p) => {
            de.end().map_err(|e| {
                let e = de.span_error(e);
                ron_diag(path, src, e, "", help)
            })?;
            Ok(p)
        }
        Err(e) => {
            let where_ = e.path().to_string();
            let inner = e.into_inner();
            let spanned = de.span_error(inner);
            Err(ron_diag(path, src, spanned, &where_, help))
        }
    }
}

fn ron_diag(
    path: &str,
    src: &Arc<str>,
    e: ron::error::SpannedError,
    field: &str,
    default_help: &str,
) -> Diag {
    let pos = e.span.start;
    let mut off = offset_of_pos(src, pos.line, pos.col);
    let mut msg = e.code.to_string();
    let mut help = None;
    if matches!(e.code, ron::Error::ExpectedComma) {
        // Point just after the item that wants a comma, not at the next item.
        off = src[..off].trim_end().len();
        msg = "expected a comma after this item".into();
        help = Some("separate the items of a list or the fields of a struct with commas".into());
        let rest = src[off..].as_bytes();
        if rest.first() == Some(&b'.') && rest.get(1).is_some_and(|b| b.is_ascii_digit()) {
            // `1.5` where an integer stands (a define's value, a length).
            msg = "a number with a fraction where an integer must stand".into();
            help = Some(
                "defines, lengths and dimensions are integers; compute fractions in the \
                 kernel's expressions (e.g. \"f32(N) * 0.5\")"
                    .into(),
            );
        }
    }
    if matches!(e.code, ron::Error::ExceededRecursionLimit) {
        msg = "the program is nested too deeply for the RON reader".into();
        help = Some(
            "nest ifs and loops at most about 25 deep; move inner parts into separate statements"
                .into(),
        );
    }
    if !field.is_empty() && field != "." {
        // A deep nest's path is as long as the nest: keep its innermost end.
        let field = if field.len() > 100 {
            let tail = (field.len() - 80..field.len())
                .find(|&i| field.is_char_boundary(i) && field[i..].starts_with('.'))
                .unwrap_or(field.len());
            format!("…{}", &field[tail..])
        } else {
            field.to_owned()
        };
        msg = format!("{msg} (in `{field}`)");
    }
    if help.is_none() {
        help = Some(default_help.to_owned());
    }
    Diag::at(Phase::Syntax, path, src, off, 1, msg, help)
}

fn offset_of_pos(src: &str, line: usize, col: usize) -> usize {
    // `col` counts characters, 1-based.
    let start = line_start(src, line as u32);
    src[start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(src.len(), |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_agrees_with_line_col() {
        let src = "ab\ncdé\n\nxyz ü w\n";
        let idx = LineIndex::new(src);
        let offs: Vec<usize> = (0..=src.len())
            .filter(|&i| src.is_char_boundary(i))
            .collect();
        // Forwards (the cached path), then backwards (the fresh count).
        for &o in offs.iter().chain(offs.iter().rev()) {
            assert_eq!(idx.line_col(src, o), line_col(src, o), "offset {o}");
        }
    }

    #[test]
    fn a_long_line_is_cut_around_the_place() {
        let mut src = "first\n".to_owned();
        src.push_str(&"x".repeat(100_000));
        src.push_str("BAD");
        src.push_str(&"y".repeat(100_000));
        src.push_str("\nlast\n");
        let off = src.find("BAD").unwrap();
        let src: Arc<str> = src.into();
        let d = Diag::at(
            Phase::Check,
            "f.ron",
            &src,
            off,
            3,
            "m".repeat(50_000),
            None,
        );
        assert_eq!(d.location, "f.ron:2:100001");
        assert!(d.message.len() < MAX_MESSAGE_BYTES + 100);
        let ex = d.src.as_ref().unwrap();
        assert!(
            ex.text.chars().count() < 3 * EXCERPT_CHARS + 10,
            "{}",
            ex.text.len()
        );
        let span = d.span.unwrap();
        assert_eq!(&ex.text[span.offset()..span.offset() + span.len()], "BAD");
        // Numbered as in the file: line 2, column 100,001 (0-based: 1 and 100,000).
        let c = ex.read_span(&span, 0, 0).unwrap();
        assert_eq!((c.line(), c.column()), (1, 100_000));
    }

    #[test]
    fn spans_past_the_end_and_inside_characters_are_clamped() {
        let src: Arc<str> = "é".into();
        let d = Diag::at(Phase::Check, "f", &src, 1, 99, "m", None);
        assert_eq!(d.location, "f:1:1");
        let d = Diag::at(Phase::Check, "f", &src, 99, 99, "m", None);
        assert_eq!(d.location, "f:1:2");
        let d = Diag::at_line(Phase::Runtime, "f", &src, 7, 9, "m", None);
        assert!(d.span.is_some());
    }
}
