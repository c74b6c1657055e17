//! Constant memory (`__constant__`, PTX `.const`/`ld.const`; issue 37, spec C-1..C-3 of
//! calibration/probes/cuda_coverage), on tests/fixtures/cuda/const/: the module's
//! initialisers, the launch file's `constants:` fills (`Values`, `Random`, `Iota` at an
//! offset, `from:` a buffer), `expect` reading a constant by name, uniform and divergent
//! reads, the refusals at their entries, a read past the symbol as a fault, and the timing
//! model's `LDC` law (28 + 11(D - 1) cycles for D distinct addresses). Skipped without NVRTC.

use crate::util::warpsim;

const DIR: &str = "tests/fixtures/cuda/const";

fn run(file: &str, extra: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = warpsim()
        .args(["run", &format!("{DIR}/{file}"), "--format", "json"])
        .args(extra)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), v, err)
}

#[test]
fn constants_are_initialised_filled_and_read_by_expect() {
    if !crate::nvrtc::nvrtc("constants_are_initialised_filled_and_read_by_expect") {
        return;
    }
    for f in [
        "smooth.ron",
        "smooth_values.ron",
        "lookup.ron",
        "lookup_random.ron",
    ] {
        let (code, r, err) = run(f, &["--no-timing"]);
        assert_eq!(code, Some(0), "{f}: {err}");
        assert_eq!(r["verified"], true, "{f}: {}", r["verification"]);
        let rows = r["per_instruction"].as_array().unwrap();
        assert!(
            rows.iter().any(|i| i["space"] == "const"),
            "{f}: no constant load in {rows:?}"
        );
        // Constant loads are not shared accesses.
        assert_eq!(r["shared"]["ld_wavefronts"], 0, "{f}");
    }
}

#[test]
fn constant_fills_are_checked_at_their_entries() {
    if !crate::nvrtc::nvrtc("constant_fills_are_checked_at_their_entries") {
        return;
    }
    for (f, at, want) in [
        (
            "bad_const_unknown.ron",
            ":10:17",
            "`c_nothing` is not a constant symbol of the kernel's module",
        ),
        (
            "bad_const_past.ron",
            ":10:17",
            "this fill writes bytes 32..272 of `c_lut`, which has 256 bytes",
        ),
        ("bad_const_both.ron", ":10:61", "`init` or `from`, not both"),
        (
            "bad_const_short.ron",
            ":10:50",
            "buffer `key` has 32 elements; the fill of `c_lut` copies 64",
        ),
        (
            "bad_const_nofrom.ron",
            ":10:49",
            "no buffer named `nothing`",
        ),
        (
            "bad_const_count.ron",
            ":10:17",
            "the fill of `c_lut` has 3 elements but 2 values",
        ),
    ] {
        let (code, _, err) = run(f, &[]);
        assert_eq!(code, Some(2), "{f}: {err}");
        assert!(err.contains(&format!("{f}{at}")), "{f}: {err}");
        assert!(err.contains(want), "{f}: {err}");
    }
    // The unknown symbol's message lists the module's symbols and sizes.
    let (_, _, err) = run("bad_const_unknown.ron", &[]);
    assert!(
        err.contains("c_filter (20 bytes), c_n (4 bytes), c_lut (256 bytes)"),
        "{err}"
    );
}

#[test]
fn a_read_past_a_constant_symbol_is_a_fault_at_its_line() {
    if !crate::nvrtc::nvrtc("a_read_past_a_constant_symbol_is_a_fault_at_its_line") {
        return;
    }
    let (code, _, err) = run("bad_const_read.ron", &["--no-timing"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("const.cu:44:"), "{err}");
    assert!(
        err.contains("a 4-byte access at byte 256 of `c_lut`") && err.contains("thread (64,0,0)"),
        "{err}"
    );
}

/// One warp's chain of dependent `LDC`s: each further distinct address costs the H200's 11
/// cycles (`const_lat.tsv`: 28, 39, …, 369 for D = 1 … 32), so D = 32 takes 31 × 11 = 341
/// cycles a step more than D = 1.
#[test]
fn divergent_constant_loads_replay_per_distinct_address() {
    if !crate::nvrtc::nvrtc("divergent_constant_loads_replay_per_distinct_address") {
        return;
    }
    let cycles = |stride: &str| {
        let (code, r, err) = run("chain.ron", &["--define", &format!("STRIDE={stride}")]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(r["verified"], true, "{}", r["verification"]);
        r["timing"]["elapsed_cycles"].as_f64().unwrap()
    };
    let (one, all) = (cycles("0"), cycles("1"));
    let per_step = (all - one) / 256.0;
    assert!(
        (per_step - 341.0).abs() < 341.0 * 0.05,
        "D = 32 costs {per_step:.1} cycles a step more than D = 1 ({one} → {all})"
    );
}
