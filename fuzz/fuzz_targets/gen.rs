//! Fuzzes load + run with *generated* programs: `genprog.rs` turns the input bytes into the
//! text of a well-typed program (defines, a launch, buffers with references and checks, shared
//! arrays, functions, and a body of the whole statement and expression language: loops with
//! `Break`/`Continue`, `Return`, warp operations, atomics, narrow types), so that most inputs
//! get past the parser and the checks and exercise lowering, the executor, the race checker,
//! the CPU reference and the report; one program in four breaks a rule now and then, to reach
//! the error paths too.
//!
//! Same limits as the `run` target (`warpsim_runner::fuzz_limits`: 64 KiB of buffers, launches of at
//! most 64 blocks and 2048 threads, 20 000 warp instructions per block, race checking on, the
//! bank geometry chosen by the program text's length). `tests/fuzz_corpus.rs` includes
//! `genprog.rs` and replays `fuzz/corpus/gen` through it exactly as here. `GEN_DUMP=DIR` writes
//! every program that loads to DIR (as `run` inputs), `GEN_PRINT=1` prints each program and
//! its outcome.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warpsim_lang::load_str;
use warpsim_runner::{run, fuzz_limits};

mod genprog;

fuzz_target!(|data: &[u8]| {
    let src = genprog::program(data);
    let print = std::env::var_os("GEN_PRINT").is_some();
    if print {
        eprintln!("{src}");
    }
    let prog = match load_str("gen.ron", &src, &fuzz_limits::load_options()) {
        Ok(p) => p,
        Err(e) => {
            if print {
                eprintln!("refused: {e}");
            }
            return;
        }
    };
    if let Some(dir) = std::env::var_os("GEN_DUMP") {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        src.hash(&mut h);
        let path = std::path::Path::new(&dir).join(format!("gen_{:016x}.ron", h.finish()));
        let _ = std::fs::write(path, &src);
        return;
    }
    // The generator keeps launches within these; checked so a change to it cannot slow
    // the fuzzer down unnoticed.
    assert!(fuzz_limits::small_launch(&prog), "launch too big: {src}");
    let res = run(&prog, &fuzz_limits::run_options(src.len()));
    if print {
        match &res {
            Ok(_) => eprintln!("ran"),
            Err(e) => eprintln!("run error: {e}"),
        }
    }
    match res {
        Ok(report) => fuzz_limits::render(&report),
        Err(d) => fuzz_limits::assert_not_a_bug(&d),
    }
});
