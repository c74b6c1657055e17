//! CUDA source through NVRTC (`cuda:` launches): the H200 reference kernels from
//! programs/cuda/kernels.cu give the measured counters, `macros` recompile, the PTX cache is
//! used, `check --code` shows the `.cu` lines, and every error exits 2 with its place.
//!
//! The tests that compile need libnvrtc (`pip install nvidia-cuda-nvrtc-cu12`, or
//! WARPSIM_NVRTC); without it they print "skipped: NVRTC not found" and pass. The errors found
//! before NVRTC is needed (arguments, kernel names) and the missing-NVRTC error always run.

use crate::util::{root, warpsim, LD_ST_COUNTERS as COUNTERS, SHARED_COUNTERS};
use std::path::PathBuf;
use std::process::{Command, Output};

/// A fresh PTX cache folder for one test (under cargo's temporary folder for tests).
pub(crate) fn cache(test: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("nvrtc-cache-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// `warpsim ARGS` with the PTX cache in `dir`, plain output.
pub(crate) fn ws(dir: &PathBuf, args: &[&str]) -> Output {
    let mut c: Command = warpsim();
    c.args(args)
        .env("WARPSIM_CACHE", dir)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Whether NVRTC can be found; prints "skipped: NVRTC not found" when not.
pub(crate) fn nvrtc(test: &str) -> bool {
    let out = ws(
        &cache(&format!("{test}-probe")),
        &["check", "programs/cuda/transpose_n1024_tile32x32.cu.ron"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("NVRTC (libnvrtc)") {
        println!("{test}: skipped: NVRTC not found");
        return false;
    }
    assert!(out.status.success(), "{test}: probe failed: {err}");
    true
}

fn json(out: &Output, what: &str) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every row of kernels.tsv, run from programs/cuda/<row>.cu.ron (kernels.cu through NVRTC):
/// all six counters equal the H200's and the run verifies.
#[test]
fn cuda_reference_kernels_match_the_h200() {
    if !nvrtc("cuda_reference_kernels_match_the_h200") {
        return;
    }
    let dir = cache("reference");
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/h200/kernels.tsv")).unwrap();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let name = f[0];
        let path = format!("programs/cuda/{name}.cu.ron");
        let r = json(
            &ws(&dir, &["run", &path, "--format", "json", "--no-timing"]),
            name,
        );
        let got: Vec<u64> = COUNTERS
            .iter()
            .map(|k| r["shared"][k].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = f[1..7].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(r["verified"], true, "{name}");
        rows += 1;
    }
    assert_eq!(rows, 7);
}

/// A `macros` define is passed to NVRTC as -DPAD=…: each value compiles its own PTX (a
/// cache file each), and the padding changes the conflicts as the bank rule says.
#[test]
fn cuda_macros_recompile_and_the_cache_is_used() {
    if !nvrtc("cuda_macros_recompile_and_the_cache_is_used") {
        return;
    }
    let dir = cache("macros");
    let run = |pad: &str| {
        let out = ws(
            &dir,
            &[
                "run",
                "tests/fixtures/cuda/tpad.ron",
                "--format",
                "json",
                "--no-timing",
                "--define",
                pad,
            ],
        );
        json(&out, pad)
    };
    let files = || {
        let mut v: Vec<(PathBuf, std::time::SystemTime)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap())
            .map(|e| (e.path(), e.metadata().unwrap().modified().unwrap()))
            .collect();
        v.sort();
        v
    };
    let p0 = run("PAD=0");
    assert_eq!(files().len(), 1);
    let p1 = run("PAD=1");
    let after = files();
    assert_eq!(after.len(), 2, "one PTX per value of PAD");
    // 8 warps x 4 column reads: 32-way without padding, conflict-free with one word of it.
    assert_eq!(p0["shared"]["ld_wavefronts"], 32 * 32);
    assert_eq!(p1["shared"]["ld_wavefronts"], 32);
    assert_eq!(p0["verified"], true);
    assert_eq!(p1["verified"], true);
    // Again: served from the cache, nothing rewritten.
    let again = run("PAD=0");
    assert_eq!(again["shared"], p0["shared"]);
    assert_eq!(files(), after);
    // A sweep over PAD recompiles for each value.
    let out = ws(
        &dir,
        &[
            "sweep",
            "tests/fixtures/cuda/tpad.ron",
            "-D",
            "PAD=0..2",
            "--format",
            "json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(files().len(), 3);
}

/// A cache that cannot be written is no error.
#[test]
fn cuda_runs_without_a_writable_cache() {
    if !nvrtc("cuda_runs_without_a_writable_cache") {
        return;
    }
    // A folder inside a file cannot be made.
    let file = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvrtc-cache-a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let r = json(
        &ws(
            &file.join("sub"),
            &[
                "run",
                "tests/fixtures/cuda/reduce.ron",
                "--format",
                "json",
                "--no-timing",
            ],
        ),
        "reduce",
    );
    assert_eq!(r["verified"], true);
}

/// A template kernel by name expression, with dynamic shared memory, verifies.
#[test]
fn cuda_template_by_name_expression() {
    if !nvrtc("cuda_template_by_name_expression") {
        return;
    }
    let r = json(
        &ws(
            &cache("template"),
            &[
                "run",
                "tests/fixtures/cuda/reduce.ron",
                "--format",
                "json",
                "--no-timing",
            ],
        ),
        "reduce",
    );
    assert_eq!(r["verified"], true);
    assert!(r["shared"]["ld_instructions"].as_u64().unwrap() > 0);
}

/// `check --code` lists the lowered code with the `.cu` lines and the PTX beside them; report
/// rows point at kernels.cu.
#[test]
fn cuda_check_code_and_reports_show_cu_lines() {
    if !nvrtc("cuda_check_code_and_reports_show_cu_lines") {
        return;
    }
    let dir = cache("code");
    let path = "programs/cuda/transpose_n1024_tile32x33.cu.ron";
    let out = ws(&dir, &["check", "--code", path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    let cu = std::fs::read_to_string(root().join("programs/cuda/kernels.cu")).unwrap();
    let (n, store) = cu
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("tile[r][SWZ ? (c ^ r) : c] = in["))
        .unwrap();
    let row = text
        .lines()
        .find(|l| l.contains("st.shared") || l.contains("st.volatile.shared"))
        .unwrap_or_else(|| panic!("no shared store in {text}"));
    assert!(row.contains(&format!("line {}", n + 1)), "{row}");
    assert!(row.contains(store.trim()), "{row}");
    let r = json(
        &ws(&dir, &["run", path, "--format", "json", "--no-timing"]),
        path,
    );
    assert!(
        r["file"].as_str().unwrap().ends_with("kernels.cu"),
        "{}",
        r["file"]
    );
    let st = r["per_instruction"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["space"] == "shared" && i["op"] == "st")
        .unwrap();
    assert_eq!(st["line"], n + 1);
}

/// Each error exits 2 and says what it is, at its place (the file's first line).
#[test]
fn cuda_errors_exit_2_with_the_reason() {
    let have = nvrtc("cuda_errors_exit_2_with_the_reason");
    let dir = cache("errors");
    // Found before NVRTC is opened: these run everywhere.
    let early = ["no_kernel", "args", "arg_type", "arg_int"];
    for k in [
        "no_kernel",
        "args",
        "arg_type",
        "arg_int",
        "template",
        "device",
        "compile",
        "compile_decl",
        "host",
        "header",
        "in_header",
        "unsupported",
    ] {
        if !have && !early.contains(&k) {
            continue;
        }
        let path = format!("tests/fixtures/cuda/bad_{k}.ron");
        let src = std::fs::read_to_string(root().join(&path)).unwrap();
        let want = src
            .lines()
            .next()
            .unwrap()
            .strip_prefix("// expect: ")
            .unwrap();
        let out = ws(&dir, &["run", &path]);
        assert_eq!(out.status.code(), Some(2), "{k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{k}: {err}");
        // Always a file:line:col: the launch file's, the .cu's or the PTX's.
        assert!(
            err.contains(&format!("bad_{k}.ron:10:"))
                || err.contains(".cu:")
                || err.contains(".cuh:"),
            "{k}: {err}"
        );
    }
    if have {
        // The host-code error says how to guard it, at the #include line.
        let out = ws(&dir, &["run", "tests/fixtures/cuda/bad_host.ron"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("host.cu:2:"), "{err}");
        assert!(err.contains("#ifndef __CUDACC_RTC__"), "{err}");
        // The unsupported instruction: its PTX line, and the .cu line it came from.
        let out = ws(&dir, &["run", "tests/fixtures/cuda/bad_unsupported.ron"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(".ptx:"), "{err}");
        assert!(err.contains("k.cu:"), "{err}");
        assert!(err.contains("pmevent"), "{err}");
        assert!(err.contains("docs/src/ptx-coverage.md"), "{err}");
    }
}

/// WARPSIM_NVRTC naming a missing file: exit 2, how to install NVRTC, at the launch.
#[test]
fn cuda_without_nvrtc_says_how_to_install_it() {
    let out = warpsim()
        .args(["run", "programs/cuda/transpose_n1024_tile32x32.cu.ron"])
        .env("WARPSIM_NVRTC", "/nonexistent/libnvrtc.so.12")
        .env("WARPSIM_CACHE", cache("missing"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("transpose_n1024_tile32x32.cu.ron:"), "{err}");
    assert!(
        err.contains("WARPSIM_NVRTC=/nonexistent/libnvrtc.so.12"),
        "{err}"
    );
    assert!(err.contains("pip install nvidia-cuda-nvrtc-cu12"), "{err}");
}

/// The classic kernels (tests/fixtures/h200/classic/classic.cu) as `cuda:` launches: each loads, and
/// NVRTC's PTX at run time is the checked-in programs/cuda/classic.ptx (made by
/// calibration/probes/ptxas_streams/nvrtc_ptx.py with the same options), so its counters are those of
/// tests/ptx_classic.rs.
#[test]
fn cuda_classic_kernels_compile_to_the_checked_in_ptx() {
    if !nvrtc("cuda_classic_kernels_compile_to_the_checked_in_ptx") {
        return;
    }
    let dir = cache("classic");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvrtc-classic");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("classic")).unwrap();
    std::fs::copy(
        root().join("tests/fixtures/h200/classic/classic.cu"),
        tmp.join("classic.cu"),
    )
    .unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(root().join("programs/cuda/classic")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "ron") {
            continue;
        }
        let ron = std::fs::read_to_string(&p).unwrap().replace(
            "ptx: (file: \"../classic.ptx\"",
            "cuda: (file: \"../classic.cu\"",
        );
        assert!(ron.contains("cuda: ("), "{}", p.display());
        let launch = tmp.join("classic").join(p.file_name().unwrap());
        std::fs::write(&launch, ron).unwrap();
        let out = ws(&dir, &["check", launch.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}: {}",
            p.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        n += 1;
    }
    assert!(n >= 10);
    // One compilation per kernel (the name expression is part of the key), each the same
    // PTX: the kernels are extern "C", so no name expression instantiates anything.
    let no_file = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.trim_start().starts_with(".file"))
            .map(str::to_owned)
            .collect()
    };
    let want = no_file(&std::fs::read_to_string(root().join("programs/cuda/classic.ptx")).unwrap());
    let cached: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!cached.is_empty());
    for c in cached {
        // Less the cache file's two header lines.
        let text = std::fs::read_to_string(&c).unwrap();
        let got = no_file(text.splitn(3, '\n').nth(2).unwrap());
        assert!(got == want, "{} differs from classic.ptx", c.display());
    }
}

/// `advise` on a kernel's arrays (a `ptx:` launch, which needs no NVRTC; a `cuda:` one takes
/// the same path): the transpose's tile priced in other byte layouts finds the XOR swizzle of
/// 4-byte chunks and the one-word padding, and the kernel written with that swizzle
/// (`transpose<1,..>` of kernels.cu) has the conflicts the advice predicted: none. The results
/// are the kernel's own in every layout (none failed verification); `run --relayout` shows one
/// layout in full. `--max-pad` is refused.
#[test]
fn advise_prices_a_kernels_arrays_in_other_layouts() {
    let dir = cache("advise");
    let out = ws(
        &dir,
        &[
            "advise",
            "programs/cuda/transpose_n1024_tile32x32.ron",
            "-D",
            "N=256",
        ],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(
            "tile: Swizzle<5,2,5> (byte offset o at o ^ ((o >> 5) & 0x7c)) → bank conflicts \
             63,488 → 0"
        ),
        "{text}"
    );
    assert!(text.contains("tile: pad 4 bytes every 128 (byte offset o at o + o / 128 * 4) → bank conflicts 63,488 → 0"), "{text}");
    assert!(!text.contains("failed verification"), "{text}");
    let out = ws(
        &dir,
        &[
            "run",
            "programs/cuda/transpose_n1024_tile32x32_xor.ron",
            "-D",
            "N=256",
            "--no-timing",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["shared"]["ld_bank_conflicts"], 0);
    assert_eq!(j["shared"]["st_bank_conflicts"], 0);
    // `run --relayout` shows one advised layout in full: none of the conflicts, results the
    // kernel's own; an array the program lacks is refused, naming the ones it has.
    let out = ws(
        &dir,
        &[
            "run",
            "programs/cuda/transpose_n1024_tile32x32.ron",
            "-D",
            "N=256",
            "--relayout",
            "tile=Swizzle<5,2,5>",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["relayout"], "tile=Swizzle<5,2,5>");
    assert_eq!(j["verified"], true);
    assert_eq!(j["shared"]["ld_bank_conflicts"], 0);
    let out = ws(
        &dir,
        &[
            "run",
            "programs/cuda/transpose_n1024_tile32x32.ron",
            "--relayout",
            "tiles=pad 4 bytes every 128",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no shared array `tiles`") && err.contains("`tile`"),
        "{err}"
    );
    let out = ws(
        &dir,
        &[
            "advise",
            "programs/cuda/classic/scan_blelloch.ron",
            "--max-pad",
            "3",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("leave --max-pad out"), "{err}");
}

/// Whether NVRTC finds the CUDA toolkit's headers (cuda_fp16.h, from the pip wheel
/// nvidia-cuda-runtime-cu12 beside libnvrtc or WARPSIM_CUDA_INCLUDE); prints "skipped" when
/// not.
fn toolkit_headers(test: &str, dir: &PathBuf) -> bool {
    let out = ws(dir, &["check", "programs/cuda/fp16/hgemm_tile.ron"]);
    let err = String::from_utf8_lossy(&out.stderr);
    if err.contains("cannot find the CUDA toolkit header") {
        println!("{test}: skipped: the CUDA toolkit headers (nvidia-cuda-runtime-cu12) not found");
        return false;
    }
    assert!(out.status.success(), "{test}: {err}");
    true
}

/// The half-precision kernels of calibration/draws/histogram_fp16/fp16.cu, compiled as they are (with
/// cuda_fp16.h) from programs/cuda/fp16/: all nine shared counters equal the H200's
/// (tests/fixtures/h200/kernels2.tsv) and the runs verify. Without ptxas's merging of the
/// four 2-byte loads of a row of `As` into one `LDS.64` (`--no-merge`) the loads differ.
#[test]
fn cuda_half_kernels_match_the_h200() {
    let test = "cuda_half_kernels_match_the_h200";
    let dir = cache("fp16");
    if !nvrtc(test) || !toolkit_headers(test, &dir) {
        return;
    }
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/h200/kernels2.tsv")).unwrap();
    let mut rows = 0;
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if !f[0].starts_with("hgemm") {
            continue;
        }
        let path = format!("programs/cuda/fp16/{}.ron", f[0]);
        let r = json(
            &ws(&dir, &["run", &path, "--format", "json", "--no-timing"]),
            f[0],
        );
        let got: Vec<u64> = SHARED_COUNTERS
            .iter()
            .map(|k| r["shared"][k].as_u64().unwrap())
            .collect();
        let want: Vec<u64> = f[3..12].iter().map(|v| v.parse().unwrap()).collect();
        assert_eq!(got, want, "{}: {SHARED_COUNTERS:?}", f[0]);
        assert_eq!(r["verified"], true, "{}: {}", f[0], r["verification"]);
        let unmerged = json(
            &ws(
                &dir,
                &[
                    "run",
                    &path,
                    "--format",
                    "json",
                    "--no-timing",
                    "--no-merge",
                ],
            ),
            f[0],
        );
        // 16 + 16 two-byte loads per tile instead of 4 + 16.
        assert_eq!(
            unmerged["shared"]["ld_instructions"].as_u64(),
            Some(want[2] / 20 * 32),
            "{}",
            f[0]
        );
        rows += 1;
    }
    assert_eq!(rows, 2);
}

/// A toolkit header NVRTC cannot find (WARPSIM_CUDA_INCLUDE pointing at an empty folder):
/// exit 2 at the `#include` line, with how to install the headers.
#[test]
fn cuda_missing_toolkit_header_says_how_to_install_it() {
    let test = "cuda_missing_toolkit_header_says_how_to_install_it";
    if !nvrtc(test) {
        return;
    }
    let empty = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-cuda-headers");
    std::fs::create_dir_all(&empty).unwrap();
    let out = warpsim()
        .args(["check", "programs/cuda/fp16/hgemm_tile.ron"])
        .env("WARPSIM_CACHE", cache("no-headers"))
        .env("WARPSIM_CUDA_INCLUDE", &empty)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "fp16.cu:7:",
        "NVRTC cannot find the CUDA toolkit header `cuda_fp16.h`",
        "WARPSIM_CUDA_INCLUDE=",
        "pip install nvidia-cuda-runtime-cu12==12.6.77",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
}

/// C of both half kernels compiled from fp16.cu equals the H200's bit for bit (the dumps of
/// calibration/draws/histogram_fp16/run.sh, as `kernels2::half_kernels_equal_the_h200_bit_for_bit` holds
/// their RON ports to): every `__hfma`, conversion and 2-byte access of NVRTC's PTX as CUDA
/// does it. In this process (the buffers are read back), with its own PTX cache.
#[test]
fn cuda_half_kernels_equal_the_h200_bit_for_bit() {
    let test = "cuda_half_kernels_equal_the_h200_bit_for_bit";
    let dir = cache("fp16-bits");
    if !nvrtc(test) || !toolkit_headers(test, &dir) {
        return;
    }
    // (Rust's std serialises environment access; the subprocesses of other tests that use a
    // cache set their own.)
    std::env::set_var("WARPSIM_CACHE", &dir);
    for k in ["hgemm_tile", "hgemm_tile_h"] {
        let want = std::fs::read(
            root().join(format!("tests/fixtures/h200/histogram_fp16/dump/{k}_c.bin")),
        )
        .unwrap();
        let got = crate::kernels2::final_bytes(&format!("cuda/fp16/{k}.ron"), "C");
        assert_eq!(got.len(), want.len(), "{k}: C's size");
        let differ = (0..want.len() / 2)
            .filter(|&i| got[2 * i..2 * i + 2] != want[2 * i..2 * i + 2])
            .count();
        assert_eq!(differ, 0, "{k}: halves of C that differ from the H200's");
    }
}

/// CCCL's headers (`nv/target`, which cooperative_groups.h includes) missing: exit 2 at the
/// `#include` line, with how to install them. WARPSIM_CUDA_INCLUDE names the toolkit headers of
/// the wheel beside WARPSIM_NVRTC and an empty folder (two folders: nothing else is searched).
#[test]
fn cuda_missing_cccl_header_says_how_to_install_it() {
    let test = "cuda_missing_cccl_header_says_how_to_install_it";
    let runtime = std::env::var_os("WARPSIM_NVRTC")
        .map(PathBuf::from)
        .and_then(|lib| {
            Some(
                lib.parent()?
                    .parent()?
                    .parent()?
                    .join("cuda_runtime/include"),
            )
        })
        .filter(|d| d.join("cooperative_groups.h").is_file());
    let Some(runtime) = runtime.filter(|_| nvrtc(test)) else {
        println!("{test}: skipped: no toolkit headers beside WARPSIM_NVRTC");
        return;
    };
    let empty = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-cccl-headers");
    std::fs::create_dir_all(&empty).unwrap();
    let out = warpsim()
        .args(["check", "programs/cuda/zoo/cg_reduce.ron"])
        .env("WARPSIM_CACHE", cache("no-cccl"))
        .env(
            "WARPSIM_CUDA_INCLUDE",
            std::env::join_paths([runtime, empty]).unwrap(),
        )
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    for want in [
        "NVRTC cannot find CCCL's header `nv/target`",
        "pip install nvidia-cuda-cccl-cu12==12.6.77",
    ] {
        assert!(err.contains(want), "{want}: {err}");
    }
}

/// Local memory through NVRTC (tests/fixtures/cuda/local.cu): zoo.cu's `local_array` (an int
/// a[16] indexed at run time) and `a[threadIdx.x % 8] += 1` on a float a[8] run verified,
/// with timing, their `ld.local`/`st.local` reported as local accesses.
#[test]
fn cuda_local_arrays_run_verified() {
    if !nvrtc("cuda_local_arrays_run_verified") {
        return;
    }
    for k in ["local_array", "local_floats"] {
        let out = ws(
            &cache("local"),
            &[
                "run",
                &format!("tests/fixtures/cuda/{k}.ron"),
                "--format",
                "json",
            ],
        );
        let r = json(&out, k);
        assert_eq!(r["verified"], true, "{k}: {}", r["verification"]);
        let local = r["per_instruction"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["space"] == "local")
            .count();
        assert!(local >= 3, "{k}: {local} local accesses");
        assert!(r["timing"]["elapsed_cycles"].as_u64().unwrap() > 0, "{k}");
    }
}
