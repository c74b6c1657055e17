//! The exceptions: `warpsim.Error`, and under it `LoadError` (a program or kernel that does
//! not load: file, line and column), `CompileError` (NVRTC could not compile the CUDA: its
//! log) and `Fault` (the kernel faulted while running: the source line).
//!
//! Each carries the diagnostic's parts as attributes: `location` (`file:line:col`, or the
//! file), `file`, `line`, `col` (None where the diagnostic has no position), `message`,
//! `help` and `phase`; a `CompileError` also `log` (NVRTC's log, or None).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use warpsim_kernel::{Diag, Phase};

create_exception!(_native, Error, PyException, "Any error of warpsim.");
create_exception!(
    _native,
    LoadError,
    Error,
    "A program or kernel that does not load (file, line, col say where)."
);
create_exception!(
    _native,
    CompileError,
    LoadError,
    "NVRTC could not compile the CUDA source (`log` holds NVRTC's log)."
);
create_exception!(
    _native,
    Fault,
    Error,
    "The kernel faulted while running (file, line, col: the source line)."
);

/// Adds the exceptions to the module.
pub(crate) fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("Fault", py.get_type::<Fault>())?;
    Ok(())
}

/// `file:line:col` → its parts (the file alone when the end is not two numbers).
fn split_location(loc: &str) -> (String, Option<u32>, Option<u32>) {
    let mut it = loc.rsplitn(3, ':');
    let (c, l, f) = (it.next(), it.next(), it.next());
    match (
        f,
        l.and_then(|l| l.parse().ok()),
        c.and_then(|c| c.parse().ok()),
    ) {
        (Some(f), Some(l), Some(c)) => (f.to_owned(), Some(l), Some(c)),
        _ => (loc.to_owned(), None, None),
    }
}

/// The text of a diagnostic: `location: message`, the help and the related places.
fn text(d: &Diag) -> String {
    let mut s = format!("{}: {}", d.location, d.message);
    if let Some(h) = &d.help {
        s.push_str("\n  help: ");
        s.push_str(&h.replace('\n', "\n  "));
    }
    for r in &d.related {
        s.push_str(&format!("\n  note: {}: {}", r.location, r.message));
    }
    s
}

/// A diagnostic as the exception it is.
pub(crate) fn to_py(py: Python<'_>, d: &Diag) -> PyErr {
    let help = d.help.clone().unwrap_or_default();
    let log = help.split_once("NVRTC's log:\n").map(|(_, l)| l.to_owned());
    let compile = log.is_some() || d.message.starts_with("NVRTC ");
    let err = match d.phase {
        Phase::Runtime => Fault::new_err(text(d)),
        _ if compile => CompileError::new_err(text(d)),
        Phase::Syntax | Phase::Check => LoadError::new_err(text(d)),
        Phase::Verify => Error::new_err(text(d)),
    };
    let (file, line, col) = split_location(&d.location);
    let v = err.value(py);
    let phase = match d.phase {
        Phase::Syntax => "syntax",
        Phase::Check => "check",
        Phase::Runtime => "runtime",
        Phase::Verify => "verify",
    };
    // Setting attributes on a fresh exception object does not fail; ignore if it does.
    let _ = v.setattr("location", &d.location);
    let _ = v.setattr("file", file);
    let _ = v.setattr("line", line);
    let _ = v.setattr("col", col);
    let _ = v.setattr("message", &d.message);
    let _ = v.setattr("help", d.help.clone());
    let _ = v.setattr("phase", phase);
    let _ = v.setattr("log", log);
    err
}
