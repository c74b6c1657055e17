//! `.func` calls (inlined when the kernel loads) and generic addressing (each generic access's
//! state space resolved by dataflow, or per lane at run time where dataflow cannot tell: a
//! pointer shared in some lanes and global in others, pointers loaded from memory, atomics
//! through them), from
//! hand-written PTX (tests/fixtures/ptx/calls.ptx,
//! generic.ptx: every result checked by the launch's `expect`) and from NVRTC's PTX of
//! `__noinline__` functions (tests/fixtures/cuda/noinline.cu; skipped without NVRTC). What
//! warpsim cannot run is refused with exit 2 and the reason.

use crate::util::{assert_refused, run_verified, warpsim};

#[test]
fn calls_and_generic_accesses_run_verified() {
    for k in [
        "calls",
        "generic",
        "generic_local",
        "generic_ambiguous",
        "generic_from_memory",
        "generic_atom",
        "generic_atom_var",
    ] {
        run_verified(&format!("tests/fixtures/ptx/{k}.ron"), &[]);
    }
    // The run-time resolution: a branch on the address's window to one access per space the
    // pointer may have (shared or global; any, for one loaded from memory).
    for (k, spaces) in [
        ("generic_ambiguous", &["ld.shared", "ld.global"][..]),
        (
            "generic_from_memory",
            &["ld.shared", "ld.global", "ld.local"],
        ),
    ] {
        let out = crate::util::run(&["check", &format!("tests/fixtures/ptx/{k}.ron"), "--code"]);
        let code = String::from_utf8_lossy(&out.stdout);
        for want in spaces {
            assert!(code.contains(want), "{k}: {want}: {code}");
        }
    }
    let out = crate::util::run(&[
        "check",
        "tests/fixtures/ptx/generic_ambiguous.ron",
        "--code",
    ]);
    let code = String::from_utf8_lossy(&out.stdout);
    assert!(!code.contains("ld.local"), "{code}");
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
            "`printf` with a format that is not a string literal of the module",
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

/// CUDA's `printf` as NVRTC compiles it (`vprintf` of a `$str` literal and the arguments
/// packed in the thread's local depot): on stderr, blocks in grid order, lanes in order, the
/// same on any number of threads; in the JSON as `printf`; it returns its argument count.
#[test]
fn printf_prints_in_block_and_lane_order() {
    let want = "block 0 thread  0: v=0.00 n=7 ll=0 hex=0\n\
                block 0 thread  1: v=0.50 n=7 ll=1000000000 hex=0x1\n\
                block 0 thread  2: v=1.00 n=7 ll=2000000000 hex=0x2\n\
                done\n\
                block 1 thread  0: v=16.00 n=7 ll=32000000000 hex=0x20\n\
                block 1 thread  1: v=16.50 n=7 ll=33000000000 hex=0x21\n\
                block 1 thread  2: v=17.00 n=7 ll=34000000000 hex=0x22\n";
    for threads in ["1", "3"] {
        let out = warpsim()
            .args(["run", "tests/fixtures/ptx/printf37.ron"])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert_eq!(err, want, "{threads} threads");
    }
    let out = warpsim()
        .args(["run", "tests/fixtures/ptx/printf37.ron", "--format", "json"])
        .output()
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["printf"], want);
    // `ret` holds each lane's printf return value: 6 arguments in lanes 0-2.
    assert_eq!(r["verified"], true, "{}", r["verification"]);
}

#[test]
fn a_printf_format_warpsim_cannot_print_is_refused_at_its_line() {
    // `%d` -> `%n` (37, 100 -> 37, 110) in the first format.
    let ptx = std::fs::read_to_string(crate::util::root().join("tests/fixtures/ptx/printf37.ptx"))
        .unwrap()
        .replacen(
            "{98, 108, 111, 99, 107, 32, 37, 100,",
            "{98, 108, 111, 99, 107, 32, 37, 110,",
            1,
        );
    crate::util::scratch("printf_s.ptx", &ptx);
    let ron = std::fs::read_to_string(crate::util::root().join("tests/fixtures/ptx/printf37.ron"))
        .unwrap()
        .replace("\"printf37.ptx\"", "\"printf_s.ptx\"");
    let path = crate::util::scratch("printf_s.ron", &ron);
    let out = warpsim()
        .args(["run", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("printf_s.ptx:"), "{err}");
    assert!(
        err.contains("`%n` is not a conversion warpsim prints"),
        "{err}"
    );
}
