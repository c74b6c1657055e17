//! The CUDA prelude (crates/ptx/src/cuda.rs `PRELUDE`: `uint`, `INFINITY`, `NAN`, which host
//! headers would give) and device `assert` (a failed one is a fault at its line), on
//! tests/fixtures/cuda/prelude.cu. Skipped without NVRTC.

use crate::util::warpsim;

#[test]
fn the_prelude_gives_uint_infinity_and_nan_and_assert_runs() {
    if !crate::nvrtc::nvrtc("the_prelude_gives_uint_infinity_and_nan_and_assert_runs") {
        return;
    }
    crate::util::run_verified("tests/fixtures/cuda/prelude.ron", &[]);
    let out = warpsim()
        .args(["run", "tests/fixtures/cuda/bad_assert.ron", "--no-timing"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("prelude.cu:9:5: the kernel executed `trap`"),
        "{err}"
    );
    assert!(err.contains("assert(n >= 0);"), "{err}");
}
