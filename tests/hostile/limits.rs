//! Work bounded before it starts: names and sweeps of any size refused or handled without a
//! panic or an abort (issue 42, item 1's bounds).

use super::{case, write};

#[test]
fn a_trace_name_of_65536_characters_and_more_prices() {
    let lanes: String = (0..32).map(|l| format!(" {}", l * 4)).collect();
    for n in [65_535, 65_536, 70_000, 1 << 20] {
        let name = "n".repeat(n);
        let t = write(
            &format!("long_name_{n}.trace"),
            &format!("{name} ld 4{lanes}\nb ld 4{lanes}\n"),
        );
        let o = case(&["access", &t], 0, None, "");
        assert!(o.stdout.contains(&name), "the name was cut");
        assert!(o.stdout.contains("2 accesses"), "{:.200}", o.stdout);
    }
}

#[test]
fn sweeps_past_what_can_run_are_refused() {
    let t = "programs/transpose.ron";
    for v in ["1000001", "18446744073709551615", "0"] {
        case(
            &["sweep", t, "-D", "PAD=0,1", "--max-variants", v],
            2,
            None,
            "--max-variants",
        );
    }
    // Ranges whose length overflows.
    for r in [
        "PAD=-9223372036854775808..9223372036854775807",
        "PAD=0..9223372036854775807",
        "PAD=-9223372036854775808..0",
    ] {
        case(
            &["sweep", t, "-D", r],
            2,
            None,
            "empty or longer than 4096 values",
        );
    }
    // At the ceiling, the product is still checked before anything is listed.
    case(
        &[
            "sweep",
            t,
            "-D",
            "PAD=0..4000",
            "-D",
            "SWIZZLE=0..4000",
            "--max-variants",
            "1000000",
        ],
        2,
        None,
        "more than --max-variants 1000000",
    );
}

#[test]
fn launches_past_max_threads_are_refused_up_front_and_the_flag_raises_it() {
    let big = |g: &str, b: &str| {
        format!("Program(name: \"l\", launch: (grid: {g}, block: {b}), body: [])\n")
    };
    let p = write(
        "launch_huge.ron",
        &big("[2147483647, 65535, 65535]", "[1024]"),
    );
    for cmd in ["check", "run", "sweep", "advise"] {
        case(&[cmd, &p], 2, Some(&p), "threads in all");
    }
    // Just past the default, and at it.
    let p = write("launch_past.ron", &big("[4194305]", "[1024]"));
    case(&["check", &p], 2, Some(&p), "--max-threads");
    let p = write("launch_at.ron", &big("[4194304]", "[1024]"));
    case(&["check", &p], 0, None, "");
    // Lowered and raised.
    case(
        &["run", "programs/transpose.ron", "--max-threads", "1000"],
        2,
        None,
        "more than the 1000",
    );
    let p = write("launch_raised.ron", &big("[4194305]", "[1024]"));
    case(&["check", &p, "--max-threads", "5000000000"], 0, None, "");
}

#[test]
fn the_timing_models_traces_are_capped_by_max_memory() {
    // One warp of over a million instructions: its trace (12 bytes an instruction) does not
    // fit the half of a 4 MiB --max-memory that the blocks being recorded may keep.
    let p = write(
        "long_block.ron",
        r#"Program(
    name: "long_block",
    launch: (grid: [1], block: [32]),
    buffers: [(name: "out", ty: U32, len: 32, expect: "7")],
    body: [
        Let("k", "0"),
        While(cond: "k < 300000", body: [Set("k", "k + 1")]),
        Store("out[tid.x]", "7"),
    ],
)"#,
    );
    let o = case(
        &["run", &p, "--max-memory", "4194304"],
        2,
        None,
        "timing model: the traces of blocks 0..0 would keep more than 2.0 MiB",
    );
    assert!(o.stderr.contains("--no-timing"), "{}", o.stderr);
    // Without the timing model, or with the default room, it runs.
    case(
        &["run", &p, "--max-memory", "4194304", "--no-timing"],
        0,
        None,
        "",
    );
    case(&["run", &p], 0, None, "");
    // A loop that never ends: its trace stops growing at the budget, the run at --max-steps
    // (before, the trace of its 100 million instructions took 1.2 GB).
    let o = case(
        &["run", "tests/bad/runaway.ron", "--max-memory", "67108864"],
        2,
        Some("tests/bad/runaway.ron"),
        "max-steps",
    );
    assert!(o.rss < 200 << 20, "{} MiB", o.rss >> 20);
}

