//! The cycle model: every SM of the GPU, its resident blocks and warps, its sub-partitions'
//! schedulers and its shared-memory pipe, global memory (L2 and DRAM) shared by all SMs, and
//! the block dispatcher.
//!
//! Time advances from event to event: an SM is visited only at cycles where one of its warps
//! may issue, retire or change state, and SMs are visited in order of time (then SM number),
//! so the result is deterministic. Each warp carries one `(reason, since, ready)`: until
//! `ready` it is in state `reason`, and the cycles are booked when the state changes, so a
//! warp costs nothing in the cycles it merely waits.
//!
//! This file holds the state and the block dispatcher; [`cycle`] visits an SM at one cycle
//! (issue, retire, barriers), [`queue`] holds its memory queue (the sub-partitions' own queues
//! feeding an in-order stage in turn) and [`pick`] chooses a warp's next instruction.

use crate::reason::{Cycles, Reason, N_REASONS};
use crate::trace::{BlockTrace, Class, Ev, IntPipe, StaticInst};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use warpsim_machine::Gpu;

mod cycle;
mod dram;
mod global;
mod land;
mod order;
mod pick;
mod queue;
mod sched;
mod window;
pub use global::SHADOW;

use cycle::step;

const NEVER: u64 = u64::MAX;
const NONE: u32 = u32::MAX;

/// What the model needs to know about the launch besides the traces.
#[derive(Clone, Debug)]
pub struct LaunchShape {
    /// Blocks in the grid.
    pub blocks: u64,
    /// Threads per block.
    pub threads: u32,
    /// Shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Registers per warp in the program (scoreboard size).
    pub nregs: usize,
    /// Bytes of each global buffer (for the L2's record of sectors seen).
    pub buffer_bytes: Vec<u64>,
}

/// What the model keeps whatever the traces, in bytes, for buffers of `buffer_bytes` and
/// `ncode` instructions on `gpu`: the L2's record of sectors seen (4 bytes a sector of every
/// buffer) and the per-pc sums, twice (the conflict-free pass may be a copy). `--max-memory`
/// counts it.
pub fn model_bytes(gpu: &Gpu, buffer_bytes: impl IntoIterator<Item = u64>, ncode: usize) -> u64 {
    let sb = u64::from(gpu.global.sector_bytes.max(1));
    let record: u64 = buffer_bytes.into_iter().map(|b| b.div_ceil(sb) * 4).sum();
    let per_pc = ncode as u64 * (N_REASONS as u64 + 1) * 8;
    2 * (record + per_pc)
}

/// One span of a warp's time in one state, for the timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Warp slot on the SM.
    pub warp: u32,
    /// Block number in the grid.
    pub block: u64,
    /// The state.
    pub reason: Reason,
    /// First cycle.
    pub from: u64,
    /// One past the last cycle.
    pub to: u64,
}

/// Most spans a timeline keeps.
const MAX_SPANS: usize = 4_000_000;

/// What a simulation found.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The cycle the last block finished (from the first dispatch).
    pub end: u64,
    /// Cycles each SM had at least one block resident.
    pub sm_active: Vec<u64>,
    /// Warp-cycles per state, all warps of all SMs.
    pub cycles: Cycles,
    /// Warp-cycles per state, per pc (booked at the instruction the warp was about to issue).
    pub per_pc: Vec<Cycles>,
    /// Issued warp instructions.
    pub issued: u64,
    /// Issued warp instructions per pc.
    pub issued_pc: Vec<u64>,
    /// Cycles the shared pipes were busy, all SMs.
    pub pipe_busy: u64,
    /// The timeline of one SM (if asked for).
    pub timeline: Vec<Span>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Run,
    Bar,
    Exited,
    Free,
}

#[derive(Clone)]
struct Warp {
    blk: u32,
    bid: u64,
    trace: Arc<BlockTrace>,
    wi: u32,
    cur: u32,
    /// Instructions after `cur` already issued (hoisted loads), bit `i` = `cur + i`.
    ahead: u64,
    /// Which instruction it issues next: `cur + pick`.
    pick: u32,
    pc: u32,
    /// The picked event (`ev()`), kept by [`next_inst`]; `pc == NONE` when there is none.
    next: Ev,
    reason: Reason,
    since: u64,
    state: St,
    /// Its place in the SM's order of arrival (a block's warps in turn, from 1).
    age: u64,
    /// The cycle it last issued (0: not yet).
    issued_at: u64,
    acks: u64,
    /// Its memory instructions waiting in its sub-partition's queue ([`queue`]): it cannot
    /// leave before they are priced.
    pend: u32,
    /// The picked instruction is hoisted past one that reads or writes a register it writes:
    /// its result goes to `deferred` (a renamed register, as ptxas would allocate).
    renamed: bool,
    /// Results of hoisted instructions held back until every instruction before them has
    /// issued ([`pick::next_inst`]).
    deferred: Vec<Deferred>,
    /// The last [`pick::next_inst`] call's `min_next` and `min_reason`, and the cycle it set.
    nx: (u64, Reason, u64),
    /// When the service of its last shared load, store or atomic ends: its next one leaves
    /// the stage no earlier ([`queue::enter`]).
    sh_free: u64,
}

