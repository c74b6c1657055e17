//! `warpsim run` and `warpsim check`: counters, JSON keys, table, SVG, exit codes,
//! determinism across thread counts.

use crate::util::{run, scratch, text, warpsim};
use std::path::PathBuf;

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["run"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--format", "json"]);
    let out = run(&a);
    assert_eq!(out.status.code(), Some(0), "{a:?}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{a:?}: not JSON ({e}): {}", text(&out.stdout)))
}

fn shared(v: &serde_json::Value) -> [u64; 6] {
    let s = &v["shared"];
    std::array::from_fn(|i| {
        let k = crate::util::LD_ST_COUNTERS[i];
        s[k].as_u64()
            .unwrap_or_else(|| panic!("shared.{k} missing: {s}"))
    })
}

/// The H200's counters for the naive 32 x 32 tile (tests/fixtures/h200/kernels.tsv,
/// transpose_n1024_tile32x32), and the JSON report's keys.
#[test]
fn transpose_matches_the_h200_and_has_every_key() {
    let v = json(&["programs/transpose.ron"]);
    assert_eq!(shared(&v), [1048576, 1015808, 32768, 32768, 0, 32768]);
    // stall_cycles is modelled time (warp-cycles waiting on the shared pipe), not the
    // conflict count above.
    assert!(v["stall_cycles"].as_u64().unwrap() > 1015808);
    assert!(v["timing"]["elapsed_cycles"].as_u64().unwrap() > 0);
    assert_eq!(v["verified"], true);
    assert_eq!(v["kernel"], "transpose");
    assert_eq!(
        v["defines"].to_string(),
        r#"{"N":1024,"PAD":0,"SWIZZLE":0}"#
    );
    assert_eq!(v["geometry"]["banks"], 32);
    assert_eq!(v["geometry"]["bank_bytes"], 4);
    let per = v["per_instruction"].as_array().unwrap();
    assert_eq!(per.len(), 4);
    let ld = per
        .iter()
        .find(|i| i["space"] == "shared" && i["op"] == "ld")
        .unwrap();
    assert_eq!(ld["line"], 26);
    assert_eq!(ld["text"], "tile[tid.x][tid.y + j]");
    assert_eq!(ld["width"], 4);
    assert_eq!(ld["executions"], 32768);
    assert_eq!(ld["wavefronts"], 1048576);
    assert_eq!(ld["bank_conflicts"], 1015808);
    assert_eq!(ld["conflict_degree"], 32);
    let banks = v["per_bank"].as_array().unwrap();
    assert_eq!(banks.len(), 32);
    let ver = &v["verification"][0];
    assert_eq!(ver["buffer"], "out");
    assert_eq!(ver["ok"], true);
    assert_eq!(ver["mismatches"], 0);
    let e = &v["emulator"];
    // 1024 blocks of 8 warps, 70 warp instructions each (the lowered code: `warpsim check`).
    assert_eq!(e["warp_instructions"], 573440);
    for k in [
        "thread_instructions",
        "seconds",
        "warp_instructions_per_second",
        "threads",
    ] {
        assert!(e.get(k).is_some(), "emulator.{k} missing");
    }
}

/// Padding or swizzling the tile removes the conflict (kernels.tsv: tile32x33, _xor).
#[test]
fn transpose_pad_and_swizzle() {
    for d in ["PAD=1", "SWIZZLE=1"] {
        let v = json(&["programs/transpose.ron", "--define", d]);
        assert_eq!(shared(&v), [32768, 0, 32768, 32768, 0, 32768], "{d}");
        assert_eq!(v["verified"], true, "{d}");
    }
}

