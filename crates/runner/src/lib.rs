//! Launches a warpsim program over its whole grid, verifies it and reports what it cost.
//!
//! # Brief overview
//!
//! * [`run`]: fills the global buffers ([`warpsim_exec::init_words`]), runs every
//!   block of the grid with [`warpsim_exec::Validated::run_block`] in parallel (rayon, one
//!   [`Stats`] per worker, merged by addition so the totals never depend on the thread count;
//!   if blocks fault, the lowest-numbered one is reported), checks the buffers that have an
//!   `expect` against the CPU reference ([`warpsim_reference::check`]) and builds a
//!   [`Report`].
//! * [`Report`]: Nsight Compute's shared-memory counters (`ld`/`st` wavefronts, bank
//!   conflicts, instructions), per memory instruction and per bank, the verification result
//!   and the emulator's speed. It serializes to JSON ([`Report::to_json`]); the keys are
//!   described in the README ("Running a kernel").
//! * [`Report::to_table`]: the same for a person (comfy-table), with the costliest source
//!   lines and a one-line heat map of the banks.
//! * [`Report::to_svg`]: a chart of the per-bank load and of the banks the hottest shared
//!   instructions' lanes hit.
//! * [`describe`]: a short summary of a loaded program (`warpsim check`).
//! * [`experiment`]: `warpsim sweep` (every combination of bank geometries and define values)
//!   and `warpsim advise` (paddings and swizzles of each shared array).
//! * [`Progress`]: the progress bar of a long run or sweep (drawn on a terminal only).
//! * [`fuzz_limits`]: the small limits the fuzz targets and their corpus replay run programs
//!   under.
//!
//! [`RunOptions::machine`] is the machine (`warpsim-machine`): the GPU the timing model runs
//! and the bank geometry that prices shared accesses, checked when it was resolved.

// Errors are `warpsim_kernel::Diag`s by design (they carry the source snippet); they are rare
// and leave the hot loops, so they are not boxed.
#![allow(clippy::result_large_err)]

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;
use warpsim_exec::{self as exec, Config, Global, Stats};
use warpsim_kernel::{Diag, Phase, Program};
use warpsim_machine::Machine;
use warpsim_smem::Geometry;

mod constant;
pub mod experiment;
pub mod fuzz_limits;
mod progress;
mod race;
mod report;
mod side_by_side;
mod svg;
mod table;
mod tensor_rows;
mod time_report;
mod timed;
pub mod verify_budget;

pub use constant::ConstantTotals;
pub use progress::Progress;
pub use race::{RaceAccess, RaceReport};
pub use report::{
    Defines, Emulator, FirstAccessReport, InstReport, LaunchReport, MemSpace, Report, SharedTotals,
    StallCycles, WarningReport,
};
pub use table::TableStyle;
pub use time_report::LineStalls;
pub use timed::TimingOptions;
pub use warpsim_timing::Timing;

/// How to run a program.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The machine: the GPU the timing model runs and the bank geometry that prices shared
    /// accesses (checked when it was resolved).
    pub machine: Machine,
    /// Most warp instructions one block may execute before it faults as a runaway loop.
    pub max_steps: u64,
    /// Check the buffers that have an `expect` after the run.
    pub verify: bool,
    /// Look for shared-memory races between warps (`--racecheck`; see [`RaceReport`]).
    pub racecheck: bool,
    /// Show a progress bar of the blocks on a terminal when the grid takes over a second
    /// (see [`Progress`]); off for the runs inside sweeps and advice, which count variants.
    pub progress: bool,
    /// The timing model (`None`: `--no-timing`).
    pub timing: Option<TimingOptions>,
    /// Most bytes the run may keep (`--max-memory`): the buffers and the code (checked when
    /// the program was loaded), the timing model's own record, and its traces of the blocks
    /// recorded side by side, half of what the rest leaves for the blocks being recorded and
    /// half for those being replayed; a run that needs more stops with an error.
    pub max_memory: u64,
    /// Price one region of shared memory as if it had another layout (`advise` on CUDA and
    /// PTX kernels; the results are the kernel's own).
    pub relayout: Option<warpsim_smem::Relayout>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            machine: Machine::h200(),
            max_steps: Config::DEFAULT_MAX_STEPS,
            verify: true,
            racecheck: false,
            progress: false,
            timing: Some(TimingOptions::default()),
            max_memory: 4 << 30,
            relayout: None,
        }
    }
}

