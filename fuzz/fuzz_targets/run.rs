//! Fuzzes load + run: any text must load and run to a report or give an error — never panic,
//! hang or exhaust memory. Small limits keep every input to milliseconds: 20 000 warp
//! instructions per block (and sum terms per reference element), 64 KiB of buffers, at most
//! 64 blocks and 2048 threads in the whole grid. Race checking is on; the bank geometry
//! varies with the input's length; the report is rendered as JSON, tables and SVG.
//!
//! tests/fuzz_corpus.rs replays the corpus the same way.
#![no_main]
use libfuzzer_sys::fuzz_target;
use warpsim_interp::{load_str, Options};
use warpsim_runner::{run, RunOptions, TableStyle};
use warpsim_smem::Geometry;

/// Bank geometries to try: the H200's, and others the model supports.
const GEOMETRIES: [(u32, u32); 6] = [(32, 4), (16, 4), (64, 4), (32, 8), (3, 4), (1024, 64)];

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
    let (banks, bank_bytes) = GEOMETRIES[src.len() % GEOMETRIES.len()];
    let ropts = RunOptions {
        geometry: Geometry { banks, bank_bytes },
        max_steps: 20_000,
        racecheck: true,
        ..RunOptions::default()
    };
    if let Ok(report) = run(&prog, &ropts) {
        let _ = report.to_json();
        let _ = report.to_table(TableStyle { unicode: true });
        let _ = report.to_table(TableStyle { unicode: false });
        let _ = report.to_svg();
    }
});
