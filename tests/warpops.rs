//! From the command line: the warp-shuffle examples run and verify, a `check` predicate that
//! fails exits 1 with its first failing element and the values it read, and `warpsim check`
//! hints at shared accesses nvcc would likely merge (and stays quiet on the shipped programs).

use crate::util::{root, run as warpsim, scratch, text};

#[test]
fn warp_examples_verify_with_their_checks() {
    for p in [
        "programs/examples/warp_reduce.ron",
        "programs/examples/warp_sort.ron",
    ] {
        let out = warpsim(&["run", p, "--format", "json", "--no-timing"]);
        assert_eq!(out.status.code(), Some(0), "{p}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["verified"], serde_json::json!(true), "{p}");
        // No shuffle touches shared memory: the sort has no shared access at all.
        if p.ends_with("warp_sort.ron") {
            assert_eq!(v["shared"]["ld_wavefronts"], serde_json::json!(0));
            let checks: Vec<_> = v["verification"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x.get("check").is_some())
                .collect();
            assert_eq!(checks.len(), 1);
        }
    }
}

#[test]
fn a_failing_check_exits_1_with_its_first_failure() {
    let src = std::fs::read_to_string(root().join("programs/examples/warp_sort.ron"))
        .unwrap()
        .replace("out[i] <= out[i + 1]", "out[i] >= out[i + 1]");
    let path = scratch("warp_sort_desc.ron", &src)
        .to_string_lossy()
        .into_owned();
    let out = warpsim(&["run", &path, "--no-timing"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    let line = o
        .lines()
        .find(|l| l.contains("(check `i % 32 == 31 || out[i] >= out[i + 1]`)"))
        .unwrap_or_else(|| panic!("{o}"));
    assert!(line.contains("fails at "), "{line}");
    assert!(line.contains("first at [0]: out[0] = "), "{line}");
    assert!(line.contains(", out[1] = "), "{line}");
    // The permutation still holds.
    assert!(o.contains("  out: ok (1024 elements)"), "{o}");
}

#[test]
fn check_hints_at_mergeable_accesses_and_not_at_the_shipped_programs() {
    let src = r#"Program(
    name: "merge",
    launch: (grid: [1], block: [16]),
    buffers: [(name: "out", ty: F32, len: 16)],
    shared: [(name: "s", ty: F32, dims: [16, 64]), (name: "p", ty: F32, dims: [16, 63])],
    body: [
        Store("s[tid][4 * tid]", "1.0"),
        Store("s[tid][4 * tid + 1]", "2.0"),
        Barrier,
        Let("a", "s[tid][tid * 4] + s[tid][tid * 4 + 1] + s[tid][tid * 4 + 2]"),
        Let("b", "s[tid][tid * 4 + 3]"),
        Let("c", "s[tid][tid + 1] + s[tid][tid + 2]"),
        Let("d", "p[tid][4 * tid] + p[tid][4 * tid + 1]"),
        If(cond: "tid > 0", then: [Set("a", "a + s[0][5]")], else: [Set("a", "a + s[0][4]")]),
        Store("out[tid]", "a + b + c + d"),
    ],
)"#;
    let path = scratch("merge.ron", src).to_string_lossy().into_owned();
    let out = warpsim(&["check", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    let hints: Vec<&str> = o.lines().filter(|l| l.starts_with("hint: ")).collect();
    assert_eq!(hints.len(), 2, "{o}");
    assert!(hints[0].contains("merge.ron:7:16: nvcc would likely merge these 2 stores"));
    assert!(
        hints[0].contains("one 8-byte store (STS.64)"),
        "{}",
        hints[0]
    );
    assert!(hints[0].contains("StoreVec"));
    assert!(hints[1].contains("merge.ron:10:19: nvcc would likely merge these 4 loads"));
    assert!(hints[1].contains("one 16-byte load (LDS.128) unless the array is volatile"));
    assert!(hints[1].contains("mirror it with LoadVec if you port from SASS"));
    // Unaligned (`tid + 1`), rows of 63 (`p`), and the two sides of an If: no hint.
    for p in warpsim_testkit::shipped_programs() {
        let out = warpsim(&["check", &p]);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            !text(&out.stdout).contains("hint: "),
            "{}: {}",
            p,
            text(&out.stdout)
        );
    }
}
