//! The warp loop: runs one warp until it reaches a barrier or exits, dispatching once per warp
//! instruction to the handlers in [`arith`](super::arith), [`flow`](super::flow) and
//! [`memory`](super::memory), which loop over the 32 lanes.

use super::api::PcStats;
use super::arith::{self, div_pow2};
use super::block::{Ctx, Frame, Warp};
use super::fault::{self, Fault};
use super::hook::Hook;
use super::{atomic, branch, flow, jump, memory, narrow, tensor_exec, warpops, wide, Lanes};
use std::ops::ControlFlow;
use warpsim_kernel::ir::{Inst, Space};

/// Where a running warp is: the loop's copy of the warp's control state, and the block's
/// counters. The handlers read and move it.
pub(super) struct At {
    /// The warp (its index in the block).
    pub(super) w: usize,
    /// The instruction being executed.
    pub(super) pc: usize,
    /// The instruction to execute next: `pc + 1` unless a handler jumps.
    pub(super) next: usize,
    /// The active mask.
    pub(super) active: u32,
    /// Reconvergence frames in use.
    pub(super) sp: usize,
    /// Warp instructions the block has executed.
    pub(super) steps: u64,
    /// The step count past which the next backward jump or barrier looks at the clock of the
    /// block: [`Config::max_steps`](super::Config::max_steps), or sooner when a progress
    /// callback wants to hear how far the block got ([`super::flow::checkpoint`]).
    pub(super) check_at: u64,
    /// The step count past which a jump ends the warp's turn ([`TURN_STEPS`] after it began).
    pub(super) turn_end: u64,
}

/// Runs warp `w` until it reaches a barrier or exits.
///
/// The interpreter is compiled twice: for baseline x86-64 and, chosen at run time on CPUs
/// that have them, with AVX2 and FMA (its 32-lane loops take half the instructions). Both
/// compute exactly the same results (FMA rounds once either way; see [`arith::fma_f32`]).
pub(super) fn run_warp<H: Hook>(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
    hook: &mut H,
) -> Result<(), Fault> {
    #[cfg(target_arch = "x86_64")]
    if has_v3() {
        // SAFETY: the CPU has every feature that `run_warp_v3` enables (checked just above).
        return unsafe { run_warp_v3(cx, w, warp, r, frames, hook) };
    }
    run_warp_in::<false, H>(cx, w, warp, r, frames, hook)
}

/// Whether the CPU has what [`run_warp_v3`] is compiled for (std caches the answer).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_v3() -> bool {
    #[cfg(test)]
    if super::tests::BASELINE_ONLY.with(|b| b.get()) {
        return false;
    }
    std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("popcnt")
        && std::is_x86_feature_detected!("lzcnt")
}

/// [`run_warp_in`] compiled for x86-64-v3 (AVX2, FMA, BMI, POPCNT, LZCNT).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,bmi1,bmi2,popcnt,lzcnt")]
fn run_warp_v3<H: Hook>(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
    hook: &mut H,
) -> Result<(), Fault> {
    run_warp_in::<true, H>(cx, w, warp, r, frames, hook)
}
/// [`run_warp`]; `V3`: the code is compiled for x86-64-v3 (so `mul_add` is one FMA
/// instruction, and AVX2 gathers are there), in [`run_warp_v3`].
#[inline(always)]
fn run_warp_in<const V3: bool, H: Hook>(
    cx: &mut Ctx,
    w: usize,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
    hook: &mut H,
) -> Result<(), Fault> {
    // The per-pc counters, out of `cx` while the warp runs.
    let per_pc = std::mem::take(&mut cx.per_pc);
    let mut at = At {
        w,
        pc: warp.pc,
        next: warp.pc,
        active: warp.active,
        sp: warp.sp,
        steps: cx.steps,
        check_at: cx.check_at,
        turn_end: cx.steps + cx.turn_steps,
    };
    let result = warp_loop::<V3, H>(cx, &mut at, warp, r, frames, per_pc, hook);
    warp.pc = at.next;
    warp.active = at.active;
    warp.sp = at.sp;
    cx.steps = at.steps;
    cx.check_at = at.check_at;
    cx.per_pc = per_pc;
    result
}

