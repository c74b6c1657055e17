use super::*;
use warpsim_lang::{load_str, Options};
use warpsim_smem::Op;

const TRANSPOSE: &str = r#"Program(
    name: "transpose",
    defines: { "N": 64, "PAD": 0 },
    launch: (grid: ["N / 32", "N / 32"], block: [32, 8]),
    buffers: [
        (name: "inp", ty: F32, len: "N * N", init: Random(1)),
        (name: "out", ty: F32, len: "N * N", expect: "inp[(i % N) * N + i / N]"),
    ],
    shared: [(name: "tile", ty: F32, dims: [32, 32], pad: "PAD")],
    body: [
        Let("x", "ctaid.x * 32 + tid.x"),
        Let("y", "ctaid.y * 32 + tid.y"),
        For(var: "j", from: 0, to: 32, step: 8, body: [
            Store("tile[tid.y + j][tid.x]", "inp[(y + j) * N + x]"),
        ]),
        Barrier,
        Let("x2", "ctaid.y * 32 + tid.x"),
        Let("y2", "ctaid.x * 32 + tid.y"),
        For(var: "j", from: 0, to: 32, step: 8, body: [
            Store("out[(y2 + j) * N + x2]", "tile[tid.x][tid.y + j]"),
        ]),
    ],
)"#;

fn load(src: &str, defines: &[(&str, i64)]) -> Program {
    let opts = Options {
        defines: defines.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        ..Options::default()
    };
    load_str("t.ron", src, &opts).unwrap_or_else(|e| panic!("{e:?}"))
}

fn run_default(p: &Program) -> Report {
    run(p, &RunOptions::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn transpose_counters() {
    let p = load(TRANSPOSE, &[]);
    let r = run_default(&p);
    // 4 blocks x 8 warps x 4 iterations.
    let s = r.shared;
    assert_eq!(s.ld_instructions, 128);
    assert_eq!(s.ld_wavefronts, 128 * 32);
    assert_eq!(s.ld_bank_conflicts, 128 * 31);
    assert_eq!(s.st_instructions, 128);
    assert_eq!(s.st_wavefronts, 128);
    assert_eq!(s.st_bank_conflicts, 0);
    assert_eq!(s.ideal_wavefronts, 256);
    // Modelled warp-cycles waiting on the shared pipe: at least the conflicts' extra
    // wavefronts, which some warp waits for.
    assert!(r.stall_cycles >= 128 * 31, "{}", r.stall_cycles);
    assert_eq!(r.verified, Some(true));
    assert_eq!(r.verification.len(), 1);
    assert_eq!(r.launch.blocks, 4);
    // Memory instructions in program order: global ld, shared st, shared ld, global st.
    let kinds: Vec<_> = r.per_instruction.iter().map(|i| (i.space, i.op)).collect();
    assert_eq!(
        kinds,
        [
            (MemSpace::Global, Op::Ld),
            (MemSpace::Shared, Op::St),
            (MemSpace::Shared, Op::Ld),
            (MemSpace::Global, Op::St),
        ]
    );
    let ld = &r.per_instruction[2];
    assert_eq!(ld.conflict_degree, Some(32));
    assert_eq!(ld.text, "tile[tid.x][tid.y + j]");
    assert_eq!(ld.width, 4);
    assert_eq!(r.per_instruction[1].conflict_degree, Some(1));
    assert_eq!(r.per_instruction[0].wavefronts, None);
    assert_eq!(r.per_instruction[0].per_bank, None);
    // The column load asks one bank for 32 words each time: every bank's share is the same
    // over the run (tid.y + j spreads the columns), 4 executions x 32 words per bank.
    let banks = ld.per_bank.as_ref().unwrap();
    assert_eq!(banks.len(), 32);
    assert_eq!(banks.iter().sum::<u64>(), 128 * 32);
    assert!(banks.iter().all(|&b| b == 128), "{banks:?}");
    assert_eq!(r.costliest(1)[0].pc, ld.pc);
    assert_eq!(r.per_bank.len(), 32);
    // Each store writes one word per bank; each load reads 32 words of one bank... spread
    // over the banks by `tid.y + j`.
    assert_eq!(r.per_bank.iter().sum::<u64>(), 128 * 32 * 2);
    assert!((r.cost_over_ideal() - (128.0 * 33.0) / 256.0).abs() < 1e-9);

    let p = load(TRANSPOSE, &[("PAD", 1)]);
    let r = run_default(&p);
    assert_eq!(r.shared.ld_wavefronts, 128);
    assert_eq!(r.shared.ld_bank_conflicts, 0);
    assert_eq!(r.verified, Some(true));
}

/// The report, minus the emulator's timing, is the same whatever the number of threads.
#[test]
fn deterministic_across_thread_counts() {
    let p = load(TRANSPOSE, &[("N", 128)]);
    let mut outs = Vec::new();
    for threads in [1, 2, 5] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let mut r = pool.install(|| run_default(&p));
        assert_eq!(r.emulator.threads, threads);
        r.emulator = Emulator {
            warp_instructions: r.emulator.warp_instructions,
            thread_instructions: r.emulator.thread_instructions,
            seconds: 0.0,
            warp_instructions_per_second: 0.0,
            threads: 0,
            init_seconds: 0.0,
            verify_seconds: 0.0,
        };
        outs.push(r.to_json());
    }
    assert_eq!(outs[0], outs[1]);
    assert_eq!(outs[0], outs[2]);
}

const FAULTY: &str = r#"Program(
    name: "faulty",
    launch: (grid: [16], block: [64]),
    buffers: [(name: "out", ty: I32, len: 1024)],
    body: [
        Let("i", "ctaid.x * 64 + tid.x"),
        Store("out[i]", "100 / (ctaid.x / 5 - 1)"),
    ],
)"#;

