//! The cycle model: every SM of the GPU, its resident blocks and warps, its sub-partitions'
//! schedulers and its shared-memory pipe, global memory (L2 and DRAM) shared by all SMs, and
//! the block dispatcher.
//!
//! Time advances from event to event: an SM is visited only at cycles where one of its warps
//! may issue, retire or change state, and SMs are visited in order of time (then SM number),
//! so the result is deterministic. Each warp carries one `(reason, since, ready)`: until
//! `ready` it is in state `reason`, and the cycles are booked when the state changes, so a
//! warp costs nothing in the cycles it merely waits.

use crate::preset::Gpu;
use crate::reason::{Cycles, Reason, N_REASONS};
use crate::trace::{BlockTrace, Class, Ev, StaticInst};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

const NEVER: u64 = u64::MAX;
const NONE: u32 = u32::MAX;

/// What the model needs to know about the launch besides the traces.
#[derive(Clone, Debug)]
pub struct Launch {
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
    ready: u64,
    reason: Reason,
    since: u64,
    state: St,
    age: u64,
    acks: u64,
    /// Per register: the cycle its value is ready and who produces it.
    regs: Vec<(u64, Reason)>,
}

impl Warp {
    /// The event `i` places after the next one in program order.
    fn ev_at(&self, i: u32) -> Option<Ev> {
        self.trace.warps[self.wi as usize]
            .ev
            .get(self.cur as usize + i as usize)
            .copied()
    }

    /// The instruction it will issue next (the next in program order, or a load hoisted).
    fn ev(&self) -> Option<Ev> {
        self.ev_at(self.pick)
    }

    /// Marks the picked instruction issued and moves past what has been.
    fn advance(&mut self) {
        self.ahead |= 1 << self.pick;
        while self.ahead & 1 != 0 {
            self.ahead >>= 1;
            self.cur += 1;
        }
        self.pick = 0;
    }
}

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

#[derive(Default)]
struct Sp {
    warps: Vec<u32>,
    last: u32,
    /// Departure cycles of its memory instructions still in the SM's queue, in order.
    memq: VecDeque<u64>,
    /// The first cycle it may send another memory instruction.
    mem_ok: u64,
    /// The first cycle each arithmetic pipe takes another instruction ([`Pipe`]).
    pipe_ok: [u64; 4],
    next: u64,
}

/// The arithmetic pipes of a sub-partition.
#[derive(Clone, Copy)]
enum Pipe {
    Int = 0,
    Fp32 = 1,
    Fp64 = 2,
    Slow = 3,
}

fn pipe_of(c: Class) -> Option<Pipe> {
    match c {
        Class::Int | Class::Branch => Some(Pipe::Int),
        Class::Fp32 => Some(Pipe::Fp32),
        Class::Fp64 => Some(Pipe::Fp64),
        Class::Slow => Some(Pipe::Slow),
        _ => None,
    }
}

struct Sm {
    warps: Vec<Warp>,
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
    /// Departure of the last memory instruction (the queue is in order).
    mem_last: u64,
    /// When the global path is free.
    gpath_free: u64,
    /// This SM's DRAM read cursor.
    read_free: f64,
    /// The first cycle it takes another block.
    next_accept: u64,
    /// A block has left: the next one goes into a freed slot.
    refilling: bool,
    icache_ready: Option<u64>,
    active_from: u64,
    next: u64,
    age: u64,
}

/// Everything an SM's step touches besides the SM.
struct Cx<'a> {
    gpu: &'a Gpu,
    code: &'a [StaticInst],
    ideal: bool,
    /// SMs that hold a block now.
    busy_sms: u32,
    l2: Vec<Vec<u64>>,
    out: Outcome,
    timeline_sm: Option<u32>,
    bar_cost: u64,
    block_regs: u64,
    block_smem: u64,
}

