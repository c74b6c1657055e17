//! The fast paths ([`fast`](super::fast)) against the plain closures as the oracle: the
//! elements' reference values (or faults) bit for bit, on every shipped program and on random
//! expressions.

use super::*;
use proptest::prelude::*;
use warpsim_exec::init_words;
use warpsim_lang::{load_str, Options};

/// Buffer `k`'s reference values (elements of its first two and its last chunk), lowered with
/// (`plain` false) or without the fast paths: the value, or the fault's description.
fn values(p: &Program, words: &[Vec<u32>], k: usize, plain: bool) -> Vec<Result<u64, String>> {
    let bi = &p.buffers[k];
    let ex = bi.expect.as_ref().expect("an expect");
    let c = compile_expect(p, ex).unwrap_or_else(|e| panic!("{}", e.message));
    let srcs = srcs_of(p, words);
    PLAIN.with(|f| f.set(plain));
    let r = expect::Reference::new(&c, &srcs, DEFAULT_MAX_TERMS, bi.len);
    PLAIN.with(|f| f.set(false));
    let mut out = Vec::with_capacity(r.len);
    // The first two chunks and the last (the plain closures are slow in a debug build).
    let n = r.chunks();
    let mut chunks: Vec<usize> = (0..n.min(2)).collect();
    chunks.extend((n > 2).then_some(n - 1));
    for ci in chunks {
        // Up to the first fault, which ends the comparison.
        if let Err((i, f)) = r.eval_chunk(ci, |_, v| out.push(Ok(v))) {
            out.push(Err(format!("{i}: {f:?}")));
            break;
        }
    }
    out
}

/// The buffers with a reference (not a permutation) whose fast and plain values differ.
fn differing(p: &Program) -> Vec<String> {
    let words: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
    let mut bad = Vec::new();
    for (k, b) in p.buffers.iter().enumerate() {
        let Some(ex) = &b.expect else { continue };
        if permutation_source(&ex.node).is_some() {
            continue;
        }
        let (fast, plain) = (values(p, &words, k, false), values(p, &words, k, true));
        if fast != plain {
            let at = fast.iter().zip(&plain).position(|(a, b)| a != b);
            bad.push(format!(
                "{} `{}` (first difference at {at:?})",
                b.name, ex.text
            ));
        }
    }
    bad
}

fn ron_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("a directory").flatten() {
        let p = e.path();
        if p.is_dir() {
            ron_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ron") {
            out.push(p);
        }
    }
}

/// Every shipped program (those that load without NVRTC), with its default defines: the fast
/// paths give every element's reference bit for bit, and they are taken (the matmul's dot
/// product, the histogram's count, the transpose's divisions).
#[test]
fn shipped_programs_fast_equals_plain() {
    let mut files = Vec::new();
    ron_files(&warpsim_testkit::path("programs"), &mut files);
    files.sort();
    let mut checked = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).expect("a program");
        let Ok(p) = load_str(&f.to_string_lossy(), &src, &Options::default()) else {
            continue;
        };
        let bad = differing(&p);
        assert!(bad.is_empty(), "{}: {bad:?}", f.display());
        checked += p.buffers.iter().filter(|b| b.expect.is_some()).count();
    }
    assert!(checked >= 30, "only {checked} references checked");
}

/// The buffers of `p` with the words `words` (one vector a buffer), as the reference reads them.
fn srcs_of<'a>(p: &Program, words: &'a [Vec<u32>]) -> Vec<Src<'a>> {
    p.buffers
        .iter()
        .zip(words)
        .map(|(b, w)| Src {
            words: w,
            elem: b.elem,
            len: b.len,
        })
        .collect()
}

fn shape_of(p: &Program, k: usize) -> Option<&'static str> {
    let words: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
    let srcs = srcs_of(p, &words);
    let c = compile_expect(p, p.buffers[k].expect.as_ref()?).ok()?;
    let E::Sum(m) = &c.root else { return None };
    let name = match fast::shape(m, &srcs)? {
        fast::Shape::Dot(..) => "dot",
        fast::Shape::FloatLoad(_) => "float load",
        fast::Shape::IntLoad(_) => "int load",
        fast::Shape::Count(..) => "count",
    };
    Some(name)
}

