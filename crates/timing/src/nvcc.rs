//! What nvcc and ptxas put around a RON program's lowered code, and take out of it.
//!
//! The IR leaves addresses to its accesses (`tile[r][c]`, `inp[i]`) and holds thread and block
//! indices in registers from the start; the GPU computes both, and folds what it can into the
//! accesses' immediate offsets. The SASS of the naive transpose (calibration/draws/whole_kernels/raw1/heldout.sass.gz,
//! `transpose<0,false>`, 49 instructions a warp) shows all three rules below:
//!
//! * **A prologue** before a warp's first instruction: `LDC` of the stack pointer, an `LDC.64`
//!   per global buffer (its pointer parameter), an `S2R` per thread or block index read, and
//!   for shared memory an `S2UR` of the block's shared window. These go through the memory
//!   queue (section 1 of calibration/README.md: `S2R` waits behind loads), where the 64 warps
//!   of an SM starting together fill it: 15 of the padded transpose's 20 `mio_throttle`
//!   samples sit there (calibration/draws/whole_kernels/raw2/source_summary.txt.gz). Uniform-datapath set-up
//!   (`ULDC.64` of the memory descriptor, `UMOV` and a `ULEA` per shared array) issues as
//!   integer instructions.
//! * **Addresses are formed**: a global access's element index becomes a 64-bit address
//!   (`IMAD.WIDE`, one integer instruction at every execution), a shared access's indices a
//!   byte offset in the block's window (a `LEA` per dimension), computed once per warp when
//!   the indices depend only on thread and block indices, constants and the counters of
//!   unrolled loops (which fold into the access's immediate), and shared by the accesses to
//!   one array whose indices differ by constants; an index computed at run time is computed in
//!   bytes (the scaling folds into the instruction computing it), so only combining two or
//!   three dimensions costs, one instruction each at every execution. An add of a constant
//!   that only feeds such addresses (`tile[ty + 1][tx + 2]`, `x[p + 256]`) is the access's
//!   immediate offset, and a global access at one needs no `IMAD.WIDE` of its own.
//! * **Offsets of unrolled loops fold**: in a `For` loop with constant bounds (unrolled) that
//!   holds no barrier, inner loop or branch, integer arithmetic that only feeds addresses and
//!   is affine in the loop's counter costs nothing per iteration for the counter's part (an
//!   immediate offset, or the pointer step of the next global access's `IMAD.WIDE`); what it
//!   computes beyond adding the counter (`y * n + x`) is issued once, at the first iteration.
//!
//! Programs from the PTX front end are left alone: their code already is nvcc's (explicit
//! address arithmetic, moves of special registers, byte-addressed accesses).

use crate::trace::{Class, IntPipe, Regs, StaticInst};
use warpsim_kernel::ir::{Inst, Mem, Reg, Space};
use warpsim_kernel::{Program, RegInit};

/// Whether the code comes from the PTX front end: its accesses are byte-addressed.
pub(crate) fn from_ptx(prog: &Program) -> bool {
    prog.code.iter().any(|i| match *i {
        Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } => m.byte_addressed(),
        _ => false,
    })
}

/// Applies the three rules to `code` (the program's, with the swizzle's address instructions
/// already appended). `loops`: the constant loops (`LoopStart`, `ForNext` pcs), numbered as
/// [`crate::trace::LoopMark`]s; `deps`: per register, the constant loops its value depends on
/// (`None`: on more than thread and block indices and constants).
pub(crate) fn apply(
    prog: &Program,
    code: &mut Vec<StaticInst>,
    constant: &dyn Fn(Reg) -> bool,
    loops: &[(usize, usize)],
    deps: &[Option<u64>],
) {
    if from_ptx(prog) {
        return;
    }
    for (id, &(start, next)) in loops.iter().enumerate() {
        fold_offsets(prog, code, constant, id as u8, start, next);
    }
    addresses(prog, code, constant, deps);
    prologue(prog, code);
}