/// The whole GPU, fed block traces in grid order.
pub struct Sim<'a> {
    cx: Cx<'a>,
    launch: Launch,
    nwarps: u32,
    block_regs: u64,
    block_smem: u64,
    sms: Vec<Sm>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    pending: VecDeque<Arc<BlockTrace>>,
    next_block: u64,
    next_dispatch: f64,
    blocked: bool,
    rr: usize,
}

impl<'a> Sim<'a> {
    /// A GPU about to run `launch`. `ideal`: price every shared access at its conflict-free
    /// wavefronts. `timeline_sm`: keep the timeline of that SM. Errors: a block that cannot be
    /// resident on an SM at all.
    pub fn new(
        gpu: &'a Gpu,
        code: &'a [StaticInst],
        launch: Launch,
        ideal: bool,
        timeline_sm: Option<u32>,
    ) -> Result<Self, String> {
        let r = &gpu.residency;
        let nwarps = launch.threads.div_ceil(32);
        let block_regs = gpu.block_registers(launch.threads, launch.regs_per_thread);
        let block_smem = launch.shared_bytes as u64 + r.shared_per_block as u64;
        let limits = [
            (nwarps as u64, r.warps as u64, "warps"),
            (launch.threads as u64, r.threads as u64, "threads"),
            (block_regs, r.registers as u64, "registers"),
            (block_smem, r.shared_bytes as u64, "bytes of shared memory"),
        ];
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
            .map(|&b| vec![0u64; b.div_ceil(sb).div_ceil(64) as usize])
            .collect();
        let ncode = code.len();
        let sms = (0..gpu.sms)
            .map(|_| Sm {
                warps: Vec::new(),
                free_warps: Vec::new(),
                blocks: Vec::new(),
                used_blocks: 0,
                used_warps: 0,
                used_threads: 0,
                used_regs: 0,
                used_smem: 0,
                sp: (0..gpu.sub_partitions)
                    .map(|_| Sp {
                        last: NONE,
                        next: NEVER,
                        ..Sp::default()
                    })
                    .collect(),
                servers: vec![0; gpu.shared.servers as usize],
                mem_last: 0,
                gpath_free: 0,
                read_free: 0.0,
                next_accept: 0,
                refilling: false,
                icache_ready: None,
                active_from: 0,
                next: NEVER,
                age: 0,
            })
            .collect();
        let bar_cost = (gpu.barrier.base + gpu.barrier.per_warp * nwarps as f64).round() as u64;
        Ok(Sim {
            cx: Cx {
                gpu,
                code,
                ideal,
                busy_sms: 0,
                l2,
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
            heap: BinaryHeap::new(),
            pending: VecDeque::new(),
            next_block: 0,
            next_dispatch: 0.0,
            blocked: false,
            rr: 0,
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
        loop {
            let hmin = self.heap.peek().map_or(NEVER, |r| r.0 .0);
            let can = self.next_block < self.launch.blocks && !self.blocked;
            let td = if can {
                self.next_dispatch.ceil() as u64
            } else {
                NEVER
            };
            if td != NEVER && td <= hmin {
                if self.pending.is_empty() {
                    return;
                }
                self.dispatch(td);
                continue;
            }
            let Some(Reverse((t, smi))) = self.heap.pop() else {
                return;
            };
            let sm = &mut self.sms[smi as usize];
            if sm.next != t {
                continue;
            }
            let freed = step(&mut self.cx, sm, smi, t);
            if sm.next != NEVER {
                self.heap.push(Reverse((sm.next, smi)));
            }
            if freed {
                self.blocked = false;
                self.next_dispatch = self.next_dispatch.max(t as f64);
            }
        }
    }

    /// Runs to the end and returns what it found.
    pub fn finish(mut self) -> Outcome {
        self.advance();
        self.cx.out
    }

    fn fits(&self, sm: &Sm) -> bool {
        let r = &self.cx.gpu.residency;
        sm.used_blocks < r.blocks
            && sm.used_warps + self.nwarps <= r.warps
            && sm.used_threads + self.launch.threads <= r.threads
            && sm.used_regs + self.block_regs <= r.registers as u64
            && sm.used_smem + self.block_smem <= r.shared_bytes as u64
    }

    /// Dispatches blocks at cycle `t`: to each SM (in breadth-first order) that has room and
    /// takes blocks now, one block.
    fn dispatch(&mut self, t: u64) {
        let n = self.sms.len();
        let mut soonest = NEVER;
        for k in 0..n {
            let sm = (self.rr + k) % n;
            if self.pending.is_empty() || self.next_dispatch > t as f64 {
                return;
            }
            if !self.fits(&self.sms[sm]) {
                continue;
            }
            let at = self.sms[sm].next_accept;
            if at > t {
                soonest = soonest.min(at);
                continue;
            }
            let Some(trace) = self.pending.pop_front() else {
                return;
            };
            let id = self.next_block;
            self.next_block += 1;
            let refill = self.sms[sm].refilling;
            self.place(sm, id, trace, t);
            if refill {
                // Blocks into freed slots leave the dispatcher one at a time.
                self.next_dispatch =
                    self.next_dispatch.max(t as f64) + self.cx.gpu.launch.dispatch_cycles_per_block;
            }
            let s = &self.sms[sm];
            if s.next != NEVER {
                self.heap.push(Reverse((s.next, sm as u32)));
            }
            if self.next_block >= self.launch.blocks {
                return;
            }
        }
        self.rr = 0;
        for sm in &self.sms {
            if self.fits(sm) {
                soonest = soonest.min(sm.next_accept.max(t + 1));
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
            self.cx.busy_sms += 1;
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
                        ready: NEVER,
                        reason: Reason::NoInstruction,
                        since: 0,
                        state: St::Free,
                        age: 0,
                        acks: 0,
                        regs: Vec::new(),
                    });
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
            w.ready = start;
            w.reason = Reason::NoInstruction;
            w.since = t;
            w.state = St::Run;
            w.age = sm.age;
            w.acks = 0;
            w.regs.clear();
            w.regs.resize(nregs, (0, Reason::Wait));
            w.pc = w.ev().map_or(0, |e| e.pc);
            if w.ev().is_none() {
                w.state = St::Exited;
                w.reason = Reason::Drain;
            }
            blk.warps.push(slot);
            blk.alive += (w.state == St::Run) as u32;
            blk.resident += 1;
            let p = slot as usize % sm.sp.len();
            sm.sp[p].warps.push(slot);
            sm.sp[p].next = sm.sp[p].next.min(start);
        }
        sm.next = sm.next.min(start);
        sm.blocks[bslot] = Some(blk);
    }
}

/// Books `[w.since, t)` to the warp's state at its pc, and puts it in `reason` from `t`.
#[inline]
fn switch(cx: &mut Cx, smi: u32, slot: u32, w: &mut Warp, t: u64, reason: Reason) {
    book(cx, smi, slot, w, t);
    w.reason = reason;
    w.since = t;
}

#[inline]
fn book(cx: &mut Cx, smi: u32, slot: u32, w: &Warp, t: u64) {
    if t <= w.since {
        return;
    }
    let d = t - w.since;
    let r = w.reason as usize;
    cx.out.cycles[r] += d;
    if let Some(p) = cx.out.per_pc.get_mut(w.pc as usize) {
        p[r] += d;
    }
    if cx.timeline_sm == Some(smi) && cx.out.timeline.len() < MAX_SPANS {
        let tl = &mut cx.out.timeline;
        if let Some(last) = tl.last_mut() {
            if last.warp == slot && last.reason == w.reason && last.to == w.since {
                last.to = t;
                return;
            }
        }
        tl.push(Span {
            warp: slot,
            block: w.bid,
            reason: w.reason,
            from: w.since,
            to: t,
        });
    }
}

/// Visits SM `smi` at cycle `t`: each sub-partition whose warps may act does. Returns whether
/// a block left the SM.
fn step(cx: &mut Cx, sm: &mut Sm, smi: u32, t: u64) -> bool {
    let mut freed = false;
    let q = &cx.gpu.memory_queue;
    let own = q.per_sub_partition as usize;
    // The memory queue: what has left it by now, and how full the SM-wide stage is.
    let mut overflow = 0usize;
    let mut next_departure = NEVER;
    for sp in &mut sm.sp {
        while sp.memq.front().is_some_and(|&d| d <= t) {
            sp.memq.pop_front();
        }
        overflow += sp.memq.len().saturating_sub(own);
        if let Some(&d) = sp.memq.front() {
            next_departure = next_departure.min(d);
        }
    }
    for p in 0..sm.sp.len() {
        if sm.sp[p].next > t {
            continue;
        }
        let list = std::mem::take(&mut sm.sp[p].warps);
        let mut elig = [0u32; 64];
        let mut ne = 0usize;
        let mut pick = NONE;
        let mut pick_age = u64::MAX;
        for &s in &list {
            let w = &mut sm.warps[s as usize];
            if w.ready > t {
                continue;
            }
            match w.state {
                St::Run => {}
                St::Exited => {
                    freed |= retire(cx, sm, smi, s, t);
                    continue;
                }
                St::Bar | St::Free => continue,
            }
            let Some(ev) = w.ev() else {
                w.state = St::Exited;
                continue;
            };
            let class = cx.code.get(ev.pc as usize).map_or(Class::Int, |c| c.class);
            let sp = &sm.sp[p];
            let (hold, until) = match class {
                Class::SharedLd
                | Class::SharedSt
                | Class::Shuffle
                | Class::GlobalLd
                | Class::GlobalSt => {
                    let throttle =
                        if matches!(class, Class::SharedLd | Class::SharedSt | Class::Shuffle) {
                            Reason::MioThrottle
                        } else {
                            Reason::LgThrottle
                        };
                    if sp.memq.len() >= own && overflow >= q.shared_stage as usize {
                        (Some(throttle), next_departure)
                    } else if sp.mem_ok > t {
                        (Some(Reason::DispatchStall), sp.mem_ok)
                    } else {
                        (None, 0)
                    }
                }
                c => match pipe_of(c) {
                    Some(k) if sp.pipe_ok[k as usize] > t => {
                        (Some(Reason::MathPipeThrottle), sp.pipe_ok[k as usize])
                    }
                    _ => (None, 0),
                },
            };
            if let Some(reason) = hold {
                switch(cx, smi, s, w, t, reason);
                w.ready = until.max(t + 1);
                continue;
            }
            if ne < elig.len() {
                elig[ne] = s;
                ne += 1;
            }
            if s == sm.sp[p].last {
                pick = s;
                pick_age = 0;
            } else if w.age < pick_age {
                pick = s;
                pick_age = w.age;
            }
        }
        if pick != NONE {
            issue(cx, sm, smi, p, pick, t);
            sm.sp[p].last = pick;
            for &s in &elig[..ne] {
                if s != pick {
                    let w = &mut sm.warps[s as usize];
                    switch(cx, smi, s, w, t, Reason::NotSelected);
                    w.ready = t + 1;
                }
            }
        }
        let mut list = list;
        list.retain(|&s| sm.warps[s as usize].state != St::Free);
        sm.sp[p].warps = list;
    }
    for p in 0..sm.sp.len() {
        if sm.sp[p].next > t {
            // Not visited: its warps did not change (a barrier release lowers `next` itself).
            continue;
        }
        let next = sm.sp[p]
            .warps
            .iter()
            .map(|&s| sm.warps[s as usize].ready)
            .min()
            .unwrap_or(NEVER);
        sm.sp[p].next = next;
    }
    sm.next = sm.sp.iter().map(|p| p.next).min().unwrap_or(NEVER);
    freed
}

/// An exited warp whose stores are done leaves; the block leaves with its last warp.
fn retire(cx: &mut Cx, sm: &mut Sm, smi: u32, s: u32, t: u64) -> bool {
    let w = &mut sm.warps[s as usize];
    book(cx, smi, s, w, t);
    w.state = St::Free;
    w.ready = NEVER;
    let b = w.blk as usize;
    sm.free_warps.push(s);
    let Some(blk) = sm.blocks[b].as_mut() else {
        return false;
    };
    blk.resident -= 1;
    if blk.resident > 0 {
        return false;
    }
    sm.blocks[b] = None;
    let threads = sm.warps[s as usize].trace.threads;
    let nwarps = threads.div_ceil(32);
    sm.used_blocks -= 1;
    sm.used_warps -= nwarps;
    sm.used_threads -= threads;
    sm.used_regs -= cx.block_regs;
    sm.used_smem -= cx.block_smem;
    sm.refilling = true;
    sm.next_accept = sm.next_accept.max(t + cx.gpu.launch.refill_cycles as u64);
    if sm.used_blocks == 0 {
        cx.busy_sms -= 1;
        let d = t - sm.active_from;
        cx.out.sm_active[smi as usize] += d;
    }
    cx.out.end = cx.out.end.max(t);
    true
}

/// Warp `s` of sub-partition `p` issues its next instruction at cycle `t`.
fn issue(cx: &mut Cx, sm: &mut Sm, smi: u32, p: usize, s: u32, t: u64) {
    let gpu = cx.gpu;
    let w = &mut sm.warps[s as usize];
    let Some(ev) = w.ev() else {
        return;
    };
    switch(cx, smi, s, w, t, Reason::Selected);
    book(cx, smi, s, w, t + 1);
    w.since = t + 1;
    cx.out.issued += 1;
    if let Some(n) = cx.out.issued_pc.get_mut(ev.pc as usize) {
        *n += 1;
    }
    let si = &cx.code[ev.pc as usize];
    let mut min_next = t + 1;
    let mut min_reason = Reason::NotSelected;
    let write = |w: &mut Warp, at: u64, kind: Reason| {
        if let Some((r, n)) = si.dst {
            for k in r as usize..r as usize + n as usize {
                if let Some(x) = w.regs.get_mut(k) {
                    *x = (at, kind);
                }
            }
        }
    };
    let lat = &gpu.latency;
    if let Some(k) = pipe_of(si.class) {
        let rate = &gpu.issue;
        let every = [rate.int, rate.fp32, rate.fp64, rate.slow][k as usize] as u64;
        sm.sp[p].pipe_ok[k as usize] = t + every.max(1);
    }
    match si.class {
        Class::Int | Class::Fp32 | Class::Free => write(w, t + lat.alu as u64, Reason::Wait),
        Class::Fp64 => write(w, t + lat.fp64 as u64, Reason::Wait),
        Class::Slow => write(w, t + lat.slow as u64, Reason::Wait),
        Class::Branch => {
            write(w, t + lat.alu as u64, Reason::Wait);
            min_next = t + lat.branch.max(1) as u64;
            min_reason = Reason::BranchResolving;
        }
        Class::SharedLd | Class::SharedSt | Class::Shuffle => {
            // (A shuffle takes the pipe for one wavefront and touches no bank.)
            let n = match si.class {
                Class::Shuffle => 1,
                _ if cx.ideal => ev.b as u64,
                _ => ev.a as u64,
            };
            let busy = n * gpu.shared.cycles_per_wavefront as u64;
            // In order: it leaves the queue after the one before it, on the first free server.
            let (k, &free) = sm
                .servers
                .iter()
                .enumerate()
                .min_by_key(|&(i, &f)| (f, i))
                .expect("at least one server");
            let d = t.max(sm.mem_last).max(free);
            sm.servers[k] = d + busy;
            sm.mem_last = d;
            sm.sp[p].memq.push_back(d);
            sm.sp[p].mem_ok = t + gpu.memory_queue.issue_interval.max(1) as u64;
            cx.out.pipe_busy += n;
            if si.class != Class::SharedSt {
                write(
                    w,
                    d + busy + gpu.shared.latency_base as u64,
                    Reason::ShortScoreboard,
                );
            }
        }
        Class::GlobalLd | Class::GlobalSt => {
            let store = si.class == Class::GlobalSt;
            let trace = w.trace.clone();
            let secs = &trace.warps[w.wi as usize].sectors;
            let from = (ev.s as usize).min(secs.len());
            let to = (from + ev.a as usize).min(secs.len());
            let g = &gpu.global;
            // Lines: sectors in one line are consecutive in the trace when the lanes are.
            let per_line = (g.line_bytes / g.sector_bytes).max(1) as u64;
            let mut lines = 0u64;
            let mut last_line = u64::MAX;
            for &id in &secs[from..to] {
                let l = id / per_line;
                if l != last_line {
                    lines += 1;
                    last_line = l;
                }
            }
            let cpl = if store {
                g.store_cycles_per_line
            } else {
                g.load_cycles_per_line
            } as u64;
            let d = t.max(sm.mem_last).max(sm.gpath_free);
            sm.gpath_free = d + lines * cpl;
            sm.mem_last = d;
            sm.sp[p].memq.push_back(d);
            sm.sp[p].mem_ok = t + gpu.memory_queue.issue_interval.max(1) as u64;
            let share =
                (g.dram_bytes_per_cycle / cx.busy_sms.max(1) as f64).min(g.sm_read_bytes_per_cycle);
            let per_sector = g.sector_bytes as f64 / share;
            let mut done = d + g.l2_hit as u64;
            for &id in &secs[from..to] {
                let buf = (id >> 48) as usize;
                let sec = id & ((1 << 48) - 1);
                let seen = match cx
                    .l2
                    .get_mut(buf)
                    .and_then(|b| b.get_mut((sec / 64) as usize))
                {
                    Some(word) => {
                        let bit = 1u64 << (sec % 64);
                        let seen = *word & bit != 0;
                        *word |= bit;
                        seen
                    }
                    None => true,
                };
                // DRAM is shared fairly: each SM with blocks gets an equal share of its
                // bandwidth (at most its own read limit), for reads and write-backs alike.
                if store || !seen {
                    let st = sm.read_free.max(d as f64);
                    sm.read_free = st + per_sector;
                    if !store {
                        done = done.max(st.ceil() as u64 + g.dram as u64);
                    }
                }
            }
            if store {
                w.acks = w.acks.max(d + lines * cpl + g.store_ack as u64);
            } else {
                write(w, done, Reason::LongScoreboard);
            }
        }
        Class::Barrier => {
            w.advance();
            w.state = St::Bar;
            w.ready = NEVER;
            w.reason = Reason::Barrier;
            w.since = t + 1;
            let b = w.blk as usize;
            let bar = cx.bar_cost;
            let blk = sm.blocks[b].as_mut().expect("a resident warp's block");
            if blk.at_bar == 0 {
                blk.bar_first = t;
            }
            blk.at_bar += 1;
            if blk.at_bar >= blk.alive {
                blk.at_bar = 0;
                // The measured cost runs from the first warp's arrival (a loop of `bar.sync`
                // takes `base + per_warp * W` cycles a trip).
                let release = (t + 1).max(blk.bar_first + bar);
                let warps = blk.warps.clone();
                for ws in warps {
                    let w = &mut sm.warps[ws as usize];
                    if w.state != St::Bar {
                        continue;
                    }
                    w.state = St::Run;
                    book(cx, smi, ws, w, release);
                    w.since = release;
                    next_inst(cx.code, w, release, Reason::NotSelected);
                    let q = ws as usize % sm.sp.len();
                    sm.sp[q].next = sm.sp[q].next.min(w.ready);
                }
            }
            return;
        }
        Class::Exit => {
            w.advance();
            w.state = St::Exited;
            w.since = t + 1;
            w.reason = Reason::Drain;
            w.ready = w.acks.max(t + 1);
            return;
        }
    }
    w.advance();
    w.since = t + 1;
    next_inst(cx.code, w, min_next, min_reason);
}

/// When `w`'s registers let instruction `si` issue, and what it waits for (no earlier than
/// `from`, in state `why` until then).
fn deps(w: &Warp, si: &StaticInst, from: u64, why: Reason) -> (u64, Reason) {
    let (mut ready, mut reason) = (from, why);
    // Read-after-write only: the lowered code reuses a register for each trip of a loop where
    // the GPU's compiler would unroll into fresh ones.
    for &(r, n) in &si.srcs {
        for k in r as usize..r as usize + n as usize {
            if let Some(&(at, kind)) = w.regs.get(k) {
                if at > ready {
                    ready = at;
                    reason = kind;
                }
            }
        }
    }
    (ready, reason)
}

/// How far ahead a load may be hoisted (instructions of the warp's trace).
const WINDOW: u32 = 24;

/// Sets which instruction the warp issues next and when (no earlier than `min_next`, in
/// state `min_reason` until then): the next in program order when its registers are ready,
/// else a later instruction whose operands are ready sooner, as the GPU's compiler schedules
/// independent work (loads, their address arithmetic) early in an unrolled loop. Nothing is
/// hoisted past a branch, barrier or exit or past an instruction that writes its operands;
/// stores are never hoisted, and loads not past a store to their memory space.
fn next_inst(code: &[StaticInst], w: &mut Warp, min_next: u64, min_reason: Reason) {
    w.pick = 0;
    let Some(ev) = w.ev() else {
        w.state = St::Exited;
        w.reason = Reason::Drain;
        w.ready = w.acks.max(min_next);
        return;
    };
    w.pc = ev.pc;
    let Some(si) = code.get(ev.pc as usize) else {
        (w.ready, w.reason) = (min_next, min_reason);
        return;
    };
    let (ready, reason) = deps(w, si, min_next, min_reason);
    (w.ready, w.reason) = (ready, reason);
    if ready <= min_next
        || !matches!(
            si.class,
            Class::Int
                | Class::Fp32
                | Class::Fp64
                | Class::Slow
                | Class::SharedLd
                | Class::SharedSt
                | Class::GlobalLd
                | Class::GlobalSt
        )
    {
        return;
    }
    // Registers written by the instructions passed over, as a bit set (registers < 256).
    let mut written = [0u64; 4];
    let mut shared_store = false;
    let mut global_store = false;
    let mark = |si: &StaticInst, written: &mut [u64; 4]| {
        if let Some((r, n)) = si.dst {
            for k in r as usize..(r as usize + n as usize).min(256) {
                written[k / 64] |= 1 << (k % 64);
            }
        }
    };
    let mut prev = si;
    for i in 1..WINDOW {
        if w.ahead & (1 << i) != 0 {
            continue;
        }
        mark(prev, &mut written);
        match prev.class {
            Class::SharedSt => shared_store = true,
            Class::GlobalSt => global_store = true,
            _ => {}
        }
        let Some(e) = w.ev_at(i) else {
            return;
        };
        let Some(c) = code.get(e.pc as usize) else {
            return;
        };
        match c.class {
            Class::Branch | Class::Barrier | Class::Exit | Class::Free => return,
            Class::SharedSt | Class::GlobalSt => {
                prev = c;
                continue;
            }
            Class::SharedLd if shared_store => {
                prev = c;
                continue;
            }
            Class::GlobalLd if global_store => {
                prev = c;
                continue;
            }
            _ => {}
        }
        let blocked = c.srcs.iter().any(|&(r, n)| {
            (r as usize..r as usize + n as usize)
                .any(|k| k >= 256 || written[k / 64] & (1 << (k % 64)) != 0)
        });
        if !blocked {
            let (r2, why2) = deps(w, c, min_next, min_reason);
            if r2 < ready {
                w.pick = i;
                w.pc = e.pc;
                (w.ready, w.reason) = (r2, why2);
            }
            return;
        }
        prev = c;
    }
}