#[test]
fn the_lowest_faulting_block_is_reported() {
    let p = load(FAULTY, &[]);
    for threads in [1, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let e = pool
            .install(|| run(&p, &RunOptions::default()))
            .unwrap_err();
        assert_eq!(e.phase, Phase::Runtime);
        assert!(e.message.contains("block (5,0,0)"), "{}", e.message);
        assert_eq!(e.line(), Some(7), "{}", e.location);
    }
}

#[test]
fn mismatches_give_verified_false() {
    let src = r#"Program(
        name: "wrong",
        launch: (grid: [2], block: [32]),
        buffers: [(name: "out", ty: I32, len: 64, expect: "i * 2")],
        body: [Store("out[ctaid.x * 32 + tid.x]", "tid.x * 2")],
    )"#;
    let p = load(src, &[]);
    let r = run_default(&p);
    assert_eq!(r.verified, Some(false));
    let v = &r.verification[0];
    assert_eq!(v.mismatches, 32); // block 1 writes 0, 2, … where 64, 66, … belong
    let m = v.first_mismatch.unwrap();
    assert_eq!(m.index, 32);
    assert_eq!(m.got, warpsim_reference::Num::Int(0));
    assert_eq!(m.want, warpsim_reference::Num::Int(64));
    let t = r.to_table(TableStyle::default());
    assert!(t.contains("verified: NO"), "{t}");
    assert!(
        t.contains("32 of 64 elements differ; first at [32]: got 0, want 64"),
        "{t}"
    );
    // --no-verify.
    let r = run(
        &p,
        &RunOptions {
            verify: false,
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert_eq!(r.verified, None);
    assert!(r.verification.is_empty());
}

/// A sweep variant whose geometry the machine refuses is a failed row, never a run with
/// another geometry.
#[test]
fn bad_geometry_is_a_failed_variant() {
    let spec = experiment::SweepSpec {
        banks: vec![0, 32],
        bank_bytes: vec![4],
        defines: Vec::new(),
    };
    let rows = experiment::sweep(
        "t.ron",
        TRANSPOSE,
        &Options::default(),
        &RunOptions::default(),
        experiment::variants(&spec),
        &|| {},
    );
    let e = rows[0].error.as_deref().unwrap_or_default();
    assert!(e.contains("invalid bank geometry"), "{e}");
    assert!(rows[0].wavefronts.is_none());
    assert!(rows[1].error.is_none() && rows[1].wavefronts.is_some());
    // A row's JSON: the settings, then exactly SWEEP_COUNTERS and `error` (the CSV's header
    // and the Python package's columns; serde_json's keys come sorted).
    for r in &rows {
        let v = serde_json::to_value(r).unwrap();
        let mut keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = vec!["banks", "bank_bytes", "defines"];
        want.extend(experiment::SWEEP_COUNTERS);
        want.push("error");
        keys.sort_unstable();
        want.sort_unstable();
        assert_eq!(keys, want);
    }
    let csv = experiment::sweep_csv(&rows);
    let header = csv.lines().next().unwrap_or_default();
    assert!(
        header.ends_with(&format!(
            "{},status,error",
            experiment::SWEEP_COUNTERS.join(",")
        )),
        "{header}"
    );
}

#[test]
fn json_keys() {
    let p = load(TRANSPOSE, &[]);
    let r = run_default(&p);
    let v: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    for k in [
        "kernel",
        "defines",
        "geometry",
        "shared",
        "stall_cycles",
        "timing",
        "per_instruction",
        "per_bank",
        "verified",
        "verification",
        "emulator",
    ] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["defines"].to_string(), r#"{"N":64,"PAD":0}"#);
    assert_eq!(v["geometry"]["banks"], 32);
    assert_eq!(v["geometry"]["bank_bytes"], 4);
    for k in [
        "ld_wavefronts",
        "ld_bank_conflicts",
        "ld_instructions",
        "st_wavefronts",
        "st_bank_conflicts",
        "st_instructions",
    ] {
        assert!(v["shared"][k].is_u64(), "missing shared.{k}");
    }
    let i = &v["per_instruction"][2];
    for k in [
        "line",
        "text",
        "space",
        "op",
        "width",
        "executions",
        "wavefronts",
        "bank_conflicts",
        "conflict_degree",
    ] {
        assert!(i.get(k).is_some(), "missing per_instruction.{k}");
    }
    assert_eq!(i["space"], "shared");
    assert_eq!(i["op"], "ld");
    assert_eq!(v["verified"], true);
    assert_eq!(v["verification"][0]["buffer"], "out");
    for k in [
        "warp_instructions",
        "thread_instructions",
        "seconds",
        "warp_instructions_per_second",
        "threads",
    ] {
        assert!(v["emulator"].get(k).is_some(), "missing emulator.{k}");
    }
}

#[test]
fn table_is_readable_and_plain_when_asked() {
    let p = load(TRANSPOSE, &[]);
    let r = run_default(&p);
    let t = r.to_table(TableStyle { unicode: false });
    assert!(t.is_ascii(), "{t}");
    assert!(!t.contains('\x1b'));
    for s in [
        "transpose - t.ron",
        "N=64 PAD=0",
        "32 banks x 4 B",
        "4096",
        "3968",
        "32-way",
        "t.ron:20:46",
        "tile[tid.x][tid.y + j]",
        "verified: yes",
        "warp instructions/s",
        "stall cycles: ",
        "bank conflicts cost ",
    ] {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
    let u = r.to_table(TableStyle { unicode: true });
    assert!(u.contains('█'), "{u}");
    assert!(!u.contains('\x1b'));
}

#[test]
fn heat_ramp() {
    assert_eq!(table::heat(&[0, 1, 5, 10], false), " .+@");
    assert_eq!(table::heat(&[0, 0], false), "  ");
    assert_eq!(table::heat(&[3, 3], true), "██");
    assert_eq!(table::si(21_300_000.0), "21.3 M");
    assert_eq!(table::si(512.0), "512");
    assert_eq!(table::duration(0.0456, false), "45.6 ms");
    assert_eq!(table::duration(2.5, false), "2.50 s");
}

#[test]
fn svg_is_a_document_with_labels() {
    let p = load(TRANSPOSE, &[]);
    let r = run_default(&p);
    let s = r.to_svg().unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..s.len().min(200)]);
    assert!(s.trim_end().ends_with("</svg>"));
    assert!(s.contains("<text"));
    assert!(s.contains("words served per bank"));
    assert!(s.contains("<rect"));
    // The per-bank chart and one panel per shared instruction (two here).
    // Each panel shows one execution: the column read puts all 32 lanes on one bank.
    assert!(
        s.contains("ld tile[tid.x][tid.y + j]: lanes per bank, one execution (block 0,0,0 warp 0): 32 wavefronts - 32-way"),
        "{s}"
    );
    assert!(s.contains("st tile[tid.y + j][tid.x]: lanes per bank"));
    let sample = r
        .per_instruction
        .iter()
        .find(|i| i.text == "tile[tid.x][tid.y + j]")
        .and_then(|i| i.first_access.clone())
        .unwrap();
    assert_eq!(sample.wavefronts, 32);
    assert_eq!(
        sample.lanes_per_bank.iter().filter(|&&l| l == 32).count(),
        1
    );
    assert_eq!(sample.lanes_per_bank.iter().sum::<u32>(), 32);
}