/// A renamed result: registers `dst` of the instruction at trace place `at` get scoreboard
/// entry `entry`.
#[derive(Clone, Copy, Debug)]
struct Deferred {
    at: u32,
    dst: (u16, u8),
    entry: u64,
}

/// The cycle bits of a scoreboard entry ([`Sm::regs`]): the cycle a register's value is
/// ready in the low 56 bits (a later cycle is kept as the last one, as [`order`] does), the
/// [`Reason`] a read waits in above.
const AT: u64 = (1 << 56) - 1;

/// A scoreboard entry: ready at `at`, a read waiting in state `why` until then.
#[inline]
fn entry(at: u64, why: Reason) -> u64 {
    at.min(AT) | (why as u64) << 56
}

impl Warp {
    /// The event `i` places after the next one in program order.
    fn ev_at(&self, i: u32) -> Option<Ev> {
        self.trace.warps[self.wi as usize]
            .ev
            .get(self.cur as usize + i as usize)
            .copied()
    }

    /// The instruction it will issue next (the next in program order, or a load hoisted),
    /// as [`next_inst`] last picked it.
    #[inline]
    fn ev(&self) -> Option<Ev> {
        (self.next.pc != NONE).then_some(self.next)
    }

    /// The scheduler's order (least first): the oldest block's warps first, and among one
    /// block's the warp that has waited longest since it last issued, then the lowest warp index.
    /// The H200's: `calibration/probes/scheduler` (per-warp clocks of 4 blocks on one SM finish block by
    /// block; the 32 warps of one block under a full memory queue within 10% of each other).
    #[inline]
    fn priority(&self) -> (u64, u64, u32) {
        (self.age - self.wi as u64, self.issued_at, self.wi)
    }

    /// When an exited warp may leave, no sooner than `from`: once its stores are acknowledged
    /// and none of its memory instructions waits in its sub-partition's queue ([`queue`]).
    #[inline]
    fn leaves_at(&self, from: u64) -> u64 {
        if self.pend > 0 {
            queue::PEND
        } else {
            self.acks.max(from)
        }
    }

    /// Looks up the picked event again (after `cur` or `pick` changed).
    #[inline]
    fn refetch(&mut self) {
        self.next = self.ev_at(self.pick).unwrap_or(Ev {
            pc: NONE,
            ..Ev::default()
        });
    }

    /// Marks the picked instruction issued and moves past what has been; renamed results of
    /// instructions now passed reach the warp's scoreboard `regs`.
    fn advance(&mut self, regs: &mut [u64]) {
        self.ahead |= 1 << self.pick;
        while self.ahead & 1 != 0 {
            self.ahead >>= 1;
            self.cur += 1;
        }
        self.pick = 0;
        if !self.deferred.is_empty() {
            let cur = self.cur;
            self.deferred.retain(|d| {
                if d.at >= cur {
                    return true;
                }
                let (r, n) = d.dst;
                for x in regs.iter_mut().skip(r as usize).take(n as usize) {
                    *x = d.entry;
                }
                false
            });
        }
    }
}

#[derive(Clone)]
struct Blk {
    warps: Vec<u32>,
    /// Warps that have not exited.
    alive: u32,
    /// Warps not yet retired.
    resident: u32,
    at_bar: u32,
    /// When the first warp arrived at the barrier being waited at.
    bar_first: u64,
}

#[derive(Clone, Default)]
struct Sp {
    /// Its warp slots in order of arrival (the reference scan's list; empty on the fast path).
    warps: Vec<u32>,
    /// Its memory instructions waiting for a place in the SM-wide stage, in order ([`queue`]).
    pend: VecDeque<queue::Pending>,
    /// Departures of its instructions in the stage, in order, each with whether it is a shared
    /// one: with `pend`, what names a full queue's throttle ([`cycle::Mq`]).
    memq: VecDeque<(u64, bool)>,
    /// The first cycle it may send another memory instruction.
    mem_ok: u64,
    /// The first cycle each arithmetic pipe takes another instruction ([`Pipe`]).
    pipe_ok: [u64; N_PIPES],
    next: u64,
    /// The fast path's sets of its warps ([`sched`]), bit `slot / sub_partitions`.
    sets: sched::Sets,
}