/// What a register holds inside one unrolled loop, as far as address arithmetic goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Val {
    /// A constant.
    Const,
    /// The counter, or the counter and constants.
    Counter,
    /// A value the loop does not change (hoistable).
    Inv,
    /// An invariant plus the counter's part: affine in the counter.
    Affine,
    /// Anything else (loaded data, compares, ...).
    Other,
}

/// The affine class of a sum or product and whether computing it costs an instruction once
/// (hoisted): adding the counter's part folds into an offset; combining two non-constant
/// invariants, or scaling one, is work the loop's first iteration does.
fn combine(op: &Inst, v: &dyn Fn(Reg) -> Val) -> (Val, bool) {
    use Val::*;
    let var = |x: Val| matches!(x, Inv | Affine);
    let add = |a: Val, b: Val| -> (Val, bool) {
        match (a, b) {
            (Other, _) | (_, Other) => (Other, false),
            (Const, x) | (x, Const) => (x, false),
            (Counter, Counter) => (Counter, false),
            (Counter, _) | (_, Counter) => (Affine, false),
            (Inv, Inv) => (Inv, true),
            _ => (Affine, true),
        }
    };
    let mul = |a: Val, b: Val| -> (Val, bool) {
        match (a, b) {
            (Other, _) | (_, Other) => (Other, false),
            (Const, Const) => (Const, false),
            (Const, Counter) | (Counter, Const) => (Counter, false),
            (Const, x) | (x, Const) => (x, true),
            // (A counter times an invariant: the stride is computed once.)
            (Counter, Inv) | (Inv, Counter) => (Affine, true),
            (Inv, Inv) => (Inv, true),
            _ => (Other, false),
        }
    };
    match *op {
        Inst::Add { a, b, .. } | Inst::Sub { a, b, .. } => add(v(a), v(b)),
        Inst::Mul { a, b, .. } => mul(v(a), v(b)),
        Inst::Shl { a, b, .. } if v(b) == Const => mul(v(a), Const),
        Inst::Mad { a, b, c, .. } => {
            let (p, w1) = mul(v(a), v(b));
            let (s, w2) = add(p, v(c));
            (s, (w1 || w2) && var(s))
        }
        Inst::Mov { a, .. } => (v(a), false),
        _ => (Other, false),
    }
}