/// Asks the allocator for the buffers' memory before it is made for real, so that a size the
/// machine cannot give (`--max-memory` raised past it) is a diagnostic, not an abort.
fn reserve_check(prog: &Program) -> Result<(), Diag> {
    for b in &prog.buffers {
        let words = usize::try_from(b.words()).unwrap_or(usize::MAX);
        let mut probe: Vec<u32> = Vec::new();
        if let Err(e) = probe.try_reserve_exact(words) {
            return Err(Diag::file(
                Phase::Runtime,
                &prog.path,
                format!(
                    "cannot allocate the {} bytes of buffer `{}`: {e}",
                    b.bytes(),
                    b.name
                ),
                Some("use smaller defines, or run on a machine with more memory".into()),
            ));
        }
    }
    Ok(())
}

fn xyz(v: [u32; 3]) -> String {
    format!("{}x{}x{}", v[0], v[1], v[2])
}

/// Runs `prog` over its whole grid and reports.
///
/// Errors: a grid too large to count, a fault in any block (the lowest
/// faulting block's, as a [`Phase::Runtime`] diagnostic at its instruction) and a reference
/// that cannot be evaluated ([`Phase::Verify`]). A reference that evaluates but does not
/// match is not an error: it gives `verified: false`.
pub fn run(prog: &Program, opts: &RunOptions) -> Result<Report, Diag> {
    run_io(prog, opts, None)
}

/// [`run`] with the buffers' contents given and taken back: `buffers[k]` holds buffer `k`'s
/// initial words in place of its `init` (a short one is padded with zeros; its length is
/// made [`BufferInfo::words`](warpsim_kernel::BufferInfo::words)), and after a run that did
/// did not fault, its final words (the Python package's NumPy arrays: copied in, written back).
/// On an error the buffers are left as they were given.
pub fn run_with_buffers(
    prog: &Program,
    opts: &RunOptions,
    buffers: &mut [Vec<u32>],
) -> Result<Report, Diag> {
    // (The constant symbols' buffers come last; without words they hold what the module and
    // the launch file's `constants:` put in them.)
    let plain = prog.buffers.iter().filter(|b| b.constant.is_none()).count();
    if buffers.len() != prog.buffers.len() && buffers.len() != plain {
        return Err(Diag::file(
            Phase::Check,
            &prog.path,
            format!(
                "{} buffer contents given for the program's {} buffers",
                buffers.len(),
                prog.buffers.len()
            ),
            Some(format!(
                "give one list of words per buffer, in the program's order (or for its first \
                 {plain}, those that are not constant symbols)"
            )),
        ));
    }
    run_io(prog, opts, Some(buffers))
}

