//! Local memory in PTX (`.local`, tests/fixtures/ptx/local.ptx): a per-thread array indexed at
//! run time, 8-byte, vector and narrow local accesses and generic pointers from `cvta.local`
//! run verified, with timing on and off; local accesses are never priced by the bank model
//! nor seen by the race checker; an access past the thread's local memory, or misaligned, is
//! a fault at its PTX line (exit 2).

use crate::util::warpsim;

fn run(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = warpsim()
        .args([
            "run",
            "tests/fixtures/ptx/local_ops.ron",
            "--format",
            "json",
        ])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), v, err)
}

#[test]
fn local_arrays_run_verified_private_and_unpriced() {
    let (code, r, err) = run(&["--no-timing", "--racecheck"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["verified"], true, "{}", r["verification"]);
    // Every thread stores to the same local offsets: no race, since each has its own.
    assert_eq!(r["races"], serde_json::json!([]));
    let rows = r["per_instruction"].as_array().unwrap();
    let local: Vec<_> = rows.iter().filter(|i| i["space"] == "local").collect();
    // The loop's store, 10 loads and 4 stores straight, the generic ld and st among them.
    assert!(local.len() >= 14, "{local:?}");
    for i in &local {
        assert!(i["wavefronts"].is_null(), "{i}");
        assert_eq!(i["array"], "__local_depot0");
    }
    let widths: Vec<u64> = local.iter().map(|i| i["width"].as_u64().unwrap()).collect();
    for w in [1, 2, 4, 8, 16] {
        assert!(widths.contains(&w), "no {w}-byte local access: {widths:?}");
    }
    assert_eq!(r["shared"]["ld_wavefronts"], 0);
}

#[test]
fn local_accesses_are_timed_as_global_ones() {
    let (code, r, err) = run(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["verified"], true);
    let t = &r["timing"];
    assert!(t["elapsed_cycles"].as_u64().unwrap() > 0);
    // The loads wait on the long scoreboard (LDL through L1, as LDG); nothing on the shared
    // pipe.
    assert_eq!(t["shared_pipe_utilization"], 0.0);
    let waits: u64 = r["per_instruction"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["space"] == "local")
        .map(|i| i["stalls"]["short_scoreboard"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(waits, 0);
}

#[test]
fn local_faults_exit_2_at_the_ptx_line() {
    for (k, want, line) in [
        (
            "bad_local_oob",
            "out-of-bounds local access: a 4-byte access at local byte 32 is outside the \
             thread's 32 bytes of local memory (thread (8,0,0)",
            "local.ptx:117:2",
        ),
        (
            "bad_local_misaligned",
            "misaligned 4-byte access: ld.local.u32 %r2, [%SPL+2] is at byte 2 of the thread's \
             local memory",
            "local.ptx:133:2",
        ),
    ] {
        let out = warpsim()
            .args(["run", &format!("tests/fixtures/ptx/{k}.ron")])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{k}: {err}");
        assert!(err.contains(line), "{k}: {err}");
    }
}

#[test]
fn check_code_lists_local_accesses_by_name() {
    let out = warpsim()
        .args(["check", "tests/fixtures/ptx/local_ops.ron", "--code"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{s}");
    assert!(s.contains("ld.local.v4"), "{s}");
    assert!(s.contains("st.local"), "{s}");
    assert!(s.contains("__local_depot0["), "{s}");
}
