use super::flow::{div_program, loop_program};
use super::*;

#[test]
fn fault_into_diag_points_at_the_line() {
    let p = div_program(false);
    let f = exec_cfg(&p, Config::default(), [1, 0, 0])
        .result
        .unwrap_err();
    let d = f.into_diag(&p);
    assert_eq!(d.phase, Phase::Runtime);
    assert_eq!(d.location, "test.ron:1:3");
    assert_eq!(d.line(), Some(1));
    assert!(
        d.message.contains("integer division by zero in `inst 0`"),
        "{}",
        d.message
    );
    assert!(
        d.message.contains("thread (0,0,0) of block (1,0,0)"),
        "{}",
        d.message
    );
    assert!(d.help.is_some());
}

#[test]
fn malformed_programs_fault_instead_of_panicking() {
    let cases: Vec<Program> = vec![
        // A register past nregs.
        {
            let mut p = P::new(vec![Add {
                dst: r(40),
                a: r(0),
                b: r(0),
            }])
            .build();
            p.nregs = 32;
            p
        },
        // A 64-bit operand whose high word is past nregs.
        {
            let mut p = P::new(vec![DAdd {
                dst: r(0),
                a: r(0),
                b: r(3),
            }])
            .build();
            p.nregs = 4;
            p
        },
        // A jump outside the code.
        P::new(vec![LoopBack { head_pc: 99 }]).build(),
        // No frames.
        {
            let mut p = P::new(vec![
                If {
                    c: r(0),
                    else_pc: 1,
                    end_pc: 1,
                },
                EndIf,
            ])
            .build();
            p.max_depth = 0;
            p
        },
        // Pop without push.
        P::new(vec![EndIf]).build(),
        // A missing shared array / buffer, wrong rank, bad vector.
        P::new(vec![Load(shared_mem(3, &[r(0)], 1, r(1)))]).build(),
        P::new(vec![Load(global_mem(0, r(0), 1, r(1)))]).build(),
        P::new(vec![Load(shared_mem(0, &[r(0)], 1, r(1)))])
            .shared(tile("t", Elem::F32, &[4, 4], 0, 0))
            .build(),
        P::new(vec![Load(shared_mem(0, &[r(0)], 3, r(1)))])
            .shared(tile("t", Elem::F32, &[16], 0, 0))
            .build(),
        P::new(vec![Load(shared_mem(0, &[r(0)], 4, r(1)))])
            .shared(tile("t", Elem::F64, &[16], 0, 0))
            .build(),
        // A swizzle group wider than the row.
        P::new(vec![Load(shared_mem(0, &[r(0), r(0)], 1, r(1)))])
            .shared(tile("t", Elem::F32, &[4, 4], 0, 8))
            .build(),
        // Falling off the end (no Exit).
        {
            let mut p = P::new(vec![]).build();
            p.code.clear();
            p
        },
    ];
    for (i, p) in cases.iter().enumerate() {
        let o = exec_cfg(p, Config::default(), [0; 3]);
        let f = o.result.expect_err(&format!("case {i} should fault"));
        assert!(
            matches!(f.kind, FaultKind::Malformed(_)),
            "case {i} is a loader bug: {f}"
        );
    }
    // Bad geometry.
    let p = P::new(vec![]).build();
    let cfg = Config {
        geometry: Geometry {
            banks: 0,
            bank_bytes: 4,
        },
        ..Config::default()
    };
    let f = exec_cfg(&p, cfg, [0; 3]).result.unwrap_err();
    assert!(matches!(f.kind, FaultKind::InvalidGeometry { .. }), "{f}");
    // Global memory for another program.
    let p = P::new(vec![]).buffer("b", Elem::U32, 10).build();
    let mut stats = Stats::new(&p, &Geometry::H200);
    let g = Global { buffers: vec![] };
    let f = run_block(&p, &Config::default(), [0; 3], &g, &mut stats).unwrap_err();
    assert!(
        matches!(
            f.kind,
            FaultKind::GlobalMismatch {
                need: Some(10),
                have: 0,
                ..
            }
        ),
        "{f}"
    );
    // An empty block does nothing.
    let p = P::new(vec![]).block([0, 1, 1]).build();
    assert!(exec_cfg(&p, Config::default(), [0; 3]).result.is_ok());
}

