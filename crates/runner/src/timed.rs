//! Running the grid with the timing model: blocks run in parallel in chunks of grid order,
//! each recording its warps' issued instructions ([`warpsim_timing::Recorder`]); the chunk's
//! traces are fed to the model in block order (while the next chunk runs) and dropped once
//! their blocks have finished, so memory holds about two chunks of traces at a time whatever
//! the grid's size.

use crate::progress::Progress;
use rayon::prelude::*;
use std::ops::Range;
use warpsim_exec::{self as exec, Config, Fault, Stats};
use warpsim_kernel::{BufferInfo, Diag, Phase, Program};
use warpsim_machine::Gpu;
use warpsim_timing::{
    scoreboard_regs, static_code, BlockTrace, GlobalsOnly, LaunchShape, Model, Recorder, Timing,
    TraceBudget,
};

/// What the timing model runs with besides the machine ([`RunOptions::machine`](crate::RunOptions::machine)).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimingOptions {
    /// Registers per thread: overrides the program's `regs_per_thread` (`--regs`).
    pub regs_per_thread: Option<u32>,
    /// Keep SM 0's timeline (for `--timeline`).
    pub timeline: bool,
    /// Simulate one SM in this many, and one block in this many, standing for the next ones
    /// (`--sample`; 1: all; it divides the GPU's SMs). `None`: as [`Gpu::auto_sample`] says
    /// for the launch (large grids sampled, others not).
    pub sample: Option<u32>,
}

impl TimingOptions {
    /// Registers per thread in force for `prog` on `gpu`: `--regs`, else the program's, else
    /// the GPU's default.
    pub fn regs(&self, prog: &Program, gpu: &Gpu) -> u32 {
        self.regs_per_thread
            .or(prog.regs_per_thread)
            .unwrap_or(gpu.default_regs_per_thread)
    }
}

/// Blocks per chunk: enough to keep every SM fed (several waves) and the workers busy.
fn chunk_blocks(gpu: &Gpu) -> u64 {
    (gpu.sms as u64 * 8).max(256)
}

/// Blocks of a grid of `blocks` that sampled timing with `k` simulates: every `k`-th.
fn simulated_blocks(blocks: u64, k: u32) -> u64 {
    blocks.div_ceil(k.max(1) as u64)
}

/// Sampled timing: the blocks of a chunk `first..last` (`first` a multiple of `k`) in runs of
/// `k`: each run's first block, which the model simulates, and those after it that it stands
/// for (fewer for the chunk's last run if the grid ends there).
fn runs(first: u64, last: u64, k: u32) -> impl ParallelIterator<Item = (u64, Range<u64>)> {
    let k = k.max(1) as u64;
    (first / k..last.div_ceil(k))
        .into_par_iter()
        .map(move |g| (g * k, g * k + 1..(g * k + k).min(last)))
}

/// Counts a block run on the progress bar.
fn tick(bar: Option<&Progress>) {
    if let Some(bar) = bar {
        bar.tick();
    }
}

/// What [`grid`] gives: the statistics, the lowest faulting block's fault, the timing.
pub(crate) type Grid = (Stats, Option<(u64, Fault)>, Option<Timing>);