/// The warp loop: fetches, counts and dispatches one warp instruction after the other until
/// the warp waits at a barrier, exits or faults.
///
/// `per_pc` is as long as the code (the executor made it so), so that indexing it by a valid
/// pc needs no check.
#[inline(always)]
fn warp_loop<const V3: bool, H: Hook>(
    cx: &mut Ctx,
    at: &mut At,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
    per_pc: &mut [PcStats],
    hook: &mut H,
) -> Result<(), Fault> {
    let ncode = cx.prog.code.len().min(per_pc.len());
    let code = &cx.prog.code[..ncode];
    let pcs = &mut per_pc[..ncode];
    let mut counted = at.active;
    let mut n = counted.count_ones() as u64;
    // Thread instructions (active lanes summed), added to the block's at the end.
    let mut lanes = 0;
    let result = loop {
        let pc = at.next;
        let Some(ip) = code.get(pc) else {
            break Err(fault::ran_past_end(cx, pc, code.len()));
        };
        at.pc = pc;
        at.next = pc + 1;
        if at.active != counted {
            // (The mask changes only at control flow; a popcount is a dozen instructions
            // on baseline x86-64.)
            counted = at.active;
            n = counted.count_ones() as u64;
        }
        let ps = &mut pcs[pc];
        ps.executions += 1;
        ps.lanes += n;
        at.steps += 1;
        lanes += n;
        // Issued: `at.pc`, `ip` and `at.active` are this warp instruction's. (The one place for a
        // per-instruction observer: after `execute`, `ps` holds its shared wavefronts and
        // conflicts, `warp.state` says whether it waits at a barrier or exited, `at.next` is
        // where it goes.)
        let before = if H::ON {
            observe_issue(cx, at, r, ip, ps, hook)
        } else {
            None
        };
        let step = execute::<V3>(cx, at, warp, r, frames, ip, ps);
        if let (Some((w0, c0)), Ok(_)) = (before, &step) {
            let (w, c) = ((ps.wavefronts - w0) as u32, (ps.conflicts - c0) as u32);
            hook.shared(at.w, w, w - c);
        }
        match step {
            Ok(ControlFlow::Continue(())) => {}
            Ok(ControlFlow::Break(())) => break Ok(()),
            Err(f) => break Err(f),
        }
    };
    cx.lanes += lanes;
    result
}

/// Tells `hook` that warp `at.w` issues `ip`, and for a global access which elements its
/// lanes touch. For a shared access, gives the counters before it, so that the caller can tell
/// the hook what the access cost once it ran.
#[inline]
fn observe_issue<H: Hook>(
    cx: &Ctx,
    at: &At,
    r: &[Lanes],
    ip: &Inst,
    ps: &PcStats,
    hook: &mut H,
) -> Option<(u64, u64)> {
    hook.inst(at.w, at.pc);
    let m = match *ip {
        Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } => m,
        Inst::Matrix(_) => return Some((ps.wavefronts, ps.conflicts)),
        Inst::CpAsync(op) => {
            // The global source (the shared side's wavefronts are not told: the timing model
            // prices the copy as a global load, see `timing/trace.rs`).
            let (k, idx) = tensor_exec::copy_indices(cx, &op, r, at.active);
            hook.global(at.w, k, &idx, op.width as u32, at.active);
            return None;
        }
        _ => return None,
    };
    if m.space == Space::Shared {
        return Some((ps.wavefronts, ps.conflicts));
    }
    if m.space == Space::Const {
        // An `LDC`: the timing model wants its distinct addresses, not its sectors.
        let (offsets, n) = super::bytes::const_distinct(&m, r, at.active);
        hook.constant(at.w, m.array, &offsets[..n]);
        return None;
    }
    if m.space == Space::Local {
        let (offsets, bytes) = super::local::offsets(cx, &m, r);
        hook.local(at.w, &offsets, bytes, at.active);
        return None;
    }
    if m.byte_addressed() {
        let (k, idx, bytes) = super::bytes::global_lanes(cx, &m, r, at.active);
        hook.global(at.w, k, &idx, bytes, at.active);
        return None;
    }
    let elem = cx
        .prog
        .buffers
        .get(m.array as usize)
        .map_or(4, |b| b.elem.bytes());
    if let Some(idx) = r.get(m.idx[0].0 as usize) {
        hook.global(at.w, m.array, idx, elem * m.vec as u32, at.active);
    }
    None
}

