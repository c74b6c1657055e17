//! Hand-written PTX for 1- and 2-byte accesses and half precision
//! (tests/fixtures/ptx/half.ptx): the kernels run verified (every half result exactly as CUDA
//! rounds it: `tolerance: 0.0`), narrow shared accesses are priced at their width and
//! race-checked, and what is not modelled is refused.

use crate::util::warpsim;

fn run(path: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    let out = warpsim()
        .args(["run", path, "--format", "json", "--no-timing"])
        .args(extra)
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    let r = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{path}: not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, r)
}

#[test]
fn narrow_and_half_kernels_run_verified() {
    for k in ["narrow_mem", "half_ops", "round_ops"] {
        let (code, r) = run(&format!("tests/fixtures/ptx/{k}.ron"), &[]);
        assert_eq!(code, 0, "{k}");
        assert_eq!(r["verified"], true, "{k}: {}", r["verification"]);
    }
}

/// Each narrow shared access is one instruction of its own width (1, 2, and the vectors' 8
/// and 4 bytes), priced by the bank model: 32 lanes on consecutive bytes or halves are one
/// wavefront, 8 lanes' distinct 8-byte vectors (64 bytes, each read by 4 lanes) two.
#[test]
fn narrow_shared_accesses_are_priced_at_their_width() {
    let (_, r) = run("tests/fixtures/ptx/narrow_mem.ron", &[]);
    let got: Vec<(String, u64, u64)> = r["per_instruction"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["space"] == "shared")
        .map(|i| {
            (
                i["op"].as_str().unwrap().to_owned(),
                i["width"].as_u64().unwrap(),
                i["wavefronts"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("st", 1, 1),
        ("st", 2, 1),
        ("ld", 1, 1),
        ("ld", 8, 2),
        ("ld", 4, 1),
    ];
    let want: Vec<(String, u64, u64)> =
        want.iter().map(|&(o, w, f)| (o.to_owned(), w, f)).collect();
    assert_eq!(got, want);
}

/// Two warps exchanging halves without a barrier: `--racecheck` reports it (exit 1).
#[test]
fn narrow_shared_races_are_found() {
    let (code, r) = run("tests/fixtures/ptx/narrow_race.ron", &["--racecheck"]);
    assert_eq!(code, 1);
    let races = r["races"].as_array().unwrap();
    assert!(races.iter().any(|x| x["kind"] == "RAW"), "{races:?}");
    let (code, r) = run("tests/fixtures/ptx/narrow_mem.ron", &["--racecheck"]);
    assert_eq!(code, 0);
    assert_eq!(r["races"].as_array().map_or(0, |v| v.len()), 0);
}

#[test]
fn unmodelled_half_forms_exit_2_with_the_reason() {
    let out = warpsim()
        .args(["run", "tests/fixtures/ptx/bad_rz.ron"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("half.ptx:")
            && err.contains("`cvt.rz.f16.f32` is not supported: .rz: only .rn"),
        "{err}"
    );
}
