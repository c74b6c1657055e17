//! TMA's tensor copies (issue 41): a launch file's `tensor_maps` passed to `CUtensorMap`
//! parameters; hand-written PTX (tests/fixtures/ptx/tma41.ptx) loads a 3-D box with the
//! 64-byte swizzle, partly outside the tensor, and stores it back, every word computed by hand;
//! the launch file's maps are checked as `cuTensorMapEncodeTiled` checks its arguments, each
//! error at its place; and through NVRTC the tile transpose of programs/cuda/tensor reads a
//! column of a TMA tile 32-way conflicted as it is and 4-way with the 128-byte swizzle.

use crate::util::{root, run, run_verified, scratch};

#[test]
fn a_swizzled_box_partly_outside_the_tensor_loads_and_stores_the_hand_values() {
    for y in 0..=4 {
        let d = format!("Y={y}");
        let r = run_verified("tests/fixtures/ptx/tma41.ron", &["-D", &d, "--racecheck"]);
        assert_eq!(r["races"], serde_json::json!([]), "{y}");
    }
}

/// tma41.ron with `from` replaced by `to`, run: exit 2 and `want` at `at` (a `file:line:`).
fn refused(from: &str, to: &str, want: &str, at: &str) {
    let ron = std::fs::read_to_string(root().join("tests/fixtures/ptx/tma41.ron")).unwrap();
    assert!(ron.contains(from), "{from}");
    let ptx = root().join("tests/fixtures/ptx/tma41.ptx");
    let ron = ron
        .replace(from, to)
        .replace("\"tma41.ptx\"", &format!("{:?}", ptx.to_str().unwrap()));
    let path = scratch("tma_refused.ron", &ron);
    let out = run(&["run", path.to_str().unwrap(), "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{to}: {err}");
    assert!(err.contains(want), "{to}: {err}");
    assert!(err.contains(at), "{to}: {err}");
}

#[test]
fn tensor_maps_are_checked_as_the_driver_checks_them() {
    let a = r#"(name: "tA", buffer: "A", dims: [16, 5, 2], box: [16, 4, 2], swizzle: B64)"#;
    for (to, want) in [
        (
            r#"(name: "tA", buffer: "C", dims: [16, 5, 2], box: [16, 4, 2])"#,
            "no buffer named `C`",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [2, 5, 2], box: [2, 4, 2])"#,
            "the box's inner dimension is 8 bytes; it must be a multiple of 16 bytes",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [32, 5, 1], box: [32, 4, 1], swizzle: B64)"#,
            "at most the swizzle's 64",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [16, 5, 3], box: [16, 4, 2])"#,
            "the tensor reaches byte 960 of `A`, which has 640 bytes",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [16, 5, 2], box: [16, 4, 2], fill: Nan)"#,
            "`fill: Nan` is for float elements",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [16, 5, 2], strides: [64], box: [16, 4, 2])"#,
            "`strides` has 1 entries; a 3-D map takes 2",
        ),
        (
            r#"(name: "tA", buffer: "A", dims: [16, 5, 2], box: [16, 300, 2])"#,
            "a box dimension 300 is not between 1 and 256",
        ),
        // (Sizes whose byte extent overflows 64 bits: an error, not a wrap or a panic.)
        (
            r#"(name: "tA", buffer: "A", dims: [16, 4294967296, 4294967296], box: [16, 4, 2])"#,
            "the tensor reaches byte 1180591620717411303424 of `A`",
        ),
    ] {
        refused(a, to, want, "tma_refused.ron:");
    }
}

#[test]
fn tensor_map_arguments_must_meet_tensor_map_parameters() {
    refused(
        r#"args: ["tA", "tB""#,
        r#"args: ["A", "tB""#,
        "parameter 1 is a structure passed by value",
        "tma_refused.ron:19:",
    );
    refused(
        r#""out", "Y"]"#,
        r#""tA", "Y"]"#,
        "parameter 3 is a u64, not a CUtensorMap",
        "tma_refused.ron:19:",
    );
}

#[test]
fn a_box_at_a_misaligned_shared_address_is_a_fault_at_its_line() {
    let ptx = std::fs::read_to_string(root().join("tests/fixtures/ptx/tma41.ptx")).unwrap();
    let ptx = ptx.replace(
        "[box], [%rd1, {%r2, %r9, %r2}], [bar];",
        "[box+64], [%rd1, {%r2, %r9, %r2}], [bar];",
    );
    let p = scratch("tma_misaligned.ptx", &ptx);
    let ron = std::fs::read_to_string(root().join("tests/fixtures/ptx/tma41.ron"))
        .unwrap()
        .replace("\"tma41.ptx\"", &format!("{:?}", p.to_str().unwrap()));
    let path = scratch("tma_misaligned.ron", &ron);
    let out = run(&["run", path.to_str().unwrap(), "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("misaligned 128-byte access"), "{err}");
    assert!(err.contains("tma_misaligned.ptx:30:2"), "{err}");
}

/// programs/cuda/tensor/tma_tile: the column reads of a TMA tile, by the bank rules: 32 rows
/// of 128 bytes put a column in one bank (32 wavefronts a read); the 128-byte swizzle spreads
/// it over 8 (4 wavefronts). 64 tiles of 32 warps.
#[test]
fn the_tma_swizzle_turns_a_32_way_column_read_into_4_way() {
    if !crate::nvrtc::nvrtc("the_tma_swizzle_turns_a_32_way_column_read_into_4_way") {
        return;
    }
    for (file, per_read) in [("tma_tile", 32), ("tma_tile_sw128", 4)] {
        let path = format!("programs/cuda/tensor/{file}.cu.ron");
        let r = run_verified(&path, &["--racecheck"]);
        assert_eq!(r["races"], serde_json::json!([]), "{file}");
        let s = &r["shared"];
        assert_eq!(s["ld_instructions"], 64 * 32, "{file}");
        assert_eq!(s["ld_wavefronts"], 64 * 32 * per_read, "{file}");
        // One TMA load a block, no shared-pipe wavefront (it has no row); init, arrive and one
        // wait a warp (the copy is issued before the block's barrier: no wait parks).
        assert_eq!(s["tma_instructions"], 64, "{file}");
        assert_eq!(s["mbarrier_instructions"], 64 * (2 + 32), "{file}");
    }
}
