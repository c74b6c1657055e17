use super::*;

/// Nested `If`s with per-lane conditions:
/// `if lane < 16 { if lane even { r = 1 } else { r = 2 } } else { r = 3 }; r2 = r + 10`.
#[test]
fn nested_if_reconverges() {
    let p = P::new(vec![
        /* 0 */
        LtU {
            dst: r(1),
            a: r(0),
            b: r(20),
        },
        /* 1 */
        If {
            c: r(1),
            else_pc: 10,
            end_pc: 11,
        },
        /* 2 */
        And {
            dst: r(2),
            a: r(0),
            b: r(21),
        },
        /* 3 */
        Eq {
            dst: r(2),
            a: r(2),
            b: r(22),
        },
        /* 4 */
        If {
            c: r(2),
            else_pc: 7,
            end_pc: 8,
        },
        /* 5 */ Mov {
            dst: r(5),
            a: r(21),
        },
        /* 6 */ Else { end_pc: 8 },
        /* 7 */ Mov {
            dst: r(5),
            a: r(23),
        },
        /* 8 */ EndIf,
        /* 9 */ Else { end_pc: 11 },
        /* 10 */ Mov {
            dst: r(5),
            a: r(24),
        },
        /* 11 */ EndIf,
        /* 12 */
        Add {
            dst: r(6),
            a: r(5),
            b: r(25),
        },
    ])
    .special(0, Special::LaneId)
    .konst(20, 16)
    .konst(21, 1)
    .konst(22, 0)
    .konst(23, 2)
    .konst(24, 3)
    .konst(25, 10)
    .build();
    let o = exec(&p);
    let want = |l: u32| {
        if l >= 16 {
            3
        } else if l.is_multiple_of(2) {
            1
        } else {
            2
        }
    };
    assert_eq!(o.reg(0, 5), lanes(want));
    assert_eq!(o.reg(0, 6), lanes(|l| want(l) + 10));
    let pcs = &o.stats.per_pc;
    assert_eq!((pcs[5].executions, pcs[5].lanes), (1, 8));
    assert_eq!((pcs[7].executions, pcs[7].lanes), (1, 8));
    assert_eq!((pcs[10].executions, pcs[10].lanes), (1, 16));
    assert_eq!((pcs[12].executions, pcs[12].lanes), (1, 32));
    // Every instruction ran once (both `Else`s switch the warp, neither jumps).
    assert!(pcs.iter().all(|p| p.executions == 1));
    assert_eq!(o.stats.warp_instructions, p.code.len() as u64);
    assert_eq!(
        o.stats.thread_instructions,
        pcs.iter().map(|p| p.lanes).sum::<u64>()
    );
}

/// `If`s where no lane, or every lane, takes the then-part; and an `If` without `Else`
/// (`else_pc == end_pc`).
#[test]
fn uniform_and_else_less_ifs() {
    let p = P::new(vec![
        /* 0 */
        If {
            c: r(1),
            else_pc: 3,
            end_pc: 4,
        }, // c = 0 everywhere
        /* 1 */ Mov { dst: r(5), a: r(2) },
        /* 2 */ Else { end_pc: 4 },
        /* 3 */ Mov { dst: r(6), a: r(2) },
        /* 4 */ EndIf,
        /* 5 */
        If {
            c: r(2),
            else_pc: 8,
            end_pc: 9,
        }, // c = 1 everywhere
        /* 6 */ Mov { dst: r(7), a: r(2) },
        /* 7 */ Else { end_pc: 9 },
        /* 8 */ Mov { dst: r(8), a: r(2) },
        /* 9 */ EndIf,
        /* 10 */
        LtU {
            dst: r(3),
            a: r(0),
            b: r(4),
        }, // lane < 5
        /* 11 */
        If {
            c: r(3),
            else_pc: 13,
            end_pc: 13,
        },
        /* 12 */ Mov { dst: r(9), a: r(2) },
        /* 13 */ EndIf,
        /* 14 */
        Add {
            dst: r(10),
            a: r(9),
            b: r(2),
        },
    ])
    .special(0, Special::LaneId)
    .konst(1, 0)
    .konst(2, 1)
    .konst(4, 5)
    .build();
    let o = exec(&p);
    let pcs = &o.stats.per_pc;
    assert_eq!(o.reg(0, 5), [0; 32]);
    assert_eq!(o.reg(0, 6), [1; 32]);
    assert_eq!(o.reg(0, 7), [1; 32]);
    assert_eq!(o.reg(0, 8), [0; 32]);
    assert_eq!(o.reg(0, 9), lanes(|l| (l < 5) as u32));
    assert_eq!(o.reg(0, 10), lanes(|l| (l < 5) as u32 + 1));
    for pc in [1, 2, 8] {
        assert_eq!(pcs[pc].executions, 0, "pc {pc}");
    }
    assert_eq!(pcs[12].lanes, 5);
    assert_eq!(pcs[13].lanes, 5);
    assert_eq!(pcs[14].lanes, 32);
}

