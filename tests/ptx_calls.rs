//! `.func` calls (inlined when the kernel loads) and generic addressing (each generic access's
//! state space resolved by dataflow), from hand-written PTX (tests/fixtures/ptx/calls.ptx,
//! generic.ptx: every result checked by the launch's `expect`) and from NVRTC's PTX of
//! `__noinline__` functions (tests/fixtures/cuda/noinline.cu; skipped without NVRTC). What
//! warpsim cannot run is refused with exit 2 and the reason.

use crate::util::{assert_refused, run_verified, warpsim};

#[test]
fn calls_and_generic_accesses_run_verified() {
    for k in ["calls", "generic", "generic_local"] {
        run_verified(&format!("tests/fixtures/ptx/{k}.ron"), &[]);
    }
}

#[test]
fn unused_module_shared_memory_takes_no_room() {
    // calls.ptx declares `table` (128 bytes, used by a function) and `unused_buf` (1024).
    let out = warpsim()
        .args(["check", "tests/fixtures/ptx/calls.ron"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("shared:  128 bytes per block"), "{text}");
}

#[test]
fn refused_calls_and_generic_accesses_exit_2_with_the_reason() {
    for (k, want) in [
        (
            "bad_call_recursive",
            "recursive call of `fact` (fact → fact): warpsim inlines device functions and cannot inline recursion",
        ),
        (
            "bad_call_indirect",
            "`call` through the register `%rd2` (an indirect call",
        ),
        (
            "bad_call_printf",
            "the kernel calls `vprintf` (`printf` in CUDA source), an external function",
        ),
        (
            "bad_generic_ambiguous",
            "generic.ptx:128:2: generic address whose state space warpsim cannot determine: `%rd6` in `ld.u32` may point to shared memory or global memory",
        ),
        (
            "bad_generic_from_memory",
            "generic address whose state space warpsim cannot determine: `%rd3` in `ld.u32` may point to a value warpsim cannot follow",
        ),
    ] {
        assert_refused(&format!("tests/fixtures/ptx/{k}.ron"), want);
    }
}

/// NVRTC's own `.func`s: `__noinline__` functions reading through a pointer that is shared at
/// one call and global at the other (generic loads), one calling the other.
#[test]
fn cuda_noinline_functions_run_verified() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvrtc-cache-noinline");
    let _ = std::fs::remove_dir_all(&dir);
    let out = warpsim()
        .args([
            "run",
            "tests/fixtures/cuda/noinline.ron",
            "--format",
            "json",
            "--no-timing",
        ])
        .env("WARPSIM_CACHE", &dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("NVRTC (libnvrtc)") {
        println!("cuda_noinline_functions_run_verified: skipped: NVRTC not found");
        return;
    }
    assert!(out.status.success(), "{err}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["verified"], true, "{}", r["verification"]);
}
