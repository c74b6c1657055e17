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
        &cx.dec, &cx.srcs, window, w, regs, ready_at, min_next, min_reason,
    );
    w.nx = (min_next, min_reason, *ready_at);
}

#[allow(clippy::too_many_arguments)]
#[inline]
fn choose(
    dec: &[Dec],
    srcs: &[u32],
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
    // The instructions passed over (their pcs), whose registers a candidate is checked
    // against (the window is at most 64: `Compiler::hoist_window`).
    let mut passed = [0u32; 64];
    let mut np = 0;
    let mut shared_store = false;
    let mut global_store = false;
    let evs = &w.trace.warps[w.wi as usize].ev;
    let base = w.cur as usize;
    let mut prev = ev.pc as usize;
    for i in 1..window.min(64) {
        if w.ahead & (1 << i) != 0 {
            continue;
        }
        let Some(pd) = dec.get(prev) else {
            return;
        };
        passed[np] = prev as u32;
        np += 1;
        match pd.class {
            Class::SharedSt => shared_store = true,
            Class::GlobalSt => global_store = true,
            _ => {}
        }
        let Some(&e) = evs.get(base + i as usize) else {
            return;
        };
        let Some(c) = dec.get(e.pc as usize) else {
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
        let passed = &passed[..np];
        let c_srcs = &srcs[c.from as usize..(c.from + c.n) as usize];
        let blocked = passed
            .iter()
            .any(|&p| c_srcs.iter().any(|&k| writes(&dec[p as usize], k)));
        if !blocked {
            let (r2, why2) = deps(w, regs, c, srcs, w.cur + i, min_next, min_reason);
            if r2 < ready {
                // It writes a register an instruction passed over reads or writes.
                w.renamed = c.dst.1 > 0
                    && passed.iter().any(|&p| {
                        let pd = &dec[p as usize];
                        let p_srcs = &srcs[pd.from as usize..(pd.from + pd.n) as usize];
                        (c.dst.0..c.dst.0 + c.dst.1 as u16)
                            .any(|k| writes(pd, k as u32) || p_srcs.contains(&(k as u32)))
                    });
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

/// Whether `d` writes register `k`.
#[inline]
fn writes(d: &Dec, k: u32) -> bool {
    let (r, n) = (d.dst.0 as u32, d.dst.1 as u32);
    k >= r && k < r + n
}
