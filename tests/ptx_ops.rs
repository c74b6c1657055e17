//! Hand-written PTX for each instruction beyond the first subset (tests/fixtures/ptx/ops.ptx):
//! every kernel runs verified against its `expect`, and what is not modelled is refused.

use crate::util::{assert_refused, warpsim};

#[test]
fn each_instruction_runs_verified() {
    for k in ["warp_ops", "math_ops", "atomics"] {
        let path = format!("tests/fixtures/ptx/{k}.ron");
        let out = warpsim()
            .args(["run", &path, "--format", "json", "--no-timing"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["verified"], true, "{k}: {}", r["verification"]);
    }
}

#[test]
fn unmodelled_forms_exit_2_with_the_reason() {
    for (k, want) in [
        (
            "shfl_pred",
            "the predicate `%p1` (source lane in range) is not modelled",
        ),
        (
            "shfl_var",
            "the clamp/segment operand `%r1` must be a constant",
        ),
    ] {
        assert_refused(&format!("tests/fixtures/ptx/bad_{k}.ron"), want);
    }
}