fn prog(buffers: &str) -> Program {
    let src = format!(
        "Program(name: \"t\", defines: {{ \"N\": 16 }}, launch: (grid: [1], block: [32]),\n buffers: [\n{buffers}\n], body: [])"
    );
    load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e:?}"))
}

/// The common shapes are recognised (and others are not).
#[test]
fn shapes_recognised() {
    let p = prog(
        r#"(name: "A", ty: F32, len: 256, init: Random(1)),
           (name: "B", ty: F64, len: 256, init: Random(2)),
           (name: "h", ty: I32, len: 256, init: Random(3)),
           (name: "c0", ty: F32, len: 256, expect: "sum(k, 0, N, A[(i / N) * N + k] * B[k * N + i % N])"),
           (name: "c1", ty: I32, len: 16, expect: "sum(k, 0, 256, h[k] == i ? 1 : 0)"),
           (name: "c2", ty: F32, len: 16, expect: "sum(k, (i / N) * N, i, A[k])"),
           (name: "c3", ty: I32, len: 16, expect: "sum(k, 0, 16, h[16 * i - k * 3 + 50])"),
           (name: "c4", ty: F32, len: 16, expect: "sum(k, 0, 16, A[k * k])"),
           (name: "c5", ty: F32, len: 16, expect: "sum(k, 0, 16, A[k] * 2.0)"),
           (name: "H", ty: F16, len: 256, init: Random(4)),
           (name: "G", ty: BF16, len: 255, init: Random(5)),
           (name: "c6", ty: F32, len: 16, expect: "sum(k, 0, 16, H[(i % 16) * 16 + k] * G[k * 15 + i])"),
           (name: "c7", ty: F32, len: 16, expect: "sum(k, 0, 15, G[k + i * 15])")"#,
    );
    let got: Vec<_> = [3, 4, 5, 6, 7, 8, 11, 12].map(|k| shape_of(&p, k)).to_vec();
    assert_eq!(
        got,
        [
            Some("dot"),
            Some("count"),
            Some("float load"),
            Some("int load"),
            None,
            None,
            Some("dot"),
            Some("float load"),
        ]
    );
    assert!(differing(&p).is_empty());
}

/// Division and remainder by powers of two as shifts, against the hardware's.
#[test]
fn pow2_division() {
    for sh in 0..31 {
        for x in [
            0,
            1,
            -1,
            7,
            -7,
            i32::MIN,
            i32::MAX,
            i32::MIN + 1,
            1 << sh,
            -(1 << sh),
        ] {
            let d = 1i32 << sh;
            assert_eq!(fast::div_pow2_s(x, sh), x.wrapping_div(d), "{x} / {d}");
            assert_eq!(fast::rem_pow2_s(x, sh), x.wrapping_rem(d), "{x} % {d}");
        }
    }
    assert_eq!(fast::pow2_shift(0x8000_0000, true), None);
    assert_eq!(fast::pow2_shift(0x8000_0000, false), Some(31));
    assert_eq!(fast::pow2_shift(0, false), None);
    assert_eq!(fast::pow2_shift(12, false), None);
}

/// An affine index term over the sum variable `k` (and `i`), possibly out of bounds.
fn index() -> impl Strategy<Value = String> {
    (-3i32..4, -12i32..70, 0usize..5).prop_map(|(p, q, form)| match form {
        0 => format!("k * {p} + {q}"),
        1 => format!("{q} - k * {p}"),
        2 => format!("(i / 4) * {p} + k"),
        3 => format!("-k + {q} + i"),
        _ => format!("u32(k) * {}u + {}u", p.unsigned_abs(), q.unsigned_abs()),
    })
}

