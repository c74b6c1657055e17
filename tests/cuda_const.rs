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

/// `run` that must exit 0 and verify: the report.
fn verified(file: &str, extra: &[&str]) -> serde_json::Value {
    let (code, r, err) = run(file, extra);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(r["verified"], true, "{}", r["verification"]);
    r
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
        let r = verified("chain.ron", &["--define", &format!("STRIDE={stride}")]);
        r["timing"]["elapsed_cycles"].as_f64().unwrap()
    };
    let (one, all) = (cycles("0"), cycles("1"));
    let per_step = (all - one) / 256.0;
    assert!(
        (per_step - 341.0).abs() < 341.0 * 0.05,
        "D = 32 costs {per_step:.1} cycles a step more than D = 1 ({one} → {all})"
    );
}

/// A chain whose address every lane shares is on the uniform datapath (`ULDC`, spec C-2/C-4):
/// its result comes 17 cycles after issue where an `LDC`'s comes after 28, so each step of
/// `uchain` is 11 cycles shorter than the same step of `chain` (the address arithmetic is the
/// same in both).
#[test]
fn uniform_constant_loads_take_the_uniform_datapath() {
    if !crate::nvrtc::nvrtc("uniform_constant_loads_take_the_uniform_datapath") {
        return;
    }
    let per_step = |file: &str| {
        let at = |steps: u32| {
            let r = verified(file, &["--define", &format!("STEPS={steps}")]);
            r["timing"]["elapsed_cycles"].as_f64().unwrap()
        };
        (at(512) - at(256)) / 256.0
    };
    let (ldc, uldc) = (per_step("chain.ron"), per_step("uchain.ron"));
    assert!(
        (ldc - uldc - 11.0).abs() <= 1.5,
        "an LDC step {ldc:.1} cycles, a ULDC step {uldc:.1}: 11 apart on the H200"
    );
}

/// Two words of an 8-byte pair of the constant bank in the same straight-line code are one
/// `ULDC.64`: one instruction fewer than two words across a pair boundary.
#[test]
fn an_aligned_pair_of_uniform_constant_words_is_one_load() {
    if !crate::nvrtc::nvrtc("an_aligned_pair_of_uniform_constant_words_is_one_load") {
        return;
    }
    let issued = |across: &str| {
        let r = verified("pairs.ron", &["--define", &format!("ACROSS={across}")]);
        r["timing"]["issued_warp_instructions"].as_u64().unwrap()
    };
    assert_eq!(issued("1"), issued("0") + 1);
}

/// A constant line's first touch in a launch comes from memory (spec C-3/C-4: both constant
/// caches start each launch cold): the loads wait for it as `imc_miss` (a `ULDC`) or
/// `short_scoreboard` (an `LDC`), about the global model's DRAM latency once.
#[test]
fn a_constant_line_touched_first_waits_for_memory() {
    if !crate::nvrtc::nvrtc("a_constant_line_touched_first_waits_for_memory") {
        return;
    }
    let (code, r, err) = run("uchain.ron", &["--define", "STEPS=256"]);
    assert_eq!(code, Some(0), "{err}");
    let t = &r["timing"];
    let waited =
        t["stalls"]["imc_miss"].as_f64().unwrap() * t["issued_warp_instructions"].as_f64().unwrap();
    assert!(
        (650.0..800.0).contains(&waited),
        "one warp waited {waited:.0} cycles for its first constant line"
    );
}

