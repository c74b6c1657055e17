//! Limits: `--max-memory` refuses a program before anything is allocated, saying how much it
//! asked for; absurd defines on every shipped program give an error (exit code 2), never a
//! panic or an abort.

use crate::util::{run as warpsim, text};

#[test]
fn max_memory_refuses_before_allocating() {
    // transpose: two f32 buffers of N * N = 1048576 elements, 4 MiB each.
    let out = warpsim(&["run", "programs/transpose.ron", "--max-memory", "1000000"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("buffer `inp` asks for 1048576 elements (4194304 bytes)"),
        "{err}"
    );
    assert!(err.contains("at most 1000000 bytes"), "{err}");
    assert!(err.contains("--max-memory"), "{err}");
    assert!(err.contains("programs/transpose.ron:10:"), "{err}");
    // The second buffer tips it over: the message gives the total.
    let out = warpsim(&["check", "programs/transpose.ron", "--max-memory", "5000000"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("buffer `out` asks for"), "{err}");
    assert!(
        err.contains("8388608 bytes with the buffers before it"),
        "{err}"
    );
    // Enough for the buffers and the code (768 bytes an instruction) is enough without the
    // timing model; with it, its record and traces need room too, and the message says so.
    let exactly = [
        "run",
        "programs/transpose.ron",
        "--max-memory",
        "9437184",
        "--define",
        "N=1024",
        "--format",
        "json",
    ];
    let out = warpsim(&[&exactly[..], &["--no-timing"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = warpsim(&exactly);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("timing model: the program, its buffers"),
        "{err}"
    );
    assert!(err.contains("raise --max-memory"), "{err}");
    // The default cap (4 GiB) stops a program asking for 16 GB before any allocation, at
    // once.
    let t = std::time::Instant::now();
    let out = warpsim(&["run", "programs/transpose.ron", "--define", "N=65536"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("(17179869184 bytes)"), "{err}");
    assert!(err.contains("at most 4294967296 bytes"), "{err}");
    assert!(t.elapsed().as_secs() < 5);
    // Not a number.
    let out = warpsim(&["run", "programs/transpose.ron", "--max-memory", "lots"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Every define of every shipped program set to absurd values: an error with exit code 2
/// (or, for a define that only switches something, a normal run) — never a crash.
#[test]
fn absurd_defines_are_errors_not_aborts() {
    let programs = warpsim_testkit::shipped_programs();
    for p in &programs {
        let out = warpsim(&["check", p]);
        assert_eq!(out.status.code(), Some(0), "{p}: {}", text(&out.stderr));
        let summary = text(&out.stdout);
        let defines: Vec<String> = summary
            .lines()
            .find_map(|l| l.trim().strip_prefix("defines:"))
            .map(|d| {
                d.split_whitespace()
                    .filter_map(|kv| kv.split_once('=').map(|(k, _)| k.to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        let mut errors = 0;
        for d in &defines {
            for v in [
                "4000000000",
                "-4000000000",
                "9223372036854775807",
                "-9223372036854775808",
            ] {
                let def = format!("{d}={v}");
                let out = warpsim(&["run", p, "--define", &def, "--max-steps", "2000000"]);
                let err = text(&out.stderr);
                let code = out.status.code();
                assert!(
                    matches!(code, Some(0..=2)),
                    "{p} --define {def}: exit {code:?} (a crash): {err}"
                );
                assert!(!err.contains("panicked"), "{p} --define {def}: {err}");
                if code == Some(2) {
                    assert!(err.contains(p.as_str()), "{p} --define {def}: {err}");
                    errors += 1;
                }
            }
        }
        if defines.iter().any(|d| d == "N") {
            let out = warpsim(&["run", p, "--define", "N=4000000000"]);
            assert_eq!(out.status.code(), Some(2), "{p} N=4000000000");
        }
        assert!(
            defines.is_empty() || errors > 0,
            "{p}: no absurd define was an error"
        );
    }
}

/// A runaway loop's fault points at the loop itself (`While` or `For`), not at the last
/// statement of its body.
#[test]
fn runaway_loops_point_at_the_loop() {
    let dir = std::env::temp_dir().join(format!("warpsim-runaway-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, lp) in [
        (
            "while",
            r#"While(cond: "k >= 0", body: [
            Set("k", "k + 1"),
            Set("k", "k % 100"),
        ]),"#,
        ),
        (
            "for",
            r#"For(var: "j", from: 0, to: 10, body: [
            Set("k", "k + 1"),
            Set("j", "0"),
        ]),"#,
        ),
    ] {
        let src = format!(
            "Program(\n    name: \"runaway\",\n    launch: (grid: [1], block: [32]),\n    body: [\n        Let(\"k\", \"0\"),\n        {lp}\n    ],\n)\n"
        );
        let path = dir.join(format!("{name}.ron"));
        std::fs::write(&path, src).unwrap();
        let out = warpsim(&["run", path.to_str().unwrap(), "--max-steps", "10000"]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("--max-steps"), "{err}");
        assert!(err.contains(&format!("{name}.ron:6:9")), "{name}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The verification has a total budget (100 × `--max-steps` terms): 262,144 elements whose
/// `expect` or `check` sums 262,144 terms each (6.9·10¹⁰ in all, each element under
/// `--max-steps`) ran for minutes; now an error at the reference saying how to raise it.
#[test]
fn verification_has_a_total_budget() {
    use crate::hostile::{case, write};
    for (i, field) in [
        "expect: \"sum(k, 0, 262144, k & 1)\"",
        "check: \"sum(k, 0, 262144, out[k]) >= 0\"",
    ]
    .iter()
    .enumerate()
    {
        let p = write(
            &format!("budget{i}.ron"),
            &format!(
                "Program(name: \"v\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
                 \"out\", ty: U32, len: 262144, {field})],\n    body: [],\n)\n"
            ),
        );
        let o = case(
            &["run", &p, "--no-timing"],
            2,
            Some(&p),
            "share of the verification",
        );
        assert!(o.stderr.contains("raise --max-steps"), "{}", o.stderr);
        assert!(
            o.stderr.contains("10000000000 terms in all"),
            "{}",
            o.stderr
        );
    }
    // Within the budget: 4,096 elements of 4,096 terms (1.7·10⁷ ≤ 100 × 10⁶).
    let p = write(
        "budget_ok.ron",
        "Program(name: \"v\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", \
         ty: U32, len: 4096, expect: \"sum(k, 0, 4096, k & 1) - 2048\")],\n    body: [],\n)\n",
    );
    let o = case(
        &["run", &p, "--no-timing", "--max-steps", "1000000"],
        0,
        None,
        "",
    );
    assert!(o.stdout.contains("verified: yes"), "{}", o.stdout);
}