fn bound() -> impl Strategy<Value = String> {
    prop_oneof![
        (-6i32..70).prop_map(|v| v.to_string()),
        (-6i32..40).prop_map(|v| format!("i + {v}")),
        (0u32..70).prop_map(|v| format!("{v}u")),
    ]
}

/// A sum of one of the recognised shapes (or close to one).
fn expr() -> impl Strategy<Value = String> {
    let fl = prop_oneof![Just("a"), Just("b"), Just("e"), Just("g")];
    let int = prop_oneof![Just("c"), Just("d")];
    (
        fl.clone(),
        fl,
        int,
        index(),
        index(),
        bound(),
        bound(),
        0usize..5,
        -3i32..5,
    )
        .prop_map(|(x, y, n, i1, i2, from, to, form, v)| {
            let body = match form {
                0 => format!("{x}[{i1}] * {y}[{i2}]"),
                1 => format!("{x}[{i1}]"),
                2 => format!("{n}[{i1}]"),
                3 => format!("{n}[{i1}] == i % 5 ? {v} : 2"),
                _ => format!("{v} == {n}[{i1}] ? 1 : 0"),
            };
            format!("sum(k, {from}, {to}, {body})")
        })
}

fn random_prog(expect: &str) -> Option<Program> {
    let src = format!(
        r#"Program(name: "t", launch: (grid: [1], block: [32]), buffers: [
            (name: "a", ty: F32, len: 50, init: Random(1)),
            (name: "b", ty: F64, len: 40, init: Random(2)),
            (name: "c", ty: I32, len: 64, init: Random(3)),
            (name: "d", ty: U32, len: 30, init: Iota),
            (name: "e", ty: F16, len: 50, init: Random(4)),
            (name: "g", ty: BF16, len: 41, init: Random(5)),
            (name: "out", ty: F32, len: 24, expect: "{expect}"),
        ], body: [])"#
    );
    load_str("t.ron", &src, &Options::default()).ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random sums (in and out of bounds, signed and unsigned bounds and indices) and divisions:
    /// fast and plain give the same values and the same faults.
    #[test]
    fn random_fast_equals_plain(e in expr(), d in (-40i32..40, 0u32..8, -5i32..5)) {
        let (m, sh, off) = d;
        for expect in [
            e,
            format!("f32((i * {m} + {off}) / {} + (i * {m} - {off}) % {})", 1 << sh, 1 << sh),
            format!("f32(u32(i * {m} + {off}) / {}u + u32(i * {m}) % {}u)", 1 << sh, 1 << sh),
        ] {
            if let Some(p) = random_prog(&expect) {
                let bad = differing(&p);
                prop_assert!(bad.is_empty(), "{}: {:?}", expect, bad);
            }
        }
    }
}

