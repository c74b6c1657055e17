//! What the functional executor tells the model: per warp, the instructions it issued in
//! order, with the dynamic facts of each (shared wavefronts, global sectors). Static facts
//! (instruction class, registers read and written) come from the program, per pc
//! ([`static_code`]).

mod static_code;

pub use static_code::{scoreboard_regs, static_code, Class, IntPipe, LoopMark, Regs, StaticInst};
use std::borrow::Borrow;
use std::collections::HashSet;

/// A constant line's id: the 64-byte line in its buffer, 1,024 lines (64 KiB, the most a
/// module's constant symbols may take) a buffer.
pub fn const_line_id(buf: u16, offset: u32) -> u16 {
    ((buf as u32 % 64) << 10 | (offset / 64).min(1023)) as u16
}

/// The pseudo-buffer of local memory in sector ids ([`WarpTrace::sectors`]): above every
/// real buffer's number.
pub const LOCAL_BUFFER: u16 = u16::MAX;

/// Bytes of a warp's local window in the sector ids of `LOCAL_BUFFER` (32 threads × 1 MiB:
/// offsets beyond wrap around, which only merges sectors in the price).
pub const LOCAL_WARP_BYTES: u64 = 32 << 20;

/// The low `n` bits set (`n` ≤ 32).
fn mask(n: u64) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Bytes of an [`Ev`] and of a sector, as a trace keeps them.
const EV_BYTES: u64 = std::mem::size_of::<Ev>() as u64;
const SECTOR_BYTES: u64 = 8;

/// One issued instruction of one warp: 12 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ev {
    /// The instruction.
    pub pc: u32,
    /// Shared access: its wavefronts. Global access: how many sectors it touched (they follow
    /// in [`WarpTrace::sectors`]). Constant load: its distinct addresses (low 6 bits) and
    /// the number of its lines outside the window of `s` (above).
    pub a: u16,
    /// Shared access: its wavefronts without conflicts (one per busy phase). Global access,
    /// in sampled timing: how many sectors of the blocks it stands for follow its own
    /// ([`BlockTrace::take_shadows`]). Constant load: the 64-byte line of its first active
    /// lane's address ([`const_line_id`]).
    pub b: u16,
    /// Global access: where its sectors start in [`WarpTrace::sectors`]. Constant load: its
    /// other lines, a bit each for lines `b - 15 ..= b + 16`.
    pub s: u32,
}

/// One warp's issued instructions, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpTrace {
    /// The instructions.
    pub ev: Vec<Ev>,
    /// The global sectors, in order of the accesses that touched them: buffer number in the
    /// top 16 bits, sector index in the buffer below.
    pub sectors: Vec<u64>,
}

/// One block's trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockTrace {
    /// Threads in the block.
    pub threads: u32,
    /// Its warps.
    pub warps: Vec<WarpTrace>,
}

impl BlockTrace {
    /// Sampled timing: gives each global access the sectors that the same access (the same
    /// warp's n-th global access, at the same pc) touched in `shadows`, the blocks not
    /// simulated that this one stands for. They follow its own sectors in
    /// [`WarpTrace::sectors`], each block's after a `sim::SHADOW` mark, their count
    /// (marks included) in [`Ev::b`] (at most 65,535).
    pub fn take_shadows<B: Borrow<BlockTrace>>(&mut self, shadows: &[B], code: &[StaticInst]) {
        let global = |e: &Ev| global_access(code, e.pc as usize);
        // Each shadow warp, with where its next global access is looked for.
        let mut others: Vec<(&WarpTrace, usize)> = Vec::with_capacity(shadows.len());
        for (wi, w) in self.warps.iter_mut().enumerate() {
            others.clear();
            others.extend(
                shadows
                    .iter()
                    .filter_map(|b| b.borrow().warps.get(wi))
                    .map(|o| (o, 0)),
            );
            let extra: usize = others.iter().map(|(o, _)| o.sectors.len()).sum();
            let marks = others.len() * w.ev.iter().filter(|e| global(e)).count();
            let mut sectors = Vec::with_capacity(w.sectors.len() + extra + marks);
            for ev in w.ev.iter_mut().filter(|e| global(e)) {
                let from = (ev.s as usize).min(w.sectors.len());
                let to = (from + ev.a as usize).min(w.sectors.len());
                ev.s = sectors.len() as u32;
                sectors.extend_from_slice(&w.sectors[from..to]);
                let mut n = 0usize;
                for (o, next) in &mut others {
                    if n < u16::MAX as usize {
                        sectors.push(crate::sim::SHADOW);
                        n += 1;
                    }
                    // Its access of the same rank, if at the same pc.
                    let Some(i) = o.ev[*next..].iter().position(global) else {
                        *next = o.ev.len();
                        continue;
                    };
                    let oe = o.ev[*next + i];
                    *next += i + 1;
                    if oe.pc != ev.pc {
                        continue;
                    }
                    let from = (oe.s as usize).min(o.sectors.len());
                    let to = (from + oe.a as usize)
                        .min(o.sectors.len())
                        .min(from + u16::MAX as usize - n);
                    sectors.extend_from_slice(&o.sectors[from..to]);
                    n += to - from;
                }
                ev.b = n as u16;
            }
            w.sectors = sectors;
        }
    }

