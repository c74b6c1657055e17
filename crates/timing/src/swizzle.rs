//! The address arithmetic of accesses to XOR-swizzled shared arrays, which the IR leaves to
//! the access itself.
//!
//! On the GPU, `tile[r][c ^ r]` costs the XOR of the column with the row (`LOP3`) and the
//! address it gives (`LEA` or `IMAD`): two integer instructions, where an unswizzled tile's
//! offsets fold into the access's immediate (calibration/README.md, section 9:
//! transpose<0,true> issues 62 instructions a warp, 13 more than the unswizzled one). A
//! swizzle of groups of `g` > 1 elements moves the row's bits into place first: column `c` of
//! row `r` is `c ^ ((r % G) * g)` (`G` groups a row), two more (the mask and the shift; the
//! H200 issues ~4.4 an access for `g` = 2 written as the file format's formula). See
//! [`instructions`].
//!
//! A compiler computes one address once: an address that depends only on thread and block
//! indices, constants and the counters of loops it unrolls is hoisted out of the other loops
//! and shared by the accesses that use it (the swizzled matmul issues no more instructions
//! than the unswizzled one). So the instructions are issued once per distinct iteration of the
//! constant loops the address depends on ([`StaticInst::hoist`]), and at every execution when
//! it depends on anything else (loaded data, a loop whose trip count is not a constant, a
//! value chosen under an `If`, or a register a loop accumulates into).
//!
//! Both are rules on the layout alone, and the H200 does not always follow them: groups of 4
//! and 8 written with `/` and `%` cost ~8 instructions an access, and a kernel short of
//! registers (sgemm4x4 at 71) recomputes hoistable addresses every trip (calibration/README.md,
//! section 9, third draw).

use crate::trace::{Class, IntPipe, Regs, StaticInst};
use warpsim_kernel::ir::{Inst, Space};
use warpsim_kernel::Program;

/// Integer instructions issued for the address of one access to an array swizzled in groups
/// of `group` elements: the XOR and the address, and for groups of more than one element the
/// mask and shift that move the row's bits above the group's.
pub fn instructions(group: u32) -> u8 {
    if group > 1 {
        4
    } else {
        2
    }
}

/// The constant loops that index registers can depend on (a bit each).
const MAX_LOOPS: usize = 64;

/// Appends [`instructions`] integer instructions for every access to an XOR-swizzled shared
/// array: the first reads the access's index registers and writes a scratch register
/// of its own (numbered from the program's last register up), each next one reads and
/// writes it, and the access reads it in place of its indices. (`trace::static_code` marks
/// the constant loops' starts and steps for the recorder to count their iterations.)
pub(crate) fn address(prog: &Program, code: &mut Vec<StaticInst>, deps: &[Option<u64>]) {
    // (Without a swizzled array there is nothing to price.)
    if prog.shared.iter().all(|s| s.swizzle == 0) {
        return;
    }
    let mut scratch = prog.nregs;
    for (pc, inst) in prog.code.iter().enumerate() {
        let m = match *inst {
            Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } => m,
            _ => continue,
        };
        let group = match prog.shared.get(m.array as usize) {
            Some(s) if m.space == Space::Shared && m.rank >= 2 => s.swizzle,
            _ => 0,
        };
        let Ok(x) = u16::try_from(scratch) else {
            break; // (no register numbers left: the remaining accesses issue none)
        };
        if group == 0 || code[pc].class == Class::Free {
            continue;
        }
        scratch += 1;
        let first = code.len() as u32;
        let rank = (m.rank as usize).min(3);
        let idx: Vec<Regs> = code[pc].srcs[..rank].to_vec();
        let n = instructions(group);
        for k in 0..n {
            let srcs = if k == 0 { idx.clone() } else { vec![(x, 1)] };
            let mut a = StaticInst::new(Class::Int, Some((x, 1)), &srcs);
            // The XOR (`LOP3`), mask and shift on the ALU; the address (`LEA` or `IMAD`) on
            // either integer pipe.
            if k + 1 < n {
                a.int_pipe = IntPipe::Alu;
            }
            a.serves = Some(pc as u32);
            code.push(a);
        }
        let hoist = m.idx[..rank]
            .iter()
            .try_fold(0u64, |acc, r| Some(acc | deps.get(r.0 as usize).copied()??));
        let access = &mut code[pc];
        access.srcs.splice(..rank, [(x, 1)]);
        access.pre = Some((first, n));
        access.hoist = hoist;
    }
}

