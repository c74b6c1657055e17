//! The memory queue of an SM: each sub-partition's own queue feeds one SM-wide stage, taken
//! in turn; the stage is served in order.
//!
//! A memory instruction (shared or global, load or store) that a warp issues goes straight
//! into the stage while it has room (`shared_stage` places); else it waits in its
//! sub-partition's own queue (`per_sub_partition` places), and a warp whose own queue is full
//! too cannot issue one (`mio_throttle`, `lg_throttle`: [`super::cycle::Mq`]). Each time an
//! instruction leaves the stage (its service starts: a server of the shared pipe, or the
//! global path), the sub-partitions whose own queues hold instructions send one each in turn.
//! On the H200 (`calibration/probes/queue_share`): a sub-partition that joins a flood of another's gets
//! every other place from the start, and its first instruction waits only for the ~20 of the
//! stage, not for the other's own queue (650–690 cycles behind 32-way conflicted loads, where
//! one queue in order of issue would make it 950–1,290). With one sub-partition flooding the
//! two are the same: 9 + 20 instructions (`calibration/README.md`, section 1).
//!
//! An instruction's service, and so a load's data, is fixed when it enters the stage
//! ([`enter`]); until then a load's registers wait for a mark (`PEND` + its number), and its
//! warp cannot leave.

use super::*;

/// A load waiting in its sub-partition's queue: its registers wait for `PEND + n`, later than
/// any cycle and below a window's marks.
pub(super) const PEND: u64 = 1 << 54;

/// An instruction in a sub-partition's own queue.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    /// Its warp slot and that warp's `age`.
    pub slot: u32,
    pub age: u64,
    /// The instruction.
    pub ev: Ev,
    /// Its mark's number.
    pub n: u64,
    /// Whether it is a shared one (what names a full queue's throttle).
    pub shared: bool,
}

/// What an instruction entering the stage gives its warp.
pub(super) enum Entered {
    /// Nothing (a shared store).
    Nothing,
    /// A load's registers are ready at this cycle, waited for in this state.
    Load(u64, Reason),
    /// A global store is acknowledged at this cycle.
    Store(u64),
}

/// Whether instruction class `c` goes through the memory queue.
#[inline]
pub(super) fn is_mem(c: Class) -> bool {
    matches!(
        c,
        Class::SharedLd
            | Class::SharedSt
            | Class::Shuffle
            | Class::ConstLd
            | Class::GlobalLd
            | Class::GlobalSt
    )
}

/// Instruction `ev` of warp slot `s` enters the stage at cycle `t` (the cycle it issued, or
/// the one a place freed): it leaves in order, after the one before it, and is priced.
pub(super) fn enter(cx: &mut Cx, sm: &mut Sm, p: usize, s: u32, ev: Ev, t: u64) -> Entered {
    let gpu = cx.gpu;
    let si = cx.dec[ev.pc as usize];
    match si.class {
        Class::SharedLd | Class::SharedSt | Class::Shuffle => {
            // (A shuffle takes the pipe for one wavefront and touches no bank.)
            // (A warp that issues an access with no lane on, predicated off, still takes the
            // pipe for one wavefront: `crate::if_convert`.)
            let n = match si.class {
                Class::Shuffle => 1,
                _ if cx.ideal => ev.b as u64,
                _ => ev.a as u64,
            }
            .max(1);
            let busy = n * gpu.shared.cycles_per_wavefront as u64;
            // In order: it leaves the stage after the one before it, on the first free server.
            let (k, &free) = sm
                .servers
                .iter()
                .enumerate()
                .min_by_key(|&(i, &f)| (f, i))
                .expect("at least one server");
            // A warp's shared instructions are served one after another (issue 38, D2 of
            // calibration/probes/conflict_cost/DESIGN.md: one warp alone gets one server; two
            // or more share both). Shuffles were not measured: left out.
            let own = match si.class {
                Class::Shuffle => 0,
                _ => sm.warps[s as usize].sh_free,
            };
            let d = t.max(sm.mem_last).max(free).max(own);
            sm.servers[k] = d + busy;
            if si.class != Class::Shuffle {
                sm.warps[s as usize].sh_free = d + busy;
            }
            if gpu.shared.return_wavefronts > 0 {
                sm.turns.serve(k, d, d + busy, t);
            }
            sm.mem_last = d;
            sm.stage.push_back((d, true));
            sm.sp[p].memq.push_back((d, true));
            cx.out.pipe_busy += n;
            if si.class == Class::SharedSt {
                Entered::Nothing
            } else {
                Entered::Load(
                    d + busy + gpu.shared.latency_base as u64,
                    Reason::ShortScoreboard,
                )
            }
        }
        Class::ConstLd => {
            // In order through the stage, on the constant cache's own unit. Each distinct
            // address is a request, served one after the other (spec C-3): the first after
            // LDC_HIT cycles if its line is in the 2 KiB cache, LDC_MISS if the second level
            // has it; each further one LDC_REPLAY more if its line hits (or was just fetched),
            // LDC_MISS_REPLAY if it misses. A line touched first in the launch comes from
            // memory (`const_line`): the data then follows LDC_MISS_MORE after it. Each
            // request holds the cache IDC_REQUEST cycles (IDC_REQUEST_MISS a miss).
            let d = t.max(sm.mem_last).max(sm.idc_free);
            let n = (ev.a & 63).max(1) as u64;
            let outside = (ev.a >> 6) as u64;
            let first = super::idc_lookup(sm, ev.b);
            let mut arrive = super::const_line(sm, gpu, ev.b, d);
            let mut missed = outside + u64::from(!first);
            let mut others = outside;
            let mut bits = ev.s;
            while bits != 0 {
                let r = bits.trailing_zeros() as i32;
                bits &= bits - 1;
                let Ok(line) = u16::try_from(ev.b as i32 - 15 + r) else {
                    continue;
                };
                others += 1;
                missed += u64::from(!super::idc_lookup(sm, line));
                arrive = arrive.max(super::const_line(sm, gpu, line, d));
            }
            let other_missed = missed - u64::from(!first);
            let same_line = (n - 1).saturating_sub(others);
            let served = d
                + if first { LDC_HIT } else { LDC_MISS }
                + other_missed * LDC_MISS_REPLAY
                + (others - other_missed + same_line) * LDC_REPLAY;
            sm.idc_free = d + (n - missed.min(n)) * IDC_REQUEST + missed.min(n) * IDC_REQUEST_MISS;
            sm.mem_last = d;
            sm.stage.push_back((d, true));
            sm.sp[p].memq.push_back((d, true));
            let line = arrive + LDC_MISS_MORE;
            Entered::Load(served.max(line), Reason::ShortScoreboard)
        }
        _ => global(cx, sm, p, s, ev, si, t),
    }
}

