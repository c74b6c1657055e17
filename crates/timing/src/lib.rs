//! The timing model of warpsim: how many cycles a kernel takes on a GPU, and where its warps
//! wait.
//!
//! # Brief overview
//!
//! The machine it runs is a [`warpsim_machine::Gpu`] (the GPU description, a RON file; the
//! H200 is built in). This crate depends on `warpsim-kernel` (the code) and `warpsim-exec`
//! (whose [`Hook`](warpsim_exec::Hook) the [`Recorder`] is); it never changes a functional
//! result.
//!
//! * `trace`: what the functional executor reports per warp ([`BlockTrace`]: each issued
//!   instruction, with its shared wavefronts or global sectors) and the static facts of each
//!   instruction ([`StaticInst`]: class, registers read and written).
//! * `sim`: the cycle model of every SM: residency, block dispatch, four sub-partitions
//!   issuing one instruction a cycle each, a scoreboard per warp, the shared pipe arbitrating
//!   all warps' wavefronts, L2 and DRAM shared by all SMs, barriers, launch overhead.
//! * `reason`: Nsight Compute's warp states.
//! * [`Model`]: two simulations over the same traces, one as run and one with every shared
//!   access at its conflict-free wavefronts, giving a [`Timing`]; the second starts (as a copy
//!   of the first) only when a block with a bank conflict arrives.
//! * `timeline`: one SM's warps over time as Chrome trace-event JSON ([`chrome_trace`]).
//! * `nvcc`, `swizzle`, `unroll`: what nvcc and ptxas put around, into and out of a
//!   program's code (prologue, address instructions, unrolled loops), given to the recorder.

// `Diag` is large but only on the cold error path.
#![allow(clippy::result_large_err)]

mod ifconv;
mod nvcc;
mod reason;
mod sim;
mod swizzle;
mod timeline;
mod trace;
mod uniform;
mod unroll;

pub use ifconv::if_convert;
pub use reason::{Reason, ALL as REASONS, N_REASONS};
pub use sim::{model_bytes, LaunchShape, Outcome, Sim, Span};
pub use timeline::chrome_trace;
pub use trace::{
    scoreboard_regs, static_code, BlockTrace, Class, Ev, GlobalsOnly, IntPipe, LoopMark, Recorder,
    StaticInst, TraceBudget, WarpTrace,
};
use warpsim_machine::Gpu;

use serde::{Serialize, Serializer};
use std::sync::Arc;

/// Cycles per issued instruction for each warp state, serialized as an object keyed by
/// Nsight's names in its order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stalls(pub [f64; N_REASONS]);

impl Serialize for Stalls {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(REASONS.iter().zip(self.0).map(|(r, v)| (r.name(), v)))
    }
}

impl Stalls {
    /// The value of one reason.
    pub fn get(&self, r: Reason) -> f64 {
        self.0[r as usize]
    }
}

/// What Nsight Compute calls each of the model's warp states (the JSON `stall_names` object):
/// per reason, its Warp State Statistics metric, its Source page column (all samples) and that
/// column's "Not Issued" form (`null` for `selected` and `not_selected`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StallNames;

impl Serialize for StallNames {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Names {
            metric: String,
            source_page: &'static str,
            source_page_not_issued: Option<&'static str>,
        }
        s.collect_map(REASONS.iter().map(|r| {
            let names = Names {
                metric: r.metric(),
                source_page: r.source_page_name(),
                source_page_not_issued: r.not_issued_name(),
            };
            (r.name(), names)
        }))
    }
}