#[test]
fn variants_side_by_side_share_max_memory() {
    // Four variants of 80 MiB of buffers each, under a 128 MiB --max-memory: each fits
    // alone, two side by side would not, so they run one after the other (before, the
    // workers ran them together and held 160 MiB and more).
    let p = write(
        "big_buffers.ron",
        r#"Program(
    name: "big_buffers",
    defines: { "D": 1 },
    launch: (grid: [1], block: [32]),
    buffers: [
        (name: "big", ty: U32, len: 20971520, init: Iota),
        (name: "out", ty: U32, len: 32, expect: "big[i] + D"),
    ],
    body: [Store("out[tid.x]", "big[tid.x] + D")],
)"#,
    );
    let o = case(
        &["sweep", &p, "-D", "D=1..4", "--max-memory", "134217728"],
        0,
        None,
        "",
    );
    assert_eq!(o.stdout.matches("yes").count(), 4, "{}", o.stdout);
    assert!(o.rss < 150 << 20, "{} MiB", o.rss >> 20);
}

/// A valid program of `n` statements (about 39 bytes each) on lines of their own.
fn long_program(n: usize) -> String {
    let body: String = (0..n)
        .map(|_| "        Set(\"acc\", \"acc * 3 + tid.x\"),\n")
        .collect();
    format!(
        "Program(\n    name: \"long\",\n    launch: (grid: [1], block: [32]),\n    buffers: \
         [(name: \"out\", ty: U32, len: \"32\")],\n    body: [\n        Let(\"acc\", \
         \"tid.x\"),\n{body}        Store(\"out[tid.x]\", \"acc\"),\n    ],\n)\n"
    )
}

#[test]
fn a_ten_megabyte_program_runs_and_reports_in_linear_time() {
    // The report's per-line stalls searched its lines once per instruction: 4.7 MB took 10 s,
    // 20 MB did not finish in a minute.
    let p = write("long_program.ron", &long_program(260_000));
    assert!(std::fs::metadata(&p).unwrap().len() > 10_000_000);
    let o = case(&["run", &p], 0, None, "");
    assert!(o.secs < 10.0, "took {:.1} s", o.secs);
    assert!(o.stdout.contains("where warps wait"), "{:.300}", o.stdout);
}

#[test]
fn a_balanced_expression_of_a_megabyte_is_refused_in_little_memory() {
    // Every instruction kept its own copy of its statement's text: 1.3 MB took 5.3 GB before
    // the register limit refused it. (`case` bounds the peak at 1 GiB.)
    fn tree(d: u32) -> String {
        if d == 0 {
            "tid.x".into()
        } else {
            let t = tree(d - 1);
            format!("({t} + {t})")
        }
    }
    let p = write(
        "balanced.ron",
        &format!(
            "Program(\n    name: \"bal\",\n    launch: (grid: [1], block: [32]),\n    buffers: \
             [(name: \"out\", ty: U32, len: \"32\")],\n    body: [\n        Store(\"out[tid.x]\", \
             \"{}\"),\n    ],\n)\n",
            tree(17)
        ),
    );
    let o = case(&["check", &p], 2, Some(&p), "4096 registers");
    assert!(o.rss < 256 << 20, "peak {} MiB", o.rss >> 20);
}

#[test]
fn an_out_of_bounds_unsigned_index_is_shown_as_unsigned_too() {
    // The register does not say whether `b` is signed: `out[-1]` alone hid a `u32`'s
    // 4294967295.
    let p = write(
        "unsigned_index.ron",
        "Program(\n    name: \"idx\",\n    launch: (grid: [1], block: [32]),\n    buffers: \
         [(name: \"out\", ty: U32, len: \"32\")],\n    body: [\n        Let(\"b\", \
         \"u32(4294967295)\"),\n        Store(\"out[b]\", \"1\"),\n    ],\n)\n",
    );
    case(
        &["run", &p],
        2,
        Some(&p),
        "out[-1] (index 4294967295 if unsigned) is outside out[32]",
    );
}

#[test]
fn loading_counts_against_max_memory() {
    // A 3.9 MB program takes about 50 MB to load and run: under a 32 MiB --max-memory it is
    // refused before it is read, under 64 MiB once its code is known (both within the cap).
    let p = write("long_program_capped.ron", &long_program(100_000));
    let o = case(
        &["run", &p, "--max-memory", "33554432"],
        2,
        None,
        "more than --max-memory 33554432",
    );
    assert!(o.rss < 32 << 20, "peak {} MiB", o.rss >> 20);
    let o = case(
        &["run", &p, "--max-memory", "67108864"],
        2,
        None,
        "more than --max-memory",
    );
    assert!(o.rss < 64 << 20, "peak {} MiB", o.rss >> 20);
    case(&["run", &p, "--max-memory", "268435456"], 0, None, "");
}
