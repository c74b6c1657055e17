//! Diagnostics: every error names the file, line and column, and says what to change.

use miette::{NamedSource, SourceSpan};
use std::sync::Arc;

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
    pub src: Option<NamedSource<Arc<str>>>,
    /// Where in the file.
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    /// The label under the snippet.
    pub label: String,
    /// What to change.
    #[help]
    pub help: Option<String>,
}

/// 1-based (line, column) of a byte offset.
pub fn line_col(src: &str, offset: usize) -> (u32, u32) {
    let offset = offset.min(src.len());
    let before = &src[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line as u32, col as u32)
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
        let offset = offset.min(src.len());
        let len = len.min(src.len() - offset);
        let (line, col) = line_col(src, offset);
        let message = message.into();
        Diag {
            phase,
            location: format!("{path}:{line}:{col}"),
            label: "here".into(),
            message,
            src: Some(NamedSource::new(path, src.clone())),
            span: Some((offset, len).into()),
            help,
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
        let off = (start + col.saturating_sub(1) as usize).min(end);
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
            message: message.into(),
            src: None,
            span: None,
            label: String::new(),
            help,
        }
    }

    /// The 1-based line this error points at, if any.
    pub fn line(&self) -> Option<u32> {
        self.location.split(':').rev().nth(1)?.parse().ok()
    }
}
