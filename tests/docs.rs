//! The documentation shows what the binary prints: every command output in README.md and the
//! book (docs/src/**/*.md) is run here and compared, and the book's structure is checked.
//!
//! Conventions (also in the book's "Contributing" page):
//!
//! - A fenced block whose info string is `console` (or starts with `console,`) is checked. Its
//!   lines that start with `$ warpsim ` are commands; the lines after one, up to the next `$ `
//!   line or the end of the block, are what it prints: its stdout, then its stderr. Any other
//!   `$ ` command in a console block is an error (show those in a `sh` block, unchecked).
//! - A command is split like a shell's words: '…' and "…" quote, `\` escapes, `< FILE` reads
//!   stdin from FILE, and an unquoted word starting with `#` begins a comment. It runs from the
//!   repository root with `NO_COLOR=1` and a fresh PTX cache (`WARPSIM_CACHE`).
//! - The comparison is exact, line by line (trailing spaces ignored), except that a line `...`
//!   stands for any number of lines (none included) and `[..]` inside a line for any text.
//! - A command must exit 0, unless its shown output ends with a line `[exit: N]`.
//! - A block marked `console,nvrtc` needs NVRTC (a `cuda:` program): without NVRTC its commands
//!   are skipped, with a message, and the test passes (as the other NVRTC tests do).
//! - Every file a command names (a word with a `/` that names no output) must exist, also in
//!   skipped blocks; in `sh` blocks, every word that starts with `programs/` or `tests/` must.
//!
//! The book: every page under docs/src is listed in docs/src/SUMMARY.md and every page listed
//! exists; every relative link (and `#anchor`) in README.md and the book resolves.

use crate::nvrtc::{cache, nvrtc};
use crate::util::{root, warpsim};
use std::path::{Path, PathBuf};

/// The README's length bound (issue #36: "README ≤ 250 lines").
const README_MAX_LINES: usize = 250;

/// One fenced block of a Markdown file.
struct Block {
    file: PathBuf,
    /// 1-based line of the opening fence.
    line: usize,
    info: String,
    lines: Vec<String>,
}

/// One `$ warpsim …` command of a console block, with the output it shows.
struct Shown {
    /// `file:line` of the command.
    place: String,
    text: String,
    args: Vec<String>,
    stdin: Option<String>,
    expected: Vec<String>,
    exit: i32,
    nvrtc: bool,
}

/// README.md and every Markdown file under docs/src, in a stable order.
fn pages() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    v.extend(book_pages());
    v
}

fn book_pages() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("docs/src"), &mut v);
    v
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root()).unwrap_or(p).display().to_string()
}

/// The fenced blocks (``` fences) of a Markdown text.
fn blocks(file: &Path, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let fence = t.starts_with("```") && line.len() - t.len() < 4;
        match (&mut open, fence) {
            (None, true) => {
                open = Some(Block {
                    file: file.to_owned(),
                    line: i + 1,
                    info: t.trim_start_matches('`').trim().to_owned(),
                    lines: Vec::new(),
                })
            }
            (Some(_), true) if t.trim_start_matches('`').trim().is_empty() => {
                out.push(open.take().unwrap())
            }
            (Some(b), _) => b.lines.push(line.to_owned()),
            (None, false) => {}
        }
    }
    assert!(
        open.is_none(),
        "{}: a fenced block is never closed",
        rel(file)
    );
    out
}

