//! The static half of the trace: what each pc of a program is to the model (its [`Class`],
//! the pipes an integer instruction may take, the registers it reads and writes, the nvcc
//! rules that add or hoist instructions), decoded once per launch ([`static_code`]).

use warpsim_kernel::ir::{Inst, Mem, Reg, Space};
use warpsim_kernel::Program;

/// What kind of unit an instruction goes to, which decides its latency and stall reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Integer arithmetic, moves, compares, selects (`wait` on its result).
    Int,
    /// f32 arithmetic.
    Fp32,
    /// f64 arithmetic.
    Fp64,
    /// Division, remainder, square root.
    Slow,
    /// A tensor-core matrix multiply (PTX `mma.sync`; `HMMA`, `IMMA`, `DMMA` in SASS): the
    /// sub-partition's tensor pipe takes one every `issue.tensor` cycles, its result is ready
    /// `latency.tensor` cycles after issue.
    Tensor,
    /// A shared-memory load (through the shared pipe; `short_scoreboard` on its result).
    SharedLd,
    /// A shared-memory store.
    SharedSt,
    /// A warp shuffle (`SHFL`): through the shared-memory pipe like a load of one
    /// wavefront, without touching the banks (`short_scoreboard` on its result).
    Shuffle,
    /// A global load (`long_scoreboard` on its result).
    GlobalLd,
    /// A constant-memory load (`LDC`, PTX `ld.const`): through the memory queue, served by
    /// the SM's constant cache one request per distinct address of the warp
    /// (`short_scoreboard` on its result; `calibration/probes/cuda_coverage`, spec C-3).
    ConstLd,
    /// A constant-memory load whose address is the same in every lane (`ULDC`, the uniform
    /// datapath: `uniform.rs`): issued as an integer instruction, its result ready 17 cycles
    /// later (`sim/cycle.rs`, spec C-4).
    UniformConstLd,
    /// A global store.
    GlobalSt,
    /// Ifs and loop tests: the warp waits `branch_resolving` before its next issue.
    Branch,
    /// `bar.sync`.
    Barrier,
    /// The end of the warp.
    Exit,
    /// No instruction on the GPU, so not issued and not counted: bookkeeping of the
    /// reconvergence stack (`LoopStart`, `LoopEnd`, `EndIf`), a move of a constant (an
    /// immediate operand on the GPU), and the test and step of a `For` loop whose bound and
    /// step are constants (a loop the GPU's compiler unrolls).
    Free,
}

/// The integer pipes an integer instruction ([`Class::Int`]) may issue to
/// (`calibration/probes/int_pipes`): ptxas compiles an add, a subtract, a move or a shift left
/// to `IADD3`/`LEA` (the ALU) or to `IMAD` (the FMA pipe's heavy half), balancing the two;
/// multiplies only to `IMAD`; logic, other shifts, compares, selects and bit operations only
/// to the ALU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntPipe {
    /// The ALU or the FMA pipe's heavy half, whichever is free.
    Either,
    /// The ALU only.
    Alu,
    /// The FMA pipe's heavy half only (`IMAD`, `IMAD.WIDE`, `IMAD.HI`).
    Fma,
}

/// A register range: first register and how many.
pub type Regs = (u16, u8);

