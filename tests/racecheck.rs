//! `warpsim run --racecheck`: a transpose without its barrier is caught, the shipped programs
//! are clean, exchanges inside a warp are not races.

use crate::util::{scratch, text, warpsim};
use warpsim_testkit::shipped_programs;

/// `warpsim run FILE --racecheck --format json ARGS`: exit code and report.
fn racecheck(file: &str, args: &[&str]) -> (i32, serde_json::Value) {
    let out = warpsim()
        .args(["run", file, "--racecheck", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "{file}: exit {code}: {}",
        text(&out.stderr)
    );
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{file}: not JSON ({e}): {}", text(&out.stdout)));
    (code, v)
}

#[test]
fn transpose_without_its_barrier_is_a_raw_race_on_tile() {
    let file = "tests/races/transpose_no_barrier.ron";
    let (code, v) = racecheck(file, &["--define", "N=128"]);
    assert_eq!(code, 1, "races exit with 1");
    let races = v["races"].as_array().unwrap();
    let raw = races
        .iter()
        .find(|r| r["kind"] == "RAW")
        .unwrap_or_else(|| panic!("no RAW in {races:?}"));
    assert_eq!(raw["array"], "tile");
    assert_eq!(raw["index"].as_array().unwrap().len(), 2);
    assert_eq!(raw["first"]["op"], "st");
    assert_eq!(raw["first"]["location"], format!("{file}:19"));
    assert_eq!(
        raw["first"]["text"],
        "tile[tid.y + j][tid.x] = inp[(y + j) * N + x]"
    );
    assert_eq!(raw["second"]["op"], "ld");
    assert_eq!(raw["second"]["location"], format!("{file}:24"));
    assert_eq!(raw["second"]["text"], "tile[tid.x][tid.y + j]");
    assert_ne!(raw["first"]["warp"], raw["second"]["warp"]);
    assert_eq!(raw["block"], serde_json::json!([0, 0, 0]));
    assert!(raw["count"].as_u64().unwrap() > 1);
    // One entry per kind and pair of instructions.
    let mut keys: Vec<String> = races
        .iter()
        .map(|r| format!("{} {} {}", r["kind"], r["first"]["pc"], r["second"]["pc"]))
        .collect();
    let n = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), n);
    // The table names both lines.
    let out = warpsim()
        .args(["run", file, "--racecheck", "--define", "N=64"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let t = text(&out.stdout);
    for s in [
        "racecheck: ",
        "RAW hazard on tile[",
        "write at tests/races/transpose_no_barrier.ron:19:",
        "read  at tests/races/transpose_no_barrier.ron:24:",
    ] {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
    // With the padded and the swizzled tile too.
    for d in ["PAD=1", "SWIZZLE=1"] {
        let (code, v) = racecheck(file, &["--define", "N=64", "--define", d]);
        assert_eq!(code, 1);
        let r = v["races"].as_array().unwrap();
        assert!(
            r.iter().any(|r| r["kind"] == "RAW" && r["array"] == "tile"),
            "{d}"
        );
    }
    // Without --racecheck nothing is looked for (`races` is null).
    let out = warpsim()
        .args([
            "run",
            file,
            "--define",
            "N=64",
            "--format",
            "json",
            "--no-verify",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["races"].is_null());
}

#[test]
fn shipped_programs_are_race_free() {
    for p in shipped_programs() {
        let (code, v) = racecheck(&p, &[]);
        assert_eq!(v["races"], serde_json::json!([]), "{p}");
        assert_eq!(code, 0, "{p}");
        assert_ne!(v["verified"], false, "{p}");
    }
}

#[test]
fn exchanges_inside_a_warp_are_not_races() {
    // Each warp writes its own 32 words and reads them back rotated, with no barrier: the
    // lanes of a warp run in lockstep, so this is safe. Two warps, never the other's words.
    let f = scratch(
        "warp_exchange.ron",
        r#"Program(
    name: "warp_exchange",
    launch: (grid: [2], block: [64]),
    buffers: [(name: "out", ty: I32, len: 128, expect: "(i % 64 / 32) * 32 + (i % 32 + 1) % 32")],
    shared: [(name: "s", ty: I32, dims: [64])],
    body: [
        Store("s[tid.x]", "tid.x"),
        Store("out[ctaid.x * 64 + tid.x]", "s[warpid * 32 + (laneid + 1) % 32]"),
        Store("s[tid.x]", "0"),
    ],
)"#,
    );
    let (code, v) = racecheck(&f.to_string_lossy(), &[]);
    assert_eq!(v["races"], serde_json::json!([]));
    assert_eq!(v["verified"], true);
    assert_eq!(code, 0);
    // The same exchange across warps is a race (warp 0's lane 31 reads warp 1's word 32).
    let g = scratch(
        "block_exchange.ron",
        r#"Program(
    name: "block_exchange",
    launch: (grid: [1], block: [64]),
    buffers: [(name: "out", ty: I32, len: 64)],
    shared: [(name: "s", ty: I32, dims: [64])],
    body: [
        Store("s[tid.x]", "tid.x"),
        Store("out[tid.x]", "s[(tid.x + 1) % 64]"),
    ],
)"#,
    );
    let (code, v) = racecheck(&g.to_string_lossy(), &[]);
    assert_eq!(code, 1);
    let r = v["races"].as_array().unwrap();
    let kinds: Vec<&str> = r.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    // Sorted by line: the store (line 7) before the load (line 8) first.
    assert_eq!(kinds, ["RAW", "WAR"], "{r:?}");
    // Warp 1's lane 63 reads s[0], which warp 0 wrote.
    assert_eq!(r[0]["element"], "s[0]");
    assert_eq!(r[0]["first"]["thread"], serde_json::json!([0, 0, 0]));
    assert_eq!(r[0]["second"]["thread"], serde_json::json!([63, 0, 0]));
    // Warp 0's lane 31 reads s[32] before warp 1 writes it.
    assert_eq!(r[1]["element"], "s[32]");
    assert_eq!(r[1]["first"]["thread"], serde_json::json!([31, 0, 0]));
    assert_eq!(r[1]["second"]["thread"], serde_json::json!([32, 0, 0]));
    assert_eq!(r[1]["count"], 1);
}
