//! The hoisting window is the GPU description's assumption (`compiler.hoist_window`), not a
//! constant of the model.

use super::*;

/// The trace of `a_hoisted_load_does_not_hold_the_reader_it_passed`: two global loads through
/// the same registers, each stored to shared memory. With a window of 1 nothing is issued
/// ahead of program order, so the second load issues only once the first's data is stored and
/// its latency (at least an L2 hit's) adds to the first's; with the preset's window it is
/// hoisted and both are in flight together (one DRAM latency in all).
#[test]
fn the_hoisting_window_comes_from_the_gpu_description() {
    let code = vec![
        StaticInst::new(Class::Int, Some((1, 1)), &[(0, 1)]),
        StaticInst::new(Class::GlobalLd, Some((2, 1)), &[(1, 1)]),
        StaticInst::new(Class::SharedSt, None, &[(3, 1), (2, 1)]),
        StaticInst::new(Class::Int, Some((1, 1)), &[(0, 1)]),
        StaticInst::new(Class::GlobalLd, Some((2, 1)), &[(1, 1)]),
        StaticInst::new(Class::SharedSt, None, &[(3, 1), (2, 1)]),
        StaticInst::new(Class::Exit, None, &[]),
    ];
    let trace = || {
        let ev = vec![
            ev(0, 0, 0),
            ev(1, 1, 1),
            ev(2, 1, 1),
            ev(3, 0, 0),
            Ev {
                s: 1,
                ..ev(4, 1, 1)
            },
            ev(5, 1, 1),
            ev(6, 0, 0),
        ];
        vec![block(vec![WarpTrace {
            ev,
            sectors: vec![0, 1 << 48],
        }])]
    };
    let mut g = bare();
    assert_eq!(g.compiler.hoist_window, 24);
    let dram = g.global.dram as u64;
    let hoisted = run_code(&g, &code, trace(), 32).elapsed_cycles;
    g.compiler.hoist_window = 1;
    let in_order = run_code(&g, &code, trace(), 32).elapsed_cycles;
    assert!(hoisted < dram + 100, "{hoisted}");
    let l2 = g.global.l2_hit as u64;
    assert!(in_order >= hoisted + l2, "{hoisted} {in_order}");
}