/// The static facts of one pc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticInst {
    /// Its class.
    pub class: Class,
    /// Of an integer instruction, the pipes it may issue to.
    pub int_pipe: IntPipe,
    /// Registers it writes.
    pub dst: Option<Regs>,
    /// Registers it reads (at most 4 ranges).
    pub srcs: Vec<Regs>,
    /// The branch back of a loop that ptxas unrolls by 4: the loop's first pc
    /// (`unroll`).
    pub unroll: Option<u32>,
    /// An access to an XOR-swizzled shared array: the first pc and the number of the address
    /// instructions the GPU issues just before it (`swizzle`; appended after the
    /// program's code).
    pub pre: Option<(u32, u8)>,
    /// One of those address instructions: the pc of the access it serves (its stalls are
    /// reported at that access's line).
    pub serves: Option<u32>,
    /// A swizzled access whose address the compiler computes once per distinct iteration of
    /// these constant loops (a bit per [`LoopMark`] number; 0: once per warp); `None`: at
    /// every execution (`swizzle`).
    pub hoist: Option<u64>,
    /// The start or step of a constant loop, for counting its iterations.
    pub mark: Option<LoopMark>,
    /// Issued only at the first iteration of this constant loop: address arithmetic the
    /// compiler hoists out of it (`nvcc`).
    pub once: Option<u8>,
    /// One of the kernel prologue's instructions (`nvcc`), issued before a warp's
    /// first.
    pub prologue: bool,
    /// A `ULDC` that loads the other word of its 8-byte pair too (`ULDC.64`): that load's pc,
    /// which is not issued (`uniform.rs`).
    pub pair: Option<u32>,
    /// Cycles it holds its pipe when more than the pipe's issue interval (a `wgmma`'s share
    /// of the warpgroup's multiply); 0: the interval.
    pub busy: u16,
    /// A forward branch over a range ptxas predicates ([`crate::if_convert`]): its target. A
    /// warp whose lanes all jump issues the range, predicated off.
    pub skip: Option<u32>,
}

/// Where a constant loop (one the GPU's compiler unrolls) starts a run of trips, or steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopMark {
    /// Its `LoopStart`: the iteration count of loop `n` starts at 0.
    Start(u8),
    /// Its `ForNext`: loop `n` goes to its next iteration.
    Next(u8),
}

impl StaticInst {
    /// An instruction of `class` writing `dst` and reading `srcs` (for tests and tools).
    pub fn new(class: Class, dst: Option<Regs>, srcs: &[Regs]) -> Self {
        StaticInst {
            class,
            int_pipe: IntPipe::Either,
            dst,
            srcs: srcs.to_vec(),
            unroll: None,
            pre: None,
            serves: None,
            hoist: None,
            mark: None,
            once: None,
            prologue: false,
            pair: None,
            busy: 0,
            skip: None,
        }
    }
}

/// The static table of a program: one entry per pc.
pub fn static_code(prog: &Program) -> Vec<StaticInst> {
    let mut code: Vec<StaticInst> = prog
        .code
        .iter()
        .enumerate()
        .map(|(pc, i)| static_inst(prog, pc, i))
        .collect();
    // Registers that hold a constant for the whole run: set from a constant at the start and
    // never written.
    let mut written = vec![false; prog.nregs.max(1)];
    for (i, si) in prog.code.iter().zip(&code) {
        let dst = match *i {
            Inst::ForNext { var, .. } => Some((var.0, 1)),
            _ => si.dst,
        };
        if let Some((r, n)) = dst {
            for k in r as usize..r as usize + n as usize {
                if let Some(w) = written.get_mut(k) {
                    *w = true;
                }
            }
        }
    }
    let constant = |r: Reg| {
        !written.get(r.0 as usize).copied().unwrap_or(true)
            && prog
                .init
                .iter()
                .any(|&(x, v)| x == r && matches!(v, warpsim_kernel::RegInit::Const(_)))
    };
    for (pc, i) in prog.code.iter().enumerate() {
        match *i {
            Inst::Mov { a, .. } if constant(a) => code[pc].class = Class::Free,
            Inst::ForNext { step, head_pc, .. } if constant(step) => {
                if let Some(Inst::ForTest { b, .. }) = prog.code.get(head_pc as usize) {
                    if constant(*b) {
                        code[pc].class = Class::Free;
                        code[head_pc as usize].class = Class::Free;
                    }
                }
            }
            _ => {}
        }
    }
    contract(prog, &mut code);
    crate::uniform::mark(prog, &mut code, &constant);
    crate::unroll::mark_counted_loops(prog, &mut code, &constant);
    let loops = crate::swizzle::constant_loops(prog, &code);
    let deps = crate::swizzle::static_deps(prog, &code, &loops);
    crate::swizzle::address(prog, &mut code, &deps);
    crate::nvcc::apply(prog, &mut code, &constant, &loops, &deps);
    if code
        .iter()
        .any(|s| s.once.is_some() || s.hoist.is_some_and(|h| h != 0))
    {
        for (id, &(start, next)) in loops.iter().enumerate() {
            code[start].mark = Some(LoopMark::Start(id as u8));
            code[next].mark = Some(LoopMark::Next(id as u8));
        }
    }
    code
}

