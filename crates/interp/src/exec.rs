//! The lockstep warp executor: runs one block of a [`Program`].
//!
//! A block's threads are split into warps of 32 consecutive linear thread indices
//! (`tid.x + ntid.x * (tid.y + ntid.y * tid.z)`); the last warp may be partial, and its missing
//! lanes are never active. Each warp executes one instruction at a time for all of its lanes
//! under an *active mask*; `If` and loops narrow the mask and a per-warp reconvergence stack
//! widens it again after the construct.
//!
//! Scheduling is round robin and deterministic: warp 0 runs until it reaches a `Barrier` or
//! `Exit`, then warp 1, and so on; when every warp waits at a barrier they are all released.
//!
//! Every shared-memory access is priced with [`warpsim_smem::cost_into`] and added to
//! [`Stats`]; every fault (division by zero, out-of-bounds or misaligned access, a barrier that
//! cannot be passed, a runaway loop, and even a malformed [`Program`]) is a [`Fault`] value,
//! never a panic.

use crate::ast::Elem;
use crate::diag::{Diag, Phase};
use crate::ir::{Inst, Mem, Pc, Reg, Space, Special};
use crate::program::{Program, RegInit, SharedInfo};
use std::cell::RefCell;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_smem::{BankCounts, Cost, Geometry, Op, WARP};

/// One register: a 32-bit value per lane.
type Lanes = [u32; WARP];

/// All 32 lanes.
const FULL: u32 = u32::MAX;

/// Words past the end of shared memory that the inactive lanes of a store write to (as many
/// as one lane stores at most), so that a scatter needs no branch per lane.
const SPARE_WORDS: usize = 4;

/// The help attached to faults that only a malformed [`Program`] can cause.
const LOADER_BUG: &str =
    "the program was lowered inconsistently; this is a bug in warpsim's loader, please report it \
     with the program file";

/// How to run a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The shared-memory bank geometry that prices every shared access.
    pub geometry: Geometry,
    /// Most warp instructions one block may execute (all its warps together) before it
    /// faults as a runaway loop. Checked at every `LoopBack`, `ForNext` and `Barrier`.
    pub max_steps: u64,
    /// Look for shared-memory races between warps ([`crate::race`]); they are added to
    /// [`Stats::races`]. Off by default: without it, nothing is tracked.
    pub racecheck: bool,
}

impl Config {
    /// The default [`Config::max_steps`].
    pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;
}

impl Default for Config {
    fn default() -> Self {
        Config {
            geometry: Geometry::H200,
            max_steps: Config::DEFAULT_MAX_STEPS,
            racecheck: false,
        }
    }
}

/// Global memory: one array of 32-bit words per buffer of the program.
///
/// An `f64` element takes two words, little-endian (low word first). Blocks may run in
/// parallel on several threads; every access is a `Relaxed` atomic load or store.
#[derive(Debug, Default)]
pub struct Global {
    /// The words of each buffer, in the order of [`Program::buffers`].
    pub buffers: Vec<Box<[AtomicU32]>>,
}

impl Global {
    /// Zeroed buffers, sized by [`crate::BufferInfo::words`].
    pub fn new(prog: &Program) -> Self {
        Global {
            buffers: prog
                .buffers
                .iter()
                .map(|b| (0..b.words()).map(|_| AtomicU32::new(0)).collect())
                .collect(),
        }
    }

    /// Every buffer's words, without copying them (the allocations are reused).
    pub fn into_words(self) -> Vec<Vec<u32>> {
        self.buffers
            .into_iter()
            .map(|b| {
                b.into_vec()
                    .into_iter()
                    .map(AtomicU32::into_inner)
                    .collect()
            })
            .collect()
    }

    /// A copy of buffer `buf`'s words (empty if there is no such buffer).
    pub fn read(&self, buf: usize) -> Vec<u32> {
        self.buffers
            .get(buf)
            .map_or_else(Vec::new, |b| b.iter().map(|w| w.load(Relaxed)).collect())
    }

    /// Overwrites the first `words.len()` words of buffer `buf` (as many as fit; nothing if
    /// there is no such buffer). For filling buffers before a run.
    pub fn write(&self, buf: usize, words: &[u32]) {
        if let Some(b) = self.buffers.get(buf) {
            for (d, &s) in b.iter().zip(words) {
                d.store(s, Relaxed);
            }
        }
    }
}

/// What one instruction (one pc) did over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcStats {
    /// Warp executions.
    pub executions: u64,
    /// Active lanes, summed over its executions.
    pub lanes: u64,
    /// Shared-memory wavefronts (shared accesses only).
    pub wavefronts: u64,
    /// Shared-memory bank conflicts (shared accesses only).
    pub conflicts: u64,
}

/// One execution of a shared-memory instruction, kept to show which banks its lanes hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    /// The block it ran in.
    pub block: [u32; 3],
    /// The warp in the block.
    pub warp: u32,
    /// Byte address of each lane (meaningful where `mask` has the lane).
    pub addrs: [u32; WARP],
    /// Active lanes.
    pub mask: u32,
    /// Bytes per lane.
    pub width: u32,
    /// A store (else a load).
    pub store: bool,
}

/// What a run did: per instruction, per bank, and in total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Indexed by pc (one entry per instruction of [`Program::code`]).
    pub per_pc: Vec<PcStats>,
    /// Distinct words each bank served, over all shared accesses.
    pub per_bank: Vec<u64>,
    /// Distinct words each bank served, per instruction: entry `pc * banks + bank` (nonzero
    /// only for shared accesses). Summed over pcs, it is [`Stats::per_bank`].
    pub per_pc_bank: Vec<u64>,
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Thread instructions executed (active lanes summed over warp instructions).
    pub thread_instructions: u64,
    /// Shared-memory races found (only with [`Config::racecheck`]).
    pub races: crate::race::Races,
    /// Per pc, the first execution of each shared-memory instruction in the lowest block
    /// that ran it (blocks are merged in order, so this does not depend on threads).
    pub samples: Vec<Option<Box<Sample>>>,
}

impl Stats {
    /// Empty statistics for `prog` under `geom`.
    pub fn new(prog: &Program, geom: &Geometry) -> Self {
        Stats {
            per_pc: vec![PcStats::default(); prog.code.len()],
            per_bank: vec![0; geom.banks as usize],
            per_pc_bank: vec![0; prog.code.len() * geom.banks as usize],
            warp_instructions: 0,
            thread_instructions: 0,
            races: Default::default(),
            samples: vec![None; prog.code.len()],
        }
    }

    /// Adds `other` (e.g. another thread's blocks) to these.
    pub fn merge(&mut self, other: &Stats) {
        if self.per_pc.len() < other.per_pc.len() {
            self.per_pc.resize(other.per_pc.len(), PcStats::default());
        }
        for (a, b) in self.per_pc.iter_mut().zip(&other.per_pc) {
            a.executions += b.executions;
            a.lanes += b.lanes;
            a.wavefronts += b.wavefronts;
            a.conflicts += b.conflicts;
        }
        if self.per_bank.len() < other.per_bank.len() {
            self.per_bank.resize(other.per_bank.len(), 0);
        }
        for (a, b) in self.per_bank.iter_mut().zip(&other.per_bank) {
            *a += b;
        }
        if self.per_pc_bank.len() < other.per_pc_bank.len() {
            self.per_pc_bank.resize(other.per_pc_bank.len(), 0);
        }
        for (a, b) in self.per_pc_bank.iter_mut().zip(&other.per_pc_bank) {
            *a += b;
        }
        self.warp_instructions += other.warp_instructions;
        self.thread_instructions += other.thread_instructions;
        self.races.merge(&other.races);
        if self.samples.len() < other.samples.len() {
            self.samples.resize(other.samples.len(), None);
        }
        for (a, b) in self.samples.iter_mut().zip(&other.samples) {
            if a.is_none() {
                a.clone_from(b);
            }
        }
    }

    /// Shared-memory wavefronts over all instructions.
    pub fn wavefronts(&self) -> u64 {
        self.per_pc.iter().map(|p| p.wavefronts).sum()
    }

    /// Shared-memory bank conflicts over all instructions.
    pub fn conflicts(&self) -> u64 {
        self.per_pc.iter().map(|p| p.conflicts).sum()
    }
}

/// A runtime fault: what went wrong, at which instruction, in which block and thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The instruction (None for faults about the run as a whole, such as a bad geometry).
    pub pc: Option<usize>,
    /// The block (`ctaid`).
    pub block: [u32; 3],
    /// The thread (`tid`), when one thread is to blame.
    pub thread: Option<[u32; 3]>,
    /// What went wrong (without the block and thread; see [`Fault::text`]).
    pub message: String,
    /// What to change.
    pub help: Option<String>,
}

impl Fault {
    fn new(pc: Option<usize>, block: [u32; 3], message: String, help: Option<String>) -> Self {
        Fault {
            pc,
            block,
            thread: None,
            message,
            help,
        }
    }

    /// The message with the thread and block that faulted.
    pub fn text(&self) -> String {
        match self.thread {
            Some(t) => format!(
                "{} (thread {} of block {})",
                self.message,
                xyz(t),
                xyz(self.block)
            ),
            None => format!("{} (block {})", self.message, xyz(self.block)),
        }
    }

    /// A [`Phase::Runtime`] diagnostic at the faulting instruction's source line.
    pub fn into_diag(self, prog: &Program) -> Diag {
        let text = self.text();
        match self.pc.and_then(|pc| prog.info.get(pc)) {
            Some(info) => {
                let mut d = Diag::at_line(
                    Phase::Runtime,
                    &prog.path,
                    &prog.source,
                    info.line,
                    info.col,
                    text,
                    self.help,
                );
                d.label = "faulted here".into();
                d
            }
            None => Diag::file(Phase::Runtime, &prog.path, text, self.help),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

impl std::error::Error for Fault {}

fn xyz(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

/// `0-15, 17, 20-31`
fn lane_list(mask: u32) -> String {
    let mut parts = Vec::new();
    let mut l = 0;
    while l < 32 {
        if mask >> l & 1 == 1 {
            let s = l;
            while l + 1 < 32 && mask >> (l + 1) & 1 == 1 {
                l += 1;
            }
            parts.push(if s == l {
                s.to_string()
            } else {
                format!("{s}-{l}")
            });
        }
        l += 1;
    }
    parts.join(", ")
}

/// `warp 1 (threads 32-63)`, `warps 1 (threads 32-63), 3 (threads 96-127)`, …
fn warp_list(ws: &[usize], threads: u64) -> String {
    let mut s = String::from(if ws.len() == 1 { "warp " } else { "warps " });
    for (i, &w) in ws.iter().enumerate() {
        if i == 8 {
            s.push_str(&format!(" and {} more", ws.len() - 8));
            break;
        }
        if i > 0 {
            s.push_str(", ");
        }
        let first = w as u64 * 32;
        let last = (first + 31).min(threads.saturating_sub(1));
        s.push_str(&format!("{w} (threads {first}-{last})"));
    }
    s
}

/// One frame of a warp's reconvergence stack.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    /// The active mask before the `If` or loop.
    saved: u32,
    /// Lanes still to run the else-part of an `If`.
    pending: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ready,
    Waiting,
    Done,
}

/// One warp's control state (its registers and frames live in the block's flat arrays).
#[derive(Clone, Copy, Debug)]
struct Warp {
    pc: usize,
    active: u32,
    /// Lanes that hold a thread.
    live: u32,
    /// Frames in use.
    sp: usize,
    state: State,
    /// The barrier it waits at (while `Waiting`).
    barrier_pc: usize,
}

/// What a block's warps share while running.
struct Ctx<'a> {
    prog: &'a Program,
    cfg: &'a Config,
    ctaid: [u32; 3],
    global: &'a Global,
    per_pc: &'a mut [PcStats],
    /// [`Stats::samples`].
    samples: &'a mut [Option<Box<Sample>>],
    /// This block's words served per bank, one counter per shared-access pc (index in
    /// `bank_row`); added to [`Stats::per_bank`] and [`Stats::per_pc_bank`] at the end.
    pc_bank: &'a mut [BankCounts],
    /// Index into `pc_bank` for each pc (0 for instructions that are not shared accesses).
    bank_row: &'a [usize],
    shared: &'a mut [u32],
    threads: u64,
    steps: u64,
    lanes: u64,
    /// The race detector (only with [`Config::racecheck`]).
    race: Option<Box<crate::race::Shadow>>,
}

impl Ctx<'_> {
    fn thread(&self, w: usize, lane: u32) -> [u32; 3] {
        thread_xyz(self.prog.block, w as u64 * 32 + lane as u64)
    }

    fn fault(&self, pc: usize, message: String, help: Option<String>) -> Fault {
        Fault::new(Some(pc), self.ctaid, message, help)
    }

    fn lane_fault(
        &self,
        pc: usize,
        w: usize,
        lane: u32,
        message: String,
        help: Option<String>,
    ) -> Fault {
        let mut f = self.fault(pc, message, help);
        f.thread = Some(self.thread(w, lane));
        f
    }

    /// The source text of an instruction, for messages.
    fn text(&self, pc: usize) -> &str {
        self.prog.info.get(pc).map_or("", |i| i.text.as_str())
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
pub fn run_block(
    prog: &Program,
    cfg: &Config,
    ctaid: [u32; 3],
    global: &Global,
    stats: &mut Stats,
) -> Result<(), Fault> {
    run_reusing(prog, cfg, ctaid, global, stats)
}

/// What a block needs besides the program: kept between the blocks that one thread runs, so
/// that a block does not allocate (every block sets the contents afresh).
#[derive(Default)]
struct Scratch {
    regs: Vec<Lanes>,
    /// [`tid_lanes`] of `tid_block`.
    tid: Vec<[Lanes; 3]>,
    tid_block: Option<[u32; 3]>,
    frames: Vec<Frame>,
    warps: Vec<Warp>,
    shared: Vec<u32>,
    /// For each pc, its index in `counts` (shared accesses only).
    bank_row: Vec<usize>,
    /// The shared-access pcs, in the order of `counts`.
    shared_pcs: Vec<usize>,
    counts: Vec<BankCounts>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// [`run_block`] with this thread's [`Scratch`].
fn run_reusing(
    prog: &Program,
    cfg: &Config,
    ctaid: [u32; 3],
    global: &Global,
    stats: &mut Stats,
) -> Result<(), Fault> {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut sc) => run(prog, cfg, ctaid, global, stats, &mut sc),
        // (Only if a block ran inside a block: not done, but not worth a panic either.)
        Err(_) => run(prog, cfg, ctaid, global, stats, &mut Scratch::default()),
    })
}

/// [`run_block`] in `sc`; the registers at the end are in `sc.regs` (warp `w`'s are
/// `regs[w * max(nregs, 1)..][..nregs]`).
fn run(
    prog: &Program,
    cfg: &Config,
    ctaid: [u32; 3],
    global: &Global,
    stats: &mut Stats,
    sc: &mut Scratch,
) -> Result<(), Fault> {
    check(prog, cfg, ctaid, global)?;
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
        }
    }));
    sc.shared.clear();
    sc.shared
        .resize(prog.shared_bytes.div_ceil(4) as usize + SPARE_WORDS, 0);

    if stats.per_pc.len() < prog.code.len() {
        stats.per_pc.resize(prog.code.len(), PcStats::default());
    }
    if stats.samples.len() < prog.code.len() {
        stats.samples.resize(prog.code.len(), None);
    }
    let banks = cfg.geometry.banks as usize;
    if stats.per_bank.len() < banks {
        stats.per_bank.resize(banks, 0);
    }
    if stats.per_pc_bank.len() < prog.code.len() * banks {
        stats.per_pc_bank.resize(prog.code.len() * banks, 0);
    }
    sc.bank_row.clear();
    sc.bank_row.resize(prog.code.len(), 0);
    sc.shared_pcs.clear();
    for (pc, i) in prog.code.iter().enumerate() {
        if matches!(i.mem(), Some((m, _)) if m.space == Space::Shared) {
            sc.bank_row[pc] = sc.shared_pcs.len();
            sc.shared_pcs.push(pc);
        }
    }
    sc.counts.truncate(sc.shared_pcs.len());
    for c in &mut sc.counts {
        c.clear();
    }
    sc.counts
        .resize(sc.shared_pcs.len(), BankCounts::new(cfg.geometry.banks));
    let mut cx = Ctx {
        prog,
        cfg,
        ctaid,
        global,
        per_pc: &mut stats.per_pc,
        samples: &mut stats.samples,
        pc_bank: &mut sc.counts,
        bank_row: &sc.bank_row,
        shared: &mut sc.shared,
        threads,
        steps: 0,
        lanes: 0,
        race: cfg
            .racecheck
            .then(|| Box::new(crate::race::Shadow::new(prog, ctaid))),
    };

    let warps = &mut sc.warps;
    let regs = &mut sc.regs;
    let frames = &mut sc.frames;
    let result = (|| loop {
        for (w, warp) in warps.iter_mut().enumerate() {
            if warp.state == State::Ready {
                let r = &mut regs[w * stride..w * stride + nregs];
                let f = &mut frames[w * depth..(w + 1) * depth];
                run_warp(&mut cx, w, warp, r, f)?;
            }
        }
        let waiting = warps.iter().filter(|w| w.state == State::Waiting).count();
        if waiting == 0 {
            return Ok(());
        }
        if waiting < warps.len() {
            return Err(deadlock(&cx, warps));
        }
        for w in warps.iter_mut() {
            w.state = State::Ready;
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
    for (&pc, served) in sc.shared_pcs.iter().zip(&sc.counts) {
        served.add_to(&mut stats.per_bank);
        served.add_to(&mut stats.per_pc_bank[pc * banks..(pc + 1) * banks]);
    }
    result
}

/// The fault when some warps wait at a barrier that the others finished without reaching.
fn deadlock(cx: &Ctx, warps: &[Warp]) -> Fault {
    let done: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Done)
        .collect();
    let waiting: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Waiting)
        .collect();
    let pc = warps[waiting[0]].barrier_pc;
    cx.fault(
        pc,
        format!(
            "barrier never reached by {}: they finished without reaching it, while {} wait{} \
             at this barrier",
            warp_list(&done, cx.threads),
            warp_list(&waiting, cx.threads),
            if waiting.len() == 1 { "s" } else { "" },
        ),
        Some(
            "every thread of the block must reach each barrier: move the barrier out of the \
             `If` whose condition differs between warps, or let every warp run it"
                .into(),
        ),
    )
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
                },
            };
        }
    }
}

