//! The histogram and half-precision kernels against the H200 (issue 14): whole-kernel shared
//! counters — loads, stores and atomics, wavefronts, bank conflicts and SASS instructions
//! executed — as Nsight Compute measured them (tests/fixtures/h200/kernels2.tsv, made by
//! calibration/kernels2/run.sh and parse.py; origin in the fixtures' README).

use crate::util::{root, run_json};

const KEYS: [&str; 9] = [
    "ld_wavefronts",
    "ld_bank_conflicts",
    "ld_instructions",
    "st_wavefronts",
    "st_bank_conflicts",
    "st_instructions",
    "atom_wavefronts",
    "atom_bank_conflicts",
    "atom_instructions",
];

#[test]
fn histogram_and_half_kernels_match_the_h200() {
    // The fixture is written from the H200 campaign's outputs (calibration/kernels2/run.sh,
    // then parse.py); until it is there, there is nothing to hold the kernels to.
    let Ok(tsv) = std::fs::read_to_string(root().join("tests/fixtures/h200/kernels2.tsv")) else {
        eprintln!("tests/fixtures/h200/kernels2.tsv is not there yet: run calibration/kernels2/run.sh on an H200");
        return;
    };
    let mut seen = 0;
    for line in tsv.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let (kernel, program, defines) = (f[0], f[1], f[2]);
        if program == "-" {
            continue;
        }
        let defines: Vec<&str> = if defines == "-" {
            Vec::new()
        } else {
            defines.split(',').collect()
        };
        let want: Vec<u64> = f[3..12].iter().map(|v| v.parse().unwrap()).collect();
        let r = run_json(program, &defines, &["--no-timing", "--no-verify"]);
        let got: Vec<u64> = KEYS
            .iter()
            .map(|k| {
                r["shared"][k]
                    .as_u64()
                    .unwrap_or_else(|| panic!("no shared.{k}"))
            })
            .collect();
        assert_eq!(got, want, "{kernel} ({program}): {KEYS:?}");
        seen += 1;
    }
    assert!(seen >= 2, "the fixture lists the kernels");
}