#[test]
fn describe_summarizes() {
    let p = load(TRANSPOSE, &[("PAD", 1)]);
    let d = describe(&p);
    for s in [
        "transpose (t.ron): ok",
        "N=64 PAD=1",
        "grid 2x2x1 x block 32x8x1 = 4 blocks of 256 threads (8 warps)",
        "inp",
        "f32[4096]  16384 bytes  init Random(1)",
        "expect inp[(i % N) * N + i / N]",
        "tile       f32[32][32]  at byte 0, 4224 bytes  (rows of 33 elements, pad 1)",
        "registers per warp",
    ] {
        assert!(d.contains(s), "missing {s:?} in\n{d}");
    }
}

/// The loader's cheaper forms (multiply-add, division and remainder by constant powers of two,
/// `If`s on constants) compute what the CPU reference computes from the source text, on
/// negative and positive values alike.
#[test]
fn cheaper_lowerings_keep_results() {
    use warpsim_kernel::ir::Inst;
    let src = r#"Program(
        name: "lowering",
        defines: { "FLIP": 1 },
        launch: (grid: [8], block: [64]),
        buffers: [
            (name: "q", ty: I32, len: 512, expect: "i32(u32(i) * 2654435761u) / 16"),
            (name: "r", ty: I32, len: 512, expect: "i32(u32(i) * 2654435761u) % 16"),
            (name: "q2", ty: I32, len: 512, expect: "i32(u32(i) * 2654435761u) / 2 + i32(u32(i) * 2654435761u) % 1073741824"),
            (name: "qu", ty: U32, len: 512, expect: "u32(i) * 2654435761u / 1024u + u32(i) * 2654435761u % 1024u"),
            (name: "m", ty: I32, len: 512, expect: "i * 3 + 7 + (i - 300) * i"),
            (name: "f", ty: I32, len: 512, expect: "-i"),
        ],
        body: [
            Let("i", "ctaid.x * 64 + tid.x"),
            Let("v", "i32(u32(i) * 2654435761u)"),
            Let("u", "u32(i) * 2654435761u"),
            Store("q[i]", "v / 16"),
            Store("r[i]", "v % 16"),
            Store("q2[i]", "v / 2 + v % 1073741824"),
            Store("qu[i]", "u / 1024u + u % 1024u"),
            Store("m[i]", "i * 3 + 7 + (i - 300) * i"),
            If(cond: "FLIP", then: [Store("f[i]", "-i")], else: [Store("f[i]", "i")]),
        ],
    )"#;
    let p = load(src, &[]);
    let r = run_default(&p);
    assert_eq!(r.verified, Some(true), "{:?}", r.verification);
    let has = |f: fn(&Inst) -> bool| p.code.iter().any(f);
    assert!(has(|i| matches!(i, Inst::Mad { .. })));
    assert!(has(|i| matches!(i, Inst::DivS2 { k: 4, .. })));
    assert!(has(|i| matches!(i, Inst::RemS2 { k: 30, .. })));
    assert!(!has(|i| matches!(
        i,
        Inst::DivS { .. } | Inst::RemS { .. } | Inst::DivU { .. } | Inst::RemU { .. }
    )));
    // Only the products that `v` and `u` keep stay `Mul`s; both `m` sums fuse.
    let muls = p.code.iter().filter(|i| matches!(i, Inst::Mul { .. }));
    assert_eq!(muls.count(), 2);
    let mads = p.code.iter().filter(|i| matches!(i, Inst::Mad { .. }));
    assert_eq!(mads.count(), 3);
    // The constant condition leaves no `If`, and only its then-part.
    assert!(!has(|i| matches!(i, Inst::If { .. } | Inst::Else { .. })));
    assert_eq!(p.code.iter().filter(|i| i.mem().is_some()).count(), 6);
    // The other way round, the else-part runs (and the check says so).
    let p = load(
        &src.replace("expect: \"-i\"", "expect: \"i\""),
        &[("FLIP", 0)],
    );
    assert_eq!(run_default(&p).verified, Some(true));
}