#[test]
fn stats_merge_and_resize() {
    let p = loop_program(0);
    let mut total = Stats::new(&p, &Geometry::H200);
    let g = Global::new(&p);
    for _ in 0..3 {
        let mut s = Stats::new(&p, &Geometry::H200);
        run_block(&p, &Config::default(), [0; 3], &g, &mut s).unwrap();
        total.merge(&s);
    }
    let mut one = Stats::new(&p, &Geometry::H200);
    run_block(&p, &Config::default(), [0; 3], &g, &mut one).unwrap();
    assert_eq!(total.warp_instructions, 3 * one.warp_instructions);
    assert_eq!(total.per_pc[3].lanes, 3 * one.per_pc[3].lanes);
    // A stats too small for the program is grown rather than indexed out of bounds.
    let mut small = Stats {
        per_pc: vec![],
        per_bank: vec![],
        per_pc_bank: vec![],
        warp_instructions: 0,
        thread_instructions: 0,
        races: Default::default(),
        first_accesses: vec![],
        printf: Default::default(),
    };
    run_block(&p, &Config::default(), [0; 3], &g, &mut small).unwrap();
    assert_eq!(small, one);
}

/// A quick, debug-build-friendly workload: 8 warps, each looping 200 times over a few
/// instructions with shared accesses, checking exact instruction counts.
#[test]
fn quick_workload() {
    let p = P::new(vec![
        /* 0 */ LoopStart,
        /* 1 */
        LtS {
            dst: r(3),
            a: r(1),
            b: r(6),
        },
        /* 2 */
        LoopTest {
            c: r(3),
            exit_pc: 9,
        },
        /* 3 */ Load(shared_mem(0, &[r(0)], 1, r(7))),
        /* 4 */
        Add {
            dst: r(7),
            a: r(7),
            b: r(1),
        },
        /* 5 */ Store(shared_mem(0, &[r(0)], 1, r(7))),
        /* 6 */
        Add {
            dst: r(2),
            a: r(2),
            b: r(1),
        },
        /* 7 */
        Add {
            dst: r(1),
            a: r(1),
            b: r(4),
        },
        /* 8 */ LoopBack { head_pc: 1 },
        /* 9 */ LoopEnd,
        /* 10 */ Barrier,
    ])
    .block([256, 1, 1])
    .special(0, Special::TidLinear)
    .konst(1, 0)
    .konst(2, 0)
    .konst(4, 1)
    .konst(6, 200)
    .shared(tile("acc", Elem::U32, &[256], 0, 0))
    .build();
    let o = exec(&p);
    // LoopStart, 201 tests of 2, 200 bodies of 6 (with LoopBack), LoopEnd, Barrier, Exit
    let per_warp = 1 + 201 * 2 + 200 * 6 + 1 + 1 + 1;
    assert_eq!(o.stats.warp_instructions, 8 * per_warp);
    assert_eq!(o.stats.thread_instructions, 8 * 32 * per_warp);
    assert_eq!(o.reg(7, 2), [200 * 199 / 2; 32]);
    assert_eq!(o.stats.per_pc[3].wavefronts, 8 * 200);
    assert_eq!(o.stats.conflicts(), 0);
}

/// One instruction from raw numbers, covering every kind of operand and control flow.
/// Every kind of instruction has a listing line that starts with its mnemonic.
#[test]
fn every_instruction_displays() {
    for k in 0..39 {
        let i = raw_inst(k, [1, 2, 3, 4], [5, 6], [1, 1, 2, 3]);
        let s = i.to_string();
        let op = match s.split([' ', '.', ',']).next().unwrap() {
            "ld" => "load",
            "st" => "store",
            op => op,
        };
        assert!(
            format!("{i:?}").to_ascii_lowercase().starts_with(op),
            "{i:?} shows as {s:?}"
        );
        assert!(!s.contains("Reg("), "{s}");
    }
}