/// Checks everything the executor indexes with, so that running cannot panic.
fn check(prog: &Program, cfg: &Config, ctaid: [u32; 3], global: &Global) -> Result<(), Fault> {
    let bad = |pc: Option<usize>, m: String| Fault::new(pc, ctaid, m, Some(LOADER_BUG.into()));
    cfg.geometry.validate().map_err(|e| {
        Fault::new(
            None,
            ctaid,
            format!("invalid shared-memory geometry ({}): {e}", cfg.geometry),
            None,
        )
    })?;
    let threads: u64 = prog.block.iter().map(|&d| d as u64).product();
    if threads > u32::MAX as u64 / 2 {
        return Err(Fault::new(
            None,
            ctaid,
            format!("a block of {threads} threads is too large to run"),
            Some("use at most 1024 threads per block, as on the GPU".into()),
        ));
    }
    if prog.shared_bytes > 1 << 31 {
        return Err(bad(
            None,
            format!("{} bytes of shared memory is too much", prog.shared_bytes),
        ));
    }
    for (i, s) in prog.shared.iter().enumerate() {
        check_shared(s, prog.shared_bytes)
            .map_err(|m| bad(None, format!("shared array {i}: {m}")))?;
    }
    for (i, b) in prog.buffers.iter().enumerate() {
        let need = b.len.checked_mul(b.elem.bytes() as u64 / 4);
        let have = global.buffers.get(i).map_or(0, |g| g.len() as u64);
        if need.is_none_or(|n| have < n) {
            return Err(Fault::new(
                None,
                ctaid,
                format!(
                    "global memory does not match the program: buffer `{}` needs {} words, \
                     but has {have}",
                    b.name,
                    need.map_or_else(|| "too many".to_string(), |n| n.to_string())
                ),
                Some("create global memory with `Global::new` for this program".into()),
            ));
        }
    }
    for &(reg, init) in &prog.init {
        if reg.0 as usize >= prog.nregs {
            return Err(bad(
                None,
                format!(
                    "initialised register {reg} is outside the program's {} registers",
                    prog.nregs
                ),
            ));
        }
        if let RegInit::Special(
            Special::Tid(d) | Special::Ctaid(d) | Special::Ntid(d) | Special::Nctaid(d),
        ) = init
        {
            if d >= 3 {
                return Err(bad(None, format!("special register of dimension {d}")));
            }
        }
    }
    for (pc, inst) in prog.code.iter().enumerate() {
        check_inst(prog, pc, inst).map_err(|m| bad(Some(pc), m))?;
    }
    Ok(())
}

/// Checks a shared array's layout enough that [`SharedInfo::physical`] cannot overflow or
/// divide by zero. (Whether an address lands inside the array is checked at every access.)
fn check_shared(s: &SharedInfo, shared_bytes: u32) -> Result<(), String> {
    let Some((&last, outer)) = s.dims.split_last() else {
        return Err("no dimensions".into());
    };
    if s.dims.len() > 3 {
        return Err(format!("{} dimensions (at most 3)", s.dims.len()));
    }
    let rows: u64 = outer.iter().map(|&d| d as u64).product();
    let span = rows
        .checked_mul(s.row_len.max(last) as u64)
        .and_then(|n| n.checked_add(2 * last as u64));
    if span.is_none_or(|n| n > u32::MAX as u64 / 16) {
        return Err("too large".into());
    }
    if s.swizzle > 0 && last / s.swizzle == 0 {
        return Err(format!(
            "swizzle group {} is larger than its rows ({last} elements)",
            s.swizzle
        ));
    }
    if s.base as u64 + s.bytes as u64 > shared_bytes as u64 {
        return Err(format!(
            "it ends at byte {}, beyond the block's {shared_bytes} bytes of shared memory",
            s.base as u64 + s.bytes as u64
        ));
    }
    Ok(())
}

fn elem_words(e: Elem) -> usize {
    e.bytes() as usize / 4
}

/// Checks one instruction's registers, jump targets and memory operands.
///
/// Only `LoopBack` and `ForNext` may jump backwards (where the step limit is checked), so
/// every run ends.
fn check_inst(prog: &Program, pc: usize, inst: &Inst) -> Result<(), String> {
    let n = prog.nregs;
    let reg = |r: Reg, w: usize| {
        if r.0 as usize + w <= n {
            Ok(())
        } else {
            Err(format!(
                "register {r} ({w} word{}) is outside the program's {n} registers",
                if w == 1 { "" } else { "s" }
            ))
        }
    };
    let target = |p: Pc| {
        if (p as usize) < prog.code.len() {
            Ok(())
        } else {
            Err(format!(
                "jump target {p} is outside the program's {} instructions",
                prog.code.len()
            ))
        }
    };
    let forward = |p: Pc| {
        if (p as usize) <= pc {
            Err(format!("a forward jump goes back to {p}"))
        } else {
            target(p)
        }
    };
    use Inst::*;
    if let Some(ops) = inst.operands() {
        reg(ops.dst.0, ops.dst.1 as usize)?;
        for &(r, w) in ops.srcs() {
            reg(r, w as usize)?;
        }
    }
    match *inst {
        DivS2 { k, .. } | RemS2 { k, .. } if !(1..=30).contains(&k) => {
            Err(format!("a division by 2^{k}"))
        }
        Load(m) | Store(m) => {
            let (elem, rank) = match m.space {
                Space::Shared => {
                    let s = prog
                        .shared
                        .get(m.array as usize)
                        .ok_or_else(|| format!("shared array {} does not exist", m.array))?;
                    (s.elem, s.dims.len())
                }
                Space::Global => {
                    let b = prog
                        .buffers
                        .get(m.array as usize)
                        .ok_or_else(|| format!("buffer {} does not exist", m.array))?;
                    (b.elem, 1)
                }
            };
            if m.rank as usize != rank || !(1..=3).contains(&rank) {
                return Err(format!(
                    "an access with {} indices to an array of {rank} dimensions",
                    m.rank
                ));
            }
            if !matches!(m.vec, 1 | 2 | 4) || elem.bytes() * m.vec as u32 > 16 {
                return Err(format!("a vector of {} {elem} elements", m.vec));
            }
            for &r in &m.idx[..rank] {
                reg(r, 1)?;
            }
            reg(m.data, m.words(elem) as usize)
        }
        If { c, else_pc, end_pc } => {
            reg(c, 1)?;
            forward(else_pc)?;
            forward(end_pc)
        }
        Else { end_pc } => forward(end_pc),
        LoopTest { c, exit_pc } => {
            reg(c, 1)?;
            forward(exit_pc)
        }
        LoopBack { head_pc } => target(head_pc),
        ForTest { a, b, exit_pc, .. } => {
            reg(a, 1)?;
            reg(b, 1)?;
            forward(exit_pc)
        }
        ForNext { var, step, head_pc } => {
            reg(var, 1)?;
            reg(step, 1)?;
            target(head_pc)
        }
        EndIf | LoopStart | LoopEnd | Barrier | Exit => Ok(()),
        // Computing instructions: their registers were checked above. Anything else has
        // not been checked, so it is refused (fails closed for a new kind of instruction).
        _ if inst.operands().is_some() => Ok(()),
        _ => Err(format!("`{inst:?}` has no checks")),
    }
}

/// `x / 2^k` for a signed `x`, rounding toward zero (`k` in 1..=31): negative numbers are
/// biased by `2^k - 1` before the arithmetic shift, which alone would round down.
#[inline(always)]
fn div_pow2(x: u32, k: u8) -> i32 {
    let k = k as u32 & 31;
    let bias = ((x as i32 >> 31) as u32).wrapping_shr(32 - k);
    (x.wrapping_add(bias) as i32) >> k
}

/// Writes `v` into the lanes of `d` selected by `mask`.
#[inline(always)]
fn put(d: &mut Lanes, v: Lanes, mask: u32) {
    if mask == FULL {
        *d = v;
    } else {
        let on = lane_flags(mask);
        for ((o, n), on) in d.iter_mut().zip(v).zip(on) {
            *o = (n & on) | (*o & !on);
        }
    }
}

/// `BIT[l] = 1 << l`: with it, per-lane mask tests and mask building vectorize (shifting by
/// the lane number does not, without AVX2).
const BIT: Lanes = {
    let mut b = [0; WARP];
    let mut l = 0;
    while l < WARP {
        b[l] = 1 << l;
        l += 1;
    }
    b
};

/// `[f(0), f(1), …, f(31)]`, as a plain counted loop (which the compiler unrolls and
/// vectorizes more reliably than `std::array::from_fn`).
#[inline(always)]
fn per_lane<T: Copy + Default>(mut f: impl FnMut(usize) -> T) -> [T; WARP] {
    let mut out = [T::default(); WARP];
    for (l, o) in out.iter_mut().enumerate() {
        *o = f(l);
    }
    out
}

/// All ones in the lanes of `mask`, zero elsewhere.
#[inline(always)]
fn lane_flags(mask: u32) -> Lanes {
    per_lane(|l| ((mask & BIT[l]) != 0) as u32 * u32::MAX)
}

/// The lanes whose top bit is set in `flags` (a lane of comparison results, all ones or
/// all zeros, gives its truth).
///
/// SSE2 (part of x86-64) has an instruction for four lanes at a time; without it (and even
/// as a map and OR-reduction over `BIT`) the compiler peels lane 0 and reads the rest at
/// 4-byte offsets, which defeats store-to-load forwarding right after the register was
/// written: a fifth of the interpreter's time once went to loop tests.
#[inline(always)]
fn movemask(flags: &Lanes) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_packs_epi16, _mm_packs_epi32,
        };
        // Saturating packs 32 -> 16 -> 8 bits keep each lane's sign, in lane order; then one
        // bit per byte.
        // SAFETY: SSE2 is part of the x86-64 baseline; the eight unaligned loads read the 128
        // bytes of `flags`.
        unsafe {
            let p = flags.as_ptr() as *const __m128i;
            let q = |i: usize| _mm_loadu_si128(p.add(i));
            let lo = _mm_packs_epi16(_mm_packs_epi32(q(0), q(1)), _mm_packs_epi32(q(2), q(3)));
            let hi = _mm_packs_epi16(_mm_packs_epi32(q(4), q(5)), _mm_packs_epi32(q(6), q(7)));
            (_mm_movemask_epi8(lo) as u32 & 0xffff) | (_mm_movemask_epi8(hi) as u32) << 16
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        or_lanes(&per_lane(|l| BIT[l] & ((flags[l] as i32) >> 31) as u32))
    }
}

/// The lanes where `flags` is not zero.
#[inline(always)]
fn mask_of(flags: &Lanes) -> u32 {
    movemask(&per_lane(|l| ((flags[l] != 0) as u32).wrapping_neg()))
}

/// The OR of all lanes, as a tree over aligned halves.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn or_lanes(x: &Lanes) -> u32 {
    let mut v = *x;
    let mut n = WARP / 2;
    while n >= 1 {
        for l in 0..n {
            v[l] |= v[l + n];
        }
        n /= 2;
    }
    v[0]
}

/// Lanes whose value is not zero.
#[inline(always)]
fn nonzero(x: &Lanes) -> u32 {
    mask_of(x)
}

#[inline(always)]
fn get64(r: &[Lanes], a: Reg) -> [f64; WARP] {
    let lo = r[a.0 as usize];
    let hi = r[a.0 as usize + 1];
    per_lane(|l| f64::from_bits(lo[l] as u64 | (hi[l] as u64) << 32))
}

#[inline(always)]
fn put64(r: &mut [Lanes], dst: Reg, v: [f64; WARP], mask: u32) {
    let lo = per_lane(|l| v[l].to_bits() as u32);
    let hi = per_lane(|l| (v[l].to_bits() >> 32) as u32);
    put(&mut r[dst.0 as usize], lo, mask);
    put(&mut r[dst.0 as usize + 1], hi, mask);
}

/// Runs warp `w` until it reaches a barrier or exits.
///
/// The interpreter is compiled twice: for baseline x86-64 and, chosen at run time on CPUs
/// that have them, with AVX2 and FMA (its 32-lane loops take half the instructions). Both
/// compute exactly the same results (FMA rounds once either way; see [`fma_f32`]).
fn run_warp(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
) -> Result<(), Fault> {
    #[cfg(target_arch = "x86_64")]
    if has_v3() {
        // SAFETY: the CPU has every feature that `run_warp_v3` enables (checked just above).
        return unsafe { run_warp_v3(cx, w, warp, r, frames) };
    }
    run_warp_in::<false>(cx, w, warp, r, frames)
}

/// Whether the CPU has what [`run_warp_v3`] is compiled for (std caches the answer).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_v3() -> bool {
    #[cfg(test)]
    if tests::BASELINE_ONLY.with(|b| b.get()) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("lzcnt")
}

/// [`run_warp_in`] compiled for x86-64-v3 (AVX2, FMA, BMI, POPCNT, LZCNT).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,popcnt,lzcnt")]
fn run_warp_v3(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
) -> Result<(), Fault> {
    run_warp_in::<true>(cx, w, warp, r, frames)
}