    /// Bytes it holds (for keeping memory in bounds).
    pub fn bytes(&self) -> usize {
        self.warps
            .iter()
            .map(|w| w.ev.capacity() * 12 + w.sectors.capacity() * 8 + 48)
            .sum()
    }
}

/// Whether `pc` of `code` is a global load or store (what a block not simulated records, and
/// what [`BlockTrace::take_shadows`] matches).
fn global_access(code: &[StaticInst], pc: usize) -> bool {
    code.get(pc)
        .is_some_and(|c| matches!(c.class, Class::GlobalLd | Class::GlobalSt))
}

/// Builds a [`BlockTrace`] from the executor's events (the timing side of the executor's
/// hook).
#[derive(Debug)]
pub struct Recorder<'a> {
    code: &'a [StaticInst],
    sector_bytes: u32,
    /// The counted loops ptxas unrolls ([`crate::unroll::counted_loops`]).
    loops: Vec<(u32, u32)>,
    /// The trace being built.
    pub block: BlockTrace,
    /// Events and sectors of the longest warp of the last block taken: a new block's warps
    /// start with that much room, so a recorder kept from block to block grows no vector.
    room: (usize, usize),
    /// Constant loops ([`LoopMark`]).
    nloops: usize,
    /// Per warp of the block, the current iteration of each constant loop.
    iters: Vec<u32>,
    /// The (warp, access pc, iterations) whose hoisted address instructions were issued.
    seen: HashSet<(u32, u32, u64)>,
    /// Per warp, a bit per pc of a first address instruction: those of accesses hoisted out of
    /// every loop (`hoist` `Some(0)`; several accesses may share them) were issued.
    once: Vec<u64>,
    /// The prologue's pcs ([`StaticInst::prologue`]).
    prologue: Vec<u32>,
    /// What the traces recorded side by side may take ([`TraceBudget`]), if bounded.
    budget: Option<&'a TraceBudget>,
    /// Bytes kept since they were last added to the budget.
    unspent: u64,
    /// The budget is spent: nothing more is recorded (the run ends in an error).
    stopped: bool,
    /// Per warp, the pc of the if-converted branch it just executed ([`StaticInst::skip`];
    /// `u32::MAX`: none): if its next instruction is the branch's target, no lane ran the
    /// range, and the warp issues it predicated off. Empty when the code has no such branch
    /// (the per-instruction check then costs a bounds test).
    skips: Vec<u32>,
    /// Whether the code has an if-converted branch.
    any_skip: bool,
}

/// A bound on the bytes that the traces of blocks recorded side by side may keep (what
/// `--max-memory` leaves the timing model): the recorders sharing it add what they keep
/// (events and sectors, by length), and stop recording once it is passed. Whether it is
/// passed does not depend on the order the blocks ran in: the sum is the same.
#[derive(Debug)]
pub struct TraceBudget {
    limit: u64,
    used: std::sync::atomic::AtomicU64,
}

impl TraceBudget {
    /// A budget of `limit` bytes, none used.
    pub fn new(limit: u64) -> Self {
        TraceBudget {
            limit,
            used: 0.into(),
        }
    }

    /// Its limit in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Whether the recorders together kept more than the limit.
    pub fn over(&self) -> bool {
        self.used.load(std::sync::atomic::Ordering::Relaxed) > self.limit
    }

