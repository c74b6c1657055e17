//! `Return`, `Break`, `Continue` and functions from the command line: the example verifies
//! with and without the timing model and the race checker, and the timing model lets warps
//! pass a barrier that a warp whose threads all returned never reaches.

use crate::util::{root, run_json, warpsim};

#[test]
fn the_search_example_verifies_with_timing_and_racecheck() {
    let on = run_json("examples/search.ron", &[], &["--racecheck"]);
    assert_eq!(on["verified"], true, "{on}");
    assert!(on["timing"]["elapsed_cycles"].as_f64().unwrap() > 0.0);
    let off = run_json("examples/search.ron", &[], &["--no-timing"]);
    assert_eq!(off["verified"], true);
    // Timing changes no functional number.
    assert_eq!(on["per_bank"], off["per_bank"]);
    assert_eq!(on["races"].as_array().map(|h| h.len()), Some(0), "{on}");
}

#[test]
fn a_barrier_after_a_whole_warp_returned_is_timed() {
    let dir = std::env::temp_dir().join(format!("warpsim-jumps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("returned_warp.ron");
    std::fs::write(
        &path,
        r#"Program(
            name: "returned_warp",
            launch: (grid: [4], block: [96]),
            buffers: [(name: "out", ty: I32, len: 384,
                       expect: "i % 96 / 32 == 1 ? 0 : (i % 96 < 32 ? i + 64 : i - 64)")],
            shared: [(name: "s", ty: I32, dims: [96])],
            body: [
                If(cond: "warpid == 1", then: [Return]),
                Let("i", "ctaid.x * ntid.x + tid.x"),
                Store("s[tid.x]", "i"),
                Barrier,
                Store("out[i]", "s[tid.x < 32 ? tid.x + 64 : tid.x - 64]"),
            ],
        )"#,
    )
    .unwrap();
    let out = warpsim()
        .args(["run", "--format", "json", "--racecheck"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verified"], true, "{v}");
    let cycles = v["timing"]["elapsed_cycles"].as_f64().unwrap();
    assert!(cycles > 0.0 && cycles < 1e6, "{cycles}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = root();
}
