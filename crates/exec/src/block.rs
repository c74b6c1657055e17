//! The block scheduler: a block's warps, their registers and reconvergence frames, run round
//! robin between barriers; and the scratch that one thread reuses between the blocks it runs.

use super::api::{Config, FirstAccess, Global, PcStats, Stats};
use super::fault::{self, Fault, FaultKind};
use super::hook::Hook;
use super::lanes::per_lane;
use super::warp::run_warp;
use super::{validate, Lanes, FULL, SPARE_WORDS};
use std::cell::RefCell;
use warpsim_kernel::ir::{Inst, Space, Special};
use warpsim_kernel::{Program, RegInit};
use warpsim_smem::{BankCounts, WARP};

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Frame {
    /// The active mask before the `If` or loop.
    pub(super) saved: u32,
    /// Lanes still to run the else-part of an `If`.
    pub(super) pending: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum State {
    Ready,
    Waiting,
    /// At an mbarrier wait whose phase is not complete (`exec/mbarrier.rs`).
    Parked,
    Done,
}

/// One warp's control state (its registers and frames live in the block's flat arrays).
#[derive(Clone, Copy, Debug)]
pub(super) struct Warp {
    pub(super) pc: usize,
    pub(super) active: u32,
    /// Lanes that hold a thread.
    pub(super) live: u32,
    /// Frames in use.
    pub(super) sp: usize,
    pub(super) state: State,
    /// The barrier it waits at (while `Waiting`), or its mbarrier wait (while `Parked`).
    pub(super) barrier_pc: usize,
    /// Its mbarrier wait times out when it next runs (returns false for incomplete phases).
    pub(super) timed_out: bool,
    /// While `Parked`: the shared byte address of the barrier its first waiting lane waits on.
    pub(super) waits_on: u32,
}

/// What a block's warps share while running.
pub(super) struct Ctx<'a> {
    pub(super) prog: &'a Program,
    pub(super) cfg: &'a Config,
    pub(super) ctaid: [u32; 3],
    pub(super) global: &'a Global,
    pub(super) per_pc: &'a mut [PcStats],
    /// [`Stats::first_accesses`].
    pub(super) first_accesses: &'a mut [Option<Box<FirstAccess>>],
    /// This block's words served per bank, one counter per shared-access pc (index in
    /// `bank_row`); added to [`Stats::per_bank`] and [`Stats::per_pc_bank`] at the end.
    pub(super) pc_bank: &'a mut [BankCounts],
    /// Index into `pc_bank` for each pc (0 for instructions that are not shared accesses).
    pub(super) bank_row: &'a [usize],
    pub(super) shared: &'a mut [u32],
    /// The block's local memory: [`Program::local_bytes`] (in words, rounded up) per thread,
    /// thread by thread (`exec/local.rs`).
    pub(super) local: &'a mut [u32],
    pub(super) threads: u64,
    pub(super) steps: u64,
    /// [`super::warp::At::check_at`] between the warps' turns.
    pub(super) check_at: u64,
    /// [`Validated::with_progress`]'s callback.
    pub(super) progress: Option<&'a (dyn Fn(u64) + Sync)>,
    pub(super) lanes: u64,
    /// The race detector (only with [`Config::racecheck`]).
    pub(super) race: Option<Box<crate::race::Shadow>>,
    /// What the threads waiting at a `BarrierRed` brought so far (given out at the release).
    pub(super) bar_red: BarRed,
    /// Where `printf`s print ([`Stats::printf`]).
    pub(super) printf: &'a mut crate::PrintfOut,
    /// Changes to mbarriers so far: parked warps retry after a round that made some.
    pub(super) mbar_changes: u64,
    /// Warp instructions in a warp's turn: [`super::warp::TURN_STEPS`], then
    /// [`super::warp::SHORT_TURN_STEPS`] once a turn has ended.
    pub(super) turn_steps: u64,
}

