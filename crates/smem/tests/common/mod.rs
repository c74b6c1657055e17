//! What the H200 fixture tests share: reading `tests/fixtures/h200/`, a trace line's lanes, and
//! checking a rule against every pattern of a measured set.
#![allow(dead_code)] // each test binary uses its own part

use warpsim_smem::WARP;

/// A file of `tests/fixtures/h200/`.
pub fn fixture(file: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/h200/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The lanes of a trace line (one byte offset per lane, `-1` for an inactive lane): their
/// addresses and the active mask.
pub fn lanes(offsets: &[&str]) -> ([u32; WARP], u32) {
    let mut addrs = [0u32; WARP];
    let mut mask = 0u32;
    for (l, o) in offsets.iter().enumerate() {
        if *o != "-1" {
            addrs[l] = o.parse().unwrap();
            mask |= 1 << l;
        }
    }
    (addrs, mask)
}

/// Checks `predict(op, width, addrs, mask)` against every pattern of `<stem>_patterns.txt`
/// and the counters measured for it in `<stem>_measured.tsv` (whose first line must be
/// `header` when given); returns how many patterns there were.
pub fn check(
    stem: &str,
    header: Option<&str>,
    predict: impl Fn(&str, u32, &[u32; WARP], u32) -> [u32; 7],
) -> usize {
    let pats = fixture(&format!("{stem}_patterns.txt"));
    let meas = fixture(&format!("{stem}_measured.tsv"));
    let mut rows = meas.lines();
    let first = rows.next();
    if let Some(h) = header {
        assert_eq!(first, Some(h));
    }
    let (mut n, mut bad) = (0, Vec::new());
    for (line, row) in pats.lines().zip(rows) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let m: Vec<&str> = row.split('\t').collect();
        assert_eq!(
            (f[0], f[1], f[2]),
            (m[0], m[1], m[2]),
            "fixtures out of step"
        );
        let width: u32 = f[2].parse().unwrap();
        let (addrs, mask) = lanes(&f[3..]);
        let want: Vec<u32> = m[3..].iter().map(|v| v.parse().unwrap()).collect();
        let got = predict(f[1], width, &addrs, mask);
        if got[..] != want[..] {
            bad.push(format!(
                "{} {}: measured {want:?}, rule {got:?}",
                f[0], f[1]
            ));
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    n
}
