//! The files a `.cu` includes, found as the preprocessor finds them, for the PTX cache's key
//! and to refuse a header NVRTC must not open.
//!
//! # Brief overview
//!
//! [`scan`] follows every `#include "…"` and `#include <…>` of the source and of the headers it
//! finds in turn: a quoted name in the including file's folder first, then in the include
//! paths; an angled one in the include paths; an absolute name as it is. The text is read
//! as NVRTC reads it: line splices (a `\` ending a line) first, then comments, string, char
//! and raw string literals (`/*` in one opens no comment, a line in a raw string is no
//! directive) and directives, `%:` as `#`; where NVRTC's reading is not known, a block
//! comment's newline both ends a line and not, and other text is doubtful (below). `#if 0`
//! blocks are skipped (up to their `#else`, `#elif` or `#endif`); every other conditional is
//! taken both ways, so the scan sees a superset of what NVRTC opens. Each header is read
//! through the one capped reader ([`warpsim_kernel::input`]).
//!
//! What comes back is a fingerprint of every file found (its path and a hash of its text) and
//! of every name not found (a header created later changes the key), or no fingerprint when
//! the inputs cannot be known: an `#include` of a macro, `__has_include`, text the scan
//! cannot read for certain (a malformed raw string literal, say), more than [`MAX_FILES`]
//! files or [`MAX_DEPTH`] nested levels. Then the kernel is compiled without the cache.
//! Headers under the CUDA toolkit's folders are keyed by their path (NVRTC's version and the
//! options are in the key too) and not read.
//!
//! A header that is found but is a FIFO, a device or a directory, or larger than the cap,
//! is an error at its `#include` line: NVRTC would block on it or read it without end. So is,
//! unless the user lifts the limit (`--any-include`), a header outside the `.cu`'s folder,
//! the toolkit's and the folders the user named, and an include the scan cannot follow (a
//! macro, `__has_include`, doubtful text, past the limits above): a `.cu` must not read any
//! file the user can read into NVRTC's messages.

mod lex;

use lex::{blank, original, splice};
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
                "what it opens (through a macro or `__has_include`, after text the scan \
                 cannot read for certain, or past its limits) cannot be checked against the \
                 folders a .cu may include from",
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
            Why::Unknowable => "write the header's name in the #include (and leave out text \
                                the scan cannot read for certain), or allow any file with \
                                --any-include"
                .into(),
        }
    }
}