/// The third rule for one constant loop (`start`: its `LoopStart`, `next`: its `ForNext`).
fn fold_offsets(
    prog: &Program,
    code: &mut [StaticInst],
    constant: &dyn Fn(Reg) -> bool,
    id: u8,
    start: usize,
    next: usize,
) {
    let Some(Inst::ForNext { var, head_pc, .. }) = prog.code.get(next).copied() else {
        return;
    };
    let body = head_pc as usize + 1..next;
    // Straight-line code only: no barrier, branch or inner loop.
    let straight = prog.code[body.clone()]
        .iter()
        .all(|i| !i.breaks_straight_line());
    if !straight || start >= body.start {
        return;
    }
    // Registers the body writes: read before their write, they hold the last iteration's.
    let mut carried = vec![false; prog.nregs];
    for pc in body.clone() {
        if let Some((r, n)) = code[pc].dst {
            for k in r..r + n as u16 {
                if let Some(c) = carried.get_mut(k as usize) {
                    *c = true;
                }
            }
        }
    }
    let mut val: Vec<Option<Val>> = vec![None; prog.nregs];
    let get = |val: &Vec<Option<Val>>, r: Reg| {
        val.get(r.0 as usize)
            .copied()
            .flatten()
            .unwrap_or(if r == var {
                Val::Counter
            } else if carried.get(r.0 as usize).copied().unwrap_or(true) {
                Val::Other
            } else if constant(r) {
                Val::Const
            } else {
                Val::Inv
            })
    };
    // (pc, class, costs once) of the integer instructions of the body.
    let mut arith: Vec<(usize, Val, bool)> = Vec::new();
    for pc in body.clone() {
        let inst = &prog.code[pc];
        let Some(ops) = inst.operands() else {
            if let Some((r, n)) = code[pc].dst {
                for k in r..r + n as u16 {
                    if let Some(s) = val.get_mut(k as usize) {
                        *s = Some(Val::Other);
                    }
                }
            }
            continue;
        };
        let (v, once) = if code[pc].class == Class::Int {
            combine(inst, &|r| get(&val, r))
        } else {
            (Val::Other, false)
        };
        let (d, n) = (ops.dst.0 .0 as usize, ops.dst.1 as usize);
        for s in val.iter_mut().skip(d).take(n.max(1)) {
            *s = Some(v);
        }
        if code[pc].class == Class::Int && v != Val::Other {
            arith.push((pc, v, once));
        }
    }
    // Only what feeds addresses folds: every reader of its register in the body is an access's
    // index or another folded instruction, and nothing outside the body reads it.
    let mut folded: Vec<usize> = arith.iter().map(|a| a.0).collect();
    loop {
        let before = folded.len();
        let kept = folded.clone();
        folded.retain(|&pc| {
            let Some((d, _)) = code[pc].dst else {
                return false;
            };
            let reads = |q: usize| {
                code[q]
                    .srcs
                    .iter()
                    .any(|&(r, n)| (r..r + n as u16).contains(&d))
            };
            // (An appended address instruction reads for the access it serves.)
            let at = |q: usize| code[q].serves.map_or(q, |a| a as usize);
            let (mut inside, mut outside) = (true, false);
            for q in (0..code.len()).filter(|&q| q != pc && reads(q)) {
                if !body.contains(&at(q)) {
                    outside = true;
                } else if q < prog.code.len() {
                    inside &= kept.contains(&q) || index_only(&prog.code[q], Reg(d));
                }
            }
            inside && !outside
        });
        if folded.len() == before {
            break;
        }
    }
    for (pc, _, once) in arith {
        if folded.contains(&pc) {
            if once {
                code[pc].once = Some(id);
            } else {
                code[pc].class = Class::Free;
            }
        }
    }
}

/// Whether every index of `m` is known to the compiler from thread and block indices,
/// constants and unrolled counters (`deps`: `swizzle::static_deps`).
fn static_index(m: &Mem, deps: &[Option<u64>]) -> bool {
    m.idx[..(m.rank as usize).min(3)]
        .iter()
        .all(|r| deps.get(r.0 as usize).copied().flatten().is_some())
}

/// Whether `inst` reads `r` only as an access's index (not as data).
fn index_only(inst: &Inst, r: Reg) -> bool {
    match *inst {
        Inst::Load(m) => m.idx[..m.rank as usize].contains(&r),
        Inst::Store(m) => m.idx[..m.rank as usize].contains(&r) && m.data != r,
        _ => false,
    }
}

