//! Helpers shared by the integration tests: running the `warpsim` binary, scratch files and
//! the H200 counters; the repository's files and the bad-program corpus come from
//! `warpsim-testkit`, which every crate's tests share.
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

pub use warpsim_testkit::root;

/// Nsight Compute's shared-memory counters as the JSON report names them, in the fixtures'
/// column order: loads, stores, atomics.
pub const SHARED_COUNTERS: [&str; 9] = [
    "ld_wavefronts",
    "ld_bank_conflicts",
    "ld_instructions",
    "st_wavefronts",
    "st_bank_conflicts",
    "st_instructions",
    "atom_wavefronts",
    "atom_bank_conflicts",
    "atom_instructions",
];

/// The loads' and stores' six of [`SHARED_COUNTERS`].
pub const LD_ST_COUNTERS: &[&str] = SHARED_COUNTERS.split_at(6).0;

/// The warpsim binary.
pub fn warpsim() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_warpsim"));
    c.current_dir(root());
    c
}

/// `warpsim ARGS` from the repository root, run to completion.
pub fn run(args: &[&str]) -> Output {
    warpsim().args(args).output().expect("warpsim runs")
}

/// `warpsim ARGS` from the repository root with `stdin`: (exit code, stdout, stderr).
pub fn run_with_stdin(args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut child = warpsim()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run warpsim");
    let mut input = child.stdin.take().expect("stdin");
    // A command that does not read stdin may close it first: ignore the broken pipe.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("wait for warpsim");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Writes `src` to `name` in the test binary's scratch folder; its path.
pub fn scratch(name: &str, src: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&p, src).expect("write a scratch file");
    p
}

/// `warpsim run PATH` exits 2 and its message (plain) contains `want`.
pub fn assert_refused(path: &str, want: &str) {
    let out = warpsim()
        .args(["run", path])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{path}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(want), "{path}: {err}");
}

/// Runs `warpsim run programs/PROGRAM --format json` with defines and extra arguments.
/// `warpsim run FILE --format json --no-timing EXTRA..` (FILE from the repository root): must
/// succeed and verify; its report.
pub fn run_verified(file: &str, extra: &[&str]) -> serde_json::Value {
    let out = warpsim()
        .args(["run", file, "--format", "json", "--no-timing"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{file}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["verified"], true, "{file}: {}", r["verification"]);
    r
}

pub fn run_json(program: &str, defines: &[&str], extra: &[&str]) -> serde_json::Value {
    let mut c = warpsim();
    c.arg("run")
        .arg(format!("programs/{program}"))
        .args(["--format", "json"]);
    for d in defines {
        c.args(["--define", d]);
    }
    c.args(extra);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "warpsim run {program} {defines:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{program}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}