/// [`run_warp`]; `V3`: the code is compiled for x86-64-v3 (so `mul_add` is one FMA
/// instruction, and AVX2 gathers are there), in [`run_warp_v3`].
#[inline(always)]
fn run_warp_in<const V3: bool>(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
) -> Result<(), Fault> {
    // The per-pc counters, out of `cx` while the warp runs, and as long as the code (the
    // executor made them so), so that indexing them by a valid pc needs no check.
    let per_pc = std::mem::take(&mut cx.per_pc);
    let ncode = cx.prog.code.len().min(per_pc.len());
    let code = &cx.prog.code[..ncode];
    let pcs = &mut per_pc[..ncode];
    let max_steps = cx.cfg.max_steps;
    let mut pc = warp.pc;
    let mut active = warp.active;
    let mut sp = warp.sp;
    let mut steps = cx.steps;
    let mut lanes = cx.lanes;
    let mut counted = active;
    let mut n = active.count_ones() as u64;

    // `dst = f(a, b)` on u32 lanes.
    macro_rules! int2 {
        ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let xs = r[$a.0 as usize];
            let ys = r[$b.0 as usize];
            let v: Lanes = per_lane(|l| {
                let $x: u32 = xs[l];
                let $y: u32 = ys[l];
                $e
            });
            put(&mut r[$dst.0 as usize], v, active);
        }};
    }
    // `dst = f(a)` on u32 lanes.
    macro_rules! int1 {
        ($dst:expr, $a:expr, |$x:ident| $e:expr) => {{
            let xs = r[$a.0 as usize];
            let v: Lanes = per_lane(|l| {
                let $x: u32 = xs[l];
                $e
            });
            put(&mut r[$dst.0 as usize], v, active);
        }};
    }
    // `dst = f(a, b)` on f32 lanes (the result is a u32 bit pattern).
    macro_rules! f32_2 {
        ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
            int2!($dst, $a, $b, |xb, yb| {
                let $x = f32::from_bits(xb);
                let $y = f32::from_bits(yb);
                $e
            })
        };
    }
    macro_rules! f32_1 {
        ($dst:expr, $a:expr, |$x:ident| $e:expr) => {
            int1!($dst, $a, |xb| {
                let $x = f32::from_bits(xb);
                ($e).to_bits()
            })
        };
    }
    // `dst:dst+1 = f(a:a+1, b:b+1)` on f64 lanes.
    macro_rules! f64_2 {
        ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let xs = get64(r, $a);
            let ys = get64(r, $b);
            let v: [f64; WARP] = per_lane(|l| {
                let $x = xs[l];
                let $y = ys[l];
                $e
            });
            put64(r, $dst, v, active);
        }};
    }
    macro_rules! f64_1 {
        ($dst:expr, $a:expr, |$x:ident| $e:expr) => {{
            let xs = get64(r, $a);
            let v: [f64; WARP] = per_lane(|l| {
                let $x = xs[l];
                $e
            });
            put64(r, $dst, v, active);
        }};
    }
    // `dst = f(a:a+1, b:b+1)` on f64 lanes, giving a 32-bit boolean.
    macro_rules! f64_cmp {
        ($dst:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {{
            let xs = get64(r, $a);
            let ys = get64(r, $b);
            let v: Lanes = per_lane(|l| {
                let $x = xs[l];
                let $y = ys[l];
                ($e) as u32
            });
            put(&mut r[$dst.0 as usize], v, active);
        }};
    }
    // Faults if an active lane divides by zero.
    macro_rules! divisor {
        ($b:expr, $what:expr) => {{
            let zero = !nonzero(&r[$b.0 as usize]) & active;
            if zero != 0 {
                let lane = zero.trailing_zeros();
                let text = cx.text(pc);
                break Err(cx.lane_fault(
                    pc,
                    w,
                    lane,
                    if text.is_empty() {
                        format!("integer {} by zero", $what)
                    } else {
                        format!("integer {} by zero in `{text}`", $what)
                    },
                    Some(
                        "make sure the divisor is never 0 in a thread that runs this: guard \
                         the division with an `If` (`?:` evaluates both sides, so it does not \
                         help)"
                            .into(),
                    ),
                ));
            }
        }};
    }
    macro_rules! frame_fault {
        ($what:expr) => {
            break Err(cx.fault(pc, $what, Some(LOADER_BUG.into())))
        };
    }
    macro_rules! steps_check {
        ($what:expr) => {
            if steps > max_steps {
                break Err(cx.fault(
                    pc,
                    format!(
                        "the block ran more than {max_steps} warp instructions (the --max-steps \
                         limit) without finishing: {} may never end",
                        $what
                    ),
                    Some("raise --max-steps or check the loop's condition".into()),
                ));
            }
        };
    }

    let result: Result<(), Fault> = loop {
        let Some(&inst) = code.get(pc) else {
            break Err(cx.fault(
                pc.min(code.len().saturating_sub(1)),
                format!(
                    "execution ran past the end of the program (pc {pc} of {})",
                    code.len()
                ),
                Some(LOADER_BUG.into()),
            ));
        };
        if active != counted {
            // (The mask changes only at control flow; a popcount is a dozen instructions
            // on baseline x86-64.)
            counted = active;
            n = active.count_ones() as u64;
        }
        let ps = &mut pcs[pc];
        ps.executions += 1;
        ps.lanes += n;
        steps += 1;
        lanes += n;

        use Inst::*;
        match inst {
            Mov { dst, a } => {
                let v = r[a.0 as usize];
                put(&mut r[dst.0 as usize], v, active);
            }
            Mov64 { dst, a } => {
                let lo = r[a.0 as usize];
                let hi = r[a.0 as usize + 1];
                put(&mut r[dst.0 as usize], lo, active);
                put(&mut r[dst.0 as usize + 1], hi, active);
            }
            Select { dst, c, a, b } => {
                let cs = r[c.0 as usize];
                let (xs, ys) = (r[a.0 as usize], r[b.0 as usize]);
                let v = per_lane(|l| if cs[l] != 0 { xs[l] } else { ys[l] });
                put(&mut r[dst.0 as usize], v, active);
            }
            Select64 { dst, c, a, b } => {
                let cs = r[c.0 as usize];
                let (xl, xh) = (r[a.0 as usize], r[a.0 as usize + 1]);
                let (yl, yh) = (r[b.0 as usize], r[b.0 as usize + 1]);
                let lo = per_lane(|l| if cs[l] != 0 { xl[l] } else { yl[l] });
                let hi = per_lane(|l| if cs[l] != 0 { xh[l] } else { yh[l] });
                put(&mut r[dst.0 as usize], lo, active);
                put(&mut r[dst.0 as usize + 1], hi, active);
            }

            Add { dst, a, b } => int2!(dst, a, b, |x, y| x.wrapping_add(y)),
            Sub { dst, a, b } => int2!(dst, a, b, |x, y| x.wrapping_sub(y)),
            Mul { dst, a, b } => int2!(dst, a, b, |x, y| x.wrapping_mul(y)),
            DivS { dst, a, b } => {
                divisor!(b, "division");
                int2!(dst, a, b, |x, y| if y == 0 {
                    0
                } else {
                    (x as i32).wrapping_div(y as i32) as u32
                })
            }
            DivU { dst, a, b } => {
                divisor!(b, "division");
                int2!(dst, a, b, |x, y| x.checked_div(y).unwrap_or(0))
            }
            RemS { dst, a, b } => {
                divisor!(b, "remainder");
                int2!(dst, a, b, |x, y| if y == 0 {
                    0
                } else {
                    (x as i32).wrapping_rem(y as i32) as u32
                })
            }
            RemU { dst, a, b } => {
                divisor!(b, "remainder");
                int2!(dst, a, b, |x, y| x.checked_rem(y).unwrap_or(0))
            }
            And { dst, a, b } => int2!(dst, a, b, |x, y| x & y),
            Or { dst, a, b } => int2!(dst, a, b, |x, y| x | y),
            Xor { dst, a, b } => int2!(dst, a, b, |x, y| x ^ y),
            Shl { dst, a, b } => int2!(dst, a, b, |x, y| if y < 32 { x << y } else { 0 }),
            ShrS { dst, a, b } => int2!(dst, a, b, |x, y| ((x as i32) >> y.min(31)) as u32),
            ShrU { dst, a, b } => int2!(dst, a, b, |x, y| if y < 32 { x >> y } else { 0 }),
            MinS { dst, a, b } => int2!(dst, a, b, |x, y| (x as i32).min(y as i32) as u32),
            MinU { dst, a, b } => int2!(dst, a, b, |x, y| x.min(y)),
            MaxS { dst, a, b } => int2!(dst, a, b, |x, y| (x as i32).max(y as i32) as u32),
            MaxU { dst, a, b } => int2!(dst, a, b, |x, y| x.max(y)),
            Eq { dst, a, b } => int2!(dst, a, b, |x, y| (x == y) as u32),
            Ne { dst, a, b } => int2!(dst, a, b, |x, y| (x != y) as u32),
            LtS { dst, a, b } => int2!(dst, a, b, |x, y| ((x as i32) < (y as i32)) as u32),
            LtU { dst, a, b } => int2!(dst, a, b, |x, y| (x < y) as u32),
            LeS { dst, a, b } => int2!(dst, a, b, |x, y| ((x as i32) <= (y as i32)) as u32),
            LeU { dst, a, b } => int2!(dst, a, b, |x, y| (x <= y) as u32),
            Neg { dst, a } => int1!(dst, a, |x| x.wrapping_neg()),
            Not { dst, a } => int1!(dst, a, |x| !x),
            AbsS { dst, a } => int1!(dst, a, |x| (x as i32).wrapping_abs() as u32),
            Mad { dst, a, b, c } => {
                let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
                let v = per_lane(|l| xs[l].wrapping_mul(ys[l]).wrapping_add(zs[l]));
                put(&mut r[dst.0 as usize], v, active);
            }
            DivS2 { dst, a, k } => int1!(dst, a, |x| div_pow2(x, k) as u32),
            RemS2 { dst, a, k } => {
                int1!(dst, a, |x| (x as i32).wrapping_sub(div_pow2(x, k) << k)
                    as u32)
            }

            FAdd { dst, a, b } => f32_2!(dst, a, b, |x, y| (x + y).to_bits()),
            FSub { dst, a, b } => f32_2!(dst, a, b, |x, y| (x - y).to_bits()),
            FMul { dst, a, b } => f32_2!(dst, a, b, |x, y| (x * y).to_bits()),
            FDiv { dst, a, b } => f32_2!(dst, a, b, |x, y| (x / y).to_bits()),
            FRem { dst, a, b } => f32_2!(dst, a, b, |x, y| (x % y).to_bits()),
            FMin { dst, a, b } => f32_2!(dst, a, b, |x, y| x.min(y).to_bits()),
            FMax { dst, a, b } => f32_2!(dst, a, b, |x, y| x.max(y).to_bits()),
            FEq { dst, a, b } => f32_2!(dst, a, b, |x, y| (x == y) as u32),
            FNe { dst, a, b } => f32_2!(dst, a, b, |x, y| (x != y) as u32),
            FLt { dst, a, b } => f32_2!(dst, a, b, |x, y| (x < y) as u32),
            FLe { dst, a, b } => f32_2!(dst, a, b, |x, y| (x <= y) as u32),
            FNeg { dst, a } => f32_1!(dst, a, |x| -x),
            FAbs { dst, a } => f32_1!(dst, a, |x| x.abs()),
            FSqrt { dst, a } => f32_1!(dst, a, |x| x.sqrt()),
            FFma { dst, a, b, c } => {
                let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
                let v = per_lane(|l| {
                    let f = f32::from_bits;
                    fma_f32::<V3>(f(xs[l]), f(ys[l]), f(zs[l])).to_bits()
                });
                put(&mut r[dst.0 as usize], v, active);
            }

            DAdd { dst, a, b } => f64_2!(dst, a, b, |x, y| x + y),
            DSub { dst, a, b } => f64_2!(dst, a, b, |x, y| x - y),
            DMul { dst, a, b } => f64_2!(dst, a, b, |x, y| x * y),
            DDiv { dst, a, b } => f64_2!(dst, a, b, |x, y| x / y),
            DRem { dst, a, b } => f64_2!(dst, a, b, |x, y| x % y),
            DMin { dst, a, b } => f64_2!(dst, a, b, |x, y| x.min(y)),
            DMax { dst, a, b } => f64_2!(dst, a, b, |x, y| x.max(y)),
            DEq { dst, a, b } => f64_cmp!(dst, a, b, |x, y| x == y),
            DNe { dst, a, b } => f64_cmp!(dst, a, b, |x, y| x != y),
            DLt { dst, a, b } => f64_cmp!(dst, a, b, |x, y| x < y),
            DLe { dst, a, b } => f64_cmp!(dst, a, b, |x, y| x <= y),
            DNeg { dst, a } => f64_1!(dst, a, |x| -x),
            DAbs { dst, a } => f64_1!(dst, a, |x| x.abs()),
            DSqrt { dst, a } => f64_1!(dst, a, |x| x.sqrt()),
            DFma { dst, a, b, c } => {
                let (xs, ys, zs) = (get64(r, a), get64(r, b), get64(r, c));
                let v = per_lane(|l| xs[l].mul_add(ys[l], zs[l]));
                put64(r, dst, v, active);
            }

            Cvt { dst, a, from, to } => cvt(r, dst, a, from, to, active),

            Load(_) | Store(_) => {
                // The operand is read where it lies in the code, not from the copy of the
                // instruction made for the dispatch (fewer stack round trips, which once
                // stalled on store forwarding here).
                let (Load(m) | Store(m)) = &code[pc] else {
                    unreachable!("matched just above")
                };
                let store = matches!(inst, Store(_));
                match access::<V3>(cx, pc, w, m, store, active, r) {
                    Ok(cost) => {
                        ps.wavefronts += cost.wavefronts as u64;
                        ps.conflicts += cost.conflicts as u64;
                    }
                    Err(f) => break Err(f),
                }
            }

            If {
                c,
                else_pc,
                end_pc: _,
            } => {
                if sp >= frames.len() {
                    frame_fault!(format!(
                        "`If` nested deeper than the program's max_depth ({})",
                        frames.len()
                    ));
                }
                let taken = nonzero(&r[c.0 as usize]) & active;
                let other = active & !taken;
                if taken != 0 {
                    frames[sp] = Frame {
                        saved: active,
                        pending: other,
                    };
                    active = taken;
                    pc += 1;
                } else {
                    frames[sp] = Frame {
                        saved: active,
                        pending: 0,
                    };
                    pc = else_pc as usize;
                }
                sp += 1;
                continue;
            }
            Else { end_pc } => {
                if sp == 0 {
                    frame_fault!("`Else` without a matching `If`".into());
                }
                let f = &mut frames[sp - 1];
                if f.pending != 0 {
                    active = f.pending;
                    f.pending = 0;
                    pc += 1;
                } else {
                    pc = end_pc as usize;
                }
                continue;
            }
            EndIf | LoopEnd => {
                if sp == 0 {
                    frame_fault!(format!("`{inst:?}` without a matching frame"));
                }
                sp -= 1;
                active = frames[sp].saved;
            }
            LoopStart => {
                if sp >= frames.len() {
                    frame_fault!(format!(
                        "loop nested deeper than the program's max_depth ({})",
                        frames.len()
                    ));
                }
                frames[sp] = Frame {
                    saved: active,
                    pending: 0,
                };
                sp += 1;
            }
            LoopTest { c, exit_pc } => {
                let stay = nonzero(&r[c.0 as usize]) & active;
                if stay != 0 {
                    active = stay;
                    pc += 1;
                } else {
                    if sp == 0 {
                        frame_fault!("`LoopTest` outside a loop".into());
                    }
                    // Every lane has left: the `LoopEnd` pops the frame, with the mask from
                    // before the loop.
                    active = frames[sp - 1].saved;
                    pc = exit_pc as usize;
                }
                continue;
            }
            LoopBack { head_pc } => {
                steps_check!("this loop");
                pc = head_pc as usize;
                continue;
            }
            ForTest {
                a,
                b,
                signed,
                exit_pc,
            } => {
                let (xs, ys) = (&r[a.0 as usize], &r[b.0 as usize]);
                let below = if signed {
                    movemask(&per_lane(|l| {
                        (((xs[l] as i32) < (ys[l] as i32)) as u32).wrapping_neg()
                    }))
                } else {
                    movemask(&per_lane(|l| ((xs[l] < ys[l]) as u32).wrapping_neg()))
                };
                let stay = below & active;
                if stay != 0 {
                    active = stay;
                    pc += 1;
                } else {
                    if sp == 0 {
                        frame_fault!("`ForTest` outside a loop".into());
                    }
                    // As `LoopTest`: the `LoopEnd` pops the frame. (A macro shared by the two
                    // tests measured 7% slower on transpose: the compiler merged their tails.)
                    active = frames[sp - 1].saved;
                    pc = exit_pc as usize;
                }
                continue;
            }
            ForNext { var, step, head_pc } => {
                steps_check!("this loop");
                int2!(var, var, step, |x, y| x.wrapping_add(y));
                pc = head_pc as usize;
                continue;
            }
            Barrier => {
                if active != warp.live {
                    break Err(cx.fault(
                        pc,
                        format!(
                            "barrier inside divergent code: in {}, lanes {} reached it, lanes {} \
                             did not",
                            warp_list(&[w], cx.threads),
                            lane_list(active),
                            lane_list(warp.live & !active)
                        ),
                        Some(
                            "every thread of the block must reach each barrier together: move \
                             the barrier out of the `If` or loop whose condition differs \
                             between lanes"
                                .into(),
                        ),
                    ));
                }
                steps_check!("a loop around this barrier");
                warp.state = State::Waiting;
                warp.barrier_pc = pc;
                pc += 1;
                break Ok(());
            }
            Exit => {
                warp.state = State::Done;
                break Ok(());
            }
        }
        pc += 1;
    };

    warp.pc = pc;
    warp.active = active;
    warp.sp = sp;
    cx.steps = steps;
    cx.lanes = lanes;
    cx.per_pc = per_pc;
    result
}

/// `a * b + c` with one rounding, like `f32::mul_add`, but without a library call per lane
/// (which `mul_add` makes unless the build targets FMA hardware).
///
/// The product of two f32 is exact in f64; the f64 sum is rounded *to odd* (an inexact result
/// gets its last mantissa bit set, using the exact error from TwoSum), and an f64 rounded to
/// odd rounds correctly to f32, since f64 has more than 24 + 2 bits (Boldo and Melquiond,
/// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd").
///
/// `HW`: the caller is compiled with FMA hardware (then `mul_add` is one instruction).
#[inline(always)]
fn fma_f32<const HW: bool>(a: f32, b: f32, c: f32) -> f32 {
    if HW || cfg!(target_feature = "fma") {
        // One instruction, vectorized.
        return a.mul_add(b, c);
    }
    let p = a as f64 * b as f64;
    let c = c as f64;
    let s = p + c;
    let bv = s - p;
    let err = (p - (s - bv)) + (c - bv);
    let bits = s.to_bits();
    // Inexact and even: one ulp toward the exact value, which lies strictly between s and
    // that neighbour. (Branch-free, so that the 32 lanes vectorize.)
    let odd = ((err != 0.0) & (err.abs() < f64::INFINITY) & (bits & 1 == 0)) as u64;
    let step = if (err > 0.0) == (s > 0.0) {
        odd
    } else {
        odd.wrapping_neg()
    };
    f64::from_bits(bits.wrapping_add(step)) as f32
}

/// `Cvt`: C conversions between element types, via an exact `f64` when floats are involved
/// (i32, u32 and f32 are all exact in f64, so every conversion rounds at most once; `as`
/// truncates and saturates float → int, NaN → 0).
#[inline(always)]
fn cvt(r: &mut [Lanes], dst: Reg, a: Reg, from: Elem, to: Elem, mask: u32) {
    let int = |e: Elem| matches!(e, Elem::U32 | Elem::I32);
    if from == to || (int(from) && int(to)) {
        // Same bits: i32 <-> u32 wraps, as in C.
        for k in 0..elem_words(to) {
            let v = r[a.0 as usize + k];
            put(&mut r[dst.0 as usize + k], v, mask);
        }
        return;
    }
    let x: [f64; WARP] = match from {
        Elem::F64 => get64(r, a),
        Elem::F32 => {
            let s = r[a.0 as usize];
            per_lane(|l| f32::from_bits(s[l]) as f64)
        }
        Elem::U32 => {
            let s = r[a.0 as usize];
            per_lane(|l| s[l] as f64)
        }
        Elem::I32 => {
            let s = r[a.0 as usize];
            per_lane(|l| s[l] as i32 as f64)
        }
    };
    let out: Lanes = match to {
        Elem::F64 => return put64(r, dst, x, mask),
        Elem::F32 => per_lane(|l| (x[l] as f32).to_bits()),
        Elem::U32 => per_lane(|l| x[l] as u32),
        Elem::I32 => per_lane(|l| x[l] as i32 as u32),
    };
    put(&mut r[dst.0 as usize], out, mask);
}

/// `name[i][j]`
fn index_text(name: &str, idx: &[i64]) -> String {
    let mut s = name.to_string();
    for i in idx {
        s.push_str(&format!("[{i}]"));
    }
    s
}

/// A vector's description for messages: `` or ` (a vector of 4 f32)`.
fn vec_text(vec: u32, elem: Elem) -> String {
    if vec == 1 {
        String::new()
    } else {
        format!(" (a vector of {vec} {elem})")
    }
}