/// The report's constant block (spec C-5): a per-lane chain is `LDC`s whose replays are one
/// per further distinct address (the H200's `sm__idc_divergent_instruction_replays`), a uniform
/// chain `ULDC`s, a pair one `ULDC.64`; each row names its instruction.
#[test]
fn the_report_counts_constant_loads_as_nsight_does() {
    if !crate::nvrtc::nvrtc("the_report_counts_constant_loads_as_nsight_does") {
        return;
    }
    let block = |file: &str, define: &str| {
        let mut args = vec!["--no-timing"];
        if !define.is_empty() {
            args.extend(["--define", define]);
        }
        let (code, r, err) = run(file, &args);
        assert_eq!(code, Some(0), "{err}");
        let rows: Vec<String> = r["per_instruction"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["space"] == "const")
            .map(|i| i["instruction"].as_str().unwrap().to_string())
            .collect();
        (r["constant"].clone(), rows)
    };
    // 256 steps of 32 distinct addresses: 256 LDCs, each divergent, 31 replays each.
    let (c, rows) = block("chain.ron", "STRIDE=1");
    assert_eq!(c["ldc_instructions"], 256, "{c}");
    assert_eq!(c["ldc_divergent"], 256, "{c}");
    assert_eq!(c["ldc_replays"], 256 * 31, "{c}");
    assert_eq!(c["idc_requests"], 256 * 32, "{c}");
    assert_eq!(c["uldc_instructions"], 0, "{c}");
    assert!(rows.iter().all(|n| n == "LDC"), "{rows:?}");
    let (c, _) = block("chain.ron", "STRIDE=0");
    assert_eq!(
        (c["ldc_divergent"].as_u64(), c["ldc_replays"].as_u64()),
        (Some(0), Some(0))
    );
    let (c, rows) = block("uchain.ron", "STEPS=256");
    assert_eq!(
        (
            c["ldc_instructions"].as_u64(),
            c["uldc_instructions"].as_u64()
        ),
        (Some(0), Some(256))
    );
    assert!(rows.iter().all(|n| n == "ULDC"), "{rows:?}");
    let (c, rows) = block("pairs.ron", "ACROSS=0");
    assert_eq!(c["uldc_instructions"], 1, "{c}");
    assert_eq!(rows, ["ULDC.64", "ULDC.64 (pair)"]);
    let (c, rows) = block("pairs.ron", "ACROSS=1");
    assert_eq!(c["uldc_instructions"], 2, "{c}");
    assert_eq!(rows, ["ULDC", "ULDC"]);
    // A pair of the bank across two symbols (ptxas lays them out in order: c_filter's last
    // word and c_n share bytes 16-23).
    let (c, rows) = block("bank_pair.ron", "");
    assert_eq!(c["uldc_instructions"], 1, "{c}");
    assert_eq!(rows, ["ULDC.64", "ULDC.64 (pair)"]);
}

/// The SM's 2 KiB constant cache (4-way x 8 sets of 64-byte lines, LRU; spec C-3): a chase
/// over 2 KiB hits it after its first lap (28 cycles a load), over 4 KiB at a 64-byte step
/// misses it every time (98: 70 more), at a 32-byte step every other time (63: 35 more), as
/// the H200's `const_lat.tsv` (`calibration/probes/cuda_coverage/fixtures/const_h200.tsv`).
#[test]
fn the_constant_cache_holds_two_kib() {
    if !crate::nvrtc::nvrtc("the_constant_cache_holds_two_kib") {
        return;
    }
    let per_step = |words: u32, step: u32| {
        let at = |steps: u32| {
            let r = verified(
                "chase.ron",
                &[
                    "--define",
                    &format!("WORDS={words}"),
                    "--define",
                    &format!("STEP={step}"),
                    "--define",
                    &format!("STEPS={steps}"),
                ],
            );
            r["timing"]["elapsed_cycles"].as_f64().unwrap()
        };
        (at(2048) - at(1024)) / 1024.0
    };
    let fits = per_step(512, 16);
    let (miss, half) = (per_step(1024, 16) - fits, per_step(1024, 8) - fits);
    assert!(
        (miss - 70.0).abs() <= 2.0,
        "a miss costs {miss:.1} cycles more than a hit"
    );
    assert!(
        (half - 35.0).abs() <= 2.0,
        "half misses cost {half:.1} cycles more"
    );
}

/// CUDA's `printf` (with `%s` of string literals) and a `__device__` counter through NVRTC
/// (tests/fixtures/cuda/printf).
#[test]
fn printf_and_device_variables_from_cuda() {
    if !crate::nvrtc::nvrtc("printf_and_device_variables_from_cuda") {
        return;
    }
    let out = warpsim()
        .args(["run", "tests/fixtures/cuda/printf/hello.ron"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(
        err,
        "[0,0]   0.00 42  |0.000000e+00 even|wa\n[0,1]   0.25 42  |1.000000e-03 odd|wa\n\
         [1,0]   8.00 42  |3.200000e-02 even|wa\n[1,1]   8.25 42  |3.300000e-02 odd|wa\n"
    );
}
