//! Helpers shared by the integration tests.
use std::path::PathBuf;
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

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
