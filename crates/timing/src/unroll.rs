//! ptxas's unrolling of counted loops, applied to a warp's trace.
//!
//! ptxas unrolls a loop whose counter steps by a constant (`for (k = 0; k < n; ++k)` with `n`
//! known only at run time) and that holds no barrier and no inner loop by 4: first the `n % 4`
//! remainder iterations one at a time, then groups of 4 iterations as one straight-line body, so that the loads of a group are issued
//! together (calibration/draws/loops: the SASS of tests/fixtures/ptx/loop_loads.ptx, and its times on
//! the H200). A loop with a run-time step (a grid-stride loop, `c += blockDim.x`) is kept as it
//! is. The lowered code keeps the loop; the model sees the unrolled one because the branches
//! back that ptxas removed are taken out of the trace (nothing is hoisted past a branch back).

use crate::trace::{Ev, StaticInst, WarpTrace};
use warpsim_kernel::ir::{Inst, Reg};
use warpsim_kernel::Program;

/// Iterations a counted loop's group holds after unrolling.
const UNROLL: usize = 4;

/// Marks the branch back of every counted loop of `prog` in `code` (its `unroll`: the loop's
/// first pc): a branch to an earlier pc whose condition compares a counter with a value the
/// loop does not change, where the counter's one write in the loop adds a constant to it, and
/// whose body holds no barrier and no branch back. `constant`: whether a register holds one
/// constant for the whole run (`trace::static_code`'s test).
pub fn mark_counted_loops(prog: &Program, code: &mut [StaticInst], constant: &dyn Fn(Reg) -> bool) {
    let writes = |code: &[StaticInst], q: usize, r: Reg| {
        code[q]
            .dst
            .is_some_and(|(d, n)| (d..d + n as u16).contains(&r.0))
    };
    let mut marks = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        let Inst::Branch { c, target, .. } = *inst else {
            continue;
        };
        let head = target as usize;
        if head > pc {
            continue;
        }
        let body = head..pc;
        // A loop holding a barrier or another loop is kept (the zoo's matrixMul: its loop
        // with two `bar.sync` stays one iteration a trip in SASS).
        let simple = prog.code[body.clone()].iter().all(|i| match *i {
            Inst::Barrier | Inst::BarrierRed { .. } => false,
            Inst::Branch { target, .. } | Inst::Jump { target } => target > head as u32,
            _ => true,
        });
        if !simple {
            continue;
        }
        let Some(cmp) = body.clone().rev().find(|&q| writes(code, q, c)) else {
            continue;
        };
        let (a, b) = match prog.code[cmp] {
            Inst::Eq { a, b, .. }
            | Inst::Ne { a, b, .. }
            | Inst::LtS { a, b, .. }
            | Inst::LtU { a, b, .. }
            | Inst::LeS { a, b, .. }
            | Inst::LeU { a, b, .. } => (a, b),
            _ => continue,
        };
        let steps = |x: Reg| {
            let ws: Vec<usize> = body.clone().filter(|&q| writes(code, q, x)).collect();
            ws.len() == 1
                && match prog.code[ws[0]] {
                    Inst::Add { dst, a, b } | Inst::Sub { dst, a, b } if dst == x => {
                        (a == x && constant(b)) || (b == x && constant(a))
                    }
                    _ => false,
                }
        };
        let invariant = |x: Reg| !body.clone().any(|q| writes(code, q, x));
        if (steps(a) && invariant(b)) || (steps(b) && invariant(a)) {
            marks.push((pc, head as u32));
        }
    }
    for (pc, head) in marks {
        code[pc].unroll = Some(head);
    }
}

/// The marked loops of `code`: (branch back, first pc).
pub fn counted_loops(code: &[StaticInst]) -> Vec<(u32, u32)> {
    code.iter()
        .enumerate()
        .filter_map(|(pc, s)| s.unroll.map(|h| (pc as u32, h)))
        .collect()
}

/// Takes out of `warp`'s trace the branches back that unrolling by 4 removes: of a run of `n`
/// iterations of a marked loop, the branch of iteration `t` (1-based) stays when `t <= n % 4`
/// or `t - n % 4` is a multiple of 4.
/// `loops` is [`counted_loops`]'s list.
pub fn apply(loops: &[(u32, u32)], warp: &mut WarpTrace) {
    if loops.is_empty() {
        return;
    }
    let mut drop = vec![false; warp.ev.len()];
    for &(back, head) in loops {
        let mut run: Vec<usize> = Vec::new();
        let finish = |run: &mut Vec<usize>, drop: &mut [bool]| {
            let r = run.len() % UNROLL;
            for (t, &i) in run.iter().enumerate().map(|(t, i)| (t + 1, i)) {
                if t > r && !(t - r).is_multiple_of(UNROLL) {
                    drop[i] = true;
                }
            }
            run.clear();
        };
        for (i, e) in warp.ev.iter().enumerate() {
            if e.pc == back {
                run.push(i);
            } else if (e.pc < head || e.pc > back) && !run.is_empty() {
                finish(&mut run, &mut drop);
            }
        }
        finish(&mut run, &mut drop);
    }
    let mut k = 0;
    warp.ev.retain(|_: &Ev| {
        k += 1;
        !drop[k - 1]
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pcs 0-1 before the loop, 2-5 its body (5 the branch back), 6 after it.
    fn trace(iterations: &[usize]) -> WarpTrace {
        let mut ev = vec![Ev {
            pc: 0,
            ..Ev::default()
        }];
        for &n in iterations {
            ev.push(Ev {
                pc: 1,
                ..Ev::default()
            });
            for _ in 0..n {
                for pc in 2..=5 {
                    ev.push(Ev {
                        pc,
                        ..Ev::default()
                    });
                }
            }
            ev.push(Ev {
                pc: 6,
                ..Ev::default()
            });
        }
        WarpTrace {
            ev,
            sectors: Vec::new(),
        }
    }

    /// Which iterations (1-based) of each run keep their branch back.
    fn kept(w: &WarpTrace) -> Vec<Vec<usize>> {
        let mut runs = Vec::new();
        let mut t = 0;
        for e in &w.ev {
            match e.pc {
                1 => {
                    runs.push(Vec::new());
                    t = 0;
                }
                2 => t += 1,
                5 => runs.last_mut().unwrap().push(t),
                _ => {}
            }
        }
        runs
    }

    #[test]
    fn remainder_first_then_groups_of_four() {
        let mut w = trace(&[7, 4, 8, 2, 1]);
        apply(&[(5, 2)], &mut w);
        assert_eq!(
            kept(&w),
            vec![vec![1, 2, 3, 7], vec![4], vec![4, 8], vec![1, 2], vec![1]]
        );
        // Nothing else is taken out.
        assert_eq!(w.ev.iter().filter(|e| e.pc == 3).count(), 22);
    }

    #[test]
    fn no_loop_no_change() {
        let mut w = trace(&[5]);
        let before = w.clone();
        apply(&[], &mut w);
        assert_eq!(w, before);
    }
}