/// A `bar.red`'s reduction while its block gathers at the barrier.
#[derive(Clone, Copy, Debug)]
pub(super) struct BarRed {
    /// Threads whose value was non-zero.
    pub(super) count: u32,
    /// Whether every thread's was.
    pub(super) all: bool,
}

impl BarRed {
    pub(super) const EMPTY: BarRed = BarRed {
        count: 0,
        all: true,
    };

    /// The active lanes `active` of a warp bring their values `a`.
    #[inline]
    pub(super) fn add(&mut self, a: &Lanes, active: u32) {
        let mut yes = 0u32;
        for (l, v) in a.iter().enumerate() {
            yes |= ((*v != 0) as u32) << l;
        }
        self.count += (yes & active).count_ones();
        self.all &= yes & active == active;
    }

    /// The result of `op` for every thread.
    fn result(self, op: warpsim_kernel::ir::BarRedOp) -> u32 {
        use warpsim_kernel::ir::BarRedOp::*;
        match op {
            Popc => self.count,
            And => self.all as u32,
            Or => (self.count > 0) as u32,
        }
    }
}

impl Ctx<'_> {
    pub(super) fn thread(&self, w: usize, lane: u32) -> [u32; 3] {
        thread_xyz(self.prog.block, w as u64 * 32 + lane as u64)
    }

    pub(super) fn fault(&self, pc: usize, kind: FaultKind, help: Option<String>) -> Fault {
        Fault::new(Some(pc), self.ctaid, kind, help)
    }

    pub(super) fn lane_fault(
        &self,
        pc: usize,
        w: usize,
        lane: u32,
        kind: FaultKind,
        help: Option<String>,
    ) -> Fault {
        let mut f = self.fault(pc, kind, help);
        f.thread = Some(self.thread(w, lane));
        f
    }

    /// The source text of an instruction, for messages.
    pub(super) fn text(&self, pc: usize) -> &str {
        self.prog.info.get(pc).map_or("", |i| &*i.text)
    }
}

/// (x, y, z) of linear thread index `t` in a block of `block` threads.
fn thread_xyz(block: [u32; 3], t: u64) -> [u32; 3] {
    let bx = block[0].max(1) as u64;
    let by = block[1].max(1) as u64;
    [
        (t % bx) as u32,
        (t / bx % by) as u32,
        (t / (bx * by)) as u32,
    ]
}

/// Runs block `ctaid` of `prog` to completion, reading and writing `global` and adding what
/// it did to `stats`.
///
/// `stats` should come from [`Stats::new`] for this program and geometry (it is grown if it is
/// too small). On a fault the block stops; `stats` then holds what ran before it.
///
/// This checks the program first; to run many blocks, check it once with [`Validated::new`].
pub fn run_block(
    prog: &Program,
    cfg: &Config,
    ctaid: [u32; 3],
    global: &Global,
    stats: &mut Stats,
) -> Result<(), Fault> {
    Validated::check(prog, cfg, global, ctaid)?.run_block(ctaid, stats)
}

/// A program checked to run under one [`Config`] with one [`Global`] memory: its blocks can
/// then run (on any number of threads) without checking it again.
pub struct Validated<'a> {
    pub(super) prog: &'a Program,
    pub(super) cfg: Config,
    pub(super) global: &'a Global,
    /// For each pc, its index in a block's bank counters (0 for instructions that are not
    /// shared accesses).
    bank_row: Vec<usize>,
    /// The shared-access pcs, in the order of the bank counters.
    shared_pcs: Vec<usize>,
    /// Told every [`PROGRESS_STEPS`](super::flow::PROGRESS_STEPS) warp instructions of a block.
    progress: Option<&'a (dyn Fn(u64) + Sync)>,
}

impl std::fmt::Debug for Validated<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validated")
            .field("program", &self.prog.name)
            .field("cfg", &self.cfg)
            .field("shared_pcs", &self.shared_pcs)
            .field("progress", &self.progress.is_some())
            .finish_non_exhaustive()
    }
}

