//! Running the grid with the timing model: blocks run in parallel in chunks of grid order,
//! each recording its warps' issued instructions ([`warpsim_timing::Recorder`]); the chunk's
//! traces are fed to the model in block order (while the next chunk runs) and dropped once
//! their blocks have finished, so memory holds about two chunks of traces at a time whatever
//! the grid's size.

use crate::progress::Progress;
use rayon::prelude::*;
use warpsim_interp::exec::{self, Config, Fault, Stats};
use warpsim_interp::{Diag, Phase, Program};
use warpsim_timing::{
    scoreboard_regs, static_code, BlockTrace, GlobalsOnly, Gpu, Launch, Model, Recorder, Timing,
};

/// What the timing model runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingOptions {
    /// The GPU.
    pub gpu: Gpu,
    /// Registers per thread: overrides the program's `regs_per_thread` (`--regs`).
    pub regs_per_thread: Option<u32>,
    /// Keep SM 0's timeline (for `--timeline`).
    pub timeline: bool,
    /// Simulate one SM in this many, and one block in this many, standing for the next ones
    /// (`--sample`; 1: all; it divides the GPU's SMs). `None`: as [`Gpu::auto_sample`] says
    /// for the launch (large grids sampled, others not).
    pub sample: Option<u32>,
}

impl Default for TimingOptions {
    fn default() -> Self {
        TimingOptions {
            gpu: Gpu::h200(),
            regs_per_thread: None,
            timeline: false,
            sample: None,
        }
    }
}

