//! The bad-program corpus from the command line: `warpsim run` on every tests/bad/*.ron exits
//! with code 2 (an error, never a panic's 101 or an abort), and its message contains what the
//! file's first line (`// expect: …`) says, with the file and a line number.

use crate::util::warpsim;
use std::time::{Duration, Instant};
use warpsim_testkit::bad_programs;

/// Whether `s` contains `file:` followed by a line number.
fn has_line(s: &str, file: &str) -> bool {
    let pat = format!("{file}:");
    s.match_indices(&pat).any(|(i, _)| {
        s[i + pat.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn every_bad_program_exits_2_with_its_message_and_line() {
    let corpus = bad_programs();
    // One per class of error the issue lists, at least.
    for class in [
        "syntax",
        "unknown_name",
        "type_mismatch",
        "out_of_bounds",
        "misaligned",
        "deadlock",
        "runaway",
        "div_zero",
        "huge_launch",
    ] {
        assert!(
            corpus.iter().any(|b| b.name == format!("{class}.ron")),
            "tests/bad/{class}.ron is missing"
        );
    }
    for b in corpus {
        let (name, path, expect) = (b.name, b.path, b.expect);
        let t = Instant::now();
        let out = warpsim()
            .args(["run", &path])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        assert!(err.contains(&expect), "{name}: no `{expect}` in\n{err}");
        assert!(has_line(&err, &path), "{name}: no `{path}:LINE` in\n{err}");
        assert!(out.stdout.is_empty(), "{name}: output on stdout");
        // The default limits stop even the runaway loop promptly (about 3 s of CPU; the
        // bound leaves room for a loaded 2-core CI machine running other tests beside it).
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "{name}: took {:?}",
            t.elapsed()
        );
    }
}

/// A small --max-steps catches the runaway loop at once, naming the limit.
#[test]
fn max_steps_stops_a_runaway_loop() {
    let out = warpsim()
        .args(["run", "tests/bad/runaway.ron", "--max-steps", "1000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("more than 1000 warp instructions"), "{err}");
    assert!(has_line(&err, "tests/bad/runaway.ron"), "{err}");
}
