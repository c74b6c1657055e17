//! Stepping each SM alone through a window of cycles, for speed: an SM's state stays in the
//! cache while it runs many cycles, where stepping all SMs cycle by cycle evicts it between
//! visits. The result is the event loop's ([`Sim::events`]), number for number.
//!
//! SMs meet in two places only. (1) Global memory: the L2's record of sectors and the DRAM
//! calendar ([`super::global`]). A load's data comes no sooner than an L2 hit after it
//! leaves, so in a window shorter than that, no SM needs another's accesses: each access is
//! logged, a load's registers wait for a mark (later than every cycle), and when the window
//! ends the accesses are priced in the event loop's order (cycle, SM, issue order), the
//! marks replaced by the cycles, and the warps that waited for a mark choose their next
//! instruction again. (2) The block dispatcher: a block leaving makes its SM take no other
//! for `refill_cycles`, so in a window no longer than that only SMs with room and taking
//! blocks when it starts can receive one. Those few are stepped in turn with the dispatcher
//! as the event loop does; the others alone, their blocks' departures logged and shown to the
//! dispatcher at their cycles.

use super::cycle::step;
use super::*;
use rayon::prelude::*;
use std::cmp::Reverse;

/// A load's registers wait for `MARK + i` (`i`: its place in its SM's log) until the window
/// ends: a cycle later than any the model reaches.
pub(super) const MARK: u64 = 1 << 55;

/// The fewest cycles a window is worth; a machine whose L2 hit or refill is quicker is
/// stepped by the event loop.
const MIN_WIDTH: u64 = 16;

/// A global access of a window, priced when it ends.
#[derive(Clone, Copy, Debug)]
pub(super) struct Access {
    /// The cycle of the visit that issued it.
    pub t: u64,
    /// The cycle it left the SM.
    pub d: u64,
    /// Its warp slot.
    pub slot: u32,
    pub store: bool,
    /// A load's registers.
    pub dst: (u16, u8),
    /// Its sectors: `acc_secs[from..from + n]` of its SM, then (sampled timing) the `shadow`
    /// sectors of the same access by the blocks it stands for.
    pub from: u32,
    pub n: u32,
    pub shadow: u32,
    /// When a load's data is there (once priced).
    pub done: u64,
    /// Its place among the SM's loads, its warp's `age`, and its lines ([`super::land`]).
    pub seq: u64,
    pub age: u64,
    pub lines: u32,
}

/// The window of a machine: no longer than an L2 hit nor a refill (0: none).
pub(super) fn width(gpu: &Gpu) -> u64 {
    let w = gpu.global.l2_hit.min(gpu.launch.refill_cycles) as u64;
    if w < MIN_WIDTH {
        0
    } else {
        w
    }
}

impl<'a> Sim<'a> {
    /// [`Sim::advance`] by windows.
    pub(super) fn windows(&mut self) {
        let n = self.sms.len();
        loop {
            let (hmin, _) = self.order.first();
            let td = self.dispatch_due();
            let t0 = hmin.min(td);
            if t0 == NEVER {
                self.gather();
                return;
            }
            let end = t0.saturating_add(self.width);
            if !self.candidates(t0, end) {
                // The dispatcher may need blocks not fed yet.
                self.gather();
                return;
            }
            self.cx.window = Some(end);
            self.alone(end);
            self.frees.sort_unstable();
            if !self.receivers(end) {
                self.dispatch_window(end);
            }
            self.cx.window = None;
            self.price(t0, end);
            for k in 0..n {
                self.order.set(k, self.sms[k].next);
            }
            self.viewed.fill(false);
        }
    }

