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
//! the executor's, of lanes that ran).

use crate::trace::{Class, StaticInst};
use warpsim_kernel::ir::Inst;
use warpsim_kernel::Program;

/// Marks each forward `Branch` of `prog` whose skipped range (the instructions after it, up
/// to its target) ptxas would predicate: at most `max` issued instructions (0: none is
/// marked), none of them a branch, jump, barrier, exit or call, and every one an arithmetic or
/// shared-memory instruction (a range with a global, local or constant access, a tensor-core
/// or an asynchronous instruction is left a branch: the sampled timing's record of global
/// accesses stays the executor's). A marked branch's [`StaticInst::skip`] is its target.
pub fn if_convert(prog: &Program, code: &mut [StaticInst], max: u32) {
    if max == 0 {
        return;
    }
    for pc in 0..prog.code.len().min(code.len()) {
        let Inst::Branch { target, .. } = prog.code[pc] else {
            continue;
        };
        let (from, to) = (pc + 1, target as usize);
        if to <= from || to > code.len() {
            continue;
        }
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
            code[pc].skip = Some(target);
        }
    }
}