/// Scoreboard entries a warp needs for `code`: its highest register (scratch ones
/// included) plus one, at least `nregs`.
pub fn scoreboard_regs(code: &[StaticInst], nregs: usize) -> usize {
    let top = |&(r, n): &Regs| r as usize + n as usize;
    code.iter()
        .flat_map(|s| s.dst.iter().chain(&s.srcs).map(top))
        .fold(nregs, usize::max)
}

/// A multiply whose product only the next instruction reads, an add or subtract of it, is one
/// fused multiply-add on the GPU (nvcc contracts `a * b + c` by default, `-fmad=true`: matmul's
/// `acc + As[..] * Bs[..]` is one FFMA in its SASS): the multiply is not issued and the add
/// reads the multiply's operands. (Results are the executor's, rounded twice as written.)
fn contract(prog: &Program, code: &mut [StaticInst]) {
    use Inst::*;
    let mut reads = vec![0u32; prog.nregs];
    for s in code.iter() {
        for &(r, n) in &s.srcs {
            for k in r as usize..r as usize + n as usize {
                if let Some(c) = reads.get_mut(k) {
                    *c += 1;
                }
            }
        }
    }
    for pc in 1..prog.code.len() {
        let (t, x, y) = match prog.code[pc - 1] {
            FMul { dst, a, b } | DMul { dst, a, b } => (dst, a, b),
            _ => continue,
        };
        let double = matches!(prog.code[pc - 1], DMul { .. });
        let other = match prog.code[pc] {
            FAdd { a, b, .. } if !double && (a == t) != (b == t) => {
                [a, b].into_iter().find(|&r| r != t)
            }
            FSub { a, b, .. } if !double && (a == t) != (b == t) => {
                [a, b].into_iter().find(|&r| r != t)
            }
            DAdd { a, b, .. } | DSub { a, b, .. } if double && (a == t) != (b == t) => {
                [a, b].into_iter().find(|&r| r != t)
            }
            _ => continue,
        };
        let Some(other) = other else { continue };
        // Only this add reads the product (each of its registers: two for a double).
        let width = if double { 2 } else { 1 };
        let only = (t.0 as usize..t.0 as usize + width).all(|k| reads.get(k) == Some(&1));
        if !only || x == t || y == t || code[pc - 1].class == Class::Free {
            continue;
        }
        let w = width as u8;
        code[pc - 1].class = Class::Free;
        code[pc].srcs = vec![(other.0, w), (x.0, w), (y.0, w)];
    }
}

/// The integer pipes of `inst` (see [`IntPipe`]).
fn int_pipe(inst: &Inst) -> IntPipe {
    use warpsim_kernel::{ir::Op64, BitOp};
    use Inst::*;
    match *inst {
        Add { .. } | Sub { .. } | Mov { .. } | Mov64 { .. } | Shl { .. } => IntPipe::Either,
        Add64 { .. } | Sub64 { .. } => IntPipe::Either,
        Mul { .. } | Mad { .. } | Mul64 { .. } | MulWide { .. } => IntPipe::Fma,
        Int64 {
            op: Op64::MulHiS | Op64::MulHiU,
            ..
        } => IntPipe::Fma,
        Bits {
            op: BitOp::MadHi { .. },
            ..
        } => IntPipe::Fma,
        _ => IntPipe::Alu,
    }
}