/// The arithmetic pipes of a sub-partition (`calibration/probes/int_pipes`): the ALU, the two
/// halves of the FMA pipe (integer multiplies on the heavy one only, f32 on either: one f32
/// instruction a cycle between them), f64, and the slow pipe (division, conversions, special
/// functions). Each takes an instruction every few cycles ([`Pipes::interval`]).
#[derive(Clone, Copy)]
enum Pipe {
    Alu = 0,
    FmaHeavy = 1,
    FmaLite = 2,
    Fp64 = 3,
    Slow = 4,
    Tensor = 5,
}

const N_PIPES: usize = 6;

/// The pipes an instruction may issue to, in the order it takes a free one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Pipes {
    /// An add or move: the ALU or the heavy FMA half, as ptxas balances them.
    Int = 0,
    Alu = 1,
    Imad = 2,
    /// f32: the lite FMA half, else the heavy one.
    Fp32 = 3,
    Fp64 = 4,
    Slow = 5,
    Tensor = 6,
}

/// How many [`Pipes`] there are.
const N_PIPE_SETS: usize = 7;

impl Pipes {
    fn choices(self) -> &'static [Pipe] {
        match self {
            Pipes::Int => &[Pipe::Alu, Pipe::FmaHeavy],
            Pipes::Alu => &[Pipe::Alu],
            Pipes::Imad => &[Pipe::FmaHeavy],
            Pipes::Fp32 => &[Pipe::FmaLite, Pipe::FmaHeavy],
            Pipes::Fp64 => &[Pipe::Fp64],
            Pipes::Slow => &[Pipe::Slow],
            Pipes::Tensor => &[Pipe::Tensor],
        }
    }

    /// Cycles the pipe it takes is busy: `issue.int` for an integer instruction on either
    /// integer pipe, twice `issue.fp32` for an f32 one on an FMA half (the two halves give
    /// one a `fp32` cycles).
    fn interval(self, rate: &warpsim_machine::IssueRate) -> u64 {
        let every = match self {
            Pipes::Int | Pipes::Alu | Pipes::Imad => rate.int as u64,
            Pipes::Fp32 => 2 * rate.fp32 as u64,
            Pipes::Fp64 => rate.fp64 as u64,
            Pipes::Slow => rate.slow as u64,
            Pipes::Tensor => rate.tensor as u64,
        };
        every.max(1)
    }

    /// The first cycle one of them takes an instruction.
    #[inline]
    fn free(self, sp: &Sp) -> u64 {
        self.choices()
            .iter()
            .map(|&k| sp.pipe_ok[k as usize])
            .min()
            .unwrap_or(0)
    }

    /// Books an instruction issued at `t` on the first of them that is free then.
    #[inline]
    fn take(self, sp: &mut Sp, t: u64, rate: &warpsim_machine::IssueRate, busy: u16) {
        let choices = self.choices();
        let k = choices
            .iter()
            .copied()
            .find(|&k| sp.pipe_ok[k as usize] <= t)
            .unwrap_or(choices[0]);
        sp.pipe_ok[k as usize] = t + self.interval(rate).max(busy as u64);
    }
}

/// When constant line `line` ([`crate::trace::const_line_id`]) is on the SM for a request at
/// cycle `t`: its first touch in the launch brings its 256 bytes from memory, which the
/// requests of other warps for them wait for too (spec C-3/C-4 of
/// `calibration/probes/cuda_coverage`: both constant caches start each launch cold; a line's
/// first load adds about the global model's latency of where it is, here DRAM: Nsight flushes
/// the caches before each profiled launch, as the model assumes for global buffers).
fn const_line(sm: &mut Sm, gpu: &Gpu, line: u16, t: u64) -> u64 {
    *sm.const_lines
        .entry(line as u32 / 4)
        .or_insert(t + gpu.global.dram as u64)
}

/// Ways and sets of the SM's indexed constant cache: 2 KiB of 64-byte lines, 4-way x 8 sets,
/// LRU (`calibration/probes/cuda_coverage`, spec C-3: 4-way x 8 and 2-way x 16 both predict
/// all 98 latency rows; N lines of one set cycled hit for N <= 4 and all miss for N >= 5).
const IDC_WAYS: usize = 4;
const IDC_SETS: usize = 8;

/// Looks constant line `line` up in the SM's indexed constant cache and makes it the
/// most recently used of its set: whether it was there.
fn idc_lookup(sm: &mut Sm, line: u16) -> bool {
    let tag = line as u32 + 1;
    let set = &mut sm.idc[line as usize % IDC_SETS];
    let at = set.iter().position(|&x| x == tag);
    let end = at.unwrap_or(IDC_WAYS - 1);
    set.copy_within(0..end, 1);
    set[0] = tag;
    at.is_some()
}

