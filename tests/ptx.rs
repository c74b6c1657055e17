//! The PTX front end: the H200 reference kernels from NVRTC's PTX give the measured counters,
//! hand-written PTX for divergence, early exit, a loop with two exits and vector accesses runs
//! verified, and bad launches are refused with exit 2.

use crate::util::{assert_refused, root, run_verified, warpsim};

/// Every row of kernels.tsv, run from programs/cuda/<row>.ron (NVRTC's PTX of kernels.cu).
#[test]
fn reference_kernels_match_the_h200() {
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/h200/kernels.tsv")).unwrap();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let name = f[0];
        let path = format!("programs/cuda/{name}.ron");
        if !root().join(&path).exists() {
            continue;
        }
        let out = warpsim()
            .args(["run", &path, "--format", "json", "--no-timing"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let s = &r["shared"];
        let got: Vec<u64> = [
            "ld_wavefronts",
            "ld_bank_conflicts",
            "ld_instructions",
            "st_wavefronts",
            "st_bank_conflicts",
            "st_instructions",
        ]
        .iter()
        .map(|k| s[k].as_u64().unwrap())
        .collect();
        let want: Vec<u64> = f[1..7].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(r["verified"], true, "{name}");
        rows += 1;
    }
    assert_eq!(rows, 7, "a launch file for every row of kernels.tsv");
}

#[test]
fn hand_written_ptx_runs_verified() {
    for k in ["diverge", "early_exit", "two_exits", "vectors"] {
        let path = format!("tests/fixtures/ptx/{k}.ron");
        let out = warpsim()
            .args(["run", &path, "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{k}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["verified"], true, "{k}");
    }
}

/// `.shared .u32 a;` takes one element (it took none, so two scalars shared byte 0 and the
/// first store faulted), and `m[2][3]` six (it was refused).
#[test]
fn scalar_and_two_dimensional_shared_variables_take_their_bytes() {
    let r = run_verified("tests/fixtures/ptx/scalar_shared.ron", &[]);
    assert_eq!(r["launch"]["shared_bytes"], 32, "{}", r["launch"]);
}

#[test]
fn divergent_sides_each_count() {
    let out = warpsim()
        .args(["run", "tests/fixtures/ptx/diverge.ron", "--format", "json"])
        .output()
        .unwrap();
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Two warps, each running both sides of the branch (a store each), then one load.
    assert_eq!(r["shared"]["st_instructions"], 4);
    assert_eq!(r["shared"]["ld_instructions"], 2);
}

#[test]
fn bad_launches_exit_2_with_the_reason() {
    for (k, want) in [
        (
            "unsupported",
            "bad.ptx:9:2: PTX instruction `pmevent` is not supported",
        ),
        ("no_kernel", "no kernel `nothing`"),
        (
            "operands",
            "bad.ptx:16:2: PTX instruction `ld.param.u64` takes 2 operands, but this one has 1",
        ),
        ("args", "the kernel takes 1 parameters"),
        ("arg_type", "parameter 2 is a u32, not a pointer"),
        (
            "global_dims",
            "bad_global_dims.ptx:5:1: `.global .u32 g[`: a `[` without its `]`",
        ),
        (
            "shared_dims",
            "bad_shared_dims.ptx:8:2: `.shared .align 4 .u32 s[`: a `[` without its `]`",
        ),
    ] {
        assert_refused(&format!("tests/fixtures/ptx/bad_{k}.ron"), want);
    }
}
