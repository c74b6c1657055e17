//! How fast warpsim runs whole kernels, next to native Rust code doing the same work.
//!
//! `cargo bench --bench kernels` (a couple of minutes):
//!
//! * `bank model`: the price of one warp access as the interpreter asks for it
//!   ([`warpsim_smem::cost_into`]): conflict-free, and a 32-way conflict.
//! * `emulated`: `programs/transpose.ron` (N=4096, PAD=1: 16384 blocks) and
//!   `programs/matmul.ron` (N=512, TILE=32: 256 blocks) over their whole grid, bank model on,
//!   on rayon pools of 1 and 2 threads. Throughput is in warp instructions per second.
//! * `native`: plain Rust shaped like the kernels, one thread: a 32 x 33-padded tiled transpose
//!   and a 32 x 32-tiled matmul that adds the products in the kernel's order (its output is
//!   checked to be bit for bit the emulated one).
//!
//! Then a side-by-side measurement: native and emulated runs alternate, seven rounds, and the
//! medians give the ratios it prints: emulated / native time, warp instructions per second,
//! and the speedup of 2 threads over 1. (Under `cargo test --benches` only a short check runs.)

use criterion::{BenchmarkId, Criterion, Throughput};
use rayon::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::{Duration, Instant};
use warpsim_exec::{run_block, Config, Global, Stats};
use warpsim_kernel::Program;
use warpsim_lang::Options;
use warpsim_smem::{cost_into, BankCounts, Geometry, Op, WARP};

/// A loaded program with its global memory filled.
struct Kernel {
    label: &'static str,
    prog: Program,
    global: Global,
    cfg: Config,
}

impl Kernel {
    fn load(label: &'static str, file: &str, defines: &[(&str, i64)]) -> Kernel {
        let path = warpsim_testkit::path(&format!("programs/{file}"));
        let path = path.to_string_lossy();
        let opts = Options {
            defines: defines.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
            ..Options::default()
        };
        let prog = warpsim_lang::load_file(&path, &opts)
            .unwrap_or_else(|e| panic!("{path}: {}", e.message));
        let global = Global::new(&prog);
        for (k, b) in prog.buffers.iter().enumerate() {
            global.write(k, &warpsim_exec::init_words(b));
        }
        Kernel {
            label,
            prog,
            global,
            cfg: Config::default(),
        }
    }

    /// Runs every block (in parallel on the current rayon pool), as `warpsim run` does.
    fn grid(&self) -> Stats {
        let [gx, gy, gz] = self.prog.grid.map(|d| d as u64);
        let empty = || Stats::new(&self.prog, &self.cfg.geometry);
        (0..gx * gy * gz)
            .into_par_iter()
            .fold(empty, |mut st, b| {
                let ctaid = [
                    (b % gx) as u32,
                    (b / gx % gy) as u32,
                    (b / (gx * gy)) as u32,
                ];
                run_block(&self.prog, &self.cfg, ctaid, &self.global, &mut st)
                    .unwrap_or_else(|f| panic!("{}: {f}", self.label));
                st
            })
            .reduce(empty, |mut a, b| {
                a.merge(&b);
                a
            })
    }

    /// Buffer `k` as f32.
    fn floats(&self, k: usize) -> Vec<f32> {
        self.global
            .read(k)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }
}

/// `out = inp^T` (n x n), through a 32 x 33 tile, tile by tile like the kernel's blocks.
fn transpose_native(n: usize, inp: &[f32], out: &mut [f32]) {
    let mut tile = [[0f32; 33]; 32];
    for by in 0..n / 32 {
        for bx in 0..n / 32 {
            for (ty, row) in tile.iter_mut().enumerate() {
                let src = &inp[(by * 32 + ty) * n + bx * 32..][..32];
                row[..32].copy_from_slice(src);
            }
            for ty in 0..32 {
                let dst = &mut out[(bx * 32 + ty) * n + by * 32..][..32];
                for (tx, d) in dst.iter_mut().enumerate() {
                    *d = tile[tx][ty];
                }
            }
        }
    }
}

/// `c = a * b` (n x n), 32 x 32 tiles of A and B staged in local tiles like the kernel's
/// shared memory; each element adds its products in increasing k, as each thread does.
fn matmul_native(n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    const T: usize = 32;
    let mut at = [[0f32; T]; T];
    let mut bt = [[0f32; T]; T];
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
}

/// The native counterparts' inputs and outputs.
struct Native {
    n_t: usize,
    t_in: Vec<f32>,
    t_out: Vec<f32>,
    n_m: usize,
    m_a: Vec<f32>,
    m_b: Vec<f32>,
    m_c: Vec<f32>,
}

impl Native {
    fn new(t: &Kernel, m: &Kernel) -> Native {
        let n_t = t.prog.grid[0] as usize * 32;
        let n_m = m.prog.grid[0] as usize * 32;
        Native {
            n_t,
            t_in: t.floats(0),
            t_out: vec![0.0; n_t * n_t],
            n_m,
            m_a: m.floats(0),
            m_b: m.floats(1),
            m_c: vec![0.0; n_m * n_m],
        }
    }
    fn transpose(&mut self) {
        transpose_native(self.n_t, &self.t_in, &mut self.t_out);
        black_box(&self.t_out);
    }
    fn matmul(&mut self) {
        matmul_native(self.n_m, &self.m_a, &self.m_b, &mut self.m_c);
        black_box(&self.m_c);
    }
}

fn pool(threads: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a rayon pool")
}

fn lanes(f: impl Fn(u32) -> u32) -> [u32; WARP] {
    std::array::from_fn(|l| f(l as u32))
}

