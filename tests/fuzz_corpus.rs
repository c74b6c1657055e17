//! Replays the fuzzing corpus (fuzz/corpus/load and fuzz/corpus/run) in the ordinary test
//! suite: every file loads or is refused with a diagnostic, and the `run` corpus also runs —
//! with the fuzz `run` target's small limits — to a report or an error, never a panic. The
//! `run` corpus includes programs written by the `gen` target (`gen_*.ron`), which uses the same
//! limits and geometry, so they replay here exactly as the fuzzer ran them.

use std::path::{Path, PathBuf};
use warpsim_interp::{load_str, Options};
use warpsim_runner::smoke;

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// What fuzz/fuzz_targets/run.rs does with one input.
fn load_and_run(src: &str) {
    let _ = smoke::load_and_run("fuzz.ron", src);
}

fn replay(dir: &str, f: fn(&str)) -> usize {
    let files = files(dir);
    let mut failed = Vec::new();
    for p in &files {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let Ok(src) = String::from_utf8(bytes) else {
            continue;
        };
        if std::panic::catch_unwind(|| f(&src)).is_err() {
            failed.push(p.display().to_string());
        }
    }
    assert!(failed.is_empty(), "panicked on: {failed:?}");
    files.len()
}

#[test]
fn load_corpus_never_panics() {
    let n = replay("fuzz/corpus/load", |src| {
        if let Err(e) = load_str("fuzz.ron", src, &Options::default()) {
            // Every refusal is a diagnostic with a location.
            assert!(e.to_string().starts_with("fuzz.ron"), "{e}");
        }
    });
    assert!(n >= 20, "only {n} files");
}

#[test]
fn run_corpus_never_panics() {
    let n = replay("fuzz/corpus/run", load_and_run);
    assert!(n >= 20, "only {n} files");
}