/// The `For` loops the GPU's compiler unrolls (their test and step are `Free`): the pcs of
/// their `LoopStart` and `ForNext` (at most [`MAX_LOOPS`]).
pub(crate) fn constant_loops(prog: &Program, code: &[StaticInst]) -> Vec<(usize, usize)> {
    let mut loops = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        let Inst::ForNext { head_pc, .. } = *inst else {
            continue;
        };
        let start = (head_pc as usize).wrapping_sub(1);
        if code[pc].class == Class::Free
            && matches!(prog.code.get(start), Some(Inst::LoopStart))
            && loops.len() < MAX_LOOPS
        {
            loops.push((start, pc));
        }
    }
    loops
}

/// Per register: `Some(loops)` when every value it takes is known to the compiler for given
/// iterations of those constant loops (a bit per loop of `loops`) and thread and block
/// indices; `None` otherwise.
pub(crate) fn static_deps(
    prog: &Program,
    code: &[StaticInst],
    loops: &[(usize, usize)],
) -> Vec<Option<u64>> {
    let mut deps: Vec<Option<u64>> = vec![Some(0); prog.nregs];
    // Registers written where the compiler cannot know the value: under an `If`, or in a
    // loop it does not unroll.
    let mut regions: Vec<(usize, usize)> = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        match *inst {
            Inst::If { end_pc, .. } => regions.push((pc, end_pc as usize)),
            Inst::LoopBack { head_pc } => regions.push((head_pc as usize, pc)),
            Inst::ForNext { head_pc, .. } if code[pc].class != Class::Free => {
                regions.push((head_pc as usize, pc))
            }
            _ => {}
        }
    }
    let dynamic_at = |pc: usize| regions.iter().any(|&(a, b)| (a..=b).contains(&pc));
    let counter = |pc: usize| loops.iter().position(|&(_, next)| next == pc);
    let mut changed = true;
    while changed {
        changed = false;
        for (pc, inst) in prog.code.iter().enumerate() {
            let (dst, new) = match (*inst, inst.operands()) {
                (Inst::ForNext { var, .. }, _) => (
                    var.0 as usize,
                    counter(pc).map(|l| deps[var.0 as usize].map_or(0, |d| d) | 1 << l),
                ),
                (Inst::Shfl { .. } | Inst::ShflC { .. }, Some(ops)) => {
                    (ops.dst.0 .0 as usize, None)
                }
                (_, Some(ops)) => {
                    let d = ops.dst.0 .0 as usize;
                    let from = ops.srcs().iter().try_fold(0u64, |acc, &(r, _)| {
                        // (A register accumulating into itself changes at every trip.)
                        (r.0 as usize != d).then_some(())?;
                        Some(acc | deps.get(r.0 as usize).copied()??)
                    });
                    (d, from.filter(|_| !dynamic_at(pc)))
                }
                // Loaded data, and whatever else writes a register.
                _ => match code[pc].dst {
                    Some((r, _)) => (r as usize, None),
                    None => continue,
                },
            };
            let n = code[pc].dst.map_or(1, |(_, n)| n as usize).max(1);
            for slot in deps.iter_mut().skip(dst).take(n) {
                let merged = match (*slot, new) {
                    (Some(a), Some(b)) => Some(a | b),
                    _ => None,
                };
                if merged != *slot {
                    *slot = merged;
                    changed = true;
                }
            }
        }
    }
    deps
}