impl<'a> Validated<'a> {
    /// Checks that `prog` can run under `cfg` with `global` (whose buffers must be as large as
    /// the program's: [`Global::new`]). A fault names block (0,0,0), the first to run.
    pub fn new(prog: &'a Program, cfg: &Config, global: &'a Global) -> Result<Self, Fault> {
        Self::check(prog, cfg, global, [0; 3])
    }

    /// [`Validated::new`], with faults naming block `ctaid`.
    pub(super) fn check(
        prog: &'a Program,
        cfg: &Config,
        global: &'a Global,
        ctaid: [u32; 3],
    ) -> Result<Self, Fault> {
        validate::check(prog, cfg, ctaid, global)?;
        let mut bank_row = vec![0; prog.code.len()];
        let mut shared_pcs = Vec::new();
        for (pc, i) in prog.code.iter().enumerate() {
            if matches!(i.mem(), Some((m, _)) if m.space == Space::Shared)
                || matches!(i, Inst::Matrix(_) | Inst::CpAsync(_))
            {
                bank_row[pc] = shared_pcs.len();
                shared_pcs.push(pc);
            }
        }
        Ok(Validated {
            prog,
            cfg: *cfg,
            global,
            bank_row,
            shared_pcs,
            progress: None,
        })
    }

    /// Calls `progress(n)` each time a block has run `n` more warp instructions (every
    /// `PROGRESS_STEPS`, from the thread running the block), so
    /// that a progress bar moves while one long block runs. Results are the same as without it.
    pub fn with_progress(mut self, progress: &'a (dyn Fn(u64) + Sync)) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The program.
    pub fn program(&self) -> &'a Program {
        self.prog
    }

    /// Runs block `ctaid` to completion, as [`run_block`] does.
    pub fn run_block(&self, ctaid: [u32; 3], stats: &mut Stats) -> Result<(), Fault> {
        self.run_block_with(ctaid, stats, &mut ())
    }

    /// [`Validated::run_block`], telling `hook` every instruction each warp issues (a timing
    /// model's input). Results are the same as without it.
    pub fn run_block_with<H: Hook>(
        &self,
        ctaid: [u32; 3],
        stats: &mut Stats,
        hook: &mut H,
    ) -> Result<(), Fault> {
        SCRATCH.with(|s| match s.try_borrow_mut() {
            Ok(mut sc) => run(self, ctaid, stats, &mut sc, hook),
            // (Only if a block ran inside a block: not done, but not worth a panic either.)
            Err(_) => run(self, ctaid, stats, &mut Scratch::default(), hook),
        })
    }
}

/// What a block needs besides the program: kept between the blocks that one thread runs, so
/// that a block does not allocate (every block sets the contents afresh).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) regs: Vec<Lanes>,
    /// [`tid_lanes`] of `tid_block`.
    tid: Vec<[Lanes; 3]>,
    tid_block: Option<[u32; 3]>,
    frames: Vec<Frame>,
    warps: Vec<Warp>,
    shared: Vec<u32>,
    /// The block's local memory.
    local: Vec<u32>,
    /// The bank counters, one per shared-access pc ([`Validated::shared_pcs`]).
    counts: Vec<BankCounts>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// [`Validated::run_block`] in `sc`; the registers at the end are in `sc.regs` (warp `w`'s are
