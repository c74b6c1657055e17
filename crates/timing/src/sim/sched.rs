//! A sub-partition's scheduler on bit sets of its warps (bit `slot / sub_partitions`, at most
//! 64): the same decisions as the reference scan in [`cycle`](super::cycle), without looking
//! at every warp every cycle.
//!
//! A running warp is in one of three sets: *sleeping* until a known cycle (a register, a
//! branch, an exited warp's stores; a heap of wake cycles), *due* (its cycle has come: the scan
//! would look at it each cycle), or *held* by the unit its next instruction needs (the memory
//! queue, an arithmetic pipe) until that unit frees, as a group. A cycle holds a busy unit's due
//! warps with one mask, and a due warp left `not_selected` is booked once, when it enters that
//! state (its state does not change after). Booking stays lazy: a warp's cycles in a state are
//! booked when it leaves it, so every number is the scan's.

use super::cycle::{issue, retire, switch_untimed, Mq};
use super::*;

/// The units a due warp's next instruction may be held by: the memory queue (shared, then
/// global: their throttles have different names), then the sets of arithmetic pipes
/// ([`Pipes`]).
const UNITS: usize = 2 + N_PIPE_SETS;

/// The [`Pipes`] by number.
const PIPE_SETS: [Pipes; N_PIPE_SETS] = [
    Pipes::Int,
    Pipes::Alu,
    Pipes::Imad,
    Pipes::Fp32,
    Pipes::Fp64,
    Pipes::Slow,
    Pipes::Tensor,
];

/// The unit of instruction `d` (`None`: never held).
#[inline]
fn unit(d: &Dec) -> Option<usize> {
    match d.class {
        Class::SharedLd | Class::SharedSt | Class::Shuffle | Class::ConstLd => Some(0),
        Class::GlobalLd | Class::GlobalSt => Some(1),
        _ => d.pipes.map(|k| 2 + k as usize),
    }
}

/// A sub-partition's warps by state.
#[derive(Clone, Copy, Debug)]
pub(super) struct Sets {
    /// Per local warp: the cycle a sleeping warp wakes (`NEVER`: not sleeping).
    ready: [u64; 64],
    /// The sleeping warps as a binary min-heap of `ready << 6 | local warp`.
    heap: [u64; 64],
    len: usize,
    /// Running warps whose `ready` has come and that no unit holds.
    due: u64,
    /// Running warps by the unit of their next instruction (set when they wake, cleared when
    /// it issues).
    unit: [u64; UNITS],
    /// Units with a bit in `unit`.
    units: u32,
    /// Per unit: warps it holds, in state `held_why[u]` until `held_until[u]`.
    held: [u64; UNITS],
    held_why: [Reason; UNITS],
    held_until: [u64; UNITS],
    /// Units that hold warps, and the least `held_until` of them.
    holding: u32,
    held_min: u64,
    /// Due warps already in `not_selected`.
    waiting: u64,
    /// Each warp's [`Warp::priority`], kept here beside the bits it is compared for.
    pub(super) prio: [(u64, u64, u32); 64],
}

impl Sets {
    pub(super) fn new() -> Self {
        Sets {
            ready: [NEVER; 64],
            heap: [0; 64],
            len: 0,
            due: 0,
            unit: [0; UNITS],
            units: 0,
            held: [0; UNITS],
            held_why: [Reason::Misc; UNITS],
            held_until: [NEVER; UNITS],
            holding: 0,
            held_min: NEVER,
            waiting: 0,
            prio: [(0, 0, 0); 64],
        }
    }

    /// Local warp `l` sleeps until `ready` (no-op for `NEVER`, a warp at a barrier, and for a
    /// warp already sleeping until then).
    #[inline]
    pub(super) fn sleep(&mut self, l: usize, ready: u64) {
        if ready == NEVER || self.ready[l] == ready {
            return;
        }
        self.ready[l] = ready;
        if self.len == 64 {
            self.rebuild(l);
        }
        self.push(ready << 6 | l as u64);
    }

    /// Local warp `l`, sleeping, wakes at `ready` instead (its key leaves the heap).
    pub(super) fn rekey(&mut self, l: usize, ready: u64) {
        let old = self.ready[l];
        if old == ready {
            return;
        }
        if old != NEVER {
            let key = old << 6 | l as u64;
            if let Some(i) = self.heap[..self.len].iter().position(|&k| k == key) {
                self.len -= 1;
                let last = self.heap[self.len];
                if i < self.len {
                    self.place(i, last);
                }
            }
            self.ready[l] = NEVER;
        }
        self.sleep(l, ready);
    }

