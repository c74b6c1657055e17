//! Issue 38, `calibration/probes/conflict_cost/DESIGN.md`: D1 (a byte-addressed access waits
//! for its address registers) and D2 (a warp's shared instructions are served one after
//! another).

use super::*;
use warpsim_kernel::ir::{Inst, Mem, Reg, Space};

/// D1: a load, store or atomic of the PTX front end (`rank` 0) reads its address register
/// (two for a global pointer) and its offset register, so it waits for them; an indexed
/// access reads its index registers as before.
#[test]
fn a_byte_addressed_access_waits_for_its_address() {
    let src = "Program(name: \"t\", launch: (grid: [1], block: [32]),
         buffers: [(name: \"out\", ty: F32, len: 32)],
         shared: [(name: \"s\", ty: F32, dims: [32])],
         body: [Store(\"s[tid.x]\", \"1.0\"), Barrier,
                Store(\"out[tid.x]\", \"s[31 - tid.x]\")])";
    let mut p = warpsim_lang::load_str("t.ron", src, &Default::default()).unwrap();
    let pc = (0..p.code.len())
        .find(|&pc| matches!(p.code[pc], Inst::Load(m) if m.space == Space::Shared))
        .expect("a shared load");
    let Inst::Load(m) = p.code[pc] else {
        unreachable!()
    };
    let indexed = static_code(&p)[pc].srcs.clone();
    assert_eq!(indexed, vec![(m.idx[0].0, 1)]);
    for (space, words) in [(Space::Shared, 1), (Space::Global, 2), (Space::Local, 1)] {
        p.code[pc] = Inst::Load(Mem {
            space,
            rank: 0,
            idx: [Reg(5), Reg(7), Reg(0)],
            ..m
        });
        assert_eq!(
            static_code(&p)[pc].srcs,
            vec![(5, words), (7, 1)],
            "{space:?}"
        );
    }
}

/// One warp: two independent shared loads of `n` wavefronts each, an add of both, exit.
fn two_loads(n: u16) -> (Vec<StaticInst>, WarpTrace) {
    let code = vec![
        StaticInst::new(Class::SharedLd, Some((1, 1)), &[(0, 1)]),
        StaticInst::new(Class::SharedLd, Some((2, 1)), &[(3, 1)]),
        StaticInst::new(Class::Int, Some((4, 1)), &[(1, 1), (2, 1)]),
        StaticInst::new(Class::Exit, None, &[]),
    ];
    let ev = vec![ev(0, n, 1), ev(1, n, 1), ev(2, 0, 0), ev(3, 0, 0)];
    (
        code,
        WarpTrace {
            ev,
            sectors: Vec::new(),
        },
    )
}

/// D2: a lone warp's second 32-way load is served after its first (2 × 64 cycles of the pipe,
/// then the 21-cycle latency before the add), not beside it on the other server; two warps of
/// a block take one server each and end together, as one warp alone does.
#[test]
fn a_warps_shared_instructions_are_served_one_after_another() {
    let g = bare();
    let n = 32u16;
    let busy = n as u64 * g.shared.cycles_per_wavefront as u64;
    let lat = g.shared.latency_base as u64;
    let (code, w) = two_loads(n);
    let one = run_code(&g, &code, vec![block(vec![w.clone()])], 32);
    // The add waits for the second load's data: 2 × busy + latency after the first load.
    assert!(
        one.elapsed_cycles >= 2 * busy + lat && one.elapsed_cycles <= 2 * busy + lat + 4,
        "{}",
        one.elapsed_cycles
    );
    let short = one.detail.cycles[Reason::ShortScoreboard as usize];
    // (less the cycles before the add is the next instruction: the loads issue 4 apart)
    assert!(short >= 2 * busy + lat - 8, "{short}");
    let two = run_code(&g, &code, vec![block(vec![w.clone(), w])], 64);
    assert!(
        two.elapsed_cycles.abs_diff(one.elapsed_cycles) <= 2,
        "{} vs {}",
        two.elapsed_cycles,
        one.elapsed_cycles
    );
}