fn pipes_of(c: Class, int: IntPipe) -> Option<Pipes> {
    match c {
        Class::Int => Some(match int {
            IntPipe::Either => Pipes::Int,
            IntPipe::Alu => Pipes::Alu,
            IntPipe::Fma => Pipes::Imad,
        }),
        Class::Branch | Class::UniformConstLd => Some(Pipes::Int),
        Class::Fp32 => Some(Pipes::Fp32),
        Class::Fp64 => Some(Pipes::Fp64),
        Class::Slow => Some(Pipes::Slow),
        Class::Tensor => Some(Pipes::Tensor),
        _ => None,
    }
}

#[derive(Clone)]
struct Sm {
    /// Stepped by the reference scan of every warp ([`cycle`]) rather than the bit sets of
    /// [`sched`]: the SM whose timeline is kept (its spans are booked in the scan's order), or
    /// every SM of a GPU with more than 64 warps a sub-partition.
    scan: bool,
    warps: Vec<Warp>,
    /// Per warp slot: the first cycle it may act (issue, change state or retire).
    ready: Vec<u64>,
    /// The scoreboard: per warp slot, `nregs` entries ([`entry`]), one per register.
    regs: Vec<u64>,
    free_warps: Vec<u32>,
    blocks: Vec<Option<Blk>>,
    used_blocks: u32,
    used_warps: u32,
    used_threads: u32,
    used_regs: u64,
    used_smem: u64,
    sp: Vec<Sp>,
    /// When each shared-pipe server is free.
    servers: Vec<u64>,
    /// The servers' schedule and the data on its way back ([`land`]).
    turns: land::Turns,
    /// Departure of the last memory instruction (the stage is in order).
    mem_last: u64,
    /// When the SM's constant cache is free for the next `LDC`'s requests (queue.rs).
    idc_free: u64,
    /// Constant-memory 256-byte lines this SM has touched in the launch and the cycle each
    /// arrives from memory ([`const_line`]).
    const_lines: HashMap<u32, u64>,
    /// The SM's indexed constant cache (`LDC`'s): per set, its ways' lines
    /// ([`crate::trace::const_line_id`] plus 1; 0: empty), most recently used first
    /// ([`idc_lookup`]).
    idc: [[u32; IDC_WAYS]; IDC_SETS],
    /// The SM-wide stage of the memory queue: departures to come, in order, each with whether
    /// it is a shared instruction ([`queue`]).
    stage: VecDeque<(u64, bool)>,
    /// Instructions in the sub-partitions' own queues, and the sub-partition whose turn is next.
    pending: u32,
    turn: u8,
    /// Marks given to loads waiting in those queues.
    marks: u64,
    /// When the global path is free.
    gpath_free: u64,
    /// This SM's DRAM read cursor.
    read_free: f64,
    /// Sampled timing: the read cursors of the SMs the blocks this one's stand for run on
    /// ([`global::shared`]).
    shadow_free: Vec<f64>,
    /// The first cycle it takes another block.
    next_accept: u64,
    /// A block has left: the next one goes into a freed slot.
    refilling: bool,
    icache_ready: Option<u64>,
    active_from: u64,
    next: u64,
    age: u64,
    /// Global accesses of the window being stepped, in issue order ([`window`]).
    acc: Vec<window::Access>,
    /// Their sectors.
    acc_secs: Vec<u64>,
}

/// The static facts of one pc as the model reads them: no allocation, source registers one
/// by one in [`Cx::srcs`].
#[derive(Clone, Copy, Debug)]
struct Dec {
    class: Class,
    /// The pipes it issues to (`None`: none of the arithmetic pipes).
    pipes: Option<Pipes>,
    /// Registers it writes (`n == 0`: none).
    dst: (u16, u8),
    /// Cycles it holds its pipe beyond the interval ([`StaticInst::busy`]).
    busy: u16,
    /// Its sources: `srcs[from..from + n]`.
    from: u32,
    n: u32,
}

fn decode(code: &[StaticInst]) -> (Vec<Dec>, Vec<u32>) {
    let mut srcs: Vec<u32> = Vec::new();
    let dec = code
        .iter()
        .map(|si| {
            let from = srcs.len() as u32;
            for &(r, n) in &si.srcs {
                srcs.extend(r as u32..r as u32 + n as u32);
            }
            Dec {
                class: si.class,
                pipes: pipes_of(si.class, si.int_pipe),
                dst: si.dst.unwrap_or((0, 0)),
                busy: si.busy,
                from,
                n: srcs.len() as u32 - from,
            }
        })
        .collect();
    (dec, srcs)
}

