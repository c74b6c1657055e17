//! The files a `.cu` includes, found as the preprocessor finds them, for the PTX cache's key
//! and to refuse a header NVRTC must not open.
//!
//! # Brief overview
//!
//! [`scan`] follows every `#include "…"` and `#include <…>` of the source and of the headers it
//! finds in turn: a quoted name in the including file's folder first, then in the include
//! paths; an angled one in the include paths; an absolute name as it is. Comments are
//! skipped, and so are `#if 0` blocks (up to their `#else`, `#elif` or `#endif`); every other
//! conditional is taken both ways, so the scan sees a superset of what NVRTC opens. Each
//! header is read through the one capped reader ([`warpsim_kernel::input`]).
//!
//! What comes back is a fingerprint of every file found (its path and a hash of its text) and
//! of every name not found (a header created later changes the key), or no fingerprint when
//! the inputs cannot be known: an `#include` of a macro, `__has_include`, more than
//! [`MAX_FILES`] files or [`MAX_DEPTH`] nested levels. Then the kernel is compiled without the
//! cache. Headers under the CUDA toolkit's folders are keyed by their path (NVRTC's version
//! and the options are in the key too) and not read.
//!
//! A header that is found but is a FIFO, a device or a directory, or larger than the cap,
//! is an error at its `#include` line: NVRTC would block on it or read it without end. So is,
//! unless the user lifts the limit (`--any-include`), a header outside the `.cu`'s folder,
//! the toolkit's and the folders the user named, and an include the scan cannot follow (a
//! macro, `__has_include`, past the limits above): a `.cu` must not read any file the user
//! can read into NVRTC's messages.

use std::path::{Path, PathBuf};
use warpsim_kernel::input::{read_text_capped, InputError};

/// The most files the scan follows (beyond them the kernel is compiled uncached).
pub(crate) const MAX_FILES: usize = 4096;
/// The deepest nesting of includes the scan follows (GCC's limit is 200).
pub(crate) const MAX_DEPTH: usize = 200;

/// A header that cannot be given to NVRTC.
#[derive(Debug)]
pub(crate) struct Refused {
    /// The file with the `#include` line, its text, and the byte offset of the name.
    pub file: PathBuf,
    pub text: String,
    pub off: usize,
    /// The path the name resolves to and why it is refused.
    pub path: PathBuf,
    pub why: Why,
}

/// Why a header is refused.
#[derive(Debug)]
pub(crate) enum Why {
    /// It cannot be read as a header (not a regular file, too large).
    Input(InputError),
    /// It lies outside the folders a `.cu` may include from.
    Outside,
    /// The include cannot be followed, so it cannot be checked against them.
    Unknowable,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Input(e) => e.fmt(f),
            Why::Outside => f.write_str(
                "it is outside the .cu's folder, the CUDA toolkit's and the --include-path \
                 folders",
            ),
            Why::Unknowable => f.write_str(
                "what it opens (through a macro or `__has_include`, or past the scan's \
                 limits) cannot be checked against the folders a .cu may include from",
            ),
        }
    }
}

impl Why {
    /// What to do about it.
    pub(crate) fn help(&self) -> String {
        match self {
            Why::Input(e) => e.help(),
            Why::Outside => "name its folder with --include-path DIR, or allow any file with \
                             --any-include"
                .into(),
            Why::Unknowable => "write the header's name in the #include, or allow any file \
                                with --any-include"
                .into(),
        }
    }
}

/// The folders a `.cu` may include from, as they really are (links resolved); `None`: any.
pub(crate) fn allowed_roots(dirs: &[PathBuf], any: bool) -> Option<Vec<PathBuf>> {
    (!any).then(|| {
        dirs.iter()
            .filter_map(|d| {
                let d = if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                };
                std::fs::canonicalize(d).ok()
            })
            .collect()
    })
}

