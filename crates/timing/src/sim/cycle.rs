//! One SM at one cycle: its sub-partitions issue, warps retire, barriers release, the memory
//! queue drains.

use super::pick::next_inst;
use super::*;

/// Cycles from a `ULDC`'s issue to its uniform register when its line is in the SM's
/// immediate constant cache (H200: `calibration/probes/cuda_coverage`, `const_imm.tsv`: a
/// dependent FFMA pair fed by one `ULDC.64` every two FFMAs takes 22.3-23.2 cycles against
/// 8.2 with immediates, 1 + L + 4 = 22.3: spec C-4).
pub(super) const ULDC_LATENCY: u64 = 17;
/// A `ULDC` of a line touched first in the launch waits for it ([`super::const_line`]) less
/// this: launch 1 after `cudaMemcpyToSymbol` (the line in L2, 285 cycles away) paid 282
/// cycles more than the launches after it (`const_imm.tsv`, spec C-4).
const ULDC_MISS_LESS: u64 = 3;

/// Books `[w.since, t)` to the warp's state at its pc, and puts it in `reason` from `t`.
#[inline]
pub(super) fn switch(cx: &mut Cx, smi: u32, slot: u32, w: &mut Warp, t: u64, reason: Reason) {
    if reason == w.reason && cx.timeline_sm != Some(smi) {
        // Same state, same pc: booking later books the same cycles.
        return;
    }
    book(cx, smi, slot, w, t);
    w.reason = reason;
    w.since = t;
}

/// [`switch`] on an SM whose timeline is not kept.
#[inline]
pub(super) fn switch_untimed(out: &mut Outcome, w: &mut Warp, t: u64, reason: Reason) {
    if reason == w.reason {
        return;
    }
    add(out, w, t);
    w.reason = reason;
    w.since = t;
}

/// Adds `[w.since, t)` to the totals of the warp's state.
#[inline]
fn add(out: &mut Outcome, w: &Warp, t: u64) {
    if t <= w.since {
        return;
    }
    let d = t - w.since;
    let r = w.reason as usize;
    out.cycles[r] += d;
    if let Some(p) = out.per_pc.get_mut(w.pc as usize) {
        p[r] += d;
    }
}

