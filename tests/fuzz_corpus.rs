//! Replays the fuzzing corpus (`fuzz/corpus/<target>`) in the ordinary test suite, each input
//! exactly as its fuzz target runs it, with the targets' small limits (`warpsim_runner::fuzz_limits`):
//!
//! - `load`: every file loads or is refused with a diagnostic that has a location;
//! - `run`: every file loads and runs to a report or an error (`ptx:` launches included: the
//!   program is named as if it were at the repository's root, as the `run` target does);
//! - `gen`: every file's bytes go through the `gen` target's generator (`genprog.rs`, included
//!   from the fuzz crate) and the program it writes loads and runs;
//! - `ptx`: every file is parsed as PTX and its kernels launched (`ptxrun.rs`, included too).
//!
//! Never a panic. `fuzz/corpus/run/gen_*.ron` are programs the generator once wrote.

use std::path::PathBuf;
use warpsim_lang::{load_str, Options};
use warpsim_runner::fuzz_limits;

#[path = "../fuzz/fuzz_targets/genprog.rs"]
mod genprog;
#[path = "../fuzz/fuzz_targets/ptxrun.rs"]
mod ptxrun;

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = crate::util::root().join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// Runs `f` on every file of `dir` (its bytes), and fails naming those it panicked on.
fn replay_bytes(dir: &str, f: impl Fn(&[u8]) + std::panic::RefUnwindSafe) -> usize {
    let files = files(dir);
    let mut failed = Vec::new();
    for p in &files {
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        if std::panic::catch_unwind(|| f(&bytes)).is_err() {
            failed.push(p.display().to_string());
        }
    }
    assert!(failed.is_empty(), "panicked on: {failed:?}");
    files.len()
}

/// Runs `f` on every file of `dir` that is UTF-8 text (the text targets skip the others).
fn replay(dir: &str, f: fn(&str)) -> usize {
    replay_bytes(dir, |b| {
        if let Ok(src) = std::str::from_utf8(b) {
            f(src)
        }
    })
}

/// What fuzz/fuzz_targets/run.rs does with one input.
fn load_and_run(src: &str) {
    let name = crate::util::root().join("fuzz.ron");
    let _ = fuzz_limits::load_and_run(&name.to_string_lossy(), src);
}

#[test]
fn load_corpus_never_panics() {
    let n = replay("fuzz/corpus/load", |src| {
        if let Err(e) = load_str("fuzz.ron", src, &Options::default()) {
            // Every refusal is a diagnostic with a location, never an internal bug's.
            assert!(e.to_string().starts_with("fuzz.ron"), "{e}");
            fuzz_limits::assert_not_a_bug(&e);
        }
    });
    assert!(n >= 20, "only {n} files");
}

#[test]
fn run_corpus_never_panics() {
    let n = replay("fuzz/corpus/run", load_and_run);
    assert!(n >= 20, "only {n} files");
}

#[test]
fn gen_corpus_never_panics() {
    // What fuzz/fuzz_targets/gen.rs does with one input (but for its launch-size assertion).
    let n = replay_bytes("fuzz/corpus/gen", |b| {
        let _ = fuzz_limits::load_and_run("gen.ron", &genprog::program(b));
    });
    assert!(n >= 1, "only {n} files");
}

#[test]
fn ptx_corpus_never_panics() {
    let scratch =
        std::env::temp_dir().join(format!("warpsim-replay-ptx-{}.ptx", std::process::id()));
    let n = replay("fuzz/corpus/ptx", |src| {
        let scratch =
            std::env::temp_dir().join(format!("warpsim-replay-ptx-{}.ptx", std::process::id()));
        ptxrun::ptx_input(src, &scratch)
    });
    let _ = std::fs::remove_file(scratch);
    assert!(n >= 8, "only {n} files");
}

#[test]
fn the_generator_writes_programs_that_load() {
    // Most byte strings make a program the loader accepts: the generator keeps to the rules
    // (in bounds, aligned, well typed) but in careless programs.
    let mut loaded = 0;
    for seed in 0..200u32 {
        let bytes: Vec<u8> = (0..400u32)
            .map(|k| (k.wrapping_mul(2654435761).wrapping_add(seed * 40503) >> 13) as u8)
            .collect();
        let src = genprog::program(&bytes);
        if load_str("gen.ron", &src, &fuzz_limits::load_options()).is_ok() {
            loaded += 1;
        }
    }
    assert!(
        loaded >= 150,
        "only {loaded} of 200 generated programs load"
    );
}