/// Everything an SM's step touches besides the SM.
#[derive(Clone)]
struct Cx<'a> {
    gpu: &'a Gpu,
    /// Per pc, decoded.
    dec: Vec<Dec>,
    /// Source registers of all pcs, one by one.
    srcs: Vec<u32>,
    /// Scoreboard entries per warp ([`LaunchShape::nregs`]).
    nregs: usize,
    ideal: bool,
    /// Book the states of warps that wait (false in the conflict-free pass, whose outcome
    /// gives only the end and the issue count: the fast path then leaves a warp held or not
    /// selected untouched).
    book: bool,
    /// Per buffer and sector: the cycle its data is in L2 (+1; 0: nothing has asked for it),
    /// so that a load of a sector whose DRAM read is still on its way waits for it.
    l2: Vec<Vec<u32>>,
    dram: dram::Dram,
    /// While SMs are stepped alone through a window: its end. Their global accesses are then
    /// logged, and priced when it ends ([`window`]).
    window: Option<u64>,
    /// Visit an SM at each cycle data comes back to it (tests: the oracle of landing at the
    /// next visit, [`land`]).
    eager_land: bool,
    out: Outcome,
    timeline_sm: Option<u32>,
    bar_cost: u64,
    block_regs: u64,
    block_smem: u64,
}

/// What a block takes on an SM.
#[derive(Clone, Copy)]
struct BlockNeed {
    warps: u32,
    threads: u32,
    regs: u64,
    smem: u64,
}

impl BlockNeed {
    /// Whether `sm` has room for another block.
    fn fits(&self, r: &warpsim_machine::Residency, sm: &Sm) -> bool {
        sm.used_blocks < r.blocks
            && sm.used_warps + self.warps <= r.warps
            && sm.used_threads + self.threads <= r.threads
            && sm.used_regs + self.regs <= r.registers as u64
            && sm.used_smem + self.smem <= r.shared_bytes as u64
    }
}

/// The whole GPU, fed block traces in grid order.
#[derive(Clone)]
pub struct Sim<'a> {
    cx: Cx<'a>,
    launch: LaunchShape,
    nwarps: u32,
    block_regs: u64,
    block_smem: u64,
    sms: Vec<Sm>,
    /// The SMs by the cycle each acts next.
    order: order::Order,
    pending: VecDeque<Arc<BlockTrace>>,
    next_block: u64,
    next_dispatch: f64,
    blocked: bool,
    rr: usize,
    /// Cycles of a window ([`window`]; 0: the event loop steps SMs in turn).
    width: u64,
    /// Per SM, whether the dispatcher sees it as `view` (in a window, an SM that cannot
    /// receive a block and runs ahead alone), and `view`: whether it has room and when it
    /// takes blocks.
    viewed: Vec<bool>,
    view: Vec<(bool, u64)>,
    /// `view` when a window's SMs stepped side by side start ([`window`]).
    view0: Vec<(bool, u64)>,
    /// A window's departures of blocks from SMs that run alone: cycle, SM, and `view` after.
    frees: Vec<(u64, u32, bool, u64)>,
    /// A window's global accesses in order: SM, place in its log; and where each cycle's
    /// begin among them.
    keys: Vec<(u32, u32)>,
    at: Vec<u32>,
    /// Workers stepping SMs of a window side by side ([`window`]), each with its own sums.
    crew: Vec<window::Hand<'a>>,
    /// In a window, the SMs that may still receive a block, stepped side by side up to each
    /// cycle the dispatcher acts ([`window`]), and those set aside to be stepped to its end.
    live: Vec<bool>,
    aside: Vec<bool>,
    /// Per SM, the cycle a batch steps it to (0: not stepped).
    bound: Vec<u64>,
    /// Departures of blocks not yet shown to the dispatcher, soonest first, and all of the
    /// window's.
    due: std::collections::BinaryHeap<std::cmp::Reverse<(u64, u32, bool, u64)>>,
    departed: Vec<(u64, u32, bool, u64)>,
    /// The window's placements on SMs stepped side by side: cycle, SM, its `view` after,
    /// and whether the block went into a freed slot; and while the dispatcher replays the
    /// window, the next to replay.
    placed: Vec<(u64, u32, bool, u64, bool)>,
    replay: Option<usize>,
    /// Step the SMs that may receive blocks side by side (`None`: when there are threads for
    /// it; tests choose).
    side_by_side: Option<bool>,
}

