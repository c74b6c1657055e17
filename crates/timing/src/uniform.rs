//! Which constant loads the GPU's compiler puts on the uniform datapath (`ULDC`) rather than
//! the per-lane `LDC` (`calibration/probes/cuda_coverage/README.md`, spec C-2): ptxas gives an
//! `ld.const` a `ULDC` when its address is the same in every lane of the warp — a symbol and
//! immediates, or a register computed only from constants, kernel parameters, `%ctaid`,
//! `%nctaid`, `%ntid` and the counters of loops whose trip count is uniform — and an `LDC` when
//! it depends on the thread (`%tid`, `%laneid`, a loaded value).
//!
//! A dataflow over the code, decided once per `ld.const` (what its lanes hold at run time does
//! not change the instruction): a register is *varying* when an instruction that writes it
//! reads a varying register or produces per-lane values (a load from shared, global or local
//! memory, a shuffle, `match`, an atomic, `ldmatrix`, a clock), when it starts as a per-thread
//! special value, or when it is written under a branch whose condition is varying — inside a
//! loop whose exit test is varying, or inside a forward branch and read outside it (lanes
//! arrive with different values). Iterated to a fixed point.
//!
//! Two `ULDC`s in the same straight-line code of the two 4-byte words of an 8-aligned pair of
//! the constant bank are one `ULDC.64` (`const.sass.gz`: 672 `ULDC.64` of `c[0x3][imm]`; ptxas
//! then feeds both values from one uniform register pair): the second is not issued.

use crate::trace::{Class, StaticInst};
use warpsim_kernel::ir::{Inst, Mem, Reg, Space, Special};
use warpsim_kernel::{Program, RegInit};

/// Most rounds of the fixed point; past them every constant load stays an `LDC` (a program
/// whose dependences chain further is not one ptxas is seen to give `ULDC`s).
const MAX_ROUNDS: usize = 64;

/// A branch's region: the pcs `lo..hi` whose writes may differ between lanes when one of
/// `conds` is varying; `loop_` for a loop (every write in it), else a forward branch (writes
/// read outside the region).
struct Region {
    lo: usize,
    hi: usize,
    conds: [Option<Reg>; 2],
    loop_: bool,
}

/// Turns each [`Class::ConstLd`] of `code` whose address is warp-uniform into
/// [`Class::UniformConstLd`], and pairs them ([`pair`]). `constant`: whether a register holds the value it starts with for the whole run.
pub(crate) fn mark(prog: &Program, code: &mut [StaticInst], constant: &dyn Fn(Reg) -> bool) {
    if !code.iter().any(|s| s.class == Class::ConstLd) {
        return;
    }
    let n = crate::trace::scoreboard_regs(code, prog.nregs);
    let mut varying = vec![false; n];
    for &(r, v) in &prog.init {
        if let RegInit::Special(s) = v {
            let per_lane = !matches!(s, Special::Ctaid(_) | Special::Ntid(_) | Special::Nctaid(_));
            if let Some(x) = varying.get_mut(r.0 as usize) {
                *x |= per_lane;
            }
        }
    }
    let regions = regions(prog);
    // Per register: the first and last pc that reads it.
    let mut reads = vec![(usize::MAX, 0usize); n];
    for (pc, s) in code.iter().enumerate() {
        for &(r, w) in &s.srcs {
            for x in &mut reads[span(r, w, n)] {
                *x = (x.0.min(pc), x.1.max(pc));
            }
        }
    }
    let mut settled = false;
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        let mut set = |r: u16, w: u8, varying: &mut [bool]| {
            for x in &mut varying[span(r, w, n)] {
                changed |= !*x;
                *x = true;
            }
        };
        for (pc, s) in code.iter().enumerate() {
            let Some((d, w)) = s.dst else { continue };
            let varies = prog.code.get(pc).is_none_or(per_lane)
                || s.srcs
                    .iter()
                    .any(|&(r, w)| varying[span(r, w, n)].contains(&true));
            if varies {
                set(d, w, &mut varying);
            }
        }
        for g in &regions {
            let divergent = g
                .conds
                .iter()
                .flatten()
                .any(|c| varying.get(c.0 as usize).copied().unwrap_or(true));
            if !divergent {
                continue;
            }
            let hi = g.hi.min(code.len());
            for s in &code[g.lo.min(hi)..hi] {
                let Some((d, w)) = s.dst else { continue };
                let (first, last) = reads.get(d as usize).copied().unwrap_or((0, usize::MAX));
                if g.loop_ || first < g.lo || last >= g.hi {
                    set(d, w, &mut varying);
                }
            }
        }
        if !changed {
            settled = true;
            break;
        }
    }
    if !settled {
        return;
    }
    for s in code.iter_mut().filter(|s| s.class == Class::ConstLd) {
        let uniform = s
            .srcs
            .iter()
            .all(|&(r, w)| !varying[span(r, w, n)].contains(&true));
        if uniform {
            s.class = Class::UniformConstLd;
        }
    }
    pair(prog, code, constant);
}