/// `regs[w * max(nregs, 1)..][..nregs]`).
pub(super) fn run<H: Hook>(
    v: &Validated,
    ctaid: [u32; 3],
    stats: &mut Stats,
    sc: &mut Scratch,
    hook: &mut H,
) -> Result<(), Fault> {
    let (prog, cfg, global) = (v.prog, &v.cfg, v.global);
    let threads: u64 = prog.block.iter().map(|&d| d as u64).product();
    if threads == 0 {
        sc.regs.clear();
        return Ok(());
    }
    let nwarps = threads.div_ceil(32) as usize;
    let nregs = prog.nregs;
    let stride = nregs.max(1);
    let depth = prog.max_depth;

    // Registers: zero, then the program's init list.
    sc.regs.truncate(nwarps * stride);
    sc.regs.resize(nwarps * stride, [0; WARP]);
    // (A memset: the resize writes only the registers it adds.)
    sc.regs.as_flattened_mut().fill(0);
    if sc.tid_block != Some(prog.block) || sc.tid.len() != nwarps {
        sc.tid = tid_lanes(prog.block, nwarps);
        sc.tid_block = Some(prog.block);
    }
    init_regs(prog, ctaid, stride, &sc.tid, &mut sc.regs);
    sc.frames.clear();
    sc.frames.resize(nwarps * depth, Frame::default());
    sc.warps.clear();
    sc.warps.extend((0..nwarps).map(|w| {
        let first = w as u64 * 32;
        let n = (threads - first).min(32) as u32;
        let live = if n == 32 { FULL } else { (1u32 << n) - 1 };
        Warp {
            pc: 0,
            active: live,
            live,
            sp: 0,
            state: State::Ready,
            barrier_pc: 0,
            timed_out: false,
            waits_on: 0,
        }
    }));
    sc.shared.clear();
    sc.shared
        .resize(prog.shared_bytes.div_ceil(4) as usize + SPARE_WORDS, 0);
    // (Zeroed for every block: the GPU leaves it undefined, a run stays deterministic.)
    sc.local.clear();
    sc.local
        .resize(nwarps * WARP * prog.local_bytes.div_ceil(4) as usize, 0);

    let banks = cfg.geometry.banks as usize;
    stats.fit(prog.code.len(), banks);
    sc.counts.truncate(v.shared_pcs.len());
    for c in &mut sc.counts {
        c.clear();
    }
    sc.counts
        .resize(v.shared_pcs.len(), BankCounts::new(cfg.geometry.banks));
    let mut cx = Ctx {
        prog,
        cfg,
        ctaid,
        global,
        per_pc: &mut stats.per_pc,
        first_accesses: &mut stats.first_accesses,
        pc_bank: &mut sc.counts,
        bank_row: &v.bank_row,
        shared: &mut sc.shared,
        local: &mut sc.local,
        threads,
        steps: 0,
        check_at: super::flow::next_check(0, cfg.max_steps, v.progress.is_some()),
        progress: v.progress,
        lanes: 0,
        race: cfg
            .racecheck
            .then(|| Box::new(crate::race::Shadow::new(prog, ctaid))),
        bar_red: BarRed::EMPTY,
        printf: &mut stats.printf,
        mbar_changes: 0,
        turn_steps: super::warp::TURN_STEPS,
    };

    let warps = &mut sc.warps;
    let regs = &mut sc.regs;
    let frames = &mut sc.frames;
    // Rounds in a row in which parked warps saw no mbarrier change.
    let mut stalled = 0;
    let result = (|| loop {
        let changes = cx.mbar_changes;
        for (w, warp) in warps.iter_mut().enumerate() {
            if warp.state == State::Ready {
                let r = &mut regs[w * stride..w * stride + nregs];
                let f = &mut frames[w * depth..(w + 1) * depth];
                run_warp(&mut cx, w, warp, r, f, hook)?;
                if warp.state == State::Ready {
                    // Its turn ended: the block's turns are short from now on.
                    cx.turn_steps = super::warp::SHORT_TURN_STEPS;
                }
            }
        }
        // A warp still `Ready` ended its turn (warp.rs `turn`): it runs again next round.
        let turned = warps.iter().any(|w| w.state == State::Ready);
        if warps.iter().any(|w| w.state == State::Parked) {
            // Parked at mbarrier waits: retry them after a change; after a round without
            // one, let them time out; after a second, nothing can complete them.
            stalled = if cx.mbar_changes != changes || turned {
                0
            } else {
                stalled + 1
            };
            if stalled == 2 {
                return Err(crate::mbarrier::deadlock(&cx, warps));
            }
            for warp in warps.iter_mut().filter(|w| w.state == State::Parked) {
                warp.state = State::Ready;
                warp.timed_out = stalled == 1;
            }
            continue;
        }
        stalled = 0;
        if turned {
            continue;
        }
        let waiting = warps.iter().filter(|w| w.state == State::Waiting).count();
        if waiting == 0 {
            return Ok(());
        }
        // A warp whose threads have all left with `Return` does not hold a barrier up (as
        // exited threads on sm_70 and later); one that ran to the end of the kernel does.
        if waiting < warps.len()
            && waiting
                + warps
                    .iter()
                    .filter(|w| w.state == State::Done && w.live == 0)
                    .count()
                < warps.len()
        {
            return Err(fault::deadlock(&cx, warps));
        }
        // A `bar.red`: every waiting warp's live lanes get the block's result.
        let red = std::mem::replace(&mut cx.bar_red, BarRed::EMPTY);
        for (w, warp) in warps.iter_mut().enumerate() {
            if warp.state != State::Waiting {
                continue;
            }
            warp.state = State::Ready;
            if let Some(&Inst::BarrierRed { dst, op, .. }) = prog.code.get(warp.barrier_pc) {
                let v = red.result(op);
                if let Some(d) = regs.get_mut(w * stride + dst.0 as usize) {
                    for (l, x) in d.iter_mut().enumerate() {
                        if warp.live >> l & 1 == 1 {
                            *x = v;
                        }
                    }
                }
            }
        }
        if let Some(race) = cx.race.as_mut() {
            race.barrier();
        }
    })();

    stats.warp_instructions += cx.steps;
    stats.thread_instructions += cx.lanes;
    if let Some(race) = cx.race.take() {
        race.finish(&mut stats.races);
    }
    for (&pc, served) in v.shared_pcs.iter().zip(&sc.counts) {
        served.add_to(&mut stats.per_bank);
        served.add_to(&mut stats.per_pc_bank[pc * banks..(pc + 1) * banks]);
    }
    result
}