/// The second rule: address instructions before every global access and every access to an
/// unswizzled shared array.
fn addresses(
    prog: &Program,
    code: &mut Vec<StaticInst>,
    constant: &dyn Fn(Reg) -> bool,
    deps: &[Option<u64>],
) {
    // The address instructions static accesses to one shared array share when their indices
    // differ by constants (which fold into the immediates): by array and the indices' roots.
    let mut base: Vec<(u16, [u16; 3], (u32, u8))> = Vec::new();
    let code_ro: &[StaticInst] = code;
    // The register `r` read at `pc` is an offset of, through adds of constants and moves.
    let root = |pc: usize, r: Reg| {
        let mut r = r;
        for q in (0..pc).rev() {
            match prog.code[q] {
                Inst::Add { dst, a, b } if dst == r && constant(b) => r = a,
                Inst::Add { dst, a, b } if dst == r && constant(a) => r = b,
                Inst::Sub { dst, a, b } if dst == r && constant(b) => r = a,
                Inst::Mov { dst, a } if dst == r => r = a,
                _ if code_ro[q]
                    .dst
                    .is_some_and(|(d, n)| (d..d + n as u16).contains(&r.0)) =>
                {
                    break
                }
                _ => {}
            }
        }
        r.0
    };
    let keys: Vec<[u16; 3]> = prog
        .code
        .iter()
        .enumerate()
        .map(|(pc, inst)| {
            let mut key = [u16::MAX; 3];
            if let Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } = *inst {
                let rank = (m.rank as usize).min(3);
                for (k, &r) in m.idx[..rank].iter().enumerate() {
                    key[k] = root(pc, r);
                }
            }
            key
        })
        .collect();
    for (pc, inst) in prog.code.iter().enumerate() {
        let m: Mem = match *inst {
            Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } => m,
            _ => continue,
        };
        if code[pc].class == Class::Free || code[pc].pre.is_some() || m.rank == 0 {
            continue;
        }
        let rank = (m.rank as usize).min(3);
        let (n, hoist) = match m.space {
            Space::Global => (1u8, None),
            Space::Shared => {
                let static_ = static_index(&m, deps);
                // (Computed at run time, the index is computed in bytes: the scaling folds
                // into the instruction computing it, and only combining dimensions costs.)
                if static_ {
                    let key = keys[pc];
                    if let Some(&(_, _, shared)) =
                        base.iter().find(|b| b.0 == m.array && b.1 == key)
                    {
                        code[pc].pre = Some(shared);
                        code[pc].hoist = Some(0);
                        continue;
                    }
                    base.push((m.array, key, (code.len() as u32, rank as u8)));
                    (rank as u8, Some(0))
                } else if rank > 1 {
                    (rank as u8 - 1, None)
                } else {
                    continue;
                }
            }
            Space::Local | Space::Const => continue,
        };
        let first = code.len() as u32;
        let idx: Vec<Regs> = code[pc].srcs[..rank].to_vec();
        for _ in 0..n {
            let mut a = StaticInst::new(Class::Int, None, &idx);
            if m.space == Space::Global {
                a.int_pipe = IntPipe::Fma; // IMAD.WIDE
            }
            a.serves = Some(pc as u32);
            code.push(a);
        }
        let access = &mut code[pc];
        access.pre = Some((first, n));
        access.hoist = hoist;
    }
    fold_constant_offsets(prog, code, constant, deps);
}

/// An integer add or subtract of a constant whose result only indexes shared arrays at static
/// addresses (`tile[ty + 1][tx + 2]`) or global buffers (`x[p + 256]`) is the access's
/// immediate offset from an address the compiler has already formed: neither it nor a global
/// access's `IMAD.WIDE` is issued.
fn fold_constant_offsets(
    prog: &Program,
    code: &mut [StaticInst],
    constant: &dyn Fn(Reg) -> bool,
    deps: &[Option<u64>],
) {
    let static_shared = |q: usize| match prog.code.get(q) {
        Some(&Inst::Load(m)) | Some(&Inst::Store(m)) => {
            m.space == Space::Shared && m.rank >= 1 && static_index(&m, deps)
        }
        _ => false,
    };
    let global = |q: usize| match prog.code.get(q) {
        Some(&Inst::Load(m)) | Some(&Inst::Store(m)) => m.space == Space::Global && m.rank >= 1,
        _ => false,
    };
    let mut fold = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        let (d, a, b) = match *inst {
            Inst::Add { dst, a, b } | Inst::Sub { dst, a, b } => (dst, a, b),
            _ => continue,
        };
        if code[pc].class != Class::Int || !(constant(a) || constant(b)) {
            continue;
        }
        let reads = |q: usize| {
            code[q]
                .srcs
                .iter()
                .any(|&(r, n)| (r..r + n as u16).contains(&d.0))
        };
        let only = (0..code.len()).filter(|&q| q != pc && reads(q)).all(|q| {
            let at = code[q].serves.map_or(q, |x| x as usize);
            (static_shared(at) || global(at)) && index_only(&prog.code[at], d)
        });
        if only {
            fold.push(pc);
        }
    }
    for pc in fold {
        code[pc].class = Class::Free;
        let d = code[pc].dst.map_or(u16::MAX, |(r, _)| r);
        for q in 0..prog.code.len() {
            if global(q) && code[q].srcs.first().is_some_and(|&(r, _)| r == d) {
                code[q].pre = None;
            }
        }
    }
}