    /// Marks the SMs that can receive a block in `[t0, end)` (those not marked `viewed`) and
    /// shows the dispatcher the others as at `t0`. False (nothing marked) when the blocks fed
    /// may not be enough for the window.
    fn candidates(&mut self, t0: u64, end: u64) -> bool {
        let left = self.launch.blocks - self.next_block.min(self.launch.blocks);
        let r = &self.cx.gpu.residency;
        let every = self.cx.gpu.launch.block_interval as u64;
        let mut need = 0u64;
        for k in 0..self.sms.len() {
            let sm = &self.sms[k];
            let fits = self.fits(sm);
            self.view[k] = (fits, sm.next_accept);
            let cand = left > 0 && fits && sm.next_accept < end;
            self.viewed[k] = !cand;
            if cand {
                // At most one block per `block_interval`, and no more than it has room for
                // (a block leaving closes the SM to blocks beyond the window).
                let room = r.blocks.saturating_sub(sm.used_blocks) as u64;
                let first = sm.next_accept.max(t0);
                let by_time = (end - 1 - first).checked_div(every).map_or(room, |x| x + 1);
                need += room.min(by_time);
            }
        }
        // One more than they can take: the dispatcher, even when it places nothing, acts as
        // with blocks waiting (the event loop calls it only then).
        if (self.pending.len() as u64) < (need + 1).min(left) {
            self.viewed.fill(false);
            return false;
        }
        true
    }

    /// The SMs that can receive blocks and the dispatcher through `[.., end)` in the event
    /// loop's order, with the other SMs' departures (`frees`) at theirs.
    fn dispatch_window(&mut self, end: u64) {
        let mut fi = 0;
        loop {
            let (hmin, smi) = self.order.first();
            let free = self.frees.get(fi).copied();
            let (t, k, is_free) = match free {
                Some((ft, fk, _, _)) if (ft, fk) < (hmin, smi) => (ft, fk, true),
                _ => (hmin, smi, false),
            };
            let td = self.dispatch_due();
            if td < end && td <= t {
                debug_assert!(!self.pending.is_empty(), "a window's blocks are fed");
                self.dispatch(td);
                continue;
            }
            if t >= end {
                return;
            }
            let freed = if is_free {
                let (_, _, fits, at) = self.frees[fi];
                fi += 1;
                self.view[k as usize] = (fits, at);
                true
            } else {
                let sm = &mut self.sms[k as usize];
                let freed = step(&mut self.cx, sm, k, t);
                self.order.set(k as usize, sm.next);
                freed
            };
            if freed {
                self.blocked = false;
                self.next_dispatch = self.next_dispatch.max(t as f64);
            }
        }
    }

    /// Steps the SMs that can receive a block in the window (those not `viewed`) side by
    /// side, with the dispatcher, in three passes; the result is [`Self::dispatch_window`]'s.
    ///
    /// 1. Before the dispatcher acts at a cycle, each SM that may still receive a block is
    ///    stepped up to that cycle, or on to the first at which it takes blocks if later (no
    ///    block can reach it sooner), and its departures before the cycle are shown to the
    ///    dispatcher. The dispatcher sees these SMs through `view`, kept by their departures
    ///    and its placements, so an SM stepped ahead shows its state at the dispatcher's
    ///    cycle. An SM that can no longer receive a block in the window (full, or closed by
    ///    a departure for `refill_cycles`) is set aside.
    /// 2. The SMs set aside are stepped to the end.
    /// 3. The dispatcher replays the window from its start with every departure, its
    ///    placements taken from the first pass. The departures of SMs set aside change none
    ///    of them: such an SM shows the dispatcher only a cycle it takes blocks at or past
    ///    the window's end, and while an SM may still receive one, the dispatcher does not
    ///    wait for a departure; they change only the dispatcher's own state (whether it waits
    ///    for a departure, and until when), which the replay makes right.
    ///
    /// False (nothing done) on one thread or when no SM can receive a block.
    fn receivers(&mut self, end: u64) -> bool {
        let n = self.sms.len();
        if !self.parallel() || self.viewed.iter().all(|&v| v) {
            return false;
        }
        self.departed.clear();
        self.departed.append(&mut self.frees);
        self.due.extend(self.departed.iter().copied().map(Reverse));
        for k in 0..n {
            self.live[k] = !self.viewed[k];
            if self.live[k] {
                // Its `view` is as the window starts ([`Self::candidates`]).
                self.viewed[k] = true;
                self.order.set(k, NEVER);
            }
        }
        let start = (self.next_dispatch, self.blocked, self.next_block, self.rr);
        self.view0.clone_from(&self.view);
        self.placed.clear();
        let need = self.block();
        loop {
            let more = self.next_block < self.launch.blocks;
            let td = self.dispatch_due();
            let r = &self.cx.gpu.residency;
            let mut any = false;
            for k in 0..n {
                if !self.live[k] {
                    continue;
                }
                let sm = &self.sms[k];
                if more && need.fits(r, sm) && sm.next_accept < end {
                    any = true;
                    self.bound[k] = td.max(sm.next_accept).min(end);
                } else {
                    // It fits again only after a departure, which closes it past `end`.
                    self.live[k] = false;
                    self.aside[k] = true;
                }
            }
            if !any {
                break;
            }
            // An SM with room keeps the dispatcher from waiting for a departure.
            debug_assert!(!self.blocked);
            self.batch(end);
            self.log(true);
            self.drain(td.min(end));
            if td >= end {
                break;
            }
            debug_assert!(!self.pending.is_empty(), "a window's blocks are fed");
            self.dispatch(td);
        }
        for k in 0..n {
            if self.aside[k] || self.live[k] {
                self.bound[k] = end;
            }
        }
        self.aside.fill(false);
        self.live.fill(false);
        self.batch(end);
        self.log(false);
        (self.next_dispatch, self.blocked, self.next_block, self.rr) = start;
        self.view.clone_from(&self.view0);
        self.due.clear();
        self.due.extend(self.departed.iter().copied().map(Reverse));
        self.replay = Some(0);
        self.drain(end);
        debug_assert_eq!(
            self.replay,
            Some(self.placed.len()),
            "every placement replayed"
        );
        self.replay = None;
        self.placed.clear();
        true
    }

