//! The whole command, end to end: `warpsim run` as a user types it, next to a plain Rust
//! program doing the same work, each a process of its own.
//!
//! `cargo bench --bench e2e` (a few minutes; `-- transpose` runs only the commands whose
//! label contains `transpose`). For each command of issue #39's table it alternates, round
//! by round, the `warpsim` binary (the one this bench was built with, `--format json`, output
//! discarded) and this bench binary started again as the *native* program, and prints the
//! medians of wall time and peak memory and the ratio of the medians. The native program
//! fills its inputs with the same random floats as `Random(seed)` (SplitMix64), does the
//! kernel's work tiled as the kernel does (32 × 33 tiles for the transpose, 32 × 32 tiles of
//! A and B for the matmul, products added in the kernel's order), and checks every output as
//! `expect` does (the transpose exactly, the matmul against an `f64` dot product within
//! `tolerance · max(1, max |want|)`).
//!
//! Environment: `WARPSIM_E2E_BIN` (another `warpsim` binary to measure, such as an older
//! build copied aside), `WARPSIM_E2E_ROUNDS` (default 5), `WARPSIM_E2E_THREADS` (default `1`; a
//! comma-separated list such as `1,2` measures each count; the native program is always one
//! thread). Under `cargo test --benches` only a short check runs (small sizes, each native
//! program's check passes, and `warpsim run` verifies).
//!
//! The warpsim column also gives the median of what its JSON report says the run spent in
//! filling the buffers, running the grid and verifying (`emulator.init_seconds`, `seconds`,
//! `verify_seconds`): where the rest of the gap lies.

use std::process::{Command, Stdio};
use std::time::Instant;

/// One command of the table.
struct Case {
    label: &'static str,
    /// `warpsim run` arguments after the program.
    args: &'static [&'static str],
    program: &'static str,
    /// The native counterpart: `transpose` or `matmul`, and N.
    native: (&'static str, usize),
}

const CASES: &[Case] = &[
    Case {
        label: "transpose N=4096 PAD=1 (default)",
        program: "programs/transpose.ron",
        args: &["-D", "N=4096", "-D", "PAD=1"],
        native: ("transpose", 4096),
    },
    Case {
        label: "transpose N=4096 PAD=0",
        program: "programs/transpose.ron",
        args: &["-D", "N=4096", "-D", "PAD=0"],
        native: ("transpose", 4096),
    },
    Case {
        label: "transpose N=4096 PAD=1 --sample 1",
        program: "programs/transpose.ron",
        args: &["-D", "N=4096", "-D", "PAD=1", "--sample", "1"],
        native: ("transpose", 4096),
    },
    Case {
        label: "transpose N=4096 PAD=1 --no-timing",
        program: "programs/transpose.ron",
        args: &["-D", "N=4096", "-D", "PAD=1", "--no-timing"],
        native: ("transpose", 4096),
    },
    Case {
        label: "matmul N=512 (default)",
        program: "programs/matmul.ron",
        args: &["-D", "N=512"],
        native: ("matmul", 512),
    },
    Case {
        label: "matmul N=512 --no-timing",
        program: "programs/matmul.ron",
        args: &["-D", "N=512", "--no-timing"],
        native: ("matmul", 512),
    },
];

// ---- the native programs -------------------------------------------------------------------

const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// `Random(seed)` for f32 elements, as `warpsim_exec::init_words` fills them.
fn random_f32(seed: u64, len: usize) -> Vec<f32> {
    (0..len as u64)
        .map(|i| {
            let mut z = seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GAMMA));
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            let h = z ^ (z >> 31);
            (h >> 40) as f32 * (1.0 / (1u32 << 23) as f32) - 1.0
        })
        .collect()
}

