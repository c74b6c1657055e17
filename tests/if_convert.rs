//! Short `if` bodies that ptxas predicates are issued by every warp (issue 38, D3 of
//! `calibration/probes/conflict_cost/DESIGN.md`; `warpsim_timing::if_convert`,
//! `compiler.if_convert` of the GPU description): Harris's reduce1 and reduce2 of the
//! conflict-cost probe, against the issued warp instructions the H200 measured
//! (`raw/conflict_cost.tar.gz`, `measured.tsv`, `inst_executed`, launches `reduce1_b256_g1` and
//! `reduce2_b256_g1`: 132 blocks of 256).

use crate::nvrtc::nvrtc;
use crate::util::{root, scratch, warpsim};

/// `warpsim run` of a conflict-cost port at 132 blocks of 256 (`--gpu gpu` if given): its
/// issued warp instructions.
fn issued(kernel: &str, gpu: Option<&str>) -> f64 {
    let mut c = warpsim();
    c.args([
        "run",
        &format!("calibration/probes/conflict_cost/ports/{kernel}.ron"),
    ]);
    for d in [
        "G=132",
        "B=256",
        "SMEM=1024",
        "A=0",
        "BB=0",
        "C=0",
        "XLEN=33792",
        "OLEN=132",
    ] {
        c.args(["-D", d]);
    }
    c.args(["--format", "json"]);
    if let Some(g) = gpu {
        c.args(["--gpu", g]);
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{kernel}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["verified"], true, "{kernel}");
    r["timing"]["issued_warp_instructions"].as_f64().unwrap()
}

/// The H200 preset with `compiler.if_convert` set to `k`.
fn preset_with(k: u32) -> String {
    let src = std::fs::read_to_string(root().join("crates/machine/presets/h200.ron")).unwrap();
    assert!(src.contains("if_convert: 10,"));
    let p = scratch(
        &format!("h200_if_convert_{k}.ron"),
        &src.replace("if_convert: 10,", &format!("if_convert: {k},")),
    );
    p.to_string_lossy().into_owned()
}

/// reduce1's and reduce2's bodies (7 and 5 SASS instructions under a predicate on the H200)
/// are issued by every warp at every level: warpsim's issued count comes within 16% of the
/// H200's (140,448 and 107,712; it is 12% and 15% above them: the predicated bodies are 2
/// instructions longer in PTX than in SASS), and above what they would be branched over
/// (`if_convert: 0`).
#[test]
fn short_if_bodies_are_issued_by_every_warp() {
    if !nvrtc("short_if_bodies_are_issued_by_every_warp") {
        return;
    }
    let off = preset_with(0);
    for (kernel, h200) in [("reduce1", 140_448.0), ("reduce2", 107_712.0)] {
        let (on, without) = (issued(kernel, None), issued(kernel, Some(&off)));
        assert!(
            (on / h200 - 1.0).abs() < 0.16,
            "{kernel}: {on} vs the H200's {h200}"
        );
        assert!(
            on > without * 1.1,
            "{kernel}: {on} and {without} without if-conversion"
        );
    }
}

/// reduce1p's body (12 SASS instructions; 15 as warpsim issues its PTX, against reduce1's 9
/// and reduce2's 7) is a branch on the H200 (its SASS): every warp issues the `if`'s `BSSY`,
/// `BRA` and `BSYNC` (D5), and only warps with a lane in it the body; so does its final
/// `if (tid == 0)` global store. warpsim's issued count is the H200's 133,188 (0.79 of it before
/// D5), with the preset's `if_convert` (10) or 14; from 15 on the body would be predicated
/// (more).
#[test]
fn long_if_bodies_stay_branches() {
    if !nvrtc("long_if_bodies_stay_branches") {
        return;
    }
    let on = issued("reduce1p", None);
    assert_eq!(on, 133_188.0);
    assert_eq!(issued("reduce1p", Some(&preset_with(14))), on);
    assert!(issued("reduce1p", Some(&preset_with(15))) > on);
}