/// Splits a command line into words as a shell would (quotes, backslashes, comments);
/// `Err` for what this harness does not run (pipes, unclosed quotes).
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = line.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '#' if !in_word => break,
            '|' | ';' | '&' | '>' | '`' | '$' => {
                return Err(format!("`{c}` is not supported in a shown command"))
            }
            '\'' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('\'') => break,
                        Some(c) => cur.push(c),
                        None => return Err("unclosed '".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match it.next() {
                        Some('"') => break,
                        Some('\\') => match it.next() {
                            Some(c) => cur.push(c),
                            None => return Err("a trailing \\".into()),
                        },
                        Some(c) => cur.push(c),
                        None => return Err("unclosed \"".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match it.next() {
                    Some(c) => cur.push(c),
                    None => return Err("a trailing \\".into()),
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    Ok(out)
}

/// The commands of one console block; `Err` names what is malformed.
fn commands(b: &Block) -> Result<Vec<Shown>, String> {
    let nvrtc = match b.info.as_str() {
        "console" => false,
        "console,nvrtc" => true,
        other => return Err(format!("unknown console block marker `{other}`")),
    };
    let mut out: Vec<Shown> = Vec::new();
    for (k, line) in b.lines.iter().enumerate() {
        let place = format!("{}:{}", rel(&b.file), b.line + 1 + k);
        if let Some(cmd) = line.strip_prefix("$ ") {
            let mut w = words(cmd).map_err(|e| format!("{place}: {e}"))?;
            if w.first().map(String::as_str) != Some("warpsim") {
                return Err(format!(
                    "{place}: only `$ warpsim …` commands can be checked; show `{cmd}` in a sh block"
                ));
            }
            w.remove(0);
            let mut stdin = None;
            if let Some(i) = w.iter().position(|a| a == "<") {
                if i + 2 != w.len() {
                    return Err(format!("{place}: `< FILE` must end the command"));
                }
                stdin = w.pop();
                w.pop();
            }
            out.push(Shown {
                place,
                text: cmd.to_owned(),
                args: w,
                stdin,
                expected: Vec::new(),
                exit: 0,
                nvrtc,
            });
        } else if let Some(s) = out.last_mut() {
            s.expected.push(line.trim_end().to_owned());
        } else {
            return Err(format!("{place}: output before any `$ warpsim` command"));
        }
    }
    if out.is_empty() {
        return Err(format!(
            "{}:{}: a console block without a `$ warpsim` command",
            rel(&b.file),
            b.line
        ));
    }
    for s in &mut out {
        while s.expected.last().is_some_and(|l| l.is_empty()) {
            s.expected.pop();
        }
        if let Some(code) = s
            .expected
            .last()
            .and_then(|l| l.strip_prefix("[exit: "))
            .and_then(|l| l.strip_suffix(']'))
        {
            s.exit = code
                .parse()
                .map_err(|_| format!("{}: bad exit marker `[exit: {code}]`", s.place))?;
            s.expected.pop();
        }
    }
    Ok(out)
}

/// Every console block's commands in README.md and the book.
fn all_commands() -> Vec<Shown> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in pages() {
        let text = std::fs::read_to_string(&p).unwrap();
        for b in blocks(&p, &text) {
            if b.info == "console" || b.info.starts_with("console,") {
                match commands(&b) {
                    Ok(c) => out.extend(c),
                    Err(e) => errors.push(e),
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    out
}

/// Whether `line` matches the pattern line `pat`, where `[..]` stands for any text.
fn line_matches(pat: &str, line: &str) -> bool {
    let parts: Vec<&str> = pat.split("[..]").collect();
    if parts.len() == 1 {
        return pat == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(i) => rest = &rest[i + p.len()..],
            None => return false,
        }
    }
    true
}

/// Whether the output lines `got` match the shown lines `want` (`...` lines elide).
fn output_matches(want: &[String], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((w, rest)) if w == "..." => (0..=got.len()).any(|k| output_matches(rest, &got[k..])),
        Some((w, rest)) => {
            !got.is_empty() && line_matches(w, got[0]) && output_matches(rest, &got[1..])
        }
    }
}

/// Whether an argument names a file the command reads (not one it writes).
fn input_files(s: &Shown) -> Vec<String> {
    let mut out: Vec<String> = s.stdin.iter().cloned().collect();
    let mut prev = "";
    for a in &s.args {
        let writes = matches!(prev, "--svg" | "--timeline");
        if !writes && a.contains('/') && !a.starts_with('-') && !a.contains(' ') {
            out.push(a.clone());
        }
        prev = a;
    }
    out
}

#[test]
fn docs_readme_is_short_and_states_the_test_command() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = text.lines().count();
    assert!(
        n <= README_MAX_LINES,
        "README.md has {n} lines; keep it to {README_MAX_LINES} and move the rest to docs/src"
    );
    // .ci/run runs "the README's one test command": scripts/test.sh, which runs the whole
    // workspace's cargo tests (and then the Python package's).
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let cmd = ci
        .lines()
        .rev()
        .find(|l| l.starts_with("cargo test") || l.starts_with("scripts/test"))
        .expect(".ci/run runs a test command");
    assert!(
        text.contains(cmd),
        "README.md does not state .ci/run's test command `{cmd}`"
    );
    if let Some(script) = cmd.strip_prefix("scripts/") {
        let s = std::fs::read_to_string(root().join("scripts").join(script)).unwrap();
        assert!(
            s.lines()
                .any(|l| l.starts_with("cargo test --workspace --locked")),
            "scripts/{script} does not run cargo test --workspace --locked"
        );
    }
}

#[test]
fn docs_console_blocks_name_files_that_exist() {
    let mut missing = Vec::new();
    for s in all_commands() {
        for f in input_files(&s) {
            if !root().join(&f).exists() {
                missing.push(format!("{}: `{f}` does not exist ({})", s.place, s.text));
            }
        }
    }
    for p in pages() {
        let text = std::fs::read_to_string(&p).unwrap();
        for b in blocks(&p, &text).iter().filter(|b| b.info == "sh") {
            for (k, line) in b.lines.iter().enumerate() {
                let line = line.split(" #").next().unwrap();
                for w in line.split_whitespace() {
                    let w = w.trim_matches(|c| c == '\'' || c == '"');
                    if (w.starts_with("programs/") || w.starts_with("tests/"))
                        && !root().join(w).exists()
                    {
                        missing.push(format!(
                            "{}:{}: `{w}` does not exist",
                            rel(&p),
                            b.line + 1 + k
                        ));
                    }
                }
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn docs_shown_outputs_are_what_the_binary_prints() {
    let shown = all_commands();
    assert!(!shown.is_empty(), "no console blocks found");
    let have_nvrtc = !shown.iter().any(|s| s.nvrtc) || nvrtc("docs_shown_outputs");
    let dir = cache("docs");
    let mut failures = Vec::new();
    let (mut ran, mut skipped) = (0, 0);
    for s in &shown {
        if s.nvrtc && !have_nvrtc {
            skipped += 1;
            continue;
        }
        let mut c = warpsim();
        c.args(&s.args)
            .env("NO_COLOR", "1")
            .env("WARPSIM_CACHE", &dir)
            .stdin(match &s.stdin {
                Some(f) => std::fs::File::open(root().join(f))
                    .unwrap_or_else(|e| panic!("{}: {f}: {e}", s.place))
                    .into(),
                None => std::process::Stdio::null(),
            });
        let out = c.output().unwrap();
        ran += 1;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let mut got: Vec<&str> = text.lines().map(str::trim_end).collect();
        while got.last().is_some_and(|l| l.is_empty()) {
            got.pop();
        }
        let code = out.status.code().unwrap_or(-1);
        if code != s.exit || !output_matches(&s.expected, &got) {
            failures.push(format!(
                "{}: `$ {}` exited {code} (shown: {}) and printed:\n{}{}\n",
                s.place,
                s.text,
                s.exit,
                got.join("\n"),
                if code == 0 {
                    String::new()
                } else {
                    format!("\n[exit: {code}]")
                }
            ));
        }
    }
    if skipped > 0 {
        println!("docs_shown_outputs: {skipped} NVRTC commands skipped: NVRTC not found");
    }
    println!("docs_shown_outputs: {ran} commands run");
    assert!(
        failures.is_empty(),
        "{} shown outputs differ from the binary's:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn docs_every_book_page_is_in_the_summary() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: Vec<PathBuf> = links(&summary)
        .into_iter()
        .map(|(_, t)| src.join(t))
        .collect();
    let mut errors = Vec::new();
    for p in &listed {
        if !p.exists() {
            errors.push(format!("SUMMARY.md lists {}, which does not exist", rel(p)));
        }
    }
    for p in book_pages() {
        if p.file_name().is_some_and(|n| n == "SUMMARY.md") {
            continue;
        }
        if !listed.contains(&p) {
            errors.push(format!("{} is not listed in docs/src/SUMMARY.md", rel(&p)));
        }
    }
    assert!(
        root().join("docs/book.toml").exists(),
        "docs/book.toml is missing"
    );
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// The inline links and images of a Markdown text outside code: (line, target).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Code spans hold no links.
        let mut plain = String::new();
        for (k, part) in line.split('`').enumerate() {
            if k % 2 == 0 {
                plain.push_str(part);
            }
            plain.push(' ');
        }
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push((i + 1, target.to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// mdBook's (and GitHub's, for plain headings) anchor of a heading's text.
fn anchor(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    // Links keep their text.
    while let Some(a) = rest.find('[') {
        text.push_str(&rest[..a]);
        let r = &rest[a + 1..];
        match (r.find("]("), r.find(')')) {
            (Some(m), Some(e)) if m < e => {
                text.push_str(&r[..m]);
                rest = &r[e + 1..];
            }
            _ => {
                text.push('[');
                rest = r;
            }
        }
    }
    text.push_str(rest);
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside code), with mdBook's `-N` for repeats.
fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut bases: Vec<String> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let h = line.trim_start_matches('#');
        if !h.starts_with(' ') {
            continue;
        }
        let base = anchor(h.trim());
        let n = bases.iter().filter(|b| **b == base).count();
        out.push(if n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        bases.push(base);
    }
    out
}

#[test]
fn docs_relative_links_resolve() {
    let mut errors = Vec::new();
    for p in pages() {
        let text = std::fs::read_to_string(&p).unwrap();
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.is_empty() {
                continue;
            }
            let place = format!("{}:{line}", rel(&p));
            let (path, frag) = match target.split_once('#') {
                Some((a, b)) => (a, Some(b)),
                None => (target.as_str(), None),
            };
            let file = if path.is_empty() {
                p.clone()
            } else {
                p.parent().unwrap().join(path)
            };
            if !file.exists() {
                errors.push(format!("{place}: `{target}`: {} does not exist", path));
                continue;
            }
            if let Some(frag) = frag {
                if file.extension().is_some_and(|e| e == "md") {
                    let t = std::fs::read_to_string(&file).unwrap();
                    if !anchors(&t).iter().any(|a| a == frag) {
                        errors.push(format!(
                            "{place}: `{target}`: no heading of {} has the anchor `#{frag}`",
                            rel(&file)
                        ));
                    }
                }
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn docs_harness_matches_and_refuses_as_documented() {
    let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(output_matches(&w(&["a", "b"]), &["a", "b"]));
    assert!(!output_matches(&w(&["a", "b"]), &["a", "c"]));
    assert!(!output_matches(&w(&["a"]), &["a", "b"]));
    assert!(output_matches(
        &w(&["a", "...", "d"]),
        &["a", "b", "c", "d"]
    ));
    assert!(output_matches(&w(&["a", "...", "b"]), &["a", "b"]));
    assert!(!output_matches(&w(&["a", "...", "d"]), &["a", "b", "c"]));
    assert!(output_matches(&w(&["x [..] z"]), &["x 12 ms z"]));
    assert!(!output_matches(&w(&["x [..] z"]), &["y 12 ms z"]));
    assert!(!output_matches(&w(&["x [..] z [..] w"]), &["x 1 z 2"]));
    assert_eq!(
        words(r#"explain 'tid*2' --op "red.popc" a\ b # note"#).unwrap(),
        ["explain", "tid*2", "--op", "red.popc", "a b"]
    );
    assert!(words("run x | head").is_err());
    assert_eq!(
        anchor("`warpsim access` and `warpsim explain`"),
        "warpsim-access-and-warpsim-explain"
    );
    assert_eq!(anchor("Atomics: `Atomic(op: …)`"), "atomics-atomicop-");
    assert_eq!(
        anchors("# Limits and reliability\n## Limits\n## Limits\n"),
        ["limits-and-reliability", "limits", "limits-1"]
    );
}