fn raw_inst(k: u8, g: [u16; 4], pcs: [u32; 2], misc: [u8; 4]) -> Inst {
    let [dst, a, b, c] = g.map(Reg);
    let elem = |x: u8| [Elem::F32, Elem::F64, Elem::U32, Elem::I32][x as usize % 4];
    let mem = Mem {
        space: if misc[0] & 1 == 0 {
            Space::Shared
        } else {
            Space::Global
        },
        array: misc[1] as u16 % 3,
        rank: misc[2] % 4,
        idx: [a, b, c],
        vec: [1, 2, 3, 4][misc[3] as usize % 4],
        data: dst,
        elem: None,
    };
    match k % 39 {
        0 => Mov { dst, a },
        1 => Mov64 { dst, a },
        2 => Select { dst, c, a, b },
        3 => Select64 { dst, c, a, b },
        4 => Add { dst, a, b },
        5 => DivS { dst, a, b },
        6 => DivU { dst, a, b },
        7 => RemS { dst, a, b },
        8 => RemU { dst, a, b },
        9 => Shl { dst, a, b },
        10 => ShrS { dst, a, b },
        11 => FAdd { dst, a, b },
        12 => FRem { dst, a, b },
        13 => FFma { dst, a, b, c },
        14 => DAdd { dst, a, b },
        15 => DRem { dst, a, b },
        16 => DFma { dst, a, b, c },
        17 => DLt { dst, a, b },
        18 => Cvt {
            dst,
            a,
            from: elem(misc[0]),
            to: elem(misc[1]),
        },
        19 | 20 => Load(mem),
        21 | 22 => Store(mem),
        23 => If {
            c,
            else_pc: pcs[0],
            end_pc: pcs[1],
        },
        24 => Else { end_pc: pcs[0] },
        25 => EndIf,
        26 => LoopStart,
        27 => LoopTest { c, exit_pc: pcs[0] },
        28 => LoopBack { head_pc: pcs[0] },
        29 => LoopEnd,
        30 => Barrier,
        31 => Exit,
        32 => AbsS { dst, a },
        33 => DSqrt { dst, a },
        34 => Mad { dst, a, b, c },
        35 => DivS2 {
            dst,
            a,
            k: misc[0] % 32,
        },
        36 => RemS2 {
            dst,
            a,
            k: misc[1] % 32,
        },
        37 => ForTest {
            a,
            b,
            signed: misc[2] & 1 == 0,
            exit_pc: pcs[0],
        },
        _ => ForNext {
            var: dst,
            step: a,
            head_pc: pcs[0],
        },
    }
}

fn raw_init(reg: u16, kind: u8, v: u32) -> (Reg, RegInit) {
    let d = if v % 16 == 15 { 3 } else { (v % 3) as u8 };
    let init = match kind % 10 {
        0 => RegInit::Special(Special::Tid(d)),
        1 => RegInit::Special(Special::TidLinear),
        2 => RegInit::Special(Special::Ctaid(d)),
        3 => RegInit::Special(Special::Ntid(d)),
        4 => RegInit::Special(Special::Nctaid(d)),
        5 => RegInit::Special(Special::LaneId),
        6 => RegInit::Special(Special::WarpId),
        7 => RegInit::Const([0, 1, 2, 4, 31, 32, u32::MAX, 0x8000_0000][v as usize % 8]),
        _ => RegInit::Const(v),
    };
    (Reg(reg), init)
}

fn raw_shared(dims: Vec<u32>, pad: u32, swizzle: u32, elem: u8) -> SharedInfo {
    let elem = [Elem::F32, Elem::F64, Elem::U32, Elem::I32][elem as usize % 4];
    tile("s", elem, &dims, pad, swizzle)
}

/// An instruction's raw numbers: see [`raw_inst`].
type RawInst = (u8, [u16; 4], [u32; 2], [u8; 4]);