/// Cycles from an `LDC`'s issue to its data when its one address hits the SM's constant
/// cache (H200: `calibration/probes/cuda_coverage`, `const_lat.tsv`, D = 1: 28).
const LDC_HIT: u64 = 28;
/// Cycles each further distinct address of an `LDC` adds to its latency (the same table:
/// 28 + 11(D - 1) for D = 1 … 32, to 0.1 cycle, on dependent chains).
const LDC_REPLAY: u64 = 11;
/// Cycles from an `LDC`'s issue to its data when its line misses the 2 KiB cache and hits
/// the second level (`const_lat.tsv`: a uniform chain over 3-64 KiB at a 64-byte stride, 98).
const LDC_MISS: u64 = 98;
/// Cycles each further distinct address adds when the lines miss (98 + 81(D - 1): D = 16 at
/// 256 bytes 1,313, D = 32 at 128 and 256 bytes 2,609).
const LDC_MISS_REPLAY: u64 = 81;
/// Cycles a missing request holds the cache (`idc__request_cycles_active` / requests = 3.99
/// when all miss: spec C-3).
const IDC_REQUEST_MISS: u64 = 4;
/// Cycles from a first-touched constant line's arrival ([`super::const_line`]: the global
/// model's latency) to an `LDC`'s data: a line's first load adds that latency less 67 to a
/// second-level hit's 98 (spec C-3: 324 - 107 = 217 = 285 - 68 with the line in L2, 752 - 107
/// = 645 = 710 - 65 from DRAM), so 98 - 67.
const LDC_MISS_MORE: u64 = 31;
/// Cycles one request (one distinct address) holds the SM's constant cache: its hit
/// throughput (spec C-3, "5. Call 2": 2.01 cycles per warp-level `LDC` at D = 1 with 8+
/// warps, 2.0 x D; Nsight's `idc__request_cycles_active` 2.0 per request). Measured on an H100
/// 80GB HBM3 (no H200 could be started for that call; the same GH100 SM).
const IDC_REQUEST: u64 = 2;

