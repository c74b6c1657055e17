//! Small limits under which any program text loads and runs in milliseconds, and every report
//! format is rendered: what the fuzz targets (`fuzz/fuzz_targets/run.rs`, `gen.rs`) and the
//! corpus replay (`tests/fuzz_corpus.rs`) do with one input, kept in one place so that the
//! replay runs each input exactly as the fuzzer did.

use crate::{run, Report, RunOptions, TableStyle};
use warpsim_kernel::{Diag, Program};
use warpsim_lang::Options;
use warpsim_machine::Machine;

/// Bank geometries to try: the H200's, and others the model supports.
const GEOMETRIES: [(u32, u32); 6] = [(32, 4), (16, 4), (64, 4), (32, 8), (3, 4), (1024, 64)];

/// Loader options: at most 64 KiB of buffers.
pub fn load_options() -> Options {
    Options {
        max_buffer_bytes: 64 << 10,
        ..Options::default()
    }
}

/// Whether the launch is small enough: at most 64 blocks and 2048 threads in the grid.
pub fn small_launch(prog: &Program) -> bool {
    let threads = prog
        .blocks()
        .saturating_mul(prog.threads_per_block() as u64);
    threads <= 2048 && prog.blocks() <= 64
}

/// Run options for a program text of `len` bytes: 20 000 warp instructions per block (and
/// sum terms per reference element), race checking on, the bank geometry chosen by the
/// length.
pub fn run_options(len: usize) -> RunOptions {
    let (banks, bank_bytes) = GEOMETRIES[len % GEOMETRIES.len()];
    RunOptions {
        // Every geometry listed is valid; the H200's stands in should one not be.
        machine: Machine::h200()
            .with_geometry(banks, bank_bytes)
            .unwrap_or_else(|_| Machine::h200()),
        max_steps: 20_000,
        racecheck: true,
        ..RunOptions::default()
    }
}

/// Renders the report every way it can be (JSON, both tables, SVG), for the fuzzers.
pub fn render(report: &Report) {
    let _ = report.to_json();
    let _ = report.to_table(TableStyle { unicode: true });
    let _ = report.to_table(TableStyle { unicode: false });
    let _ = report.to_svg();
}

/// Loads `src` and, if its launch is small, runs it and renders the report. `None` when the
/// loader refuses it or the launch is too large.
pub fn load_and_run(name: &str, src: &str) -> Option<Result<Report, Diag>> {
    let prog = warpsim_lang::load_str(name, src, &load_options()).ok()?;
    if !small_launch(&prog) {
        return None;
    }
    let res = run(&prog, &run_options(src.len()));
    match &res {
        Ok(report) => render(report),
        Err(d) => assert_not_a_bug(d),
    }
    Some(res)
}

/// Panics (a finding for the fuzzer) if a user's input reached a diagnostic meant only for
/// warpsim's own bugs: one whose help is [`warpsim_exec::LOADER_BUG`] (a program the loader
/// lowered inconsistently). The help is compared whole, never searched: a message may quote
/// the user's text, which may say anything.
pub fn assert_not_a_bug(d: &Diag) {
    assert!(
        d.help.as_deref() != Some(warpsim_exec::LOADER_BUG),
        "a user's input reached an internal-bug message: {}: {}",
        d.location,
        d.message
    );
}