/// A random element-wise reference over `i` and the buffers of [`random_prog`]: integer and
/// float arithmetic, casts, comparisons, lazy `?:`/`&&`/`||` guarding loads that may leave
/// their buffer, divisions by values that may be zero, and now and then a `sum`.
fn element_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("i".to_owned()),
        (-9i32..40).prop_map(|v| v.to_string()),
        (0u32..9).prop_map(|v| format!("{v}u")),
        Just("2.5".to_owned()),
        Just("24u".to_owned()),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let buf = prop_oneof![
            Just("a"),
            Just("b"),
            Just("c"),
            Just("d"),
            Just("e"),
            Just("g")
        ];
        prop_oneof![
            (buf, inner.clone()).prop_map(|(b, x)| format!("{b}[{x}]")),
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![
                    Just("+"),
                    Just("-"),
                    Just("*"),
                    Just("/"),
                    Just("%"),
                    Just("<"),
                    Just("<="),
                    Just("=="),
                    Just("!="),
                    Just("&"),
                    Just("|"),
                    Just("^"),
                    Just("<<"),
                    Just(">>"),
                    Just("&&"),
                    Just("||"),
                ]
            )
                .prop_map(|(x, y, o)| format!("({x} {o} {y})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, x, y)| format!("({c} ? {x} : {y})")),
            (
                inner.clone(),
                prop_oneof![
                    Just("f32"),
                    Just("u32"),
                    Just("i32"),
                    Just("f64"),
                    Just("abs"),
                    Just("sqrt"),
                    Just("exp"),
                    Just("f16"),
                    Just("bf16"),
                    Just("popc"),
                    Just("-"),
                    Just("!"),
                    Just("~"),
                ]
            )
                .prop_map(|(x, f)| format!("{f}({x})")),
            (
                inner.clone(),
                inner.clone(),
                prop_oneof![Just("min"), Just("max")]
            )
                .prop_map(|(x, y, f)| format!("{f}({x}, {y})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(x, y, z)| format!("fma({x}, {y}, {z})")),
            (inner.clone(), inner).prop_map(|(x, y)| format!("sum(k, 0, 3, {x} + k * {y})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Random element-wise references: evaluated as columns (runs of elements), they give the
    /// closures' values and faults, bit for bit.
    #[test]
    fn random_columns_equal_closures(e in element_expr()) {
        if let Some(p) = random_prog(&e) {
            let k = p.buffers.len() - 1;
            let ok = p.buffers[k].expect.as_ref().is_some_and(|ex| compile_expect(&p, ex).is_ok());
            if ok {
                let bad = differing(&p);
                prop_assert!(bad.is_empty(), "{}: {:?}", e, bad);
            }
        }
    }
}

/// Loads at and around each buffer's end, with and without a guard: the columns fault where
/// the closures do, on the same element.
#[test]
fn columns_fault_at_the_buffers_ends() {
    for off in 14..44 {
        for e in [
            format!("a[i + {off}]"),
            format!("f32(c[i * 2 + {off}])"),
            format!("b[{off} - i]"),
            format!("g[i + {off}] + e[i]"),
            format!("f32(d[u32(i) + {off}u])"),
            format!("i < 20 ? a[i + {off}] : 1.5"),
            format!("f32(i > 3 && c[i + {off}] > 0)"),
            format!("f32(100 / (i - {}))", off - 14),
        ] {
            let p = random_prog(&e).expect("a program");
            assert!(differing(&p).is_empty(), "{e}");
        }
    }
}

/// Dot products over a run side by side, in each of the loops `dots` has (a row of one
/// buffer against one element of the other, either way round; strides shared or not; sums of
/// different lengths; indices leaving a buffer), against the closures.
#[test]
fn columns_dot_products() {
    for e in [
        "sum(k, 0, 6, a[k * 7] * b[i + k])",
        "sum(k, 0, 6, e[i + k] * b[k * 5])",
        "sum(k, 0, 6, g[(i / 4) + k] * a[(i % 4) * 3 + k])",
        "sum(k, 0, 6, a[k * (i % 3)] * e[k + 2 * i])",
        "sum(k, 0, i % 5, a[k + i] * g[k])",
        "sum(k, 0, 6, a[i * 2 + k] * b[k])",
        "2.0 * sum(k, 1, 7, b[k * 3] * a[40 - i - k]) + a[i]",
    ] {
        let p = random_prog(e).expect("a program");
        assert!(differing(&p).is_empty(), "{e}");
    }
}

/// The columns are taken for element-wise references (and not for a lone sum).
#[test]
fn columns_taken() {
    let p = random_prog("a[i] * 2.0 + f32(c[(i * 7) % 64] / (i + 1))").expect("a program");
    let words: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
    let srcs = srcs_of(&p, &words);
    let c = compile_expect(&p, p.buffers[6].expect.as_ref().expect("expect")).expect("compiles");
    assert!(Columns::build(&c.root, &srcs).is_some());
    let p = random_prog("sum(k, 0, 5, a[k])").expect("a program");
    let c = compile_expect(&p, p.buffers[6].expect.as_ref().expect("expect")).expect("compiles");
    assert!(Columns::build(&c.root, &srcs).is_none());
}