/// Runs blocks `0..blocks` of `prog` with the timing model. Returns the statistics, the
/// lowest faulting block's fault (the model's result is then meaningless and not returned),
/// and the timing.
pub(crate) fn grid(
    prog: &Program,
    cfg: &Config,
    validated: Option<&exec::Validated>,
    blocks: u64,
    topt: &TimingOptions,
    opts: &crate::RunOptions,
    bar: Option<&Progress>,
) -> Result<Grid, Diag> {
    let (full, max_memory) = (opts.machine.gpu(), opts.max_memory);
    let regs = topt.regs(prog, full);
    let threads = prog.threads_per_block();
    let k = topt
        .sample
        .unwrap_or_else(|| {
            let per_sm = full.blocks_per_sm(threads, regs, prog.shared_bytes);
            full.auto_sample(blocks, per_sm)
        })
        .max(1);
    let sgpu = full.sampled(k);
    let gpu = &sgpu;
    let nsampled = simulated_blocks(blocks, k);
    let mut code = static_code(prog);
    warpsim_timing::if_convert(prog, &mut code, gpu.compiler.if_convert);
    let launch = LaunchShape {
        blocks: nsampled,
        threads,
        shared_bytes: prog.shared_bytes,
        regs_per_thread: regs,
        nregs: scoreboard_regs(&code, prog.nregs),
        buffer_bytes: prog.buffers.iter().map(BufferInfo::bytes).collect(),
    };
    let mut model = Model::new(gpu, &code, launch, topt.timeline.then_some(0)).map_err(|m| {
        Diag::file(
            Phase::Check,
            &prog.path,
            format!("timing model: {m}"),
            Some(
                "use fewer threads or less shared memory per block, lower --regs, or run with \
                 --no-timing"
                    .into(),
            ),
        )
    })?;
    let sb = gpu.global.sector_bytes;
    // What the traces may keep: half of what the program, its buffers and the model's own record leave
    // (one chunk is recorded while the one before it is replayed).
    let kept = crate::side_by_side::resident_bytes(prog, opts);
    if kept > max_memory {
        return Err(Diag::file(
            Phase::Check,
            &prog.path,
            format!(
                "timing model: the program, its buffers and the model's record take {:.1} MiB, \
                 more than --max-memory {:.1} MiB",
                mib(kept),
                mib(max_memory)
            ),
            Some("raise --max-memory, or run with --no-timing".into()),
        ));
    }
    let budget = TraceBudget::new(max_memory.saturating_sub(kept) / 2);
    let mut stats = Stats::new(prog, &cfg.geometry);
    // Sampled timing: whole runs of a simulated block and those it stands for in a chunk.
    let chunk = chunk_blocks(full).div_ceil(k as u64) * k as u64;
    // Chunk k runs on the executor while the model replays chunk k - 1.
    let mut fed: Vec<(u64, BlockTrace)> = Vec::new();
    let mut first = 0u64;
    while first < blocks {
        // (`validated` is `None` only for an empty grid, which never gets here.)
        let Some(v) = validated else { break };
        let last = (first + chunk).min(blocks);
        type Acc = (Stats, Vec<(u64, BlockTrace)>, Option<(u64, Fault)>);
        let empty = || -> Acc { (Stats::new(prog, &cfg.geometry), Vec::new(), None) };
        let run_chunk = || {
            runs(first, last, k)
                // One recorder for a worker's simulated blocks: each block's trace starts with
                // the room the last one took; and one for each block sampled timing does not
                // simulate of a run, which record their global accesses only, kept until the
                // simulated block has taken them (BlockTrace::take_shadows) and then reused.
                .fold(
                    || {
                        let rec = Recorder::new(&code, sb, threads).with_budget(&budget);
                        (empty(), (rec, Vec::new()))
                    },
                    |((mut st, mut tr, mut fault), (mut rec, mut lights)), (lead, others)| {
                        if fault.is_some() {
                            return ((st, tr, fault), (rec, lights));
                        }
                        let shadows = (others.end - others.start) as usize;
                        if lights.len() < shadows {
                            lights.resize_with(shadows, || {
                                Recorder::new(&code, sb, threads).with_budget(&budget)
                            });
                        }
                        let lit = &mut lights;
                        let run = || -> Result<BlockTrace, (u64, Fault)> {
                            rec.reset(threads);
                            v.run_block_with(crate::ctaid_of(prog, lead), &mut st, &mut rec)
                                .map_err(|f| (lead, f))?;
                            tick(bar);
                            let mut t = rec.take();
                            for (b, light) in others.zip(lit.iter_mut()) {
                                light.reset(threads);
                                let ctaid = crate::ctaid_of(prog, b);
                                v.run_block_with(ctaid, &mut st, &mut GlobalsOnly(light))
                                    .map_err(|f| (b, f))?;
                                light.finish();
                                tick(bar);
                            }
                            if shadows > 0 {
                                let blocks: Vec<&BlockTrace> =
                                    lit[..shadows].iter().map(|l| &l.block).collect();
                                t.take_shadows(&blocks, &code);
                            }
                            Ok(t)
                        };
                        match run() {
                            Ok(t) => tr.push((lead, t)),
                            Err(f) => fault = Some(f),
                        }
                        ((st, tr, fault), (rec, lights))
                    },
                )
                .map(|(acc, _)| acc)
                .reduce(empty, |(mut a, mut ta, fa), (b, tb, fb)| {
                    a.merge(&b);
                    ta.extend(tb);
                    (a, ta, crate::lowest_fault(fa, fb))
                })
        };
        let previous = std::mem::take(&mut fed);
        let model = &mut model;
        let ((st, traces, fault), ()) = rayon::join(run_chunk, move || {
            for (_, t) in previous {
                model.feed(t);
            }
            model.advance();
        });
        stats.merge(&st);
        if fault.is_some() {
            return Ok((stats, fault, None));
        }
        if budget.over() {
            return Err(over_budget(prog, first, last, &budget, max_memory, kept));
        }
        budget.clear();
        fed = traces;
        fed.sort_unstable_by_key(|(b, _)| *b);
        first = last;
    }
    for (_, t) in fed {
        model.feed(t);
    }
    let mut timing = model.finish();
    if k > 1 {
        timing = timing.for_grid(k, full.sms, blocks as f64 / nsampled.max(1) as f64);
    }
    timing.detail.regs_per_thread = regs;
    Ok((stats, None, Some(timing)))
}

