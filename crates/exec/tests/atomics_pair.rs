//! Pair atomics in kernels (README "Atomics"): 64-bit `atomicAdd`/`Min`/`Max` on a shared
//! `u32` array, `atomicMin` on a `long long` (an `i32` array) and `atomicAdd` on a `__half2` or `__nv_bfloat162`, run as kernels on every single-warp pattern the
//! H200 measured for them (`tests/fixtures/h200/atomics2_*`, the held-out set included, with
//! the probe's initial memory and operands: calibration/probes/shared_atomics/probe.cu), and the priced
//! shared counters compared with the H200's.

use warpsim_exec::init_words;
use warpsim_exec::{run_block, Config, Global, Stats};
use warpsim_kernel::Program;
use warpsim_lang::{load_str, Options};

use warpsim_testkit::h200::fixture;

/// A kernel applying the pattern's atomic at byte addresses `addrs` (-1: inactive lane), the
/// memory set up as the probe did: the 8-byte element at byte `o` holds `7 * (o / 4) + 3`,
/// the halves zero; lane `l` applies `l + 1` (both halves for a `__half2`; a `long long`
/// min: `15 - l`).
fn kernel(op: &str, addrs: &[i64]) -> Program {
    let half2 = op.ends_with("f16x2");
    let (ty, conv) = match op.ends_with("bf16x2") {
        true => ("BF16", "bf16"),
        false => ("F16", "f16"),
    };
    let top = addrs.iter().copied().max().unwrap_or(0).max(0) as u64;
    let name = op.split('.').nth(1).unwrap();
    let (shared, init, atomic) = if half2 {
        let n = top / 2 + 2;
        (
            format!("(name: \"s\", ty: {ty}, dims: [{n}])"),
            format!(
                "For(var: \"j\", from: \"i32(tid.x)\", to: {n}, step: 32, body: [Store(\"s[j]\", \"{conv}(0.0)\")])"
            ),
            format!(
                "Atomic(op: \"{name}\", at: \"s[k / 2]\", value: [\"{conv}(tid.x + 1)\", \"{conv}(tid.x + 1)\"])"
            ),
        )
    } else if op == "atom.min.s64" {
        // atomicMin(long long*, 16 - (lane + 1)): negative from lane 16 on.
        let n = top / 8 + 1;
        (
            format!("(name: \"s\", ty: I32, dims: [{}])", 2 * n),
            format!(
                "For(var: \"j\", from: \"i32(tid.x)\", to: {n}, step: 32, body: [Store(\"s[2 * j]\", \"14 * j + 3\"), Store(\"s[2 * j + 1]\", \"0\")])"
            ),
            format!(
                "Atomic(op: \"{name}\", at: \"s[k / 4]\", value: [\"15 - i32(tid.x)\", \"tid.x > 15u ? -1 : 0\"])"
            ),
        )
    } else {
        let n = top / 8 + 1;
        (
            format!("(name: \"s\", ty: U32, dims: [{}])", 2 * n),
            format!(
                "For(var: \"j\", from: \"i32(tid.x)\", to: {n}, step: 32, body: [Store(\"s[2 * j]\", \"u32(14 * j + 3)\"), Store(\"s[2 * j + 1]\", \"0u\")])"
            ),
            format!(
                "Atomic(op: \"{name}\", at: \"s[k / 4]\", value: [\"tid.x + 1u\", \"0u\"])"
            ),
        )
    };
    let src = format!(
        "Program(name: \"t\", launch: (grid: [1], block: [32]), buffers: [(name: \"ix\", ty: I32, len: 32)], shared: [{shared}], body: [{init}, SyncWarp(\"0xffffffff\"), Let(\"k\", \"ix[tid.x]\"), If(cond: \"k >= 0\", then: [{atomic}])])"
    );
    load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The atomic's counters: ld wavefronts, ld conflicts, atom wavefronts, atom conflicts, ATOMS
/// executed (the measured file's columns 3, 4, 7, 8, 9).
fn counters(op: &str, addrs: &[i64]) -> [u64; 5] {
    let p = kernel(op, addrs);
    let cfg = Config::default();
    let g = Global::new(&p);
    g.write(0, &init_words(&p.buffers[0]));
    g.write(0, &addrs.iter().map(|&a| a as u32).collect::<Vec<_>>());
    let mut st = Stats::new(&p, &cfg.geometry);
    run_block(&p, &cfg, [0, 0, 0], &g, &mut st).unwrap();
    let mut out = [0; 5];
    for (pc, i) in p.code.iter().enumerate() {
        if i.atomic().is_some() {
            let s = &st.per_pc[pc];
            out[0] += s.loop_load_wavefronts;
            out[1] += s.loop_load_conflicts;
            out[2] += s.wavefronts - s.loop_load_wavefronts;
            out[3] += s.conflicts - s.loop_load_conflicts;
            out[4] += s.atoms;
        }
    }
    out
}

fn check(patterns: &str, measured: &str) -> usize {
    let measured = fixture(measured);
    let mut n = 0;
    let mut bad = Vec::new();
    for line in fixture(patterns).lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let op = f[1];
        if !matches!(
            op,
            "atom.add.u64"
                | "red.add.u64"
                | "atom.min.u64"
                | "atom.max.u64"
                | "atom.add.f16x2"
                | "red.add.f16x2"
                | "atom.add.bf16x2"
                | "atom.min.s64"
        ) {
            continue;
        }
        let addrs: Vec<i64> = f[3..].iter().map(|a| a.parse().unwrap()).collect();
        let row = measured
            .lines()
            .find(|l| l.split('\t').next() == Some(f[0]))
            .unwrap_or_else(|| panic!("{}: not measured", f[0]));
        let c: Vec<u64> = row
            .split('\t')
            .skip(3)
            .map(|x| x.parse().unwrap())
            .collect();
        let want = [c[0], c[1], c[4], c[5], c[6]];
        let got = counters(op, &addrs);
        if got != want {
            bad.push(format!("{}: got {got:?}, H200 {want:?}", f[0]));
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    n
}

#[test]
fn pair_atomics_in_a_kernel_cost_what_the_h200_measured() {
    // (`red.add` is the same loop as `atom.add`: the kernel reads no result either way.)
    let n = check("atomics2_patterns.txt", "atomics2_measured.tsv");
    assert!(n >= 180, "{n} patterns");
}

#[test]
fn pair_atomics_in_a_kernel_cost_what_the_h200_measured_held_out() {
    let n = check(
        "atomics2_heldout_patterns.txt",
        "atomics2_heldout_measured.tsv",
    );
    assert!(n >= 15, "{n} patterns");
}