/// One load or store by the active lanes of warp `w`.
#[inline(always)]
fn access<const V3: bool>(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<Cost, Fault> {
    match m.space {
        Space::Shared => shared_access::<V3>(cx, pc, w, m, store, active, r),
        Space::Global => global_access(cx, pc, w, m, store, active, r).map(|()| Cost::default()),
    }
}

/// A shared access: checks every active lane's index, prices the access, moves the data.
///
/// The checks run on all 32 lanes at once; only when one fails does [`shared_fault`] work
/// out, for the first failing lane, what exactly is wrong.
#[inline(always)]
fn shared_access<const V3: bool>(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<Cost, Fault> {
    let s = &cx.prog.shared[m.array as usize];
    let vec = m.vec as u32;
    let last = m.rank as usize - 1;
    let eb = s.elem.bytes();
    let width = eb * vec;

    if active == 0 {
        return Ok(Cost::default());
    }
    let end =
        (s.base as u64 + s.bytes as u64).min((cx.shared.len() - SPARE_WORDS) as u64 * 4) as u32;

    // A uniform access (every active lane with the same indices: a broadcast load, say) is
    // checked once.
    let first = active.trailing_zeros() as usize;
    let mut uniform = true;
    for i in &m.idx[..=last] {
        if !is_uniform(&r[i.0 as usize], active, first) {
            uniform = false;
            break;
        }
    }
    let addrs: Lanes = if uniform {
        let mut idx = [0u32; 3];
        for (d, i) in idx[..=last].iter_mut().enumerate() {
            *i = r[m.idx[d].0 as usize][first];
        }
        match lane_address(s, &idx[..=last], vec, end) {
            Some(a) => [a; WARP],
            None => return Err(shared_fault(cx, pc, w, *m, first as u32, r)),
        }
    } else {
        // The checks flag bad lanes (non-zero) in all 32 lanes at once; one mask at the end.
        // Bounds: an index is inside when, as an unsigned number, it is below its dimension;
        // the last index leaves room for the vector. Rows are flattened on the way.
        // (Flags are all ones in a bad lane, for `movemask`.)
        let mut flag = [0u32; WARP];
        let mut row = [0u32; WARP];
        for (d, &n) in s.dims[..last].iter().enumerate() {
            let ix = &r[m.idx[d].0 as usize];
            if d == 0 {
                row = *ix;
                flag = per_lane(|l| ((ix[l] >= n) as u32).wrapping_neg());
            } else {
                for ((f, rw), &i) in flag.iter_mut().zip(row.iter_mut()).zip(ix) {
                    *f |= ((i >= n) as u32).wrapping_neg();
                    *rw = rw.wrapping_mul(n).wrapping_add(i);
                }
            }
        }
        let col = r[m.idx[last].0 as usize];
        // (0 when the last dimension is shorter than the vector: no column fits)
        let lim = s.dims[last].saturating_sub(vec - 1);
        for (f, &c) in flag.iter_mut().zip(&col) {
            *f |= ((c >= lim) as u32).wrapping_neg();
        }
        // Byte addresses (garbage in lanes that are out of bounds or inactive; never used).
        // Element sizes are powers of two.
        let eb_shift = eb.trailing_zeros();
        let addrs: Lanes = if s.swizzle == 0 {
            per_lane(|l| {
                let phys = row[l].wrapping_mul(s.row_len).wrapping_add(col[l]);
                s.base.wrapping_add(phys << eb_shift)
            })
        } else {
            let ok = active & !movemask(&flag);
            per_lane(|l| {
                if ok & BIT[l] != 0 {
                    s.base + s.physical(row[l], col[l]) * eb
                } else {
                    0
                }
            })
        };
        // Alignment, and (against a malformed layout) the array's own bytes. Without a
        // swizzle or a vector, in-bounds indices of an aligned array whose last element ends
        // inside it give aligned addresses inside it: no lane needs the checks then.
        let rows: u64 = s.dims[..last].iter().map(|&d| d as u64).product();
        let cols = s.dims[last] as u64;
        let fits = s.swizzle == 0
            && vec == 1
            && s.base.is_multiple_of(eb)
            && rows >= 1
            && cols >= 1
            && s.base as u64 + ((rows - 1) * s.row_len as u64 + cols) * eb as u64 <= end as u64;
        if !fits {
            let (top, none_fit) = match end.checked_sub(width) {
                Some(t) => (t, 0),
                None => (0, 1),
            };
            for (f, &a) in flag.iter_mut().zip(&addrs) {
                *f |=
                    (((a & (width - 1)) != 0) as u32 | (a > top) as u32 | none_fit).wrapping_neg();
            }
        }
        let mut bad = movemask(&flag) & active;
        if s.swizzle > 0 && vec > 1 {
            let mut lanes = active & !bad;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let phys = s.physical(row[l], col[l]);
                if (1..vec).any(|k| s.physical(row[l], col[l] + k) != phys + k) {
                    bad |= 1 << l;
                }
            }
        }
        if bad != 0 {
            return Err(shared_fault(cx, pc, w, *m, bad.trailing_zeros(), r));
        }
        addrs
    };

    let op = if store { Op::St } else { Op::Ld };
    let counts = &mut cx.pc_bank[cx.bank_row[pc]];
    let geom = &cx.cfg.geometry;
    let cost = if uniform {
        warpsim_smem::cost_uniform_into(geom, op, width, addrs[0], active, counts)
    } else {
        warpsim_smem::cost_into(geom, op, width, &addrs, active, counts)
    }
    .map_err(|e| cx.fault(pc, format!("cannot price this shared access: {e}"), None))?;
    if let Some(slot @ None) = cx.samples.get_mut(pc) {
        // Once per instruction per worker: not on the hot path.
        *slot = Some(Box::new(Sample {
            block: cx.ctaid,
            warp: w as u32,
            addrs,
            mask: active,
            width,
            store,
        }));
    }

    let data = m.data.0 as usize;
    let words = m.words(s.elem) as usize;
    if let Some(race) = cx.race.as_mut() {
        race.access(pc, w, store, active, &addrs, words);
    }
    if uniform {
        let at = addrs[0] as usize / 4;
        let cells = &mut cx.shared[at..at + words];
        if store {
            // Of several lanes storing to one word, the highest wins.
            let l = 31 - active.leading_zeros() as usize;
            for (k, c) in cells.iter_mut().enumerate() {
                *c = r[data + k][l];
            }
        } else {
            for (k, &c) in cells.iter().enumerate() {
                put(&mut r[data + k], [c; WARP], active);
            }
        }
    } else if active == FULL
        && movemask(&per_lane(|l| {
            ((addrs[l] != addrs[0].wrapping_add(l as u32 * width)) as u32).wrapping_neg()
        })) == 0
    {
        // Consecutive lanes at consecutive addresses (a row of the array): one block of
        // words, inside shared memory since its first and last lanes are.
        let at = addrs[0] as usize / 4;
        let cells = &mut cx.shared[at..at + WARP * words];
        let regs = &mut r[data..data + words];
        if words == 1 {
            let cells: &mut [u32; WARP] = cells.try_into().expect("32 words");
            if store {
                *cells = regs[0];
            } else {
                regs[0] = *cells;
            }
        } else {
            match (words, store) {
                (2, true) => interleave::<2>(cells, regs),
                (2, false) => deinterleave::<2>(cells, regs),
                (4, true) => interleave::<4>(cells, regs),
                (4, false) => deinterleave::<4>(cells, regs),
                _ => {
                    for (l, lane) in cells.chunks_exact_mut(words).enumerate() {
                        for (c, reg) in lane.iter_mut().zip(regs.iter_mut()) {
                            if store {
                                *c = reg[l];
                            } else {
                                reg[l] = *c;
                            }
                        }
                    }
                }
            }
        }
    } else if store {
        // A scatter over all 32 lanes, in lane order: of several lanes storing to one word,
        // the highest wins. (Lanes at different addresses share no word, as accesses are
        // aligned to their width, so word by word is the same as lane by lane.) Inactive
        // lanes store to the spare words past shared memory, which nothing reads; clamping
        // to the last word drops the bounds checks (no lane is beyond it).
        let on = lane_flags(active);
        let spare = (cx.shared.len() - SPARE_WORDS) as u32;
        let at: Lanes = per_lane(|l| ((addrs[l] / 4) & on[l]) | (spare & !on[l]));
        let top = cx.shared.len() - 1;
        for (k, reg) in r[data..data + words].iter().enumerate() {
            for (&a, &v) in at.iter().zip(reg) {
                cx.shared[(a as usize + k).min(top)] = v;
            }
        }
    } else {
        // A gather over all 32 lanes (inactive ones read word 0 and are not written).
        let on = lane_flags(active);
        let at: Lanes = per_lane(|l| (addrs[l] & on[l]) / 4);
        // Clamping to the last start that fits lets the compiler drop the bounds checks
        // (the active lanes' addresses are already known to fit).
        #[cfg(target_arch = "x86_64")]
        if words == 2 || words == 4 {
            // Vectors: each lane's words in one load, four lanes transposed at a time.
            let mut v = [[0u32; WARP]; 4];
            if words == 4 {
                gather_rows::<4>(cx.shared, &at, &mut v);
            } else {
                gather_rows::<2>(cx.shared, &at, &mut v);
            }
            for (k, v) in v[..words].iter().enumerate() {
                put(&mut r[data + k], *v, active);
            }
            return Ok(cost);
        }
        if let Some(top) = cx.shared.len().checked_sub(words) {
            for k in 0..words {
                let sh = &cx.shared[k..=k + top];
                #[cfg(target_arch = "x86_64")]
                let v = if V3 {
                    // SAFETY: `V3` is only set in `run_warp_v3`, which runs on CPUs with AVX2.
                    unsafe { gather_avx2(sh, &at) }
                } else {
                    per_lane(|l| sh[(at[l] as usize).min(top)])
                };
                #[cfg(not(target_arch = "x86_64"))]
                let v = per_lane(|l| sh[(at[l] as usize).min(top)]);
                put(&mut r[data + k], v, active);
            }
        }
    }
    Ok(cost)
}

/// `out[k][l] = sh[a + k]` for `k < W` (2 or 4) and every lane `l`, where `a` is `at[l]`
/// clamped to the last start that fits (zeros if `sh` is shorter than `W`): one 8- or 16-byte
/// load per lane, and the words of four lanes transposed into place with SSE2 (part of
/// x86-64), which beats a gather per word.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn gather_rows<const W: usize>(sh: &[u32], at: &Lanes, out: &mut [Lanes; 4]) {
    use std::arch::x86_64::{
        __m128i, _mm_loadl_epi64, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    };
    let Some(top) = sh.len().checked_sub(W) else {
        return;
    };
    for g in 0..WARP / 4 {
        // SAFETY: every load reads W words from a start at most `sh.len() - W`; every store
        // writes lanes 4g..4g+4 of one of `out`'s four rows.
        unsafe {
            let row = |l: usize| {
                let p = sh.as_ptr().add((at[4 * g + l] as usize).min(top)) as *const __m128i;
                if W == 4 {
                    _mm_loadu_si128(p)
                } else {
                    _mm_loadl_epi64(p)
                }
            };
            let (a, b, c, d) = (row(0), row(1), row(2), row(3));
            let ab_lo = _mm_unpacklo_epi32(a, b); // a0 b0 a1 b1
            let cd_lo = _mm_unpacklo_epi32(c, d); // c0 d0 c1 d1
            let words = [
                _mm_unpacklo_epi64(ab_lo, cd_lo), // a0 b0 c0 d0
                _mm_unpackhi_epi64(ab_lo, cd_lo), // a1 b1 c1 d1
                {
                    let ab_hi = _mm_unpackhi_epi32(a, b); // a2 b2 a3 b3
                    let cd_hi = _mm_unpackhi_epi32(c, d);
                    _mm_unpacklo_epi64(ab_hi, cd_hi)
                },
                {
                    let ab_hi = _mm_unpackhi_epi32(a, b);
                    let cd_hi = _mm_unpackhi_epi32(c, d);
                    _mm_unpackhi_epi64(ab_hi, cd_hi)
                },
            ];
            for (k, w) in words[..W].iter().enumerate() {
                _mm_storeu_si128(out[k].as_mut_ptr().add(4 * g) as *mut __m128i, *w);
            }
        }
    }
}

/// `[sh[min(at[l], sh.len() - 1)] for each lane l]`, with AVX2's gather (eight lanes an
/// instruction). Zeros if `sh` is empty.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn gather_avx2(sh: &[u32], at: &Lanes) -> Lanes {
    use std::arch::x86_64::{
        __m256i, _mm256_i32gather_epi32, _mm256_loadu_si256, _mm256_min_epu32, _mm256_set1_epi32,
        _mm256_storeu_si256,
    };
    let mut out = [0u32; WARP];
    // Indices are i32 for the gather; shared memory has at most 2^29 words.
    let Some(last) = sh.len().checked_sub(1).filter(|&l| l <= i32::MAX as usize) else {
        return out;
    };
    let lim = _mm256_set1_epi32(last as i32);
    for c in 0..WARP / 8 {
        // SAFETY: the unaligned loads and stores cover lanes 8c..8c+8 of `at` and `out`; the
        // gather reads `sh` at indices clamped (unsigned) to its last element.
        unsafe {
            let idx = _mm256_loadu_si256(at.as_ptr().add(8 * c) as *const __m256i);
            let idx = _mm256_min_epu32(idx, lim);
            let v = _mm256_i32gather_epi32::<4>(sh.as_ptr() as *const i32, idx);
            _mm256_storeu_si256(out.as_mut_ptr().add(8 * c) as *mut __m256i, v);
        }
    }
    out
}

/// `cells[l * W + k] = regs[k][l]` for the 32 lanes (lane-major words from registers).
#[inline(always)]
fn interleave<const W: usize>(cells: &mut [u32], regs: &[Lanes]) {
    let (cells, regs) = (&mut cells[..WARP * W], &regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            cells[l * W + k] = regs[k][l];
        }
    }
}

/// `regs[k][l] = cells[l * W + k]` for the 32 lanes.
#[inline(always)]
fn deinterleave<const W: usize>(cells: &[u32], regs: &mut [Lanes]) {
    let (cells, regs) = (&cells[..WARP * W], &mut regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            regs[k][l] = cells[l * W + k];
        }
    }
}

/// [`interleave`] (a store) or [`deinterleave`] (a load) with global memory.
#[inline(always)]
fn copy_atomic<const W: usize>(cells: &[AtomicU32], regs: &mut [Lanes], store: bool) {
    let (cells, regs) = (&cells[..WARP * W], &mut regs[..W]);
    for l in 0..WARP {
        for k in 0..W {
            if store {
                cells[l * W + k].store(regs[k][l], Relaxed);
            } else {
                regs[k][l] = cells[l * W + k].load(Relaxed);
            }
        }
    }
}

/// Whether every active lane of `x` holds the value of lane `first`.
#[inline(always)]
fn is_uniform(x: &Lanes, active: u32, first: usize) -> bool {
    let v0 = x[first];
    movemask(&per_lane(|l| ((x[l] != v0) as u32).wrapping_neg())) & active == 0
}

/// The byte address of one lane's shared access at logical `idx` (one per dimension), or
/// None if it is out of bounds, misaligned, outside the array's bytes (`end`), or a vector
/// that a swizzle splits: [`shared_fault`] then says which.
#[inline(always)]
fn lane_address(s: &SharedInfo, idx: &[u32], vec: u32, end: u32) -> Option<u32> {
    let (&col, outer) = idx.split_last()?;
    let mut row = 0u32;
    for (&i, &n) in outer.iter().zip(&s.dims) {
        if i >= n {
            return None;
        }
        row = row * n + i;
    }
    if col >= s.dims.last()?.saturating_sub(vec - 1) {
        return None;
    }
    let eb = s.elem.bytes();
    let width = eb * vec;
    let phys = s.physical(row, col);
    let addr = s.base + phys * eb;
    let contiguous = s.swizzle == 0 || (1..vec).all(|k| s.physical(row, col + k) == phys + k);
    // (Widths are powers of two: a mask, not a division.)
    (addr & (width - 1) == 0 && addr + width <= end && contiguous).then_some(addr)
}

/// Why lane `l`'s shared access failed the checks of [`shared_access`].
#[cold]
#[inline(never)]
fn shared_fault(cx: &Ctx, pc: usize, w: usize, m: Mem, l: u32, r: &[Lanes]) -> Fault {
    let s = &cx.prog.shared[m.array as usize];
    let vec = m.vec as u32;
    let rank = m.rank as usize;
    let last = rank - 1;
    let eb = s.elem.bytes();
    let width = eb * vec;
    let idx: Vec<i64> = (0..rank)
        .map(|d| r[m.idx[d].0 as usize][l as usize] as i32 as i64)
        .collect();
    let inside = idx.iter().zip(&s.dims).enumerate().all(|(d, (&i, &n))| {
        let hi = if d == last { i + vec as i64 - 1 } else { i };
        i >= 0 && hi < n as i64
    });
    let at = index_text(&s.name, &idx);
    let what = vec_text(vec, s.elem);
    if !inside {
        let dims: Vec<i64> = s.dims.iter().map(|&d| d as i64).collect();
        let reach = if vec > 1 {
            let mut hi = idx.clone();
            hi[last] += vec as i64 - 1;
            format!(", reaching {}", index_text("", &hi))
        } else {
            String::new()
        };
        return cx.lane_fault(
            pc,
            w,
            l,
            format!(
                "out-of-bounds shared access: {at}{what}{reach} is outside {}",
                index_text(&s.name, &dims)
            ),
            Some(format!(
                "every index of `{}` must be at least 0 and less than its dimension; check the \
                 index expressions, or guard the access with an `If`",
                s.name
            )),
        );
    }
    let mut row = 0u32;
    for (&i, &n) in idx[..last].iter().zip(&s.dims) {
        row = row * n + i as u32;
    }
    let col = idx[last] as u32;
    let phys = s.physical(row, col);
    let addr = s.base as u64 + phys as u64 * eb as u64;
    if !addr.is_multiple_of(width as u64) {
        return cx.lane_fault(
            pc,
            w,
            l,
            format!(
                "misaligned {width}-byte access: {at}{what} is at byte {addr} of shared memory, \
                 not a multiple of {width}"
            ),
            Some(format!(
                "a {width}-byte access must start at a multiple of {width} bytes: make the last \
                 index a multiple of {vec}, and keep every row aligned (row length plus pad a \
                 multiple of {vec} elements)"
            )),
        );
    }
    if vec > 1 && (1..vec).any(|k| s.physical(row, col + k) != phys + k) {
        return cx.lane_fault(
            pc,
            w,
            l,
            format!(
                "the vector access {at}{what} crosses a swizzle group of {} elements, so its \
                 elements are not consecutive in shared memory",
                s.swizzle
            ),
            Some(format!(
                "use a swizzle group that is a multiple of {vec} elements"
            )),
        );
    }
    cx.lane_fault(
        pc,
        w,
        l,
        format!(
            "{at} maps to bytes {addr}..{} of shared memory, outside the bytes of `{}`",
            addr + width as u64,
            s.name
        ),
        Some(LOADER_BUG.into()),
    )
}

/// A global access: checks every active lane's index and moves the data.
#[inline(always)]
fn global_access(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    let b = &cx.prog.buffers[m.array as usize];
    let mem = &cx.global.buffers[m.array as usize][..];
    let vec = m.vec as u32;
    let ix = r[m.idx[0].0 as usize];
    // In bounds: 0 <= i and i + vec - 1 < len (indices are i32; negative ones are huge here),
    // and aligned to the vector. `lim` 0: no index fits.
    let lim = b
        .len
        .checked_sub(vec as u64 - 1)
        .map_or(0, |l| l.min(1 << 31) as u32);
    let wpe = b.elem.bytes() as usize / 4;
    let data = m.data.0 as usize;
    let words = m.words(b.elem) as usize;
    let regs = &mut r[data..data + words];

    // Consecutive elements, lane by lane (the coalesced access): the first and the last lane
    // bound the others, and one range check covers the warp.
    let first = ix[0];
    let stride = per_lane(|l| first.wrapping_add(l as u32 * vec));
    if active == FULL
        && movemask(&per_lane(|l| ((ix[l] != stride[l]) as u32).wrapping_neg())) == 0
        && first < lim
        && first + (WARP as u32 - 1) * vec < lim
        && first & (vec - 1) == 0
    {
        let at = first as usize * wpe;
        let cells = &mem[at..at + WARP * words];
        if words == 1 {
            let cells: &[AtomicU32; WARP] = cells.try_into().expect("32 words");
            let reg = &mut regs[0];
            if store {
                for (c, &v) in cells.iter().zip(reg.iter()) {
                    c.store(v, Relaxed);
                }
            } else {
                for (v, c) in reg.iter_mut().zip(cells) {
                    *v = c.load(Relaxed);
                }
            }
        } else {
            match words {
                2 => copy_atomic::<2>(cells, regs, store),
                4 => copy_atomic::<4>(cells, regs, store),
                _ => {
                    for (l, lane) in cells.chunks_exact(words).enumerate() {
                        for (c, reg) in lane.iter().zip(regs.iter_mut()) {
                            if store {
                                c.store(reg[l], Relaxed);
                            } else {
                                reg[l] = c.load(Relaxed);
                            }
                        }
                    }
                }
            }
        }
        return Ok(());
    }

    let bad = movemask(&per_lane(|l| {
        ((ix[l] >= lim) | (ix[l] & (vec - 1) != 0)) as u32 * u32::MAX
    })) & active;
    if bad != 0 {
        return Err(global_fault(cx, pc, w, *m, bad.trailing_zeros(), r));
    }
    if active == 0 {
        return Ok(());
    }
    // Every active lane's words are in `mem` (checked above), so these ranges are too.
    let lead = active.trailing_zeros() as usize;
    if is_uniform(&ix, active, lead) {
        // One element for the warp: a broadcast load, or a store where the highest lane wins.
        let at = ix[lead] as usize * wpe;
        let cells = &mem[at..at + words];
        if store {
            let l = 31 - active.leading_zeros() as usize;
            for (c, reg) in cells.iter().zip(regs.iter()) {
                c.store(reg[l], Relaxed);
            }
        } else {
            for (c, reg) in cells.iter().zip(regs.iter_mut()) {
                put(reg, [c.load(Relaxed); WARP], active);
            }
        }
        return Ok(());
    }
    // Anything else, lane by lane in order (of several lanes storing to one word, the
    // highest wins).
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let at = ix[l] as usize * wpe;
        let cells = &mem[at..at + words];
        for (c, reg) in cells.iter().zip(regs.iter_mut()) {
            if store {
                c.store(reg[l], Relaxed);
            } else {
                reg[l] = c.load(Relaxed);
            }
        }
    }
    Ok(())
}

