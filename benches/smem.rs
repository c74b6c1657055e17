//! How long the bank model takes to price one warp access.
//!
//! `cargo bench --bench smem`: a conflict-free 4-byte access (the fast path), a 32-way
//! conflicted one, an 8-byte and a 16-byte access, on the H200 geometry.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::time::Duration;
use warpsim_smem::{cost, Geometry, Op, WARP};

fn lanes(f: impl Fn(u32) -> u32) -> [u32; WARP] {
    std::array::from_fn(|l| f(l as u32))
}

fn bench(c: &mut Criterion) {
    let g = Geometry::H200;
    let cases: [(&str, Op, u32, [u32; WARP]); 4] = [
        ("ld4 smem[tid] conflict-free", Op::Ld, 4, lanes(|t| t * 4)),
        ("ld4 smem[tid*32] 32-way", Op::Ld, 4, lanes(|t| t * 128)),
        ("ld8 smem8[tid]", Op::Ld, 8, lanes(|t| t * 8)),
        ("ld16 smem16[tid]", Op::Ld, 16, lanes(|t| t * 16)),
    ];
    let mut group = c.benchmark_group("smem::cost");
    for (name, op, width, addrs) in cases {
        group.bench_function(name, |b| {
            b.iter(|| {
                cost(
                    black_box(&g),
                    black_box(op),
                    black_box(width),
                    black_box(&addrs),
                    black_box(u32::MAX),
                )
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
