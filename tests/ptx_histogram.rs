//! The histogram kernels of calibration/draws/histogram_fp16/histogram.cu through NVRTC's PTX
//! (programs/cuda/histogram.ptx, launch files programs/cuda/histogram/), against the H200's
//! Nsight Compute counters in tests/fixtures/h200/histogram_fp16/ncu_histogram.csv.

use crate::ptx_classic::counters;
use crate::util::{root, SHARED_COUNTERS as NAMES};

/// The nine shared counters (ld, st, atom: wavefronts, bank conflicts, instructions) Nsight
/// measured for `kernel`, in the order of `NAMES`.
fn measured(kernel: &str) -> Vec<u64> {
    let csv = std::fs::read_to_string(
        root().join("tests/fixtures/h200/histogram_fp16/ncu_histogram.csv"),
    )
    .unwrap();
    let mut got = std::collections::HashMap::new();
    for line in csv.lines().filter(|l| l.starts_with('"')) {
        let f: Vec<&str> = line.split("\",\"").map(|x| x.trim_matches('"')).collect();
        if f.len() < 6 || f[4].split('(').next() != Some(kernel) {
            continue;
        }
        let v = f[f.len() - 1].replace(',', "");
        if let Ok(v) = v.parse::<u64>() {
            got.insert(f[f.len() - 3].to_owned(), v);
        }
    }
    let mut out = Vec::new();
    for op in ["ld", "st", "atom"] {
        for m in [
            format!("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"),
            format!("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"),
            format!("smsp__sass_inst_executed_op_shared_{op}.sum"),
        ] {
            out.push(*got.get(&m).unwrap_or_else(|| panic!("{kernel}: no {m}")));
        }
    }
    out
}

fn run(kernel: &str) -> Vec<u64> {
    let (_, r) = counters(&format!("programs/cuda/histogram/{kernel}.ron"), &[]);
    assert_eq!(r["verified"], true, "{kernel}: {}", r["verification"]);
    NAMES
        .iter()
        .map(|k| r["shared"][k].as_u64().unwrap())
        .collect()
}

/// `histogram256_inc` (a plain `ATOMS.ADD`) and `histogram256` (an unread add of the constant
/// 1: `ATOMS.POPC.INC`, picked by the RON loader's rule, README rule 9) equal the H200 on all
/// nine counters. `histogram256_f32` is ptxas's compare-and-swap loop, whose trips depend on
/// the order lanes win; it runs verified and gives what the RON port
/// (programs/histogram_f32.ron) gives.
#[test]
fn histograms_through_ptx_match_the_h200() {
    assert_eq!(run("histogram256_inc"), measured("histogram256_inc"));
    assert_eq!(run("histogram256"), measured("histogram256"));
    let f32 = run("histogram256_f32");
    let ron = crate::util::run_json("histogram_f32.ron", &[], &["--no-timing"]);
    let ron: Vec<u64> = NAMES
        .iter()
        .map(|k| ron["shared"][k].as_u64().unwrap())
        .collect();
    assert_eq!(f32, ron);
}