fn bank_model(c: &mut Criterion) {
    let g = Geometry::H200;
    let mut group = c.benchmark_group("bank model");
    let cases = [
        ("conflict-free", lanes(|t| t * 4)),
        ("32-way conflict", lanes(|t| t * 128)),
    ];
    for (name, addrs) in cases {
        let mut counts = BankCounts::new(g.banks);
        group.throughput(Throughput::Elements(1));
        group.bench_function(name, |b| {
            b.iter(|| {
                cost_into(
                    black_box(&g),
                    Op::Ld,
                    4,
                    black_box(&addrs),
                    black_box(u32::MAX),
                    &mut counts,
                )
            })
        });
    }
    group.finish();
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let t = Kernel::load(
        "transpose N=4096 PAD=1",
        "transpose.ron",
        &[("N", 4096), ("PAD", 1)],
    );
    let m = Kernel::load(
        "matmul N=512 TILE=32",
        "matmul.ron",
        &[("N", 512), ("TILE", 32)],
    );
    let pools = [(1, pool(1)), (2, pool(2))];
    let counts: Vec<u64> = [&t, &m]
        .iter()
        .map(|k| pools[0].1.install(|| k.grid()).warp_instructions)
        .collect();
    let mut native = Native::new(&t, &m);
    native.transpose();
    native.matmul();
    assert!(native.t_out == t.floats(1), "native transpose differs");
    assert!(
        native.m_c.iter().map(|x| x.to_bits()).eq(m.global.read(2)),
        "native matmul differs from the emulated one"
    );

    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bank_model(&mut c);
    {
        let mut group = c.benchmark_group("emulated");
        for (k, &n) in [&t, &m].iter().zip(&counts) {
            group.throughput(Throughput::Elements(n));
            for (threads, p) in &pools {
                let id = BenchmarkId::new(k.label, format!("{threads} thread(s)"));
                group.bench_function(id, |b| b.iter(|| p.install(|| k.grid())));
            }
        }
        group.finish();
    }
    {
        let mut group = c.benchmark_group("native");
        group.bench_function("transpose N=4096 (32x33 tiles)", |b| {
            b.iter(|| native.transpose())
        });
        group.bench_function("matmul N=512 (32x32 tiles)", |b| b.iter(|| native.matmul()));
        group.finish();
    }
    c.final_summary();

    if bench {
        side_by_side(&t, &m, &counts, &pools, &mut native);
    } else {
        println!("(side-by-side ratios: run `cargo bench --bench kernels`)");
    }
}

fn seconds(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// This process's CPU time (user + system) in seconds, from /proc (Linux; clock ticks of
/// 10 ms), or None.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    let f: Vec<&str> = s.rsplit(')').next()?.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
}

/// Wall and CPU seconds of `f`.
fn timed(f: impl FnOnce()) -> (f64, f64) {
    let c = cpu_seconds().unwrap_or(0.0);
    let t = Instant::now();
    f();
    let wall = t.elapsed().as_secs_f64();
    (wall, cpu_seconds().unwrap_or(0.0) - c)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Alternates native and emulated runs and prints the ratios of the medians.
fn side_by_side(
    t: &Kernel,
    m: &Kernel,
    counts: &[u64],
    pools: &[(usize, ThreadPool); 2],
    native: &mut Native,
) {
    const ROUNDS: usize = 7;
    let [p1, p2] = [&pools[0].1, &pools[1].1];
    // Per round: native T, emulated T (1, 2 threads), native M, emulated M (1, 2 threads).
    let mut times = vec![Vec::new(); 6];
    // CPU seconds of the emulated runs on 1 and 2 threads, per kernel.
    let mut cpu = [[0f64; 2]; 2];
    for _ in 0..ROUNDS {
        for (i, k) in [t, m].iter().enumerate() {
            times[3 * i].push(seconds(|| {
                if i == 0 {
                    native.transpose()
                } else {
                    native.matmul()
                }
            }));
            for (j, p) in [p1, p2].iter().enumerate() {
                let (wall, c) = timed(|| drop(p.install(|| k.grid())));
                times[3 * i + 1 + j].push(wall);
                cpu[i][j] += c;
            }
        }
    }
    let med: Vec<f64> = times.into_iter().map(median).collect();
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!();
    println!("side by side: medians of {ROUNDS} alternating rounds on {cores} cores ({model})");
    for (i, k) in [t, m].iter().enumerate() {
        let (nat, one, two) = (med[3 * i], med[3 * i + 1], med[3 * i + 2]);
        println!(
            "  {:<24} native {:>8.1} ms | emulated 1 thread {:>8.1} ms ({:>5.1} M warp instr/s), \
             2 threads {:>8.1} ms",
            k.label,
            nat * 1e3,
            one * 1e3,
            counts[i] as f64 / one / 1e6,
            two * 1e3
        );
        println!(
            "  {:<24} emulated / native = {:.1}x   2 threads vs 1 = {:.2}x",
            "",
            one / nat,
            one / two
        );
        // On a busy machine the second thread may get little CPU: CPU time spent per wall
        // second says how much it got, and the CPU time of 2 threads over 1 what parallel
        // running costs in itself.
        let [c1, c2] = cpu[i];
        if c1 > 0.0 {
            println!(
                "  {:<24} CPU time 2 threads / 1 thread = {:.2}; CPU busy during the 2-thread \
                 runs: {:.2} cores",
                "",
                c2 / c1,
                c2 / (two * ROUNDS as f64)
            );
        }
    }
}