/// The modelled time of a run (the JSON `timing` object).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timing {
    /// The GPU description's name.
    pub gpu: String,
    /// Its clock.
    pub clock_mhz: f64,
    /// Its SMs.
    pub sms: u32,
    /// `gpc__cycles_elapsed.max`: launch to end, in cycles.
    pub elapsed_cycles: u64,
    /// `sm__cycles_active.avg`: cycles an SM had a block resident, averaged over all SMs (an
    /// SM that ran no block counts 0).
    pub sm_active_cycles_avg: f64,
    /// `gpu__time_duration.sum`: elapsed cycles at the clock, nanoseconds.
    pub duration_ns: f64,
    /// `smsp__inst_executed.sum`: warp instructions issued.
    pub issued_warp_instructions: u64,
    /// `smsp__average_warp_latency_per_inst_issued.ratio`: resident warp-cycles per issued
    /// instruction.
    pub warp_cycles_per_issued_instruction: f64,
    /// Per warp state, warp-cycles per issued instruction
    /// (`smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio`).
    pub stalls: Stalls,
    /// Nsight Compute's names of the reasons in `stalls` (a fixed table).
    pub stall_names: StallNames,
    /// Busy cycles of the shared pipes over active cycles of their SMs.
    pub shared_pipe_utilization: f64,
    /// Elapsed cycles minus those of the same events with every shared access at its
    /// conflict-free wavefronts.
    pub conflict_cost_cycles: i64,
    /// Sampled timing (`--sample K`, by default for grids of 8 waves or more): one SM in `K`
    /// simulated, for one block in `K` ([`Gpu::sampled`], [`Timing::for_grid`]); absent (1)
    /// when every block was.
    #[serde(skip_serializing_if = "is_one")]
    pub sampled: u32,
    /// What the report shows besides (not in the JSON object).
    #[serde(skip)]
    pub detail: Detail,
}

fn is_one(k: &u32) -> bool {
    *k == 1
}

impl Timing {
    /// The timing of the whole grid from a sampled run's ([`Gpu::sampled`] with `k`) on a GPU
    /// of `sms` SMs: what counts instructions or warp-cycles (the issued instructions, in all
    /// and per instruction, and the stall cycles) times `f`, the grid's blocks over those
    /// simulated; the cycles, the SM average and the ratios stand as simulated.
    pub fn for_grid(mut self, k: u32, sms: u32, f: f64) -> Timing {
        let scale = |v: &mut u64| *v = (*v as f64 * f).round() as u64;
        scale(&mut self.issued_warp_instructions);
        self.detail.cycles.iter_mut().for_each(scale);
        self.detail.per_pc.iter_mut().flatten().for_each(scale);
        self.detail.issued_pc.iter_mut().for_each(scale);
        scale(&mut self.detail.shared_stall_cycles);
        self.sms = sms;
        self.sampled = k;
        self
    }
}

/// Totals behind [`Timing`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detail {
    /// Warp-cycles per state.
    pub cycles: [u64; N_REASONS],
    /// Warp-cycles per state per pc.
    pub per_pc: Vec<[u64; N_REASONS]>,
    /// Issued instructions per pc.
    pub issued_pc: Vec<u64>,
    /// Elapsed cycles of the conflict-free pass.
    pub ideal_elapsed_cycles: u64,
    /// Warp-cycles stalled on the shared pipe: `mio_throttle + short_scoreboard`.
    pub shared_stall_cycles: u64,
    /// Active cycles of each SM.
    pub sm_active: Vec<u64>,
    /// The timeline of one SM, if asked for.
    pub timeline: Vec<Span>,
    /// Registers per thread the residency was computed with (set by the caller).
    pub regs_per_thread: u32,
}

/// The two simulations (as run, and conflict-free) over one stream of block traces.
///
/// While every shared access fed so far is conflict-free the two would be the same
/// simulation, so only one runs; the conflict-free pass starts as a copy of it just before the
/// first block with a conflict.
pub struct Model<'a> {
    gpu: &'a Gpu,
    code: &'a [StaticInst],
    real: Sim<'a>,
    /// The conflict-free pass, once it differs from the one as run.
    ideal: Option<Sim<'a>>,
}

impl<'a> Model<'a> {
    /// A model of `launch` on `gpu`; `timeline_sm`: keep that SM's timeline (of the run as
    /// is). Errors: a block that can never be resident.
    pub fn new(
        gpu: &'a Gpu,
        code: &'a [StaticInst],
        launch: LaunchShape,
        timeline_sm: Option<u32>,
    ) -> Result<Self, String> {
        Ok(Model {
            gpu,
            code,
            real: Sim::new(gpu, code, launch, false, timeline_sm)?,
            ideal: None,
        })
    }

    /// The next block's trace (grid order).
    pub fn feed(&mut self, block: BlockTrace) {
        if self.ideal.is_none() && conflicted(self.code, &block) {
            self.ideal = Some(self.real.conflict_free_copy());
        }
        let b = Arc::new(block);
        if let Some(ideal) = &mut self.ideal {
            ideal.feed(b.clone());
        }
        self.real.feed(b);
    }

    /// Simulates as far as the traces fed allow (both passes side by side), dropping the
    /// traces of blocks that have finished.
    pub fn advance(&mut self) {
        match &mut self.ideal {
            Some(ideal) => {
                let real = &mut self.real;
                rayon::join(|| real.advance(), || ideal.advance());
            }
            None => self.real.advance(),
        }
    }

