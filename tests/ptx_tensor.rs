//! `ldmatrix` and `cp.async` through the PTX front end (issue 41): the double-buffered tile
//! pipeline of programs/cuda/tensor/ldsm_tile.cu, from its checked-in PTX
//! (tests/fixtures/ptx/ldsm_tile.ptx, no NVRTC needed) and through NVRTC, runs verified
//! against the fragment layout, without races; its counters are the bank rules applied to the
//! addresses the kernel computes (recomputed here from the source's formula); a wait that
//! leaves the copy pending is an ASYNC race; malformed forms are refused at their line.

use crate::nvrtc::{cache, nvrtc, ws};
use crate::util::{root, scratch, warpsim};
use warpsim_smem::{async_copy_cost, matrix_cost, AsyncCopy, CopyLanes, Geometry, Matrix};

const BLOCKS: u64 = 4;
const TILES: u64 = 8;

fn run_json(args: &[&str]) -> serde_json::Value {
    run_json_code(args, 0)
}

/// `warpsim ARGS --format json`, which must exit with `code` (1: a race was found).
fn run_json_code(args: &[&str], code: i32) -> serde_json::Value {
    let out = warpsim()
        .args(args)
        .args(["--format", "json"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The kernel's `chunk_offset<XOR>(row, c)`.
fn chunk_offset(xor: bool, row: u32, c: u32) -> u32 {
    row * 128 + ((if xor { c ^ row } else { c }) & 7) * 16
}

/// (ldmatrix wavefronts, conflicts) of one x4 (half `h` of a tile) and the cp.async
/// (wavefronts, conflicts, sectors) of one copy instruction (`j`), by the rules.
fn rule(xor: bool, h: u32, j: u32) -> ((u32, u32), (u32, u32, u32)) {
    let g = Geometry::H200;
    let rows: [u32; 32] = std::array::from_fn(|l| {
        let l = l as u32;
        chunk_offset(xor, l % 8, 4 * h + l / 8)
    });
    let shape = Matrix {
        store: false,
        n: 4,
        trans: false,
    };
    let m = matrix_cost(&g, shape, &rows, u32::MAX).unwrap();
    let dst: [u32; 32] = std::array::from_fn(|l| {
        let chunk = l as u32 + 32 * j;
        chunk_offset(xor, chunk / 8, chunk % 8)
    });
    // The sources: 16 bytes a lane, contiguous (the buffer's base is 256-byte aligned on the
    // GPU; any tile starts at a multiple of 1024 bytes).
    let src: [u64; 32] = std::array::from_fn(|l| 1024 * 7 + 16 * (l as u64 + 32 * j as u64));
    let kind = AsyncCopy {
        bypass: true,
        width: 16,
        // __pipeline_memcpy_async gives a src-size operand; the raw asm does not.
        zfill: !xor,
    };
    let lanes = CopyLanes {
        dst: &dst,
        src: &src,
        size: &[16; 32],
        mask: u32::MAX,
    };
    let c = async_copy_cost(&g, kind, lanes).unwrap();
    (
        (m.wavefronts, m.conflicts),
        (c.wavefronts, c.conflicts, c.sectors),
    )
}

/// Checks a run of ldsm_tile (`xor` variant) against the rules.
fn check(r: &serde_json::Value, xor: bool) {
    assert_eq!(r["verified"], true, "{}", r["verification"]);
    assert_eq!(r["races"], serde_json::json!([]));
    let rows = r["per_instruction"].as_array().unwrap();
    let of = |name: &str| -> Vec<&serde_json::Value> {
        rows.iter().filter(|i| i["instruction"] == name).collect()
    };
    let tiles = BLOCKS * TILES;
    // Two ldmatrix.x4 a tile (chunks 0-3, then 4-7).
    let ld = of("ldmatrix.x4");
    assert_eq!(ld.len(), 2, "{rows:?}");
    let (mut want_ld, mut got_ld) = ((0, 0), (0, 0));
    for (h, i) in ld.iter().enumerate() {
        assert_eq!(i["executions"], tiles);
        assert_eq!(i["op"], "ld");
        assert_eq!(i["array"], "buf");
        let (wf, bc) = rule(xor, h as u32, 0).0;
        want_ld.0 += wf as u64 * tiles;
        want_ld.1 += bc as u64 * tiles;
        got_ld.0 += i["wavefronts"].as_u64().unwrap();
        got_ld.1 += i["bank_conflicts"].as_u64().unwrap();
    }
    assert_eq!(got_ld, want_ld);
    // Loads are the ldmatrix's only (the kernel has no other shared load).
    let s = &r["shared"];
    assert_eq!(
        (s["ld_wavefronts"].as_u64(), s["ld_bank_conflicts"].as_u64()),
        (Some(want_ld.0), Some(want_ld.1))
    );
    assert_eq!(s["ld_instructions"], 2 * tiles);
    // Two cp.async.cg a tile, one for chunks 0-31 and one for 32-63 (the pcs of the first
    // stage and of the loop's stages are separate instructions).
    let cp = of("cp.async.cg");
    let execs: u64 = cp.iter().map(|i| i["executions"].as_u64().unwrap()).sum();
    assert_eq!(execs, 2 * tiles);
    let per_j: Vec<_> = (0..2).map(|j| rule(xor, 0, j).1).collect();
    // (Both halves cost the same; the test would see it if they did not.)
    assert_eq!(per_j[0], per_j[1]);
    let (wf, bc, sectors) = per_j[0];
    assert_eq!(s["ldgsts_instructions"], 2 * tiles);
    assert_eq!(s["ldgsts_wavefronts"], wf as u64 * 2 * tiles);
    assert_eq!(
        s["ldgsts_bank_conflicts"].as_u64().unwrap_or(0),
        bc as u64 * 2 * tiles
    );
    assert_eq!(s["ldgsts_sectors"], sectors as u64 * 2 * tiles);
    // The async copies are not in the loads/stores total.
    assert_eq!(s["st_wavefronts"], 0);
}

#[test]
fn ldsm_tile_from_ptx_runs_verified_priced_by_the_rules() {
    for (xor, name) in [(false, "ldsm_tile"), (true, "ldsm_tile_xor")] {
        let path = format!("tests/fixtures/ptx/{name}.ron");
        let r = run_json(&["run", &path, "--racecheck", "--no-timing"]);
        check(&r, xor);
    }
    // The swizzle removes the conflicts: 8 wavefronts a matrix without it, 1 with it.
    assert_eq!(rule(false, 0, 0).0, (32, 28));
    assert_eq!(rule(true, 0, 0).0, (4, 0));
}

#[test]
fn ldsm_tile_is_timed() {
    let r = run_json(&["run", "tests/fixtures/ptx/ldsm_tile.ron"]);
    let t = &r["timing"];
    assert!(t["elapsed_cycles"].as_u64().unwrap() > 0);
    // The conflicts of the unswizzled ldmatrix cost time; the swizzled one's none.
    assert!(t["shared_pipe_utilization"].as_f64().unwrap() > 0.0);
    let x = run_json(&["run", "tests/fixtures/ptx/ldsm_tile_xor.ron"]);
    assert!(
        x["timing"]["elapsed_cycles"].as_u64() <= t["elapsed_cycles"].as_u64(),
        "{} vs {}",
        x["timing"]["elapsed_cycles"],
        t["elapsed_cycles"]
    );
}

#[test]
fn ldsm_tile_through_nvrtc() {
    if !nvrtc("ldsm_tile_through_nvrtc") {
        return;
    }
    let dir = cache("ldsm_tile");
    for (xor, name) in [(false, "ldsm_tile"), (true, "ldsm_tile_xor")] {
        let path = format!("programs/cuda/tensor/{name}.cu.ron");
        let out = ws(
            &dir,
            &[
                "run",
                &path,
                "--racecheck",
                "--no-timing",
                "--format",
                "json",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        check(&serde_json::from_slice(&out.stdout).unwrap(), xor);
    }
}

#[test]
fn the_bank_heat_map_counts_the_copies_and_the_matrix_loads() {
    // 64 ldmatrix.x4 read 4 matrices x 8 rows x 4 words = 128 words each; 64 cp.async.cg
    // write 32 lanes x 4 words each: 8,192 words each, spread evenly by the XOR layout.
    let r = run_json_code(&["run", "tests/fixtures/ptx/ldsm_tile_xor.ron"], 0);
    assert_eq!(r["shared"]["ldgsts_instructions"], 64);
    let banks: Vec<u64> = r["per_bank"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(banks, vec![512; 32]);
}

#[test]
fn a_cache_hint_copy_runs_as_the_plain_one() {
    // `.L2::cache_hint` with its policy operand (any 64-bit register; `createpolicy` makes
    // one): the policy is dropped, so every result, count and modelled cycle is the plain
    // copy's.
    let ptx = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile.ptx")).unwrap();
    let hinted = ptx
        .replace(
            "cp.async.cg.shared.global [%r14], [%rd13], 16, 16;",
            "cp.async.cg.shared.global.L2::cache_hint [%r14], [%rd13], 16, 16, %rd70;",
        )
        .replace(
            "cp.async.cg.shared.global [%r15], [%rd14], 16, 16;",
            "cp.async.cg.shared.global.L2::cache_hint [%r15], [%rd14], 16, %rd70;",
        );
    assert_ne!(hinted, ptx);
    scratch("ldsm_tile_hint.ptx", &hinted);
    let ron = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile_xor.ron")).unwrap();
    let path = scratch(
        "ldsm_tile_hint.ron",
        &ron.replace("\"ldsm_tile.ptx\"", "\"ldsm_tile_hint.ptx\""),
    );
    let plain = run_json_code(&["run", "tests/fixtures/ptx/ldsm_tile_xor.ron"], 0);
    let hint = run_json_code(&["run", path.to_str().unwrap()], 0);
    assert_eq!(hint["verified"], true);
    for k in ["shared", "per_bank", "stall_cycles", "timing"] {
        assert_eq!(hint[k], plain[k], "{k}");
    }
}

#[test]
fn reading_a_tile_before_its_copy_completes_is_an_async_race() {
    // The same PTX with `wait_group 2` for `wait_group 1`: the tile read may still be in
    // flight.
    let ptx = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile.ptx")).unwrap();
    assert!(ptx.contains("cp.async.wait_group 1;"));
    scratch(
        "ldsm_tile_early.ptx",
        &ptx.replace("cp.async.wait_group 1;", "cp.async.wait_group 2;"),
    );
    let ron = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile_xor.ron")).unwrap();
    let ron = ron.replace("\"ldsm_tile.ptx\"", "\"ldsm_tile_early.ptx\"");
    let path = scratch("ldsm_tile_early.ron", &ron);
    let r = run_json_code(
        &["run", path.to_str().unwrap(), "--racecheck", "--no-timing"],
        1,
    );
    let races = r["races"].as_array().unwrap();
    assert!(!races.is_empty());
    assert!(races.iter().all(|h| h["kind"] == "ASYNC"), "{races:?}");
    assert!(races
        .iter()
        .any(|h| h["second"]["text"].as_str().unwrap().contains("ldmatrix")));
    assert!(races
        .iter()
        .all(|h| h["first"]["text"].as_str().unwrap().contains("cp.async")));
    // The plain-text report says what to change.
    let out = warpsim()
        .args(["run", path.to_str().unwrap(), "--racecheck", "--no-timing"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ASYNC hazard on buf["), "{text}");
    assert!(text.contains("cp.async.wait_group N"), "{text}");
}

#[test]
fn malformed_matrix_and_copy_forms_are_refused_at_their_line() {
    let ptx = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile.ptx")).unwrap();
    let ron = std::fs::read_to_string(root().join("tests/fixtures/ptx/ldsm_tile_xor.ron")).unwrap();
    for (k, from, to, want) in [
        (
            "x3",
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
            "ldmatrix.sync.aligned.m8n8.x3.shared.b16",
            "`.x3`",
        ),
        (
            "policy",
            "cp.async.cg.shared.global [%r",
            "cp.async.ca.shared.global.L2::cache_hint [%r",
            "takes a cache policy as its last operand",
        ),
        (
            "wait",
            "cp.async.wait_group 1;",
            "cp.async.wait_group %r1;",
            "one constant from 0 to 255",
        ),
    ] {
        assert!(ptx.contains(from), "{k}");
        let name = format!("ldsm_tile_bad_{k}");
        scratch(&format!("{name}.ptx"), &ptx.replace(from, to));
        let path = scratch(
            &format!("{name}.ron"),
            &ron.replace("\"ldsm_tile.ptx\"", &format!("\"{name}.ptx\"")),
        );
        let out = warpsim()
            .args(["run", path.to_str().unwrap()])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{k}: {err}");
        assert!(err.contains(&format!("{name}.ptx:")), "{k}: {err}");
    }
}

/// WMMA in hand-written PTX (no NVRTC needed): without the stride operand each matrix's own
/// width is the stride, B is read col-major and D stored col-major; the result verifies, also
/// with generic addresses (no state space: `generic.rs` finds them global through the
/// fragment addresses).
#[test]
fn wmma_without_a_stride_uses_the_matrix_width() {
    let dir = root().join("tests/fixtures/ptx");
    let r = run_json(&[
        "run",
        dir.join("wmma_nostride.ron").to_str().unwrap(),
        "--no-timing",
    ]);
    assert_eq!(r["verified"], true, "{r}");
    let ptx = std::fs::read_to_string(dir.join("wmma_nostride.ptx")).unwrap();
    let generic = ptx
        .replace(".global.f16", ".f16")
        .replace(".global.f32", ".f32");
    assert!(!generic.contains("m16n16k16.global"));
    scratch("wmma_generic.ptx", &generic);
    let ron = std::fs::read_to_string(dir.join("wmma_nostride.ron")).unwrap();
    let p = scratch(
        "wmma_generic.ron",
        &ron.replace("wmma_nostride.ptx", "wmma_generic.ptx"),
    );
    let r = run_json(&["run", p.to_str().unwrap(), "--no-timing"]);
    assert_eq!(r["verified"], true, "{r}");
}