#[cfg(test)]
mod tests {
    use crate::trace::{static_code, Recorder};
    use warpsim_kernel::ir::Inst;
    use warpsim_kernel::Program;

    fn load(body: &str) -> Program {
        let src = format!(
            "Program(name: \"t\", launch: (grid: [1], block: [32]),
             buffers: [(name: \"out\", ty: I32, len: 4096)],
             shared: [(name: \"s\", ty: I32, dims: [32, 32], swizzle: 1)], body: [{body}])"
        );
        warpsim_lang::load_str("t.ron", &src, &Default::default()).unwrap()
    }

    /// The pcs of the shared accesses, in order.
    fn accesses(p: &Program) -> Vec<usize> {
        (0..p.code.len())
            .filter(|&pc| matches!(p.code[pc], Inst::Load(m) | Inst::Store(m) if m.space == warpsim_kernel::ir::Space::Shared))
            .collect()
    }

    #[test]
    fn addresses_of_thread_indices_and_unrolled_counters_are_hoisted() {
        let p = load(
            r#"Store("s[tid.x][0]", "1"),
               For(var: "t", from: 0, to: 3, body: [
                   For(var: "k", from: 0, to: 4, body: [
                       Store("out[tid.x]", "s[k][tid.x]"),
                       Store("out[tid.x]", "s[t][k]"),
                   ]),
               ]),
               Let("v", "out[tid.x] % 32"),
               Store("out[tid.x]", "s[v][0]"),
               Let("i", "0"),
               While(cond: "i < 3", body: [Set("i", "i + 1"), Store("out[tid.x]", "s[i][0]")])"#,
        );
        let code = static_code(&p);
        let a = accesses(&p);
        let hoist: Vec<_> = a.iter().map(|&pc| code[pc].hoist).collect();
        // The two loops are numbered from the inner one (its step comes first).
        assert_eq!(hoist, [Some(0), Some(1), Some(3), None, None], "{hoist:?}");
        assert!(a.iter().all(|&pc| code[pc].pre.is_some()));
        // (The other appended instructions are `nvcc.rs`'s: the stores' addresses, the prologue.)
        let swizzle = code
            .iter()
            .filter(|s| !s.prologue && s.serves.is_some_and(|pc| a.contains(&(pc as usize))))
            .count();
        assert_eq!(swizzle, 2 * a.len());
        assert_eq!(super::instructions(2), 4);
    }

    #[test]
    fn a_hoisted_address_is_issued_once_per_distinct_iteration() {
        let p = load(
            r#"For(var: "t", from: 0, to: 3, body: [
                   For(var: "k", from: 0, to: 4, body: [Store("out[tid.x]", "s[k][tid.x]")]),
               ])"#,
        );
        let code = static_code(&p);
        let mut rec = Recorder::new(&code, 32, 32);
        let find = |f: &dyn Fn(&Inst) -> bool| -> Vec<usize> {
            (0..p.code.len()).filter(|&pc| f(&p.code[pc])).collect()
        };
        let starts = find(&|i| matches!(i, Inst::LoopStart));
        let nexts = find(&|i| matches!(i, Inst::ForNext { .. }));
        let load = find(&|i| matches!(i, Inst::Load(_)))[0];
        // What the executor reports for 3 trips of t, each of 4 trips of k.
        rec.inst(0, starts[0]);
        for _ in 0..3 {
            rec.inst(0, starts[1]);
            for _ in 0..4 {
                rec.inst(0, load);
                rec.inst(0, nexts[0]);
            }
            rec.inst(0, nexts[1]);
        }
        let ev = &rec.take().warps[0].ev;
        let address = ev
            .iter()
            .filter(|e| {
                let s = &code[e.pc as usize];
                !s.prologue && s.serves == Some(load as u32)
            })
            .count();
        assert_eq!(ev.iter().filter(|e| e.pc as usize == load).count(), 12);
        assert_eq!(address, 2 * 4, "{ev:?}");
    }
}
