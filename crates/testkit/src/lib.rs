//! What the tests of every warpsim crate share (a dev-dependency only, never published).
//!
//! # Brief overview
//!
//! * [`root`], [`path`] and [`read`]: files of the repository, wherever the test runs from;
//!   [`read_gz`]: a gzip fixture's text;
//!   [`shipped_programs`]: the RON kernels of `programs/` and `programs/examples/`.
//! * [`h200`]: the H200 measurements of `tests/fixtures/h200/` — a trace line's lanes, and a
//!   rule checked against every pattern of a measured set.
//! * [`bad_programs`]: the bad-program corpus of `tests/bad/`, each file with the message its
//!   first line expects.
//! * [`big_ptx`]: a generated PTX module of a given size (the front end's linearity test and
//!   bench).
//!
//! The integration tests of the `warpsim` binary add what needs the binary itself
//! (`tests/util.rs`: running it, scratch files) on top of this crate.

use std::path::PathBuf;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .expect("the repository root")
}

/// A path relative to the repository root.
pub fn path(rel: &str) -> PathBuf {
    root().join(rel)
}

/// A file's text, by its path relative to the repository root (panics naming the file).
pub fn read(rel: &str) -> String {
    let p = path(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A gzip file's text, by its path relative to the repository root (panics naming the file):
/// the large PTX fixtures stay compressed in the tree.
pub fn read_gz(rel: &str) -> String {
    let p = path(rel);
    let raw = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let bad = |why: &str| -> ! { panic!("{}: not a gzip file ({why})", p.display()) };
    if raw.len() < 18 || raw[..3] != [0x1f, 0x8b, 8] {
        bad("header");
    }
    // The header: 10 bytes, then the optional fields its flags name (RFC 1952).
    let flags = raw[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + usize::from(u16::from_le_bytes([raw[10], raw[11]]));
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += raw[at..]
                .iter()
                .position(|&b| b == 0)
                .unwrap_or_else(|| bad("name"))
                + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    let data = raw.get(at..raw.len() - 8).unwrap_or_else(|| bad("length"));
    let text =
        miniz_oxide::inflate::decompress_to_vec(data).unwrap_or_else(|e| bad(&e.to_string()));
    String::from_utf8(text).unwrap_or_else(|_| bad("UTF-8"))
}

/// Every program in programs/ and programs/examples/ (paths relative to the root, sorted):
/// the RON kernels the tests run with their default defines.
pub fn shipped_programs() -> Vec<String> {
    let mut v = Vec::new();
    for dir in ["programs", "programs/examples"] {
        for e in std::fs::read_dir(path(dir)).expect("programs/") {
            let p = e.expect("a directory entry").path();
            if p.extension().is_some_and(|x| x == "ron") {
                let name = p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .expect("a UTF-8 name");
                v.push(format!("{dir}/{name}"));
            }
        }
    }
    v.sort();
    assert!(v.len() >= 8, "{v:?}");
    v
}

/// One program of the bad-program corpus (`tests/bad/*.ron`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct BadProgram {
    /// The file name (`out_of_bounds.ron`).
    pub name: String,
    /// Its path relative to the repository root (`tests/bad/out_of_bounds.ron`).
    pub path: String,
    /// Its text.
    pub src: String,
    /// What its message must contain: the first line's `// expect: …`.
    pub expect: String,
}

/// The bad-program corpus, sorted by name; every file must start with `// expect: …`.
pub fn bad_programs() -> Vec<BadProgram> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(path("tests/bad")).expect("tests/bad") {
        let p = e.expect("a directory entry").path();
        if p.extension().is_none_or(|x| x != "ron") {
            continue;
        }
        let name = p
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 name");
        let src = std::fs::read_to_string(&p).expect("a readable program");
        let expect = src
            .lines()
            .next()
            .unwrap_or("")
            .strip_prefix("// expect:")
            .unwrap_or_else(|| panic!("{name}: the first line is not `// expect: …`"))
            .trim()
            .to_owned();
        assert!(!expect.is_empty(), "{name}: empty expect");
        out.push(BadProgram {
            name: name.to_owned(),
            path: format!("tests/bad/{name}"),
            src,
            expect,
        });
    }
    out.sort();
    out
}

/// A PTX module of about `mb` megabytes with one entry `big(.param .u64 out)`: blocks of
/// arithmetic, a shared store and load, a predicated branch and a `.loc` line each, one
/// register reused by every load (as hand-written PTX may).
pub fn big_ptx(mb: usize) -> String {
    let mut s = String::with_capacity(mb * 1_000_000 + 1024);
    s.push_str(
        ".version 8.5\n.target sm_90\n.address_size 64\n\
         .visible .entry big(.param .u64 out)\n{\n\
         \t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n\
         \t.shared .align 4 .b8 s[4096];\n\
         \tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
         \tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
         \tmov.u64 %rd4, s;\n\tadd.s64 %rd5, %rd4, %rd3;\n\tmov.u32 %r2, 0;\n",
    );
    let mut i = 0;
    while s.len() < mb * 1_000_000 {
        s.push_str(&format!(
            "\t.loc 1 {} 3\n\tadd.s32 %r2, %r2, %r1;\n\tst.shared.u32 [%rd5], %r2;\n\
             \tsetp.lt.s32 %p1, %r2, 7;\n\t@%p1 bra $L_{i};\n\tld.shared.u32 %r3, [%rd5];\n\
             \txor.b32 %r2, %r2, %r3;\n$L_{i}:\n",
            i + 10
        ));
        i += 1;
    }
    s.push_str("\tadd.s64 %rd6, %rd2, %rd3;\n\tst.global.u32 [%rd6], %r2;\n\tret;\n}\n");
    s
}

/// The H200 measurements of `tests/fixtures/h200/`.
pub mod h200 {
    /// Lanes in a warp.
    const WARP: usize = 32;

    /// A file of `tests/fixtures/h200/`.
    pub fn fixture(file: &str) -> String {
        super::read(&format!("tests/fixtures/h200/{file}"))
    }

    /// The lanes of a trace line (one byte offset per lane, `-1` for an inactive lane): their
    /// addresses and the active mask.
    pub fn lanes(offsets: &[&str]) -> ([u32; WARP], u32) {
        let mut addrs = [0u32; WARP];
        let mut mask = 0u32;
        for (l, o) in offsets.iter().enumerate() {
            if *o != "-1" {
                addrs[l] = o.parse().expect("a byte offset");
                mask |= 1 << l;
            }
        }
        (addrs, mask)
    }

    /// Checks `predict(op, width, addrs, mask)` against every pattern of `<stem>_patterns.txt`
    /// and the counters measured for it in `<stem>_measured.tsv` (whose first line must be
    /// `header` when given); returns how many patterns there were.
    pub fn check(
        stem: &str,
        header: Option<&str>,
        predict: impl Fn(&str, u32, &[u32; WARP], u32) -> [u32; 7],
    ) -> usize {
        let pats = fixture(&format!("{stem}_patterns.txt"));
        let meas = fixture(&format!("{stem}_measured.tsv"));
        let mut rows = meas.lines();
        let first = rows.next();
        if let Some(h) = header {
            assert_eq!(first, Some(h));
        }
        let (mut n, mut bad) = (0, Vec::new());
        for (line, row) in pats.lines().zip(rows) {
            let f: Vec<&str> = line.split_whitespace().collect();
            let m: Vec<&str> = row.split('\t').collect();
            assert_eq!(
                (f[0], f[1], f[2]),
                (m[0], m[1], m[2]),
                "fixtures out of step"
            );
            let width: u32 = f[2].parse().unwrap();
            let (addrs, mask) = lanes(&f[3..]);
            let want: Vec<u32> = m[3..].iter().map(|v| v.parse().unwrap()).collect();
            let got = predict(f[1], width, &addrs, mask);
            if got[..] != want[..] {
                bad.push(format!(
                    "{} {}: measured {want:?}, rule {got:?}",
                    f[0], f[1]
                ));
            }
            n += 1;
        }
        assert!(
            bad.is_empty(),
            "{} of {n} differ:\n{}",
            bad.len(),
            bad.join("\n")
        );
        n
    }
}