#[inline]
pub(super) fn book(cx: &mut Cx, smi: u32, slot: u32, w: &Warp, t: u64) {
    if t <= w.since {
        return;
    }
    add(&mut cx.out, w, t);
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

/// The memory queue ([`super::queue`]) as a sub-partition's warps see it at one cycle.
pub(super) struct Mq {
    /// Memory instructions a sub-partition's own queue holds.
    pub own: usize,
    /// Whether the SM-wide stage is full.
    pub stage_full: bool,
    /// The first departure still to come (any sub-partition).
    pub next_departure: u64,
}

impl Mq {
    /// Why a warp whose next instruction is of memory class `class` cannot issue at `t` on
    /// sub-partition `sp`, and until when; `None`: it can.
    ///
    /// Both holds are booked as the queue's throttle (`mio_throttle` for shared, `lg_throttle`
    /// for global): a full queue, named by what fills it (the oldest instruction in the
    /// sub-partition's part: a global store behind conflicted shared loads waits in
    /// `mio_throttle`, as the naive transpose's STGs do on the H200, calibration/probes/source_page; the
    /// queue probes, one kind at a time, show each kind's own name), and the sub-partition's
    /// one memory instruction per `issue_interval` cycles, named by the instruction's own
    /// class. The H200 books the latter so too, not as `dispatch_stall`: its
    /// queue probes (`calibration/probes/sm_rates/raw1/ncu_queue.csv`, 105 launches of back-to-back memory
    /// instructions) show `dispatch_stall` ≤ 0.02 a instruction throughout, and the matmul
    /// (two shared loads per FFMA, bound by that rate) `mio_throttle` 11.3 with
    /// `dispatch_stall` 0.18.
    #[inline]
    pub fn hold(&self, sp: &Sp, shared: bool, t: u64) -> Option<(Reason, u64)> {
        let throttle = |shared| {
            if shared {
                Reason::MioThrottle
            } else {
                Reason::LgThrottle
            }
        };
        if sp.pend.len() >= self.own && self.stage_full {
            // A full queue is named by what fills it: the oldest of the sub-partition's.
            let ahead = (sp.memq.front().map(|&(_, s)| s))
                .or(sp.pend.front().map(|x| x.shared))
                .unwrap_or(shared);
            Some((throttle(ahead), self.next_departure))
        } else if sp.mem_ok > t {
            Some((throttle(shared), sp.mem_ok))
        } else {
            None
        }
    }
}

/// Visits SM `smi` at cycle `t`: each sub-partition whose warps may act does. Returns whether
/// a block left the SM.
pub(super) fn step(cx: &mut Cx, sm: &mut Sm, smi: u32, t: u64) -> bool {
    let mut freed = false;
    // Data that came back since the last visit takes its turn of the shared pipe first.
    super::land::land(cx, sm, t);
    // Instructions that left the stage make room for those of the sub-partitions' queues.
    super::queue::advance(cx, sm, t);
    let q = &cx.gpu.memory_queue;
    let (own, cap) = (q.per_sub_partition as usize, q.shared_stage as usize);
    for p in 0..sm.sp.len() {
        if sm.sp[p].next > t {
            // Not visited: its warps did not change (a barrier release lowers `next` itself).
            continue;
        }
        let mq = Mq {
            own,
            stage_full: sm.stage.len() >= cap,
            next_departure: sm.stage.front().map_or(NEVER, |&(d, _)| d),
        };
        freed |= if sm.scan {
            scan(cx, sm, smi, p, t, &mq)
        } else {
            super::sched::visit(cx, sm, smi, p, t, &mq)
        };
    }
    sm.next = sm.sp.iter().map(|p| p.next).min().unwrap_or(NEVER);
    if sm.pending > 0 {
        // A place in the stage frees then.
        sm.next = sm.next.min(sm.stage.front().map_or(NEVER, |&(d, _)| d));
    }
    if cx.eager_land {
        sm.next = sm.next.min(sm.turns.next());
    }
    freed
}

/// Sub-partition `p` at cycle `t`, by the reference scan: every warp of its list is looked at,
/// in order of arrival. Returns whether a block left the SM.
fn scan(cx: &mut Cx, sm: &mut Sm, smi: u32, p: usize, t: u64, mq: &Mq) -> bool {
    let mut freed = false;
    let list = std::mem::take(&mut sm.sp[p].warps);
    // Eligible warps by their place in `list` (the first 64).
    let mut elig = 0u64;
    let mut pick = NONE;
    let mut pick_key = (u64::MAX, u64::MAX, u32::MAX);
    let mut retired = false;
    // The first cycle one of its warps may act, as far as the scan has seen.
    let mut next = NEVER;
    for (i, &s) in list.iter().enumerate() {
        let ready = sm.ready[s as usize];
        if ready > t {
            next = next.min(ready);
            continue;
        }
        let w = &mut sm.warps[s as usize];
        match w.state {
            St::Run => {}
            St::Exited => {
                freed |= retire(cx, sm, smi, s, t);
                retired = true;
                continue;
            }
            St::Bar | St::Free => {
                next = next.min(ready);
                continue;
            }
        }
        let Some(ev) = w.ev() else {
            w.state = St::Exited;
            next = next.min(ready);
            continue;
        };
        let dec = cx.dec.get(ev.pc as usize);
        let sp = &sm.sp[p];
        let hold = match dec.map_or(Class::Int, |c| c.class) {
            Class::SharedLd | Class::SharedSt | Class::Shuffle | Class::ConstLd => {
                mq.hold(sp, true, t)
            }
            Class::GlobalLd | Class::GlobalSt => mq.hold(sp, false, t),
            _ => match dec.and_then(|c| c.pipes) {
                Some(k) if k.free(sp) > t => Some((Reason::MathPipeThrottle, k.free(sp))),
                _ => None,
            },
        };
        if let Some((reason, until)) = hold {
            switch(cx, smi, s, w, t, reason);
            let r = until.max(t + 1);
            sm.ready[s as usize] = r;
            next = next.min(r);
            continue;
        }
        if i < 64 {
            elig |= 1 << i;
        } else {
            // (Not marked: it stays ready and is looked at again next cycle.)
            next = next.min(ready);
        }
        let key = w.priority();
        if key < pick_key {
            pick = s;
            pick_key = key;
        }
    }
    if pick != NONE {
        // A barrier the issue releases lowers `next` of the sub-partitions of its warps.
        sm.sp[p].next = NEVER;
        issue(cx, sm, smi, p, pick, t);
        next = next.min(sm.sp[p].next).min(sm.ready[pick as usize]);
        while elig != 0 {
            let s = list[elig.trailing_zeros() as usize];
            elig &= elig - 1;
            if s != pick {
                let w = &mut sm.warps[s as usize];
                switch(cx, smi, s, w, t, Reason::NotSelected);
                sm.ready[s as usize] = t + 1;
                next = next.min(t + 1);
            }
        }
    }
    let mut list = list;
    if retired {
        list.retain(|&s| sm.warps[s as usize].state != St::Free);
    }
    sm.sp[p].warps = list;
    sm.sp[p].next = next;
    freed
}

/// An exited warp whose stores are done leaves; the block leaves with its last warp.
pub(super) fn retire(cx: &mut Cx, sm: &mut Sm, smi: u32, s: u32, t: u64) -> bool {
    let w = &mut sm.warps[s as usize];
    book(cx, smi, s, w, t);
    w.state = St::Free;
    sm.ready[s as usize] = NEVER;
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
        let d = t - sm.active_from;
        cx.out.sm_active[smi as usize] += d;
    }
    cx.out.end = cx.out.end.max(t);
    true
}

