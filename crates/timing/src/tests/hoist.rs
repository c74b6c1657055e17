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
    let (code, trace) = (two_loads(0), two_loads_trace);
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

/// Hoisting does not depend on register numbers: the same two loads through registers from
/// 1,000 on (a kernel as large as a FlashAttention loop has them) are hoisted as through
/// registers 0-3. (Until 2026-12-07 an instruction with a register from 256 on was never
/// hoisted: such kernels issued their independent loads one after another.)
#[test]
fn hoisting_does_not_depend_on_register_numbers() {
    let trace = two_loads_trace;
    let g = bare();
    let run = |code: &[StaticInst]| {
        let launch = LaunchShape {
            blocks: 1,
            threads: 32,
            shared_bytes: 0,
            regs_per_thread: 32,
            nregs: 1008,
            buffer_bytes: vec![1 << 20],
        };
        let mut m = Model::new(&g, code, launch, Some(0)).unwrap();
        for b in trace() {
            m.feed(b);
        }
        m.finish().elapsed_cycles
    };
    let (low, high) = (run(&two_loads(0)), run(&two_loads(1000)));
    assert_eq!(low, high);
    assert!(low < g.global.dram as u64 + 100, "{low}");
}

/// Two global loads through the same registers (from `o` on), each stored to shared memory.
pub(super) fn two_loads(o: u16) -> Vec<StaticInst> {
    vec![
        StaticInst::new(Class::Int, Some((o + 1, 1)), &[(o, 1)]),
        StaticInst::new(Class::GlobalLd, Some((o + 2, 1)), &[(o + 1, 1)]),
        StaticInst::new(Class::SharedSt, None, &[(o + 3, 1), (o + 2, 1)]),
        StaticInst::new(Class::Int, Some((o + 1, 1)), &[(o, 1)]),
        StaticInst::new(Class::GlobalLd, Some((o + 2, 1)), &[(o + 1, 1)]),
        StaticInst::new(Class::SharedSt, None, &[(o + 3, 1), (o + 2, 1)]),
        StaticInst::new(Class::Exit, None, &[]),
    ]
}

/// [`two_loads`]' trace: one warp, the second load's lanes on another sector.
pub(super) fn two_loads_trace() -> Vec<BlockTrace> {
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
}