/// `b` bytes in MiB, for messages.
fn mib(b: u64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

/// The error of a chunk of blocks whose traces would keep more than the budget.
fn over_budget(
    prog: &Program,
    first: u64,
    last: u64,
    budget: &TraceBudget,
    max_memory: u64,
    kept: u64,
) -> Diag {
    Diag::file(
        Phase::Runtime,
        &prog.path,
        format!(
            "timing model: the traces of blocks {first}..{} would keep more than {:.1} MiB \
             (--max-memory {:.1} MiB, less {:.1} MiB of the program, its buffers and the model's \
             record, half for the blocks being recorded)",
            last - 1,
            mib(budget.limit()),
            mib(max_memory),
            mib(kept)
        ),
        Some(
            "raise --max-memory, time fewer blocks (--sample N), or run with --no-timing; a \
             block that never ends is stopped by --max-steps"
                .into(),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_simulated_block_stands_for_the_next_k_minus_1() {
        assert_eq!(simulated_blocks(1000, 1), 1000);
        assert_eq!(simulated_blocks(784, 4), 196);
        assert_eq!(simulated_blocks(10, 4), 3);
        let got = |first, last, k| {
            let mut v: Vec<(u64, Range<u64>)> = runs(first, last, k).collect();
            v.sort_by_key(|r| r.0);
            v
        };
        // Blocks 8..18 of a grid of 18, k = 4: 8 stands for 9-11, 12 for 13-15, 16 for 17.
        assert_eq!(got(8, 18, 4), vec![(8, 9..12), (12, 13..16), (16, 17..18)]);
        // Every block simulated.
        assert_eq!(got(3, 6, 1), vec![(3, 4..4), (4, 5..5), (5, 6..6)]);
        // Every block of a grid is in one run.
        for (blocks, k, chunk) in [(18, 4, 8), (132, 12, 24), (7, 3, 3)] {
            let mut seen = Vec::new();
            for first in (0..blocks).step_by(chunk) {
                for (lead, others) in got(first, (first + chunk as u64).min(blocks), k) {
                    assert!(lead.is_multiple_of(k as u64));
                    seen.push(lead);
                    seen.extend(others);
                }
            }
            assert_eq!(seen, (0..blocks).collect::<Vec<_>>());
        }
    }
}
