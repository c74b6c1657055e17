//! Fuzzes load + run: any text must load and run to a report or give an error — never panic,
//! hang or exhaust memory. Small limits keep every input to milliseconds: 20 000 warp
//! instructions per block (and sum terms per reference element), 64 KiB of buffers, at most
//! 64 blocks and 2048 threads in the whole grid. Race checking is on; the bank geometry
//! varies with the input's length; the report is rendered as JSON, tables and SVG.
//!
//! The PTX front end is installed, and the program is named as if it were at the repository's
//! root, so a `ptx:` launch of `tests/fixtures/ptx/flow.ptx` (say) finds its file.
//!
//! The limits are `warpsim_runner::fuzz_limits`'s; tests/fuzz_corpus.rs replays the corpus with them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warpsim_runner::fuzz_limits;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let _ = fuzz_limits::load_and_run(concat!(env!("CARGO_MANIFEST_DIR"), "/../fuzz.ron"), src);
});
