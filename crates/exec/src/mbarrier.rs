//! `mbarrier` (issue 41): transaction barriers in shared memory, as `cuda::barrier`,
//! `cuda::pipeline` and TMA use them. The barrier's state lives in its 8 shared bytes
//! ([`MbarState`]'s encoding), so it is per block, zero at launch and visible to any access.
//!
//! Active lanes act in lane order: an arrival that completes a phase (no arrivals and no
//! transaction bytes left) flips the phase and resets the pending count, and later lanes
//! arrive in the next phase. A wait whose phase is not complete for every active lane
//! *parks* the warp at the wait ([`State::Parked`]): the block runs the other warps and
//! retries it after a round in which some barrier changed (a suspended `try_wait` resumes
//! when its phase completes). A round in which nothing changed gives the parked waits their
//! time-out (they return false, as a `try_wait` past its time limit does); a second such
//! round is a deadlock: a fault naming the wait, never a hang.
//!
//! Race checking: completing a phase orders everything before it against everything after
//! it, as a barrier of the block does ([`crate::race`]); copies a `cp.async.mbarrier.arrive`
//! tracks are pending until the phase it arrived in completes ([`crate::race_async`]).

use super::block::{Ctx, State, Warp};
use super::fault::{Fault, FaultKind};
use super::warp::At;
use super::Lanes;
use std::ops::ControlFlow;
use warpsim_kernel::ir::{MbarKind, MbarOp, MbarState};

