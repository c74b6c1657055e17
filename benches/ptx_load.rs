//! How the PTX front end grows with a module's size: generated PTX entries of 1, 10 and 50
//! MB (blocks of arithmetic, shared stores and loads, a predicated branch and a `.loc` line
//! each; a register reused by every load, as hand-written PTX may) are loaded through a RON
//! program's `ptx:` with [`warpsim_lang::load_file`]. Parsing, inlining, the generic-space
//! dataflow, merging and lowering (post-dominators by Cooper, Harvey and Kennedy) are linear
//! in the size, so the time per MB is about the same at every size.
//!
//! `cargo bench --bench ptx_load` (a few minutes). Under `cargo test --benches` only the
//! 1 MB module is loaded once.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use warpsim_lang::{load_file, Options};

/// Writes the module and a program that launches it; the program's path.
fn files(dir: &Path, mb: usize) -> (PathBuf, usize) {
    let ptx = warpsim_testkit::big_ptx(mb);
    let name = format!("big{mb}.ptx");
    std::fs::write(dir.join(&name), &ptx).unwrap();
    let ron = dir.join(format!("big{mb}.ron"));
    std::fs::write(
        &ron,
        format!(
            "Program(name: \"big\", launch: (grid: [1], block: [32]),\n    buffers: [(name: \
             \"out\", ty: U32, len: 32)],\n    ptx: (file: \"{name}\", kernel: \"big\", args: \
             [\"out\"]),\n)\n"
        ),
    )
    .unwrap();
    (ron, ptx.len())
}

fn main() {
    let testing = std::env::args().any(|a| a == "--test" || a == "--list");
    let sizes: &[usize] = if testing { &[1] } else { &[1, 10, 50] };
    let dir = std::env::temp_dir().join(format!("warpsim-ptx-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    let mut g = c.benchmark_group("ptx_load");
    g.sampling_mode(SamplingMode::Flat);
    let mut per_mb = Vec::new();
    for &mb in sizes {
        let (ron, bytes) = files(&dir, mb);
        let t = Instant::now();
        let p = load_file(ron.to_str().unwrap(), &Options::default()).unwrap();
        let secs = t.elapsed().as_secs_f64();
        per_mb.push((mb, secs, p.code.len()));
        if !testing {
            g.throughput(Throughput::Bytes(bytes as u64));
            g.bench_with_input(
                BenchmarkId::from_parameter(format!("{mb} MB")),
                ron.to_str().unwrap(),
                |b, ron| b.iter(|| load_file(black_box(ron), &Options::default()).unwrap()),
            );
        }
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
    for (mb, secs, code) in &per_mb {
        println!(
            "{mb:>3} MB: {secs:.2} s, {:.3} s per MB, {code} instructions",
            secs / *mb as f64
        );
    }
    c.final_summary();
}
