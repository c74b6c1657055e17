//! `warpsim explain`: the totals of the rule's seed examples, the 80-column limit, and
//! errors with exit code 2.

use std::process::Command;

/// Runs `warpsim explain ARGS`; returns (exit code, stdout, stderr).
fn explain(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_warpsim"))
        .arg("explain")
        .args(args)
        .output()
        .expect("run warpsim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

/// The number after `key: ` in the output.
fn total(out: &str, key: &str) -> u32 {
    out.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(": "))
        .unwrap_or_else(|| panic!("no `{key}:` in\n{out}"))
        .parse()
        .expect("a number")
}

/// (wavefronts, bank conflicts, verdict) of `warpsim explain ARGS`.
fn totals(args: &[&str]) -> (u32, u32, String) {
    let (code, out, err) = explain(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    let verdict = out.lines().last().unwrap_or_default().to_string();
    (
        total(&out, "wavefronts"),
        total(&out, "bank conflicts"),
        verdict,
    )
}

#[test]
fn seed_examples() {
    // (arguments, wavefronts, bank conflicts, verdict)
    let cases: &[(&[&str], u32, u32, &str)] = &[
        (&["tid"], 1, 0, "conflict-free: 1 cycle"),
        (&["tid*2"], 2, 1, "2-way bank conflict: 2 cycles"),
        (&["0"], 1, 0, "conflict-free: 1 cycle"),
        (&["(tid%4)*32"], 4, 3, "4-way bank conflict: 4 cycles"),
        (&["tid*32"], 32, 31, "32-way bank conflict: 32 cycles"),
        (&["tid*33"], 1, 0, "conflict-free: 1 cycle"),
        // Column 5 of float tile[32][32] and of tile[32][33].
        (&["tid*32+5"], 32, 31, "32-way bank conflict: 32 cycles"),
        (&["tid*33+5"], 1, 0, "conflict-free: 1 cycle"),
        (
            &["tid", "--width", "8"],
            2,
            0,
            "conflict-free: 2 cycles in 2 phases",
        ),
        (&["0", "--width", "8"], 1, 0, "conflict-free: 1 cycle"),
        (
            &["0", "--width", "8", "--op", "st"],
            2,
            0,
            "conflict-free: 2 cycles in 2 phases",
        ),
        (
            &["tid", "--width", "16"],
            4,
            0,
            "conflict-free: 4 cycles in 4 phases",
        ),
        (
            &["0", "--width", "16"],
            2,
            0,
            "conflict-free: 2 cycles in 2 phases",
        ),
        (
            &["0", "--width", "16", "--op", "st"],
            4,
            0,
            "conflict-free: 4 cycles in 4 phases",
        ),
        (
            &["(tid%4)*8 + tid/4", "--width", "16"],
            16,
            12,
            "4-way bank conflict: 16 cycles in 4 phases",
        ),
    ];
    for (args, wavefronts, conflicts, verdict) in cases {
        assert_eq!(
            totals(args),
            (*wavefronts, *conflicts, verdict.to_string()),
            "{args:?}"
        );
    }
}

#[test]
fn conflicts_and_phases_are_reported() {
    let (code, out, _) = explain(&["tid*2"]);
    assert_eq!(code, 0);
    assert_eq!(total(&out, "bank conflicts"), 1);
    assert!(
        out.contains("phases: 1 busy of 1, 32 lanes a phase"),
        "{out}"
    );
    // Rule 3: a broadcast 16-byte load runs in half-warps; a store in quarter-warps.
    let (_, out, _) = explain(&["0", "--width", "16"]);
    assert!(out.contains("rule 3: doubled"), "{out}");
    assert!(out.contains("16 lanes a phase"), "{out}");
    let (_, out, _) = explain(&["0", "--width", "16", "--op", "st"]);
    assert!(out.contains("rule 3: no doubling"), "{out}");
    assert!(out.contains("8 lanes a phase"), "{out}");
}

#[test]
fn the_grid_shows_lanes_per_bank_and_cycle() {
    let (_, out, _) = explain(&["tid*2"]);
    // Bank 0 serves lane 0 then lane 16; bank 1 is idle.
    let rows: Vec<Vec<&str>> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("cycle"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0][..5], ["cycle", "0", "0", ".", "1"]);
    assert_eq!(rows[1][..5], ["cycle", "1", "16", ".", "17"]);
    // A broadcast: all 32 lanes share bank 0's word.
    let (_, out, _) = explain(&["0"]);
    assert!(out.contains("*32"), "{out}");
}

#[test]
fn masks_and_geometries() {
    assert_eq!(totals(&["tid*32", "--mask", "0x0000ffff"]).0, 16);
    assert_eq!(totals(&["tid*32", "--mask", "65535"]).0, 16);
    assert_eq!(
        totals(&["tid", "--mask", "0"]),
        (0, 0, "no active lane: 0 cycles".into())
    );
    // Lane 0 divides by zero, unless it is masked out.
    assert_eq!(totals(&["32/tid", "--mask", "0xfffffffe"]).0, 1);
    assert_eq!(totals(&["tid*32", "--banks", "64"]).0, 16);
    assert_eq!(totals(&["tid", "--bank-bytes", "8", "--width", "8"]).0, 1);
    assert_eq!(totals(&["tid", "--banks", "16"]).0, 2);
}

#[test]
fn fits_80_columns() {
    let long = vec!["tid*33+5"; 20].join(" + ");
    let cases: &[&[&str]] = &[
        &["tid"],
        &["tid*32"],
        &["0", "--width", "16"],
        &["(tid%4)*8 + tid/4", "--width", "16"],
        &["tid*32", "--banks", "64"],
        &["tid*37", "--banks", "1024", "--width", "16"],
        &[
            "tid*1000",
            "--banks",
            "1000",
            "--bank-bytes",
            "64",
            "--width",
            "16",
        ],
        &["tid*64", "--banks", "1", "--width", "16"],
        &["tid*7", "--banks", "33", "--mask", "0x0f0f0f0f"],
        &[&long],
    ];
    for args in cases {
        let (code, out, err) = explain(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        for line in out.lines() {
            assert!(line.chars().count() <= 80, "{args:?}: {line:?}");
        }
        assert!(!out.contains('\x1b'), "ANSI escapes in piped output");
    }
}

#[test]
fn bad_expressions_exit_2() {
    let cases: &[(&str, &str)] = &[
        ("tid*", "column 5"),
        ("(tid%4", "column 7"),
        ("tid)", "column 4"),
        ("foo+1", "column 1"),
        ("tid $ 3", "column 5"),
        ("", "column 1"),
        ("32/tid", "division by zero"),
        ("tid%0", "division by zero"),
        ("tid-5", "negative"),
        ("-1", "negative"),
        ("tid*0x100000000", "4 GiB"),
        ("99999999999999999999", "not a number"),
        ("tid<<70", "shift"),
    ];
    for (expr, hint) in cases {
        let (code, out, err) = explain(&[expr]);
        assert_eq!(code, 2, "{expr:?}: {err}");
        assert!(out.is_empty(), "{expr:?}");
        assert!(err.contains(hint), "{expr:?}: {err}");
        assert!(err.contains('^'), "{expr:?}: no caret in {err}");
    }
    // Too deep to evaluate: an error, not a stack overflow.
    for expr in [vec!["1"; 20_000].join("+"), "(".repeat(20_000) + "tid"] {
        let (code, _, err) = explain(&[&expr]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("deep"), "{err}");
    }
    for args in [
        &["tid", "--width", "3"][..],
        &["tid", "--op", "load"],
        &["tid", "--mask", "0xfffffffff"],
        &["tid", "--banks", "0"],
        &["tid*2", "--width", "8", "--bank-bytes", "12"],
    ] {
        let (code, _, err) = explain(args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
}

/// Widths 1 and 2, and atomics (`--op atom.OP`): the measured H200 numbers.
#[test]
fn narrow_widths_and_atomics() {
    assert_eq!(totals(&["--width", "1", "tid*32"]).0, 8);
    assert_eq!(totals(&["--width", "2", "--op", "st", "tid*64"]).0, 32);
    assert_eq!(totals(&["--width", "1", "tid%4"]).0, 1);
    let atom = |args: &[&str]| {
        let (code, out, err) = explain(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        (
            total(&out, "atom wavefronts"),
            total(&out, "atom bank conflicts"),
            out,
        )
    };
    assert_eq!(atom(&["--op", "atom.add", "0"]).0, 32);
    assert_eq!(atom(&["--op", "atom.add", "tid/2"]).1, 1);
    assert_eq!(atom(&["--op", "atom.cas", "tid"]).0, 2);
    let (w, _, out) = atom(&["--op", "red.add.f32", "tid*32"]);
    assert_eq!(w, 64);
    assert_eq!(total(&out, "trips (ATOMS executed)"), 32);
    // calibration/probes/shared_atomics: ATOMS.POPC.INC serves each address once (the grid shows `*4`:
    // four lanes on one address, one visit), the half loops.
    let (w, c, out) = atom(&["--op", "red.popc", "(tid%8)*32"]);
    assert_eq!((w, c), (8, 7));
    assert!(out.contains("visit 7  *4"), "{out}");
    let (w, _, out) = atom(&["--op", "atom.add.f16x2", "0"]);
    assert_eq!((w, total(&out, "trips (ATOMS executed)")), (65, 32));
    assert_eq!(atom(&["--op", "atom.add.f16", "--width", "2", "tid"]).0, 6);
    // Lanes queue on a bank, each its own visit: the grid's bank 0 column lists them.
    let (w, _, out) = atom(&["--op", "atom.add", "(tid%2)*33"]);
    assert_eq!(w, 16);
    assert!(out.contains("visit 15  30  31   ."), "{out}");
    let (code, _, err) = explain(&["--op", "atom.min.f16x2", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("does not exist"), "{err}");
    let (code, _, err) = explain(&["--op", "atom.popc", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("write red.popc"), "{err}");
    let (code, _, err) = explain(&["--op", "atom.mul", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("not an atomic operation"), "{err}");
}