/// The fingerprint of the files `src` (the `.cu` at `cu`) includes, searched in `search` (in
/// order); files under one of `toolkit` are keyed by path only. `Ok(None)`: not knowable.
/// With `allowed` ([`allowed_roots`]), a header outside those folders, or one that cannot be
/// known, is refused.
pub(crate) fn scan(
    cu: &Path,
    src: &str,
    search: &[PathBuf],
    toolkit: &[PathBuf],
    allowed: Option<&[PathBuf]>,
) -> Result<Option<String>, Box<Refused>> {
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut key = String::new();
    // (file, its text, depth)
    let mut todo: Vec<(PathBuf, String, usize)> = vec![(cu.to_owned(), src.to_owned(), 0)];
    while let Some((file, text, depth)) = todo.pop() {
        let here = file
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned();
        for inc in directives(&text) {
            let (name, angled, off) = match inc {
                Include::Name { name, angled, off } => (name, angled, off),
                Include::Unknowable { off } => {
                    if allowed.is_some() {
                        return Err(Box::new(Refused {
                            path: file.clone(),
                            file,
                            text,
                            off,
                            why: Why::Unknowable,
                        }));
                    }
                    return Ok(None);
                }
            };
            let mut dirs: Vec<&Path> = Vec::new();
            if !angled {
                dirs.push(&here);
            }
            dirs.extend(search.iter().map(PathBuf::as_path));
            let found = if Path::new(name).is_absolute() {
                Path::new(name).exists().then(|| PathBuf::from(name))
            } else {
                dirs.iter().map(|d| d.join(name)).find(|p| p.exists())
            };
            let Some(path) = found else {
                key.push_str("missing\0");
                key.push_str(name);
                key.push('\n');
                continue;
            };
            if seen.contains(&path) {
                continue;
            }
            if seen.len() >= MAX_FILES || depth + 1 > MAX_DEPTH {
                if allowed.is_some() {
                    return Err(Box::new(Refused {
                        file,
                        text,
                        off,
                        path,
                        why: Why::Unknowable,
                    }));
                }
                return Ok(None);
            }
            if let Some(roots) = allowed {
                let inside = std::fs::canonicalize(&path)
                    .is_ok_and(|real| roots.iter().any(|r| real.starts_with(r)));
                if !inside {
                    return Err(Box::new(Refused {
                        file,
                        text,
                        off,
                        path,
                        why: Why::Outside,
                    }));
                }
            }
            seen.push(path.clone());
            key.push_str(&path.to_string_lossy());
            key.push('\0');
            if toolkit.iter().any(|t| path.starts_with(t)) {
                key.push_str("toolkit\n");
                continue;
            }
            match read_text_capped(&path, warpsim_kernel::diag::MAX_PROGRAM_BYTES) {
                Ok(t) => {
                    let h = crate::cache::key(&[&t]);
                    key.push_str(&h.name);
                    key.push_str(&h.check);
                    key.push('\n');
                    todo.push((path, t, depth + 1));
                }
                Err(why @ (InputError::NotRegular(_) | InputError::TooLarge(_))) => {
                    return Err(Box::new(Refused {
                        file,
                        text,
                        off,
                        path,
                        why: Why::Input(why),
                    }))
                }
                // Not UTF-8 or unreadable: NVRTC says what it makes of it; not cached.
                Err(InputError::Io(_)) => return Ok(None),
            }
        }
    }
    Ok(Some(key))
}

/// NVRTC's `log` with what it quotes of files outside `home` (the `.cu`'s folder) and the
/// `toolkit` folders left out: an error there keeps its file and line, its message and the
/// echoed source line are replaced. An `#include` of any readable file must not become a way
/// to read it through warpsim's messages.
pub(crate) fn redact_log(log: &str, home: &Path, toolkit: &[PathBuf]) -> String {
    let real = |p: &Path| std::fs::canonicalize(p).ok();
    let allowed: Vec<PathBuf> = std::iter::once(home)
        .chain(toolkit.iter().map(PathBuf::as_path))
        .filter_map(|d| {
            real(if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            })
        })
        .collect();
    // A file NVRTC names (as found: by itself or beside the .cu) that exists outside them.
    let outside = |file: &str| {
        let found: Vec<PathBuf> = [PathBuf::from(file), home.join(file)]
            .iter()
            .filter_map(|p| real(p))
            .collect();
        !found.is_empty()
            && !found
                .iter()
                .any(|f| allowed.iter().any(|a| f.starts_with(a)))
    };
    let mut out = String::with_capacity(log.len());
    let mut hiding = false;
    for l in log.split_inclusive('\n') {
        let head = l.find("): ").and_then(|open| {
            let paren = l[..open].rfind('(')?;
            l[paren + 1..open].parse::<u32>().ok()?;
            Some((&l[..paren], &l[..open + 1], &l[open + 3..]))
        });
        match head {
            Some((file, place, rest)) if outside(file) => {
                let kind = rest.split(':').next().unwrap_or("error").trim();
                out.push_str(&format!(
                    "{place}: {kind}: (in a file outside the .cu's folder: its text is not shown)\n"
                ));
                hiding = true;
            }
            Some(_) => {
                hiding = false;
                out.push_str(l);
            }
            None if hiding && !l.trim().is_empty() => {}
            None => {
                hiding = false;
                out.push_str(l);
            }
        }
    }
    out
}