/// Warp `s` of sub-partition `p` issues its next instruction at cycle `t`.
pub(super) fn issue(cx: &mut Cx, sm: &mut Sm, smi: u32, p: usize, s: u32, t: u64) {
    let gpu = cx.gpu;
    let w = &mut sm.warps[s as usize];
    let Some(ev) = w.ev() else {
        return;
    };
    if cx.timeline_sm == Some(smi) {
        switch(cx, smi, s, w, t, Reason::Selected);
        book(cx, smi, s, w, t + 1);
    } else {
        add(&mut cx.out, w, t);
        w.reason = Reason::Selected;
        w.since = t;
        add(&mut cx.out, w, t + 1);
    }
    w.since = t + 1;
    w.issued_at = t;
    cx.out.issued += 1;
    if let Some(n) = cx.out.issued_pc.get_mut(ev.pc as usize) {
        *n += 1;
    }
    let si = cx.dec[ev.pc as usize];
    // A memory instruction enters the stage, or waits in its sub-partition's queue.
    let mem = if super::queue::is_mem(si.class) {
        sm.sp[p].mem_ok = t + gpu.memory_queue.issue_interval.max(1) as u64;
        super::queue::issue(cx, sm, p, s, ev, t)
    } else {
        super::queue::Entered::Nothing
    };
    // A `ULDC`'s result: after its latency, or its line's arrival (a first touch).
    let uniform = (si.class == Class::UniformConstLd).then(|| {
        let hit = t + ULDC_LATENCY;
        let line = super::const_line(sm, gpu, ev.b, t) + ULDC_LATENCY - ULDC_MISS_LESS;
        if line > hit {
            (line, Reason::ImcMiss)
        } else {
            (hit, Reason::Wait)
        }
    });
    let w = &mut sm.warps[s as usize];
    let mut min_next = t + 1;
    let mut min_reason = Reason::NotSelected;
    let nregs = cx.nregs;
    let regs = &mut sm.regs[s as usize * nregs..(s as usize + 1) * nregs];
    // (The scoreboard is the SM's `regs`; a renamed result waits in the warp's `deferred`.)
    let mut write = |w: &mut Warp, at: u64, kind: Reason| {
        let (r, n) = si.dst;
        let x = entry(at, kind);
        if w.renamed {
            w.deferred.push(Deferred {
                at: w.cur + w.pick,
                dst: si.dst,
                entry: x,
            });
            return;
        }
        for k in r as usize..r as usize + n as usize {
            if let Some(e) = regs.get_mut(k) {
                *e = x;
            }
        }
    };
    let lat = &gpu.latency;
    if let Some(k) = si.pipes {
        k.take(&mut sm.sp[p], t, &gpu.issue, si.busy);
    }
    match si.class {
        Class::Int | Class::Fp32 | Class::Free => write(w, t + lat.alu as u64, Reason::Wait),
        Class::Fp64 => write(w, t + lat.fp64 as u64, Reason::Wait),
        Class::Slow => write(w, t + lat.slow as u64, Reason::Wait),
        Class::Tensor => write(w, t + si.busy as u64 + lat.tensor as u64, Reason::Wait),
        Class::UniformConstLd => {
            if let Some((at, why)) = uniform {
                write(w, at, why);
            }
        }
        Class::Branch => {
            write(w, t + lat.alu as u64, Reason::Wait);
            min_next = t + lat.branch.max(1) as u64;
            min_reason = Reason::BranchResolving;
        }
        Class::SharedLd
        | Class::SharedSt
        | Class::Shuffle
        | Class::ConstLd
        | Class::GlobalLd
        | Class::GlobalSt => match mem {
            super::queue::Entered::Nothing => {}
            super::queue::Entered::Load(at, why) => write(w, at, why),
            super::queue::Entered::Store(ack) => w.acks = w.acks.max(ack),
        },
        Class::Barrier => {
            w.advance(regs);
            w.state = St::Bar;
            sm.ready[s as usize] = NEVER;
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
                release_barrier(cx, sm, smi, b, t, bar);
            }
            return;
        }
        Class::Exit => {
            w.advance(regs);
            w.state = St::Exited;
            w.since = t + 1;
            w.reason = Reason::Drain;
            sm.ready[s as usize] = w.leaves_at(t + 1);
            return;
        }
    }
    w.advance(regs);
    w.since = t + 1;
    let r = &mut sm.ready[s as usize];
    next_inst(cx, w, regs, r, min_next, min_reason);
    if w.state == St::Exited {
        // The warp's trace ended without an `Exit`: all its threads left with `Return`.
        let b = w.blk as usize;
        warp_left(cx, sm, smi, b, t);
    }
}