/// Constants fold with the types and the wrapping of run time (three refusals and a value
/// that the `gen` fuzz target found): `sqrt` of an f64 constant stays an f64, and u32
/// products wrap instead of overflowing 64 bits.
#[test]
fn constants_fold_as_at_run_time() {
    let src = r#"Program(
        name: "fold",
        launch: (grid: [1], block: [32]),
        buffers: [
            (name: "o", ty: F64, len: 32, init: Iota, tolerance: 0.0,
             expect: "2.8284271247461903 + f64(i) * 0.0"),
            (name: "f", ty: F32, len: 32, tolerance: 0.0, expect: "f32(1.4142135623730951)"),
            (name: "u", ty: U32, len: 32, expect: "8u"),
            (name: "s", ty: U32, len: 32, init: Iota, expect: "0u"),
        ],
        body: [
            Let("x", "sqrt(f64(2))"),
            Store("o[tid.x]", "x * (o[1] + 1.0)"),
            Store("f[tid.x]", "sqrt(f32(2))"),
            Store("u[tid.x]", "~(u32(7)) * ~(u32(0))"),
            Store("s[tid.x]", "u32(1) << 40u"),
        ],
    )"#;
    let p = load(src, &[]);
    let r = run_default(&p);
    assert_eq!(r.verified, Some(true), "{:?}", r.verification);
}