/// `for (i = 0; i < lane; i++) acc += i;` with per-lane trip counts.
pub(super) fn loop_program(limit: u16) -> Program {
    P::new(vec![
        /* 0 */ LoopStart,
        /* 1 */
        LtS {
            dst: r(3),
            a: r(1),
            b: r(limit),
        },
        /* 2 */
        LoopTest {
            c: r(3),
            exit_pc: 6,
        },
        /* 3 */
        Add {
            dst: r(2),
            a: r(2),
            b: r(1),
        },
        /* 4 */
        Add {
            dst: r(1),
            a: r(1),
            b: r(4),
        },
        /* 5 */ LoopBack { head_pc: 1 },
        /* 6 */ LoopEnd,
        /* 7 */
        Add {
            dst: r(5),
            a: r(2),
            b: r(4),
        },
    ])
    .special(0, Special::LaneId)
    .konst(1, 0)
    .konst(2, 0)
    .konst(4, 1)
    .konst(6, 0)
    .build()
}

#[test]
fn loop_with_per_lane_trip_counts() {
    let o = exec(&loop_program(0));
    assert_eq!(o.reg(0, 2), lanes(|l| l * l.saturating_sub(1) / 2));
    assert_eq!(o.reg(0, 1), lanes(|l| l));
    assert_eq!(o.reg(0, 5), lanes(|l| l * l.saturating_sub(1) / 2 + 1));
    let pcs = &o.stats.per_pc;
    assert_eq!(pcs[3].executions, 31);
    assert_eq!(pcs[3].lanes, (0..32).sum::<u64>());
    assert_eq!(pcs[1].executions, 32);
    assert_eq!(pcs[6].executions, 1);
    assert_eq!(pcs[6].lanes, 32);
    assert_eq!(pcs[7].lanes, 32);
}

#[test]
fn loop_that_no_lane_enters() {
    let o = exec(&loop_program(6)); // i < 0 never holds
    assert_eq!(o.reg(0, 2), [0; 32]);
    assert_eq!(o.reg(0, 5), [1; 32]);
    let pcs = &o.stats.per_pc;
    assert_eq!(pcs[3].executions, 0);
    assert_eq!((pcs[6].executions, pcs[6].lanes), (1, 32));
}

/// A loop inside a divergent `If`, and an `If` inside a loop.
#[test]
fn loops_and_ifs_nest() {
    // if lane >= 8 { for i in 0..lane { if i odd { acc += i } } }
    let p = P::new(vec![
        /* 0 */
        LeU {
            dst: r(7),
            a: r(8),
            b: r(0),
        },
        /* 1 */
        If {
            c: r(7),
            else_pc: 12,
            end_pc: 12,
        },
        /* 2 */ LoopStart,
        /* 3 */
        LtS {
            dst: r(3),
            a: r(1),
            b: r(0),
        },
        /* 4 */
        LoopTest {
            c: r(3),
            exit_pc: 11,
        },
        /* 5 */
        And {
            dst: r(9),
            a: r(1),
            b: r(4),
        },
        /* 6 */
        If {
            c: r(9),
            else_pc: 8,
            end_pc: 8,
        },
        /* 7 */
        Add {
            dst: r(2),
            a: r(2),
            b: r(1),
        },
        /* 8 */ EndIf,
        /* 9 */
        Add {
            dst: r(1),
            a: r(1),
            b: r(4),
        },
        /* 10 */ LoopBack { head_pc: 3 },
        /* 11 */ LoopEnd,
        /* 12 */ EndIf,
        /* 13 */
        Add {
            dst: r(5),
            a: r(2),
            b: r(4),
        },
    ])
    .special(0, Special::LaneId)
    .konst(1, 0)
    .konst(2, 0)
    .konst(4, 1)
    .konst(8, 8)
    .build();
    let o = exec(&p);
    let want = |l: u32| {
        if l >= 8 {
            (0..l).filter(|i| i % 2 == 1).sum()
        } else {
            0
        }
    };
    assert_eq!(o.reg(0, 2), lanes(want));
    assert_eq!(o.reg(0, 5), lanes(|l| want(l) + 1));
    assert_eq!(o.stats.per_pc[11].lanes, 24);
    assert_eq!(o.stats.per_pc[13].lanes, 32);
}