/// Why lane `l`'s global access failed the checks of [`global_access`].
#[cold]
#[inline(never)]
fn global_fault(cx: &Ctx, pc: usize, w: usize, m: Mem, l: u32, r: &[Lanes]) -> Fault {
    let b = &cx.prog.buffers[m.array as usize];
    let vec = m.vec as u32;
    let width = b.elem.bytes() * vec;
    let i = r[m.idx[0].0 as usize][l as usize] as i32 as i64;
    let what = vec_text(vec, b.elem);
    if i < 0 || (i + vec as i64 - 1) as u64 >= b.len {
        let reach = if vec > 1 {
            format!(", reaching [{}]", i + vec as i64 - 1)
        } else {
            String::new()
        };
        return cx.lane_fault(
            pc,
            w,
            l,
            format!(
                "out-of-bounds global access: {}[{i}]{what}{reach} is outside {}[{}]",
                b.name, b.name, b.len
            ),
            Some(format!(
                "indices of `{}` must be at least 0 and less than {}; check the index \
                 expression, or guard the access with an `If` (e.g. on the thread index when \
                 the grid has more threads than elements)",
                b.name, b.len
            )),
        );
    }
    cx.lane_fault(
        pc,
        w,
        l,
        format!(
            "misaligned {width}-byte access: {}[{i}]{what} is at byte {} of `{}`, not a \
             multiple of {width}",
            b.name,
            i as u64 * b.elem.bytes() as u64,
            b.name
        ),
        Some(format!("make the index a multiple of {vec}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Init;
    use crate::program::{BufferInfo, InstInfo};
    use std::cell::Cell;
    use std::sync::Arc;
    use Inst::*;

    thread_local! {
        /// Makes [`run_warp`] take the baseline x86-64 build on this thread.
        pub(super) static BASELINE_ONLY: Cell<bool> = const { Cell::new(false) };
    }

    /// The shipped programs, run block by block twice: once with the baseline build of the
    /// interpreter, reusing this thread's scratch between blocks, and once with the build the
    /// CPU picks (AVX2 and FMA where it has them) and a fresh scratch for every block. Memory
    /// and every counter agree.
    #[test]
    fn both_builds_and_scratch_reuse_agree() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../programs");
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .chain(std::fs::read_dir(format!("{dir}/examples")).unwrap())
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ron"))
            .collect();
        paths.sort();
        assert!(paths.len() >= 8);
        for path in paths {
            let p = crate::load_file(path.to_str().unwrap(), &Default::default()).unwrap();
            let cfg = Config::default();
            let one = |baseline: bool| {
                BASELINE_ONLY.with(|b| b.set(baseline));
                let global = Global::new(&p);
                for (k, b) in p.buffers.iter().enumerate() {
                    global.write(k, &crate::host::init_words(b));
                }
                let mut stats = Stats::new(&p, &cfg.geometry);
                let [gx, gy, gz] = p.grid;
                for b in 0..(gx * gy * gz).min(64) {
                    let ctaid = [b % gx, b / gx % gy, b / (gx * gy)];
                    if baseline {
                        run_block(&p, &cfg, ctaid, &global, &mut stats).unwrap();
                    } else {
                        let mut sc = Scratch::default();
                        run(&p, &cfg, ctaid, &global, &mut stats, &mut sc).unwrap();
                    }
                }
                BASELINE_ONLY.with(|b| b.set(false));
                let mem: Vec<Vec<u32>> = (0..p.buffers.len()).map(|k| global.read(k)).collect();
                (mem, stats)
            };
            let (m0, s0) = one(true);
            let (m1, s1) = one(false);
            assert!(m0 == m1, "{}: memory differs", path.display());
            assert_eq!(s0, s1, "{}", path.display());
            assert!(s0.warp_instructions > 0);
        }
    }

    fn r(n: u16) -> Reg {
        Reg(n)
    }

    /// A hand-built program: code (an `Exit` is appended), registers and their init.
    struct P {
        code: Vec<Inst>,
        nregs: usize,
        init: Vec<(Reg, RegInit)>,
        shared: Vec<SharedInfo>,
        buffers: Vec<BufferInfo>,
        block: [u32; 3],
        grid: [u32; 3],
        max_depth: usize,
    }

    impl P {
        fn new(code: Vec<Inst>) -> Self {
            P {
                code,
                nregs: 32,
                init: Vec::new(),
                shared: Vec::new(),
                buffers: Vec::new(),
                block: [32, 1, 1],
                grid: [1, 1, 1],
                max_depth: 8,
            }
        }
        fn block(mut self, b: [u32; 3]) -> Self {
            self.block = b;
            self
        }
        fn konst(mut self, reg: u16, v: u32) -> Self {
            self.init.push((r(reg), RegInit::Const(v)));
            self
        }
        fn special(mut self, reg: u16, s: Special) -> Self {
            self.init.push((r(reg), RegInit::Special(s)));
            self
        }
        fn shared(mut self, s: SharedInfo) -> Self {
            self.shared.push(s);
            self
        }
        fn buffer(mut self, name: &str, elem: Elem, len: u64) -> Self {
            self.buffers.push(BufferInfo {
                name: name.into(),
                elem,
                len,
                init: Init::Zeros,
                expect: None,
                line: 1,
            });
            self
        }
        fn build(self) -> Program {
            let mut code = self.code;
            code.push(Exit);
            let info = (0..code.len())
                .map(|pc| InstInfo {
                    line: pc as u32 + 1,
                    col: 3,
                    text: format!("inst {pc}"),
                })
                .collect();
            let source: String = (0..code.len()).map(|pc| format!("  line {pc}\n")).collect();
            let mut shared = self.shared;
            let mut base = 0;
            for s in &mut shared {
                s.base = base;
                base += s.bytes;
            }
            Program {
                name: "test".into(),
                path: "test.ron".into(),
                source: Arc::from(source),
                defines: Vec::new(),
                grid: self.grid,
                block: self.block,
                buffers: self.buffers,
                shared,
                shared_bytes: base,
                code,
                info,
                nregs: self.nregs,
                init: self.init,
                max_depth: self.max_depth,
            }
        }
    }

    fn tile(name: &str, elem: Elem, dims: &[u32], pad: u32, swizzle: u32) -> SharedInfo {
        let last = *dims.last().unwrap();
        let rows: u32 = dims[..dims.len() - 1].iter().product();
        let row_len = last + pad;
        SharedInfo {
            name: name.into(),
            elem,
            dims: dims.to_vec(),
            pad,
            swizzle,
            base: 0,
            row_len,
            rows,
            bytes: rows * row_len * elem.bytes(),
            line: 1,
        }
    }

    fn shared_mem(array: u16, idx: &[Reg], vec: u8, data: Reg) -> Mem {
        let mut i = [Reg(0); 3];
        i[..idx.len()].copy_from_slice(idx);
        Mem {
            space: Space::Shared,
            array,
            rank: idx.len() as u8,
            idx: i,
            vec,
            data,
        }
    }

    fn global_mem(array: u16, idx: Reg, vec: u8, data: Reg) -> Mem {
        Mem {
            space: Space::Global,
            array,
            rank: 1,
            idx: [idx, Reg(0), Reg(0)],
            vec,
            data,
        }
    }

    struct Out {
        result: Result<(), Fault>,
        regs: Vec<Lanes>,
        stats: Stats,
        global: Global,
        nregs: usize,
    }

    impl Out {
        /// Register `reg` of warp `w`.
        fn reg(&self, w: usize, reg: u16) -> Lanes {
            self.regs[w * self.nregs.max(1) + reg as usize]
        }
        fn fault(&self) -> &Fault {
            self.result.as_ref().expect_err("expected a fault")
        }
    }

    fn exec_cfg(p: &Program, cfg: Config, ctaid: [u32; 3]) -> Out {
        let global = Global::new(p);
        let mut stats = Stats::new(p, &cfg.geometry);
        let mut sc = Scratch::default();
        let result = run(p, &cfg, ctaid, &global, &mut stats, &mut sc);
        Out {
            result,
            regs: sc.regs,
            stats,
            global,
            nregs: p.nregs,
        }
    }

    fn exec(p: &Program) -> Out {
        let out = exec_cfg(p, Config::default(), [0, 0, 0]);
        if let Err(f) = &out.result {
            panic!("unexpected fault: {f}");
        }
        out
    }

    fn lanes(f: impl Fn(u32) -> u32) -> Lanes {
        std::array::from_fn(|l| f(l as u32))
    }

    /// Runs `inst` with r1 = a (per lane) and r2 = b, loaded from a global buffer, and
    /// returns r0 as stored to another.
    fn unary_binary(inst: Inst, a: Lanes, b: Lanes) -> Lanes {
        let p = P::new(vec![
            Load(global_mem(0, r(10), 1, r(1))),
            Add {
                dst: r(11),
                a: r(10),
                b: r(12),
            },
            Load(global_mem(0, r(11), 1, r(2))),
            inst,
            Store(global_mem(1, r(10), 1, r(0))),
        ])
        .special(10, Special::LaneId)
        .konst(12, 32)
        .buffer("in", Elem::U32, 64)
        .buffer("out", Elem::U32, 32)
        .build();
        let global = Global::new(&p);
        global.write(0, &[a, b].concat());
        let mut stats = Stats::new(&p, &Geometry::H200);
        run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
        global.read(1).try_into().unwrap()
    }

    fn bin(inst: fn(Reg, Reg, Reg) -> Inst, a: &[u32], b: &[u32]) -> Vec<u32> {
        let n = a.len();
        let a = lanes(|l| a[l as usize % n]);
        let b = lanes(|l| b[l as usize % n]);
        unary_binary(inst(r(0), r(1), r(2)), a, b)[..n].to_vec()
    }

    fn un(inst: fn(Reg, Reg) -> Inst, a: &[u32]) -> Vec<u32> {
        let n = a.len();
        let a = lanes(|l| a[l as usize % n]);
        unary_binary(inst(r(0), r(1)), a, [0; 32])[..n].to_vec()
    }

    fn i(v: i32) -> u32 {
        v as u32
    }

    fn f(v: f32) -> u32 {
        v.to_bits()
    }

    #[test]
    fn integer_ops() {
        let a = [7, i(-7), u32::MAX, i(i32::MIN), 0, 100];
        let b = [2, 2, 1, i(-1), 5, i(-3)];
        macro_rules! op {
            ($v:ident) => {
                bin(|dst, a, b| $v { dst, a, b }, &a, &b)
            };
        }
        assert_eq!(op!(Add), [9, i(-5), 0, i(i32::MAX), 5, 97]);
        assert_eq!(
            op!(Sub),
            [5, i(-9), u32::MAX - 1, i(i32::MIN + 1), i(-5), 103]
        );
        assert_eq!(op!(Mul), [14, i(-14), u32::MAX, i(i32::MIN), 0, i(-300)]);
        assert_eq!(op!(DivS), [3, i(-3), u32::MAX, i(i32::MIN), 0, i(-33)]);
        assert_eq!(op!(DivU), [3, i(-7) / 2, u32::MAX, 0, 0, 0]);
        assert_eq!(op!(RemS), [1, i(-1), 0, 0, 0, 1]);
        assert_eq!(op!(RemU), [1, i(-7) % 2, 0, i(i32::MIN), 0, 100]);
        assert_eq!(op!(And), [2, 0, 1, i(i32::MIN), 0, 100 & i(-3)]);
        assert_eq!(op!(Or), [7, i(-5), u32::MAX, u32::MAX, 5, i(-3)]);
        assert_eq!(
            op!(Xor),
            [5, i(-5), u32::MAX - 1, i(i32::MAX), 5, 100 ^ i(-3)]
        );
        assert_eq!(op!(MinS), [2, i(-7), i(-1), i(i32::MIN), 0, i(-3)]);
        assert_eq!(op!(MinU), [2, 2, 1, i(i32::MIN), 0, 100]);
        assert_eq!(op!(MaxS), [7, 2, 1, i(-1), 5, 100]);
        assert_eq!(op!(MaxU), [7, i(-7), u32::MAX, u32::MAX, 5, i(-3)]);
        assert_eq!(op!(Eq), [0, 0, 0, 0, 0, 0]);
        assert_eq!(op!(Ne), [1, 1, 1, 1, 1, 1]);
        assert_eq!(op!(LtS), [0, 1, 1, 1, 1, 0]);
        assert_eq!(op!(LtU), [0, 0, 0, 1, 1, 1]);
        assert_eq!(op!(LeS), [0, 1, 1, 1, 1, 0]);
        assert_eq!(op!(LeU), [0, 0, 0, 1, 1, 1]);
        assert_eq!(
            bin(|dst, a, b| LeS { dst, a, b }, &[3, i(-3)], &[3, i(-3)]),
            [1, 1]
        );
        assert_eq!(bin(|dst, a, b| Eq { dst, a, b }, &[3], &[3]), [1]);
        assert_eq!(
            un(|dst, a| Neg { dst, a }, &a),
            [i(-7), 7, 1, i(i32::MIN), 0, i(-100)]
        );
        assert_eq!(
            un(|dst, a| Not { dst, a }, &[0, 1]),
            [u32::MAX, u32::MAX - 1]
        );
        assert_eq!(
            un(|dst, a| AbsS { dst, a }, &a),
            [7, 7, 1, i(i32::MIN), 0, 100]
        );
        assert_eq!(un(|dst, a| Mov { dst, a }, &a), a);
    }

    #[test]
    fn shifts() {
        let a = [1, 1, 1, 1, i(-16), i(-16), i(-16), 0x8000_0000];
        let b = [0, 31, 32, 100, 2, 31, 40, u32::MAX];
        assert_eq!(
            bin(|dst, a, b| Shl { dst, a, b }, &a, &b),
            [1, 0x8000_0000, 0, 0, i(-64), 0, 0, 0]
        );
        assert_eq!(
            bin(|dst, a, b| ShrS { dst, a, b }, &a, &b),
            [1, 0, 0, 0, i(-4), i(-1), i(-1), u32::MAX]
        );
        assert_eq!(
            bin(|dst, a, b| ShrU { dst, a, b }, &a, &b),
            [1, 0, 0, 0, i(-16) >> 2, 1, 0, 0]
        );
    }

    #[test]
    fn f32_ops() {
        let a = [f(1.5), f(-2.0), f(7.5), f(f32::NAN)];
        let b = [f(0.5), f(4.0), f(2.0), f(1.0)];
        macro_rules! op {
            ($v:ident) => {
                bin(|dst, a, b| $v { dst, a, b }, &a, &b)
            };
        }
        assert_eq!(op!(FAdd)[..3], [f(2.0), f(2.0), f(9.5)]);
        assert_eq!(op!(FSub)[..3], [f(1.0), f(-6.0), f(5.5)]);
        assert_eq!(op!(FMul)[..3], [f(0.75), f(-8.0), f(15.0)]);
        assert_eq!(op!(FDiv)[..3], [f(3.0), f(-0.5), f(3.75)]);
        assert_eq!(op!(FRem)[..3], [f(0.0), f(-2.0), f(1.5)]);
        assert_eq!(op!(FMin), [f(0.5), f(-2.0), f(2.0), f(1.0)]);
        assert_eq!(op!(FMax), [f(1.5), f(4.0), f(7.5), f(1.0)]);
        assert_eq!(op!(FEq), [0, 0, 0, 0]);
        assert_eq!(op!(FNe), [1, 1, 1, 1]);
        assert_eq!(op!(FLt), [0, 1, 0, 0]);
        assert_eq!(op!(FLe), [0, 1, 0, 0]);
        assert_eq!(
            bin(|dst, a, b| FLe { dst, a, b }, &[f(2.0)], &[f(2.0)]),
            [1]
        );
        assert_eq!(
            bin(|dst, a, b| FEq { dst, a, b }, &[f(0.0)], &[f(-0.0)]),
            [1]
        );
        assert_eq!(
            un(|dst, a| FNeg { dst, a }, &a[..3]),
            [f(-1.5), f(2.0), f(-7.5)]
        );
        assert_eq!(
            un(|dst, a| FAbs { dst, a }, &a[..3]),
            [f(1.5), f(2.0), f(7.5)]
        );
        assert_eq!(
            un(|dst, a| FSqrt { dst, a }, &[f(9.0), f(2.0)]),
            [f(3.0), f(2f32.sqrt())]
        );
        // FFma with c = a: a * b + a
        assert_eq!(
            bin(
                |dst, a, b| FFma { dst, a, b, c: a },
                &[f(1.5), f(2.0)],
                &[f(2.0), f(-1.0)]
            ),
            [f(4.5), f(0.0)]
        );
    }

    /// The f64-based FFma agrees bit for bit with `f32::mul_add`, on random operands and on
    /// the hard cases: ties after the sum, cancellation, subnormals, infinities and NaN.
    #[test]
    fn fma_f32_is_correctly_rounded() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MIN_POSITIVE,
            1e-45,
            -1e-45,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1.0 + f32::EPSILON,
            1.0 - f32::EPSILON / 2.0,
            3.0,
            1.0 / 3.0,
        ];
        let check = |a: f32, b: f32, c: f32| {
            let want = a.mul_add(b, c);
            let got = fma_f32::<false>(a, b, c);
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "fma({a:e}, {b:e}, {c:e}) = {got:e}, want {want:e}"
            );
        };
        for &a in &special {
            for &b in &special {
                for &c in &special {
                    check(a, b, c);
                }
            }
        }
        for _ in 0..200_000 {
            let r = next();
            let a = f32::from_bits(r as u32);
            let b = f32::from_bits((r >> 32) as u32);
            // c near -a*b (cancellation) or near a tie of the product, or random.
            let c = match next() % 4 {
                0 => -((a as f64 * b as f64) as f32),
                1 => f32::from_bits(next() as u32),
                2 => (a * b) * f32::EPSILON / 2.0,
                _ => f32::from_bits((a * b).to_bits() ^ (next() as u32 & 0xff)),
            };
            check(a, b, c);
            // Small exponents, where ties and subnormals are common.
            let m = |v: u64| f32::from_bits(0x3f80_0000 | (v as u32 & 0x7f_ffff));
            let (a, b) = (m(next()), m(next()));
            check(a, b, -(a * b));
            check(a, b, f32::from_bits(next() as u32 & 0x807f_ffff));
            check(
                a * 1e-30,
                b * 1e-10,
                f32::from_bits(next() as u32 & 0x80ff_ffff),
            );
        }
    }

    /// Runs a 64-bit instruction on per-lane f64 values: r2:r3 = a, r4:r5 = b, r6:r7 = c,
    /// result in r0:r1 (or r0 for comparisons), written to a f64 buffer.
    fn f64_op(inst: Inst, a: &[f64], b: &[f64], c: &[f64], result_words: u32) -> Vec<u64> {
        let n = a.len();
        let p = P::new(vec![
            // in[lane], in[32 + lane], in[64 + lane]
            Load(global_mem(0, r(10), 1, r(2))),
            Add {
                dst: r(11),
                a: r(10),
                b: r(12),
            },
            Load(global_mem(0, r(11), 1, r(4))),
            Add {
                dst: r(11),
                a: r(11),
                b: r(12),
            },
            Load(global_mem(0, r(11), 1, r(6))),
            inst,
            Store(global_mem(1, r(10), 1, r(0))),
        ])
        .special(10, Special::LaneId)
        .konst(12, 32)
        .konst(1, 0)
        .buffer("in", Elem::F64, 96)
        .buffer("out", Elem::F64, 32)
        .build();
        let global = Global::new(&p);
        let mut words = Vec::new();
        for v in [a, b, c] {
            for l in 0..32 {
                let bits = v[l % n].to_bits();
                words.extend([bits as u32, (bits >> 32) as u32]);
            }
        }
        global.write(0, &words);
        let mut stats = Stats::new(&p, &Geometry::H200);
        run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
        let out = global.read(1);
        (0..n)
            .map(|l| {
                let lo = out[2 * l] as u64;
                let hi = out[2 * l + 1] as u64;
                if result_words == 1 {
                    lo
                } else {
                    lo | hi << 32
                }
            })
            .collect()
    }

    #[test]
    fn f64_pairs() {
        let a = [1.5, -2.0, 1e300, 0.1];
        let b = [0.25, 4.0, 1e10, 0.2];
        let c = [1.0, 1.0, 1.0, 1.0];
        let d = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let (x, y, z) = (r(2), r(4), r(6));
        let dst = r(0);
        let two = |i: Inst| f64_op(i, &a, &b, &c, 2);
        let one = |i: Inst| f64_op(i, &a, &b, &c, 1);
        assert_eq!(
            two(DAdd { dst, a: x, b: y }),
            d(&[1.75, 2.0, 1e300 + 1e10, 0.1 + 0.2])
        );
        assert_eq!(
            two(DSub { dst, a: x, b: y }),
            d(&[1.25, -6.0, 1e300, 0.1 - 0.2])
        );
        assert_eq!(
            two(DMul { dst, a: x, b: y }),
            d(&[0.375, -8.0, f64::INFINITY, 0.1 * 0.2])
        );
        assert_eq!(two(DDiv { dst, a: x, b: y }), d(&[6.0, -0.5, 1e290, 0.5]));
        assert_eq!(
            two(DRem { dst, a: x, b: y }),
            d(&[0.0, -2.0, 1e300 % 1e10, 0.1])
        );
        assert_eq!(two(DMin { dst, a: x, b: y }), d(&[0.25, -2.0, 1e10, 0.1]));
        assert_eq!(two(DMax { dst, a: x, b: y }), d(&[1.5, 4.0, 1e300, 0.2]));
        assert_eq!(one(DEq { dst, a: x, b: x }), [1, 1, 1, 1]);
        assert_eq!(one(DNe { dst, a: x, b: y }), [1, 1, 1, 1]);
        assert_eq!(one(DLt { dst, a: x, b: y }), [0, 1, 0, 1]);
        assert_eq!(one(DLe { dst, a: x, b: x }), [1, 1, 1, 1]);
        assert_eq!(two(DNeg { dst, a: x }), d(&[-1.5, 2.0, -1e300, -0.1]));
        assert_eq!(two(DAbs { dst, a: x }), d(&[1.5, 2.0, 1e300, 0.1]));
        assert_eq!(two(DSqrt { dst, a: y }), d(&[0.5, 2.0, 1e5, 0.2f64.sqrt()]));
        assert_eq!(
            two(DFma {
                dst,
                a: x,
                b: y,
                c: z
            }),
            d(&[1.375, -7.0, f64::INFINITY, 0.1f64.mul_add(0.2, 1.0)])
        );
        assert_eq!(two(Mov64 { dst, a: y }), d(&b));
    }

    #[test]
    fn select_and_select64() {
        // r1 = lane, r2 = 1000 + lane via Add, c = lane & 1
        let p = P::new(vec![
            Add {
                dst: r(2),
                a: r(1),
                b: r(3),
            },
            And {
                dst: r(4),
                a: r(1),
                b: r(5),
            },
            Select {
                dst: r(0),
                c: r(4),
                a: r(1),
                b: r(2),
            },
            // 64-bit: (r1, r2) vs (r2, r1)
            Select64 {
                dst: r(6),
                c: r(4),
                a: r(1),
                b: r(2),
            },
        ])
        .special(1, Special::LaneId)
        .konst(3, 1000)
        .konst(5, 1)
        .build();
        let o = exec(&p);
        assert_eq!(
            o.reg(0, 0),
            lanes(|l| if l & 1 == 1 { l } else { 1000 + l })
        );
        // a = r1:r2 = (l, 1000+l); b = r2:r3 = (1000+l, 1000)
        assert_eq!(
            o.reg(0, 6),
            lanes(|l| if l & 1 == 1 { l } else { 1000 + l })
        );
        assert_eq!(
            o.reg(0, 7),
            lanes(|l| if l & 1 == 1 { 1000 + l } else { 1000 })
        );
    }

    /// Cvt of one value per lane from `from` to `to`, through registers r2(:r3) -> r0(:r1).
    fn cvt1(from: Elem, to: Elem, vals: &[u64]) -> Vec<u64> {
        let n = vals.len();
        let mut code = vec![Load(global_mem(0, r(10), 1, r(2)))];
        code.push(Cvt {
            dst: r(0),
            a: r(2),
            from,
            to,
        });
        code.push(Store(global_mem(1, r(10), 1, r(0))));
        let p = P::new(code)
            .special(10, Special::LaneId)
            .buffer("in", from, 32)
            .buffer("out", to, 32)
            .build();
        let global = Global::new(&p);
        let wi = from.bytes() as usize / 4;
        let mut words = Vec::new();
        for l in 0..32 {
            let v = vals[l % n];
            words.push(v as u32);
            if wi == 2 {
                words.push((v >> 32) as u32);
            }
        }
        global.write(0, &words);
        let mut stats = Stats::new(&p, &Geometry::H200);
        run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
        let out = global.read(1);
        let wo = to.bytes() as usize / 4;
        (0..n)
            .map(|l| {
                if wo == 2 {
                    out[2 * l] as u64 | (out[2 * l + 1] as u64) << 32
                } else {
                    out[l] as u64
                }
            })
            .collect()
    }

    #[test]
    fn conversions() {
        use Elem::*;
        let f32s = |v: &[f32]| v.iter().map(|x| x.to_bits() as u64).collect::<Vec<_>>();
        let f64s = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let u = |v: &[i64]| v.iter().map(|&x| x as u32 as u64).collect::<Vec<_>>();
        assert_eq!(
            cvt1(F32, I32, &f32s(&[3.7, -3.7, f32::NAN, 1e10, -1e10, -0.5])),
            u(&[3, -3, 0, i32::MAX as i64, i32::MIN as i64, 0])
        );
        assert_eq!(
            cvt1(F32, U32, &f32s(&[3.7, -1.0, f32::NAN, 1e10, 4e9])),
            u(&[3, 0, 0, u32::MAX as i64, 4_000_000_000])
        );
        assert_eq!(
            cvt1(I32, F32, &u(&[-3, 16_777_217, i32::MIN as i64])),
            f32s(&[-3.0, 16_777_216.0, -2147483648.0])
        );
        assert_eq!(
            cvt1(U32, F32, &u(&[u32::MAX as i64])),
            f32s(&[4294967296.0])
        );
        assert_eq!(
            cvt1(I32, F64, &u(&[-3, i32::MIN as i64])),
            f64s(&[-3.0, i32::MIN as f64])
        );
        assert_eq!(
            cvt1(U32, F64, &u(&[u32::MAX as i64])),
            f64s(&[u32::MAX as f64])
        );
        assert_eq!(
            cvt1(F64, I32, &f64s(&[-2.9, 1e20, f64::NAN])),
            u(&[-2, i32::MAX as i64, 0])
        );
        assert_eq!(
            cvt1(F64, U32, &f64s(&[-2.9, 1e20, 7.99])),
            u(&[0, u32::MAX as i64, 7])
        );
        assert_eq!(
            cvt1(F64, F32, &f64s(&[0.1, 1e300])),
            f32s(&[0.1, f32::INFINITY])
        );
        assert_eq!(cvt1(F32, F64, &f32s(&[0.1])), f64s(&[0.1f32 as f64]));
        assert_eq!(cvt1(I32, U32, &u(&[-1])), u(&[u32::MAX as i64]));
        assert_eq!(cvt1(U32, I32, &u(&[u32::MAX as i64])), u(&[-1]));
        assert_eq!(cvt1(F64, F64, &f64s(&[0.3])), f64s(&[0.3]));
    }

    /// Nested `If`s with per-lane conditions:
    /// `if lane < 16 { if lane even { r = 1 } else { r = 2 } } else { r = 3 }; r2 = r + 10`.
    #[test]
    fn nested_if_reconverges() {
        let p = P::new(vec![
            /* 0 */
            LtU {
                dst: r(1),
                a: r(0),
                b: r(20),
            },
            /* 1 */
            If {
                c: r(1),
                else_pc: 10,
                end_pc: 11,
            },
            /* 2 */
            And {
                dst: r(2),
                a: r(0),
                b: r(21),
            },
            /* 3 */
            Eq {
                dst: r(2),
                a: r(2),
                b: r(22),
            },
            /* 4 */
            If {
                c: r(2),
                else_pc: 7,
                end_pc: 8,
            },
            /* 5 */ Mov {
                dst: r(5),
                a: r(21),
            },
            /* 6 */ Else { end_pc: 8 },
            /* 7 */ Mov {
                dst: r(5),
                a: r(23),
            },
            /* 8 */ EndIf,
            /* 9 */ Else { end_pc: 11 },
            /* 10 */ Mov {
                dst: r(5),
                a: r(24),
            },
            /* 11 */ EndIf,
            /* 12 */
            Add {
                dst: r(6),
                a: r(5),
                b: r(25),
            },
        ])
        .special(0, Special::LaneId)
        .konst(20, 16)
        .konst(21, 1)
        .konst(22, 0)
        .konst(23, 2)
        .konst(24, 3)
        .konst(25, 10)
        .build();
        let o = exec(&p);
        let want = |l: u32| {
            if l >= 16 {
                3
            } else if l.is_multiple_of(2) {
                1
            } else {
                2
            }
        };
        assert_eq!(o.reg(0, 5), lanes(want));
        assert_eq!(o.reg(0, 6), lanes(|l| want(l) + 10));
        let pcs = &o.stats.per_pc;
        assert_eq!((pcs[5].executions, pcs[5].lanes), (1, 8));
        assert_eq!((pcs[7].executions, pcs[7].lanes), (1, 8));
        assert_eq!((pcs[10].executions, pcs[10].lanes), (1, 16));
        assert_eq!((pcs[12].executions, pcs[12].lanes), (1, 32));
        // Every instruction ran once (both `Else`s switch the warp, neither jumps).
        assert!(pcs.iter().all(|p| p.executions == 1));
        assert_eq!(o.stats.warp_instructions, p.code.len() as u64);
        assert_eq!(
            o.stats.thread_instructions,
            pcs.iter().map(|p| p.lanes).sum::<u64>()
        );
    }

    /// `If`s where no lane, or every lane, takes the then-part; and an `If` without `Else`
    /// (`else_pc == end_pc`).
    #[test]
    fn uniform_and_else_less_ifs() {
        let p = P::new(vec![
            /* 0 */
            If {
                c: r(1),
                else_pc: 3,
                end_pc: 4,
            }, // c = 0 everywhere
            /* 1 */ Mov { dst: r(5), a: r(2) },
            /* 2 */ Else { end_pc: 4 },
            /* 3 */ Mov { dst: r(6), a: r(2) },
            /* 4 */ EndIf,
            /* 5 */
            If {
                c: r(2),
                else_pc: 8,
                end_pc: 9,
            }, // c = 1 everywhere
            /* 6 */ Mov { dst: r(7), a: r(2) },
            /* 7 */ Else { end_pc: 9 },
            /* 8 */ Mov { dst: r(8), a: r(2) },
            /* 9 */ EndIf,
            /* 10 */
            LtU {
                dst: r(3),
                a: r(0),
                b: r(4),
            }, // lane < 5
            /* 11 */
            If {
                c: r(3),
                else_pc: 13,
                end_pc: 13,
            },
            /* 12 */ Mov { dst: r(9), a: r(2) },
            /* 13 */ EndIf,
            /* 14 */
            Add {
                dst: r(10),
                a: r(9),
                b: r(2),
            },
        ])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .konst(2, 1)
        .konst(4, 5)
        .build();
        let o = exec(&p);
        let pcs = &o.stats.per_pc;
        assert_eq!(o.reg(0, 5), [0; 32]);
        assert_eq!(o.reg(0, 6), [1; 32]);
        assert_eq!(o.reg(0, 7), [1; 32]);
        assert_eq!(o.reg(0, 8), [0; 32]);
        assert_eq!(o.reg(0, 9), lanes(|l| (l < 5) as u32));
        assert_eq!(o.reg(0, 10), lanes(|l| (l < 5) as u32 + 1));
        for pc in [1, 2, 8] {
            assert_eq!(pcs[pc].executions, 0, "pc {pc}");
        }
        assert_eq!(pcs[12].lanes, 5);
        assert_eq!(pcs[13].lanes, 5);
        assert_eq!(pcs[14].lanes, 32);
    }

    /// `for (i = 0; i < lane; i++) acc += i;` with per-lane trip counts.
    fn loop_program(limit: u16) -> Program {
        P::new(vec![
            /* 0 */ LoopStart,
            /* 1 */
            LtS {
                dst: r(3),
                a: r(1),
                b: r(limit),
            },
            /* 2 */
            LoopTest {
                c: r(3),
                exit_pc: 6,
            },
            /* 3 */
            Add {
                dst: r(2),
                a: r(2),
                b: r(1),
            },
            /* 4 */
            Add {
                dst: r(1),
                a: r(1),
                b: r(4),
            },
            /* 5 */ LoopBack { head_pc: 1 },
            /* 6 */ LoopEnd,
            /* 7 */
            Add {
                dst: r(5),
                a: r(2),
                b: r(4),
            },
        ])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .konst(2, 0)
        .konst(4, 1)
        .konst(6, 0)
        .build()
    }

    #[test]
    fn loop_with_per_lane_trip_counts() {
        let o = exec(&loop_program(0));
        assert_eq!(o.reg(0, 2), lanes(|l| l * l.saturating_sub(1) / 2));
        assert_eq!(o.reg(0, 1), lanes(|l| l));
        assert_eq!(o.reg(0, 5), lanes(|l| l * l.saturating_sub(1) / 2 + 1));
        let pcs = &o.stats.per_pc;
        assert_eq!(pcs[3].executions, 31);
        assert_eq!(pcs[3].lanes, (0..32).sum::<u64>());
        assert_eq!(pcs[1].executions, 32);
        assert_eq!(pcs[6].executions, 1);
        assert_eq!(pcs[6].lanes, 32);
        assert_eq!(pcs[7].lanes, 32);
    }

    #[test]
    fn loop_that_no_lane_enters() {
        let o = exec(&loop_program(6)); // i < 0 never holds
        assert_eq!(o.reg(0, 2), [0; 32]);
        assert_eq!(o.reg(0, 5), [1; 32]);
        let pcs = &o.stats.per_pc;
        assert_eq!(pcs[3].executions, 0);
        assert_eq!((pcs[6].executions, pcs[6].lanes), (1, 32));
    }

    /// A loop inside a divergent `If`, and an `If` inside a loop.
    #[test]
    fn loops_and_ifs_nest() {
        // if lane >= 8 { for i in 0..lane { if i odd { acc += i } } }
        let p = P::new(vec![
            /* 0 */
            LeU {
                dst: r(7),
                a: r(8),
                b: r(0),
            },
            /* 1 */
            If {
                c: r(7),
                else_pc: 12,
                end_pc: 12,
            },
            /* 2 */ LoopStart,
            /* 3 */
            LtS {
                dst: r(3),
                a: r(1),
                b: r(0),
            },
            /* 4 */
            LoopTest {
                c: r(3),
                exit_pc: 11,
            },
            /* 5 */
            And {
                dst: r(9),
                a: r(1),
                b: r(4),
            },
            /* 6 */
            If {
                c: r(9),
                else_pc: 8,
                end_pc: 8,
            },
            /* 7 */
            Add {
                dst: r(2),
                a: r(2),
                b: r(1),
            },
            /* 8 */ EndIf,
            /* 9 */
            Add {
                dst: r(1),
                a: r(1),
                b: r(4),
            },
            /* 10 */ LoopBack { head_pc: 3 },
            /* 11 */ LoopEnd,
            /* 12 */ EndIf,
            /* 13 */
            Add {
                dst: r(5),
                a: r(2),
                b: r(4),
            },
        ])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .konst(2, 0)
        .konst(4, 1)
        .konst(8, 8)
        .build();
        let o = exec(&p);
        let want = |l: u32| {
            if l >= 8 {
                (0..l).filter(|i| i % 2 == 1).sum()
            } else {
                0
            }
        };
        assert_eq!(o.reg(0, 2), lanes(want));
        assert_eq!(o.reg(0, 5), lanes(|l| want(l) + 1));
        assert_eq!(o.stats.per_pc[11].lanes, 24);
        assert_eq!(o.stats.per_pc[13].lanes, 32);
    }

    /// Warp 1 stores to shared memory, barrier, warp 0 reads what it stored.
    #[test]
    fn barrier_orders_warps() {
        let p = P::new(vec![
            /* 0 */
            Eq {
                dst: r(5),
                a: r(1),
                b: r(3),
            },
            /* 1 */
            If {
                c: r(5),
                else_pc: 5,
                end_pc: 5,
            },
            /* 2 */
            Add {
                dst: r(6),
                a: r(2),
                b: r(4),
            },
            /* 3 */ Store(shared_mem(0, &[r(0)], 1, r(6))),
            /* 4 */ Store(global_mem(0, r(2), 1, r(6))),
            /* 5 */ EndIf,
            /* 6 */ Barrier,
            /* 7 */
            Eq {
                dst: r(5),
                a: r(1),
                b: r(7),
            },
            /* 8 */
            If {
                c: r(5),
                else_pc: 11,
                end_pc: 11,
            },
            /* 9 */ Load(shared_mem(0, &[r(0)], 1, r(8))),
            /* 10 */ Store(global_mem(0, r(2), 1, r(8))),
            /* 11 */ EndIf,
        ])
        .block([64, 1, 1])
        .special(0, Special::LaneId)
        .special(1, Special::WarpId)
        .special(2, Special::TidLinear)
        .konst(3, 1)
        .konst(4, 1000)
        .konst(7, 0)
        .shared(tile("t", Elem::U32, &[32], 0, 0))
        .buffer("out", Elem::U32, 64)
        .build();
        let o = exec(&p);
        let out = o.global.read(0);
        assert_eq!(out[..32], lanes(|l| 32 + l + 1000));
        assert_eq!(out[32..], lanes(|l| 32 + l + 1000));
        assert_eq!(o.stats.per_pc[6].executions, 2);
        assert_eq!(o.stats.per_pc[9].wavefronts, 1);
    }

    #[test]
    fn barrier_in_divergent_code_faults() {
        let p = P::new(vec![
            LtU {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            If {
                c: r(1),
                else_pc: 3,
                end_pc: 3,
            },
            Barrier,
            EndIf,
        ])
        .special(0, Special::LaneId)
        .konst(2, 16)
        .build();
        let o = exec_cfg(&p, Config::default(), [0; 3]);
        let f = o.fault();
        assert_eq!(f.pc, Some(2));
        assert!(f.message.contains("barrier inside divergent code"), "{f}");
        assert!(
            f.message
                .contains("lanes 0-15 reached it, lanes 16-31 did not"),
            "{f}"
        );
        assert!(f.help.as_ref().unwrap().contains("move the barrier out"));
    }

    #[test]
    fn barrier_skipped_by_a_warp_faults() {
        let p = P::new(vec![
            Eq {
                dst: r(2),
                a: r(1),
                b: r(3),
            },
            If {
                c: r(2),
                else_pc: 3,
                end_pc: 3,
            },
            Barrier,
            EndIf,
        ])
        .block([64, 1, 1])
        .special(1, Special::WarpId)
        .konst(3, 0)
        .build();
        let o = exec_cfg(&p, Config::default(), [0; 3]);
        let f = o.fault();
        assert_eq!(f.pc, Some(2));
        assert!(
            f.message
                .contains("barrier never reached by warp 1 (threads 32-63)"),
            "{f}"
        );
        assert!(
            f.message.contains("they finished without reaching it"),
            "{f}"
        );
    }

    #[test]
    fn partial_warps_pass_barriers() {
        // 40 threads: warp 1 has 8 live lanes, and its barrier is not divergent.
        let p = P::new(vec![
            Barrier,
            Add {
                dst: r(1),
                a: r(0),
                b: r(0),
            },
            Barrier,
        ])
        .block([40, 1, 1])
        .special(0, Special::TidLinear)
        .build();
        let o = exec(&p);
        assert_eq!(o.stats.per_pc[1].lanes, 40);
        assert_eq!(o.reg(1, 1)[..8], lanes(|l| 2 * (32 + l))[..8]);
    }

    #[test]
    fn runaway_loop_faults() {
        let p = P::new(vec![
            LoopStart,
            LoopTest {
                c: r(1),
                exit_pc: 3,
            },
            LoopBack { head_pc: 1 },
            LoopEnd,
        ])
        .konst(1, 1)
        .build();
        let cfg = Config {
            max_steps: 1000,
            ..Config::default()
        };
        let o = exec_cfg(&p, cfg, [0; 3]);
        let f = o.fault();
        assert_eq!(f.pc, Some(2));
        assert!(
            f.message.contains("more than 1000 warp instructions"),
            "{f}"
        );
        assert_eq!(
            f.help.as_deref(),
            Some("raise --max-steps or check the loop's condition")
        );
        assert!(o.stats.warp_instructions > 1000 && o.stats.warp_instructions < 1010);
    }

    fn div_program(guard: bool) -> Program {
        let div = DivS {
            dst: r(2),
            a: r(1),
            b: r(0),
        };
        let code = if guard {
            vec![
                Ne {
                    dst: r(3),
                    a: r(0),
                    b: r(4),
                },
                If {
                    c: r(3),
                    else_pc: 3,
                    end_pc: 3,
                },
                div,
                EndIf,
            ]
        } else {
            vec![div]
        };
        P::new(code)
            .block([8, 4, 1])
            .special(0, Special::TidLinear)
            .konst(1, 100)
            .konst(4, 0)
            .build()
    }

    #[test]
    fn division_by_zero_faults_only_in_active_lanes() {
        let o = exec_cfg(&div_program(false), Config::default(), [2, 1, 0]);
        let f = o.fault();
        assert_eq!(f.pc, Some(0));
        assert_eq!(f.thread, Some([0, 0, 0]));
        assert_eq!(f.block, [2, 1, 0]);
        assert!(f.message.contains("division by zero"), "{f}");
        assert!(f.text().contains("thread (0,0,0) of block (2,1,0)"), "{f}");

        let o = exec(&div_program(true));
        assert_eq!(o.reg(0, 2), lanes(|l| 100u32.checked_div(l).unwrap_or(0)));

        // Remainder too; the faulting thread is named by (x, y, z).
        let p = P::new(vec![
            Sub {
                dst: r(3),
                a: r(0),
                b: r(4),
            },
            RemU {
                dst: r(2),
                a: r(1),
                b: r(3),
            },
        ])
        .block([8, 4, 1])
        .special(0, Special::TidLinear)
        .konst(1, 100)
        .konst(4, 13)
        .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert_eq!(f.thread, Some([5, 1, 0]));
        assert!(f.message.contains("remainder by zero"), "{f}");
    }

    #[test]
    fn shared_out_of_bounds_faults() {
        // tile[lane][lane + 2]: lane 30 reaches column 32.
        let p = P::new(vec![
            Add {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            Load(shared_mem(0, &[r(0), r(1)], 1, r(3))),
        ])
        .special(0, Special::LaneId)
        .konst(2, 2)
        .shared(tile("tile", Elem::F32, &[32, 32], 0, 0))
        .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert_eq!(f.pc, Some(1));
        assert_eq!(f.thread, Some([30, 0, 0]));
        assert!(
            f.message
                .starts_with("out-of-bounds shared access: tile[30][32] is outside tile[32][32]"),
            "{f}"
        );

        // A negative index.
        let p = P::new(vec![
            Sub {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            Store(shared_mem(0, &[r(1)], 1, r(0))),
        ])
        .special(0, Special::LaneId)
        .konst(2, 1)
        .shared(tile("v", Elem::U32, &[64], 0, 0))
        .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert!(f.message.contains("v[-1] is outside v[64]"), "{f}");

        // A vector whose last element is outside.
        let p = P::new(vec![
            Mul {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            Load(shared_mem(0, &[r(1)], 4, r(4))),
        ])
        .special(0, Special::LaneId)
        .konst(2, 4)
        .shared(tile("v", Elem::F32, &[126], 0, 0))
        .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert_eq!(f.thread, Some([31, 0, 0]));
        assert!(
            f.message
                .contains("v[124] (a vector of 4 f32), reaching [127]"),
            "{f}"
        );
    }

    #[test]
    fn global_out_of_bounds_faults() {
        let p = P::new(vec![Store(global_mem(0, r(0), 1, r(0)))])
            .block([40, 1, 1])
            .special(0, Special::TidLinear)
            .buffer("out", Elem::U32, 36)
            .build();
        let o = exec_cfg(&p, Config::default(), [0; 3]);
        let f = o.fault();
        assert_eq!(f.thread, Some([36, 0, 0]));
        assert!(f.message.contains("out[36] is outside out[36]"), "{f}");
        // Warp 0 ran and stored before warp 1 faulted.
        assert_eq!(o.global.read(0)[..32], lanes(|l| l));
    }

    #[test]
    fn misaligned_vectors_fault() {
        // tile[lane][1] as a vector of 4 f32: byte 4 of row 0.
        let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 4, r(4)))])
            .special(0, Special::LaneId)
            .konst(1, 1)
            .shared(tile("tile", Elem::F32, &[32, 32], 0, 0))
            .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert_eq!(f.thread, Some([0, 0, 0]));
        assert!(
            f.message
                .starts_with("misaligned 16-byte access: tile[0][1]"),
            "{f}"
        );

        // Column 0 but rows padded by 1: row 1 starts at byte 132.
        let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 2, r(4)))])
            .special(0, Special::LaneId)
            .konst(1, 0)
            .shared(tile("tile", Elem::F32, &[32, 32], 1, 0))
            .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert_eq!(f.thread, Some([1, 0, 0]));
        assert!(
            f.message.contains("misaligned 8-byte access: tile[1][0]"),
            "{f}"
        );

        // Global: buf[lane * 2 + 1] as a float2.
        let p = P::new(vec![
            Mul {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            Add {
                dst: r(1),
                a: r(1),
                b: r(3),
            },
            Load(global_mem(0, r(1), 2, r(4))),
        ])
        .special(0, Special::LaneId)
        .konst(2, 2)
        .konst(3, 1)
        .buffer("buf", Elem::F32, 128)
        .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert!(
            f.message.contains("misaligned 8-byte access: buf[1]"),
            "{f}"
        );
    }

    /// 32 lanes reading tile[lane][0] of a [32][32] f32 array: 32 wavefronts, 31 conflicts;
    /// with one element of padding per row, 1 wavefront.
    #[test]
    fn shared_bank_cost() {
        for (pad, wavefronts, conflicts) in [(0, 32, 31), (1, 1, 0)] {
            let p = P::new(vec![
                Load(shared_mem(0, &[r(0), r(1)], 1, r(2))),
                Store(shared_mem(0, &[r(1), r(0)], 1, r(2))),
            ])
            .special(0, Special::LaneId)
            .konst(1, 0)
            .shared(tile("tile", Elem::F32, &[32, 32], pad, 0))
            .build();
            let o = exec(&p);
            let s = &o.stats.per_pc[0];
            assert_eq!(
                (s.wavefronts, s.conflicts),
                (wavefronts, conflicts),
                "pad {pad}"
            );
            // The row store tile[0][lane] is conflict-free either way.
            assert_eq!(o.stats.per_pc[1].wavefronts, 1);
            assert_eq!(o.stats.per_bank.iter().sum::<u64>(), 64);
            if pad == 0 {
                assert_eq!(o.stats.per_bank[0], 33);
            }
            // Per instruction: the column load asks bank 0 for 32 words (unpadded) or every
            // bank for one; the row store every bank for one.
            let pb = &o.stats.per_pc_bank;
            assert_eq!(pb.len(), p.code.len() * 32);
            if pad == 0 {
                assert_eq!(pb[0], 32);
                assert_eq!(pb[1..32].iter().sum::<u64>(), 0);
            } else {
                assert!(pb[..32].iter().all(|&v| v == 1));
            }
            assert!(pb[32..64].iter().all(|&v| v == 1));
            let summed: Vec<u64> = (0..32)
                .map(|b| (0..p.code.len()).map(|pc| pb[pc * 32 + b]).sum())
                .collect();
            assert_eq!(summed, o.stats.per_bank);
            assert_eq!(o.stats.wavefronts(), wavefronts + 1);
            assert_eq!(o.stats.conflicts(), conflicts);
        }
    }

    /// Vector and f64 accesses move the right words; stores to one address keep the highest
    /// lane's value.
    #[test]
    fn vector_and_wide_accesses() {
        // Each lane stores (4l, 4l+1, 4l+2, 4l+3) as a float4 at v[4 * lane], reads back
        // v[4 * (31 - lane)] as two float2, and writes an f64 pair to a global buffer.
        let p = P::new(vec![
            /* 0 */
            Mul {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            /* 1 */
            Add {
                dst: r(5),
                a: r(1),
                b: r(20),
            },
            /* 2 */
            Add {
                dst: r(6),
                a: r(1),
                b: r(21),
            },
            /* 3 */
            Add {
                dst: r(7),
                a: r(1),
                b: r(22),
            },
            /* 4 */
            Add {
                dst: r(8),
                a: r(1),
                b: r(23),
            },
            /* 5 */ Store(shared_mem(0, &[r(1)], 4, r(5))),
            /* 6 */
            Sub {
                dst: r(9),
                a: r(24),
                b: r(0),
            },
            /* 7 */
            Mul {
                dst: r(9),
                a: r(9),
                b: r(2),
            },
            /* 8 */ Load(shared_mem(0, &[r(9)], 2, r(10))),
            /* 9 */
            Add {
                dst: r(9),
                a: r(9),
                b: r(25),
            },
            /* 10 */ Load(shared_mem(0, &[r(9)], 2, r(12))),
            /* 11 */ Store(global_mem(0, r(0), 1, r(10))),
            /* 12 */ Store(global_mem(1, r(22), 1, r(0))),
            /* 13 */ Load(global_mem(0, r(0), 1, r(14))),
        ])
        .special(0, Special::LaneId)
        .konst(2, 4)
        .konst(20, 0)
        .konst(21, 1)
        .konst(22, 2)
        .konst(23, 3)
        .konst(24, 31)
        .konst(25, 2)
        .shared(tile("v", Elem::U32, &[128], 0, 0))
        .buffer("d", Elem::F64, 32)
        .buffer("same", Elem::U32, 4)
        .build();
        let o = exec(&p);
        let m = |l: u32| 4 * (31 - l);
        assert_eq!(o.reg(0, 10), lanes(m));
        assert_eq!(o.reg(0, 11), lanes(|l| m(l) + 1));
        assert_eq!(o.reg(0, 12), lanes(|l| m(l) + 2));
        assert_eq!(o.reg(0, 13), lanes(|l| m(l) + 3));
        let d = o.global.read(0);
        assert_eq!(d.len(), 64);
        for l in 0..32u32 {
            assert_eq!(d[2 * l as usize], m(l));
            assert_eq!(d[2 * l as usize + 1], m(l) + 1);
        }
        assert_eq!(o.reg(0, 14), lanes(m));
        assert_eq!(o.reg(0, 15), lanes(|l| m(l) + 1));
        assert_eq!(o.global.read(1), [0, 0, 31, 0]);
        // 16-byte stores: 4 phases of 8 lanes, conflict-free.
        assert_eq!(o.stats.per_pc[5].wavefronts, 4);
        // 8-byte loads 16 bytes apart: lanes l and l + 8 share banks, 2 per phase of 16.
        assert_eq!(o.stats.per_pc[8].wavefronts, 4);
    }

    #[test]
    fn swizzled_layout() {
        // tile[32][32] with swizzle 1: tile[lane][0] lands on bank `lane`.
        let p = P::new(vec![
            Store(shared_mem(0, &[r(0), r(1)], 1, r(0))),
            Load(shared_mem(0, &[r(0), r(1)], 1, r(2))),
        ])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .shared(tile("tile", Elem::F32, &[32, 32], 0, 1))
        .build();
        let o = exec(&p);
        assert_eq!(o.stats.per_pc[0].wavefronts, 1);
        assert_eq!(o.reg(0, 2), lanes(|l| l));
        // A float2 at tile[1][0] with swizzle 1 and pad 1: column 0 is stored at element
        // 33 + 1 (aligned), column 1 at 33 + 0, so the pair is not contiguous.
        let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 2, r(4)))])
            .special(0, Special::LaneId)
            .konst(1, 0)
            .shared(tile("tile", Elem::F32, &[32, 32], 1, 1))
            .build();
        let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
        assert!(f.message.contains("crosses a swizzle group"), "{f}");
    }

    #[test]
    fn special_registers() {
        let p = P::new(vec![])
            .block([32, 8, 1])
            .special(0, Special::LaneId)
            .special(1, Special::WarpId)
            .special(2, Special::Tid(0))
            .special(3, Special::Tid(1))
            .special(4, Special::Tid(2))
            .special(5, Special::TidLinear)
            .special(6, Special::Ctaid(1))
            .special(7, Special::Ntid(1))
            .special(8, Special::Nctaid(0))
            .build();
        let mut p = p;
        p.grid = [5, 6, 1];
        let o = exec_cfg(&p, Config::default(), [4, 3, 0]);
        o.result.as_ref().unwrap();
        for w in 0..8 {
            assert_eq!(o.reg(w, 0), lanes(|l| l));
            assert_eq!(o.reg(w, 1), [w as u32; 32]);
            assert_eq!(o.reg(w, 2), lanes(|l| l));
            assert_eq!(o.reg(w, 3), [w as u32; 32]);
            assert_eq!(o.reg(w, 4), [0; 32]);
            assert_eq!(o.reg(w, 5), lanes(|l| 32 * w as u32 + l));
            assert_eq!(o.reg(w, 6), [3; 32]);
            assert_eq!(o.reg(w, 7), [8; 32]);
            assert_eq!(o.reg(w, 8), [5; 32]);
        }

        // A 3-D block of 8 x 2 x 3 = 48 threads: 2 warps, the second with 16 lanes.
        let p = P::new(vec![Add {
            dst: r(9),
            a: r(0),
            b: r(0),
        }])
        .block([8, 2, 3])
        .special(0, Special::Tid(0))
        .special(1, Special::Tid(1))
        .special(2, Special::Tid(2))
        .build();
        let o = exec(&p);
        let t = |w: usize, l: u32| 32 * w as u32 + l;
        assert_eq!(o.reg(1, 0)[..16], lanes(|l| t(1, l) % 8)[..16]);
        assert_eq!(o.reg(1, 1)[..16], lanes(|l| t(1, l) / 8 % 2)[..16]);
        assert_eq!(o.reg(1, 2)[..16], lanes(|l| t(1, l) / 16)[..16]);
        assert_eq!(
            o.reg(1, 9)[16..],
            [0; 16],
            "missing lanes are never written"
        );
        assert_eq!(o.stats.per_pc[0].lanes, 48);
        assert_eq!(o.stats.thread_instructions, 96);
        assert_eq!(o.stats.warp_instructions, 4);
    }

    #[test]
    fn partial_last_warp() {
        // 40 threads each store tid to out[tid]; out has exactly 40 elements.
        let p = P::new(vec![Store(global_mem(0, r(0), 1, r(0)))])
            .block([40, 1, 1])
            .special(0, Special::TidLinear)
            .buffer("out", Elem::U32, 40)
            .build();
        let o = exec(&p);
        assert_eq!(o.global.read(0), (0..40).collect::<Vec<u32>>());
        assert_eq!(o.stats.per_pc[0].executions, 2);
        assert_eq!(o.stats.per_pc[0].lanes, 40);
    }

    #[test]
    fn fault_into_diag_points_at_the_line() {
        let p = div_program(false);
        let f = exec_cfg(&p, Config::default(), [1, 0, 0])
            .result
            .unwrap_err();
        let d = f.into_diag(&p);
        assert_eq!(d.phase, Phase::Runtime);
        assert_eq!(d.location, "test.ron:1:3");
        assert_eq!(d.line(), Some(1));
        assert!(
            d.message.contains("integer division by zero in `inst 0`"),
            "{}",
            d.message
        );
        assert!(
            d.message.contains("thread (0,0,0) of block (1,0,0)"),
            "{}",
            d.message
        );
        assert!(d.help.is_some());
    }

    #[test]
    fn malformed_programs_fault_instead_of_panicking() {
        let cases: Vec<Program> = vec![
            // A register past nregs.
            {
                let mut p = P::new(vec![Add {
                    dst: r(40),
                    a: r(0),
                    b: r(0),
                }])
                .build();
                p.nregs = 32;
                p
            },
            // A 64-bit operand whose high word is past nregs.
            {
                let mut p = P::new(vec![DAdd {
                    dst: r(0),
                    a: r(0),
                    b: r(3),
                }])
                .build();
                p.nregs = 4;
                p
            },
            // A jump outside the code.
            P::new(vec![LoopBack { head_pc: 99 }]).build(),
            // No frames.
            {
                let mut p = P::new(vec![
                    If {
                        c: r(0),
                        else_pc: 1,
                        end_pc: 1,
                    },
                    EndIf,
                ])
                .build();
                p.max_depth = 0;
                p
            },
            // Pop without push.
            P::new(vec![EndIf]).build(),
            // A missing shared array / buffer, wrong rank, bad vector.
            P::new(vec![Load(shared_mem(3, &[r(0)], 1, r(1)))]).build(),
            P::new(vec![Load(global_mem(0, r(0), 1, r(1)))]).build(),
            P::new(vec![Load(shared_mem(0, &[r(0)], 1, r(1)))])
                .shared(tile("t", Elem::F32, &[4, 4], 0, 0))
                .build(),
            P::new(vec![Load(shared_mem(0, &[r(0)], 3, r(1)))])
                .shared(tile("t", Elem::F32, &[16], 0, 0))
                .build(),
            P::new(vec![Load(shared_mem(0, &[r(0)], 4, r(1)))])
                .shared(tile("t", Elem::F64, &[16], 0, 0))
                .build(),
            // A swizzle group wider than the row.
            P::new(vec![Load(shared_mem(0, &[r(0), r(0)], 1, r(1)))])
                .shared(tile("t", Elem::F32, &[4, 4], 0, 8))
                .build(),
            // Falling off the end (no Exit).
            {
                let mut p = P::new(vec![]).build();
                p.code.clear();
                p
            },
        ];
        for (i, p) in cases.iter().enumerate() {
            let o = exec_cfg(p, Config::default(), [0; 3]);
            assert!(o.result.is_err(), "case {i} should fault");
        }
        // Bad geometry.
        let p = P::new(vec![]).build();
        let cfg = Config {
            geometry: Geometry {
                banks: 0,
                bank_bytes: 4,
            },
            ..Config::default()
        };
        assert!(exec_cfg(&p, cfg, [0; 3]).result.is_err());
        // Global memory for another program.
        let p = P::new(vec![]).buffer("b", Elem::U32, 10).build();
        let mut stats = Stats::new(&p, &Geometry::H200);
        let g = Global { buffers: vec![] };
        assert!(run_block(&p, &Config::default(), [0; 3], &g, &mut stats).is_err());
        // An empty block does nothing.
        let p = P::new(vec![]).block([0, 1, 1]).build();
        assert!(exec_cfg(&p, Config::default(), [0; 3]).result.is_ok());
    }

    #[test]
    fn stats_merge_and_resize() {
        let p = loop_program(0);
        let mut total = Stats::new(&p, &Geometry::H200);
        let g = Global::new(&p);
        for _ in 0..3 {
            let mut s = Stats::new(&p, &Geometry::H200);
            run_block(&p, &Config::default(), [0; 3], &g, &mut s).unwrap();
            total.merge(&s);
        }
        let mut one = Stats::new(&p, &Geometry::H200);
        run_block(&p, &Config::default(), [0; 3], &g, &mut one).unwrap();
        assert_eq!(total.warp_instructions, 3 * one.warp_instructions);
        assert_eq!(total.per_pc[3].lanes, 3 * one.per_pc[3].lanes);
        // A stats too small for the program is grown rather than indexed out of bounds.
        let mut small = Stats {
            per_pc: vec![],
            per_bank: vec![],
            per_pc_bank: vec![],
            warp_instructions: 0,
            thread_instructions: 0,
            races: Default::default(),
            samples: vec![],
        };
        run_block(&p, &Config::default(), [0; 3], &g, &mut small).unwrap();
        assert_eq!(small, one);
    }

    /// A quick, debug-build-friendly workload: 8 warps, each looping 200 times over a few
    /// instructions with shared accesses, checking exact instruction counts.
    #[test]
    fn quick_workload() {
        let p = P::new(vec![
            /* 0 */ LoopStart,
            /* 1 */
            LtS {
                dst: r(3),
                a: r(1),
                b: r(6),
            },
            /* 2 */
            LoopTest {
                c: r(3),
                exit_pc: 9,
            },
            /* 3 */ Load(shared_mem(0, &[r(0)], 1, r(7))),
            /* 4 */
            Add {
                dst: r(7),
                a: r(7),
                b: r(1),
            },
            /* 5 */ Store(shared_mem(0, &[r(0)], 1, r(7))),
            /* 6 */
            Add {
                dst: r(2),
                a: r(2),
                b: r(1),
            },
            /* 7 */
            Add {
                dst: r(1),
                a: r(1),
                b: r(4),
            },
            /* 8 */ LoopBack { head_pc: 1 },
            /* 9 */ LoopEnd,
            /* 10 */ Barrier,
        ])
        .block([256, 1, 1])
        .special(0, Special::TidLinear)
        .konst(1, 0)
        .konst(2, 0)
        .konst(4, 1)
        .konst(6, 200)
        .shared(tile("acc", Elem::U32, &[256], 0, 0))
        .build();
        let o = exec(&p);
        // LoopStart, 201 tests of 2, 200 bodies of 6 (with LoopBack), LoopEnd, Barrier, Exit
        let per_warp = 1 + 201 * 2 + 200 * 6 + 1 + 1 + 1;
        assert_eq!(o.stats.warp_instructions, 8 * per_warp);
        assert_eq!(o.stats.thread_instructions, 8 * 32 * per_warp);
        assert_eq!(o.reg(7, 2), [200 * 199 / 2; 32]);
        assert_eq!(o.stats.per_pc[3].wavefronts, 8 * 200);
        assert_eq!(o.stats.conflicts(), 0);
    }

    /// One instruction from raw numbers, covering every kind of operand and control flow.
    /// Every kind of instruction has a listing line that starts with its mnemonic.
    #[test]
    fn every_instruction_displays() {
        for k in 0..39 {
            let i = raw_inst(k, [1, 2, 3, 4], [5, 6], [1, 1, 2, 3]);
            let s = i.to_string();
            let op = match s.split([' ', '.', ',']).next().unwrap() {
                "ld" => "load",
                "st" => "store",
                op => op,
            };
            assert!(
                format!("{i:?}").to_ascii_lowercase().starts_with(op),
                "{i:?} shows as {s:?}"
            );
            assert!(!s.contains("Reg("), "{s}");
        }
    }

    fn raw_inst(k: u8, g: [u16; 4], pcs: [u32; 2], misc: [u8; 4]) -> Inst {
        let [dst, a, b, c] = g.map(Reg);
        let elem = |x: u8| [Elem::F32, Elem::F64, Elem::U32, Elem::I32][x as usize % 4];
        let mem = Mem {
            space: if misc[0] & 1 == 0 {
                Space::Shared
            } else {
                Space::Global
            },
            array: misc[1] as u16 % 3,
            rank: misc[2] % 4,
            idx: [a, b, c],
            vec: [1, 2, 3, 4][misc[3] as usize % 4],
            data: dst,
        };
        match k % 39 {
            0 => Mov { dst, a },
            1 => Mov64 { dst, a },
            2 => Select { dst, c, a, b },
            3 => Select64 { dst, c, a, b },
            4 => Add { dst, a, b },
            5 => DivS { dst, a, b },
            6 => DivU { dst, a, b },
            7 => RemS { dst, a, b },
            8 => RemU { dst, a, b },
            9 => Shl { dst, a, b },
            10 => ShrS { dst, a, b },
            11 => FAdd { dst, a, b },
            12 => FRem { dst, a, b },
            13 => FFma { dst, a, b, c },
            14 => DAdd { dst, a, b },
            15 => DRem { dst, a, b },
            16 => DFma { dst, a, b, c },
            17 => DLt { dst, a, b },
            18 => Cvt {
                dst,
                a,
                from: elem(misc[0]),
                to: elem(misc[1]),
            },
            19 | 20 => Load(mem),
            21 | 22 => Store(mem),
            23 => If {
                c,
                else_pc: pcs[0],
                end_pc: pcs[1],
            },
            24 => Else { end_pc: pcs[0] },
            25 => EndIf,
            26 => LoopStart,
            27 => LoopTest { c, exit_pc: pcs[0] },
            28 => LoopBack { head_pc: pcs[0] },
            29 => LoopEnd,
            30 => Barrier,
            31 => Exit,
            32 => AbsS { dst, a },
            33 => DSqrt { dst, a },
            34 => Mad { dst, a, b, c },
            35 => DivS2 {
                dst,
                a,
                k: misc[0] % 32,
            },
            36 => RemS2 {
                dst,
                a,
                k: misc[1] % 32,
            },
            37 => ForTest {
                a,
                b,
                signed: misc[2] & 1 == 0,
                exit_pc: pcs[0],
            },
            _ => ForNext {
                var: dst,
                step: a,
                head_pc: pcs[0],
            },
        }
    }

    fn raw_init(reg: u16, kind: u8, v: u32) -> (Reg, RegInit) {
        let d = if v % 16 == 15 { 3 } else { (v % 3) as u8 };
        let init = match kind % 10 {
            0 => RegInit::Special(Special::Tid(d)),
            1 => RegInit::Special(Special::TidLinear),
            2 => RegInit::Special(Special::Ctaid(d)),
            3 => RegInit::Special(Special::Ntid(d)),
            4 => RegInit::Special(Special::Nctaid(d)),
            5 => RegInit::Special(Special::LaneId),
            6 => RegInit::Special(Special::WarpId),
            7 => RegInit::Const([0, 1, 2, 4, 31, 32, u32::MAX, 0x8000_0000][v as usize % 8]),
            _ => RegInit::Const(v),
        };
        (Reg(reg), init)
    }

    fn raw_shared(dims: Vec<u32>, pad: u32, swizzle: u32, elem: u8) -> SharedInfo {
        let elem = [Elem::F32, Elem::F64, Elem::U32, Elem::I32][elem as usize % 4];
        tile("s", elem, &dims, pad, swizzle)
    }

    /// An instruction's raw numbers: see [`raw_inst`].
    type RawInst = (u8, [u16; 4], [u32; 2], [u8; 4]);

    /// A random program's parts, as drawn by the property test below.
    #[derive(Debug)]
    struct RawProgram {
        /// Repair the common defects, so that most programs run rather than fail the checks.
        tidy: bool,
        code: Vec<RawInst>,
        exit: bool,
        nregs: usize,
        init: Vec<(u16, u8, u32)>,
        shared: Vec<(Vec<u32>, u32, usize, u8)>,
        buffers: Vec<(u8, u64)>,
        block: [u32; 3],
        max_depth: usize,
    }

    fn raw_program() -> impl proptest::strategy::Strategy<Value = RawProgram> {
        use proptest::prelude::*;
        use proptest::{array, collection::vec};
        (
            prop::bool::weighted(0.75),
            vec(
                (
                    0u8..34,
                    array::uniform4(0u16..24),
                    array::uniform2(0u32..32),
                    array::uniform4(any::<u8>()),
                ),
                0..24,
            ),
            prop::bool::weighted(0.9),
            0usize..32,
            vec((0u16..24, 0u8..10, any::<u32>()), 0..12),
            vec((vec(1u32..40, 1..4), 0u32..3, 0usize..5, 0u8..4), 0..3),
            vec((0u8..4, 0u64..100), 0..3),
            (0u32..70, 1u32..3, 1u32..3),
            0usize..4,
        )
            .prop_map(
                |(tidy, code, exit, nregs, init, shared, buffers, block, max_depth)| RawProgram {
                    tidy,
                    code,
                    exit,
                    nregs,
                    init,
                    shared,
                    buffers,
                    block: [block.0, block.1, block.2],
                    max_depth,
                },
            )
    }

    fn build_raw(raw: RawProgram) -> Program {
        let tidy = raw.tidy;
        let mut p = P::new(
            raw.code
                .into_iter()
                .map(|(k, g, pcs, misc)| raw_inst(k, g, pcs, misc))
                .collect(),
        )
        .block(raw.block);
        p.nregs = if tidy { 26 + raw.nregs % 6 } else { raw.nregs };
        p.max_depth = raw.max_depth;
        p.init = raw
            .init
            .into_iter()
            .map(|(r, k, v)| raw_init(r, k, if tidy { v % 15 } else { v }))
            .collect();
        let mut shared = raw.shared;
        if tidy && shared.is_empty() {
            shared.push((vec![8, 32], 1, 0, 0));
        }
        for (dims, pad, swz, elem) in shared {
            let last = *dims.last().unwrap();
            let swizzle = [0, 1, 2, 4, last][swz];
            let swizzle = if tidy && last % swizzle.max(1) != 0 {
                0
            } else {
                swizzle
            };
            p = p.shared(raw_shared(dims, pad, swizzle, elem));
        }
        let mut buffers = raw.buffers;
        if tidy && buffers.is_empty() {
            buffers.push((2, 64));
        }
        for (k, (elem, len)) in buffers.into_iter().enumerate() {
            let elem = [Elem::F32, Elem::F64, Elem::U32, Elem::I32][elem as usize];
            p = p.buffer(&format!("b{k}"), elem, len);
        }
        let mut prog = p.build();
        if tidy {
            // Jumps forward (or, for `LoopBack`, backward) within the code; memory operands
            // that name an existing array with the right rank and a supported vector.
            let n = prog.code.len() as Pc;
            for (pc, inst) in prog.code.iter_mut().enumerate() {
                let pc = pc as Pc;
                let fwd = |t: &mut Pc| *t = pc + 1 + *t % (n - pc - 1).max(1);
                match inst {
                    If {
                        else_pc, end_pc, ..
                    } => {
                        fwd(else_pc);
                        fwd(end_pc);
                    }
                    Else { end_pc: t } | LoopTest { exit_pc: t, .. } => fwd(t),
                    LoopBack { head_pc } => *head_pc %= pc + 1,
                    Load(m) | Store(m) => {
                        let (count, elem) = match m.space {
                            Space::Shared => (prog.shared.len(), prog.shared[0].elem),
                            Space::Global => (prog.buffers.len(), prog.buffers[0].elem),
                        };
                        m.array %= count as u16;
                        let (rank, elem) = match m.space {
                            Space::Shared => {
                                let s = &prog.shared[m.array as usize];
                                (s.dims.len(), s.elem)
                            }
                            Space::Global => (1, elem),
                        };
                        m.rank = rank as u8;
                        if m.vec == 3 {
                            m.vec = 4;
                        }
                        if elem == Elem::F64 && m.vec == 4 {
                            m.vec = 2;
                        }
                    }
                    _ => {}
                }
            }
        }
        if !raw.exit {
            prog.code.pop();
            prog.info.pop();
        }
        prog
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Any program, well-formed or not, runs to completion or to a fault: never a panic,
        /// never an instruction with no active lane, and the totals match the per-pc counts.
        #[test]
        fn any_program_runs_or_faults(raw in raw_program()) {
            check_any_program(raw)?;
        }
    }

    fn check_any_program(raw: RawProgram) -> Result<(), proptest::test_runner::TestCaseError> {
        let prog = build_raw(raw);
        let cfg = Config {
            max_steps: 2000,
            ..Config::default()
        };
        let o = exec_cfg(&prog, cfg, [1, 0, 2]);
        let s = &o.stats;
        for ps in &s.per_pc {
            proptest::prop_assert!(ps.lanes >= ps.executions);
        }
        proptest::prop_assert_eq!(
            s.warp_instructions,
            s.per_pc.iter().map(|p| p.executions).sum::<u64>()
        );
        proptest::prop_assert_eq!(
            s.thread_instructions,
            s.per_pc.iter().map(|p| p.lanes).sum::<u64>()
        );
        if let Err(f) = o.result {
            let d = f.into_diag(&prog);
            proptest::prop_assert_eq!(d.phase, Phase::Runtime);
        }
        Ok(())
    }

    /// Throughput on one core (run with `--release -- --ignored --nocapture`): a loop of 7
    /// arithmetic instructions and 4 of loop control, with 0, 1 or 6 shared loads (of a
    /// 2-D tile, half of them broadcasts) per iteration.
    #[test]
    #[ignore]
    fn throughput() {
        for loads in [0, 1, 6] {
            let mut body = vec![
                LoopStart,
                LtS {
                    dst: r(3),
                    a: r(1),
                    b: r(6),
                },
                LoopTest {
                    c: r(3),
                    exit_pc: 0,
                },
                FAdd {
                    dst: r(8),
                    a: r(7),
                    b: r(8),
                },
                FMul {
                    dst: r(11),
                    a: r(8),
                    b: r(8),
                },
                Add {
                    dst: r(2),
                    a: r(2),
                    b: r(1),
                },
                Xor {
                    dst: r(9),
                    a: r(2),
                    b: r(0),
                },
                MinS {
                    dst: r(10),
                    a: r(9),
                    b: r(2),
                },
                And {
                    dst: r(12),
                    a: r(1),
                    b: r(13),
                },
                Add {
                    dst: r(1),
                    a: r(1),
                    b: r(4),
                },
            ];
            for k in 0..loads {
                let idx = if k % 2 == 0 {
                    [r(12), r(14)]
                } else {
                    [r(15), r(12)]
                };
                body.push(Load(shared_mem(0, &idx, 1, r(7))));
            }
            body.push(LoopBack { head_pc: 1 });
            let exit = body.len() as Pc;
            body[2] = LoopTest {
                c: r(3),
                exit_pc: exit,
            };
            body.push(LoopEnd);
            let p = P::new(body)
                .block([256, 1, 1])
                .special(0, Special::TidLinear)
                .special(14, Special::LaneId)
                .special(15, Special::WarpId)
                .konst(1, 0)
                .konst(4, 1)
                .konst(6, 50_000)
                .konst(13, 7)
                .shared(tile("s", Elem::F32, &[32, 32], 0, 0))
                .build();
            let t = std::time::Instant::now();
            let o = exec(&p);
            let secs = t.elapsed().as_secs_f64();
            let n = o.stats.warp_instructions as f64;
            println!(
                "{loads} shared loads per 11 instructions: {n} warp instructions in {secs:.3} s: \
                 {:.1} M/s",
                n / secs / 1e6
            );
        }
    }
}