fn r1(r: Reg) -> Regs {
    (r.0, 1)
}

/// The registers an access's address is made of, which it waits for: its index registers, or
/// for a byte-addressed access (`rank` 0, the PTX front end) the address register (a global
/// pointer's two words) and the register of the constant offset (issue 38, D1 of
/// `calibration/probes/conflict_cost/DESIGN.md`: before, such an access waited for nothing and
/// a dependent chain from CUDA overlapped itself).
fn access_srcs(m: &Mem) -> Vec<Regs> {
    if m.byte_addressed() {
        let words = if m.space == Space::Global { 2 } else { 1 };
        return vec![(m.idx[0].0, words), r1(m.idx[1])];
    }
    m.idx[..(m.rank as usize).min(3)]
        .iter()
        .map(|&r| r1(r))
        .collect()
}

/// A tensor instruction's D registers as the scoreboard keeps them (`mma.sync`, `wgmma`): one
/// range when they make one in any order (NVRTC numbers an `asm`'s `"+f"` outputs downwards),
/// else the first register listed; `None` when there are none.
fn tensor_dst(d: impl Iterator<Item = Regs>) -> Option<Regs> {
    let mut d: Vec<Regs> = d.collect();
    let first = *d.first()?;
    d.sort_unstable();
    let one_range = d
        .windows(2)
        .all(|p| p[1].0 == p[0].0.wrapping_add(p[0].1 as u16));
    let words = d.iter().try_fold(0u8, |s, x| s.checked_add(x.1));
    Some(match (one_range, words) {
        (true, Some(n)) => (d[0].0, n),
        _ => first,
    })
}

