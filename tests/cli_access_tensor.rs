//! `warpsim access` with `ldsm`/`stsm` and `cp.async` lines: the 540 launches of the
//! tensor_smem fixture as a trace reproduce their Source-page and hardware counters through
//! the binary; malformed lines are refused with line and column, exit code 2.

use crate::util::{run_with_stdin as warpsim, scratch};
use warpsim_testkit::h200::fixture;

/// A launch's name and the counters its row must show.
type Expected = (String, [Option<u32>; 5]);

/// The fixture's LDSM/STSM/LDGSTS launches as trace lines, and the counters the TSV output must
/// show for each: `wavefronts bank_conflicts ideal? sectors hw_wavefronts? hw_bank_conflicts`
/// (`None` where the launch did not measure it).
fn trace_and_expected() -> (String, Vec<Expected>) {
    let text = fixture("tensor_smem/launches.tsv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (mut trace, mut want) = (String::new(), Vec::new());
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let num = |c: &str| f[col(c)].parse::<u32>().ok();
        let kind: Vec<&str> = f[1].split('.').collect();
        let (name, dst) = (f[0], f[col("dst")]);
        match kind[0] {
            "ldsm" | "stsm" => {
                let shape = kind[1..].join(".");
                trace += &format!("{name} {} {shape} {dst}\n", kind[0]);
                let (wf, bc) = (num("sass_wf"), num("sass_bc"));
                assert_eq!((wf, bc), (num("hw_op_wf"), num("hw_op_bc")));
                want.push((name.to_string(), [wf, bc, None, wf, bc]));
            }
            "ca" | "cg" => {
                let src = f[col("src")];
                let sizes = if kind.get(2) == Some(&"z") {
                    format!(" {}", vec![f[col("size")]; 32].join(" "))
                } else {
                    String::new()
                };
                trace += &format!(
                    "{name} cp.async.{} {} {dst} {src}{sizes}\n",
                    kind[0], kind[1]
                );
                // The hardware total less the probe kernel's own wavefronts (5; 4 when warm).
                let harness = if num("warm") == Some(1) { 4 } else { 5 };
                want.push((
                    name.to_string(),
                    [
                        num("sass_wf"),
                        num("sass_bc"),
                        num("sectors"),
                        num("hw_total_wf").map(|w| w - harness),
                        num("hw_ldgsts_bc"),
                    ],
                ));
            }
            _ => {}
        }
    }
    (trace, want)
}

#[test]
fn fixture_launches_through_the_binary() {
    let (trace, want) = trace_and_expected();
    assert_eq!(want.len(), 496);
    let path = scratch("cli_access_tensor.txt", &trace);
    let (code, out, err) = warpsim(&["access", &path.to_string_lossy(), "--format", "tsv"], "");
    assert_eq!(code, 0, "{err}");
    let mut rows = out.lines();
    assert_eq!(
        rows.next(),
        Some(
            "name\top\twidth\twavefronts\tbank_conflicts\tideal\tsectors\ttags\thw_wavefronts\t\
             hw_bank_conflicts"
        )
    );
    let mut bad = Vec::new();
    let mut n = 0;
    for (row, (name, w)) in rows.zip(&want) {
        let f: Vec<&str> = row.split('\t').collect();
        assert_eq!(f[0], name);
        let got = [f[3], f[4], f[6], f[8], f[9]].map(|v| v.parse::<u32>().ok());
        for (g, w) in got.iter().zip(w) {
            if w.is_some() && g != w {
                bad.push(format!("{row}: measured {w:?}"));
            }
        }
        n += 1;
    }
    assert_eq!(n, want.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn table_names_the_extra_counters() {
    let z = |v: &str| vec![v; 32].join(" ");
    let rows: Vec<String> = (0..32).map(|t| (t * 16).to_string()).collect();
    let text = format!(
        "a ldsm x4.trans {}\nb cp.async.cg 16 {} {}\nc ld 4 {}\n",
        rows.join(" "),
        rows.join(" "),
        rows.join(" "),
        z("0")
    );
    let (code, out, err) = warpsim(&["access", "-"], &text);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hw_bank_conflicts"), "{out}");
    assert!(out.contains("ldsm.x4.trans"), "{out}");
    // x4 contiguous: 4 wavefronts; cp.async.cg contiguous: 4; ld broadcast: 1.
    assert!(
        out.contains("3 accesses: 9 wavefronts, 0 bank conflicts"),
        "{out}"
    );
    assert!(out.contains("cp.async (1): 16 sectors"), "{out}");
    // A trace without these kinds keeps the five columns.
    let (_, out, _) = warpsim(
        &["access", "-", "--format", "tsv"],
        &format!("c ld 4 {}\n", z("0")),
    );
    assert_eq!(
        out,
        "name\top\twidth\twavefronts\tbank_conflicts\nc\tld\t4\t1\t0\n"
    );
}

#[test]
fn malformed_lines_name_line_and_column() {
    let l: Vec<String> = (0..32).map(|t| (t * 16).to_string()).collect();
    let rows = l.join(" ");
    let mut mis = l.clone();
    mis[5] = "88".into();
    let mut src = l.clone();
    src[2] = "36".into();
    let cases = [
        (format!("a ldsm x3 {rows}"), "1:8: `x3` is not a shape"),
        (
            format!("b ldsm x4 {}", mis.join(" ")),
            "1:25: lane 5's row address 88 is not 16-byte aligned",
        ),
        (
            format!("c stsm x2 -1 {}", l[1..].join(" ")),
            "1:11: lane 0 gives the address of row 0",
        ),
        (
            format!("d cp.async.cg 8 {rows} {rows}"),
            "1:15: `8` is not a cp.async size",
        ),
        (
            format!("e cp.async.ca 16 {rows} {}", src.join(" ")),
            "lane 2's global source 36",
        ),
        (
            format!("f cp.async.ca 16 {rows}"),
            "expected 67 fields (99 with src-sizes), found 35",
        ),
        (
            format!(
                "g cp.async.ca 16 {rows} {rows} {}",
                vec!["17"; 32].join(" ")
            ),
            "src-size `17`",
        ),
        (
            format!("h cp.async.cb 4 {rows} {rows}"),
            "1:3: `cp.async.cb` is not an access kind",
        ),
        (
            format!("i ldsm x1 {rows} 0"),
            "expected 35 fields, found 36",
        ),
    ];
    for (line, want) in cases {
        let (code, out, err) = warpsim(&["access", "-"], &format!("{line}\n"));
        assert_eq!(code, 2, "{line}: {err}");
        assert!(out.is_empty(), "{line}: {out}");
        assert!(
            err.contains(&format!("<stdin>:{want}")) || err.contains(want),
            "{line}: {err}"
        );
    }
}
