//! `warpsim access`: the fixture trace reproduces the H200 measurements; malformed traces
//! are refused with the line and exit code 2.

use crate::util::{run_with_stdin as warpsim, scratch};
use warpsim_testkit::h200::fixture;

const PATTERNS: &str = "tests/fixtures/h200/patterns.txt";

fn measured() -> String {
    fixture("measured.tsv")
}

/// A trace file in this test binary's scratch folder.
fn trace(name: &str, text: &str) -> String {
    let path = scratch(&format!("cli_access_{name}.txt"), text);
    path.to_string_lossy().into_owned()
}

/// 31 lanes at offset 0, to complete a line after one chosen lane.
fn zeros() -> String {
    vec!["0"; 31].join(" ")
}

#[test]
fn fixture_json_matches_measurements() {
    let (code, out, err) = warpsim(&["access", PATTERNS, "--format", "json"], "");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
    let measured = measured();
    let lines: Vec<&str> = measured.lines().skip(1).collect();
    assert_eq!(rows.len(), 374);
    assert_eq!(lines.len(), 374);
    for (row, line) in rows.iter().zip(lines) {
        let obj = row.as_object().expect("an object per access");
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            ["bank_conflicts", "name", "op", "wavefronts", "width"],
            "{row}"
        );
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(row["name"], f[0]);
        assert_eq!(row["op"], f[1]);
        assert_eq!(row["width"].to_string(), f[2], "{}", f[0]);
        assert_eq!(row["wavefronts"].to_string(), f[3], "{}", f[0]);
        assert_eq!(row["bank_conflicts"].to_string(), f[4], "{}", f[0]);
    }
}

#[test]
fn fixture_tsv_is_measured_tsv() {
    let (code, out, err) = warpsim(&["access", PATTERNS, "--format", "tsv"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, measured());
}

#[test]
fn table_from_stdin_has_no_escapes() {
    let text = warpsim_testkit::read(PATTERNS);
    let (code, out, err) = warpsim(&["access", "-"], &text);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('\x1b'), "ANSI escapes in piped output");
    assert!(out.contains("bank_conflicts"));
    assert!(out.contains("ld4_stride32"));
    assert!(out.contains("374 accesses"));
}

#[test]
fn comments_blank_lines_and_inactive_lanes() {
    // smem[tid*32] with only lanes 0 and 1 active (`_` and `-1` are inactive): 2 cycles.
    let lanes: Vec<String> = (0..32)
        .map(|l| match l {
            0 | 1 => (l * 128).to_string(),
            l if l % 2 == 0 => "_".to_string(),
            _ => "-1".to_string(),
        })
        .collect();
    let text = format!(
        "# a comment\n\n  two ld 4 {}   # trailing comment\n",
        lanes.join(" ")
    );
    let (code, out, err) = warpsim(&["access", "-", "--format", "tsv"], &text);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "name\top\twidth\twavefronts\tbank_conflicts\ntwo\tld\t4\t2\t1\n"
    );
}