    /// Steps each SM to its `bound` (then cleared), side by side when there are threads
    /// and several SMs for it; their departures are appended to `frees`. The SM whose
    /// timeline is kept is stepped here (its spans in order).
    fn batch(&mut self, end: u64) {
        let n = self.sms.len();
        let need = self.block();
        let behind = (0..n).filter(|&k| self.sms[k].next < self.bound[k]).count();
        let threads = rayon::current_num_threads();
        let side = self.parallel();
        let kept = self.cx.timeline_sm.map_or(usize::MAX, |k| k as usize);
        if side && behind > 2 {
            let parts = (2 * threads).clamp(2, n.max(2));
            while self.crew.len() < parts {
                let h = self.hand();
                self.crew.push(h);
            }
            let chunk = n.div_ceil(parts);
            let bound = &self.bound;
            self.sms
                .par_chunks_mut(chunk)
                .zip(self.crew.par_iter_mut())
                .enumerate()
                .for_each(|(c, (sms, hand))| {
                    hand.cx.window = Some(end);
                    for (j, sm) in sms.iter_mut().enumerate() {
                        let k = c * chunk + j;
                        if k != kept && sm.next < bound[k] {
                            run(&mut hand.cx, sm, k, bound[k], need, &mut hand.frees);
                        }
                    }
                });
            for h in &mut self.crew {
                self.frees.append(&mut h.frees);
            }
        }
        for k in 0..n {
            if (k == kept || !side || behind <= 2) && self.sms[k].next < self.bound[k] {
                let to = self.bound[k];
                run(&mut self.cx, &mut self.sms[k], k, to, need, &mut self.frees);
            }
        }
        self.bound.fill(0);
    }

    /// Whether SMs are stepped side by side (on more than one thread, unless a test chose).
    fn parallel(&self) -> bool {
        self.side_by_side
            .unwrap_or(rayon::current_num_threads() > 1)
    }

    /// Moves the departures in `frees` to the window's log and, if `show`, to `due`.
    fn log(&mut self, show: bool) {
        if show {
            self.due.extend(self.frees.iter().copied().map(Reverse));
        }
        self.departed.append(&mut self.frees);
    }