/// Merges `ULDC` pairs into `ULDC.64`s (the module's doc).
fn pair(prog: &Program, code: &mut [StaticInst], constant: &dyn Fn(Reg) -> bool) {
    let value = |r: Reg| {
        if !constant(r) {
            return None;
        }
        prog.init.iter().find_map(|&(x, v)| match v {
            RegInit::Const(c) if x == r => Some(c),
            _ => None,
        })
    };
    // Where each constant symbol sits in the constant bank: ptxas lays the module's symbols
    // out in order, each at its alignment (hornerConst's SASS in calibration/draws/
    // cuda_kernels1: `c_poly` at 0x4dc, after 1,244 bytes of the symbols declared before it).
    let mut bank = vec![None; prog.buffers.len()];
    let mut at = 0u64;
    for (k, b) in prog.buffers.iter().enumerate() {
        if b.constant.as_ref().is_some_and(|c| !c.device) {
            at = at.next_multiple_of(if b.elem.bytes() == 8 { 8 } else { 4 });
            bank[k] = Some(at);
            at += b.bytes();
        }
    }
    // The bank address of a 4-byte `ld.const` whose address is known before the run.
    let address = |inst: &Inst| -> Option<u64> {
        let Inst::Load(m) = *inst else { return None };
        let four = prog.buffers.get(m.array as usize)?.elem.bytes() == 4;
        if m.space != Space::Const || !m.byte_addressed() || m.vec != 1 || !four {
            return None;
        }
        let lo = value(m.idx[0])?;
        let hi = value(Reg(m.idx[0].0.checked_add(1)?))?;
        let off = value(m.idx[1])? as i32 as i64;
        let p = (lo as u64 | (hi as u64) << 32).wrapping_add(off as u64);
        let k = (p >> Mem::GLOBAL_BASE_SHIFT).checked_sub(1)? as usize;
        Some((*bank.get(k)?)? + (p & ((1 << Mem::GLOBAL_BASE_SHIFT) - 1)))
    };
    // The words of the current straight-line code whose pair's other word is not loaded yet,
    // with their loads' pcs.
    let mut open: Vec<(u64, usize)> = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        match inst {
            Inst::Load(m) if m.space == Space::Const => {
                let Some(a) = (code[pc].class == Class::UniformConstLd)
                    .then(|| address(inst))
                    .flatten()
                else {
                    continue;
                };
                if let Some(i) = open.iter().position(|&(w, _)| w ^ a == 4) {
                    // The other word of its pair was loaded: one `ULDC.64` loads both.
                    code[pc].class = Class::Free;
                    code[pc].srcs.clear();
                    code[open[i].1].pair = Some(pc as u32);
                    open.swap_remove(i);
                } else if !open.iter().any(|&(w, _)| w == a) {
                    open.push((a, pc));
                }
            }
            i if i.breaks_straight_line() => open.clear(),
            _ => {}
        }
    }
}

/// Registers `r .. r + w` as indices below `n`.
fn span(r: u16, w: u8, n: usize) -> std::ops::Range<usize> {
    let lo = (r as usize).min(n);
    lo..(r as usize + w as usize).clamp(lo, n)
}

/// Whether `inst` writes values that differ between lanes whatever it reads.
fn per_lane(inst: &Inst) -> bool {
    match inst {
        Inst::Load(m) => m.space != Space::Const,
        Inst::Atomic { .. }
        | Inst::Shfl { .. }
        | Inst::ShflC { .. }
        | Inst::Match { .. }
        | Inst::Matrix(_)
        | Inst::Clock { .. } => true,
        _ => false,
    }
}

/// The branches of the code and the pcs each governs.
fn regions(prog: &Program) -> Vec<Region> {
    let mut out = Vec::new();
    // Open structured loops (their `LoopStart` pcs).
    let mut loops: Vec<usize> = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        match *inst {
            Inst::LoopStart => loops.push(pc),
            Inst::LoopEnd => {
                loops.pop();
            }
            Inst::If { c, end_pc, .. } => out.push(Region {
                lo: pc + 1,
                hi: end_pc as usize,
                conds: [Some(c), None],
                loop_: false,
            }),
            Inst::LoopTest { c, exit_pc } => out.push(Region {
                lo: loops.last().copied().unwrap_or(pc),
                hi: exit_pc as usize + 1,
                conds: [Some(c), None],
                loop_: true,
            }),
            Inst::ForTest { a, b, exit_pc, .. } => out.push(Region {
                lo: loops.last().copied().unwrap_or(pc),
                hi: exit_pc as usize + 1,
                conds: [Some(a), Some(b)],
                loop_: true,
            }),
            Inst::Branch {
                c, target, join, ..
            } => {
                let (target, join) = (target as usize, join as usize);
                out.push(if target <= pc {
                    Region {
                        lo: target,
                        hi: pc + 1,
                        conds: [Some(c), None],
                        loop_: true,
                    }
                } else {
                    Region {
                        lo: pc + 1,
                        hi: target.max(join),
                        conds: [Some(c), None],
                        loop_: false,
                    }
                });
            }
            _ => {}
        }
    }
    out
}