/// `thread_xyz` of every lane of every warp of a block of `block` threads (`nwarps` warps),
/// stepping instead of dividing per lane.
fn tid_lanes(block: [u32; 3], nwarps: usize) -> Vec<[Lanes; 3]> {
    let [bx, by, _] = block.map(|d| d.max(1));
    (0..nwarps)
        .map(|w| {
            let mut tid = [[0u32; WARP]; 3];
            let [mut x, mut y, mut z] = thread_xyz(block, w as u64 * 32);
            let [tx, ty, tz] = &mut tid;
            for ((tx, ty), tz) in tx.iter_mut().zip(ty.iter_mut()).zip(tz.iter_mut()) {
                (*tx, *ty, *tz) = (x, y, z);
                x += 1;
                if x == bx {
                    x = 0;
                    y += 1;
                    if y == by {
                        y = 0;
                        z = z.wrapping_add(1);
                    }
                }
            }
            tid
        })
        .collect()
}

/// Fills the registers of every warp from the program's init list (`regs` holds
/// `stride` registers per warp; `tid` is [`tid_lanes`] of the block).
fn init_regs(
    prog: &Program,
    ctaid: [u32; 3],
    stride: usize,
    tid: &[[Lanes; 3]],
    regs: &mut [Lanes],
) {
    for ((w, r), tid) in regs.chunks_exact_mut(stride).enumerate().zip(tid) {
        for &(reg, init) in &prog.init {
            r[reg.0 as usize] = match init {
                RegInit::Const(v) => [v; WARP],
                RegInit::Special(s) => match s {
                    Special::Tid(d) => tid[d as usize],
                    Special::TidLinear => per_lane(|l| (w * 32 + l) as u32),
                    Special::Ctaid(d) => [ctaid[d as usize]; WARP],
                    Special::Ntid(d) => [prog.block[d as usize]; WARP],
                    Special::Nctaid(d) => [prog.grid[d as usize]; WARP],
                    Special::LaneId => per_lane(|l| l as u32),
                    Special::WarpId => [w as u32; WARP],
                    Special::LaneMask(m) => per_lane(|l| m.of(l as u32)),
                },
            };
        }
    }
}
