//! Determinism: `warpsim run` and `warpsim sweep` print byte-identical output on 1 and on 2
//! worker threads (RAYON_NUM_THREADS), apart from the emulator's own timing fields.

use crate::util::warpsim;

/// `warpsim ARGS` with `threads` rayon workers: its stdout (exit code 0 required).
fn output(args: &[&str], threads: &str) -> String {
    let out = warpsim()
        .env("RAYON_NUM_THREADS", threads)
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?} on {threads} threads: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The emulator's timing (and thread count) fields, which alone may differ.
const TIMING: [&str; 5] = [
    "\"seconds\":",
    "\"warp_instructions_per_second\":",
    "\"threads\":",
    "\"init_seconds\":",
    "\"verify_seconds\":",
];

/// The output without the lines holding timing fields (JSON) or the emulator's speed line
/// (table).
fn without_timing(s: &str) -> String {
    s.lines()
        .filter(|l| {
            let t = l.trim_start();
            !TIMING.iter().any(|k| t.starts_with(k)) && !t.starts_with("emulator:")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn same_on_1_and_2_threads(args: &[&str]) {
    let one = output(args, "1");
    let two = output(args, "2");
    assert!(!one.is_empty(), "{args:?}: no output");
    let (a, b) = (without_timing(&one), without_timing(&two));
    if a != b {
        let at = a
            .lines()
            .zip(b.lines())
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        panic!(
            "{args:?}: outputs differ at line {}:\n  1 thread:  {:?}\n  2 threads: {:?}",
            at + 1,
            a.lines().nth(at),
            b.lines().nth(at)
        );
    }
    // Only the timing lines were dropped.
    assert_eq!(
        one.lines().count() - a.lines().count(),
        two.lines().count() - b.lines().count()
    );
}

#[test]
fn run_is_the_same_on_1_and_2_threads() {
    for p in warpsim_testkit::shipped_programs() {
        same_on_1_and_2_threads(&["run", &p, "--format", "json", "--racecheck"]);
    }
    // Races (merged from blocks that ran on different threads), the table.
    let f = "tests/races/transpose_no_barrier.ron";
    for format in ["json", "table"] {
        let args = ["run", f, "--racecheck", "--no-verify", "--format", format];
        let one = warpsim()
            .env("RAYON_NUM_THREADS", "1")
            .args(args)
            .output()
            .unwrap();
        let two = warpsim()
            .env("RAYON_NUM_THREADS", "2")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(one.status.code(), Some(1));
        assert_eq!(two.status.code(), Some(1));
        let (a, b) = (
            without_timing(&String::from_utf8_lossy(&one.stdout)),
            without_timing(&String::from_utf8_lossy(&two.stdout)),
        );
        assert_eq!(a, b, "{format}");
    }
    same_on_1_and_2_threads(&["run", "programs/transpose.ron", "--define", "N=256"]);
}

#[test]
fn sweep_is_the_same_on_1_and_2_threads() {
    for format in ["json", "csv", "table"] {
        same_on_1_and_2_threads(&[
            "sweep",
            "programs/transpose.ron",
            "--define",
            "N=256",
            "--define",
            "PAD=0,1",
            "--banks",
            "16,32",
            "--format",
            format,
        ]);
    }
    same_on_1_and_2_threads(&[
        "sweep",
        "programs/examples/reduce.ron",
        "--define",
        "BLOCK=64,128,256",
        "--bank-bytes",
        "4,8",
        "--format",
        "json",
    ]);
}