/// Fills, transposes through a 32 × 33 tile as the kernel's blocks do, checks every element;
/// returns the mismatches.
fn native_transpose(n: usize) -> usize {
    let inp = random_f32(1, n * n);
    let mut out = vec![0f32; n * n];
    let mut tile = [[0f32; 33]; 32];
    for by in 0..n / 32 {
        for bx in 0..n / 32 {
            for (ty, row) in tile.iter_mut().enumerate() {
                row[..32].copy_from_slice(&inp[(by * 32 + ty) * n + bx * 32..][..32]);
            }
            for ty in 0..32 {
                let dst = &mut out[(bx * 32 + ty) * n + by * 32..][..32];
                for (tx, d) in dst.iter_mut().enumerate() {
                    *d = tile[tx][ty];
                }
            }
        }
    }
    // expect: "inp[(i % N) * N + i / N]"
    (0..n * n)
        .filter(|&i| out[i].to_bits() != inp[(i % n) * n + i / n].to_bits())
        .count()
}

/// Fills A and B, multiplies them in 32 × 32 tiles as the kernel's blocks do (each element's
/// products added in increasing k, in f32), and checks every element against the f64 dot
/// product within the default tolerance; returns the mismatches.
fn native_matmul(n: usize) -> usize {
    const T: usize = 32;
    let a = random_f32(1, n * n);
    let b = random_f32(2, n * n);
    let mut c = vec![0f32; n * n];
    let (mut at, mut bt) = ([[0f32; T]; T], [[0f32; T]; T]);
    for by in 0..n / T {
        for bx in 0..n / T {
            let mut acc = [[0f32; T]; T];
            for t in 0..n / T {
                for i in 0..T {
                    at[i].copy_from_slice(&a[(by * T + i) * n + t * T..][..T]);
                    bt[i].copy_from_slice(&b[(t * T + i) * n + bx * T..][..T]);
                }
                for (ty, acc_row) in acc.iter_mut().enumerate() {
                    for k in 0..T {
                        let x = at[ty][k];
                        for (c, &y) in acc_row.iter_mut().zip(&bt[k]) {
                            *c += x * y;
                        }
                    }
                }
            }
            for (ty, acc_row) in acc.iter().enumerate() {
                c[(by * T + ty) * n + bx * T..][..T].copy_from_slice(acc_row);
            }
        }
    }
    // expect: "sum(k, 0, N, A[(i / N) * N + k] * B[k * N + i % N])", in f64, row by row.
    let mut want = vec![0f64; n * n];
    for (r, row) in want.chunks_mut(n).enumerate() {
        for k in 0..n {
            let x = a[r * n + k] as f64;
            for (w, &y) in row.iter_mut().zip(&b[k * n..][..n]) {
                *w += x * y as f64;
            }
        }
    }
    let max = want.iter().fold(1f64, |m, w| m.max(w.abs()));
    let tol = 1e-4 * max;
    c.iter()
        .zip(&want)
        .filter(|(&g, &w)| (g as f64 - w).abs() > tol)
        .count()
}

fn native(kind: &str, n: usize) -> usize {
    match kind {
        "transpose" => native_transpose(n),
        _ => native_matmul(n),
    }
}

// ---- measuring processes -------------------------------------------------------------------

/// Wall seconds and peak resident memory (MiB) of a child process run to the end; fails on
/// a non-zero exit.
// The child is reaped by `wait4` below (for its rusage), which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn measure(mut cmd: Command) -> (f64, f64, String) {
    cmd.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let t = Instant::now();
    let child = cmd.spawn().expect("start the process");
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.expect("stdout");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut out).expect("read its output");
    let mut status = 0;
    // SAFETY: rusage is plain data; wait4 fills it for our own child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = t.elapsed().as_secs_f64();
    assert!(
        r == pid && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed (status {status})"
    );
    (wall, ru.ru_maxrss as f64 / 1024.0, out)
}

