//! Handlers for narrow data: half-precision arithmetic ([`Inst::Half`](warpsim_kernel::ir::Inst::Half))
//! and the data movement of 1- and 2-byte loads and stores (shared and global). Pricing,
//! address checks and the race shadow stay with the other accesses in [`memory`](super::memory):
//! a narrow shared access is priced there with its byte addresses and width (1, 2, or the
//! vector's 4, 8 or 16 bytes), then its bytes move here.
//!
//! Memory holds narrow elements packed little-endian ([`warpsim_kernel::narrow`]); registers hold one
//! element each, widened (`u8`/`u16` zero-extended, `i8`/`i16` sign-extended, halves as their
//! 16 bits).

use super::block::Ctx;
use super::fault::{global_fault, Fault};
use super::lanes::{per_lane, put};
use super::warp::At;
use super::Lanes;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use warpsim_kernel::fp16::{Half, HalfOp};
use warpsim_kernel::ir::{Mem, Reg};
use warpsim_kernel::narrow;
use warpsim_kernel::Elem;

/// `Half`: `dst = a op b` (or `fma(a, b, c)`) on halves of format `fmt`, per lane.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn half(
    r: &mut [Lanes],
    at: &At,
    op: HalfOp,
    fmt: Half,
    dst: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
) {
    let (xs, ys, zs) = (r[a.0 as usize], r[b.0 as usize], r[c.0 as usize]);
    let v: Lanes = per_lane(|l| fmt.arith(op, xs[l] as u16, ys[l] as u16, zs[l] as u16) as u32);
    put(&mut r[dst.0 as usize], v, at.active);
}

/// Moves the data of a narrow shared access whose addresses have been checked and priced:
/// lane `l`'s `regs.len()` elements of `elem` start at byte `addrs[l]`. Stores go lane by lane
/// in order (of several lanes storing to one byte, the highest wins, as for wider stores).
pub(super) fn shared_move(
    shared: &mut [u32],
    regs: &mut [Lanes],
    addrs: &Lanes,
    active: u32,
    elem: Elem,
    store: bool,
) {
    let eb = elem.bytes();
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        for (k, reg) in regs.iter_mut().enumerate() {
            let byte = addrs[l] as u64 + (k as u32 * eb) as u64;
            if store {
                narrow::set(shared, eb, byte, reg[l]);
            } else if let Some(bits) = narrow::get(shared, eb, byte) {
                reg[l] = narrow::widen(elem, bits);
            }
        }
    }
}

/// A narrow global access: each active lane's index is checked (in bounds, aligned to the
/// vector), then its elements move. A store changes only its own bytes of a word, with atomic
/// bit operations, so that blocks running in parallel on other threads that store the other
/// bytes of the word do not undo it.
pub(super) fn global_access(
    cx: &mut Ctx,
    pc: usize,
    w: usize,
    m: &Mem,
    store: bool,
    active: u32,
    r: &mut [Lanes],
) -> Result<(), Fault> {
    let b = &cx.prog.buffers[m.array as usize];
    let mem: &[AtomicU32] = &cx.global.buffers[m.array as usize];
    let vec = m.vec as u64;
    let ix = r[m.idx[0].0 as usize];
    let lim = b.len.saturating_sub(vec - 1);
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros();
        lanes &= lanes - 1;
        let i = ix[l as usize] as u64;
        if i >= lim || !i.is_multiple_of(vec) {
            return Err(global_fault(cx, pc, w, *m, l, r));
        }
    }
    let eb = b.elem.bytes();
    let data = m.data.0 as usize;
    let mut lanes = active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        for k in 0..vec as usize {
            let byte = (ix[l] as u64 + k as u64) * eb as u64;
            global_move(mem, b.elem, byte, store, &mut r[data + k][l]);
        }
    }
    Ok(())
}

/// Moves one narrow element of `elem` at byte `byte` of a buffer's words `mem` to or from
/// `reg` (nothing past the end). A store changes only its own bytes of the word, with atomic
/// bit operations (see [`global_access`]).
#[inline]
pub(super) fn global_move(mem: &[AtomicU32], elem: Elem, byte: u64, store: bool, reg: &mut u32) {
    let Some(word) = mem.get((byte / 4) as usize) else {
        return;
    };
    let shift = (byte % 4) * 8;
    let mask = narrow::mask(elem.bytes()) << shift;
    if store {
        let bits = (*reg << shift) & mask;
        word.fetch_and(!mask | bits, Relaxed);
        word.fetch_or(bits, Relaxed);
    } else {
        let bits = (word.load(Relaxed) & mask) >> shift;
        *reg = narrow::widen(elem, bits);
    }
}
