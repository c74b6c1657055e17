//! The timing model against the H200 (tests/fixtures/h200/kernels_timing.tsv): the 7 kernels
//! of kernels.tsv, with their launches and the registers per thread ptxas gave them.
//!
//! Held (issue 12): elapsed cycles and SM-active cycles within 15%, the transposes in the
//! measured order, the naive/padded ratio of SM-active cycles within 15% of 2.66, and every
//! recorded stall value within 30% or 3 cycles per issued instruction. What the model misses
//! is listed in `KNOWN_MISSES` (and in the README): the test fails if a miss is not listed, and
//! also if a listed one has started to pass (so the list stays true).

use crate::util::run_json;

/// (row in kernels_timing.tsv, program, defines, registers per thread)
const KERNELS: &[(&str, &str, &[&str], &str)] = &[
    ("transpose_n1024_tile32x32", "transpose.ron", &[], "28"),
    (
        "transpose_n1024_tile32x33",
        "transpose.ron",
        &["PAD=1"],
        "28",
    ),
    (
        "transpose_n1024_tile32x32_xor",
        "transpose.ron",
        &["SWIZZLE=1"],
        "28",
    ),
    ("matmul_n256_t32", "matmul.ron", &[], "29"),
    ("matmul_n256_t32_transA", "matmul.ron", &["TRANS_A=1"], "29"),
    (
        "matmul_n256_t32_transA_pad1",
        "matmul.ron",
        &["TRANS_A=1", "PAD=1"],
        "30",
    ),
    ("transpose64_n512_tile32x32", "transpose_f64.ron", &[], "29"),
];

/// (kernel, metric) pairs the model does not meet today: none. The last, the naive
/// transpose's `barrier` (8.9 against 13.7), went with the sub-partitions' own memory queues
/// feeding the SM-wide stage in turn (calibration/probes/queue_share, calibration/README.md section 21):
/// 10.3. Kept so that a new miss is named here and in the README, not loosened away.
const KNOWN_MISSES: &[(&str, &str)] = &[];

const STALLS: [&str; 4] = [
    "mio_throttle",
    "short_scoreboard",
    "long_scoreboard",
    "barrier",
];

#[test]
fn seven_kernels_against_the_h200() {
    let tsv =
        std::fs::read_to_string(crate::util::root().join("tests/fixtures/h200/kernels_timing.tsv"))
            .unwrap();
    let mut lines = tsv.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let mut misses = Vec::new();
    let mut sm = std::collections::HashMap::new();
    let mut report = String::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let (name, prog, defines, regs) = KERNELS.iter().find(|k| k.0 == f[0]).expect(f[0]);
        let v = run_json(prog, defines, &["--regs", regs, "--no-verify"]);
        let t = &v["timing"];
        let want = |c: &str| f[col(c)].parse::<f64>().ok();
        let mut check = |metric: &str, got: f64, want: Option<f64>, rel: f64, abs: f64| {
            let Some(w) = want else { return };
            let ok = (got - w).abs() <= (rel * w).max(abs);
            report.push_str(&format!(
                "{name:32} {metric:26} model {got:10.2} H200 {w:10.2} ({:+.1}%){}\n",
                (got / w - 1.0) * 100.0,
                if ok { "" } else { "  MISS" }
            ));
            if !ok {
                misses.push((name.to_string(), metric.to_string()));
            }
        };
        let el = t["elapsed_cycles"].as_f64().unwrap();
        let act = t["sm_active_cycles_avg"].as_f64().unwrap();
        check("elapsed_cycles", el, want("elapsed_cycles"), 0.15, 0.0);
        check(
            "sm_active_cycles_avg",
            act,
            want("sm_active_cycles_avg"),
            0.15,
            0.0,
        );
        for s in STALLS {
            let got = t["stalls"][s].as_f64().unwrap();
            check(
                &format!("stall_{s}"),
                got,
                want(&format!("stall_{s}")),
                0.30,
                3.0,
            );
        }
        sm.insert(*name, act);
    }
    eprintln!("{report}");
    let naive = sm["transpose_n1024_tile32x32"];
    let pad = sm["transpose_n1024_tile32x33"];
    let xor = sm["transpose_n1024_tile32x32_xor"];
    // Measured: the naive transpose far slower than both fixes, which are within noise of
    // each other (padded 4,022 / xor 4,409 SM-active cycles; medians 4,010 / 4,103).
    assert!(naive > pad && naive > xor, "{naive} {pad} {xor}");
    assert!((pad / xor - 1.0).abs() < 0.15, "{pad} {xor}");
    let ratio = naive / pad;
    assert!(
        (ratio / 2.66 - 1.0).abs() < 0.15,
        "naive/padded {ratio}, H200 2.66"
    );
    let mut unexpected: Vec<_> = misses
        .iter()
        .filter(|(k, m)| !KNOWN_MISSES.contains(&(k.as_str(), m.as_str())))
        .collect();
    unexpected.sort();
    assert!(unexpected.is_empty(), "new misses {unexpected:?}\n{report}");
    let fixed: Vec<_> = KNOWN_MISSES
        .iter()
        .filter(|(k, m)| !misses.iter().any(|(a, b)| a == k && b == m))
        .collect();
    assert!(
        fixed.is_empty(),
        "now within tolerance, take them off KNOWN_MISSES: {fixed:?}"
    );
}