fn warpsim_cmd(case: &Case, threads: usize) -> Command {
    let bin =
        std::env::var_os("WARPSIM_E2E_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_warpsim").into());
    let mut cmd = Command::new(bin);
    cmd.current_dir(warpsim_testkit::path(""))
        .env("RAYON_NUM_THREADS", threads.to_string())
        .args(["run", case.program])
        .args(case.args)
        .args(["--format", "json"]);
    cmd
}

fn native_cmd(case: &Case) -> Command {
    let mut cmd = Command::new(std::env::current_exe().expect("this bench's path"));
    cmd.env(
        "WARPSIM_E2E_NATIVE",
        format!("{}:{}", case.native.0, case.native.1),
    );
    cmd
}

/// `emulator.{init_seconds, seconds, verify_seconds}` of a JSON report.
fn phases(json: &str) -> [f64; 3] {
    let v: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    let e = &v["emulator"];
    ["init_seconds", "seconds", "verify_seconds"].map(|k| e[k].as_f64().unwrap_or(f64::NAN))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    // Started again as the native program.
    if let Ok(spec) = std::env::var("WARPSIM_E2E_NATIVE") {
        let (kind, n) = spec.split_once(':').expect("kind:n");
        let bad = native(kind, n.parse().expect("n"));
        println!("{bad}");
        std::process::exit(if bad == 0 { 0 } else { 1 });
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --benches`: the native programs check, and so does one small run.
        assert_eq!(native_transpose(256), 0);
        assert_eq!(native_matmul(64), 0);
        let case = Case {
            label: "small",
            program: "programs/matmul.ron",
            args: &["-D", "N=64"],
            native: ("matmul", 64),
        };
        let (_, _, out) = measure(warpsim_cmd(&case, 1));
        let v: serde_json::Value = serde_json::from_str(&out).expect("a JSON report");
        assert_eq!(v["verified"], serde_json::Value::Bool(true), "{out}");
        let (_, _, out) = measure(native_cmd(&case));
        assert_eq!(out.trim(), "0");
        println!("(end-to-end ratios: run `cargo bench --bench e2e`)");
        return;
    }
    let filter: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let rounds: usize = env_or("WARPSIM_E2E_ROUNDS", 5);
    let threads: Vec<usize> = std::env::var("WARPSIM_E2E_THREADS")
        .unwrap_or_else(|_| "1".into())
        .split(',')
        .filter_map(|t| t.trim().parse().ok())
        .collect();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!(
        "end to end: medians of {rounds} alternating rounds on {cores} cores; warpsim on \
         RAYON_NUM_THREADS = {threads:?}, native on one thread"
    );
    println!(
        "{:<40} {:>9} {:>9} {:>7} {:>8} {:>8}   warpsim init / grid / verify (s)",
        "command", "warpsim s", "native s", "ratio", "w MiB", "n MiB"
    );
    for case in CASES {
        if !filter.is_empty() && !filter.iter().any(|f| case.label.contains(f.as_str())) {
            continue;
        }
        for &t in &threads {
            let (mut w, mut n, mut wm, mut nm) = (vec![], vec![], vec![], vec![]);
            let mut ph: [Vec<f64>; 3] = Default::default();
            for _ in 0..rounds {
                let (wall, mib, out) = measure(warpsim_cmd(case, t));
                w.push(wall);
                wm.push(mib);
                for (v, p) in ph.iter_mut().zip(phases(&out)) {
                    v.push(p);
                }
                let (wall, mib, _) = measure(native_cmd(case));
                n.push(wall);
                nm.push(mib);
            }
            let (w, n) = (median(w), median(n));
            let [pi, pg, pv] = ph.map(median);
            let label = if threads.len() > 1 {
                format!("{} [{t} thr]", case.label)
            } else {
                case.label.to_string()
            };
            println!(
                "{label:<40} {w:>9.3} {n:>9.3} {:>6.1}x {:>8.0} {:>8.0}   {pi:.3} / {pg:.3} / {pv:.3}",
                w / n,
                median(wm),
                median(nm)
            );
        }
    }
}