impl<'a> Sim<'a> {
    /// A GPU about to run `launch`. `ideal`: price every shared access at its conflict-free
    /// wavefronts. `timeline_sm`: keep the timeline of that SM. Errors: a block that cannot be
    /// resident on an SM at all.
    pub fn new(
        gpu: &'a Gpu,
        code: &'a [StaticInst],
        launch: LaunchShape,
        ideal: bool,
        timeline_sm: Option<u32>,
    ) -> Result<Self, String> {
        let limits = gpu.block_needs(launch.threads, launch.regs_per_thread, launch.shared_bytes);
        let nwarps = launch.threads.div_ceil(32);
        let (block_regs, block_smem) = (limits[2].0, limits[3].0);
        if launch.blocks > 0 {
            if let Some((need, have, what)) = limits.iter().find(|(n, h, _)| n > h) {
                return Err(format!(
                    "a block needs {need} {what} but an SM of the {} has {have}: it can never be \
                     resident (at {} registers per thread)",
                    gpu.name, launch.regs_per_thread
                ));
            }
        }
        let sb = gpu.global.sector_bytes as u64;
        let l2 = launch
            .buffer_bytes
            .iter()
            .map(|&b| written_zeros(b.div_ceil(sb) as usize))
            .collect();
        let ncode = code.len();
        let scan_all = gpu.residency.warps as u64 > 64 * gpu.sub_partitions as u64;
        let sms = (0..gpu.sms)
            .map(|i| Sm {
                scan: scan_all || timeline_sm == Some(i),
                warps: Vec::new(),
                ready: Vec::new(),
                regs: Vec::new(),
                free_warps: Vec::new(),
                blocks: Vec::new(),
                used_blocks: 0,
                used_warps: 0,
                used_threads: 0,
                used_regs: 0,
                used_smem: 0,
                sp: (0..gpu.sub_partitions)
                    .map(|_| Sp {
                        next: NEVER,
                        sets: sched::Sets::new(),
                        ..Sp::default()
                    })
                    .collect(),
                servers: vec![0; gpu.shared.servers as usize],
                turns: land::Turns::new(gpu.shared.servers as usize),
                mem_last: 0,
                idc_free: 0,
                const_lines: HashMap::new(),
                idc: [[0; IDC_WAYS]; IDC_SETS],
                stage: VecDeque::new(),
                pending: 0,
                turn: 0,
                marks: 0,
                gpath_free: 0,
                read_free: 0.0,
                shadow_free: Vec::new(),
                next_accept: 0,
                refilling: false,
                icache_ready: None,
                active_from: 0,
                next: NEVER,
                age: 0,
                acc: Vec::new(),
                acc_secs: Vec::new(),
            })
            .collect();
        let bar_cost = (gpu.barrier.base + gpu.barrier.per_warp * nwarps as f64).round() as u64;
        let (dec, srcs) = decode(code);
        Ok(Sim {
            cx: Cx {
                gpu,
                dec,
                srcs,
                nregs: launch.nregs,
                ideal,
                book: true,
                l2,
                dram: dram::Dram::new(&gpu.global),
                window: None,
                eager_land: false,
                out: Outcome {
                    sm_active: vec![0; gpu.sms as usize],
                    per_pc: vec![[0; N_REASONS]; ncode],
                    issued_pc: vec![0; ncode],
                    ..Outcome::default()
                },
                timeline_sm,
                bar_cost,
                block_regs,
                block_smem,
            },
            launch,
            nwarps,
            block_regs,
            block_smem,
            sms,
            order: order::Order::new(gpu.sms as usize),
            pending: VecDeque::new(),
            next_block: 0,
            next_dispatch: 0.0,
            blocked: false,
            rr: 0,
            width: window::width(gpu),
            viewed: vec![false; gpu.sms as usize],
            view: vec![(false, 0); gpu.sms as usize],
            view0: Vec::new(),
            frees: Vec::new(),
            keys: Vec::new(),
            at: Vec::new(),
            crew: Vec::new(),
            live: vec![false; gpu.sms as usize],
            aside: vec![false; gpu.sms as usize],
            bound: vec![0; gpu.sms as usize],
            due: Default::default(),
            departed: Vec::new(),
            placed: Vec::new(),
            replay: None,
            side_by_side: None,
        })
    }

    /// Hands over the next block's trace (blocks come in grid order).
    pub fn feed(&mut self, block: Arc<BlockTrace>) {
        self.pending.push_back(block);
    }

    /// Blocks fed but not yet dispatched.
    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    /// Runs until the dispatcher needs a block that has not been fed, or to the end.
    pub fn advance(&mut self) {
        if self.width > 0 {
            self.windows();
        } else {
            self.events();
        }
    }

    /// The cycle the dispatcher places its next block; `NEVER` once the grid is placed, or
    /// while it waits for blocks not yet fed (`blocked`).
    fn dispatch_due(&self) -> u64 {
        if self.next_block < self.launch.blocks && !self.blocked {
            self.next_dispatch.ceil() as u64
        } else {
            NEVER
        }
    }

    /// Steps the SMs in turn, in order of cycle then SM number (the reference of
    /// [`window`]).
    fn events(&mut self) {
        loop {
            let (hmin, smi) = self.order.first();
            let td = self.dispatch_due();
            if td != NEVER && td <= hmin {
                if self.pending.is_empty() {
                    return;
                }
                self.dispatch(td);
                continue;
            }
            if hmin == NEVER {
                return;
            }
            let t = hmin;
            self.cx.dram.forget_before(t);
            let sm = &mut self.sms[smi as usize];
            let freed = step(&mut self.cx, sm, smi, t);
            self.order.set(smi as usize, sm.next);
            if freed {
                self.blocked = false;
                self.next_dispatch = self.next_dispatch.max(t as f64);
            }
        }
    }

