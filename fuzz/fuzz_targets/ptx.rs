//! Fuzzes the PTX front end: any text is parsed as a PTX module, and its first two kernels are
//! lowered, loaded and run through `ptx:` launches with the `run` target's small limits
//! (`ptxrun.rs`, which `tests/fuzz_corpus.rs` shares to replay `fuzz/corpus/ptx`). Any input
//! must give a result or an error, never a panic, a hang or unbounded memory.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

mod ptxrun;

/// This process's scratch file for the module text.
fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("warpsim-fuzz-ptx-{}.ptx", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    if let Ok(src) = std::str::from_utf8(data) {
        ptxrun::ptx_input(src, scratch());
    }
});