    /// Starts over (the traces counted so far were handed on and are accounted elsewhere).
    pub fn clear(&self) {
        self.used.store(0, std::sync::atomic::Ordering::Relaxed);
    }

    /// Adds `bytes`; whether the budget is now passed.
    fn spend(&self, bytes: u64) -> bool {
        let before = self
            .used
            .fetch_add(bytes, std::sync::atomic::Ordering::Relaxed);
        before.saturating_add(bytes) > self.limit
    }
}

/// Bytes a recorder keeps before it adds them to its budget.
const SPEND_EVERY: u64 = 1 << 20;

impl<'a> Recorder<'a> {
    /// A recorder for a block of `threads` threads.
    pub fn new(code: &'a [StaticInst], sector_bytes: u32, threads: u32) -> Self {
        let mut r = Recorder {
            code,
            sector_bytes: sector_bytes.max(1),
            loops: crate::unroll::counted_loops(code),
            block: BlockTrace::default(),
            room: (0, 0),
            nloops: code
                .iter()
                .filter_map(|s| match s.mark {
                    Some(LoopMark::Start(n) | LoopMark::Next(n)) => Some(n as usize + 1),
                    None => None,
                })
                .max()
                .unwrap_or(0),
            iters: Vec::new(),
            seen: HashSet::new(),
            once: Vec::new(),
            prologue: (0..code.len() as u32)
                .filter(|&pc| code[pc as usize].prologue)
                .collect(),
            budget: None,
            unspent: 0,
            stopped: false,
            skips: Vec::new(),
            any_skip: code.iter().any(|s| s.skip.is_some()),
        };
        r.reset(threads);
        r
    }