/// After a jump: whether the warp's turn is over (it has run [`TURN_STEPS`], or
/// [`SHORT_TURN_STEPS`], warp instructions since it got the block and jumped back: it lets the
/// others run, as the GPU's warps interleave, so a warp that spins on memory another warp
/// writes sees the write).
#[inline(always)]
fn turn(at: &At) -> ControlFlow<()> {
    if at.steps > at.turn_end {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// Warp instructions a warp runs in one turn before a backward jump hands the block to the
/// next warp (long: turns only matter to warps that wait for each other through memory, and a
/// block none of whose warps runs this long between barriers runs as if there were no turns).
pub(super) const TURN_STEPS: u64 = 1 << 12;

/// A turn's length once a warp of the block has used a whole one: it is most likely
/// spinning on what another warp writes (cooperative groups' multi-warp tiles, flags), and
/// each turn it spins is instructions the hardware, whose warps interleave, does not run.
pub(super) const SHORT_TURN_STEPS: u64 = 1 << 7;

/// Executes instruction `ip` (at `at.pc`) for the active lanes of the warp: one arm per kind
/// of instruction, each one call to its handler. Breaks when the warp stops running (a
/// barrier or `Exit`).
///
/// `ip` is where the instruction lies in the code: a load or store reads its operand there,
/// not from the copy made for the dispatch (fewer stack round trips, which once stalled on
/// store forwarding).
#[inline(always)]
fn execute<const V3: bool>(
    cx: &mut Ctx,
    at: &mut At,
    warp: &mut Warp,
    r: &mut [Lanes],
    frames: &mut [Frame],
    ip: &Inst,
    ps: &mut PcStats,
) -> Result<ControlFlow<()>, Fault> {
    use Inst::*;
    let inst = *ip;
    match inst {
        Mov { dst, a } => arith::mov(r, at, dst, a),
        Mov64 { dst, a } => arith::mov64(r, at, dst, a),
        Select { dst, c, a, b } => arith::select(r, at, dst, c, a, b),
        Select64 { dst, c, a, b } => arith::select64(r, at, dst, c, a, b),

        Add { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x.wrapping_add(y)),
        Sub { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x.wrapping_sub(y)),
        Mul { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x.wrapping_mul(y)),
        DivS { dst, a, b } => arith::divide(cx, at, r, (dst, a, b), false, |x, y| {
            if y == 0 {
                0
            } else {
                (x as i32).wrapping_div(y as i32) as u32
            }
        })?,
        DivU { dst, a, b } => arith::divide(cx, at, r, (dst, a, b), false, |x, y| {
            x.checked_div(y).unwrap_or(0)
        })?,
        RemS { dst, a, b } => arith::divide(cx, at, r, (dst, a, b), true, |x, y| {
            if y == 0 {
                0
            } else {
                (x as i32).wrapping_rem(y as i32) as u32
            }
        })?,
        RemU { dst, a, b } => arith::divide(cx, at, r, (dst, a, b), true, |x, y| {
            x.checked_rem(y).unwrap_or(0)
        })?,
        And { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x & y),
        Or { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x | y),
        Xor { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x ^ y),
        Shl { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| if y < 32 { x << y } else { 0 }),
        ShrS { dst, a, b } => {
            arith::int2(r, at, dst, a, b, |x, y| ((x as i32) >> y.min(31)) as u32)
        }
        ShrU { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| if y < 32 { x >> y } else { 0 }),
        MinS { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x as i32).min(y as i32) as u32),
        MinU { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x.min(y)),
        MaxS { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x as i32).max(y as i32) as u32),
        MaxU { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| x.max(y)),
        Eq { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x == y) as u32),
        Ne { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x != y) as u32),
        LtS { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| ((x as i32) < (y as i32)) as u32),
        LtU { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x < y) as u32),
        LeS { dst, a, b } => {
            arith::int2(r, at, dst, a, b, |x, y| ((x as i32) <= (y as i32)) as u32)
        }
        LeU { dst, a, b } => arith::int2(r, at, dst, a, b, |x, y| (x <= y) as u32),
        Neg { dst, a } => arith::int1(r, at, dst, a, |x| x.wrapping_neg()),
        Not { dst, a } => arith::int1(r, at, dst, a, |x| !x),
        AbsS { dst, a } => arith::int1(r, at, dst, a, |x| (x as i32).wrapping_abs() as u32),
        Mad { dst, a, b, c } => arith::mad(r, at, dst, a, b, c),
        DivS2 { dst, a, k } => arith::int1(r, at, dst, a, |x| div_pow2(x, k) as u32),
        RemS2 { dst, a, k } => arith::int1(r, at, dst, a, |x| {
            (x as i32).wrapping_sub(div_pow2(x, k) << k) as u32
        }),

        FAdd { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x + y).to_bits()),
        FSub { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x - y).to_bits()),
        FMul { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x * y).to_bits()),
        FDiv { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x / y).to_bits()),
        FRem { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x % y).to_bits()),
        FMin { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| x.min(y).to_bits()),
        FMax { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| x.max(y).to_bits()),
        FEq { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x == y) as u32),
        FNe { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x != y) as u32),
        FLt { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x < y) as u32),
        FLe { dst, a, b } => arith::f32_2(r, at, dst, a, b, |x, y| (x <= y) as u32),
        FNeg { dst, a } => arith::f32_1(r, at, dst, a, |x| -x),
        FAbs { dst, a } => arith::f32_1(r, at, dst, a, |x| x.abs()),
        FSqrt { dst, a } => arith::f32_1(r, at, dst, a, |x| x.sqrt()),
        FFma { dst, a, b, c } => arith::ffma::<V3>(r, at, dst, a, b, c),

        DAdd { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x + y),
        DSub { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x - y),
        DMul { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x * y),
        DDiv { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x / y),
        DRem { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x % y),
        DMin { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x.min(y)),
        DMax { dst, a, b } => arith::f64_2(r, at, dst, a, b, |x, y| x.max(y)),
        DEq { dst, a, b } => arith::f64_cmp(r, at, dst, a, b, |x, y| x == y),
        DNe { dst, a, b } => arith::f64_cmp(r, at, dst, a, b, |x, y| x != y),
        DLt { dst, a, b } => arith::f64_cmp(r, at, dst, a, b, |x, y| x < y),
        DLe { dst, a, b } => arith::f64_cmp(r, at, dst, a, b, |x, y| x <= y),
        DNeg { dst, a } => arith::f64_1(r, at, dst, a, |x| -x),
        DAbs { dst, a } => arith::f64_1(r, at, dst, a, |x| x.abs()),
        DSqrt { dst, a } => arith::f64_1(r, at, dst, a, |x| x.sqrt()),
        DFma { dst, a, b, c } => arith::dfma(r, at, dst, a, b, c),
        FExp { dst, a } => arith::f32_1(r, at, dst, a, |x| x.exp()),
        DExp { dst, a } => arith::f64_1(r, at, dst, a, |x| x.exp()),
        Popc { dst, a } => arith::int1(r, at, dst, a, |x| x.count_ones()),
        Ptx { op, dst, a, b, c } => arith::ptx(r, at, op, dst, a, b, c),
        Bits {
            op,
            dst,
            a,
            b,
            c,
            d,
        } => wide::bits(r, at, op, dst, [a, b, c, d]),

        Cvt { dst, a, from, to } => arith::cvt(r, dst, a, from, to, at.active),

        Half {
            op,
            fmt,
            dst,
            a,
            b,
            c,
        } => narrow::half(r, at, op, fmt, dst, a, b, c),

        Load(_) | Store(_) => memory::load_store::<V3>(cx, at, ip, r, ps)?,
        Atomic { m, op } => atomic::atomic(cx, at, &m, op, r, ps)?,

        If { c, else_pc, .. } => flow::branch(cx, at, frames, r, c, else_pc)?,
        Else { end_pc } => flow::other_side(cx, at, frames, end_pc)?,
        EndIf | LoopEnd => flow::reconverge(cx, at, frames, inst)?,
        LoopStart => flow::loop_start(cx, at, frames)?,
        LoopTest { c, exit_pc } => flow::loop_test(cx, at, frames, r, c, exit_pc)?,
        LoopBack { head_pc } => return flow::loop_back(cx, at, head_pc).map(|_| turn(at)),
        ForTest {
            a,
            b,
            signed,
            exit_pc,
        } => flow::for_test(cx, at, frames, flow::below(r, a, b, signed), exit_pc)?,
        ForNext { var, step, head_pc } => {
            flow::for_next(cx, at, r, (var, step), head_pc)?;
            return Ok(turn(at));
        }
        Barrier => return flow::barrier(cx, at, warp).map(ControlFlow::Break),
        BarrierRed { a, .. } => {
            flow::barrier(cx, at, warp)?;
            cx.bar_red.add(&r[a.0 as usize], at.active);
            return Ok(ControlFlow::Break(()));
        }
        Printf { dst, args, fmt } => crate::printf::run(cx, at, r, dst, args, fmt)?,
        Clock { dst, wide } => {
            let v = at.steps;
            super::lanes::put(&mut r[dst.0 as usize], [v as u32; 32], at.active);
            if wide {
                super::lanes::put(
                    &mut r[dst.0 as usize + 1],
                    [(v >> 32) as u32; 32],
                    at.active,
                );
            }
        }
        Trap { brkpt } => {
            let lane = at.active.trailing_zeros() & 31;
            return Err(super::fault::trap(cx, at.pc, at.w, lane, brkpt));
        }
        Exit => return flow::exit(at, warp).map(ControlFlow::Break),
        Shfl { .. }
        | ShflC { .. }
        | Redux { .. }
        | Match { .. }
        | Vote { .. }
        | ActiveMask { .. }
        | SyncWarp { .. } => warpops::execute(cx, at, warp.live, r, inst, ps)?,

        Break { n } => return jump::leave(cx, at, warp, frames, jump::How::Break, n),
        Continue { n } => return jump::leave(cx, at, warp, frames, jump::How::Continue, n),
        Return { n } => return jump::leave(cx, at, warp, frames, jump::How::Return, n),
        LoopJoin => jump::join(cx, at, frames)?,
        Scope { .. } => return Err(jump::stray_scope(cx, at)),
        Add64 { dst, a, b } => wide::arith64(r, at, dst, a, b, |x, y| x.wrapping_add(y)),
        Sub64 { dst, a, b } => wide::arith64(r, at, dst, a, b, |x, y| x.wrapping_sub(y)),
        Mul64 { dst, a, b } => wide::arith64(r, at, dst, a, b, |x, y| x.wrapping_mul(y)),
        MulWide { dst, a, b, signed } => wide::mul_wide(r, at, dst, a, b, signed),
        Shl64 { dst, a, b } => {
            wide::shift64(r, at, dst, a, b, |x, y| x.checked_shl(y).unwrap_or(0))
        }
        Shr64 {
            dst,
            a,
            b,
            signed: false,
        } => wide::shift64(r, at, dst, a, b, |x, y| x.checked_shr(y).unwrap_or(0)),
        Shr64 {
            dst,
            a,
            b,
            signed: true,
        } => wide::shift64(r, at, dst, a, b, |x, y| ((x as i64) >> y.min(63)) as u64),
        Ext64 { dst, a, signed } => wide::extend(r, at, dst, a, signed),
        Int64 { op, dst, a, b } => wide::int64(cx, at, r, op, (dst, a, b))?,
        Cmp64 { cmp, dst, a, b } => wide::cmp64(r, at, cmp, (dst, a, b)),
        Cvt64 {
            dst,
            a,
            float,
            signed,
            to_int,
        } => wide::cvt64(r, at, (dst, a), float, signed, to_int),
        Branch {
            c,
            neg,
            target,
            join,
        } => {
            branch::branch(cx, at, frames, r, (c, neg), target, join)?;
            return Ok(turn(at));
        }
        Jump { target } => return branch::jump(cx, at, target).map(|_| turn(at)),
        Join => branch::join(at, frames),
        Ret => return Ok(branch::ret(at, warp, frames)),
        Matrix(op) => tensor_exec::matrix(cx, at, &op, r, ps)?,
        CpAsync(op) => tensor_exec::cp_async(cx, at, &op, r, ps)?,
        AsyncCommit => tensor_exec::group(cx, at, None),
        AsyncWait { n, all } => tensor_exec::group(cx, at, Some((n, all))),
        Mma { op } => crate::mma::mma(cx, at, op, r)?,
        Wgmma { op } => crate::wgmma::wgmma(cx, at, op, r, ps)?,
        FenceProxyAsync => {
            if let Some(race) = cx.race.as_mut() {
                race.proxy_fence(at.w, at.active);
            }
        }
        Mbar(op) => return crate::mbarrier::run(cx, at, warp, &op, r),
        Bulk(op) => crate::bulk::copy(cx, at, &op, r)?,
        BulkTensor(op) => crate::bulk::tensor(cx, at, &op, r)?,
        AddrOf(m) => memory::address_of(cx, at, &m, r)?,
        FragAddr {
            dst,
            base,
            stride,
            at: f,
            wide,
        } => tensor_exec::frag_addr(r, at, (dst, base, stride), f, wide),
    }
    Ok(ControlFlow::Continue(()))
}