fn static_inst(prog: &Program, pc: usize, inst: &Inst) -> StaticInst {
    use Inst::*;
    if let BarrierRed { dst, a, .. } = *inst {
        return StaticInst::new(Class::Barrier, Some(r1(dst)), &[r1(a)]);
    }
    if let Some(ops) = inst.operands() {
        let class = match inst {
            DivS { .. }
            | DivU { .. }
            | RemS { .. }
            | RemU { .. }
            | FDiv { .. }
            | FRem { .. }
            | FSqrt { .. }
            | DDiv { .. }
            | DRem { .. }
            | DSqrt { .. }
            | FExp { .. }
            | DExp { .. }
            | Cvt { .. }
            | Cvt64 { .. } => Class::Slow,
            Int64 { op, .. } if op.divides() => Class::Slow,
            Ptx { op, .. } if op.special_function() => Class::Slow,
            FAdd { .. }
            | FSub { .. }
            | FMul { .. }
            | FMin { .. }
            | FMax { .. }
            | FEq { .. }
            | FNe { .. }
            | FLt { .. }
            | FLe { .. }
            | FNeg { .. }
            | FAbs { .. }
            | FFma { .. } => Class::Fp32,
            DAdd { .. }
            | DSub { .. }
            | DMul { .. }
            | DMin { .. }
            | DMax { .. }
            | DEq { .. }
            | DNe { .. }
            | DLt { .. }
            | DLe { .. }
            | DNeg { .. }
            | DAbs { .. }
            | DFma { .. } => Class::Fp64,
            Shfl { .. } | ShflC { .. } | Redux { .. } | Match { .. } => Class::Shuffle,
            _ => Class::Int,
        };
        let srcs: Vec<Regs> = ops.srcs().iter().map(|&(r, n)| (r.0, n)).collect();
        let mut si = StaticInst::new(class, Some((ops.dst.0 .0, ops.dst.1)), &srcs);
        si.int_pipe = int_pipe(inst);
        return si;
    }
    match *inst {
        Load(m) | Store(m) => {
            let elem = prog.access_elem(&m);
            let words = elem.map_or(1, |e| m.words(e)) as u8;
            let mut srcs = access_srcs(&m);
            let store = matches!(inst, Store(_));
            let data = (m.data.0, words);
            let class = match (m.space, store) {
                (Space::Shared, false) => Class::SharedLd,
                (Space::Shared, true) => Class::SharedSt,
                // Local memory goes through the LSU and L1 like global memory (LDL/STL).
                (Space::Global | Space::Local, false) => Class::GlobalLd,
                (Space::Global | Space::Local, true) => Class::GlobalSt,
                (Space::Const, _) => Class::ConstLd,
            };
            if store {
                srcs.push(data);
                StaticInst::new(class, None, &srcs)
            } else {
                StaticInst::new(class, Some(data), &srcs)
            }
        }
        // An atomic goes through the pipe of its space like a load (it returns the old value);
        // a shared one's wavefronts (a loop's loads included) are reported at run time.
        Atomic { m, .. } => {
            let mut srcs = access_srcs(&m);
            // A pair atomic (vec 2) reads its pair and `cas`'s compare pair, writes the pair.
            let pair = m.vec == 2;
            srcs.push((m.data.0, if pair { 4 } else { 2 }));
            let class = match m.space {
                Space::Shared => Class::SharedLd,
                Space::Global | Space::Local | Space::Const => Class::GlobalLd,
            };
            StaticInst::new(class, Some((m.data.0, if pair { 2 } else { 1 })), &srcs)
        }
        If { c, .. } | LoopTest { c, .. } => StaticInst::new(Class::Branch, None, &[r1(c)]),
        Else { .. } | LoopBack { .. } => StaticInst::new(Class::Branch, None, &[]),
        ForTest { a, b, .. } => StaticInst::new(Class::Branch, None, &[r1(a), r1(b)]),
        ForNext { var, step, .. } => {
            StaticInst::new(Class::Branch, Some(r1(var)), &[r1(var), r1(step)])
        }
        SyncWarp { mask } => StaticInst::new(Class::Int, None, &[r1(mask)]),
        Barrier => StaticInst::new(Class::Barrier, None, &[]),
        Exit => StaticInst::new(Class::Exit, None, &[]),
        // A jump out of a loop or the kernel is a branch (or a predicated `EXIT`) on the GPU.
        Break { .. } | Continue { .. } | Return { .. } => StaticInst::new(Class::Branch, None, &[]),
        // PTX: a branch back is a loop's (a `BRA` in SASS too: ptxas keeps a loop with a
        // run-time step, so nothing is hoisted across an iteration; a counted loop is unrolled
        // by 4, see `unroll.rs`). A forward branch is priced as ptxas mostly compiles it, as
        // predication: not issued, not a barrier to hoisting.
        Branch { c, target, .. } if target as usize <= pc => {
            StaticInst::new(Class::Branch, None, &[r1(c)])
        }
        Jump { target } if target as usize <= pc => StaticInst::new(Class::Branch, None, &[]),
        // `LDSM`/`STSM`: through the shared pipe as `LDS`/`STS`, with their latency (no
        // `LDSM` latency is measured: README, "What is modelled"). The registers as one range
        // when consecutive (as NVRTC declares them), else the first one only.
        Matrix(m) => {
            let regs = m.used_regs();
            let consecutive = regs.windows(2).all(|p| p[1].0 == p[0].0.wrapping_add(1));
            let data = (regs[0].0, if consecutive { m.n } else { 1 });
            if m.store {
                StaticInst::new(Class::SharedSt, None, &[r1(m.addr), data])
            } else {
                StaticInst::new(Class::SharedLd, Some(data), &[r1(m.addr)])
            }
        }
        // `LDGSTS`: priced as a global load of its sectors that no register waits for; its
        // shared-side wavefronts are not charged, and `wait_group` does not wait for it (not
        // modelled: README, "What is modelled").
        CpAsync(c) => {
            let mut srcs = vec![r1(c.dst), (c.src.0, 2)];
            srcs.extend(c.size.map(r1));
            StaticInst::new(Class::GlobalLd, None, &srcs)
        }
        // `HMMA`/`IMMA`/`DMMA`: D as `tensor_dst` keeps it; every register of A, B and C is
        // read.
        Mma { op } => match prog.mmas.get(op as usize) {
            Some(m) => {
                let Some(dst) = tensor_dst(m.dsts().map(|(r, w)| (r.0, w))) else {
                    return StaticInst::new(Class::Free, None, &[]);
                };
                let srcs: Vec<Regs> = m.srcs().map(|(r, w)| (r.0, w)).collect();
                StaticInst::new(Class::Tensor, Some(dst), &srcs)
            }
            None => StaticInst::new(Class::Free, None, &[]),
        },
        // `HGMMA`/`QGMMA`/`IGMMA` (not measured on the H200): the warp's quarter of the
        // warpgroup's multiply holds its sub-partition's tensor pipe N/2 cycles (the published
        // dense peak, 512 f16 multiply-adds a cycle a sub-partition: 16 x N x 16 of them; the
        // tf32 and 8-bit shapes move the same 32 bytes of K at their own rates, alike), D ready
        // `latency.tensor` cycles after that. D is not a source (an accumulation stays in the
        // tensor core); A's registers or descriptor, B's and scale-d are.
        Wgmma { op } => match prog.wgmmas.get(op as usize) {
            Some(m) => {
                let Some(dst) = tensor_dst(m.d.iter().map(|r| (r.0, 1))) else {
                    return StaticInst::new(Class::Free, None, &[]);
                };
                let srcs: Vec<Regs> = m.srcs().into_iter().map(|(r, w)| (r.0, w)).collect();
                let mut si = StaticInst::new(Class::Tensor, Some(dst), &srcs);
                si.busy = m.n / 2;
                si
            }
            None => StaticInst::new(Class::Free, None, &[]),
        },
        // A RON `LoadMatrix`'s row address: the integer arithmetic ptxas makes of an index.
        AddrOf(m) => {
            let words = 1 + (m.space == Space::Global) as u8;
            StaticInst::new(Class::Int, Some((m.data.0, words)), &access_srcs(&m))
        }
        // `SYNCS`: one integer-pipe slot each, writing its state or predicate (not measured;
        // a wait's dependence on the arrivals is not modelled: the parked warp's retry is
        // issued again, as a suspended `try_wait`'s is).
        Mbar(m) => {
            let srcs: Vec<Regs> = m.reads().map(|(r, w)| (r.0, w)).collect();
            StaticInst::new(Class::Int, m.writes().map(|(r, w)| (r.0, w)), &srcs)
        }
        // `UBLKCP`: one issue slot (the copy engine's time is not modelled yet).
        Bulk(b) => {
            let srcs: Vec<Regs> = b.reads().map(|(r, w)| (r.0, w)).collect();
            StaticInst::new(Class::Int, None, &srcs)
        }
        // `UTMALDG`/`UTMASTG`: one issue slot (the copy engine's time is not modelled yet).
        BulkTensor(t) => {
            let srcs: Vec<Regs> = t.reads().map(|(r, w)| (r.0, w)).collect();
            StaticInst::new(Class::Int, None, &srcs)
        }
        // `FENCE.VIEW.ASYNC.S`: not timed (it was not in the model before the race checker
        // needed it; not measured).
        FenceProxyAsync => StaticInst::new(Class::Free, None, &[]),
        // `LDGDEPBAR` and `DEPBAR`: issued, one integer-pipe slot each.
        AsyncCommit | AsyncWait { .. } => StaticInst::new(Class::Int, None, &[]),
        _ => StaticInst::new(Class::Free, None, &[]),
    }
}