    /// The recorder, its traces counted against `budget` (shared with the recorders of the
    /// blocks recorded beside it).
    pub fn with_budget(mut self, budget: &'a TraceBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// Counts `bytes` more kept, adding them to the budget every [`SPEND_EVERY`] bytes (and
    /// when the block is finished).
    #[inline]
    fn keep(&mut self, bytes: u64) {
        self.unspent += bytes;
        if self.unspent >= SPEND_EVERY {
            self.spend();
        }
    }

    fn spend(&mut self) {
        if let Some(b) = self.budget {
            self.stopped |= b.spend(self.unspent);
        }
        self.unspent = 0;
    }

    /// Starts a new block. A trace handed over ([`Recorder::take`]) left no vectors: the new
    /// ones get the room the last block's warps took; one kept ([`Recorder::finish`]) is
    /// emptied and its vectors reused.
    pub fn reset(&mut self, threads: u32) {
        self.stopped = false;
        self.unspent = 0;
        self.iters.clear();
        self.iters
            .resize(threads.div_ceil(32) as usize * self.nloops, 0);
        self.seen.clear();
        self.once.clear();
        self.once.resize(
            threads.div_ceil(32) as usize * self.code.len().div_ceil(64),
            0,
        );
        self.block.threads = threads;
        let nwarps = threads.div_ceil(32) as usize;
        self.skips.clear();
        if self.any_skip {
            self.skips.resize(nwarps, u32::MAX);
        }
        let prologue = &self.prologue;
        let start = |t: &mut WarpTrace| {
            t.ev.extend(prologue.iter().map(|&pc| Ev {
                pc,
                ..Ev::default()
            }))
        };
        self.block.warps.truncate(nwarps);
        for t in &mut self.block.warps {
            t.ev.clear();
            t.sectors.clear();
            start(t);
        }
        let (ev, sectors) = self.room;
        self.block.warps.resize_with(nwarps, || {
            let mut t = WarpTrace {
                ev: Vec::with_capacity(ev),
                sectors: Vec::with_capacity(sectors),
            };
            start(&mut t);
            t
        });
    }

    /// Warp `w` issued instruction `pc`.
    #[inline]
    pub fn inst(&mut self, w: usize, pc: usize) {
        let Some(s) = self.code.get(pc) else {
            return;
        };
        if let Some(m) = s.mark {
            let (LoopMark::Start(n) | LoopMark::Next(n)) = m;
            if let Some(i) = self.iters.get_mut(w * self.nloops + n as usize) {
                *i = if m == LoopMark::Start(n) { 0 } else { *i + 1 };
            }
        }
        if let Some(b) = self.skips.get_mut(w) {
            let branch = std::mem::replace(
                b,
                if s.skip.is_some() {
                    pc as u32
                } else {
                    u32::MAX
                },
            );
            if branch != u32::MAX
                && self.code[branch as usize].skip == Some(pc as u32)
                && !self.stopped
            {
                self.predicated_off(w, branch as usize + 1..pc);
            }
        }
        if s.class == Class::Free || self.stopped {
            return;
        }
        if let Some(n) = s.once {
            if self.iters.get(w * self.nloops + n as usize) != Some(&0) {
                return;
            }
        }
        let Some(t) = self.block.warps.get_mut(w) else {
            return;
        };
        if let Some((q, n)) = s.pre {
            let again = s.hoist.is_some_and(|loops| {
                if loops == 0 {
                    // (By the first address instruction: accesses may share them.)
                    let (words, q) = (self.code.len().div_ceil(64), q as usize);
                    let Some(b) = self.once.get_mut(w * words + q / 64) else {
                        return true;
                    };
                    let seen = *b >> (q % 64) & 1 != 0;
                    *b |= 1 << (q % 64);
                    return seen;
                }
                let iters = &self.iters[w * self.nloops..(w + 1) * self.nloops];
                let key = (0..self.nloops)
                    .filter(|l| loops >> l & 1 != 0)
                    .fold(0u64, |k, l| {
                        k.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ iters[l] as u64
                    });
                !self.seen.insert((w as u32, pc as u32, key))
            });
            if !again {
                for k in 0..n as u32 {
                    t.ev.push(Ev {
                        pc: q + k,
                        ..Ev::default()
                    });
                }
                self.unspent += n as u64 * EV_BYTES;
            }
        }
        t.ev.push(Ev {
            pc: pc as u32,
            ..Ev::default()
        });
        self.keep(EV_BYTES);
    }

    /// Warp `w` issues the instructions at `range`, predicated off (no lane on: a shared
    /// access's event has no wavefronts: [`crate::if_convert`]).
    #[cold]
    fn predicated_off(&mut self, w: usize, range: std::ops::Range<usize>) {
        let Some(t) = self.block.warps.get_mut(w) else {
            return;
        };
        let code = self.code;
        let n0 = t.ev.len();
        t.ev.extend(range.filter(|&q| code[q].class != Class::Free).map(|q| Ev {
            pc: q as u32,
            ..Ev::default()
        }));
        let n = (t.ev.len() - n0) as u64;
        self.keep(n * EV_BYTES);
    }

    /// The shared access warp `w` just issued took `wavefronts` (`ideal` without conflicts).
    #[inline]
    pub fn shared(&mut self, w: usize, wavefronts: u32, ideal: u32) {
        if let Some(e) = self.block.warps.get_mut(w).and_then(|t| t.ev.last_mut()) {
            e.a = wavefronts.min(u16::MAX as u32) as u16;
            e.b = ideal.min(u16::MAX as u32) as u16;
        }
    }

    /// The constant load warp `w` just issued: the distinct byte offsets its lanes read in
    /// buffer `buf`, the first active lane's first.
    pub fn constant(&mut self, w: usize, buf: u16, offsets: &[u32]) {
        let Some(e) = self.block.warps.get_mut(w).and_then(|t| t.ev.last_mut()) else {
            return;
        };
        let Some(&first) = offsets.first() else {
            return;
        };
        let line0 = const_line_id(buf, first);
        let (mut mask, mut outside) = (0u32, 0u16);
        let mut lines = [0u16; 32];
        let mut n = 0;
        for &o in &offsets[1..] {
            let line = const_line_id(buf, o);
            if line == line0 || lines[..n].contains(&line) {
                continue;
            }
            lines[n] = line;
            n += 1;
            match line as i32 - line0 as i32 + 15 {
                r @ 0..32 => mask |= 1u32 << r,
                _ => outside += 1,
            }
        }
        e.a = offsets.len().min(63) as u16 | outside.min(1023) << 6;
        e.b = line0;
        e.s = mask;
    }

    /// The global access warp `w` just issued: buffer `buf`, element index per lane `idx`,
    /// `bytes` per element access, active lanes `active`.
    pub fn global(&mut self, w: usize, buf: u16, idx: &[u32; 32], bytes: u32, active: u32) {
        if self.stopped {
            return;
        }
        let Some(t) = self.block.warps.get_mut(w) else {
            return;
        };
        let sb = self.sector_bytes as u64;
        let start = t.sectors.len();
        if active != 0 {
            // Neighbouring lanes reading consecutive elements in order (a coalesced access):
            // their sectors are one ascending run, as the lane-by-lane walk below finds them.
            let lo = active.trailing_zeros() as usize;
            let hi = 31 - active.leading_zeros() as usize;
            let base = idx[lo].wrapping_sub(lo as u32);
            let mut lanes = active;
            let mut consecutive = true;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                consecutive &= idx[l] == base.wrapping_add(l as u32);
            }
            // (No gaps: an inactive lane in the middle touches nothing.)
            let dense = (active >> lo).wrapping_add(1) & (active >> lo) == 0;
            if consecutive && dense && idx[lo] <= idx[hi] {
                let b = bytes as u64;
                let first = idx[lo] as u64 * b / sb;
                let last = (idx[hi] as u64 * b + b.max(1) - 1) / sb;
                t.sectors
                    .extend((first..=last).map(|s| ((buf as u64) << 48) | s));
                let n = (t.sectors.len() - start).min(u16::MAX as usize) as u16;
                if let Some(e) = t.ev.last_mut() {
                    e.a = n;
                    e.s = start as u32;
                }
                let kept = (t.sectors.len() - start) as u64 * SECTOR_BYTES;
                self.keep(kept);
                return;
            }
        }
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            let first = idx[l] as u64 * bytes as u64 / sb;
            let last = (idx[l] as u64 * bytes as u64 + bytes.max(1) as u64 - 1) / sb;
            for s in first..=last {
                let id = ((buf as u64) << 48) | s;
                // Lanes come in order, so a sector already seen is usually the last one.
                if !t.sectors[start..].iter().rev().take(4).any(|&x| x == id)
                    && !t.sectors[start..].contains(&id)
                {
                    t.sectors.push(id);
                }
            }
        }
        let n = (t.sectors.len() - start).min(u16::MAX as usize) as u16;
        if let Some(e) = t.ev.last_mut() {
            e.a = n;
            e.s = start as u32;
        }
        let kept = (t.sectors.len() - start) as u64 * SECTOR_BYTES;
        self.keep(kept);
    }

    /// The local access warp `w` just issued: each lane's byte offset `offset` in its own
    /// local memory, `bytes` per lane, active lanes `active`. Priced as a global access at
    /// the hardware's addresses: local memory is interleaved by 32-bit words across a warp's
    /// threads (lane `l`'s word `k` at byte `k * 128 + l * 4` of the warp's local window), so
    /// lanes reading the same offset read consecutive words, one 128-byte line per word.
    /// Each warp of the block has its own window (`LOCAL_WARP_BYTES` apart), in the
    /// pseudo-buffer `LOCAL_BUFFER`, which the L2 model does not track (a load hits in
    /// L2, as data just spilled does; a store writes its sectors back like a global one).
    pub fn local(&mut self, w: usize, offset: &[u32; 32], bytes: u32, active: u32) {
        if self.stopped {
            return;
        }
        let Some(t) = self.block.warps.get_mut(w) else {
            return;
        };
        let sb = self.sector_bytes as u64;
        let start = t.sectors.len();
        let window = (w as u64 % 1024) * LOCAL_WARP_BYTES;
        let first_word = |o: u32| (o / 4) as u64;
        let last_word = |o: u32| (o as u64 + bytes.max(1) as u64 - 1) / 4;
        let lo = match active {
            0 => 0,
            a => a.trailing_zeros() as usize,
        };
        let uniform = active != 0 && {
            let mut lanes = active;
            let mut same = true;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                same &= offset[l] == offset[lo];
            }
            same
        };
        if uniform {
            // Every lane at the same offset (the usual case): per word, the active lanes'
            // sectors, in ascending order.
            let hi = 31 - active.leading_zeros() as u64;
            for k in first_word(offset[lo])..=last_word(offset[lo]) {
                let base = window + (k % (LOCAL_WARP_BYTES / 128)) * 128;
                let (s0, s1) = ((base + lo as u64 * 4) / sb, (base + hi * 4 + 3) / sb);
                for s in s0..=s1 {
                    // (Skip sectors with no active lane: a gap of 8 lanes or more.)
                    let (a, b) = ((s * sb).saturating_sub(base) / 4, ((s + 1) * sb - base) / 4);
                    let lanes_in = if a >= 32 { 0 } else { active >> a } & mask(b - a);
                    if lanes_in != 0 {
                        t.sectors.push(((LOCAL_BUFFER as u64) << 48) | s);
                    }
                }
            }
        } else {
            let mut lanes = active;
            while lanes != 0 {
                let l = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                for k in first_word(offset[l])..=last_word(offset[l]) {
                    let byte = window + (k % (LOCAL_WARP_BYTES / 128)) * 128 + l as u64 * 4;
                    let id = ((LOCAL_BUFFER as u64) << 48) | (byte / sb);
                    if !t.sectors[start..].contains(&id) {
                        t.sectors.push(id);
                    }
                }
            }
        }
        let n = (t.sectors.len() - start).min(u16::MAX as usize) as u16;
        if let Some(e) = t.ev.last_mut() {
            e.a = n;
            e.s = start as u32;
        }
        let kept = (t.sectors.len() - start) as u64 * SECTOR_BYTES;
        self.keep(kept);
    }

    /// Finishes the block's trace (the branches back of counted loops that ptxas unrolls
    /// taken out: `unroll`) and lends it; [`Recorder::reset`] starts the next in its
    /// vectors.
    pub fn finish(&mut self) -> &BlockTrace {
        self.spend();
        self.room = self.block.warps.iter().fold((0, 0), |(e, s), w| {
            (e.max(w.ev.len()), s.max(w.sectors.len()))
        });
        for w in &mut self.block.warps {
            crate::unroll::apply(&self.loops, w);
        }
        &self.block
    }

    /// Hands over the block's trace, finished, leaving an empty one: [`Recorder::reset`]
    /// starts the next.
    pub fn take(&mut self) -> BlockTrace {
        self.finish();
        std::mem::take(&mut self.block)
    }
}