    /// A copy of this simulation, as far as it has run, that prices every shared access from
    /// now on at its conflict-free wavefronts (and books no cycles from then on: its outcome
    /// gives only the end and the issue count). Up to a block with a bank conflict the two are
    /// the same simulation.
    pub fn conflict_free_copy(&self) -> Self {
        let mut c = self.clone();
        // (Its workers are made again from its own context; theirs hold no sums between
        // calls of `advance`.)
        c.crew.clear();
        c.cx.ideal = true;
        c.cx.timeline_sm = None;
        c.cx.out.timeline = Vec::new();
        // Only its end and issue count are read ([`crate::Model`]): nothing is booked per pc,
        // nor the states of waiting warps.
        c.cx.book = false;
        c.cx.out.per_pc = Vec::new();
        c.cx.out.issued_pc = Vec::new();
        c
    }

    /// Steps the SMs in turn rather than by windows (the windows' oracle in tests).
    #[cfg(test)]
    pub(crate) fn unwindowed(mut self) -> Self {
        self.width = 0;
        self
    }

    /// Steps the SMs that may receive a block in a window side by side (`true`, even on one
    /// thread) or with the dispatcher in turn (the oracle is the event loop).
    #[cfg(test)]
    pub(crate) fn side_by_side(mut self, on: bool) -> Self {
        self.side_by_side = Some(on);
        self
    }

    /// Visits an SM at each cycle data comes back to it, rather than landing the data at its
    /// next visit (the lazy landing's oracle in tests).
    #[cfg(test)]
    pub(crate) fn eager_landing(mut self) -> Self {
        self.cx.eager_land = true;
        self
    }

    /// Steps every SM by the reference scan of every warp (the fast path's oracle in tests).
    #[cfg(test)]
    pub(crate) fn reference(mut self) -> Self {
        for sm in &mut self.sms {
            sm.scan = true;
        }
        self
    }

    /// Runs to the end and returns what it found.
    pub fn finish(mut self) -> Outcome {
        self.advance();
        self.cx.out
    }

    fn fits(&self, sm: &Sm) -> bool {
        self.block().fits(&self.cx.gpu.residency, sm)
    }

    /// What a block of the launch takes on an SM.
    fn block(&self) -> BlockNeed {
        BlockNeed {
            warps: self.nwarps,
            threads: self.launch.threads,
            regs: self.block_regs,
            smem: self.block_smem,
        }
    }

    /// Whether SM `k` has room for a block and when it takes one, as the dispatcher sees it.
    #[inline]
    fn seen(&self, k: usize) -> (bool, u64) {
        if self.viewed[k] {
            self.view[k]
        } else {
            (self.fits(&self.sms[k]), self.sms[k].next_accept)
        }
    }

    /// Blocks fed and not placed (while the dispatcher replays a window, those it placed
    /// count).
    fn waiting(&self) -> usize {
        self.pending.len() + self.replay.map_or(0, |i| self.placed.len() - i)
    }

    /// Dispatches blocks at cycle `t`: to each SM (in breadth-first order) that has room and
    /// takes blocks now, one block.
    fn dispatch(&mut self, t: u64) {
        let n = self.sms.len();
        let mut soonest = NEVER;
        for k in 0..n {
            let sm = (self.rr + k) % n;
            if self.waiting() == 0 || self.next_dispatch > t as f64 {
                return;
            }
            let (fits, at) = self.seen(sm);
            if !fits {
                continue;
            }
            if at > t {
                soonest = soonest.min(at);
                continue;
            }
            let refill = match self.replay {
                Some(i) => {
                    // The placement as made when the window was stepped.
                    let (pt, k, fits, at, refill) = self.placed[i];
                    debug_assert_eq!((pt, k), (t, sm as u32), "a replayed placement");
                    self.replay = Some(i + 1);
                    self.next_block += 1;
                    self.view[sm] = (fits, at);
                    refill
                }
                None => {
                    let Some(trace) = self.pending.pop_front() else {
                        return;
                    };
                    let id = self.next_block;
                    self.next_block += 1;
                    // Only an SM stepped with the dispatcher, or side by side no further than
                    // this cycle, can receive a block ([`window`]).
                    debug_assert!(!self.viewed[sm] || self.live[sm], "a block for SM {sm}");
                    let refill = self.sms[sm].refilling;
                    self.place(sm, id, trace, t);
                    if self.viewed[sm] {
                        // An SM stepped side by side in a window ([`window`]).
                        let v = (self.fits(&self.sms[sm]), self.sms[sm].next_accept);
                        self.view[sm] = v;
                        self.placed.push((t, sm as u32, v.0, v.1, refill));
                    }
                    refill
                }
            };
            if refill {
                // Blocks into freed slots leave the dispatcher one at a time.
                self.next_dispatch =
                    self.next_dispatch.max(t as f64) + self.cx.gpu.launch.dispatch_cycles_per_block;
            }
            self.order.set(sm, self.sms[sm].next);
            if self.next_block >= self.launch.blocks {
                return;
            }
        }
        self.rr = 0;
        for sm in 0..n {
            let (fits, at) = self.seen(sm);
            if fits {
                soonest = soonest.min(at.max(t + 1));
            }
        }
        if soonest == NEVER {
            // No SM has room: wait for a block to leave.
            self.blocked = true;
        } else {
            self.next_dispatch = self.next_dispatch.max(soonest as f64);
        }
    }