    /// Shows the dispatcher the departures in `due` and lets it act, in the event loop's
    /// order, through the cycles before `limit`.
    fn drain(&mut self, limit: u64) {
        loop {
            let t = self.due.peek().map_or(NEVER, |f| f.0 .0);
            let td = self.dispatch_due();
            if td < limit && td <= t {
                debug_assert!(self.waiting() > 0, "a window's blocks are fed");
                self.dispatch(td);
                continue;
            }
            if t >= limit {
                return;
            }
            let Some(Reverse((t, k, fits, at))) = self.due.pop() else {
                return;
            };
            self.view[k as usize] = (fits, at);
            self.blocked = false;
            self.next_dispatch = self.next_dispatch.max(t as f64);
        }
    }

    /// Prices the window's global accesses in the event loop's order and hands loads' cycles
    /// to their warps.
    fn price(&mut self, t0: u64, end: u64) {
        // The event loop's order, by counting: cycles of the window in turn, each SM's
        // accesses in SM order and then in its order.
        let mut keys = std::mem::take(&mut self.keys);
        let mut at = std::mem::take(&mut self.at);
        at.clear();
        at.resize((end - t0) as usize + 1, 0);
        for sm in &self.sms {
            for a in &sm.acc {
                at[(a.t - t0) as usize + 1] += 1;
            }
        }
        for i in 1..at.len() {
            at[i] += at[i - 1];
        }
        keys.clear();
        keys.resize(at[at.len() - 1] as usize, (0, 0));
        for (k, sm) in self.sms.iter().enumerate() {
            for (i, a) in sm.acc.iter().enumerate() {
                let c = &mut at[(a.t - t0) as usize];
                keys[*c as usize] = (k as u32, i as u32);
                *c += 1;
            }
        }
        self.at = at;
        let cx = &mut self.cx;
        let g = &cx.gpu.global;
        for (j, &(k, i)) in keys.iter().enumerate() {
            // The L2's record is large and read at random: ask for what the accesses a few
            // places on will read (a hint; it changes no result).
            if let Some(&(k, i)) = keys.get(j + 16) {
                let sm = &self.sms[k as usize];
                if let Some(a) = sm.acc.get(i as usize) {
                    prefetch(sm.acc_secs.as_ptr().wrapping_add(a.from as usize));
                }
            }
            if let Some(&(k, i)) = keys.get(j + 8) {
                let sm = &self.sms[k as usize];
                let first = sm
                    .acc
                    .get(i as usize)
                    .and_then(|a| sm.acc_secs.get(a.from as usize));
                if let Some(&id) = first {
                    let (buf, sec) = global::split(id);
                    if let Some(b) = cx.l2.get(buf) {
                        prefetch(b.as_ptr().wrapping_add(sec as usize));
                    }
                }
            }
            let sm = &mut self.sms[k as usize];
            let a = sm.acc[i as usize];
            // As the event loop does at each visit: the calendar then skips the past's slots
            // left unfilled (the result is the same; the search for a free slot is short).
            cx.dram.forget_before(a.t);
            let secs = &sm.acc_secs[a.from as usize..(a.from + a.n + a.shadow) as usize];
            let (own, others) = secs.split_at(a.n as usize);
            let done = global::shared(
                g,
                &mut cx.l2,
                &mut cx.dram,
                &mut sm.read_free,
                &mut sm.shadow_free,
                a.d,
                a.store,
                own,
                others,
            );
            sm.acc[i as usize].done = done;
        }
        self.keys = keys;
        let cx = &self.cx;
        if self.crew.is_empty() {
            for sm in &mut self.sms {
                if !sm.acc.is_empty() {
                    settle(cx, sm, end);
                }
            }
        } else {
            self.sms.par_iter_mut().for_each(|sm| {
                if !sm.acc.is_empty() {
                    settle(cx, sm, end);
                }
            });
        }
    }

    /// Steps the SMs that cannot receive a block (not `viewed`) alone to `end`, side by
    /// side when there are threads for it, and lists their blocks' departures in `frees`
    /// in order. The SM whose timeline is kept is stepped here (its spans in order).
    fn alone(&mut self, end: u64) {
        self.frees.clear();
        for k in 0..self.sms.len() {
            if self.viewed[k] {
                self.order.set(k, NEVER);
                self.bound[k] = end;
            }
        }
        self.batch(end);
    }

