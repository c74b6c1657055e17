//! What the timing model costs: `warpsim run` with timing on next to `--no-timing`.
//!
//! `cargo bench --bench timing`: criterion groups `timing on` and `timing off` for
//! `programs/transpose.ron` N=4096 PAD=1 and `programs/matmul.ron` N=512 TILE=32, each a whole
//! [`warpsim_runner::run`] without verification on the global rayon pool; then, for those and
//! the transpose with PAD=0 (whose bank conflicts make the model run its conflict-free pass
//! too), the two runs alternate, three rounds, and the medians give the ratio timing on /
//! timing off it prints (the one to read on a shared, noisy machine). Timing on is as `warpsim
//! run` has it: the transposes of N=4096 are sampled by default (README, "Sampled timing"), so
//! they also run with every block (`--sample 1`) and with `--sample 4` in the same rounds,
//! and off and on (as run has it) with verification, `warpsim run`'s default: each ratio is
//! against the run without timing of the same verification. Under `cargo test --benches` only a
//! small check runs (the two reports agree on every functional number).

use criterion::{BenchmarkId, Criterion};
use std::time::{Duration, Instant};
use warpsim_kernel::Program;
use warpsim_lang::Options;
use warpsim_runner::{run, RunOptions};

fn load(file: &str, defines: &[(&str, i64)]) -> Program {
    let path = warpsim_testkit::path(&format!("programs/{file}"));
    let path = path.to_string_lossy();
    let opts = Options {
        defines: defines.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
        ..Options::default()
    };
    warpsim_lang::load_file(&path, &opts).unwrap_or_else(|e| panic!("{path}: {}", e.message))
}

/// Timing on as `warpsim run` has it (sampled if the grid is large), or off.
fn options(timing: bool) -> RunOptions {
    sampled(timing.then_some(None))
}

/// Timing off (`None`) or on with `--sample` (`Some(None)`: auto; `Some(Some(1))`: every
/// block), without verification.
fn sampled(k: Option<Option<u32>>) -> RunOptions {
    verified(k, false)
}

/// As [`sampled`], with verification (as `warpsim run` has it) if `verify`.
fn verified(k: Option<Option<u32>>, verify: bool) -> RunOptions {
    let mut o = RunOptions {
        verify,
        ..RunOptions::default()
    };
    match (&mut o.timing, k) {
        (Some(t), Some(k)) => t.sample = k,
        _ => o.timing = None,
    }
    o
}

/// Runs `prog` once (verified if `verify`); returns the wall-clock seconds.
fn once(prog: &Program, k: Option<Option<u32>>, verify: bool) -> f64 {
    let t = Instant::now();
    let r = run(prog, &verified(k, verify)).expect("runs");
    assert_eq!(r.timing.is_some(), k.is_some());
    t.elapsed().as_secs_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    if !bench {
        // A quick check: timing changes no functional number.
        let p = load("transpose.ron", &[("N", 256)]);
        let on = run(&p, &options(true)).expect("runs");
        let off = run(&p, &options(false)).expect("runs");
        assert_eq!(on.shared.wavefronts(), off.shared.wavefronts());
        assert_eq!(on.shared.bank_conflicts(), off.shared.bank_conflicts());
        assert!(on.timing.is_some_and(|t| t.elapsed_cycles > 0));
        return;
    }
    let kernels = [
        (
            "transpose N=4096 PAD=1",
            load("transpose.ron", &[("N", 4096), ("PAD", 1)]),
        ),
        (
            "transpose N=4096 PAD=0",
            load("transpose.ron", &[("N", 4096), ("PAD", 0)]),
        ),
        (
            "matmul N=512 TILE=32",
            load("matmul.ron", &[("N", 512), ("TILE", 32)]),
        ),
    ];
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    for (label, timing) in [("timing off", false), ("timing on", true)] {
        let mut group = c.benchmark_group(label);
        for (name, p) in kernels.iter().filter(|(n, _)| !n.ends_with("PAD=0")) {
            group.bench_function(BenchmarkId::from_parameter(name), |b| {
                b.iter(|| run(p, &options(timing)).expect("runs"))
            });
        }
        group.finish();
    }
    c.final_summary();
    println!(
        "\nside by side (alternating, 3 rounds, medians; {} threads):",
        rayon::current_num_threads()
    );
    for (name, p) in &kernels {
        // Off, on (as `run` has it), and for the transposes (16,384 blocks, 15.5 waves: the
        // default samples them) every block and --sample 4; then both with verification, as
        // `warpsim run` does by default.
        type Mode = (&'static str, Option<Option<u32>>, bool);
        let modes: &[Mode] = if name.starts_with("transpose") {
            &[
                ("off", None, false),
                ("timing on", Some(None), false),
                ("--sample 1", Some(Some(1)), false),
                ("--sample 4", Some(Some(4)), false),
                ("off, verified", None, true),
                ("on, verified", Some(None), true),
            ]
        } else {
            &[("off", None, false), ("timing on", Some(None), false)]
        };
        let mut secs = vec![Vec::new(); modes.len()];
        for _ in 0..3 {
            for ((_, m, v), s) in modes.iter().zip(&mut secs) {
                s.push(once(p, *m, *v));
            }
        }
        let med: Vec<f64> = secs.into_iter().map(median).collect();
        for ((label, m, v), s) in modes.iter().zip(&med) {
            // Each against the run without timing of the same verification.
            let off = med[modes
                .iter()
                .position(|o| o.1.is_none() && o.2 == *v)
                .unwrap_or(0)];
            if m.is_none() {
                println!("  {name:24} {label:14} {s:7.3} s");
            } else {
                println!(
                    "  {name:24} {label:14} {s:7.3} s: on / off = {:.2}x",
                    s / off
                );
            }
        }
    }
}