/// The H200's numbers for launch `name` in the table `tsv` (its first row by that name).
fn measured(tsv: &str, name: &str) -> Vec<f64> {
    std::fs::read_to_string(crate::util::root().join(tsv))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}\t")).map(str::to_owned))
        .expect(name)
        .split('\t')
        .map(|x| x.parse().unwrap())
        .collect()
}

/// The small launches of three fresh random draws, each drawn after a rule was fixed and
/// predicted before the H200 ran it (calibration/draws/draw4, seed 20261204, after the DRAM channels;
/// calibration/draws/draw5, seed 20261208, after the DRAM latency spread; calibration/draws/draw7, seed
/// 20261210, after nvcc.rs's prologue and addresses): each within 15% of the H200 in elapsed
/// and SM-active cycles (the mean of two ncu runs). The whole draws, 22 launches each, are
/// `calibration/lib/template_draw/compare.py [--dir calibration/draws/draw5]` (draw4: all 22 within 15% when
/// drawn; draw5: 21 and 21; draw7: 22 and 22).
#[test]
fn a_draw_made_after_the_rule_is_within_15_percent() {
    const SMALL: &[(&str, &str, &str, &[&str], &str)] = &[
        (
            "draw4",
            "matmul_n128_t16_transA",
            "matmul.ron",
            &["N=128", "TILE=16", "TRANS_A=1"],
            "30",
        ),
        (
            "draw4",
            "matmul_n192_t32",
            "matmul.ron",
            &["N=192", "TILE=32"],
            "29",
        ),
        ("draw4", "sgemm4x4_n192", "sgemm_4x4.ron", &["N=192"], "56"),
        (
            "draw4",
            "transpose_n448_tile32x32_xor",
            "transpose.ron",
            &["N=448", "SWIZZLE=1"],
            "28",
        ),
        (
            "draw4",
            "transpose64_n608_tile32x33",
            "transpose_f64.ron",
            &["N=608", "PAD=1"],
            "30",
        ),
        (
            "draw5",
            "matmul_n160_t16_transA",
            "matmul.ron",
            &["N=160", "TILE=16", "TRANS_A=1"],
            "30",
        ),
        (
            "draw5",
            "matmul_n288_t16",
            "matmul.ron",
            &["N=288", "TILE=16"],
            "30",
        ),
        (
            "draw5",
            "transpose64_n704_tile32x32",
            "transpose_f64.ron",
            &["N=704"],
            "29",
        ),
        (
            "draw7",
            "matmul_n256_t32_transA_pad1",
            "matmul.ron",
            &["N=256", "TILE=32", "TRANS_A=1", "PAD=1"],
            "30",
        ),
        (
            "draw7",
            "sgemm4x4_n192_pad4",
            "sgemm_4x4.ron",
            &["N=192", "PAD=4"],
            "58",
        ),
        (
            "draw7",
            "transpose_n1056_tile32x33",
            "transpose.ron",
            &["N=1056", "PAD=1"],
            "28",
        ),
    ];
    // Outside 15% since a later rule, listed so that the list stays true (the test fails if one
    // comes back within): the DRAM latency spread made this 64-block matmul's elapsed cycles
    // 1.16x the H200's (0.97 before; each block waits for the slowest of its chunks); the
    // scheduler's order (oldest block first, then the warp that waited longest: calibration/probes/scheduler)
    // took its SM-active cycles from 1.14x to 1.16x and the small swizzled transpose's from 1.137x
    // to 1.152x.
    const MISSES: &[(&str, &str)] = &[
        ("matmul_n128_t16_transA", "elapsed_cycles"),
        ("matmul_n128_t16_transA", "sm_active_cycles_avg"),
        ("transpose_n448_tile32x32_xor", "sm_active_cycles_avg"),
    ];
    let mut bad = Vec::new();
    for (draw, name, prog, defines, regs) in SMALL {
        let row = measured(&format!("tests/fixtures/h200/{draw}/measured.tsv"), name);
        let t = &run_json(prog, defines, &["--regs", regs, "--no-verify"])["timing"];
        for (metric, h200) in [("elapsed_cycles", row[0]), ("sm_active_cycles_avg", row[1])] {
            let model = t[metric].as_f64().unwrap();
            let out = (model / h200 - 1.0).abs() > 0.15;
            if out != MISSES.contains(&(*name, metric)) {
                bad.push(format!(
                    "{name} {metric}: model {model:.0}, H200 {h200:.0} ({})",
                    if out {
                        "outside 15%"
                    } else {
                        "within 15%: take it off MISSES"
                    }
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The address arithmetic of XOR-swizzled shared accesses (`crates/timing/src/swizzle.rs`),
/// against launches drawn after each rule was fixed (calibration/draws/swizzle): the transposes'
/// instruction counts within 6% (two per access: the XOR and the address; they matched exactly
/// until `nvcc.rs`, when the IR's surplus of address arithmetic stood in for the prologue it
/// lacked: now 59 a warp against the SASS's 62, as the unswizzled transpose issues 47 against
/// 49, `n`'s `LDC` and its stride's `SHF` being a run-time argument's in CUDA and a define's
/// here), the matmul's within 15% (its addresses hoisted out of the tile loop: the rule issuing
/// them at every access gave 1.63x), and their elapsed and SM-active cycles within 15%.
#[test]
fn swizzled_addresses_cost_what_the_h200_issues() {
    const SMALL: &[(&str, &str, &[&str], &str, f64)] = &[
        (
            "transpose_n288_tile32x32_xor",
            "transpose.ron",
            &["N=288", "SWIZZLE=1"],
            "28",
            0.06,
        ),
        (
            "transpose64_n288_tile32x32_xor",
            "transpose_f64.ron",
            &["N=288", "SWIZZLE=1"],
            "32",
            0.06,
        ),
        (
            "matmul_n400_t16_swzA",
            "matmul.ron",
            &["N=400", "TILE=16", "SWIZZLE=1"],
            "40",
            0.15,
        ),
    ];
    let mut bad = Vec::new();
    for (name, prog, defines, regs, inst_tolerance) in SMALL {
        let row = measured("tests/fixtures/h200/swizzle/measured.tsv", name);
        let t = &run_json(prog, defines, &["--regs", regs, "--no-verify"])["timing"];
        for (metric, h200, tolerance) in [
            ("issued_warp_instructions", row[0], *inst_tolerance),
            ("elapsed_cycles", row[1], 0.15),
            ("sm_active_cycles_avg", row[2], 0.15),
        ] {
            let model = t[metric].as_f64().unwrap();
            if (model / h200 - 1.0).abs() > tolerance {
                bad.push(format!("{name} {metric}: model {model:.0}, H200 {h200:.0}"));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

/// Timing never changes a functional number, and the report is the same on 1 and 2 threads.
#[test]
fn timing_changes_no_result_and_is_deterministic() {
    let on = run_json("matmul.ron", &["N=64"], &[]);
    let off = run_json("matmul.ron", &["N=64"], &["--no-timing"]);
    for k in ["shared", "per_bank", "verified", "verification"] {
        assert_eq!(on[k], off[k], "{k}");
    }
    assert!(off["timing"].is_null());
    for k in [
        "gpu",
        "clock_mhz",
        "sms",
        "elapsed_cycles",
        "sm_active_cycles_avg",
        "duration_ns",
        "issued_warp_instructions",
        "warp_cycles_per_issued_instruction",
        "stalls",
        "stall_names",
        "shared_pipe_utilization",
        "conflict_cost_cycles",
    ] {
        assert!(!on["timing"][k].is_null(), "timing.{k} missing");
    }
    assert_eq!(on["timing"].as_object().unwrap().len(), 12);
    // Both forms of every stall reason: the model's (Nsight's metric names) and the Source
    // page's columns, with their "Not Issued" forms.
    let names = on["timing"]["stall_names"].as_object().unwrap();
    let stalls = on["timing"]["stalls"].as_object().unwrap();
    assert_eq!(
        names.keys().collect::<Vec<_>>(),
        stalls.keys().collect::<Vec<_>>()
    );
    let mio = &names["mio_throttle"];
    assert_eq!(
        mio["metric"],
        "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
    );
    assert_eq!(mio["source_page"], "stall_mio");
    assert_eq!(mio["source_page_not_issued"], "stall_mio (Not Issued)");
    assert!(names["selected"]["source_page_not_issued"].is_null());
    let one = {
        let mut c = crate::util::warpsim();
        c.env("RAYON_NUM_THREADS", "1").args([
            "run",
            "programs/transpose.ron",
            "--define",
            "N=256",
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&c.output().unwrap().stdout).unwrap();
        v
    };
    let two = {
        let mut c = crate::util::warpsim();
        c.env("RAYON_NUM_THREADS", "2").args([
            "run",
            "programs/transpose.ron",
            "--define",
            "N=256",
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_slice(&c.output().unwrap().stdout).unwrap();
        v
    };
    assert_eq!(one["timing"], two["timing"]);
    assert_eq!(one["per_instruction"], two["per_instruction"]);
}

/// Sampled timing (`--sample K`) on a grid of about four waves, not sampled by default:
/// within 2% of the full model at K = 4 and 3% at K = 12 (the README's table: 2–4 waves at
/// K = 12 up to 3.4% elapsed and 2.3% SM active; this grid's SM active at K = 12 was 0.8%
/// off, 2.4% since the sub-partitions' queues take turns, and N=1536's 2.7% before and
/// after) on elapsed and SM-active cycles and warp cycles per issued
/// instruction, the issued instructions of the whole grid (every block issues alike here, so
/// exactly), the functional results untouched; `sampled` in the JSON only then. A grid of 8
/// waves or more is sampled by default (K = 12 on the H200), within 2% of `--sample 1`.
#[test]
fn sampled_timing_is_close_to_the_full_model() {
    let close = |f: &serde_json::Value, t: &serde_json::Value, what: &str, tol: f64| {
        for key in [
            "elapsed_cycles",
            "sm_active_cycles_avg",
            "warp_cycles_per_issued_instruction",
        ] {
            let (a, b) = (f[key].as_f64().unwrap(), t[key].as_f64().unwrap());
            assert!((b / a - 1.0).abs() < tol, "{what}: {key} {b} vs {a}");
        }
        assert_eq!(t["sms"], f["sms"]);
        assert_eq!(t["issued_warp_instructions"], f["issued_warp_instructions"]);
    };
    for pad in ["PAD=0", "PAD=1"] {
        let full = run_json("transpose.ron", &["N=2048", pad], &[]);
        assert!(full["timing"]["sampled"].is_null());
        for k in ["4", "12"] {
            let s = run_json("transpose.ron", &["N=2048", pad], &["--sample", k]);
            for key in ["shared", "per_bank", "verified"] {
                assert_eq!(s[key], full[key], "{pad} --sample {k}: {key}");
            }
            assert_eq!(s["timing"]["sampled"], k.parse::<u64>().unwrap());
            let tol = if k == "4" { 0.02 } else { 0.03 };
            close(
                &full["timing"],
                &s["timing"],
                &format!("{pad} --sample {k}"),
                tol,
            );
        }
    }
    // 9,216 blocks of 8 an SM: 8.7 waves.
    let auto = run_json("transpose.ron", &["N=3072"], &["--no-verify"]);
    let every = run_json(
        "transpose.ron",
        &["N=3072"],
        &["--no-verify", "--sample", "1"],
    );
    assert_eq!(auto["timing"]["sampled"], 12);
    assert!(every["timing"]["sampled"].is_null());
    close(&every["timing"], &auto["timing"], "N=3072 auto", 0.02);
    let out = crate::util::warpsim()
        .args(["run", "programs/transpose.ron", "--sample", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("132 SMs") && err.contains("2, 3, 4, 6, 11"),
        "{err}"
    );
}

/// A bad GPU description is an error with its file, line and column (exit code 2).
#[test]
fn bad_gpu_file_points_at_the_line() {
    let dir = std::env::temp_dir().join(format!("warpsim_gpu_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.ron");
    let src = std::fs::read_to_string(crate::util::root().join("crates/machine/presets/h200.ron"))
        .unwrap()
        .replace("sms: 132,", "sms: 132, smz: 4,");
    std::fs::write(&path, src).unwrap();
    let out = crate::util::warpsim()
        .args(["run", "programs/transpose.ron", "--define", "N=64", "--gpu"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.ron:") && err.contains("smz"), "{err}");
    // Fewer SMs: a what-if runs, and takes longer.
    let small =
        std::fs::read_to_string(crate::util::root().join("crates/machine/presets/h200.ron"))
            .unwrap()
            .replace("sms: 132,", "sms: 8,");
    let p2 = dir.join("small.ron");
    std::fs::write(&p2, small).unwrap();
    let a = run_json("transpose.ron", &["N=512"], &[]);
    let b = run_json(
        "transpose.ron",
        &["N=512"],
        &["--gpu", p2.to_str().unwrap()],
    );
    assert!(b["timing"]["elapsed_cycles"].as_u64() > a["timing"]["elapsed_cycles"].as_u64());
    // The timeline is Chrome trace JSON.
    let tl = dir.join("tl.json");
    let out = crate::util::warpsim()
        .args([
            "run",
            "programs/transpose.ron",
            "--define",
            "N=128",
            "--timeline",
        ])
        .arg(&tl)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&tl).unwrap()).unwrap();
    assert!(v["traceEvents"].as_array().unwrap().len() > 10);
}

/// Loads in a PTX loop are priced as ptxas compiles the loop (calibration/draws/loops: its SASS and
/// the H200's times): a counted loop (constant step) is unrolled by 4, remainder first, so 4
/// iterations' loads overlap as straight-line loads do and 3 iterations wait for one another;
/// a grid-stride loop (run-time step) is kept, and each iteration's load waits for the last.
#[test]
fn ptx_loops_are_unrolled_as_ptxas_does() {
    let run = |kernel: &str, k: u32| {
        let k_define = format!("K={k}");
        let defines: &[&str] = if kernel == "straight" {
            &[]
        } else {
            &[&k_define]
        };
        let v = run_json(
            &format!("../tests/fixtures/ptx/sum_{kernel}.ron"),
            defines,
            &[],
        );
        assert_eq!(v["verified"], true, "{kernel} K={k}");
        let t = &v["timing"];
        let waits = t["stalls"]["long_scoreboard"].as_f64().unwrap()
            * t["issued_warp_instructions"].as_f64().unwrap();
        (t["elapsed_cycles"].as_f64().unwrap(), waits)
    };
    let (straight, straight_wait) = run("straight", 4);
    let (four, four_wait) = run("loop", 4);
    let (three, three_wait) = run("loop", 3);
    let (stride, stride_wait) = run("stride", 4);
    assert!((four / straight - 1.0).abs() < 0.03, "{four} vs {straight}");
    assert!(
        four_wait < 1.2 * straight_wait,
        "{four_wait} vs {straight_wait}"
    );
    // Three loads one after the other: about three DRAM latencies instead of one.
    assert!(three > 1.25 * four, "{three} vs {four}");
    assert!(three_wait > 2.0 * four_wait, "{three_wait} vs {four_wait}");
    assert!(stride > 1.4 * four, "{stride} vs {four}");
    assert!(
        stride_wait > 2.5 * four_wait,
        "{stride_wait} vs {four_wait}"
    );
}