/// Warp 1 stores to shared memory, barrier, warp 0 reads what it stored.
#[test]
fn barrier_orders_warps() {
    let p = P::new(vec![
        /* 0 */
        Eq {
            dst: r(5),
            a: r(1),
            b: r(3),
        },
        /* 1 */
        If {
            c: r(5),
            else_pc: 5,
            end_pc: 5,
        },
        /* 2 */
        Add {
            dst: r(6),
            a: r(2),
            b: r(4),
        },
        /* 3 */ Store(shared_mem(0, &[r(0)], 1, r(6))),
        /* 4 */ Store(global_mem(0, r(2), 1, r(6))),
        /* 5 */ EndIf,
        /* 6 */ Barrier,
        /* 7 */
        Eq {
            dst: r(5),
            a: r(1),
            b: r(7),
        },
        /* 8 */
        If {
            c: r(5),
            else_pc: 11,
            end_pc: 11,
        },
        /* 9 */ Load(shared_mem(0, &[r(0)], 1, r(8))),
        /* 10 */ Store(global_mem(0, r(2), 1, r(8))),
        /* 11 */ EndIf,
    ])
    .block([64, 1, 1])
    .special(0, Special::LaneId)
    .special(1, Special::WarpId)
    .special(2, Special::TidLinear)
    .konst(3, 1)
    .konst(4, 1000)
    .konst(7, 0)
    .shared(tile("t", Elem::U32, &[32], 0, 0))
    .buffer("out", Elem::U32, 64)
    .build();
    let o = exec(&p);
    let out = o.global.read(0);
    assert_eq!(out[..32], lanes(|l| 32 + l + 1000));
    assert_eq!(out[32..], lanes(|l| 32 + l + 1000));
    assert_eq!(o.stats.per_pc[6].executions, 2);
    assert_eq!(o.stats.per_pc[9].wavefronts, 1);
}