/// [`enter`] for a global load or store.
fn global(cx: &mut Cx, sm: &mut Sm, p: usize, s: u32, ev: Ev, si: Dec, t: u64) -> Entered {
    let g = &cx.gpu.global;
    let store = si.class == Class::GlobalSt;
    let w = &sm.warps[s as usize];
    let secs = &w.trace.warps[w.wi as usize].sectors;
    let from = (ev.s as usize).min(secs.len());
    let to = (from + ev.a as usize).min(secs.len());
    // Sampled timing: the same access by the blocks this one stands for.
    let shadow = (to + ev.b as usize).min(secs.len());
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
    sm.stage.push_back((d, false));
    sm.sp[p].memq.push_back((d, false));
    // Local memory (spills, local arrays) stays in the SM's L1, which is write-back for it: a
    // thread reads what it wrote there, at the L1's latency, with no L2 or DRAM traffic.
    let local = secs[from..to]
        .first()
        .is_some_and(|&id| (id >> 48) as u16 == crate::trace::LOCAL_BUFFER);
    let done = if local {
        d + g.l1_hit as u64
    } else if let Some(end) = cx.window {
        // Priced at the window's end ([`super::window`]); a load's register waits for a mark
        // that cycle replaces (its data comes no sooner than `end`).
        let id = sm.acc.len() as u64;
        sm.acc.push(super::window::Access {
            t,
            d,
            slot: s,
            store,
            dst: si.dst,
            from: sm.acc_secs.len() as u32,
            n: (to - from) as u32,
            shadow: (shadow - to) as u32,
            done: 0,
            seq: sm.turns.seq,
            age: w.age,
            lines: lines as u32,
        });
        sm.acc_secs.extend_from_slice(&secs[from..shadow]);
        debug_assert!(d + g.l2_hit as u64 >= end);
        super::window::MARK + id
    } else {
        let (l2, dram) = (&mut cx.l2, &mut cx.dram);
        let (own, others) = secs[from..shadow].split_at(to - from);
        super::global::shared(
            g,
            l2,
            dram,
            &mut sm.read_free,
            &mut sm.shadow_free,
            d,
            store,
            own,
            others,
        )
    };
    if store {
        return Entered::Store(d + lines * cpl + g.store_ack as u64);
    }
    if cx.window.is_none() && cx.gpu.shared.return_wavefronts > 0 {
        // (In a window, once priced: [`super::window`].)
        sm.turns.expect(super::land::Return {
            done,
            seq: sm.turns.seq,
            slot: s,
            age: w.age,
            dst: si.dst,
            lines: lines as u32,
        });
    }
    sm.turns.seq += 1;
    Entered::Load(done, Reason::LongScoreboard)
}

/// Warp slot `s` of sub-partition `p` issues memory instruction `ev` at cycle `t`: it enters
/// the stage if it has room, else waits in the sub-partition's queue (a load's registers then
/// wait for a mark).
pub(super) fn issue(cx: &mut Cx, sm: &mut Sm, p: usize, s: u32, ev: Ev, t: u64) -> Entered {
    if sm.pending == 0 {
        while sm.stage.front().is_some_and(|&(d, _)| d <= t) {
            sm.stage.pop_front();
        }
        if sm.stage.len() < cx.gpu.memory_queue.shared_stage as usize {
            return enter(cx, sm, p, s, ev, t);
        }
    }
    let si = cx.dec[ev.pc as usize];
    let n = sm.marks;
    sm.marks += 1;
    let w = &mut sm.warps[s as usize];
    w.pend += 1;
    sm.sp[p].pend.push_back(Pending {
        slot: s,
        age: w.age,
        ev,
        n,
        shared: !matches!(si.class, Class::GlobalLd | Class::GlobalSt),
    });
    sm.pending += 1;
    match si.class {
        Class::SharedLd | Class::Shuffle | Class::ConstLd => {
            Entered::Load(PEND + n, Reason::ShortScoreboard)
        }
        Class::GlobalLd => Entered::Load(PEND + n, Reason::LongScoreboard),
        _ => Entered::Nothing,
    }
}

/// The instructions that left the stage by cycle `t`, each making room for one from the
/// sub-partitions' own queues, taken in turn.
pub(super) fn advance(cx: &mut Cx, sm: &mut Sm, t: u64) {
    for sp in &mut sm.sp {
        while sp.memq.front().is_some_and(|&(d, _)| d <= t) {
            sp.memq.pop_front();
        }
    }
    while let Some(&(d, _)) = sm.stage.front() {
        if d > t {
            break;
        }
        sm.stage.pop_front();
        if sm.pending == 0 {
            continue;
        }
        let nsp = sm.sp.len();
        let Some(p) = (0..nsp)
            .map(|i| (sm.turn as usize + i) % nsp)
            .find(|&p| !sm.sp[p].pend.is_empty())
        else {
            continue;
        };
        sm.turn = ((p + 1) % nsp) as u8;
        let Some(x) = sm.sp[p].pend.pop_front() else {
            continue;
        };
        sm.pending -= 1;
        // It enters when the place freed.
        let e = enter(cx, sm, p, x.slot, x.ev, d);
        entered(cx, sm, x, e, t);
    }
}

/// A waiting instruction `x` has entered the stage: its warp learns when its registers are
/// ready (or its store acknowledged), and may leave once nothing of it waits.
fn entered(cx: &Cx, sm: &mut Sm, x: Pending, e: Entered, t: u64) {
    let s = x.slot as usize;
    if sm.warps[s].age != x.age {
        return;
    }
    match e {
        Entered::Nothing => {}
        Entered::Load(at, why) => {
            super::land::retime_entry(cx, sm, s, x.dst(cx), entry(PEND + x.n, why), entry(at, why));
            // A warp that chose to wait past `t` may choose otherwise now that it knows.
            super::land::rechoose(cx, sm, s, t);
        }
        Entered::Store(ack) => sm.warps[s].acks = sm.warps[s].acks.max(ack),
    }
    let w = &mut sm.warps[s];
    w.pend -= 1;
    if w.state == St::Exited {
        let r = w.leaves_at(t + 1);
        super::land::wake(sm, s, r);
    }
}

impl Pending {
    /// The registers a load writes.
    fn dst(&self, cx: &Cx) -> (u16, u8) {
        cx.dec.get(self.ev.pc as usize).map_or((0, 0), |d| d.dst)
    }
}