fn run_io(prog: &Program, opts: &RunOptions, io: Option<&mut [Vec<u32>]>) -> Result<Report, Diag> {
    let geom = opts.machine.geometry();
    let [gx, gy, gz] = prog.grid.map(|d| d as u64);
    let blocks = gx
        .checked_mul(gy)
        .and_then(|b| b.checked_mul(gz))
        .ok_or_else(|| {
            Diag::file(
                Phase::Check,
                &prog.path,
                format!("a grid of {} blocks is too large to run", xyz(prog.grid)),
                Some("make the grid smaller (check --define values)".into()),
            )
        })?;
    let cfg = Config {
        geometry: geom,
        max_steps: opts.max_steps,
        racecheck: opts.racecheck,
        relayout: opts.relayout,
    };

    // Initial contents.
    let t_init = Instant::now();
    // Memory: the buffers are filled in place; a reference reads a buffer the program never
    // stores to in place too, after the run, so only a buffer that is both stored to and
    // read by a reference needs a copy of its initial words.
    reserve_check(prog)?;
    let global = Global::new(prog);
    let checking = opts.verify
        && prog
            .buffers
            .iter()
            .any(|b| b.expect.is_some() || b.check.is_some());
    // The references are compiled before anything runs: a mistake in an `expect` is reported
    // at once, not after a long run, and not hidden by a fault of the kernel.
    if checking {
        check_references(prog)?;
    }
    let keep: Vec<bool> = if checking {
        let written = exec::written_buffers(prog);
        warpsim_reference::referenced_buffers(prog)
            .iter()
            .zip(&written)
            .map(|(&r, &w)| r && w)
            .collect()
    } else {
        vec![false; prog.buffers.len()]
    };
    let mut initial = Vec::with_capacity(prog.buffers.len());
    for (k, b) in prog.buffers.iter().enumerate() {
        match (global.buffers.get(k), io.as_deref().and_then(|g| g.get(k))) {
            (Some(_), Some(given)) => global.write(k, given),
            (Some(dst), None) => exec::fill_buffer(b, dst),
            (None, _) => {}
        }
        initial.push(if keep[k] { global.read(k) } else { Vec::new() });
    }
    let init_seconds = t_init.elapsed().as_secs_f64();
    tracing::debug!(blocks, init_seconds, "buffers filled");

    // The grid.
    let t_run = Instant::now();
    // The program is checked once for all blocks (and, as there is nothing to run, not at all
    // for an empty grid).
    let bar = opts
        .progress
        .then(|| progress::Progress::new(&prog.path, blocks, "blocks"));
    // A long block moves the bar too (every few million warp instructions).
    let on_steps = |n| bar.as_ref().map_or((), |b| b.steps(n));
    let validated = match blocks {
        0 => None,
        _ => Some(
            exec::Validated::new(prog, &cfg, &global)
                .map(|v| {
                    if bar.is_some() {
                        v.with_progress(&on_steps)
                    } else {
                        v
                    }
                })
                .map_err(|f| f.into_diag(prog))?,
        ),
    };
    let (stats, fault, timing) = match &opts.timing {
        Some(topt) => timed::grid(
            prog,
            &cfg,
            validated.as_ref(),
            blocks,
            topt,
            opts,
            bar.as_ref(),
        )?,
        None => {
            let (st, f) = grid(prog, &geom, validated.as_ref(), blocks, bar.as_ref());
            (st, f, None)
        }
    };
    let seconds = t_run.elapsed().as_secs_f64();
    if let Some((_, f)) = fault {
        return Err(f.into_diag(prog));
    }
    tracing::debug!(seconds, "grid done");

    // Verification.
    let t_verify = Instant::now();
    let verification = if checking {
        // The final words, taken over without a copy; they are also the initial words of
        // the buffers the program never stores to.
        // (Viewed in place: a copy would take the buffers' memory a second time.)
        let mut global = global;
        let fin: Vec<&[u32]> = global.buffers.iter_mut().map(|w| w.as_plain()).collect();
        if let Some(io) = io {
            for (d, s) in io.iter_mut().zip(&fin) {
                d.clear();
                d.extend_from_slice(s);
            }
        }
        let initial: Vec<&[u32]> = initial
            .iter()
            .zip(&fin)
            .zip(&keep)
            .map(|((copy, &now), &kept)| if kept { &copy[..] } else { now })
            .collect();
        // A total budget over all the elements (verify_budget.rs), each its share.
        let budget = verify_budget::Budget::new(prog, opts.max_steps);
        warpsim_reference::check_slices(prog, &initial, &fin, budget.per_element)
            .map_err(|d| budget.explain(d, opts.max_steps))?
    } else {
        if let Some(io) = io {
            // (The constant symbols' buffers, last, need not be given: nothing writes them.)
            for (d, w) in io.iter_mut().zip(global.into_words()) {
                *d = w;
            }
        }
        Vec::new()
    };
    let verify_seconds = t_verify.elapsed().as_secs_f64();
    let verified = (!verification.is_empty()).then(|| verification.iter().all(|v| v.ok));

    let mut report = report::build(
        prog,
        geom,
        blocks,
        &stats,
        verified,
        verification,
        Emulator {
            warp_instructions: stats.warp_instructions,
            thread_instructions: stats.thread_instructions,
            seconds,
            warp_instructions_per_second: if seconds > 0.0 {
                stats.warp_instructions as f64 / seconds
            } else {
                0.0
            },
            threads: rayon::current_num_threads(),
            init_seconds,
            verify_seconds,
        },
        timing,
    );
    report.relayout = opts.relayout.map(|r| {
        let name = prog
            .shared
            .iter()
            .find(|a| a.base == r.start && a.bytes == r.end - r.start);
        let name = name.map_or_else(
            || format!("bytes {}-{}", r.start, r.end - 1),
            |a| a.name.clone(),
        );
        format!("{name}={}", r.name())
    });
    if opts.racecheck {
        report.races = Some(race::reports(prog, &stats.races));
    }
    Ok(report)
}