/// Runs `op` for the active lanes of warp `at.w`; breaks when the warp parks.
pub(super) fn run(
    cx: &mut Ctx,
    at: &mut At,
    warp: &mut Warp,
    op: &MbarOp,
    r: &mut [Lanes],
) -> Result<ControlFlow<()>, Fault> {
    let addrs = r[op.addr.0 as usize];
    let a = op.a.map(|a| r[a.0 as usize]);
    let a_hi =
        op.a.map(|a| r.get(a.0 as usize + 1).copied().unwrap_or([0; 32]));
    if let MbarKind::Wait { parity, block } = op.kind {
        return wait(cx, at, warp, op, &addrs, (a, a_hi), (parity, block), r);
    }
    let mut out = [[0u32; 32]; 2];
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let token = update(cx, at, l, addrs[l], op.kind, a.map_or(1, |a| a[l]))?;
        out[0][l] = token as u32;
        out[1][l] = (token >> 32) as u32;
    }
    if let (Some(d), MbarKind::Arrive { .. }) = (op.dst, op.kind) {
        crate::lanes::put(&mut r[d.0 as usize], out[0], at.active);
        if let Some(hi) = r.get_mut(d.0 as usize + 1) {
            crate::lanes::put(hi, out[1], at.active);
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// Lane `l`'s `kind` (not a wait) on the barrier at shared byte `addr`, with operand `arg`;
/// the state an arrive returns.
pub(super) fn update(
    cx: &mut Ctx,
    at: &At,
    l: usize,
    addr: u32,
    kind: MbarKind,
    arg: u32,
) -> Result<u64, Fault> {
    let mut s = load(cx, at, l, addr, kind != MbarKind::Init)?;
    let before = s;
    let mut token = 0;
    match kind {
        MbarKind::Init => {
            if arg == 0 || arg > MbarState::MAX {
                return Err(lane_fault(
                    cx,
                    at,
                    l,
                    format!("mbarrier.init with an expected count of {arg}"),
                    "the count must be from 1 to 2^20 - 1 (the block's threads that arrive)",
                ));
            }
            s = MbarState {
                pending: arg,
                expected: arg,
                tx: 0,
                phase: false,
            };
        }
        MbarKind::Arrive {
            drop,
            no_complete,
            tx,
        } => {
            let count = if tx { 1 } else { arg };
            if tx {
                s.tx = add_tx(cx, at, l, s.tx, arg as i64)?;
            }
            if count == 0 || count > s.pending {
                return Err(lane_fault(
                    cx,
                    at,
                    l,
                    format!(
                        "{count} arrival(s) at the mbarrier at shared byte {addr}, whose phase \
                         waits for {} more",
                        s.pending
                    ),
                    "a phase takes the count given to mbarrier.init: arrive no more often than \
                     that between two phases",
                ));
            }
            s.pending -= count;
            if drop {
                s.expected -= count.min(s.expected);
            }
            token = s.token();
            if no_complete && s.pending == 0 && s.tx == 0 {
                return Err(lane_fault(
                    cx,
                    at,
                    l,
                    format!(
                        "mbarrier.arrive.noComplete completes the phase of the mbarrier at shared \
                         byte {addr}"
                    ),
                    "a .noComplete arrival must leave the phase incomplete (PTX leaves the result \
                     undefined): arrive without .noComplete",
                ));
            }
        }
        MbarKind::ExpectTx => s.tx = add_tx(cx, at, l, s.tx, arg as i64)?,
        MbarKind::CompleteTx => s.tx = add_tx(cx, at, l, s.tx, -(arg as i64))?,
        MbarKind::Inval => s = MbarState::decode(0),
        MbarKind::AsyncArrive { noinc } => {
            if let Some(race) = cx.race.as_mut() {
                race.copies_arrive(at.w * 32 + l, addr, s.phase);
            }
            if noinc {
                if s.pending == 0 {
                    return Err(lane_fault(
                        cx,
                        at,
                        l,
                        format!(
                            "cp.async.mbarrier.arrive.noinc at the mbarrier at shared byte {addr}, \
                             whose phase waits for no more arrivals"
                        ),
                        "count these arrivals in the mbarrier.init count, or drop .noinc",
                    ));
                }
                s.pending -= 1;
            }
        }
        MbarKind::Wait { .. } => {}
    }
    if s.expected != 0 && s.pending == 0 && s.tx == 0 {
        // The phase completes.
        if let Some(race) = cx.race.as_mut() {
            race.phase_complete(addr, s.phase);
        }
        s.phase = !s.phase;
        s.pending = s.expected;
    }
    if s != before {
        store(cx, addr, s);
        cx.mbar_changes += 1;
    }
    Ok(token)
}

/// The current phase's parity of the (initialised) barrier at `addr`.
pub(super) fn phase(cx: &Ctx, at: &At, l: usize, addr: u32) -> Result<bool, Fault> {
    Ok(load(cx, at, l, addr, true)?.phase)
}

/// `try_wait`/`test_wait`: writes whether each lane's phase is complete, or parks the warp.
#[allow(clippy::too_many_arguments)]
fn wait(
    cx: &mut Ctx,
    at: &mut At,
    warp: &mut Warp,
    op: &MbarOp,
    addrs: &Lanes,
    (a, a_hi): (Option<Lanes>, Option<Lanes>),
    (parity, block): (bool, bool),
    r: &mut [Lanes],
) -> Result<ControlFlow<()>, Fault> {
    let mut done = [0u32; 32];
    let mut all = true;
    let mut first = None;
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let s = load(cx, at, l, addrs[l], true)?;
        // The phase named: a parity, or the phase bit of an arrive's state.
        let named = if parity {
            a.is_some_and(|a| a[l] & 1 == 1)
        } else {
            a_hi.is_some_and(|h| h[l] >> 31 == 1)
        };
        done[l] = (s.phase != named) as u32;
        all &= done[l] == 1;
        if done[l] == 0 {
            first.get_or_insert(addrs[l]);
        }
    }
    if !all && (!warp.timed_out || block) {
        warp.state = State::Parked;
        warp.barrier_pc = at.pc;
        warp.waits_on = first.unwrap_or(0);
        at.next = at.pc;
        return Ok(ControlFlow::Break(()));
    }
    warp.timed_out = false;
    if let Some(d) = op.dst {
        crate::lanes::put(&mut r[d.0 as usize], done, at.active);
    }
    Ok(ControlFlow::Continue(()))
}

/// Adds `n` to a transaction count, within PTX's range.
fn add_tx(cx: &Ctx, at: &At, l: usize, tx: i32, n: i64) -> Result<i32, Fault> {
    let v = tx as i64 + n;
    if v.unsigned_abs() > MbarState::MAX as u64 {
        return Err(lane_fault(
            cx,
            at,
            l,
            format!("an mbarrier's transaction count reaches {v}"),
            "a phase's expected and completed transaction bytes must each stay below 2^20",
        ));
    }
    Ok(v as i32)
}

/// The barrier at shared byte `addr` (`used`: it must have been initialised).
fn load(cx: &Ctx, at: &At, l: usize, addr: u32, used: bool) -> Result<MbarState, Fault> {
    let end = super::tensor_exec::shared_end(cx);
    if !addr.is_multiple_of(8) || addr as u64 + 8 > end as u64 {
        let kind = if !addr.is_multiple_of(8) {
            FaultKind::Misaligned {
                width: 8,
                access: format!("the mbarrier of `{}`", cx.text(at.pc)),
                byte: addr as u64,
                memory: "shared memory".into(),
            }
        } else {
            FaultKind::OutOfBounds {
                global: false,
                access: format!("the mbarrier at shared byte {addr} of `{}`", cx.text(at.pc)),
                bounds: format!("the block's {end} bytes of shared memory"),
            }
        };
        return Err(cx.lane_fault(at.pc, at.w, l as u32, kind, None));
    }
    let w = (addr / 4) as usize;
    let s = MbarState::decode(cx.shared[w] as u64 | (cx.shared[w + 1] as u64) << 32);
    if used && s.expected == 0 {
        return Err(lane_fault(
            cx,
            at,
            l,
            format!("the mbarrier at shared byte {addr} is used before mbarrier.init"),
            "initialise it (mbarrier.init, cuda::barrier's init) and order that before its use \
             (a barrier of the block, or fence.mbarrier_init)",
        ));
    }
    Ok(s)
}

fn store(cx: &mut Ctx, addr: u32, s: MbarState) {
    let (w, v) = ((addr / 4) as usize, s.encode());
    cx.shared[w] = v as u32;
    cx.shared[w + 1] = (v >> 32) as u32;
}

#[cold]
fn lane_fault(cx: &Ctx, at: &At, l: usize, what: String, help: &str) -> Fault {
    cx.lane_fault(
        at.pc,
        at.w,
        l as u32,
        FaultKind::Mbarrier(what),
        Some(help.into()),
    )
}

/// The fault of a block whose parked waits can no longer complete: no barrier changed in two
/// rounds (the second after giving the waits their time-out).
#[cold]
pub(super) fn deadlock(cx: &Ctx, warps: &[Warp]) -> Fault {
    let parked: Vec<usize> = (0..warps.len())
        .filter(|&w| warps[w].state == State::Parked)
        .collect();
    let waiting = warps.iter().filter(|w| w.state == State::Waiting).count();
    let first = &warps[parked[0]];
    let also = if waiting > 0 {
        format!("; {waiting} warp(s) wait at a barrier of the block")
    } else {
        String::new()
    };
    // The barrier the first parked warp waits on, and where its phase stands.
    let addr = first.waits_on;
    let w = (addr / 4) as usize;
    let state = match (cx.shared.get(w), cx.shared.get(w + 1)) {
        (Some(&lo), Some(&hi)) => {
            let s = MbarState::decode(lo as u64 | (hi as u64) << 32);
            // (A RON array's element; a PTX variable and the byte in it: its views are words.)
            let name = crate::race::locate(cx.prog, addr / 4).and_then(|(k, idx)| {
                let v = cx.prog.shared.get(k)?;
                Some(match cx.prog.shared_stream {
                    Some(_) if addr > v.base => format!(" (`{}` + {})", v.name, addr - v.base),
                    Some(_) => format!(" (`{}`)", v.name),
                    None => {
                        let idx: Vec<String> = idx.iter().map(|i| format!("[{i}]")).collect();
                        format!(" (`{}{}`)", v.name, idx.concat())
                    }
                })
            });
            format!(
                ": the mbarrier at shared byte {addr}{} is in a phase of parity {}, waiting for \
                 {} of its {} arrivals and {} transaction bytes",
                name.unwrap_or_default(),
                s.phase as u8,
                s.pending,
                s.expected,
                s.tx.max(0)
            )
        }
        _ => String::new(),
    };
    cx.fault(
        first.barrier_pc,
        FaultKind::Mbarrier(format!(
            "mbarrier wait that can never complete: {} warp(s) wait for a phase that no \
             remaining arrival or transaction completes{state}{also}",
            parked.len()
        )),
        Some(
            "each phase completes when as many threads arrive as mbarrier.init counted and the \
             expected transaction bytes have arrived: check the init count, the arrivals and \
             the expect_tx bytes"
                .into(),
        ),
    )
}
