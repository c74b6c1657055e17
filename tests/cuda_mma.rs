//! `mma.sync` in CUDA kernels (issue 41): the Ampere-style GEMM of programs/cuda/tensor
//! (cp.async, ldmatrix, mma.sync.m16n8k16) verifies with and without its swizzle, with the
//! ldmatrix counters the bank rule gives (a 4-way conflict on every row of the unswizzled
//! tile, none swizzled); a warp half of which runs mma.sync faults at its line; a form the
//! hardware does not have is refused at its line. (Every form's D words against the GPU's:
//! tests/mma_numerics.rs.) Skipped without NVRTC.

use crate::util::warpsim;

fn run(args: &[&str]) -> std::process::Output {
    warpsim().args(args).env("NO_COLOR", "1").output().unwrap()
}

#[test]
fn the_tensor_core_gemm_verifies_with_its_conflicts() {
    if !crate::nvrtc::nvrtc("the_tensor_core_gemm_verifies_with_its_conflicts") {
        return;
    }
    for (file, conflicts) in [("mma_gemm.cu.ron", true), ("mma_gemm_xor.cu.ron", false)] {
        let path = format!("programs/cuda/tensor/{file}");
        let out = run(&["run", &path, "--format", "json"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{file}: {err}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["verified"], true, "{file}");
        let sh = &j["shared"];
        // 8 blocks x 4 warps x 8 k-steps of 16: one ldmatrix.x4 (4 matrices) and four
        // ldmatrix.x2 (2 each), 12 matrices a step, one wavefront each at best.
        let matrices = 8 * 4 * 8 * 12;
        let (w, c) = (
            sh["ld_wavefronts"].as_u64(),
            sh["ld_bank_conflicts"].as_u64(),
        );
        if conflicts {
            assert_eq!(
                (w, c),
                (Some(4 * matrices), Some(3 * matrices)),
                "{file}: {sh}"
            );
        } else {
            assert_eq!((w, c), (Some(matrices), Some(0)), "{file}: {sh}");
        }
    }
}

#[test]
fn a_divergent_or_unknown_mma_is_an_error_at_its_line() {
    if !crate::nvrtc::nvrtc("a_divergent_or_unknown_mma_is_an_error_at_its_line") {
        return;
    }
    let out = run(&[
        "run",
        "tests/fixtures/cuda/mma/divergent.ron",
        "--no-timing",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "bad.cu:9:28: lane 16 is in the mask 0xffffffff of `mma.sync` but did not reach it"
        ),
        "{err}"
    );
    assert!(err.contains("needs all 32 lanes of the warp"), "{err}");
    let out = run(&["run", "tests/fixtures/cuda/mma/rowrow.ron", "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32` is not supported: warpsim runs mma.sync.aligned with `.row.col`"), "{err}");
    assert!(
        err.contains("it comes from tests/fixtures/cuda/mma/bad.cu:19"),
        "{err}"
    );
}

/// WMMA's `mma.h` compiles (nvcc's `crt/mma.h` found beside the runtime headers) and a 16 x
/// 16 x 16 product through `wmma::load_matrix_sync`/`mma_sync`/`store_matrix_sync` from global
/// memory verifies (ptx/src/wmma.rs; every form against the GPU: tests/wmma_numerics.rs).
#[test]
fn wmma_runs_and_verifies() {
    if !crate::nvrtc::nvrtc("wmma_runs_and_verifies") {
        return;
    }
    let out = run(&["run", "tests/fixtures/cuda/mma/wmma.ron", "--no-timing"]);
    let (stdout, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    if err.contains("crt/mma.h") {
        // (nvcc's headers not installed here: the error says how.)
        assert!(err.contains("nvidia-cuda-nvcc-cu12"), "{err}");
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(stdout.contains("verified: yes"), "{stdout}");
}

/// The WMMA GEMM of programs/cuda/tensor: every fragment load is one ldmatrix.x4 (as ptxas
/// makes it, `LDSM.16.M88.4`), priced by the ldmatrix rule: 64-byte rows (LD = 32) are a 4-way
/// conflict, 16 wavefronts a load (calibration/probes/wmma_layout measured 16), 80-byte rows
/// (LD = 40) none (4).
#[test]
fn wmma_gemm_fragment_loads_are_priced_as_ldmatrix() {
    if !crate::nvrtc::nvrtc("wmma_gemm_fragment_loads_are_priced_as_ldmatrix") {
        return;
    }
    for (file, per_load) in [("wmma_gemm", 16), ("wmma_gemm_pad", 4)] {
        let path = format!("programs/cuda/tensor/{file}.cu.ron");
        let out = run(&["run", &path, "--no-timing", "--format", "json"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        // 8 blocks x 4 warps x 4 K-steps x 2 halves x 3 fragment loads.
        let loads = 8 * 4 * 4 * 2 * 3;
        assert_eq!(j["shared"]["ld_instructions"], loads, "{file}");
        assert_eq!(j["shared"]["ld_wavefronts"], loads * per_load, "{file}");
        assert_eq!(j["verified"], true, "{file}");
        // The lanes' row addresses of the loop's ldmatrix loads are computed once, where
        // their pointers are set before the loop (as ptxas does: `LDSM [R4]` with R4 set
        // before it), not at every load: three (A's two pointers, B's one), none in the loop.
        let out = run(&["check", &path, "--code"]);
        let code = String::from_utf8_lossy(&out.stdout);
        let rows = code.lines().filter(|l| l.contains("Rows {")).count();
        assert_eq!(rows, 3, "{file}: {code}");
    }
}

/// WMMA's m32n8k16 and m8n32k16 (ptx/src/wmma.rs): tests/fixtures/cuda/mma/wmma_shapes.cu, one
/// product a warp, for each type family (f16 with f32 and with f16 accumulators, bf16, s8, u8:
/// a launch file each, named for m32n8k16) and both shapes, in layouts and places that give
/// every operand both layouts and both memories (A and B from shared memory are `ldmatrix`,
/// `.trans` or not, `.x2` or `.x4`; from global memory element accesses; 8-bit ones byte by
/// byte where a register's bytes are not contiguous), D checked against the launch file's sum.
#[test]
fn wmma_shapes_verify() {
    if !crate::nvrtc::nvrtc("wmma_shapes_verify") {
        return;
    }
    let dir = crate::util::root().join("tests/fixtures/cuda/mma");
    let cu = dir.join("wmma_shapes.cu");
    // (launch file, its element type, the one to run, the kernel's, its replacement).
    let families = [
        ("wmma_m32n8k16_f16", "", "", "", ""),
        ("wmma_m32n8k16_f16acc", "", "", "", ""),
        ("wmma_m32n8k16_bf16", "", "", "", ""),
        ("wmma_m32n8k16_s8", "", "", "", ""),
        (
            "wmma_m32n8k16_s8",
            "ty: I8",
            "ty: U8",
            "signed char",
            "unsigned char",
        ),
    ];
    // AL, BL, CL, DL (0 row, 1 col; CL 2 zero), SH (A, B, C, D in shared: bits 1, 2, 4, 8).
    let variants = [
        "0, 1, 0, 0, 15",
        "1, 0, 1, 1, 0",
        "1, 0, 2, 0, 3",
        "0, 1, 1, 1, 12",
    ];
    let mut runs = 0;
    for (file, ty, ty2, kt, kt2) in families {
        let src = std::fs::read_to_string(dir.join(format!("{file}.ron"))).unwrap();
        let kernel = src
            .split("kernel: \"")
            .nth(1)
            .and_then(|k| k.split('"').next())
            .unwrap()
            .to_owned();
        let args = kernel.rsplitn(6, ", ").last().unwrap().to_owned();
        for (m, n) in [(32, 8), (8, 32)] {
            for v in variants {
                let k = args
                    .replace("shape<32, 8,", &format!("shape<{m}, {n},"))
                    .replace(kt, kt2);
                let text = src
                    .replace(&kernel, &format!("{k}, {v}>"))
                    .replace("\"M\": 32, \"N\": 8", &format!("\"M\": {m}, \"N\": {n}"))
                    .replace(ty, ty2)
                    .replace("\"wmma_shapes.cu\"", &format!("{:?}", cu.to_str().unwrap()));
                // C = 0 (fill_fragment): D = A B.
                let text = match v.split(", ").nth(2) {
                    Some("2") => text.replace("expect: \"c[i] + ", "expect: \""),
                    _ => text,
                };
                let name = format!("{file}_{m}x{n}_{}.ron", v.replace(", ", ""));
                let path = crate::util::scratch(&name, &text);
                let out = run(&[
                    "run",
                    path.to_str().unwrap(),
                    "--no-timing",
                    "--format",
                    "json",
                ]);
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(0), "{name}: {err}");
                let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(j["verified"], true, "{name}: {}", j["verification"]);
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 5 * 2 * 4);
}

/// The FlashAttention-2-style forward pass of programs/cuda/tensor/flash_attn.cu (mma.sync,
/// ldmatrix, an online softmax with quad shuffles, P kept in registers as the next multiply's A
/// fragments) verifies against the exact softmax over two key tiles, with the ldmatrix counters
/// the bank rule gives: every 8 x 8 matrix of 128-byte rows an 8-way conflict, none with the
/// XOR swizzle.
#[test]
fn flash_attention_verifies_with_its_conflicts() {
    if !crate::nvrtc::nvrtc("flash_attention_verifies_with_its_conflicts") {
        return;
    }
    for (file, per_matrix) in [("flash_attn", 8), ("flash_attn_xor", 1)] {
        let path = format!("programs/cuda/tensor/{file}.cu.ron");
        let out = run(&["run", &path, "--format", "json"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{file}: {err}");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["verified"], true, "{file}");
        // Per warp: Q's 4 ldmatrix.x4 once; per key tile 16 ldmatrix.x4 of K and 32 .x2.trans
        // of V. 2 blocks x 4 warps, 2 key tiles.
        let matrices = 2 * 4 * (16 + 2 * (16 * 4 + 32 * 2));
        let sh = &j["shared"];
        assert_eq!(sh["ld_instructions"], 2 * 4 * (4 + 2 * (16 + 32)), "{file}");
        assert_eq!(sh["ld_wavefronts"], matrices * per_matrix, "{file}");
    }
}