#[test]
fn table_is_plain_text_when_piped() {
    let out = run(&["run", "programs/transpose.ron", "--define", "N=256"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.is_ascii(), "not ASCII:\n{t}");
    assert!(!t.contains('\x1b'), "ANSI escape in:\n{t}");
    for s in [
        "transpose - programs/transpose.ron",
        "N=256 PAD=0 SWIZZLE=0",
        "32 banks x 4 B",
        "| loads ",
        "65536",
        "63488",
        "stall cycles: ",
        "bank conflicts cost ",
        "conflicts cost",
        "programs/transpose.ron:26:",
        "32-way",
        "banks   0-31",
        "verified: yes",
        "warp instructions/s",
    ] {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
}

#[test]
fn svg_is_written_and_well_formed() {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("transpose.svg");
    let _ = std::fs::remove_file(&path);
    let out = run(&[
        "run",
        "programs/transpose.ron",
        "--define",
        "N=128",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = std::fs::read_to_string(&path).unwrap();
    assert!(s.starts_with("<svg"), "{}", &s[..s.len().min(300)]);
    assert!(s.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(s.trim_end().ends_with("</svg>"));
    assert_eq!(s.matches("<svg").count(), s.matches("</svg>").count());
    assert_eq!(s.matches("<text").count(), s.matches("</text>").count());
    assert!(s.matches("<text").count() > 10, "labels missing");
    assert!(s.contains("words served per bank"));
    assert!(s.contains("bank"));
    // No raw `<` or `&` inside text (program text such as `a < b` is escaped).
    for t in s.split("<text").skip(1) {
        let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
        assert!(!body.contains('<'), "{body}");
    }
    // An unwritable path is an error, exit 2.
    let out = run(&[
        "run",
        "programs/transpose.ron",
        "--define",
        "N=64",
        "--svg",
        "/nonexistent-dir/x.svg",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot write the SVG"));
}

#[test]
fn bad_defines_exit_2_with_a_message() {
    for (d, msg) in [
        ("N=abc", "is not an integer"),
        ("N", "expected NAME=VALUE"),
        ("=5", "the name is missing"),
        ("NOPE=1", "no define `NOPE`"),
        ("N=4000000000", "transpose.ron:"),
        (
            "N=99999999999999999999999",
            "is not an integer that fits in 64 bits",
        ),
        ("N=100000", "transpose.ron:"),
        ("N=0", "transpose.ron:"),
        ("N=-32", "transpose.ron:"),
    ] {
        let out = run(&["run", "programs/transpose.ron", "--define", d]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--define {d}: {err}");
        assert!(err.contains(msg), "--define {d}: {err}");
        assert!(!err.contains("panicked"), "--define {d}: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn other_errors_exit_2() {
    let out = run(&["run", "programs/transpose.ron", "--bank-bytes", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bank"), "{}", text(&out.stderr));
    let out = run(&["run", "no/such/file.ron"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no/such/file.ron"));
    // A fault while running points at the instruction.
    let p = scratch(
        "fault.ron",
        r#"Program(
    name: "fault",
    launch: (grid: [8], block: [32]),
    buffers: [(name: "out", ty: I32, len: 256)],
    body: [
        Store("out[ctaid.x * 32 + tid.x]", "7 / (ctaid.x - 3)"),
    ],
)"#,
    );
    // (Sampled timing: block 3 is one the model stands for by block 2's run, or simulated.)
    for sample in ["auto", "2", "3"] {
        let out = run(&["run", p.to_str().unwrap(), "--sample", sample]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("fault.ron:6:"), "{err}");
        assert!(err.contains("(3,0,0)"), "{err}");
    }
    // A reference that reads out of bounds is an error at the expect.
    let p = scratch(
        "oob.ron",
        r#"Program(
    name: "oob",
    launch: (grid: [1], block: [32]),
    buffers: [
        (name: "a", ty: I32, len: 32, init: Iota),
        (name: "out", ty: I32, len: 32, expect: "a[i + 1]"),
    ],
    body: [Store("out[tid.x]", "a[tid.x]")],
)"#,
    );
    let out = run(&["run", p.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("oob.ron:6:"), "{err}");
    assert!(err.contains("a[32]"), "{err}");
    // A reference that cannot be compiled is reported before the kernel runs: here the kernel
    // faults, and the mistake in the expect is still what the user hears of first.
    let p = scratch(
        "bad_ref_faulting.ron",
        r#"Program(
    name: "bad_ref_faulting",
    launch: (grid: [8], block: [32]),
    buffers: [
        (name: "out", ty: I32, len: 256, expect: "nosuch[i] + 1"),
    ],
    body: [Store("out[ctaid.x * 32 + tid.x]", "7 / (ctaid.x - 3)")],
)"#,
    );
    let out = run(&["run", p.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad_ref_faulting.ron:5:"), "{err}");
    assert!(err.contains("nosuch"), "{err}");
    assert!(!err.contains("(3,0,0)"), "{err}");
    // `check` compiles the references too.
    let out = run(&["check", p.to_str().unwrap()]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad_ref_faulting.ron:5:"), "{err}");
}

#[test]
fn wrong_results_exit_1() {
    let p = scratch(
        "wrong.ron",
        r#"Program(
    name: "wrong",
    launch: (grid: [2], block: [32]),
    buffers: [(name: "out", ty: F32, len: 64, expect: "f32(i) * 2.0")],
    body: [Store("out[ctaid.x * 32 + tid.x]", "f32(tid.x) * 2.0")],
)"#,
    );
    let out = run(&["run", p.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("verified: NO"), "{t}");
    assert!(
        t.contains("out: 32 of 64 elements differ; first at [32]: got 0, want 64"),
        "{t}"
    );
    let out = run(&["run", p.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verified"], false);
    assert_eq!(v["verification"][0]["first_mismatch"]["index"], 32);
    // --no-verify: nothing checked.
    let out = run(&[
        "run",
        p.to_str().unwrap(),
        "--no-verify",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["verified"].is_null());
}

/// The report does not depend on the number of threads (only `emulator` does).
#[test]
fn json_is_the_same_on_1_and_2_threads() {
    let mut outs = Vec::new();
    for threads in ["1", "2"] {
        let out = warpsim()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "run",
                "programs/transpose.ron",
                "--define",
                "N=512",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["emulator"]["threads"].as_u64(), threads.parse().ok());
        v.as_object_mut().unwrap().remove("emulator");
        outs.push(v.to_string());
    }
    assert_eq!(outs[0], outs[1]);
}

/// `check --code` lists every instruction that the run's counts count, with its source line.
#[test]
fn check_lists_the_code() {
    let out = run(&[
        "check",
        "programs/transpose.ron",
        "--define",
        "PAD=1",
        "--code",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    let size: usize = t
        .lines()
        .find_map(|l| l.trim().strip_prefix("code:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no code size in\n{t}"));
    let listed: Vec<&str> = t.lines().filter(|l| l.contains("  line ")).collect();
    assert_eq!(listed.len(), size, "{t}");
    for s in [
        "registers at start: r0 = ctaid.x, r1 = 32",
        "mad ",
        "fortest ",
        "fornext ",
        "ld.global r14, inp[r13]",
        "st.shared tile[r15][r3], r14",
        "barrier",
    ] {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
    // Each memory instruction keeps its source line and text.
    assert!(
        listed.iter().any(|l| l.contains("line 26")
            && l.contains("ld.shared")
            && l.ends_with("tile[tid.x][tid.y + j]")),
        "{t}"
    );
}

#[test]
fn check_summarizes() {
    let out = run(&["check", "programs/transpose.ron", "--define", "SWIZZLE=1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    for s in [
        "transpose (programs/transpose.ron): ok",
        "N=1024 PAD=0 SWIZZLE=1",
        "grid 32x32x1 x block 32x8x1 = 1024 blocks of 256 threads",
        "inp        f32[1048576]",
        "tile       f32[32][32]",
        "xor swizzle 1",
        "4096 bytes",
        "instructions",
        "registers",
    ] {
        assert!(t.contains(s), "missing {s:?} in\n{t}");
    }
    let out = run(&["check", "programs/transpose.ron", "--define", "N=x"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "programs/transpose.ron", "--shared-limit", "1024"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
}
