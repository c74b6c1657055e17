//! Fuzzes load + run: any text must load and run to a report or give an error — never panic,
//! hang or exhaust memory. Small limits keep every input to milliseconds: 20 000 warp
//! instructions per block, 64 KiB of buffers, at most 2048 threads in the whole grid.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warpsim_interp::{load_str, Options};
use warpsim_runner::{run, RunOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let opts = Options {
        max_buffer_bytes: 64 << 10,
        ..Options::default()
    };
    let Ok(prog) = load_str("fuzz.ron", src, &opts) else {
        return;
    };
    // Skip launches too large to run in milliseconds.
    let threads = prog
        .blocks()
        .saturating_mul(prog.threads_per_block() as u64);
    if threads > 2048 || prog.blocks() > 64 {
        return;
    }
    let ropts = RunOptions {
        max_steps: 20_000,
        racecheck: true,
        ..RunOptions::default()
    };
    if let Ok(report) = run(&prog, &ropts) {
        let _ = report.to_json();
    }
});
