//! `LoadMatrix`/`StoreMatrix`/`Mma`/`CopyAsync` and the barrier-object statements in the
//! kernel language (issue 41):
//! `ldmatrix`/`stmatrix`, `mma.sync` and `cp.async` without CUDA. programs/tensor/ldmatrix_tile.ron checks the fragment layout against its `expect` and
//! is priced by the ldmatrix rule (rows 128 bytes apart: 8 wavefronts a matrix; padded by 16
//! bytes: 1); a `.trans` load stored back with a `.trans` store gives the tile back; misuse is
//! an error at its position.

use crate::util::{scratch, warpsim};

fn run_json(args: &[&str]) -> (Option<i32>, serde_json::Value, String) {
    let out = warpsim()
        .args(args)
        .args(["--format", "json", "--no-timing"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let j = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (out.status.code(), j, err)
}

/// The per-instruction row whose text contains `needle`.
fn row(j: &serde_json::Value, needle: &str) -> serde_json::Value {
    let rows = j["per_instruction"].as_array().unwrap();
    let r = rows
        .iter()
        .find(|r| r["text"].as_str().unwrap_or("").contains(needle));
    r.unwrap_or_else(|| panic!("no row with {needle}")).clone()
}

#[test]
fn load_matrix_gives_the_fragments_and_is_priced_as_ldmatrix() {
    for (pad, wavefronts, conflicts) in [("0", 32, 28), ("8", 4, 0)] {
        let def = format!("PAD={pad}");
        let (code, j, err) = run_json(&["run", "programs/tensor/ldmatrix_tile.ron", "-D", &def]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(j["verified"], true, "{}", j["verification"]);
        let row = row(&j, "ldmatrix");
        assert_eq!(row["wavefronts"], wavefronts, "PAD={pad}: {row}");
        assert_eq!(row["bank_conflicts"], conflicts, "PAD={pad}: {row}");
    }
}

const ROUND_TRIP: &str = r#"Program(
    name: "round_trip",
    launch: (grid: [1], block: [32]),
    buffers: [(name: "out", ty: U32, len: 256, expect: "i")],
    shared: [
        (name: "a", ty: U16, dims: [16, 16], swizzle: 8),
        (name: "b", ty: U16, dims: [16, 16], pad: 8),
    ],
    body: [
        Let("l", "laneid"),
        For(var: "k", from: "l", to: 256, step: 32, body: [Store("a[k / 16][k % 16]", "k")]),
        SyncWarp("0xffffffff"),
        LoadMatrix(regs: ["x0", "x1", "x2", "x3"], at: "a[l % 16][(l / 16) * 8]", trans: true),
        StoreMatrix(at: "b[l % 16][(l / 16) * 8]", regs: ["x0", "x1", "x2", "x3"], trans: true),
        SyncWarp("0xffffffff"),
        For(var: "k", from: "l", to: 256, step: 32, body: [
            Store("out[k]", "b[k / 16][k % 16]"),
        ]),
    ],
)
"#;

/// A `.trans` load stored back with a `.trans` store, through a swizzled and a padded array,
/// gives every element back where it was.
#[test]
fn a_transposed_load_and_store_round_trip() {
    let p = scratch("round_trip.ron", ROUND_TRIP);
    let (code, j, err) = run_json(&["run", p.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(j["verified"], true, "{}", j["verification"]);
}

#[test]
fn misuse_is_an_error_at_its_position() {
    let cases = [
        (
            ROUND_TRIP.replace("at: \"a[l % 16][(l / 16) * 8]\"", "at: \"out[l]\""),
            "reads rows of 8 16-bit elements of a shared array",
        ),
        (
            ROUND_TRIP.replace(
                "regs: [\"x0\", \"x1\", \"x2\", \"x3\"], at",
                "regs: [\"x0\", \"x1\", \"x2\"], at",
            ),
            "moves 1, 2 or 4 matrices",
        ),
    ];
    for (k, (src, says)) in cases.iter().enumerate() {
        let p = scratch(&format!("bad_matrix{k}.ron"), src);
        let (code, _, err) = run_json(&["run", p.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains(&format!("bad_matrix{k}.ron:13:")), "{err}");
    }
}

/// programs/tensor/mma_tile.ron: ldmatrix fragments into `Mma` verify against the f64 product;
/// A's 32-byte rows are a 2-way conflict (8 wavefronts for 4 matrices), padded to 48 none.
#[test]
fn mma_from_the_kernel_language_verifies() {
    for (pad, wavefronts) in [("0", 8), ("8", 4)] {
        let def = format!("PAD={pad}");
        let (code, j, err) = run_json(&["run", "programs/tensor/mma_tile.ron", "-D", &def]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(j["verified"], true, "{}", j["verification"]);
        let a = row(&j, "ldmatrix As");
        assert_eq!(a["wavefronts"], wavefronts, "PAD={pad}: {a}");
    }
    let src =
        std::fs::read_to_string(crate::util::root().join("programs/tensor/mma_tile.ron")).unwrap();
    for (from, to, says) in [
        (
            "shape: \"m16n8k16\"",
            "shape: \"m16n16k16\"",
            "is not an mma shape",
        ),
        (
            "types: \"f32.f16.f16.f32\"",
            "types: \"f32.f16.f16\"",
            "is not four mma types",
        ),
        (
            "b: [\"b0\", \"b1\"]",
            "b: [\"b0\"]",
            "takes 2 registers in `b`, not 1",
        ),
    ] {
        let p = scratch("bad_mma.ron", &src.replace(from, to));
        let (code, _, err) = run_json(&["run", p.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(says), "{err}");
        assert!(err.contains("bad_mma.ron:35:"), "{err}");
    }
}

/// mma_tile.ron stages its tiles with `CopyAsync`: waited for, the race checker finds nothing;
/// without the `WaitGroup` the reads of the copied tiles are hazards (exit 1); a copy of 12
/// bytes is an error at its position.
#[test]
fn copy_async_from_the_kernel_language_is_waited_for() {
    let (code, j, err) = run_json(&["run", "programs/tensor/mma_tile.ron", "--racecheck"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(j["verified"], true, "{}", j["verification"]);
    let src =
        std::fs::read_to_string(crate::util::root().join("programs/tensor/mma_tile.ron")).unwrap();
    let p = scratch("no_wait.ron", &src.replace("WaitGroup(0),", ""));
    let (code, _, err) = run_json(&["run", p.to_str().unwrap(), "--racecheck"]);
    assert_eq!(code, Some(1), "{err}");
    let p = scratch(
        "bad_copy.ron",
        &src.replace("B[l * 8]\", bytes: 16", "B[l * 8]\", bytes: 12"),
    );
    let (code, _, err) = run_json(&["run", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("copies 4, 8 or 16 bytes a lane"), "{err}");
    assert!(err.contains("bad_copy.ron:29:"), "{err}");
}

/// The barrier-object statements: programs/tensor/mbar_pipeline.ron (a producer warp and four
/// consumer warps through full/empty barriers) verifies without races; each consumer read is
/// 32-way (rows of 32 floats, 32 wavefronts a load) and conflict-free with `PAD=1`.
#[test]
fn barrier_statements_run_a_warp_specialised_pipeline() {
    for (pad, wavefronts) in [("0", 65536), ("1", 2048)] {
        let def = format!("PAD={pad}");
        let (code, j, err) = run_json(&[
            "run",
            "programs/tensor/mbar_pipeline.ron",
            "-D",
            &def,
            "--racecheck",
        ]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(j["verified"], true, "{}", j["verification"]);
        assert_eq!(j["races"], serde_json::json!([]));
        assert_eq!(j["shared"]["ld_instructions"], 2048, "PAD={pad}");
        assert_eq!(j["shared"]["ld_wavefronts"], wavefronts, "PAD={pad}");
    }
}

#[test]
fn a_barrier_wait_no_arrival_completes_is_a_fault_at_its_line() {
    let src =
        std::fs::read_to_string(crate::util::root().join("programs/tensor/mbar_pipeline.ron"))
            .unwrap()
            .replace(
                r#"BarrierInit(at: "bars[2]", count: "128")"#,
                r#"BarrierInit(at: "bars[2]", count: "129")"#,
            );
    let p = scratch("mbar_never.ron", &src);
    let (code, _, err) = run_json(&["run", p.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "the mbarrier at shared byte 8208 (`bars[2]`) is in a phase of parity 0, waiting \
             for 1 of its 129 arrivals"
        ),
        "{err}"
    );
    assert!(err.contains("mbar_never.ron:37:"), "{err}");
}

#[test]
fn a_barrier_outside_shared_memory_or_an_unknown_field_is_an_error_at_its_place() {
    let base =
        std::fs::read_to_string(crate::util::root().join("programs/tensor/mbar_pipeline.ron"))
            .unwrap();
    for (from, to, want) in [
        (
            r#"BarrierInit(at: "bars[0]", count: "32")"#,
            r#"BarrierInit(at: "out[0]", count: "32")"#,
            "a barrier object is 8 bytes of a shared array",
        ),
        (
            r#"BarrierArrive(at: "bars[2 + s]")"#,
            r#"BarrierArrive(at: "bars[2 + s]", count: "1", tx: "4")"#,
            "BarrierArrive takes `count` or `tx`, not both",
        ),
        // (An unknown field of a statement was once dropped without a word.)
        (
            "], else: [",
            "], otherwise: [",
            "Unexpected field named `otherwise` in `If`",
        ),
    ] {
        assert!(base.contains(from), "{from}");
        let p = scratch("mbar_bad.ron", &base.replace(from, to));
        let (code, _, err) = run_json(&["run", p.to_str().unwrap()]);
        assert_eq!(code, Some(2), "{to}: {err}");
        assert!(err.contains(want), "{to}: {err}");
        assert!(err.contains("mbar_bad.ron:"), "{to}: {err}");
    }
}
