//! `mbarrier` (issue 41) through the PTX front end: hand-written PTX
//! (tests/fixtures/ptx/mbar41.ptx) whose every word is computed by hand — a consumer warp
//! parked at `try_wait` until a producer warp arrives, transaction bytes, a wait that times
//! out, `cp.async.mbarrier.arrive` under the race checker, TMA's 1-D bulk copies in and out of
//! shared memory — each misuse a fault at its line (never a hang); and through NVRTC the
//! warp-specialised pipeline of programs/cuda/tensor (verified, race-free, priced by the bank
//! rules) and `cuda::barrier` with `cuda::memcpy_async` in both of libcu++'s paths (cp.async,
//! and the bulk copy it takes for 16-byte aligned sizes).

use crate::util::{run, run_verified};

#[test]
fn producer_consumer_transactions_and_timeouts_compute_the_hand_values() {
    for k in [
        "mbar_pc41",
        "mbar_tx41",
        "mbar_timeout41",
        "mbar_async41",
        "mbar_bulk41",
    ] {
        let r = run_verified(&format!("tests/fixtures/ptx/{k}.ron"), &["--racecheck"]);
        assert_eq!(r["races"], serde_json::json!([]), "{k}");
    }
}

#[test]
fn reading_before_the_copies_barrier_is_a_race() {
    let out = run(&[
        "run",
        "tests/fixtures/ptx/mbar_async41.ron",
        "-D",
        "WAIT=0",
        "--racecheck",
        "--no-timing",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("WAR hazard on data[0]"), "{text}");
}

#[test]
fn a_parked_wait_is_counted_once_per_try() {
    // mbar_pc: warp 0's try_wait parks once (warp 1 has not arrived), then passes: 2
    // executions; its test_wait (complete by then) 1.
    use warpsim_exec::{Config, Global, Stats, Validated};
    let path = crate::util::root().join("tests/fixtures/ptx/mbar_pc41.ron");
    let prog =
        warpsim_lang::load_file(path.to_str().unwrap(), &warpsim_lang::Options::default()).unwrap();
    let global = Global::new(&prog);
    let cfg = Config::default();
    let v = Validated::new(&prog, &cfg, &global).unwrap();
    let mut stats = Stats::new(&prog, &cfg.geometry);
    v.run_block([0, 0, 0], &mut stats).unwrap();
    let count = |text: &str| -> u64 {
        (0..prog.code.len())
            .filter(|&pc| prog.info[pc].text.contains(text))
            .map(|pc| stats.per_pc[pc].executions)
            .sum()
    };
    assert_eq!(count("mbarrier.try_wait"), 2);
    assert_eq!(count("mbarrier.test_wait"), 1);
}

#[test]
fn misused_barriers_are_faults_at_their_line() {
    for (which, line, want) in [
        (0, 212, "is used before mbarrier.init"),
        (
            1,
            215,
            "2 arrival(s) at the mbarrier at shared byte 0, whose phase waits for 1 more",
        ),
        (
            2,
            220,
            "can never complete: 1 warp(s) wait for a phase that no remaining arrival or \
             transaction completes: the mbarrier at shared byte 8 (`bar` + 8) is in a phase of \
             parity 0, waiting for 1 of its 2 arrivals and 0 transaction bytes",
        ),
        (3, 224, "mbarrier.arrive.noComplete completes the phase"),
        (4, 209, "misaligned 8-byte access"),
    ] {
        let d = format!("WHICH={which}");
        let out = run(&[
            "run",
            "tests/fixtures/ptx/bad_mbar41.ron",
            "-D",
            &d,
            "--no-timing",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{which}: {err}");
        assert!(err.contains(want), "{which}: {err}");
        assert!(
            err.contains(&format!("mbar41.ptx:{line}:2")),
            "{which}: {err}"
        );
    }
}

#[test]
fn a_bulk_copy_of_a_size_not_a_multiple_of_16_is_a_fault() {
    let out = run(&[
        "run",
        "tests/fixtures/ptx/mbar_bulk41.ron",
        "-D",
        "SIZE=8",
        "--no-timing",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a bulk copy of 8 bytes"), "{err}");
    assert!(err.contains("mbar41.ptx:256:2"), "{err}");
}

#[test]
fn libcudacxx_barriers_run_in_both_copy_paths() {
    if !crate::nvrtc::nvrtc("libcudacxx_barriers_run_in_both_copy_paths") {
        return;
    }
    for (a, op) in [("true", "cp.async.bulk"), ("false", "cp.async.ca")] {
        let path = format!("tests/fixtures/cuda/barrier/stream_{a}.ron");
        let r = run_verified(&path, &["--racecheck"]);
        assert_eq!(r["races"], serde_json::json!([]), "{a}");
        let out = run(&["check", &path, "--code"]);
        let code = String::from_utf8_lossy(&out.stdout);
        assert!(code.contains(op), "{a}: {code}");
    }
    // cuda::pipeline: its shared state through generic pointers, resolved as shared.
    let r = run_verified("tests/fixtures/cuda/barrier/pipeline.ron", &["--racecheck"]);
    assert_eq!(r["races"], serde_json::json!([]));
}

#[test]
fn tensor_copies_and_generic_barriers_are_refused_at_their_line() {
    let ptx =
        std::fs::read_to_string(crate::util::root().join("tests/fixtures/ptx/mbar41.ptx")).unwrap();
    for (from, to, want) in [
        (
            "mbarrier.arrive.shared.b64 _, [bar], 2;",
            "cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [bar], [%rd1, {%r1, %r1}], [bar];",
            "tile mode only",
        ),
        (
            "mbarrier.arrive.shared.b64 _, [bar], 2;",
            "mbarrier.arrive.b64 _, [bar], 2;",
            "write the state space",
        ),
        (
            "mbarrier.arrive.shared.b64 _, [bar], 2;",
            "mbarrier.arrive.expect_tx.shared.b64 _, [bar];",
            "its operands are not of a form PTX defines",
        ),
    ] {
        let ptx_path = crate::util::scratch("mbar_refused.ptx", &ptx.replace(from, to));
        let ron =
            std::fs::read_to_string(crate::util::root().join("tests/fixtures/ptx/bad_mbar41.ron"))
                .unwrap()
                .replace("mbar41.ptx", ptx_path.to_str().unwrap());
        let ron_path = crate::util::scratch("mbar_refused.ron", &ron);
        let out = run(&["run", ron_path.to_str().unwrap(), "--no-timing"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert!(err.contains(want), "{to}: {err}");
        assert!(err.contains(":215:2"), "{to}: {err}");
    }
}

/// programs/cuda/tensor/mbar_pipeline: verified and race-free with and without padding; each
/// consumer read (merged by ptxas into `LDS.128`) is 32-way conflicted without padding (32
/// wavefronts a load: 32 rows x 16 bytes in one bank quad) and conflict-free with it.
#[test]
fn the_warp_specialised_pipeline_verifies_without_races() {
    if !crate::nvrtc::nvrtc("the_warp_specialised_pipeline_verifies_without_races") {
        return;
    }
    for (file, loads, wavefronts) in [
        ("mbar_pipeline", 512, 16384),
        ("mbar_pipeline_pad", 2048, 2048),
    ] {
        let path = format!("programs/cuda/tensor/{file}.cu.ron");
        let r = run_verified(&path, &["--racecheck"]);
        assert_eq!(r["races"], serde_json::json!([]), "{file}");
        let s = &r["shared"];
        assert_eq!(s["ld_instructions"], loads, "{file}");
        assert_eq!(s["ld_wavefronts"], wavefronts, "{file}");
        assert_eq!(s["ldgsts_instructions"], 2048, "{file}");
    }
}