/// One `#include` (or `__has_include`) of a text.
#[derive(Debug, PartialEq)]
enum Include<'a> {
    /// `#include "name"` or `<name>`, the name at byte `off`.
    Name {
        name: &'a str,
        angled: bool,
        off: usize,
    },
    /// An `#include` of a macro, or `__has_include` (at byte `off`): what it opens cannot be
    /// known here.
    Unknowable { off: usize },
}

/// The includes of `text` outside comments and `#if 0` blocks, in order.
fn directives(text: &str) -> Vec<Include<'_>> {
    let clean = blank_comments(text);
    let mut out = Vec::new();
    // One entry per open conditional: whether it (or one around it) is skipped, and whether
    // it is the `#if 0` that started skipping.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut start = 0;
    for line in clean.split_inclusive('\n') {
        let at = start;
        start += line.len();
        let skipping = stack.last().is_some_and(|s| s.0);
        let trimmed = line.trim_start();
        if !skipping {
            if let Some(k) = line.find("__has_include") {
                out.push(Include::Unknowable { off: at + k });
            }
        }
        let Some(d) = trimmed.strip_prefix('#') else {
            continue;
        };
        let d = d.trim_start();
        let word: String = d
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = d[word.len()..].trim();
        match word.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let zero = word == "if" && rest == "0";
                stack.push((skipping || zero, !skipping && zero));
            }
            "else" | "elif" | "elifdef" | "elifndef" => {
                if let Some(top) = stack.last_mut() {
                    if top.1 {
                        // The `#if 0` ends: its other branches are taken.
                        *top = (false, false);
                    }
                }
            }
            "endif" => {
                stack.pop();
            }
            "include" | "include_next" | "import" if !skipping => {
                // `rest` is a part of `line`: its offset there.
                let off = at + (rest.as_ptr() as usize - line.as_ptr() as usize);
                let (open, close) = match rest.as_bytes().first() {
                    Some(b'"') => ('"', '"'),
                    Some(b'<') => ('<', '>'),
                    _ => {
                        out.push(Include::Unknowable { off });
                        continue;
                    }
                };
                match rest[1..].find(close) {
                    Some(end) => out.push(Include::Name {
                        name: &text[off + 1..off + 1 + end],
                        angled: open == '<',
                        off: off + 1,
                    }),
                    None => out.push(Include::Unknowable { off }),
                }
            }
            _ => {}
        }
    }
    out
}