/// Runs blocks `0..blocks` in parallel without the timing model: the statistics and the
/// lowest faulting block's fault.
fn grid(
    prog: &Program,
    geom: &Geometry,
    validated: Option<&exec::Validated>,
    blocks: u64,
    bar: Option<&progress::Progress>,
) -> (Stats, Option<(u64, exec::Fault)>) {
    let lowest = AtomicU64::new(u64::MAX);
    let empty = || (Stats::new(prog, geom), None::<(u64, exec::Fault)>);
    (0..blocks)
        .into_par_iter()
        .fold(empty, |(mut st, mut fault), b| {
            // Blocks above a known fault need not run: only the lowest fault is reported.
            let Some(v) = validated.filter(|_| b <= lowest.load(Relaxed)) else {
                return (st, fault);
            };
            let ctaid = ctaid_of(prog, b);
            if let Err(f) = v.run_block(ctaid, &mut st) {
                lowest.fetch_min(b, Relaxed);
                if fault.as_ref().is_none_or(|(fb, _)| b < *fb) {
                    fault = Some((b, f));
                }
            }
            if let Some(bar) = bar {
                bar.tick();
            }
            (st, fault)
        })
        .reduce(empty, |(mut a, fa), (b, fb)| {
            a.merge(&b);
            (a, lowest_fault(fa, fb))
        })
}

/// Block `b`'s index in the grid (`b = x + gx * (y + gy * z)`).
fn ctaid_of(prog: &Program, b: u64) -> [u32; 3] {
    let [gx, gy, _] = prog.grid.map(|d| d as u64);
    [
        (b % gx) as u32,
        ((b / gx) % gy) as u32,
        (b / (gx * gy)) as u32,
    ]
}

/// Of two blocks' faults, the one of the lower block (the one a run reports).
fn lowest_fault(
    a: Option<(u64, exec::Fault)>,
    b: Option<(u64, exec::Fault)>,
) -> Option<(u64, exec::Fault)> {
    match (a, b) {
        (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
        (x, y) => x.or(y),
    }
}

/// Compiles the program's references (`init` aside: `check` and `expect`) without running
/// anything: what `warpsim check` reports, and what [`run`] does before the launch.
pub fn check_references(prog: &Program) -> Result<(), Diag> {
    warpsim_reference::compile_all(prog)
}

/// A short summary of a loaded program: name, launch, buffers, shared arrays with their
/// layout, instructions and registers (`warpsim check`).
pub fn describe(prog: &Program) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "{} ({}): ok", prog.name, prog.path);
    if !prog.defines.is_empty() {
        let d: Vec<String> = prog
            .defines
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let _ = writeln!(o, "  defines: {}", d.join(" "));
    }
    let blocks: u128 = prog.grid.iter().map(|&d| d as u128).product();
    let _ = writeln!(
        o,
        "  launch:  grid {} x block {} = {} blocks of {} threads ({} warps)",
        xyz(prog.grid),
        xyz(prog.block),
        blocks,
        prog.threads_per_block(),
        prog.warps_per_block()
    );
    if let Some(s) = prog.shared_stream {
        let _ = writeln!(
            o,
            "  stream:  {s} shared accesses (README, \"ptxas merging\")"
        );
    }
    let _ = writeln!(o, "  buffers:");
    for b in &prog.buffers {
        let mut extra = format!("{:?}", b.init);
        if let Some(e) = &b.expect {
            let _ = write!(extra, ", expect {}", e.text);
        }
        if let Some(c) = &b.check {
            let _ = write!(extra, ", check {}", c.text);
        }
        let _ = writeln!(
            o,
            "    {:<10} {}[{}]  {} bytes  init {}",
            b.name,
            b.elem,
            b.len,
            b.bytes(),
            extra
        );
    }
    if prog.buffers.is_empty() {
        let _ = writeln!(o, "    (none)");
    }
    let _ = writeln!(o, "  shared:  {} bytes per block", prog.shared_bytes);
    for s in &prog.shared {
        let dims: Vec<String> = s.dims.iter().map(|d| d.to_string()).collect();
        let mut layout = format!("rows of {} elements", s.row_len);
        if s.pad > 0 {
            let _ = write!(layout, ", pad {}", s.pad);
        }
        if s.swizzle > 0 {
            let _ = write!(layout, ", xor swizzle {}", s.swizzle);
        }
        let _ = writeln!(
            o,
            "    {:<10} {}[{}]  at byte {}, {} bytes  ({layout})",
            s.name,
            s.elem,
            dims.join("]["),
            s.base,
            s.bytes
        );
    }
    let mems = prog.code.iter().filter(|i| i.mem().is_some()).count();
    let _ = writeln!(
        o,
        "  code:    {} instructions ({} memory), {} registers per warp",
        prog.code.len(),
        mems,
        prog.nregs
    );
    o
}

#[cfg(test)]
mod tests;
