//! A warp's next instruction: the next in program order, or a later one hoisted when its
//! operands are ready sooner.

use super::*;

/// When the warp's scoreboard `regs` lets instruction `si`, at trace place `at` of warp `w`,
/// issue, and what it waits for (no earlier than `from`, in state `why` until then).
#[inline]
fn deps(
    w: &Warp,
    regs: &[u64],
    si: &Dec,
    srcs: &[u32],
    at: u32,
    from: u64,
    why: Reason,
) -> (u64, Reason) {
    let (mut ready, mut last) = (from, 0);
    // Read-after-write only: the lowered code reuses a register for each trip of a loop where
    // the GPU's compiler would unroll into fresh ones.
    for &k in &srcs[si.from as usize..(si.from + si.n) as usize] {
        if let Some(&(mut x)) = regs.get(k as usize) {
            if !w.deferred.is_empty() {
                // The last renamed result before `at` in program order, if any, is the value.
                let r = k as u16;
                if let Some(d) = w
                    .deferred
                    .iter()
                    .filter(|d| d.at < at && d.dst.0 <= r && r < d.dst.0 + d.dst.1 as u16)
                    .max_by_key(|d| d.at)
                {
                    x = d.entry;
                }
            }
            if x & AT > ready {
                ready = x & AT;
                last = x;
            }
        }
    }
    if ready == from {
        (from, why)
    } else {
        (ready, Reason::from_u8((last >> 56) as u8))
    }
}

/// Sets which instruction the warp issues next and when (no earlier than `min_next`, in
/// state `min_reason` until then): the next in program order when its registers are ready,
/// else a later instruction whose operands are ready sooner, as the GPU's compiler schedules
/// independent work (loads, their address arithmetic) early in an unrolled loop. Nothing is
/// hoisted past a branch, barrier or exit or past an instruction that writes its operands;
/// stores are never hoisted, and loads not past a store to their memory space. An instruction
/// hoisted past one that reads or writes a register it writes (the lowered code reuses
/// registers where ptxas takes fresh ones) writes a renamed register: later instructions
/// read it there, and its result reaches the scoreboard only once every instruction before
/// it has issued ([`Warp::advance`]), so the instructions passed over do not wait for it.
///
/// The call's bounds and result are kept in the warp ([`Warp::nx`]) so that a window can
/// make it again once the marks of its loads are priced ([`super::window`]). How far ahead it
/// looks is the GPU description's assumption (`compiler.hoist_window`).
#[inline]
pub(super) fn next_inst(
    cx: &Cx,
    w: &mut Warp,
    regs: &[u64],
    ready_at: &mut u64,
    min_next: u64,
    min_reason: Reason,
) {
    let window = cx.gpu.compiler.hoist_window;
    choose(
        &cx.dec, &cx.srcs, &cx.masks, window, w, regs, ready_at, min_next, min_reason,
    );
    w.nx = (min_next, min_reason, *ready_at);
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn choose(
    dec: &[Dec],
    srcs: &[u32],
    masks: &[Masks],
    window: u32,
    w: &mut Warp,
    regs: &[u64],
    ready_at: &mut u64,
    min_next: u64,
    min_reason: Reason,
) {
    w.pick = 0;
    w.renamed = false;
    w.refetch();
    let Some(ev) = w.ev() else {
        w.state = St::Exited;
        w.reason = Reason::Drain;
        *ready_at = w.leaves_at(min_next);
        return;
    };
    w.pc = ev.pc;
    let Some(si) = dec.get(ev.pc as usize) else {
        (*ready_at, w.reason) = (min_next, min_reason);
        return;
    };
    let (ready, reason) = deps(w, regs, si, srcs, w.cur, min_next, min_reason);
    (*ready_at, w.reason) = (ready, reason);
    if ready <= min_next
        || !matches!(
            si.class,
            Class::Int
                | Class::Fp32
                | Class::Fp64
                | Class::Slow
                | Class::Tensor
                | Class::SharedLd
                | Class::SharedSt
                | Class::ConstLd
                | Class::GlobalLd
                | Class::GlobalSt
        )
    {
        return;
    }
    // Registers written and read by the instructions passed over, as bit sets (registers
    // below 256).
    let mut written = [0u64; 4];
    let mut read = [0u64; 4];
    let mut shared_store = false;
    let mut global_store = false;
    let evs = &w.trace.warps[w.wi as usize].ev;
    let base = w.cur as usize;
    let mut prev = ev.pc as usize;
    for i in 1..window {
        if w.ahead & (1 << i) != 0 {
            continue;
        }
        let Some(pm) = masks.get(prev) else {
            return;
        };
        for k in 0..4 {
            written[k] |= pm.dst[k];
            read[k] |= pm.src[k];
        }
        match pm.class {
            Class::SharedSt => shared_store = true,
            Class::GlobalSt => global_store = true,
            _ => {}
        }
        let Some(&e) = evs.get(base + i as usize) else {
            return;
        };
        let Some(c) = masks.get(e.pc as usize) else {
            return;
        };
        match c.class {
            Class::Branch | Class::Barrier | Class::Exit | Class::Free => return,
            Class::SharedSt | Class::GlobalSt => {
                prev = e.pc as usize;
                continue;
            }
            Class::SharedLd if shared_store => {
                prev = e.pc as usize;
                continue;
            }
            Class::GlobalLd if global_store => {
                prev = e.pc as usize;
                continue;
            }
            _ => {}
        }
        let blocked = c.far || (0..4).any(|k| written[k] & c.src[k] != 0);
        if !blocked {
            let (r2, why2) = deps(
                w,
                regs,
                &dec[e.pc as usize],
                srcs,
                w.cur + i,
                min_next,
                min_reason,
            );
            if r2 < ready {
                w.renamed = (0..4).any(|k| (written[k] | read[k]) & c.dst[k] != 0);
                w.pick = i;
                w.pc = e.pc;
                w.next = e;
                (*ready_at, w.reason) = (r2, why2);
            }
            return;
        }
        prev = e.pc as usize;
    }
}

/// An instruction's registers as bit sets (registers below 256), for the look-ahead walk.
#[derive(Clone, Copy, Debug)]
pub(super) struct Masks {
    class: Class,
    /// Registers it writes.
    dst: [u64; 4],
    /// Registers it reads.
    src: [u64; 4],
    /// It reads or writes a register from 256 on (never hoisted).
    far: bool,
}

/// Each pc's [`Masks`].
pub(super) fn masks(dec: &[Dec], srcs: &[u32]) -> Vec<Masks> {
    dec.iter()
        .map(|d| {
            let mut m = Masks {
                class: d.class,
                dst: [0; 4],
                src: [0; 4],
                far: false,
            };
            let (r, n) = d.dst;
            m.far = r as usize + n as usize > 256;
            for k in r as usize..(r as usize + n as usize).min(256) {
                m.dst[k / 64] |= 1 << (k % 64);
            }
            for &k in &srcs[d.from as usize..(d.from + d.n) as usize] {
                if k >= 256 {
                    m.far = true;
                } else {
                    m.src[k as usize / 64] |= 1 << (k % 64);
                }
            }
            m
        })
        .collect()
}