impl warpsim_exec::Hook for Recorder<'_> {
    const ON: bool = true;
    #[inline]
    fn inst(&mut self, w: usize, pc: usize) {
        Recorder::inst(self, w, pc);
    }
    #[inline]
    fn shared(&mut self, w: usize, wavefronts: u32, ideal: u32) {
        Recorder::shared(self, w, wavefronts, ideal);
    }
    #[inline]
    fn global(&mut self, w: usize, buffer: u16, index: &[u32; 32], bytes: u32, active: u32) {
        Recorder::global(self, w, buffer, index, bytes, active);
    }
    #[inline]
    fn local(&mut self, w: usize, offset: &[u32; 32], bytes: u32, active: u32) {
        Recorder::local(self, w, offset, bytes, active);
    }
    #[inline]
    fn constant(&mut self, w: usize, buffer: u16, offsets: &[u32]) {
        Recorder::constant(self, w, buffer, offsets);
    }
}

/// The executor's hook for a block that sampled timing does not simulate: of its warps'
/// instructions it records the global (and local) accesses only, with their sectors, which is
/// all [`BlockTrace::take_shadows`] reads of it.
pub struct GlobalsOnly<'r, 'a>(pub &'r mut Recorder<'a>);

impl warpsim_exec::Hook for GlobalsOnly<'_, '_> {
    const ON: bool = true;
    #[inline]
    fn inst(&mut self, w: usize, pc: usize) {
        let r = &mut *self.0;
        let global = global_access(r.code, pc);
        if let (true, Some(t)) = (global, r.block.warps.get_mut(w)) {
            t.ev.push(Ev {
                pc: pc as u32,
                ..Ev::default()
            });
        }
    }
    #[inline]
    fn shared(&mut self, _: usize, _: u32, _: u32) {}
    #[inline]
    fn global(&mut self, w: usize, buffer: u16, index: &[u32; 32], bytes: u32, active: u32) {
        self.0.global(w, buffer, index, bytes, active);
    }
    #[inline]
    fn local(&mut self, w: usize, offset: &[u32; 32], bytes: u32, active: u32) {
        self.0.local(w, offset, bytes, active);
    }
    #[inline]
    fn constant(&mut self, _: usize, _: u16, _: &[u32]) {}
}
