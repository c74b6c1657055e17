use super::*;
use warpsim_exec::init_words;
use warpsim_lang::{load_str, Options};

fn prog(buffers: &str, defines: &str) -> Program {
    let src = format!(
        "Program(name: \"t\", defines: {{ {defines} }}, launch: (grid: [1], block: [32]),\n buffers: [\n{buffers}\n], body: [])"
    );
    load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A buffer read in place as both initial and final contents (the runner's global memory,
/// filled in place) checks like its copy.
#[test]
fn in_place_check() {
    let p = prog(
        "(name: \"a\", ty: F64, len: 1000, init: Random(7)),
         (name: \"b\", ty: I32, len: 100000, init: Iota),
         (name: \"c\", ty: F32, len: 1000, expect: \"a[i] * 2.0\")",
        "",
    );
    let g = warpsim_exec::Global::new(&p);
    for (k, b) in p.buffers.iter().enumerate() {
        warpsim_exec::fill_global(b.elem, b.init, &g.buffers[k]);
    }
    let mut words = g.into_words();
    words[2] = (0..1000)
        .map(|i| {
            let a = f64::from_bits(words[0][2 * i] as u64 | (words[0][2 * i + 1] as u64) << 32);
            ((a * 2.0) as f32).to_bits()
        })
        .collect();
    let refs: Vec<&[u32]> = words.iter().map(|w| &w[..]).collect();
    let v = check_slices(&p, &refs, &refs, DEFAULT_MAX_TERMS).unwrap();
    assert!(v[0].ok);
    assert_eq!(check(&p, &words, &words).unwrap(), v);
}

fn words_of(p: &Program) -> Vec<Vec<u32>> {
    p.buffers.iter().map(init_words).collect()
}

/// Checks with the final contents computed by `f` from the initial ones.
fn run(p: &Program, f: impl Fn(&mut Vec<Vec<u32>>)) -> Result<Vec<Verdict>, Diag> {
    let init = words_of(p);
    let mut fin = init.clone();
    f(&mut fin);
    check(p, &init, &fin)
}

#[test]
fn transpose_reference() {
    let p = prog(
        r#"(name: "inp", ty: F32, len: "N * N", init: Random(1)),
           (name: "out", ty: F32, len: "N * N", expect: "inp[(i % N) * N + i / N]")"#,
        "\"N\": 64",
    );
    let v = run(&p, |w| {
        for i in 0..64 * 64 {
            w[1][i] = w[0][(i % 64) * 64 + i / 64];
        }
    })
    .unwrap();
    assert_eq!(v.len(), 1);
    assert!(v[0].ok, "{v:?}");
    assert_eq!(v[0].elements, 4096);
    // Untouched output: every nonzero reference mismatches.
    let v = run(&p, |_| {}).unwrap();
    assert!(!v[0].ok);
    assert_eq!(v[0].mismatches, 4096);
    let m = v[0].first_mismatch.unwrap();
    assert_eq!(m.index, 0);
    assert_eq!(m.got, Num::Float(0.0));
}

#[test]
fn float_tolerance_is_relative_to_the_buffer_max() {
    let p = prog(
        r#"(name: "o", ty: F32, len: 4, expect: "f32(i) * 1000.0", tolerance: 1e-3)"#,
        "",
    );
    // Max |want| = 3000, so the absolute tolerance is 3: element 0 may be off by 2.
    let v = run(&p, |w| {
        w[0] = vec![
            2.0f32.to_bits(),
            1000f32.to_bits(),
            2000f32.to_bits(),
            3004f32.to_bits(),
        ]
    })
    .unwrap();
    assert_eq!(v[0].mismatches, 1);
    assert_eq!(v[0].first_mismatch.unwrap().index, 3);
    assert_eq!(v[0].abs_tolerance, Some(3.0));
}

/// The sums of one element may add at most `max_terms` terms (nested sums multiply).
#[test]
fn sums_have_a_budget_per_element() {
    let p = prog(
        r#"(name: "o", ty: I32, len: 8, expect: "sum(k, 0, 10, sum(m, 0, i, k - k + 1))")"#,
        "",
    );
    let fin: Vec<Vec<u32>> = vec![(0..8).map(|i| 10 * i).collect()];
    let init = words_of(&p);
    // Element 7: 10 outer terms and 10 × 7 inner ones.
    assert!(check_limited(&p, &init, &fin, 80).unwrap()[0].ok);
    let e = check_limited(&p, &init, &fin, 79).unwrap_err();
    assert!(
        e.message
            .contains("adds more than 79 terms for element i = 7"),
        "{e}"
    );
    assert!(e.help.unwrap().contains("--max-steps"));
    // A sum over a huge range fails at once rather than running for minutes.
    let p = prog(
        r#"(name: "o", ty: I32, len: 8, expect: "sum(k, 0, 2000000000, k)")"#,
        "",
    );
    let t = std::time::Instant::now();
    let e = check(&p, &words_of(&p), &words_of(&p)).unwrap_err();
    assert!(e.message.contains("for element i = 0"), "{e}");
    assert!(t.elapsed().as_secs() < 2);
}

#[test]
fn integer_semantics() {
    let p = prog(
        r#"(name: "a", ty: U32, len: 64, init: Iota),
           (name: "o", ty: I32, len: 64, expect: "(i - 32) / 3 + ((i - 32) >> 1) + (-7 % 3) + min(i, 5)"),
           (name: "u", ty: U32, len: 64, expect: "(a[i] - 32) / 3 + (0xFFFFFFFF >> 28) + (u32(i) * 2654435761u >> 16)"),
           (name: "c", ty: I32, len: 64, expect: "i > 0 && a[i - 1] >= 0u ? a[i - 1] : 99"),
           (name: "s", ty: I32, len: 64, expect: "sum(k, 0, i, k * 2) + sum(k, 5, 2, 1)"),
           (name: "f", ty: I32, len: 64, expect: "i32(-2.7) + i32(sqrt(f64(i * i)))")"#,
        "",
    );
    let v = run(&p, |w| {
        for i in 0..64i32 {
            let k = i as usize;
            w[1][k] = ((i - 32) / 3 + ((i - 32) >> 1) + (-7 % 3) + i.min(5)) as u32;
            w[2][k] = ((i as u32).wrapping_sub(32) / 3)
                + 15
                + ((i as u32).wrapping_mul(2654435761) >> 16);
            w[3][k] = if i > 0 { (i - 1) as u32 } else { 99 };
            w[4][k] = (i * (i - 1)) as u32;
            w[5][k] = (-2 + i) as u32;
        }
    })
    .unwrap();
    for x in &v {
        assert!(x.ok, "{x:?}");
    }
}

#[test]
fn matmul_sum_is_fast_and_hoisted() {
    let n = 256usize;
    let p = prog(
        r#"(name: "A", ty: F32, len: "N * N", init: Random(1)),
           (name: "B", ty: F32, len: "N * N", init: Random(2)),
           (name: "C", ty: F32, len: "N * N", expect: "sum(k, 0, N, A[(i / N) * N + k] * B[k * N + i % N])")"#,
        "\"N\": 256",
    );
    let init = words_of(&p);
    let a: Vec<f32> = init[0].iter().map(|&x| f32::from_bits(x)).collect();
    let bm: Vec<f32> = init[1].iter().map(|&x| f32::from_bits(x)).collect();
    let mut c = vec![0f32; n * n];
    for r in 0..n {
        for k in 0..n {
            let x = a[r * n + k];
            for col in 0..n {
                c[r * n + col] += x * bm[k * n + col];
            }
        }
    }
    let mut fin = init.clone();
    fin[2] = c.iter().map(|v| v.to_bits()).collect();
    let t = std::time::Instant::now();
    let v = check(&p, &init, &fin).unwrap();
    let dt = t.elapsed();
    eprintln!("matmul N=256 reference check: {dt:?}");
    assert!(v[0].ok, "{v:?}");
    // `(i / N) * N` and `i % N` do not depend on k: they are computed once per element.
    let ex = p.buffers[2].expect.as_ref().unwrap();
    let cp = compile_expect(&p, ex).unwrap();
    let E::Sum(s) = &cp.root else { panic!() };
    assert_eq!(s.hoisted.len(), 2, "{:?}", s.hoisted);
    // Generous: tests may run unoptimised or on a loaded machine.
    assert!(dt.as_secs_f64() < 10.0, "{dt:?}");
}

fn err_of(buffers: &str) -> Diag {
    let p = prog(buffers, "\"N\": 8");
    run(&p, |_| {}).unwrap_err()
}

#[test]
fn out_of_bounds_and_division_by_zero_are_diagnostics() {
    let e = err_of(
        r#"(name: "a", ty: F32, len: 8),
           (name: "o", ty: F32, len: 8, expect: "a[i + 1]")"#,
    );
    assert_eq!(e.phase, Phase::Verify);
    assert!(e.message.contains("a[8]"), "{}", e.message);
    assert!(e.message.contains("i = 7"), "{}", e.message);
    assert_eq!(e.line(), Some(4));
    // The span covers `a[i + 1]` in the file.
    let span = e.span.unwrap();
    let src = "Program(name: \"t\", defines: { \"N\": 8 }";
    assert!(span.offset() > src.len());
    let e = err_of(r#"(name: "o", ty: I32, len: 8, expect: "100 / (i - 3)")"#);
    assert_eq!(e.phase, Phase::Verify);
    assert!(
        e.message.contains("divides by zero at element i = 3"),
        "{}",
        e.message
    );
    let e = err_of(r#"(name: "o", ty: I32, len: 8, expect: "o[-1]")"#);
    assert!(e.message.contains("o[-1]"), "{}", e.message);
    // Float operands of bitwise operators: a type error, not a panic.
    let e = err_of(r#"(name: "o", ty: F32, len: 8, expect: "1.5 & i")"#);
    assert_eq!(e.phase, Phase::Verify);
    let e = err_of(r#"(name: "o", ty: F32, len: 8, expect: "o[1.5]")"#);
    assert!(e.message.contains("index"), "{}", e.message);
}

#[test]
fn lazy_conditions_and_empty_sums() {
    let p = prog(
        r#"(name: "a", ty: I32, len: 8, init: Iota),
           (name: "o", ty: I32, len: 8, expect: "sum(k, 0, i, a[i - 1 - k]) + (i < 1 || a[i - 1] >= 0) + select(i < 8, 1, a[99])")"#,
        "",
    );
    let v = run(&p, |w| {
        for i in 0..8u32 {
            w[1][i as usize] = i * i.saturating_sub(1) / 2 + 2;
        }
    })
    .unwrap();
    assert!(v[0].ok, "{v:?}");
}

#[test]
fn nested_sums_hoist_correctly() {
    let p = prog(
        r#"(name: "a", ty: I32, len: 64, init: Iota),
           (name: "d", ty: F64, len: 16, init: Iota),
           (name: "o", ty: I32, len: 16, expect: "sum(k, 0, 4, sum(m, 0, k, a[i + m] * k + i * 3) + (i / 2) * k)"),
           (name: "f", ty: F64, len: 16, expect: "sum(k, 1u, 3u, d[i] * f64(k) + sqrt(d[i]))")"#,
        "",
    );
    let refs = referenced_buffers(&p);
    assert_eq!(refs, vec![true, true, false, false]);
    let v = run(&p, |w| {
        for i in 0..16i32 {
            let mut t = 0;
            for k in 0..4 {
                for m in 0..k {
                    t += (i + m) * k + i * 3;
                }
                t += (i / 2) * k;
            }
            w[2][i as usize] = t as u32;
            let x = i as f64;
            let fv = (1..3).map(|k| x * k as f64 + x.sqrt()).sum::<f64>();
            let bits = fv.to_bits();
            w[3][2 * i as usize] = bits as u32;
            w[3][2 * i as usize + 1] = (bits >> 32) as u32;
        }
    })
    .unwrap();
    for x in &v {
        assert!(x.ok, "{x:?}");
    }
    // Unreferenced initial contents may be left out.
    let mut init = words_of(&p);
    init[2].clear();
    init[3].clear();
    let fin = words_of(&p);
    let v = check(&p, &init, &fin).unwrap();
    assert!(!v[0].ok);
}

#[test]
fn nan_and_int_buffers_with_float_references() {
    let p = prog(
        r#"(name: "n", ty: F32, len: 2, expect: "sqrt(-1.0)"),
           (name: "q", ty: I32, len: 2, expect: "f32(i) * 2.5")"#,
        "",
    );
    let v = run(&p, |w| {
        w[0] = vec![f32::NAN.to_bits(); 2];
        w[1] = vec![0, 2];
    })
    .unwrap();
    assert!(v.iter().all(|x| x.ok), "{v:?}");
}