/// `text` with its comments blanked (newlines and string literals kept, offsets unchanged).
fn blank_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            for o in &mut out[i..end] {
                if *o != b'\n' {
                    *o = b' ';
                }
            }
            i = end;
        } else if b[i] == b'"' || b[i] == b'\'' {
            let q = b[i];
            i += 1;
            while i < b.len() && b[i] != q && b[i] != b'\n' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    // Only ASCII bytes were replaced by ASCII blanks: still UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        directives(text)
            .into_iter()
            .map(|i| match i {
                Include::Name { name, angled, off } => {
                    assert_eq!(&text[off..off + name.len()], name);
                    if angled {
                        format!("<{name}>")
                    } else {
                        name.to_owned()
                    }
                }
                Include::Unknowable { .. } => "?".to_owned(),
            })
            .collect()
    }

    #[test]
    fn comments_and_if_0_blocks_are_skipped() {
        let t = "#include \"a.h\"\n// #include \"b.h\"\n/* #include \"c.h\"\n#include \"d.h\" */\n\
                 #if 0\n#include \"e.h\"\n#ifdef X\n#include \"f.h\"\n#endif\n#else\n#include \"g.h\"\n\
                 #endif\n#ifdef Y\n#include <h.h>\n#else\n  #  include \"i.h\" // x\n#endif\n\
                 #if 0\n#include \"/dev/zero\"\n#elif 1\n#include \"j.h\"\n#endif\n\
                 const char *s = \"/* not a comment\";\n#include \"k.h\"\n";
        assert_eq!(names(t), ["a.h", "g.h", "<h.h>", "i.h", "j.h", "k.h"]);
    }

    #[test]
    fn macro_includes_and_has_include_are_unknowable() {
        assert_eq!(names("#define H \"a.h\"\n#include H\n"), ["?"]);
        assert_eq!(names("#if __has_include(\"a.h\")\n#endif\n"), ["?"]);
        assert_eq!(names("#if 0\n#include H\n#endif\n"), Vec::<String>::new());
    }

    #[test]
    fn headers_are_found_through_subfolders_and_angles_and_keyed_by_content() {
        let dir = std::env::temp_dir().join(format!("warpsim-inc-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/a.cuh"), "#include \"b.cuh\"\n").unwrap();
        std::fs::write(dir.join("sub/b.cuh"), "B1\n").unwrap();
        std::fs::write(dir.join("c.cuh"), "#include \"c.cuh\"\nC\n").unwrap();
        let cu = dir.join("k.cu");
        let src = "#include <sub/a.cuh>\n#include \"c.cuh\"\n#include \"gone.cuh\"\n";
        let search = [dir.clone()];
        let k1 = scan(&cu, src, &search, &[], None).unwrap().unwrap();
        assert!(k1.contains("missing\0gone.cuh"), "{k1}");
        // b.cuh, found beside a.cuh in the subfolder, changes the key.
        std::fs::write(dir.join("sub/b.cuh"), "B2\n").unwrap();
        let k2 = scan(&cu, src, &search, &[], None).unwrap().unwrap();
        assert_ne!(k1, k2);
        // A header under the toolkit is not read.
        let k3 = scan(&cu, src, &search, &[dir.join("sub")], None)
            .unwrap()
            .unwrap();
        assert!(k3.contains("toolkit"), "{k3}");
        // A directory where a header should be is refused at its name.
        std::fs::create_dir_all(dir.join("d.cuh")).unwrap();
        let e = scan(&cu, "\n#include \"d.cuh\"\n", &search, &[], None).unwrap_err();
        assert_eq!(e.off, 11);
        assert!(matches!(
            e.why,
            Why::Input(InputError::NotRegular("a directory"))
        ));
        assert_eq!(scan(&cu, "#include X\n", &search, &[], None).unwrap(), None);
        // Limited to the folder's subfolder `sub`: c.cuh (beside the .cu) is outside, an
        // include of a macro cannot be checked; limited to the folder, all is found.
        let sub = allowed_roots(&[dir.join("sub")], false).unwrap();
        let e = scan(&cu, src, &search, &[], Some(&sub)).unwrap_err();
        assert!(matches!(e.why, Why::Outside), "{:?}", e.why);
        assert_eq!((e.off, e.path.file_name().unwrap()), (31, "c.cuh".as_ref()));
        let e = scan(&cu, "\n#include X\n", &search, &[], Some(&sub)).unwrap_err();
        assert!(
            matches!(e.why, Why::Unknowable) && e.off == 10,
            "{:?}",
            e.why
        );
        let all = allowed_roots(&search, false).unwrap();
        assert_eq!(scan(&cu, src, &search, &[], Some(&all)).unwrap(), Some(k2));
        assert!(allowed_roots(&search, true).is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn logs_quote_no_file_outside_the_folder() {
        let dir = std::env::temp_dir().join(format!("warpsim-redact-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("home")).unwrap();
        std::fs::write(dir.join("secret.h"), "x\n").unwrap();
        std::fs::write(dir.join("home/mine.h"), "x\n").unwrap();
        let s = dir.join("secret.h").display().to_string();
        let log = format!(
            "{s}(1): error: identifier \"TOKEN\" is undefined\n  TOKEN here ;\n  ^\n\n\
             mine.h(1): error: identifier \"OWN\" is undefined\n  OWN\n  ^\n\n\
             2 errors detected in the compilation of \"k.cu\".\n"
        );
        let r = redact_log(&log, &dir.join("home"), &[]);
        assert!(!r.contains("TOKEN"), "{r}");
        assert!(
            r.contains(&format!("{s}(1): error: (in a file outside")),
            "{r}"
        );
        assert!(
            r.contains("  OWN\n") && r.contains("2 errors detected"),
            "{r}"
        );
        // The folder's own files and the toolkit's are shown.
        let r = redact_log(&log, &dir.join("home"), std::slice::from_ref(&dir));
        assert_eq!(r, log);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn deep_nests_stop_the_scan_without_failing() {
        let dir = std::env::temp_dir().join(format!("warpsim-deep-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for i in 0..=MAX_DEPTH {
            std::fs::write(
                dir.join(format!("{i}.h")),
                format!("#include \"{}.h\"\n", i + 1),
            )
            .unwrap();
        }
        let cu = dir.join("k.cu");
        let search = std::slice::from_ref(&dir);
        assert_eq!(
            scan(&cu, "#include \"0.h\"\n", search, &[], None).unwrap(),
            None
        );
        // Limited, what the scan cannot follow is refused (NVRTC would open it unchecked).
        let roots = allowed_roots(search, false).unwrap();
        let e = scan(&cu, "#include \"0.h\"\n", search, &[], Some(&roots)).unwrap_err();
        assert!(matches!(e.why, Why::Unknowable), "{:?}", e.why);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