impl TimingOptions {
    /// Registers per thread in force for `prog`: `--regs`, else the program's, else the GPU's
    /// default.
    pub fn regs(&self, prog: &Program) -> u32 {
        self.regs_per_thread
            .or(prog.regs_per_thread)
            .unwrap_or(self.gpu.default_regs_per_thread)
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

/// Sampled timing: of a chunk's traces (in block order, whole runs of `k` but for the grid's
/// last), those of the simulated blocks (every `k`-th), each given the global accesses of the
/// `k - 1` blocks after it, which it stands for ([`BlockTrace::take_shadows`]). In the whole
/// GPU those are dispatched right after it, so they run at about its time.
fn with_shadows(
    traces: Vec<(u64, BlockTrace)>,
    k: u32,
    code: &[warpsim_timing::StaticInst],
) -> Vec<(u64, BlockTrace)> {
    let mut sets: Vec<((u64, BlockTrace), Vec<BlockTrace>)> = Vec::new();
    for (b, t) in traces {
        if b.is_multiple_of(k as u64) {
            sets.push(((b, t), Vec::new()));
        } else if let Some((_, shadows)) = sets.last_mut() {
            // (The chunk holds every block of its range, in order, from a simulated one.)
            shadows.push(t);
        }
    }
    sets.into_par_iter()
        .map(|((b, mut t), shadows)| {
            t.take_shadows(&shadows, code);
            (b, t)
        })
        .collect()
}

/// What [`grid`] gives: the statistics, the lowest faulting block's fault, the timing.
pub(crate) type Grid = (Stats, Option<(u64, Fault)>, Option<Timing>);

/// Runs blocks `0..blocks` of `prog` with the timing model. Returns the statistics, the
/// lowest faulting block's fault (the model's result is then meaningless and not returned),
/// and the timing.
pub(crate) fn grid(
    prog: &Program,
    cfg: &Config,
    verified: Option<&exec::Verified>,
    blocks: u64,
    topt: &TimingOptions,
    bar: Option<&Progress>,
) -> Result<Grid, Diag> {
    let regs = topt.regs(prog);
    let threads = prog.threads_per_block();
    let k = topt
        .sample
        .unwrap_or_else(|| {
            let per_sm = topt.gpu.blocks_per_sm(threads, regs, prog.shared_bytes);
            topt.gpu.auto_sample(blocks, per_sm)
        })
        .max(1);
    let sgpu = topt.gpu.sampled(k);
    let gpu = &sgpu;
    let nsampled = simulated_blocks(blocks, k);
    let code = static_code(prog);
    let launch = Launch {
        blocks: nsampled,
        threads,
        shared_bytes: prog.shared_bytes,
        regs_per_thread: regs,
        nregs: scoreboard_regs(&code, prog.nregs),
        buffer_bytes: prog.buffers.iter().map(|b| b.words() * 4).collect(),
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
    let mut stats = Stats::new(prog, &cfg.geometry);
    // Sampled timing: whole runs of a simulated block and those it stands for in a chunk.
    let chunk = chunk_blocks(&topt.gpu).div_ceil(k as u64) * k as u64;
    // Chunk k runs on the executor while the model replays chunk k - 1.
    let mut fed: Vec<(u64, BlockTrace)> = Vec::new();
    let mut first = 0u64;
    while first < blocks {
        // (`verified` is `None` only for an empty grid, which never gets here.)
        let Some(v) = verified else { break };
        let last = (first + chunk).min(blocks);
        type Acc = (Stats, Vec<(u64, BlockTrace)>, Option<(u64, Fault)>);
        let empty = || -> Acc { (Stats::new(prog, &cfg.geometry), Vec::new(), None) };
        let run_chunk = || {
            (first..last)
                .into_par_iter()
                // One recorder for a worker's run of blocks: each block's trace starts with the
                // room the last one took (a second one for the blocks sampled timing does not
                // simulate, which record their global accesses only).
                .fold(
                    || {
                        let r = || Recorder::new(&code, sb, threads);
                        (empty(), (r(), r()))
                    },
                    |((mut st, mut tr, mut fault), (mut rec, mut light)), b| {
                        if fault.is_some() {
                            return ((st, tr, fault), (rec, light));
                        }
                        let ctaid = crate::ctaid_of(prog, b);
                        let r = if b.is_multiple_of(k as u64) {
                            rec.reset(threads);
                            v.run_block_with(ctaid, &mut st, &mut rec)
                                .map(|()| rec.take())
                        } else {
                            light.reset(threads);
                            v.run_block_with(ctaid, &mut st, &mut GlobalsOnly(&mut light))
                                .map(|()| light.take())
                        };
                        match r {
                            Ok(t) => tr.push((b, t)),
                            Err(f) => fault = Some((b, f)),
                        }
                        if let Some(bar) = bar {
                            bar.tick();
                        }
                        ((st, tr, fault), (rec, light))
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
        fed = traces;
        fed.sort_unstable_by_key(|(b, _)| *b);
        if k > 1 {
            fed = with_shadows(fed, k, &code);
        }
        first = last;
    }
    for (_, t) in fed {
        model.feed(t);
    }
    let mut timing = model.finish();
    if k > 1 {
        timing = timing.for_grid(k, topt.gpu.sms, blocks as f64 / nsampled.max(1) as f64);
    }
    timing.detail.regs_per_thread = regs;
    Ok((stats, None, Some(timing)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_simulated_block_stands_for_the_next_k_minus_1() {
        use warpsim_timing::{Class, Ev, StaticInst, WarpTrace};
        assert_eq!(simulated_blocks(1000, 1), 1000);
        assert_eq!(simulated_blocks(784, 4), 196);
        assert_eq!(simulated_blocks(10, 4), 3);
        // One warp loading one sector: block b's is sector b.
        let code = [StaticInst::new(Class::GlobalLd, None, &[])];
        let block = |b: u64| BlockTrace {
            threads: 32,
            warps: vec![WarpTrace {
                ev: vec![Ev {
                    pc: 0,
                    a: 1,
                    b: 0,
                    s: 0,
                }],
                sectors: vec![b],
            }],
        };
        // Blocks 8..18 of a grid of 18, k = 4: 8 stands for 9-11, 12 for 13-15, 16 for 17.
        let traces: Vec<(u64, BlockTrace)> = (8..18).map(|b| (b, block(b))).collect();
        let kept = with_shadows(traces, 4, &code);
        let m = warpsim_timing::sim::SHADOW;
        let got: Vec<(u64, Vec<u64>)> = kept
            .into_iter()
            .map(|(b, t)| (b, t.warps[0].sectors.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (8, vec![8, m, 9, m, 10, m, 11]),
                (12, vec![12, m, 13, m, 14, m, 15]),
                (16, vec![16, m, 17]),
            ]
        );
    }
}