/// The first rule: the prologue's instructions, appended and marked `prologue` (the recorder
/// issues them before a warp's first instruction; their stalls are reported at the first
/// issued instruction's line).
fn prologue(prog: &Program, code: &mut Vec<StaticInst>) {
    let Some(first) = code
        .iter()
        .take(prog.code.len())
        .position(|s| s.class != Class::Free)
    else {
        return;
    };
    let mut push = |class: Class, dst: Option<Regs>| {
        let mut s = StaticInst::new(class, dst, &[]);
        s.serves = Some(first as u32);
        s.prologue = true;
        code.push(s);
    };
    // Through the memory queue (priced like a shuffle: one wavefront of the pipe).
    push(Class::Shuffle, None); // LDC R1, c[0x0][0x28]
    let uses = |space: Space| {
        prog.code.iter().any(|i| match *i {
            Inst::Load(m) | Inst::Store(m) | Inst::Atomic { m, .. } => m.space == space,
            _ => false,
        })
    };
    let global = uses(Space::Global);
    if global {
        for _ in &prog.buffers {
            push(Class::Shuffle, None); // LDC.64 of a pointer parameter
        }
    }
    let mut seen = Vec::new();
    for &(r, init) in &prog.init {
        if let RegInit::Special(s) = init {
            if !seen.contains(&s) {
                seen.push(s);
                push(Class::Shuffle, Some((r.0, 1))); // S2R
            }
        }
    }
    let shared = uses(Space::Shared);
    if shared {
        push(Class::Shuffle, None); // S2UR SR_CgaCtaId
        push(Class::Int, None); // UMOV
        for _ in &prog.shared {
            push(Class::Int, None); // ULEA of the array's window
        }
    }
    if global {
        push(Class::Int, None); // ULDC.64 of the memory descriptor
    }
}

#[cfg(test)]
mod tests {
    use crate::trace::{static_code, Class, Recorder};
    use warpsim_kernel::ir::Inst;
    use warpsim_kernel::Program;

