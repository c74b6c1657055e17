//! The classic kernels (calibration/draws/classic/classic.cu) through the PTX front end, against the
//! H200: NVRTC's PTX (programs/cuda/classic.ptx, launch files programs/cuda/classic/) and
//! nvcc's own PTX of the measured build (tests/fixtures/h200/classic/classic.ptx, CUDA 13.0), each
//! launch's six shared counters against tests/fixtures/h200/classic_kernels.tsv.

use crate::util::{root, warpsim, LD_ST_COUNTERS as COUNTERS};

/// Kernels whose references cost O(n) per element: verified in `classic_ptx_runs_verified`
/// only where cheap.
const SLOW_REFERENCE: &[&str] = &["nbody_tile", "softmax_row"];

/// (kernel, the six measured counters).
fn measured() -> Vec<(String, Vec<u64>)> {
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/h200/classic_kernels.tsv"))
        .expect("classic_kernels.tsv");
    tsv.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (
                f[0].to_owned(),
                f[1..7].iter().map(|v| v.parse().unwrap()).collect(),
            )
        })
        .collect()
}

/// Runs a launch file; gives its six counters and whether it verified.
pub fn counters(path: &str, extra: &[&str]) -> (Vec<u64>, serde_json::Value) {
    let out = warpsim()
        .args(["run", path, "--format", "json", "--no-timing"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{path}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = COUNTERS
        .iter()
        .map(|k| r["shared"][k].as_u64().unwrap())
        .collect();
    (got, r)
}

/// The launch file of `kernel` with its PTX replaced by nvcc's (a copy in a temporary folder).
fn nvcc_launch(kernel: &str) -> String {
    let text = std::fs::read_to_string(root().join(format!("programs/cuda/classic/{kernel}.ron")))
        .unwrap();
    let ptx = root().join("tests/fixtures/h200/classic/classic.ptx");
    let text = text.replace(
        "\"../classic.ptx\"",
        &format!("{:?}", ptx.to_str().unwrap()),
    );
    let dir = std::env::temp_dir().join(format!("warpsim-ptx-classic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{kernel}.ron"));
    std::fs::write(&path, text).unwrap();
    path.to_string_lossy().into_owned()
}

/// Kernels where nvcc merged shared accesses (LDS.64/LDS.128/STS.64 in
/// calibration/draws/classic/raw/classic.sass.gz): with `--no-merge` their counters differ.
const MERGED_BY_PTXAS: &[&str] = &[
    "reduce_shfl",
    "scan_blelloch",
    "bitonic_sort_shared",
    "radix_split4",
];

/// Where NVRTC 12.6's PTX is not nvcc 13.0's (the H200 ran nvcc's): `scan_blelloch_cf` keeps
/// a reload in each of three down-sweep steps that nvcc 13's NVVM drops (it proves the two
/// addresses distinct with 32-bit shared pointers); `scan_blelloch` reaches `temp[a]` and
/// `temp[b]` of the first step through two registers, which ptxas does not pair (its SASS of
/// this PTX has two LDS where nvcc's build has one LDS.64).
const NVRTC_DIFFERS: &[&str] = &["scan_blelloch", "scan_blelloch_cf"];

/// Every launch, both PTX streams, with the merge model (the default) and without.
#[test]
fn classic_ptx_matches_the_h200() {
    let rows = measured();
    assert_eq!(rows.len(), 10, "ten measured classic kernels");
    let mut equal = Vec::new();
    for (kernel, want) in &rows {
        let k = kernel.as_str();
        for (stream, path) in [
            ("nvrtc", format!("programs/cuda/classic/{kernel}.ron")),
            ("nvcc", nvcc_launch(kernel)),
        ] {
            let off = stream == "nvrtc" && NVRTC_DIFFERS.contains(&k);
            let (got, r) = counters(&path, &["--no-verify"]);
            assert_eq!(r["shared_stream"], "ptxas-merged");
            if off {
                assert_ne!(&got, want, "{kernel} ({stream}) now equals the H200");
            } else {
                assert_eq!(&got, want, "{kernel} ({stream})");
                equal.push(format!("{kernel}/{stream}"));
            }
            // Without the model: different exactly where nvcc merged.
            let (raw, r) = counters(&path, &["--no-verify", "--no-merge"]);
            assert_eq!(r["shared_stream"], "as-written");
            if MERGED_BY_PTXAS.contains(&k) {
                assert_ne!(&raw, want, "{kernel} ({stream}, --no-merge)");
            } else if !off {
                assert_eq!(&raw, want, "{kernel} ({stream}, --no-merge)");
            }
        }
    }
    assert_eq!(equal.len(), 18, "{equal:?}");
}

#[test]
fn classic_ptx_runs_verified() {
    for (kernel, _) in measured() {
        if SLOW_REFERENCE.contains(&kernel.as_str()) {
            continue;
        }
        let (_, r) = counters(&format!("programs/cuda/classic/{kernel}.ron"), &[]);
        assert_eq!(r["verified"], true, "{kernel}: {}", r["verification"]);
    }
}