    fn place(&mut self, smi: usize, id: u64, trace: Arc<BlockTrace>, t: u64) {
        let gpu = self.cx.gpu;
        let nregs = self.launch.nregs;
        let sm = &mut self.sms[smi];
        if sm.used_blocks == 0 {
            sm.active_from = t;
        }
        sm.next_accept = t + gpu.launch.block_interval as u64;
        sm.used_blocks += 1;
        sm.used_warps += self.nwarps;
        sm.used_threads += self.launch.threads;
        sm.used_regs += self.block_regs;
        sm.used_smem += self.block_smem;
        let icache = *sm
            .icache_ready
            .get_or_insert(t + gpu.launch.icache_cold_cycles as u64);
        let start = t.max(icache);
        let bslot = match sm.blocks.iter().position(Option::is_none) {
            Some(b) => b,
            None => {
                sm.blocks.push(None);
                sm.blocks.len() - 1
            }
        };
        let mut blk = Blk {
            warps: Vec::new(),
            alive: 0,
            resident: 0,
            at_bar: 0,
            bar_first: 0,
        };
        for wi in 0..trace.warps.len() as u32 {
            let slot = match sm.free_warps.pop() {
                Some(s) => s,
                None => {
                    sm.warps.push(Warp {
                        blk: 0,
                        bid: 0,
                        trace: trace.clone(),
                        wi: 0,
                        cur: 0,
                        ahead: 0,
                        pick: 0,
                        pc: 0,
                        next: Ev::default(),
                        reason: Reason::NoInstruction,
                        since: 0,
                        state: St::Free,
                        age: 0,
                        issued_at: 0,
                        acks: 0,
                        pend: 0,
                        renamed: false,
                        deferred: Vec::new(),
                        nx: (0, Reason::NoInstruction, 0),
                        sh_free: 0,
                    });
                    sm.ready.push(NEVER);
                    sm.regs.resize(sm.regs.len() + nregs, 0);
                    sm.warps.len() as u32 - 1
                }
            };
            sm.age += 1;
            let w = &mut sm.warps[slot as usize];
            w.blk = bslot as u32;
            w.bid = id;
            w.trace = trace.clone();
            w.wi = wi;
            w.cur = 0;
            w.ahead = 0;
            w.pick = 0;
            w.issued_at = 0;
            w.refetch();
            sm.ready[slot as usize] = start;
            w.reason = Reason::NoInstruction;
            w.since = t;
            w.state = St::Run;
            w.age = sm.age;
            w.acks = 0;
            w.pend = 0;
            let at = slot as usize * nregs;
            sm.regs[at..at + nregs].fill(entry(0, Reason::Wait));
            w.renamed = false;
            w.deferred.clear();
            w.nx = (0, Reason::NoInstruction, 0);
            w.sh_free = 0;
            w.pc = w.ev().map_or(0, |e| e.pc);
            if w.ev().is_none() {
                w.state = St::Exited;
                w.reason = Reason::Drain;
            }
            blk.warps.push(slot);
            blk.alive += (w.state == St::Run) as u32;
            blk.resident += 1;
            let nsp = sm.sp.len();
            let sp = &mut sm.sp[slot as usize % nsp];
            if sm.scan {
                sp.warps.push(slot);
            } else {
                sp.sets.prio[slot as usize / nsp] = w.priority();
                sp.sets.sleep(slot as usize / nsp, start);
            }
            sp.next = sp.next.min(start);
        }
        sm.next = sm.next.min(start);
        sm.blocks[bslot] = Some(blk);
    }
}

/// `n` zeros, written now rather than left to the allocator's zeroed pages: the first write
/// to such a page that was read before costs a fault and a flush of every thread's TLB (the
/// L2 record, read and written all over: ~6% of a sampled N=4096 transpose).
#[allow(clippy::slow_vector_initialization)]
fn written_zeros(n: usize) -> Vec<u32> {
    let mut v = Vec::with_capacity(n);
    v.resize(n, 0u32);
    v
}