    /// Puts `key` at heap place `i` (whose key left) and restores the heap's order.
    #[inline]
    fn place(&mut self, mut i: usize, key: u64) {
        while i > 0 && self.heap[(i - 1) / 2] > key {
            self.heap[i] = self.heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        loop {
            let c = 2 * i + 1;
            if c >= self.len {
                break;
            }
            let c = if c + 1 < self.len && self.heap[c + 1] < self.heap[c] {
                c + 1
            } else {
                c
            };
            if key <= self.heap[c] {
                break;
            }
            self.heap[i] = self.heap[c];
            i = c;
        }
        self.heap[i] = key;
    }

    /// The heap is full of stale keys (warps put to sleep again before they woke): keeps the
    /// live ones but `l`'s.
    #[cold]
    #[inline(never)]
    fn rebuild(&mut self, l: usize) {
        self.len = 0;
        for k in 0..64 {
            if self.ready[k] != NEVER && k != l {
                let r = std::mem::replace(&mut self.ready[k], NEVER);
                self.sleep(k, r);
            }
        }
    }

    /// Adds a key to the heap.
    #[inline]
    fn push(&mut self, key: u64) {
        let mut i = self.len;
        self.len += 1;
        while i > 0 {
            let up = (i - 1) / 2;
            if self.heap[up] <= key {
                break;
            }
            self.heap[i] = self.heap[up];
            i = up;
        }
        self.heap[i] = key;
    }

    /// The least `ready` of the sleeping warps (`NEVER`: none).
    #[inline]
    fn wake(&self) -> u64 {
        if self.len == 0 {
            NEVER
        } else {
            self.heap[0] >> 6
        }
    }

    /// The warps whose cycle has come by `t` (they stop sleeping).
    #[inline]
    fn woken(&mut self, t: u64) -> u64 {
        let mut woke = 0u64;
        while self.len > 0 && self.heap[0] >> 6 <= t {
            let l = (self.heap[0] & 63) as usize;
            if self.ready[l] == self.heap[0] >> 6 {
                woke |= 1 << l;
                self.ready[l] = NEVER;
            }
            // Pop: the last key sifts down from the root.
            self.len -= 1;
            if self.len > 0 {
                self.place(0, self.heap[self.len]);
            }
        }
        woke
    }

    /// The warps of units that free by `t` (they stop being held).
    #[inline]
    fn unheld(&mut self, t: u64) -> u64 {
        let mut freed = 0u64;
        let mut min = NEVER;
        let mut units = self.holding;
        while units != 0 {
            let u = units.trailing_zeros() as usize;
            units &= units - 1;
            if self.held_until[u] <= t {
                freed |= self.held[u];
                self.held[u] = 0;
                self.holding &= !(1 << u);
            } else {
                min = min.min(self.held_until[u]);
            }
        }
        self.held_min = min;
        freed
    }

    /// The cycle the sub-partition acts next, after acting at `t`.
    #[inline]
    fn next(&self, t: u64) -> u64 {
        if self.due != 0 {
            t + 1
        } else {
            self.wake().min(self.held_min)
        }
    }
}

impl Default for Sets {
    fn default() -> Self {
        Sets::new()
    }
}

/// Sub-partition `p` at cycle `t` (its `next` has come). Returns whether a block left the SM.
pub(super) fn visit(cx: &mut Cx, sm: &mut Sm, smi: u32, p: usize, t: u64, mq: &Mq) -> bool {
    let nsp = sm.sp.len();
    let slot = |l: u32| l as usize * nsp + p;
    let mut freed = false;
    // Sleeping warps whose cycle has come: running ones become due, exited ones leave (in
    // order of arrival, as the scan retires them).
    let sets = &mut sm.sp[p].sets;
    if sets.wake() <= t {
        let woke = sets.woken(t);
        let mut exited = 0u64;
        let mut bits = woke;
        while bits != 0 {
            let l = bits.trailing_zeros();
            bits &= bits - 1;
            let w = &sm.warps[slot(l)];
            match w.state {
                St::Run => {
                    sets.due |= 1 << l;
                    let dec = w.ev().and_then(|ev| cx.dec.get(ev.pc as usize));
                    if let Some(u) = dec.and_then(unit) {
                        sets.unit[u] |= 1 << l;
                        sets.units |= 1 << u;
                    }
                }
                St::Exited => exited |= 1 << l,
                St::Bar | St::Free => {}
            }
        }
        if exited != 0 {
            freed |= retire_in_order(cx, sm, smi, p, exited, t);
        }
    }
    let Sm {
        sp: sps,
        warps,
        ready,
        ..
    } = sm;
    let sp = &mut sps[p];
    if sp.sets.held_min <= t {
        let back = sp.sets.unheld(t);
        sp.sets.due |= back;
    }
    let due = sp.sets.due;
    if due == 0 {
        sp.next = sp.sets.next(t);
        return freed;
    }
    // Units that cannot take an instruction now hold their due warps until they can.
    let mut units = sp.sets.units;
    while units != 0 {
        let u = units.trailing_zeros() as usize;
        units &= units - 1;
        let m = due & sp.sets.unit[u];
        if m == 0 {
            continue;
        }
        let hold = if u < 2 {
            mq.hold(sp, u == 0, t)
        } else if PIPE_SETS[u - 2].free(sp) > t {
            Some((Reason::MathPipeThrottle, PIPE_SETS[u - 2].free(sp)))
        } else {
            None
        };
        let Some((why, until)) = hold else {
            continue;
        };
        let r = until.max(t + 1);
        let sets = &mut sp.sets;
        sets.due &= !m;
        sets.waiting &= !m;
        let group = sets.held[u] == 0 || (sets.held_why[u] == why && sets.held_until[u] == r);
        if group {
            sets.held[u] |= m;
            sets.held_why[u] = why;
            sets.held_until[u] = r;
            sets.holding |= 1 << u;
            sets.held_min = sets.held_min.min(r);
        }
        let mut bits = m;
        while bits != 0 {
            let l = bits.trailing_zeros();
            bits &= bits - 1;
            let s = slot(l);
            if cx.book {
                switch_untimed(&mut cx.out, &mut warps[s], t, why);
            }
            if !group {
                ready[s] = r;
                sets.sleep(l as usize, r);
            }
        }
    }
    // The oldest block first, then the warp that has waited longest ([`Warp::priority`]).
    let elig = sp.sets.due;
    if elig == 0 {
        sp.next = sp.sets.next(t);
        return freed;
    }
    let mut pick = elig.trailing_zeros();
    let mut bits = elig & (elig - 1);
    while bits != 0 {
        let l = bits.trailing_zeros();
        bits &= bits - 1;
        if sp.sets.prio[l as usize] < sp.sets.prio[pick as usize] {
            pick = l;
        }
    }
    let bit = 1u64 << pick;
    let sets = &mut sp.sets;
    sets.due &= !bit;
    sets.waiting &= !bit;
    let mut units = sets.units;
    while units != 0 {
        let u = units.trailing_zeros() as usize;
        units &= units - 1;
        sets.unit[u] &= !bit;
        if sets.unit[u] == 0 {
            sets.units &= !(1 << u);
        }
    }
    // The others wait `not_selected` (booked when they enter it).
    let mut bits = if cx.book { sets.due & !sets.waiting } else { 0 };
    sets.waiting = sets.due;
    while bits != 0 {
        let s = slot(bits.trailing_zeros());
        bits &= bits - 1;
        switch_untimed(&mut cx.out, &mut warps[s], t, Reason::NotSelected);
    }
    let pick_slot = slot(pick);
    issue(cx, sm, smi, p, pick_slot as u32, t);
    let sp = &mut sm.sp[p];
    sp.sets.prio[pick as usize] = sm.warps[pick_slot].priority();
    if matches!(sm.warps[pick_slot].state, St::Run | St::Exited) {
        sp.sets.sleep(pick as usize, sm.ready[pick_slot]);
    }
    sp.next = sp.sets.next(t);
    freed
}

/// Retires the exited warps `exited` (local bits) of sub-partition `p` in order of arrival.
#[cold]
#[inline(never)]
fn retire_in_order(cx: &mut Cx, sm: &mut Sm, smi: u32, p: usize, exited: u64, t: u64) -> bool {
    let nsp = sm.sp.len();
    let mut order = [(0u64, 0u32); 64];
    let mut n = 0;
    let mut bits = exited;
    while bits != 0 {
        let s = (bits.trailing_zeros() as usize * nsp + p) as u32;
        bits &= bits - 1;
        order[n] = (sm.warps[s as usize].age, s);
        n += 1;
    }
    order[..n].sort_unstable();
    let mut freed = false;
    for &(_, s) in &order[..n] {
        freed |= retire(cx, sm, smi, s, t);
    }
    freed
}
