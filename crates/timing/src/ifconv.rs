//! Forward branches that ptxas if-converts (issue 38; D3 of
//! `calibration/probes/conflict_cost/DESIGN.md`): the short body of an `if` becomes predicated
//! instructions that every warp issues, its lanes off when none of them takes the body. On the
//! H200's SASS of the conflict-cost probes (CUDA 13.0) ptxas predicates bodies of 7 SASS
//! instructions (reduce1's) and branches over bodies of 12 (reduce1p's); a warp whose lanes all
//! skip a predicated body still issues it (reduce1's `LDS` executes 67,584 times in
//! `src_reduce1_b256_wave`, 12,672 with a lane on; the model's issued count was 0.61-0.81 of the
//! device's on every reduction, scan and tree, and the gap was those bodies, 99% of it).
//!
//! [`if_convert`] marks a PTX forward branch whose skipped range is short and simple; the
//! [`Recorder`](crate::Recorder) then issues the range's instructions, predicated off, for a
//! warp all of whose lanes jumped over it. Such an instruction is timed as issued (its pipe,
//! its result's latency: the scoreboard does not look at predicates); a predicated-off shared
//! access takes one wavefront of the shared pipe's time and counts none (the bank counts are
//! the executor's, of lanes that ran). A forward branch over an `if` body that stays a branch
//! is issued as ptxas compiles it, with its `BSSY` and `BSYNC` ([`if_convert`]'s D5).

use crate::trace::{Class, StaticInst};
use warpsim_kernel::ir::Inst;
use warpsim_kernel::Program;

/// Marks each forward `Branch` of `prog` whose skipped range (the instructions after it, up
/// to its target) ptxas would predicate: at most `max` issued instructions (0: none is
/// marked), none of them a branch, jump, barrier, exit or call, and every one an arithmetic or
/// shared-memory instruction (a range with a global, local or constant access, a tensor-core
/// or an asynchronous instruction is left a branch: the sampled timing's record of global
/// accesses stays the executor's). A marked branch's [`StaticInst::skip`] is its target. The
/// other forward branches over an `if` body issue `BSSY`, `BRA` and `BSYNC` (D5: appended to
/// `code` as the branch's [`StaticInst::pre`]).
pub fn if_convert(prog: &Program, code: &mut Vec<StaticInst>, max: u32) {
    predicate(prog, code, max);
    branches(prog, code);
}

/// Marks the bodies ptxas predicates ([`StaticInst::skip`]).
fn predicate(prog: &Program, code: &mut [StaticInst], max: u32) {
    if max == 0 {
        return;
    }
    for (pc, _, from, to) in forward_branches(prog) {
        let simple = |q: usize| {
            let plain = matches!(
                code[q].class,
                Class::Free
                    | Class::Int
                    | Class::Fp32
                    | Class::Fp64
                    | Class::Slow
                    | Class::SharedLd
                    | Class::SharedSt
            );
            let control = matches!(
                prog.code[q],
                Inst::Branch { .. }
                    | Inst::Jump { .. }
                    | Inst::Barrier
                    | Inst::Exit
                    | Inst::Ret
                    | Inst::SyncWarp { .. }
            );
            plain && !control && code[q].pre.is_none() && code[q].mark.is_none()
        };
        let issued = (from..to).filter(|&q| code[q].class != Class::Free).count();
        if issued as u32 <= max && (from..to).all(simple) {
            code[pc].skip = Some(to as u32);
        }
    }
}

/// The forward branches over an `if` body that stay branches (longer than
/// `compiler.if_convert`, or holding what warpsim does not predicate, a global store say):
/// ptxas compiles such an `if`, whose lanes may diverge, as `BSSY` (the reconvergence point),
/// the `BRA`, and `BSYNC` at the join, each issued by every warp that reaches the `if` (D5 of
/// `calibration/probes/conflict_cost/DESIGN.md`: reduce1p's branched body and the strided
/// trees' miss 3.3-3.7 issued instructions a warp and level on the H200; the classic Blelloch
/// scan with conflict-free offsets has a `BSSY`/`BSYNC` pair for each of its 15 branched
/// bodies; with them reduce1p at 132 blocks of 256 issues exactly the H200's 133,188, its
/// final `if (tid == 0)` global store included). The branch becomes a [`Class::Branch`]
/// (issued; the next instruction waits `branch_resolving`; nothing is hoisted past it) with
/// the other two as integer instructions issued just before it. Left as they were (not
/// issued): a branch to an `exit` or `ret` (`@P EXIT` in SASS) and a range with a loop, an
/// exit or a return in it.
fn branches(prog: &Program, code: &mut Vec<StaticInst>) {
    for (pc, c, from, to) in forward_branches(prog) {
        if matches!(prog.code.get(to), Some(Inst::Exit | Inst::Ret)) {
            continue;
        }
        let body = &prog.code[from..to];
        let if_body = body.iter().enumerate().all(|(k, i)| match *i {
            Inst::Branch { target, .. } | Inst::Jump { target } => target as usize > from + k,
            Inst::Exit | Inst::Ret => false,
            _ => true,
        });
        if !if_body || code[pc].skip.is_some() {
            continue;
        }
        let first = code.len() as u32;
        for _ in 0..2 {
            let mut a = StaticInst::new(Class::Int, None, &[]);
            a.serves = Some(pc as u32);
            code.push(a);
        }
        let b = &mut code[pc];
        b.class = Class::Branch;
        b.srcs = vec![(c, 1)];
        b.pre = Some((first, 2));
    }
}

/// Each forward `Branch` of `prog` over at least one instruction: its pc, its condition
/// register, and the range it skips (`from .. to`, `to` its target).
fn forward_branches(prog: &Program) -> impl Iterator<Item = (usize, u16, usize, usize)> + '_ {
    prog.code.iter().enumerate().filter_map(|(pc, i)| match *i {
        Inst::Branch { c, target, .. }
            if target as usize > pc + 1 && target as usize <= prog.code.len() =>
        {
            Some((pc, c.0, pc + 1, target as usize))
        }
        _ => None,
    })
}
