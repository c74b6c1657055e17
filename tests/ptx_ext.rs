//! Hand-written PTX for the second extension of the PTX subset (tests/fixtures/ptx/ext.ptx,
//! README "PTX beyond the first subset"): predicated instructions, 64-bit integer operations
//! and conversions, 16-bit division and multiplication, ordered and unordered float
//! comparisons with NaN, `vote.uni`. Every result is worked out by hand in the launch files'
//! `expect`s and verified; what is not modelled is refused with its PTX line.

use crate::util::{assert_refused, run_verified as run, warpsim};

#[test]
fn each_kernel_runs_verified() {
    for k in ["ext_wide", "ext_cvt", "ext_fcmp", "ext_int16", "ext_vote"] {
        run(&format!("tests/fixtures/ptx/{k}.ron"), &[]);
    }
}

#[test]
fn predicated_instructions_branch_around_and_reconverge() {
    // `@p` on add, stores, an atomic, ret and exit; the barrier after a predicated shared
    // store is reached by the whole warp (reconverged), and the racecheck finds nothing.
    let r = run("tests/fixtures/ptx/ext_pred.ron", &["--racecheck"]);
    assert_eq!(r["races"], serde_json::json!([]), "{}", r["races"]);
    // Each predicated instruction is a branch and a join in the listing.
    let out = warpsim()
        .args(["check", "--code", "tests/fixtures/ptx/ext_pred.ron"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let code = String::from_utf8_lossy(&out.stdout);
    assert!(
        code.contains("branch !r17, @12, join @12") && code.contains("@%p1 add.s32"),
        "{code}"
    );
}

#[test]
fn unmodelled_forms_exit_2_with_the_reason_and_line() {
    for (k, want) in [
        (
            "pred_bar",
            "ext.ptx:70:2: a predicated `bar.sync` is not supported",
        ),
        (
            "cvt_rz64",
            "`cvt.rz.f32.s64` is not supported: from a 64-bit integer only .rn is supported",
        ),
        (
            "div64_zero",
            "integer division by zero in `div.u64 %rd3, 100, %rd2`",
        ),
    ] {
        assert_refused(&format!("tests/fixtures/ptx/bad_{k}.ron"), want);
    }
}