    /// Blocks fed but not yet started by both passes.
    pub fn pending(&self) -> usize {
        let ideal = self.ideal.as_ref().map_or(0, Sim::pending);
        self.real.pending().max(ideal)
    }

    /// Runs to the end.
    pub fn finish(self) -> Timing {
        match self.ideal {
            Some(ideal) => {
                let (real, ideal) = rayon::join(|| self.real.finish(), || ideal.finish());
                timing(self.gpu, fold(self.code, real), &ideal)
            }
            None => {
                let real = fold(self.code, self.real.finish());
                let ideal = Outcome {
                    end: real.end,
                    issued: real.issued,
                    ..Outcome::default()
                };
                timing(self.gpu, real, &ideal)
            }
        }
    }
}

/// Moves the counts of the address instructions appended to the code (`StaticInst::serves`)
/// to the accesses they serve, and drops their pcs: the report knows the program's pcs only.
fn fold(code: &[StaticInst], mut o: Outcome) -> Outcome {
    let n = code
        .iter()
        .position(|s| s.serves.is_some())
        .unwrap_or(code.len());
    for (q, s) in code.iter().enumerate().skip(n) {
        let Some(pc) = s.serves.map(|p| p as usize) else {
            continue;
        };
        if let (Some(&c), Some(&i)) = (o.per_pc.get(q), o.issued_pc.get(q)) {
            if let Some(to) = o.per_pc.get_mut(pc) {
                for (a, b) in to.iter_mut().zip(c) {
                    *a += b;
                }
            }
            if let Some(to) = o.issued_pc.get_mut(pc) {
                *to += i;
            }
        }
    }
    o.per_pc.truncate(n);
    o.issued_pc.truncate(n);
    o
}

/// Whether a shared access of `block` has a bank conflict (more wavefronts than without).
fn conflicted(code: &[StaticInst], block: &BlockTrace) -> bool {
    block.warps.iter().any(|w| {
        w.ev.iter().any(|e| {
            e.a != e.b
                && code
                    .get(e.pc as usize)
                    .is_some_and(|c| matches!(c.class, Class::SharedLd | Class::SharedSt))
        })
    })
}

fn timing(gpu: &Gpu, o: Outcome, ideal: &Outcome) -> Timing {
    let over = gpu.launch.overhead_cycles as u64;
    let elapsed = if o.issued == 0 && o.end == 0 {
        0
    } else {
        o.end + over
    };
    let ideal_elapsed = if ideal.issued == 0 && ideal.end == 0 {
        0
    } else {
        ideal.end + over
    };
    let issued = o.issued.max(1) as f64;
    let total: u64 = o.cycles.iter().sum();
    let mut stalls = [0.0; N_REASONS];
    for (s, &c) in stalls.iter_mut().zip(&o.cycles) {
        *s = if o.issued == 0 {
            0.0
        } else {
            c as f64 / issued
        };
    }
    let active: u64 = o.sm_active.iter().sum();
    Timing {
        gpu: gpu.name.clone(),
        clock_mhz: gpu.clock_mhz,
        sms: gpu.sms,
        elapsed_cycles: elapsed,
        sm_active_cycles_avg: active as f64 / gpu.sms.max(1) as f64,
        duration_ns: elapsed as f64 * 1000.0 / gpu.clock_mhz,
        issued_warp_instructions: o.issued,
        warp_cycles_per_issued_instruction: if o.issued == 0 {
            0.0
        } else {
            total as f64 / issued
        },
        stalls: Stalls(stalls),
        stall_names: StallNames,
        shared_pipe_utilization: if active == 0 {
            0.0
        } else {
            o.pipe_busy as f64 / active as f64
        },
        conflict_cost_cycles: elapsed as i64 - ideal_elapsed as i64,
        sampled: 1,
        detail: Detail {
            cycles: o.cycles,
            shared_stall_cycles: o.cycles[Reason::MioThrottle as usize]
                + o.cycles[Reason::ShortScoreboard as usize],
            per_pc: o.per_pc,
            issued_pc: o.issued_pc,
            ideal_elapsed_cycles: ideal_elapsed,
            sm_active: o.sm_active,
            timeline: o.timeline,
            regs_per_thread: 0,
        },
    }
}

#[cfg(test)]
mod tests;