/// A random program's parts, as drawn by the property test below.
#[derive(Debug)]
struct RawProgram {
    /// Repair the common defects, so that most programs run rather than fail the checks.
    tidy: bool,
    code: Vec<RawInst>,
    exit: bool,
    nregs: usize,
    init: Vec<(u16, u8, u32)>,
    shared: Vec<(Vec<u32>, u32, usize, u8)>,
    buffers: Vec<(u8, u64)>,
    block: [u32; 3],
    max_depth: usize,
}

fn raw_program() -> impl proptest::strategy::Strategy<Value = RawProgram> {
    use proptest::prelude::*;
    use proptest::{array, collection::vec};
    (
        prop::bool::weighted(0.75),
        vec(
            (
                0u8..34,
                array::uniform4(0u16..24),
                array::uniform2(0u32..32),
                array::uniform4(any::<u8>()),
            ),
            0..24,
        ),
        prop::bool::weighted(0.9),
        0usize..32,
        vec((0u16..24, 0u8..10, any::<u32>()), 0..12),
        vec((vec(1u32..40, 1..4), 0u32..3, 0usize..5, 0u8..4), 0..3),
        vec((0u8..4, 0u64..100), 0..3),
        (0u32..70, 1u32..3, 1u32..3),
        0usize..4,
    )
        .prop_map(
            |(tidy, code, exit, nregs, init, shared, buffers, block, max_depth)| RawProgram {
                tidy,
                code,
                exit,
                nregs,
                init,
                shared,
                buffers,
                block: [block.0, block.1, block.2],
                max_depth,
            },
        )
}

fn build_raw(raw: RawProgram) -> Program {
    let tidy = raw.tidy;
    let mut p = P::new(
        raw.code
            .into_iter()
            .map(|(k, g, pcs, misc)| raw_inst(k, g, pcs, misc))
            .collect(),
    )
    .block(raw.block);
    p.nregs = if tidy { 26 + raw.nregs % 6 } else { raw.nregs };
    p.max_depth = raw.max_depth;
    p.init = raw
        .init
        .into_iter()
        .map(|(r, k, v)| raw_init(r, k, if tidy { v % 15 } else { v }))
        .collect();
    let mut shared = raw.shared;
    if tidy && shared.is_empty() {
        shared.push((vec![8, 32], 1, 0, 0));
    }
    for (dims, pad, swz, elem) in shared {
        let last = *dims.last().unwrap();
        let swizzle = [0, 1, 2, 4, last][swz];
        let swizzle = if tidy && last % swizzle.max(1) != 0 {
            0
        } else {
            swizzle
        };
        p = p.shared(raw_shared(dims, pad, swizzle, elem));
    }
    let mut buffers = raw.buffers;
    if tidy && buffers.is_empty() {
        buffers.push((2, 64));
    }
    for (k, (elem, len)) in buffers.into_iter().enumerate() {
        let elem = [Elem::F32, Elem::F64, Elem::U32, Elem::I32][elem as usize];
        p = p.buffer(&format!("b{k}"), elem, len);
    }
    let mut prog = p.build();
    if tidy {
        // Jumps forward (or, for `LoopBack`, backward) within the code; memory operands
        // that name an existing array with the right rank and a supported vector.
        let n = prog.code.len() as Pc;
        for (pc, inst) in prog.code.iter_mut().enumerate() {
            let pc = pc as Pc;
            let fwd = |t: &mut Pc| *t = pc + 1 + *t % (n - pc - 1).max(1);
            match inst {
                If {
                    else_pc, end_pc, ..
                } => {
                    fwd(else_pc);
                    fwd(end_pc);
                }
                Else { end_pc: t } | LoopTest { exit_pc: t, .. } => fwd(t),
                LoopBack { head_pc } => *head_pc %= pc + 1,
                Load(m) | Store(m) => {
                    let (count, elem) = match m.space {
                        Space::Shared => (prog.shared.len(), prog.shared[0].elem),
                        // (These programs have no local or constant memory.)
                        Space::Global | Space::Local | Space::Const => {
                            m.space = Space::Global;
                            (prog.buffers.len(), prog.buffers[0].elem)
                        }
                    };
                    m.array %= count as u16;
                    let (rank, elem) = match m.space {
                        Space::Shared => {
                            let s = &prog.shared[m.array as usize];
                            (s.dims.len(), s.elem)
                        }
                        Space::Global | Space::Local | Space::Const => (1, elem),
                    };
                    m.rank = rank as u8;
                    if m.vec == 3 {
                        m.vec = 4;
                    }
                    if elem == Elem::F64 && m.vec == 4 {
                        m.vec = 2;
                    }
                }
                _ => {}
            }
        }
    }
    if !raw.exit {
        prog.code.pop();
        prog.info.pop();
    }
    prog
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

    /// Any program, well-formed or not, runs to completion or to a fault: never a panic,
    /// never an instruction with no active lane, and the totals match the per-pc counts.
    #[test]
    fn any_program_runs_or_faults(raw in raw_program()) {
        check_any_program(raw)?;
    }
}