#[test]
fn other_geometries() {
    // 64 banks: smem[tid*32] lands on banks 0 and 32, 16 words each: 16 cycles.
    let lanes: Vec<String> = (0..32).map(|l| (l * 128).to_string()).collect();
    let text = format!("s ld 4 {}\n", lanes.join(" "));
    let (code, out, _) = warpsim(&["access", "-", "--format", "tsv", "--banks", "64"], &text);
    assert_eq!(code, 0);
    assert!(out.ends_with("s\tld\t4\t16\t15\n"), "{out}");
    let (code, out, _) = warpsim(
        &["access", "-", "--format", "tsv", "--bank-bytes", "8"],
        &text,
    );
    assert_eq!(code, 0);
    assert!(out.ends_with("s\tld\t4\t16\t15\n"), "{out}");
    let (code, _, err) = warpsim(&["access", "-", "--banks", "0"], &text);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = warpsim(&["access", "-", "--bank-bytes", "3"], &text);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn malformed_lines_exit_2_with_the_line() {
    let z = zeros();
    let good = format!("ok ld 4 0 {z}");
    let cases = [
        (
            "fields",
            "short ld 4 0 4 8".to_string(),
            "expected 35 fields",
        ),
        ("number", format!("num ld 4 4x {z}"), "not a byte offset"),
        ("negative", format!("neg ld 4 -4 {z}"), "not a byte offset"),
        ("op", format!("op load 4 0 {z}"), "`ld`"),
        ("width", format!("w ld 6 0 {z}"), "4, 8 or 16"),
        (
            "aligned",
            format!("mis ld 8 4 {z}"),
            "not a multiple of the 8-byte",
        ),
    ];
    // The column of the field at fault (none for a count of fields).
    let cols = [":3: ", ":3:10: ", ":3:10: ", ":3:4: ", ":3:6: ", ":3:10: "];
    for ((name, bad, hint), col) in cases.into_iter().zip(cols) {
        let path = trace(name, &format!("# header\n{good}\n{bad}\n{good}\n"));
        let (code, out, err) = warpsim(&["access", &path], "");
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty(), "{name}: printed {out}");
        assert!(err.contains(&format!("{path}{col}")), "{name}: {err}");
        assert!(err.contains(hint), "{name}: {err}");
        assert!(
            !err.contains(&format!("{path}:2:")) && !err.contains(&format!("{path}:4:")),
            "{name}: {err}"
        );
    }
    // Every malformed line is reported, not just the first.
    let (code, _, err) = warpsim(&["access", "-"], &format!("a ld 4\n{good}\nb st 5 0 {z}\n"));
    assert_eq!(code, 2);
    assert!(
        err.contains("<stdin>:1: ") && err.contains("<stdin>:3:6: "),
        "{err}"
    );
}

#[test]
fn unreadable_trace_exits_2() {
    let (code, _, err) = warpsim(&["access", "no/such/trace.txt"], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no/such/trace.txt"), "{err}");
    let path = trace("binary", "");
    std::fs::write(&path, [0xff, 0xfe, 0x00]).expect("write");
    let (code, _, err) = warpsim(&["access", &path], "");
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = warpsim(&["access", PATTERNS, "--format", "xml"], "");
    assert_eq!(code, 2);
}

/// The 1-/2-byte and atomic fixtures through the CLI: each JSON row has Nsight's counters for
/// its op (atomic counters for `atom`/`red`, plus the loop's loads and trips for a loop).
#[test]
fn narrow_fixture_json_matches_measurements() {
    for (stem, n) in [("narrow", 1125), ("narrow_heldout", 62)] {
        let pats = format!("tests/fixtures/h200/{stem}_patterns.txt");
        let (code, out, err) = warpsim(&["access", &pats, "--format", "json"], "");
        assert_eq!(code, 0, "{err}");
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).expect("a JSON array");
        let measured = fixture(&format!("{stem}_measured.tsv"));
        let lines: Vec<&str> = measured.lines().skip(1).collect();
        assert_eq!((rows.len(), lines.len()), (n, n));
        for (row, line) in rows.iter().zip(lines) {
            let m: Vec<u64> = line
                .split('\t')
                .skip(3)
                .map(|v| v.parse().unwrap())
                .collect();
            let get = |k: &str| row[k].as_u64();
            let want = match row["op"].as_str().unwrap() {
                "ld" => (m[0], m[1], None),
                "st" => (m[2], m[3], None),
                _ if get("load_wavefronts").is_some() => (m[4], m[5], Some((m[0], m[1], m[6]))),
                _ => (m[4], m[5], None),
            };
            let loop_part = get("load_wavefronts").map(|w| {
                (
                    w,
                    get("load_bank_conflicts").unwrap(),
                    get("atoms_executed").unwrap(),
                )
            });
            let got = (
                get("wavefronts").unwrap(),
                get("bank_conflicts").unwrap(),
                loop_part,
            );
            assert_eq!(got, want, "{line}");
        }
    }
}
