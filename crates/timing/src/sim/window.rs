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
use super::pick::next_inst;
use super::*;

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
    /// Its sectors: `acc_secs[from..from + n]` of its SM.
    pub from: u32,
    pub n: u32,
    /// When a load's data is there (once priced).
    pub done: u64,
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

impl Sim<'_> {
    /// [`Sim::advance`] by windows.
    pub(super) fn windows(&mut self) {
        let n = self.sms.len();
        loop {
            let (hmin, _) = self.order.first();
            let can = self.next_block < self.launch.blocks && !self.blocked;
            let td = if can {
                self.next_dispatch.ceil() as u64
            } else {
                NEVER
            };
            let t0 = hmin.min(td);
            if t0 == NEVER {
                return;
            }
            let end = t0.saturating_add(self.width);
            if !self.candidates(t0, end) {
                // The dispatcher may need blocks not fed yet.
                return;
            }
            self.cx.window = Some(end);
            // The others alone, to the end of the window.
            self.frees.clear();
            for k in 0..n {
                if !self.viewed[k] {
                    continue;
                }
                self.order.set(k, NEVER);
                loop {
                    let t = self.sms[k].next;
                    if t >= end {
                        break;
                    }
                    if step(&mut self.cx, &mut self.sms[k], k as u32, t) {
                        let sm = &self.sms[k];
                        self.frees
                            .push((t, k as u32, self.fits(sm), sm.next_accept));
                    }
                }
            }
            self.frees.sort_unstable();
            self.dispatch_window(end);
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
    /// may not be enough for them.
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
        if need > 0 && (self.pending.len() as u64) < need.min(left) {
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
            let can = self.next_block < self.launch.blocks && !self.blocked;
            let td = if can {
                self.next_dispatch.ceil() as u64
            } else {
                NEVER
            };
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

    /// Prices the window's global accesses in the event loop's order and hands loads' cycles
    /// to their warps.
    fn price(&mut self, t0: u64, end: u64) {
        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        for (k, sm) in self.sms.iter().enumerate() {
            keys.extend((0..sm.acc.len()).map(|i| (sm.acc[i].t, k as u32, i as u32)));
        }
        keys.sort_unstable();
        let cx = &mut self.cx;
        cx.dram.forget_before(t0);
        let g = &cx.gpu.global;
        for &(_, k, i) in &keys {
            let sm = &mut self.sms[k as usize];
            let a = sm.acc[i as usize];
            let secs = &sm.acc_secs[a.from as usize..(a.from + a.n) as usize];
            let done = global::shared(
                g,
                &mut cx.l2,
                &mut cx.dram,
                &mut sm.read_free,
                a.d,
                a.store,
                secs,
            );
            sm.acc[i as usize].done = done;
        }
        self.keys = keys;
        for sm in &mut self.sms {
            if !sm.acc.is_empty() {
                settle(&self.cx, sm, end);
            }
        }
    }
}

/// Replaces the marks of `sm`'s loads by their cycles, and has each warp that waits past the
/// window's `end` choose its next instruction again (it chose with marks).
fn settle(cx: &Cx, sm: &mut Sm, end: u64) {
    let nregs = cx.nregs;
    let acc = std::mem::take(&mut sm.acc);
    for (i, a) in acc.iter().enumerate() {
        if a.store {
            continue;
        }
        let mark = entry(MARK + i as u64, Reason::LongScoreboard);
        let real = entry(a.done, Reason::LongScoreboard);
        let s = a.slot as usize;
        let regs = &mut sm.regs[s * nregs..(s + 1) * nregs];
        let (r, n) = a.dst;
        for x in regs.iter_mut().skip(r as usize).take(n as usize) {
            if *x == mark {
                *x = real;
            }
        }
        for d in &mut sm.warps[s].deferred {
            if d.entry == mark {
                d.entry = real;
            }
        }
    }
    for a in &acc {
        if a.store {
            continue;
        }
        let s = a.slot as usize;
        let w = &mut sm.warps[s];
        let (from, why, was) = w.nx;
        if w.state != St::Run || was < end {
            // It chose without a mark (any earlier cycle is not one), or is not choosing.
            continue;
        }
        let regs = &sm.regs[s * nregs..(s + 1) * nregs];
        let mut r = 0;
        next_inst(&cx.dec, &cx.srcs, &cx.masks, w, regs, &mut r, from, why);
        sm.ready[s] = r;
        let nsp = sm.sp.len();
        let sp = &mut sm.sp[s % nsp];
        sp.next = sp.next.min(r);
        if !sm.scan {
            sp.sets.rekey(s / nsp, r);
        }
        sm.next = sm.next.min(sp.next);
    }
    sm.acc = acc;
    sm.acc.clear();
    sm.acc_secs.clear();
}
