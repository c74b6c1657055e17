//! Warps that synchronise apart (issue 37): `__syncwarp()` (PTX `bar.warp.sync`) waits for
//! its own warp's lanes, not for the block; cooperative groups' 64- and 128-thread tiles
//! (`cg::reduce`, `shfl`, `sync`), whose warps meet through a word of reserved shared memory
//! that each spins on, run and verify (tests/fixtures/cuda/cg/warp_sync.cu). Skipped without
//! NVRTC.

use crate::util::{run, run_verified};

#[test]
fn multi_warp_tiles_reduce_shuffle_and_sync() {
    if !crate::nvrtc::nvrtc("multi_warp_tiles_reduce_shuffle_and_sync") {
        return;
    }
    // (Each spin is bounded by the warps' turns: far under the default --max-steps.)
    let r = run_verified(
        "tests/fixtures/cuda/cg/tiles.ron",
        &["--max-steps", "2000000"],
    );
    assert!(r["verification"].to_string().contains("sum128"), "{r}");
}

#[test]
fn syncwarp_waits_for_its_warp_alone() {
    if !crate::nvrtc::nvrtc("syncwarp_waits_for_its_warp_alone") {
        return;
    }
    let path = "tests/fixtures/cuda/cg/apart.ron";
    run_verified(path, &[]);
    // Each `__syncwarp()` (NVRTC unrolls the loop) is the warp's `syncwarp`, never the
    // block's `barrier`: warp 0 runs them, warp 1 none; `__syncthreads()` is the one barrier.
    let out = run(&["check", path, "--code"]);
    let code = String::from_utf8_lossy(&out.stdout);
    let lines = |what: &str| {
        code.lines()
            .filter(|l| l.split_whitespace().nth(3) == Some(what))
            .count()
    };
    assert!(lines("syncwarp") >= 3, "{code}");
    assert_eq!(lines("barrier"), 1, "{code}");
}

/// `__syncwarp()` in both sides of a branch: CUDA lets them meet; warpsim, which runs one side
/// after the other, refuses it at the first one's line and says why (exit 2).
#[test]
fn syncwarp_in_both_sides_of_a_branch_is_refused_with_the_reason() {
    if !crate::nvrtc::nvrtc("syncwarp_in_both_sides_of_a_branch_is_refused_with_the_reason") {
        return;
    }
    let out = run(&[
        "run",
        "tests/fixtures/cuda/cg/bad_split_syncwarp.ron",
        "--no-timing",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad_split_syncwarp.cu:5:"), "{err}");
    assert!(
        err.contains("one side of a branch after the other"),
        "{err}"
    );
}
