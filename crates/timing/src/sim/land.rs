//! The way back of a global load's data: it lands in the SM's L1, whose SRAM is the shared
//! memory's, and takes a turn of the shared pipe between two instructions.
//!
//! Each server of the pipe alternates between the instructions of the memory queue and the
//! data coming back: a line that arrives while a server is in an instruction waits for the
//! instruction's end (an instruction's wavefronts are not interrupted), then takes
//! `return_wavefronts` of the server, and a second line waits for the next instruction's end.
//! Under a flood of 32-way conflicted loads (64 cycles each on one of the two servers) lines
//! land two per 64 cycles; on the H200 eight lines coming back inside such a flood are late by
//! 0–520 cycles in steps of ~64, two at a step (`calibration/probes/scheduler/raw/flood4.txt.gz`). On an idle
//! pipe a line lands when it comes (the measured latencies hold the turn itself).
//!
//! The instructions' departures are fixed when they enter the memory queue's stage
//! ([`super::queue::enter`]), so a turn is taken where a server's schedule has a boundary, and
//! only instructions entering after it are pushed back by its wavefronts. A load's registers wait for the cycle its data comes;
//! the turn is taken at the SM's first visit from that cycle on ([`land`], before anything
//! issues, in both the event loop and a window), as if at that cycle: nothing issued on the
//! SM in between, and a warp that waits for the data is visited at that cycle anyway. A later
//! landing moves the registers' cycle on.

use super::*;
use std::cmp::Reverse;

/// A load's data on its way back to warp slot `slot` (the warp placed `age`-th on the SM),
/// due at `done`; `seq` orders the loads of one cycle as they issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Return {
    pub done: u64,
    pub seq: u64,
    pub slot: u32,
    pub age: u64,
    pub dst: (u16, u8),
    pub lines: u32,
}

/// The shared pipe's schedule as the data coming back sees it.
#[derive(Clone, Default)]
pub(super) struct Turns {
    /// Per server: its instructions' `[start, end)` cycles still to end, in order.
    spans: Vec<VecDeque<(u64, u64)>>,
    /// Per server: the cycle its last landing ends.
    landed: Vec<u64>,
    /// Data on its way back, soonest first.
    due: std::collections::BinaryHeap<Reverse<Return>>,
    /// Loads issued on the SM (each one's `seq`).
    pub seq: u64,
}

impl Turns {
    pub(super) fn new(servers: usize) -> Self {
        Turns {
            spans: vec![VecDeque::new(); servers],
            landed: vec![0; servers],
            ..Turns::default()
        }
    }

    /// A shared instruction takes server `k` for `[start, end)`; issued at `t`.
    #[inline]
    pub(super) fn serve(&mut self, k: usize, start: u64, end: u64, t: u64) {
        let s = &mut self.spans[k];
        while s.front().is_some_and(|&(_, e)| e <= t) {
            s.pop_front();
        }
        s.push_back((start, end));
    }

    /// A load's data will come back at `r.done`.
    #[inline]
    pub(super) fn expect(&mut self, r: Return) {
        self.due.push(Reverse(r));
    }

    /// The cycle the next data comes back (`NEVER`: none on its way).
    #[inline]
    pub(super) fn next(&self) -> u64 {
        self.due.peek().map_or(NEVER, |r| r.0.done)
    }

    /// Data arriving at `t` takes a turn: the cycle it lands, after which the server it took
    /// is busy `busy` cycles longer (`servers[k]`: when each is free for instructions issued
    /// from now on).
    fn take(&mut self, servers: &mut [u64], t: u64, busy: u64) -> u64 {
        let mut best = (NEVER, 0);
        for (k, s) in self.spans.iter_mut().enumerate() {
            while s.front().is_some_and(|&(_, e)| e <= t) {
                s.pop_front();
            }
            // After its last landing a server serves an instruction before the next.
            let c = t.max(self.landed[k]);
            let at = s
                .iter()
                .find(|&&(_, e)| e > c)
                .map_or(c, |&(start, e)| if start > c { c } else { e });
            if at < best.0 {
                best = (at, k);
            }
        }
        let (at, k) = best;
        self.landed[k] = at + busy;
        servers[k] = servers[k].max(at) + busy;
        at
    }
}

/// Lands the data due at or before `t` on SM `sm`, each at its own cycle; a load whose data
/// lands late has its registers' cycle moved on, and its warp chooses its next instruction
/// again.
pub(super) fn land(cx: &Cx, sm: &mut Sm, t: u64) {
    let per = cx.gpu.shared.return_wavefronts as u64 * cx.gpu.shared.cycles_per_wavefront as u64;
    while sm.turns.next() <= t {
        let Some(Reverse(r)) = sm.turns.due.pop() else {
            break;
        };
        let at = sm.turns.take(&mut sm.servers, r.done, per * r.lines as u64);
        let w = &sm.warps[r.slot as usize];
        if at <= r.done || w.state == St::Free || w.age != r.age {
            continue;
        }
        let s = r.slot as usize;
        retime(cx, sm, s, r.dst, r.done, at);
        rechoose(cx, sm, s, r.done);
    }
}

/// A load's registers `dst` of warp slot `s`, waiting for cycle `from` (or a window's mark),
/// wait for `to` instead, in the scoreboard and among the warp's renamed results (an entry
/// another instruction has written since is left alone).
pub(super) fn retime(cx: &Cx, sm: &mut Sm, s: usize, dst: (u16, u8), from: u64, to: u64) {
    retime_entry(
        cx,
        sm,
        s,
        dst,
        entry(from, Reason::LongScoreboard),
        entry(to, Reason::LongScoreboard),
    );
}

/// [`retime`] by scoreboard entries: registers `dst` of warp slot `s` holding `old` get `new`.
pub(super) fn retime_entry(cx: &Cx, sm: &mut Sm, s: usize, dst: (u16, u8), old: u64, new: u64) {
    let nregs = cx.nregs;
    let (reg, n) = dst;
    for x in sm.regs[s * nregs..(s + 1) * nregs]
        .iter_mut()
        .skip(reg as usize)
        .take(n as usize)
    {
        if *x == old {
            *x = new;
        }
    }
    for d in &mut sm.warps[s].deferred {
        if d.entry == old {
            d.entry = new;
        }
    }
}

/// Warp slot `s` chooses its next instruction again if it chose one due at `from` or later
/// (a register it may wait for has moved).
pub(super) fn rechoose(cx: &Cx, sm: &mut Sm, s: usize, from: u64) {
    let nregs = cx.nregs;
    let w = &mut sm.warps[s];
    let (min, why, was) = w.nx;
    if w.state != St::Run || was < from {
        // It chose without that register, or is not choosing.
        return;
    }
    let regs = &sm.regs[s * nregs..(s + 1) * nregs];
    let mut r = 0;
    super::pick::next_inst(cx, w, regs, &mut r, min, why);
    wake(sm, s, r);
}

/// Warp slot `s` may act from cycle `r` (it was asleep for longer).
pub(super) fn wake(sm: &mut Sm, s: usize, r: u64) {
    sm.ready[s] = r;
    let nsp = sm.sp.len();
    let sp = &mut sm.sp[s % nsp];
    sp.next = sp.next.min(r);
    if !sm.scan {
        sp.sets.rekey(s / nsp, r);
    }
    sm.next = sm.next.min(sp.next);
}