#[test]
fn run_with_buffers_takes_and_gives_back_the_words() {
    let p = load(TRANSPOSE, &[]);
    let n = 64usize;
    // inp holds i, out 7s (overwritten everywhere); the expect still checks the transpose.
    let inp: Vec<u32> = (0..n * n).map(|i| (i as f32).to_bits()).collect();
    let mut io = vec![inp.clone(), vec![7; n * n]];
    let r =
        run_with_buffers(&p, &RunOptions::default(), &mut io).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(r.verified, Some(true));
    assert_eq!(io[0], inp);
    for (i, &w) in io[1].iter().enumerate() {
        assert_eq!(f32::from_bits(w), ((i % n) * n + i / n) as f32, "out[{i}]");
    }
    // The same counters as a run from `init`.
    assert_eq!(r.shared, run_default(&p).shared);
    // Without verification too; a short buffer is padded with zeros.
    let opts = RunOptions {
        verify: false,
        timing: None,
        ..RunOptions::default()
    };
    let mut io = vec![vec![(1.5f32).to_bits()], Vec::new()];
    run_with_buffers(&p, &opts, &mut io).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(io[0].len(), n * n);
    assert_eq!(f32::from_bits(io[1][0]), 1.5);
    assert_eq!(io[1][n], 0);
    // One list per buffer, or an error.
    let e = run_with_buffers(&p, &opts, &mut [Vec::new()]).unwrap_err();
    assert!(
        e.message
            .contains("1 buffer contents given for the program's 2"),
        "{e}"
    );
}