    fn load(shared: &str, body: &str) -> Program {
        let src = format!(
            "Program(name: \"t\", defines: {{ \"N\": 64 }}, launch: (grid: [2, 2], block: [32, 8]),
             buffers: [(name: \"inp\", ty: F32, len: \"N * N\"), (name: \"out\", ty: F32, len: \"N * N\")],
             shared: [{shared}], body: [{body}])"
        );
        warpsim_lang::load_str("t.ron", &src, &Default::default()).unwrap()
    }

    /// The events one warp records running `p` straight through (every `For` taken as the
    /// executor would report it), by the pcs the recorder is told.
    fn issued(p: &Program, pcs: &[usize]) -> usize {
        let code = static_code(p);
        let mut rec = Recorder::new(&code, 32, 32);
        for &pc in pcs {
            rec.inst(0, pc);
        }
        rec.take().warps[0].ev.len()
    }

    /// The pcs a warp executes for the body of the naive transpose's first half (a constant
    /// loop of 4 trips).
    fn trips(p: &Program) -> Vec<usize> {
        let find =
            |f: &dyn Fn(&Inst) -> bool| (0..p.code.len()).find(|&pc| f(&p.code[pc])).unwrap();
        let start = find(&|i| matches!(i, Inst::LoopStart));
        let test = find(&|i| matches!(i, Inst::ForTest { .. }));
        let next = find(&|i| matches!(i, Inst::ForNext { .. }));
        let mut pcs: Vec<usize> = (0..=start).collect();
        for _ in 0..4 {
            pcs.extend(test..=next);
        }
        pcs.extend(next + 1..p.code.len());
        pcs
    }

    /// The pc of `p`'s first integer add.
    fn first_add(p: &Program) -> usize {
        (0..p.code.len())
            .find(|&pc| matches!(p.code[pc], Inst::Add { .. }))
            .unwrap()
    }

    const TILE: &str = "(name: \"tile\", ty: F32, dims: [32, 32])";
    const LOAD: &str = r#"Let("x", "ctaid.x * 32 + tid.x"), Let("y", "ctaid.y * 32 + tid.y"),
        For(var: "j", from: 0, to: 32, step: 8, body: [
            Store("tile[tid.y + j][tid.x]", "inp[(y + j) * N + x]"),
        ])"#;

    #[test]
    fn an_unrolled_loops_offsets_fold_and_its_invariant_part_is_computed_once() {
        let p = load(TILE, LOAD);
        let code = static_code(&p);
        let classes: Vec<(Class, Option<u8>)> = (0..p.code.len())
            .filter(|&pc| matches!(p.code[pc], Inst::Add { .. } | Inst::Mad { .. }))
            .map(|pc| (code[pc].class, code[pc].once))
            .collect();
        // x and y; then in the loop y + j (folds), (y + j) * N + x (once), tid.y + j (folds).
        assert_eq!(
            classes,
            [
                (Class::Int, None),
                (Class::Int, None),
                (Class::Free, None),
                (Class::Int, Some(0)),
                (Class::Free, None)
            ]
        );
        // As the SASS: prologue LDC, 2 LDC.64, 4 S2R, S2UR, UMOV, ULEA, ULDC.64 (11); 2 LEAs
        // for x and y; the hoisted IMAD; an IMAD.WIDE per load; 2 LEAs for the tile's
        // address, once; 4 loads and 4 stores; EXIT.
        assert_eq!(issued(&p, &trips(&p)), 11 + 2 + 1 + 4 + 2 + 8 + 1);
    }

    #[test]
    fn arithmetic_that_is_also_data_is_issued_every_trip() {
        let p = load(
            TILE,
            r#"For(var: "j", from: 0, to: 32, step: 8, body: [
                   Let("k", "tid.y + j"),
                   Store("tile[k][tid.x]", "f32(k)"),
               ])"#,
        );
        let code = static_code(&p);
        let add = first_add(&p);
        assert_eq!((code[add].class, code[add].once), (Class::Int, None));
    }

    #[test]
    fn a_loop_with_a_barrier_keeps_its_arithmetic() {
        let p = load(
            TILE,
            r#"For(var: "j", from: 0, to: 32, step: 8, body: [
                   Store("tile[tid.y + j][tid.x]", "inp[tid.x]"),
                   Barrier,
               ])"#,
        );
        let code = static_code(&p);
        let add = first_add(&p);
        assert_eq!(code[add].class, Class::Int);
        assert!(code.iter().all(|s| s.once.is_none()));
    }

    #[test]
    fn a_run_time_index_of_a_shared_array_costs_only_its_second_dimension() {
        let p = load(
            TILE,
            r#"Let("v", "inp[tid.x]"), Let("i", "i32(v) % 32"),
               Store("out[tid.x]", "tile[i][tid.x]")"#,
        );
        let code = static_code(&p);
        let ld = (0..p.code.len())
            .find(|&pc| matches!(p.code[pc], Inst::Load(m) if m.space == warpsim_kernel::ir::Space::Shared))
            .unwrap();
        assert_eq!((code[ld].pre.map(|x| x.1), code[ld].hoist), (Some(1), None));
    }
}
