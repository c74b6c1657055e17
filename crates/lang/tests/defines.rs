//! Defines that are expressions of earlier defines: folded in order at load time, with
//! `--define` overrides followed by the defines computed from them, and every mistake reported
//! with its field path and file:line:col.

use warpsim_lang::{load_str, Options};

fn prog(defines: &str) -> String {
    format!(
        "Program(\n    name: \"d\",\n    defines: {{ {defines} }},\n    launch: (grid: [\"GRID\"], block: [32]),\n    body: [],\n)\n"
    )
}

fn value(p: &warpsim_kernel::Program, name: &str) -> i64 {
    p.defines.iter().find(|(n, _)| n == name).unwrap().1
}

/// The error's text, checked to carry the file and the line:col of `at` (a substring of the
/// source, first occurrence after the `defines:` line).
fn error(defines: &str, at: &str) -> String {
    let src = prog(defines);
    let e = load_str("d.ron", &src, &Options::default()).expect_err(defines);
    let text = e.to_string();
    let off = src.find(at).unwrap();
    let line = src[..off].matches('\n').count() + 1;
    let col = off - src[..off].rfind('\n').map_or(0, |i| i + 1) + 1;
    assert!(
        text.starts_with(&format!("d.ron:{line}:{col}")),
        "`{text}` is not at {line}:{col}"
    );
    format!("{text}\nhelp: {}", e.help.unwrap_or_default())
}

#[test]
fn expressions_of_earlier_defines_fold_in_order() {
    let src = prog(
        r#""BLOCK": 32, "WA": "10 * BLOCK", "GRID": "WA / BLOCK - 8", "H": "min(WA, 7) << 1""#,
    );
    let p = load_str("d.ron", &src, &Options::default()).unwrap();
    assert_eq!(value(&p, "WA"), 320);
    assert_eq!(value(&p, "GRID"), 2);
    assert_eq!(value(&p, "H"), 14);
    assert_eq!(p.grid, [2, 1, 1]);
}

#[test]
fn an_override_sets_a_value_and_later_defines_follow_it() {
    let src = prog(r#""BLOCK": 32, "WA": "10 * BLOCK", "GRID": "WA / 64""#);
    let opts = Options {
        defines: vec![("BLOCK".into(), 64)],
        ..Options::default()
    };
    let p = load_str("d.ron", &src, &opts).unwrap();
    assert_eq!(value(&p, "WA"), 640);
    assert_eq!(p.grid, [10, 1, 1]);
    // An override of a computed define replaces its expression.
    let opts = Options {
        defines: vec![("WA".into(), 128)],
        ..Options::default()
    };
    let p = load_str("d.ron", &src, &opts).unwrap();
    assert_eq!(p.grid, [2, 1, 1]);
}

#[test]
fn an_unknown_name_is_refused_with_the_field_path() {
    let t = error(r#""GRID": "2 * BLOK", "BLOCK": 32"#, "BLOK");
    assert!(
        t.contains("`defines.GRID` must be a constant, but `BLOK` is not a define"),
        "{t}"
    );
}

#[test]
fn a_define_used_before_it_is_defined_is_refused() {
    let t = error(r#""GRID": "2 * BLOCK", "BLOCK": 32"#, "BLOCK\"");
    assert!(
        t.contains("`defines.GRID` uses `BLOCK` before it is defined"),
        "{t}"
    );
    assert!(t.contains("above"), "{t}");
}

#[test]
fn a_cycle_is_refused() {
    let t = error(
        r#""GRID": "A", "A": "B + 1", "B": "GRID * 2""#,
        "A\", \"A\"",
    );
    assert!(
        t.contains("`defines.GRID` is part of a cycle: GRID -> A -> B -> GRID"),
        "{t}"
    );
    let t = error(r#""GRID": "GRID + 1""#, "GRID + 1");
    assert!(t.contains("`defines.GRID` uses itself: a cycle"), "{t}");
}

#[test]
fn overflow_is_refused() {
    let t = error(
        r#""BIG": 4611686018427387904, "GRID": "BIG * 4""#,
        "BIG * 4",
    );
    assert!(
        t.contains("`defines.GRID`: this overflows 64-bit arithmetic"),
        "{t}"
    );
}

#[test]
fn a_non_integer_is_refused() {
    let t = error(r#""GRID": "1.5 * 2""#, "1.5");
    assert!(
        t.contains("`defines.GRID` must be an integer expression of defines"),
        "{t}"
    );
    let t = error(r#""GRID": "tid.x""#, "tid.x");
    assert!(t.contains("`tid.x` is not a define"), "{t}");
    let src = prog(r#""GRID": 1.5"#);
    let e = load_str("d.ron", &src, &Options::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("string expression of earlier defines") && e.contains("defines"),
        "{e}"
    );
}