    /// A worker's context: this one's, without global memory and with sums of zero.
    fn hand(&mut self) -> Hand<'a> {
        let l2 = std::mem::take(&mut self.cx.l2);
        let timeline = std::mem::take(&mut self.cx.out.timeline);
        let mut cx = self.cx.clone();
        (self.cx.l2, self.cx.out.timeline) = (l2, timeline);
        let o = &mut cx.out;
        o.end = 0;
        o.cycles = [0; N_REASONS];
        o.per_pc.iter_mut().for_each(|p| *p = [0; N_REASONS]);
        o.issued = 0;
        o.issued_pc.fill(0);
        o.pipe_busy = 0;
        o.sm_active.fill(0);
        Hand {
            cx,
            frees: Vec::new(),
        }
    }

    /// Adds the workers' sums to the outcome (they hold none after).
    fn gather(&mut self) {
        for h in &mut self.crew {
            merge(&mut self.cx.out, &mut h.cx.out);
        }
    }
}

/// A worker of a window: its own sums, and its SMs' departures of blocks.
#[derive(Clone)]
pub(super) struct Hand<'a> {
    cx: Cx<'a>,
    frees: Vec<(u64, u32, bool, u64)>,
}

/// Steps SM `k` alone to `end`, listing in `frees` its blocks' departures (cycle, SM, room
/// and the cycle it takes blocks after).
fn run(
    cx: &mut Cx,
    sm: &mut Sm,
    k: usize,
    end: u64,
    need: BlockNeed,
    frees: &mut Vec<(u64, u32, bool, u64)>,
) {
    let r = &cx.gpu.residency;
    while sm.next < end {
        let t = sm.next;
        if step(cx, sm, k as u32, t) {
            frees.push((t, k as u32, need.fits(r, sm), sm.next_accept));
        }
    }
}

/// Asks the CPU to bring the cache line at `p` in (a hint: nothing is read, any address is
/// fine).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Adds `from`'s sums to `to` and zeroes them.
fn merge(to: &mut Outcome, from: &mut Outcome) {
    to.end = to.end.max(std::mem::take(&mut from.end));
    for (a, b) in to.cycles.iter_mut().zip(&mut from.cycles) {
        *a += std::mem::take(b);
    }
    for (a, b) in to.per_pc.iter_mut().zip(&mut from.per_pc) {
        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
            *x += std::mem::take(y);
        }
    }
    to.issued += std::mem::take(&mut from.issued);
    for (a, b) in to.issued_pc.iter_mut().zip(&mut from.issued_pc) {
        *a += std::mem::take(b);
    }
    to.pipe_busy += std::mem::take(&mut from.pipe_busy);
    for (a, b) in to.sm_active.iter_mut().zip(&mut from.sm_active) {
        *a += std::mem::take(b);
    }
}

/// Replaces the marks of `sm`'s loads by their cycles, and has each warp that waits past the
/// window's `end` choose its next instruction again (it chose with marks).
fn settle(cx: &Cx, sm: &mut Sm, end: u64) {
    let acc = std::mem::take(&mut sm.acc);
    for (i, a) in acc.iter().enumerate() {
        if !a.store {
            super::land::retime(cx, sm, a.slot as usize, a.dst, MARK + i as u64, a.done);
        }
    }
    for a in &acc {
        if a.store {
            continue;
        }
        // Chosen with a mark: every cycle from the window's end is one.
        super::land::rechoose(cx, sm, a.slot as usize, end);
        if cx.gpu.shared.return_wavefronts == 0 {
            continue;
        }
        sm.turns.expect(super::land::Return {
            done: a.done,
            seq: a.seq,
            slot: a.slot,
            age: a.age,
            dst: a.dst,
            lines: a.lines,
        });
        if cx.eager_land {
            sm.next = sm.next.min(a.done);
        }
    }
    sm.acc = acc;
    sm.acc.clear();
    sm.acc_secs.clear();
}