/// A warp of block slot `b` has exited early (every thread returned): it no longer counts at
/// barriers, and a barrier that the other live warps all wait at is released.
fn warp_left(cx: &mut Cx, sm: &mut Sm, smi: u32, b: usize, t: u64) {
    let bar = cx.bar_cost;
    let Some(blk) = sm.blocks[b].as_mut() else {
        return;
    };
    blk.alive = blk.alive.saturating_sub(1);
    if blk.at_bar > 0 && blk.at_bar >= blk.alive {
        release_barrier(cx, sm, smi, b, t, bar);
    }
}

/// Releases the warps of block slot `b` waiting at its barrier (the last arrived at `t`).
fn release_barrier(cx: &mut Cx, sm: &mut Sm, smi: u32, b: usize, t: u64, bar: u64) {
    let Some(blk) = sm.blocks[b].as_mut() else {
        return;
    };
    blk.at_bar = 0;
    // The measured cost runs from the first warp's arrival (a loop of `bar.sync` takes
    // `base + per_warp * W` cycles a trip).
    let release = (t + 1).max(blk.bar_first + bar);
    for k in 0..blk.warps.len() {
        let Some(blk) = sm.blocks[b].as_ref() else {
            break;
        };
        let ws = blk.warps[k];
        let w = &mut sm.warps[ws as usize];
        if w.state != St::Bar {
            continue;
        }
        w.state = St::Run;
        book(cx, smi, ws, w, release);
        w.since = release;
        let r = &mut sm.ready[ws as usize];
        let n = cx.nregs;
        let regs = &sm.regs[ws as usize * n..(ws as usize + 1) * n];
        next_inst(cx, w, regs, r, release, Reason::NotSelected);
        let r = *r;
        let nsp = sm.sp.len();
        let sp = &mut sm.sp[ws as usize % nsp];
        sp.next = sp.next.min(r);
        if !sm.scan {
            sp.sets.sleep(ws as usize / nsp, r);
        }
    }
}
