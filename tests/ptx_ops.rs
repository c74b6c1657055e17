//! Hand-written PTX for each instruction beyond the first subset (tests/fixtures/ptx/ops.ptx):
//! every kernel runs verified against its `expect`, and what is not modelled is refused.

use crate::util::warpsim;

#[test]
fn each_instruction_runs_verified() {
    // (narrow_parts: accesses narrower or wider than their buffer's elements, issue 37.)
    for k in ["warp_ops", "math_ops", "atomics", "narrow_parts"] {
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
fn shuffles_with_a_read_predicate_or_a_register_segment_run() {
    // Both were refused before issue 37; tests/ptx_bitops.rs checks their values (shfl37).
    for k in ["shfl_pred", "shfl_var"] {
        let path = format!("tests/fixtures/ptx/{k}.ron");
        let out = warpsim()
            .args(["run", &path, "--no-timing"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
