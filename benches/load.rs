//! How loading grows with a program's size: generated programs of 1, 10 and 50 MB (one
//! `Set` statement a line) are loaded with [`warpsim_lang::load_str`]; loading is linear in
//! the size (offsets become line:col through a line index built once), so the time per MB is
//! the same at every size. The 50 MB program must load in under 10 s.
//!
//! `cargo bench --bench load` (about two minutes: ten loads of each size). Under `cargo test
//! --benches` only the 1 MB program is loaded once.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::time::{Duration, Instant};
use warpsim_lang::{load_str, Options};

/// A program of about `mb` megabytes: one variable incremented once a line.
fn program(mb: usize) -> String {
    let line = "        Set(\"x\", \"x + 1\"),\n";
    let n = mb * 1_000_000 / line.len();
    let mut s = String::with_capacity(mb * 1_000_000 + 512);
    s.push_str(
        "Program(name: \"big\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \"o\", \
         ty: U32, len: 32)],\n    body: [\n        Let(\"x\", \"tid.x\"),\n",
    );
    for _ in 0..n {
        s.push_str(line);
    }
    s.push_str("        Store(\"o[tid.x]\", \"x\"),\n    ],\n)\n");
    s
}

fn main() {
    let testing = std::env::args().any(|a| a == "--test" || a == "--list");
    let sizes: &[usize] = if testing { &[1] } else { &[1, 10, 50] };
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    let mut g = c.benchmark_group("load");
    g.sampling_mode(SamplingMode::Flat);
    let mut per_mb = Vec::new();
    for &mb in sizes {
        let src = program(mb);
        g.throughput(Throughput::Bytes(src.len() as u64));
        g.bench_with_input(
            BenchmarkId::from_parameter(format!("{mb} MB")),
            &src,
            |b, src| b.iter(|| load_str("big.ron", black_box(src), &Options::default()).unwrap()),
        );
        let t = Instant::now();
        let p = load_str("big.ron", &src, &Options::default()).unwrap();
        let secs = t.elapsed().as_secs_f64();
        per_mb.push((mb, secs, p.code.len()));
    }
    g.finish();
    for (mb, secs, code) in &per_mb {
        println!(
            "{mb:>3} MB: {secs:.2} s, {:.3} s per MB, {code} instructions",
            secs / *mb as f64
        );
    }
    if let Some((_, s50, _)) = per_mb.iter().find(|p| p.0 == 50) {
        assert!(*s50 < 10.0, "the 50 MB program took {s50:.1} s to load");
    }
    c.final_summary();
}