#[test]
fn barrier_in_divergent_code_faults() {
    let p = P::new(vec![
        LtU {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        If {
            c: r(1),
            else_pc: 3,
            end_pc: 3,
        },
        Barrier,
        EndIf,
    ])
    .special(0, Special::LaneId)
    .konst(2, 16)
    .build();
    let o = exec_cfg(&p, Config::default(), [0; 3]);
    let f = o.fault();
    assert_eq!(f.pc, Some(2));
    assert!(
        matches!(
            f.kind,
            FaultKind::DivergentBarrier {
                reached: 0x0000_ffff,
                missed: 0xffff_0000,
                ..
            }
        ),
        "{f}"
    );
    assert_eq!(
        f.kind.to_string(),
        "barrier inside divergent code: in warp 0 (threads 0-31), lanes 0-15 reached it, \
         lanes 16-31 did not"
    );
    assert!(f.help.as_ref().unwrap().contains("move the barrier out"));
}

#[test]
fn barrier_skipped_by_a_warp_faults() {
    let p = P::new(vec![
        Eq {
            dst: r(2),
            a: r(1),
            b: r(3),
        },
        If {
            c: r(2),
            else_pc: 3,
            end_pc: 3,
        },
        Barrier,
        EndIf,
    ])
    .block([64, 1, 1])
    .special(1, Special::WarpId)
    .konst(3, 0)
    .build();
    let o = exec_cfg(&p, Config::default(), [0; 3]);
    let f = o.fault();
    assert_eq!(f.pc, Some(2));
    assert!(
        matches!(
            &f.kind,
            FaultKind::DeadlockedBarrier { finished, .. } if finished == "warp 1 (threads 32-63)"
        ),
        "{f}"
    );
}

#[test]
fn partial_warps_pass_barriers() {
    // 40 threads: warp 1 has 8 live lanes, and its barrier is not divergent.
    let p = P::new(vec![
        Barrier,
        Add {
            dst: r(1),
            a: r(0),
            b: r(0),
        },
        Barrier,
    ])
    .block([40, 1, 1])
    .special(0, Special::TidLinear)
    .build();
    let o = exec(&p);
    assert_eq!(o.stats.per_pc[1].lanes, 40);
    assert_eq!(o.reg(1, 1)[..8], lanes(|l| 2 * (32 + l))[..8]);
}

#[test]
fn runaway_loop_faults() {
    let p = P::new(vec![
        LoopStart,
        LoopTest {
            c: r(1),
            exit_pc: 3,
        },
        LoopBack { head_pc: 1 },
        LoopEnd,
    ])
    .konst(1, 1)
    .build();
    let cfg = Config {
        max_steps: 1000,
        ..Config::default()
    };
    let o = exec_cfg(&p, cfg, [0; 3]);
    let f = o.fault();
    assert_eq!(f.pc, Some(2));
    assert!(
        matches!(
            f.kind,
            FaultKind::RunawayLoop {
                max_steps: 1000,
                ..
            }
        ),
        "{f}"
    );
    assert_eq!(
        f.help.as_deref(),
        Some("raise --max-steps or check the loop's condition")
    );
    assert!(o.stats.warp_instructions > 1000 && o.stats.warp_instructions < 1010);
}

pub(super) fn div_program(guard: bool) -> Program {
    let div = DivS {
        dst: r(2),
        a: r(1),
        b: r(0),
    };
    let code = if guard {
        vec![
            Ne {
                dst: r(3),
                a: r(0),
                b: r(4),
            },
            If {
                c: r(3),
                else_pc: 3,
                end_pc: 3,
            },
            div,
            EndIf,
        ]
    } else {
        vec![div]
    };
    P::new(code)
        .block([8, 4, 1])
        .special(0, Special::TidLinear)
        .konst(1, 100)
        .konst(4, 0)
        .build()
}

#[test]
fn division_by_zero_faults_only_in_active_lanes() {
    let o = exec_cfg(&div_program(false), Config::default(), [2, 1, 0]);
    let f = o.fault();
    assert_eq!(f.pc, Some(0));
    assert_eq!(f.thread, Some([0, 0, 0]));
    assert_eq!(f.block, [2, 1, 0]);
    assert!(
        matches!(
            f.kind,
            FaultKind::DivisionByZero {
                remainder: false,
                ..
            }
        ),
        "{f}"
    );
    assert!(f.text().contains("thread (0,0,0) of block (2,1,0)"), "{f}");

    let o = exec(&div_program(true));
    assert_eq!(o.reg(0, 2), lanes(|l| 100u32.checked_div(l).unwrap_or(0)));

    // Remainder too; the faulting thread is named by (x, y, z).
    let p = P::new(vec![
        Sub {
            dst: r(3),
            a: r(0),
            b: r(4),
        },
        RemU {
            dst: r(2),
            a: r(1),
            b: r(3),
        },
    ])
    .block([8, 4, 1])
    .special(0, Special::TidLinear)
    .konst(1, 100)
    .konst(4, 13)
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert_eq!(f.thread, Some([5, 1, 0]));
    assert!(
        matches!(
            f.kind,
            FaultKind::DivisionByZero {
                remainder: true,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn a_long_block_reports_progress_and_still_stops_at_max_steps() {
    use crate::flow::PROGRESS_STEPS;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let p = P::new(vec![
        LoopStart,
        LoopTest {
            c: r(1),
            exit_pc: 3,
        },
        LoopBack { head_pc: 1 },
        LoopEnd,
    ])
    .konst(1, 1)
    .build();
    let max_steps = 3 * PROGRESS_STEPS + 100;
    let cfg = Config {
        max_steps,
        ..Config::default()
    };
    let global = Global::new(&p);
    let mut stats = Stats::new(&p, &cfg.geometry);
    let (calls, told) = (AtomicU64::new(0), AtomicU64::new(0));
    let on_steps = |n| {
        calls.fetch_add(1, Relaxed);
        told.fetch_add(n, Relaxed);
    };
    let v = Validated::new(&p, &cfg, &global)
        .unwrap()
        .with_progress(&on_steps);
    let f = v.run_block([0; 3], &mut stats).unwrap_err();
    assert!(matches!(f.kind, FaultKind::RunawayLoop { .. }), "{f}");
    assert_eq!(calls.load(Relaxed), 3);
    assert_eq!(told.load(Relaxed), 3 * PROGRESS_STEPS);
    assert!(stats.warp_instructions > max_steps && stats.warp_instructions < max_steps + 10);
}