fn check_any_program(raw: RawProgram) -> Result<(), proptest::test_runner::TestCaseError> {
    let prog = build_raw(raw);
    let cfg = Config {
        max_steps: 2000,
        ..Config::default()
    };
    let o = exec_cfg(&prog, cfg, [1, 0, 2]);
    let s = &o.stats;
    for ps in &s.per_pc {
        proptest::prop_assert!(ps.lanes >= ps.executions);
    }
    proptest::prop_assert_eq!(
        s.warp_instructions,
        s.per_pc.iter().map(|p| p.executions).sum::<u64>()
    );
    proptest::prop_assert_eq!(
        s.thread_instructions,
        s.per_pc.iter().map(|p| p.lanes).sum::<u64>()
    );
    if let Err(f) = o.result {
        let d = f.into_diag(&prog);
        proptest::prop_assert_eq!(d.phase, Phase::Runtime);
    }
    Ok(())
}

/// Throughput on one core (run with `--release -- --ignored --nocapture`): a loop of 7
/// arithmetic instructions and 4 of loop control, with 0, 1 or 6 shared loads (of a
/// 2-D tile, half of them broadcasts) per iteration.
#[test]
#[ignore]
fn throughput() {
    for loads in [0, 1, 6] {
        let mut body = vec![
            LoopStart,
            LtS {
                dst: r(3),
                a: r(1),
                b: r(6),
            },
            LoopTest {
                c: r(3),
                exit_pc: 0,
            },
            FAdd {
                dst: r(8),
                a: r(7),
                b: r(8),
            },
            FMul {
                dst: r(11),
                a: r(8),
                b: r(8),
            },
            Add {
                dst: r(2),
                a: r(2),
                b: r(1),
            },
            Xor {
                dst: r(9),
                a: r(2),
                b: r(0),
            },
            MinS {
                dst: r(10),
                a: r(9),
                b: r(2),
            },
            And {
                dst: r(12),
                a: r(1),
                b: r(13),
            },
            Add {
                dst: r(1),
                a: r(1),
                b: r(4),
            },
        ];
        for k in 0..loads {
            let idx = if k % 2 == 0 {
                [r(12), r(14)]
            } else {
                [r(15), r(12)]
            };
            body.push(Load(shared_mem(0, &idx, 1, r(7))));
        }
        body.push(LoopBack { head_pc: 1 });
        let exit = body.len() as Pc;
        body[2] = LoopTest {
            c: r(3),
            exit_pc: exit,
        };
        body.push(LoopEnd);
        let p = P::new(body)
            .block([256, 1, 1])
            .special(0, Special::TidLinear)
            .special(14, Special::LaneId)
            .special(15, Special::WarpId)
            .konst(1, 0)
            .konst(4, 1)
            .konst(6, 50_000)
            .konst(13, 7)
            .shared(tile("s", Elem::F32, &[32, 32], 0, 0))
            .build();
        let t = std::time::Instant::now();
        let o = exec(&p);
        let secs = t.elapsed().as_secs_f64();
        let n = o.stats.warp_instructions as f64;
        println!(
            "{loads} shared loads per 11 instructions: {n} warp instructions in {secs:.3} s: \
             {:.1} M/s",
            n / secs / 1e6
        );
    }
}
