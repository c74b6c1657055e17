//! Block scoping as in C: a `Let` in a nested block may reuse an outer name, shadowing it
//! until the end of its block; the outer value is intact afterwards.

use warpsim_exec::{run_block, Config, Global, Stats};
use warpsim_kernel::Program;
use warpsim_lang::{load_str, Options};

fn run(body: &str) -> Vec<u32> {
    let src = format!(
        "Program(\n    name: \"s\",\n    launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", ty: I32, len: 64)],\n    body: [\n{body}\n    ],\n)\n"
    );
    let p: Program = load_str("s.ron", &src, &Options::default()).unwrap();
    let global = Global::new(&p);
    let mut stats = Stats::new(&p, &Config::default().geometry);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
    global.read(0).to_vec()
}

fn load_err(body: &str) -> (String, String) {
    let src = format!(
        "Program(\n    name: \"s\",\n    launch: (grid: [1], block: [32]),\n    buffers: [(name: \"out\", ty: I32, len: 64)],\n    body: [\n{body}\n    ],\n)\n"
    );
    let e = load_str("s.ron", &src, &Options::default()).unwrap_err();
    (e.to_string(), src)
}

#[test]
fn a_let_in_an_if_shadows_the_outer_name_until_the_end_of_its_block() {
    let out = run(r#"
        Let("a", "tid.x"),
        If(cond: "tid.x < 16", then: [
            Let("a", "a + 100"),
            Store("out[tid.x + 32]", "a"),
        ], else: [
            Let("a", "a * 2"),
            Set("a", "a + 1"),
            Store("out[tid.x + 32]", "a"),
        ]),
        Store("out[tid.x]", "a"),"#);
    for t in 0..32 {
        assert_eq!(out[t], t as u32, "outer a after the If, lane {t}");
        let inner = if t < 16 { t + 100 } else { 2 * t + 1 };
        assert_eq!(out[t + 32], inner as u32, "inner a, lane {t}");
    }
}

#[test]
fn a_let_in_a_for_body_shadows_the_outer_name_and_the_counter_may_too() {
    let out = run(r#"
        Let("s", "tid.x"),
        Let("k", "7"),
        For(var: "k", from: 0, to: 3, body: [
            Let("s", "k * 10"),
            Store("out[32 + tid.x]", "s"),
        ]),
        Store("out[tid.x]", "s + k"),"#);
    for t in 0..32 {
        assert_eq!(
            out[t],
            t as u32 + 7,
            "outer s and k after the loop, lane {t}"
        );
        assert_eq!(out[t + 32], 20, "last inner s, lane {t}");
    }
}

#[test]
fn the_same_block_still_may_not_declare_a_name_twice() {
    let (e, src) = load_err(
        r#"        Let("a", "1"),
        If(cond: "tid.x < 3", then: [
            Let("b", "2"),
            Let("b", "3"),
        ]),"#,
    );
    let off = src.rfind("\"b\"").unwrap() + 1;
    let line = src[..off].matches('\n').count() + 1;
    let col = off - src[..off].rfind('\n').unwrap();
    assert!(e.starts_with(&format!("s.ron:{line}:{col}")), "{e}");
    assert!(
        e.contains("register `b` is already declared in this block"),
        "{e}"
    );
}

#[test]
fn an_inner_name_ends_with_its_block() {
    let (e, src) = load_err(
        r#"        If(cond: "tid.x < 3", then: [
            Let("inner", "2"),
        ]),
        Store("out[tid.x]", "inner"),"#,
    );
    let off = src.rfind("inner").unwrap();
    let line = src[..off].matches('\n').count() + 1;
    let col = off - src[..off].rfind('\n').unwrap();
    assert!(e.starts_with(&format!("s.ron:{line}:{col}")), "{e}");
    assert!(e.contains("unknown name `inner`"), "{e}");
}

#[test]
fn a_for_step_may_be_a_name_read_each_trip_or_an_expression_computed_once() {
    let out = run(r#"
        Let("n", "0"),
        For(var: "s", from: 1, to: 100, step: "s", body: [Set("n", "n + 1")]),
        Store("out[tid.x]", "n"),
        Let("m", "0"),
        Let("two", "2"),
        For(var: "k", from: 1, to: 100, step: "k + two", body: [
            Set("m", "m * 3 + tid.x * 7 - tid.x * 7 + 1"),
        ]),
        Store("out[tid.x + 32]", "m"),"#);
    for t in 0..32 {
        // s = 1, 2, 4, ..., 64: seven trips.
        assert_eq!(out[t], 7, "doubling step, lane {t}");
        // k + two = 3 at entry: k = 1, 4, ..., 97: 33 trips, m = (3^33 - 1) / 2 mod 2^32.
        let want = (0..33).fold(0u32, |m, _| m.wrapping_mul(3).wrapping_add(1));
        assert_eq!(out[t + 32], want, "computed step, lane {t}");
    }
}

#[test]
fn a_conversion_of_a_comparison_gives_one_or_zero() {
    let out = run(r#"
        Let("c", "u32(tid.x < 5) * 2u + u32(tid.x >= 30)"),
        Store("out[tid.x]", "i32(c) + i32(tid.x == 7) * 10"),"#);
    for (t, &got) in out.iter().take(32).enumerate() {
        let want = 2 * (t < 5) as u32 + (t >= 30) as u32 + 10 * (t == 7) as u32;
        assert_eq!(got, want, "lane {t}");
    }
}
