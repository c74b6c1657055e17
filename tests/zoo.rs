//! The zoo (calibration/draws/zoo): 25 launches of ordinary CUDA kernels (CUDA samples' transposes,
//! reductions and matrixMul, GPU Gems' scan, cooperative groups, local arrays, a `__noinline__`
//! helper, halves, bytes, doubles, float2/float4, an XOR swizzle), measured on the H200 and
//! never used to build warpsim (tests/fixtures/h200/zoo_kernels.tsv, from
//! calibration/draws/zoo/fixtures.py). Each runs from `programs/cuda/zoo/NAME.ron` through NVRTC;
//! all nine shared-memory counters must equal the H200's and the run must verify, except the
//! launches listed below with their reason. The lists must stay true: a launch that starts to
//! run, or to match, fails the test until it is taken off its list.
//!
//! Needs libnvrtc (skipped without it, as tests/nvrtc.rs); the two launches that include
//! toolkit headers (`cuda_fp16.h`, `cooperative_groups.h`) are skipped without those headers.

use crate::nvrtc::{cache, nvrtc, ws};
use crate::util::{root, SHARED_COUNTERS};
use std::sync::Mutex;

/// Launches warpsim refuses today: (name, a fragment of the error, why).
const NOT_YET: &[(&str, &str, &str)] = &[];

/// Launches that run and verify but whose counters differ from the H200's: (name, why).
const DIFFERS: &[(&str, &str)] = &[];

/// Launches whose results are not checked, or not expected to match a CPU reference: (name,
/// why). Their counters must still equal the H200's.
const UNVERIFIED: &[(&str, &str)] = &[(
    "softmax_row",
    "no `expect` (exponentials of the GPU's approximations)",
)];

/// The H200's columns of zoo_kernels.tsv, in the order of [`SHARED_COUNTERS`].
const COLUMNS: [&str; 9] = [
    "ld_wavefronts",
    "ld_conflicts",
    "ld_inst",
    "st_wavefronts",
    "st_conflicts",
    "st_inst",
    "atom_wavefronts",
    "atom_conflicts",
    "atom_inst",
];

/// What one launch did.
enum Outcome {
    Equal,
    Differs(String),
    Refused(String),
    NoHeaders,
}

fn run_one(name: &str, want: &[u64], dir: &std::path::PathBuf) -> Outcome {
    let path = format!("programs/cuda/zoo/{name}.ron");
    let out = ws(dir, &["run", &path, "--format", "json", "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    // Exit 1: ran, but did not verify (the report is still written).
    if !out.status.success() && out.status.code() != Some(1) {
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        if err.contains("cannot find the CUDA toolkit header") || err.contains("CCCL's header") {
            return Outcome::NoHeaders;
        }
        return Outcome::Refused(err);
    }
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    if !UNVERIFIED.iter().any(|u| u.0 == name) {
        assert_eq!(r["verified"], true, "{name}: does not verify");
    }
    let got: Vec<u64> = SHARED_COUNTERS
        .iter()
        .map(|k| r["shared"][k].as_u64().unwrap())
        .collect();
    if got == want {
        Outcome::Equal
    } else {
        Outcome::Differs(format!("warpsim {got:?}, H200 {want:?}"))
    }
}

#[test]
fn zoo_kernels_match_the_h200() {
    if !nvrtc("zoo_kernels_match_the_h200") {
        return;
    }
    let dir = cache("zoo");
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/h200/zoo_kernels.tsv")).unwrap();
    let mut lines = tsv.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |c: &str| head.iter().position(|h| *h == c).unwrap();
    let rows: Vec<(String, Vec<u64>)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let want = COLUMNS.iter().map(|c| f[col(c)].parse().unwrap()).collect();
            (f[0].to_owned(), want)
        })
        .collect();
    assert_eq!(rows.len(), 25);
    for (name, _, _) in NOT_YET {
        assert!(rows.iter().any(|r| r.0 == *name), "NOT_YET names {name}");
    }
    for (name, _) in DIFFERS {
        assert!(rows.iter().any(|r| r.0 == *name), "DIFFERS names {name}");
    }
    // Two at a time (each launch is a process: NVRTC, then the run).
    let outcomes = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((name, want)) = rows.get(i) else {
                    break;
                };
                let o = run_one(name, want, &dir);
                outcomes.lock().unwrap().push((name.clone(), o));
            });
        }
    });
    let mut problems = Vec::new();
    let (mut equal, mut skipped) = (0, 0);
    for (name, o) in outcomes.into_inner().unwrap() {
        let not_yet = NOT_YET.iter().find(|n| n.0 == name);
        let differs = DIFFERS.iter().any(|d| d.0 == name);
        match (o, not_yet) {
            (Outcome::NoHeaders, _) => {
                println!("{name}: skipped: the CUDA toolkit headers are not installed");
                skipped += 1;
            }
            (Outcome::Refused(err), Some((_, frag, _))) if err.contains(frag) => {}
            (Outcome::Refused(err), _) => problems.push(format!("{name} is refused: {err}")),
            (_, Some(_)) => problems.push(format!("{name} runs now: take it off NOT_YET")),
            (Outcome::Equal, None) if differs => {
                problems.push(format!("{name} equals the H200 now: take it off DIFFERS"))
            }
            (Outcome::Equal, None) => equal += 1,
            (Outcome::Differs(_), None) if differs => {}
            (Outcome::Differs(d), None) => problems.push(format!("{name}: {d}")),
        }
    }
    println!(
        "zoo: {equal} of 25 equal the H200 on all nine counters; {} refused, {} differ (listed), \
         {skipped} skipped",
        NOT_YET.len(),
        DIFFERS.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The CUDA samples' `reduce6` shuffles from lanes outside its member mask (its last warp's
/// offsets start at 16 for 8 members): undefined in CUDA, 0 on the H200 (spec S of
/// calibration/probes/cuda_coverage), and what warpsim gives, so the sum verifies — with a
/// warning at the shuffle's line saying so. `reduce3`, without such shuffles, warns of
/// nothing.
#[test]
fn a_shuffle_from_outside_its_mask_is_a_warning_at_its_line() {
    if !nvrtc("a_shuffle_from_outside_its_mask_is_a_warning_at_its_line") {
        return;
    }
    let r = crate::util::run_verified("programs/cuda/zoo/reduce6_i32.ron", &[]);
    let w = r["warnings"].as_array().expect("a warnings list");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0]["line"], 94, "{w:?}");
    let m = w[0]["message"].as_str().unwrap();
    assert!(
        m.contains("does not execute it") && m.contains("gives 0, as the H200"),
        "{m}"
    );
    assert!(
        w[0]["text"].as_str().unwrap().contains("__shfl_down_sync"),
        "{w:?}"
    );
    let r = crate::util::run_verified("programs/cuda/zoo/reduce3_f32.ron", &[]);
    assert!(r.get("warnings").is_none(), "{}", r["warnings"]);
}
