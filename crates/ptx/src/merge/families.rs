//! The merge model against ptxas on the families of calibration/probes/cuda_coverage
//! (tests/fixtures/merge/: each family's PTX, gzipped, and the H200's ptxas 13 stream of each
//! kernel, `NAME<TAB>LDS.128 STS.32 …` as `streams.py sass` writes it).
//!
//! `merge_family` is the set the rule was derived from (468 kernels); `merge_heldout_{1,2}`
//! were drawn after the rule was fixed (72 each); `merge_cuda_{nvrtc,nvcc}` are 32 ordinary
//! CUDA kernels with register-blocked loads through NVRTC 12.6 and nvcc 13. Streams are
//! compared as multisets (the order is the scheduler's; no counter depends on it).

use super::{merge, stream};
use std::collections::HashMap;
use warpsim_testkit::read_gz;

/// Kernels whose static stream cannot equal ptxas's (spec M's exceptions): a run-time trip
/// count (ptxas unrolls by 4 with a remainder: its SASS shows the body five times) and a
/// 128-trip loop ptxas unrolled partially by a factor the SASS hides (the dynamic counts
/// agree).
const STATIC_EXCEPTIONS: &[&str] = &["H_T0_k1_c1", "H_T0_k2_c2", "H_T0_k4_c4", "H_T128_k4_c4"];

/// The model's stream of every entry of a family's PTX (after inlining and the generic pass,
/// as the front end runs them).
pub(crate) fn model_streams(ptx: &str) -> Vec<(String, Vec<String>)> {
    let m = crate::parse::parse(ptx).unwrap();
    m.entries
        .iter()
        .map(|e| {
            let mut e2 = crate::inline::expand(&m, e).unwrap();
            let globals = crate::inline::used_globals(&m.globals, &e2.body);
            let params: Vec<(String, bool)> = e2
                .params
                .iter()
                .map(|p| (p.0.clone(), p.1.contains("64")))
                .collect();
            crate::generic::resolve(&mut e2.body, &params, &globals).unwrap();
            let (vars, _) = crate::lower::shared_layout(&globals, &e2, 0).unwrap();
            (e2.name.clone(), stream(&merge(&e2.body, &vars).body))
        })
        .collect()
}

/// (kernels equal, kernels compared, the differences) for family `name`.
fn agreement(name: &str) -> (usize, usize, Vec<String>) {
    let ptx = read_gz(&format!("tests/fixtures/merge/{name}.ptx.gz"));
    let want = warpsim_testkit::read(&format!("tests/fixtures/merge/{name}.ptxas.stream"));
    let got: HashMap<String, Vec<String>> = model_streams(&ptx).into_iter().collect();
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    let (mut same, mut n, mut bad) = (0, 0, Vec::new());
    for line in want.lines().filter(|l| !l.trim().is_empty()) {
        let (k, s) = line.split_once('\t').unwrap_or((line, ""));
        if STATIC_EXCEPTIONS.contains(&k) {
            continue;
        }
        n += 1;
        let w: Vec<String> = s.split_whitespace().map(str::to_owned).collect();
        let g = got
            .get(k)
            .unwrap_or_else(|| panic!("{name}: no kernel {k}"));
        if sorted(g) == sorted(&w) {
            same += 1;
        } else {
            bad.push(format!(
                "{k}:\n  model {}\n  ptxas {}",
                g.join(" "),
                w.join(" ")
            ));
        }
    }
    (same, n, bad)
}

/// Kernels ptxas merges where the model may not: a three-of-four load whose fourth word lies
/// past the end of the shared allocation (ptxas reads it; the executor would fault, so the
/// model keeps the accesses apart).
///
/// And heldout 1's loop kernels whose earlier trips are dead (each trip reset the sum: fixed in
/// the generator before draw 2, calibration/probes/cuda_coverage/README.md): ptxas deletes the
/// dead loads, the model does no dead-code elimination (the executor runs them).
const KNOWN: &[&str] = &["G_sym_tail3", "H1_00", "H1_21", "H1_28", "H1_36", "H1_51"];

/// Prints family `name`'s agreement and returns (kernels equal, kernels compared), the
/// kernels in [`KNOWN`] not counted.
fn report(name: &str) -> (usize, usize) {
    let (same, n, bad) = agreement(name);
    let bad: Vec<String> = bad
        .into_iter()
        .filter(|b| !KNOWN.iter().any(|k| b.starts_with(&format!("{k}:"))))
        .collect();
    eprintln!("{name}: {same} of {n}\n{}", bad.join("\n"));
    (n - bad.len(), n)
}

/// Held out (drawn after the rule was fixed): the test that the rule was not fitted.
#[test]
fn held_out_families_merge_as_ptxas_merged_them() {
    let got = (report("merge_heldout_1"), report("merge_heldout_2"));
    assert_eq!(got, ((72, 72), (72, 72)));
}

#[test]
fn training_family_merges_as_ptxas_merged_it() {
    assert_eq!(report("merge_family"), (464, 464));
}

/// The 32 ordinary CUDA kernels, through NVRTC 12.6 and through nvcc 13 (whose
/// `gemm2d_plain<unsigned,64,64,8,8,8>` reads `As`'s column as two `LDS.128` per step, the
/// issue's case). The one miss: NVRTC's `gemm2d_plain<unsigned,64,64,8,8,8>`, whose 8-trip
/// loop of ~150 instructions ptxas unrolls and the model's size rule (unroll.rs) does not.
#[test]
fn cuda_kernels_merge_as_ptxas_merged_them() {
    let got = (report("merge_cuda_nvrtc"), report("merge_cuda_nvcc"));
    assert_eq!(got, ((31, 32), (32, 32)));
}