/// The headers a fingerprint of [`scan`] names that are files of the user's (not the
/// toolkit's, not names found nowhere): what an output must not replace.
pub(crate) fn files(key: &str) -> Vec<PathBuf> {
    key.lines()
        .filter_map(|l| l.split_once('\0'))
        .filter(|(p, rest)| *p != "missing" && *rest != "toolkit")
        .map(|(p, _)| PathBuf::from(p))
        .collect()
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
            let name = name.as_str();
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
enum Include {
    /// `#include "name"` or `<name>`, the name at byte `off`.
    Name {
        name: String,
        angled: bool,
        off: usize,
    },
    /// An `#include` of a macro, `__has_include`, or text that cannot be read for certain (at
    /// byte `off`): what it opens cannot be known here.
    Unknowable { off: usize },
}

/// The directives that open a file.
const INCLUDES: [&str; 3] = ["include", "include_next", "import"];

/// The includes of `text` outside comments, literals and `#if 0` blocks, in order, at their
/// offsets in `text`. Nothing after text that cannot be read for certain is read.
fn directives(text: &str) -> Vec<Include> {
    let (spliced, splices) = splice(text);
    let (clean, doubt) = blank(&spliced, &splices);
    // A line goes on after a block comment's newline (GCC), or ends there: both are read.
    let mut ended = clean.clone().into_bytes();
    for (c, s) in ended.iter_mut().zip(spliced.bytes()) {
        if s == b'\n' {
            *c = b'\n';
        }
    }
    let ended = String::from_utf8(ended).expect("UTF-8 with blanks made newlines");
    let mut out = includes_of(&clean, &spliced, &splices, doubt);
    out.extend(includes_of(&ended, &spliced, &splices, doubt));
    out.sort_by_key(|i| match i {
        Include::Name { off, .. } | Include::Unknowable { off } => *off,
    });
    out.dedup();
    out
}

/// The includes of `clean` (`spliced` blanked, [`blank`]; `doubt`: where it cannot be read
/// for certain), at their offsets before the `splices`.
fn includes_of(
    clean: &str,
    spliced: &str,
    splices: &[(usize, usize)],
    doubt: Option<usize>,
) -> Vec<Include> {
    let orig = |i: usize| original(splices, i);
    let mut out = Vec::new();
    // One entry per open conditional: whether it (or one around it) is skipped, and whether
    // it is the `#if 0` that started skipping.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut start = 0;
    for line in clean.split_inclusive('\n') {
        let at = start;
        start += line.len();
        if let Some(d) = doubt.filter(|&d| d < start) {
            out.push(Include::Unknowable { off: orig(d) });
            break;
        }
        let skipping = stack.last().is_some_and(|s| s.0);
        if !skipping {
            if let Some(k) = line.find("__has_include") {
                out.push(Include::Unknowable { off: orig(at + k) });
            }
        }
        let Some((word, rest)) = directive(line) else {
            continue;
        };
        match word {
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
            _ if INCLUDES.contains(&word) && !skipping => {
                // `rest` is a part of `line`: its offset in `spliced`.
                let k = at + (rest.as_ptr() as usize - line.as_ptr() as usize);
                let name = match rest.as_bytes().first() {
                    Some(b'"') => rest[1..].find('"').map(|e| (e, false)),
                    Some(b'<') => rest[1..].find('>').map(|e| (e, true)),
                    _ => None,
                };
                // A header name ends on its line; one with a `\` is read differently by
                // compilers.
                out.push(match name.map(|(e, a)| (&spliced[k + 1..k + 1 + e], a)) {
                    Some((name, angled)) if !name.contains('\\') => Include::Name {
                        name: name.to_owned(),
                        angled,
                        off: orig(k + 1),
                    },
                    _ => Include::Unknowable { off: orig(k) },
                });
            }
            _ => {}
        }
    }
    out
}

/// The directive on `line` (code, comments blanked): its name after `#` or `%:`, and what
/// follows it, both without blanks around.
fn directive(line: &str) -> Option<(&str, &str)> {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c');
    let d = line.trim_start_matches(blank);
    let d = d
        .strip_prefix('#')
        .or_else(|| d.strip_prefix("%:"))?
        .trim_start_matches(blank);
    let n = d
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(d.len());
    Some((&d[..n], d[n..].trim_matches(blank)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        directives(text)
            .into_iter()
            .map(|i| match i {
                Include::Name { name, angled, off } => {
                    // `off` is the name's first character's in `text` (spliced or not).
                    let first = name.chars().next().unwrap_or(['"', '>'][angled as usize]);
                    assert!(text[off..].starts_with(first), "{name} at {off}");
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
    fn digraphs_start_directives() {
        let t = "%:include \"a.h\"\n%:  include <b.h>\n \t%: include \"c.h\"\n%:if 0\n\
                 #include \"d.h\"\n%:endif\n%:%:include \"e.h\"\n";
        assert_eq!(names(t), ["a.h", "<b.h>", "c.h"]);
    }

    #[test]
    fn a_line_goes_on_after_a_block_comment_or_not() {
        // GCC goes on; NVRTC's reading is not known: each include of either is seen.
        let t =
            "/*\n*/ #include \"a.h\"\nint x; /*\n*/ #include \"b.h\"\n# /*\n*/ include \"c.h\"\n\
                 #if /*\n*/ 0\n#include \"d.h\"\n#endif\n#include \"e.h\" /*\n*/ #include \"f.h\"\n\
                 #if 0\n/*\n*/ #include \"g.h\"\n#endif\n";
        assert_eq!(names(t), ["a.h", "b.h", "c.h", "d.h", "e.h", "f.h"]);
    }

    #[test]
    fn line_splices_are_removed_first() {
        let t = "#inc\\\nlude \"a.h\"\n#\\\ninclude \"b.h\"\n// c \\\n#include \"c.h\"\n\
                 #include \"d\\\n.h\"\n#inc\\\r\nlude \"e.h\"\r\n/\\\n* \\\n*/ #include \"f.h\"\n\
                 #if \\\n0\n#include \"g.h\"\n#endif\n// c \\ \n#include \"h.h\"\n";
        // `\` then a blank is no splice (NVRTC: "\ followed by white space is not a line
        // splice").
        assert_eq!(names(t), ["a.h", "b.h", "d.h", "e.h", "f.h", "h.h"]);
        // Each name at its place in the text itself.
        let d = directives(t);
        assert!(matches!(&d[0], Include::Name { off, .. } if *off == t.find("a.h").unwrap()));
        assert!(matches!(&d[2], Include::Name { off, .. } if *off == t.find("d\\").unwrap()));
    }

    #[test]
    fn literals_hide_no_comments_and_no_directives() {
        let t = "const char *r = R\"x( \" /* )x\";\n#include \"a.h\"\n\
                 const char *s = \"/* \\\" //\", c = '\"'; /* '\n*/\n#include \"b.h\"\n\
                 auto u = u8R\"(\n#if 0\n)\" LR\"--(/*)--\";\n#include \"c.h\"\n#endif\n\
                 int n = 1'0 + f('x', \"'/*\");\n#include \"d.h\"\n\
                 const char *h = \"#include \\\"e.h\\\"\", *q = fR\"(\";\n#include \"f.h\"\n\
                 #include <g//x.h>\n#include \"h/*y.h\"\n#include \"i.h\"\n// */\n\
                 auto x = 'x'R\"(\n#include \"j.h\"\n)\";\n";
        // `R` after a literal is its suffix, and `"(` an ordinary string.
        assert_eq!(
            names(t),
            ["a.h", "b.h", "c.h", "d.h", "f.h", "<g//x.h>", "h/*y.h", "i.h", "j.h"]
        );
    }

    #[test]
    fn text_read_in_doubt_is_unknowable() {
        // Nothing after text read in doubt is read; it is refused where the text starts
        // (marked `@` here, and removed).
        for t in [
            "auto s = @R\"a b( /* )a b\";\n",
            "auto s = @R\"(\n#include \"a.h\"\n",
            "auto s = @R\"x( )x\\\n\";\n",
            "auto s = @\u{e9}R\"(\n)\";\n",
            "auto n = @1\u{e9}'2';\n",
            "#define S @R\"(\n)\"\n",
            "#include \"c.h\"@R\"(\n)\"\n",
            "@\u{a0}#include \"c.h\"\n",
            "#@\u{a0}include \"c.h\"\n",
            "#include @\u{e9}\n",
            "@\x01#include \"c.h\"\n",
            "int x;@\r#include \"c.h\"\n",
        ] {
            let at = t.find('@').unwrap() + 15;
            let t = format!("#include \"a.h\"\n{}#include \"b.h\"\n", t.replace('@', ""));
            assert_eq!(names(&t), ["a.h", "?"], "{t:?}");
            assert_eq!(directives(&t)[1], Include::Unknowable { off: at }, "{t:?}");
        }
        // A header name with a `\`, or not closed.
        let t = "#include \"a\\b.h\"\n#include \"a.h\n#include <a.h\n#include\n#include \"b.h\"\n";
        assert_eq!(names(t), ["?", "?", "?", "?", "b.h"]);
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
    fn bypasses_of_the_scan_are_keyed_and_refused_at_the_name() {
        let dir = std::env::temp_dir().join(format!("warpsim-bypass-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("c.cuh"), "C\n").unwrap();
        let cu = dir.join("sub/k.cu");
        let search = [dir.clone()];
        let sub = allowed_roots(&[dir.join("sub")], false).unwrap();
        let spliced = "int x;\n#inc\\\r\nlude \\\n\"c.\\\ncuh\"\n";
        for src in [
            "%:include \"c.cuh\"\n",
            "%:  include \"c.cuh\"\n",
            "#inc\\\nlude \"c.cuh\"\n",
            "#\\\ninclude \"c.cuh\"\n",
            spliced,
            "const char *s = R\"x( \" /* )x\";\n#include \"c.cuh\"\n// */\n",
            "const char *s = \"/*\", *t = \"//\";\n#include \"c.cuh\"\n// */\n",
            "const char *s = R\"(\n#if 0\n)\";\n#include \"c.cuh\"\n#endif\n",
            "int n = 1'0 + f('x', \"'/*\");\n#include \"c.cuh\"\n// */\n",
        ] {
            // Unlimited, the header is in the key; limited to `sub`, refused at its name.
            let key = scan(&cu, src, &search, &[], None).unwrap().unwrap();
            assert!(key.contains("c.cuh\0"), "{src:?}: {key:?}");
            let e = scan(&cu, src, &search, &[], Some(&sub)).unwrap_err();
            assert!(matches!(e.why, Why::Outside), "{src:?}: {:?}", e.why);
            assert_eq!(e.off, src.rfind("\"c.").unwrap() + 1, "{src:?}");
        }
        // The spliced name's place in the text: line 4, column 2.
        let e = scan(&cu, spliced, &search, &[], Some(&sub)).unwrap_err();
        assert_eq!(warpsim_kernel::diag::line_col(spliced, e.off), (4, 2));
        // A splice that makes the `#include` part of a comment: no include.
        let src = "// c \\\n#include \"c.cuh\"\n";
        assert!(scan(&cu, src, &search, &[], Some(&sub)).is_ok());
        // An include of a macro in a spliced directive, refused at the macro.
        let src = "\n#\\\ninclude \\\nX\n";
        let e = scan(&cu, src, &search, &[], Some(&sub)).unwrap_err();
        assert!(matches!(e.why, Why::Unknowable), "{:?}", e.why);
        assert_eq!(e.off, src.find('X').unwrap());
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
