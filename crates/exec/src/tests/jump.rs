//! `Return`, `Break`, `Continue` and functions, from RON programs, against hand-computed
//! buffers: reconvergence after each, barriers after lanes or warps returned, race checking.

use super::*;

/// Loads `src` and runs every block with `racecheck`; the buffers (as i32) and the stats.
fn run_src(src: &str, racecheck: bool) -> Result<(Vec<Vec<i32>>, Stats), Fault> {
    let p =
        warpsim_lang::load_str("t.ron", src, &Default::default()).unwrap_or_else(|d| panic!("{d}"));
    let cfg = Config {
        racecheck,
        ..Config::default()
    };
    let global = Global::new(&p);
    let mut stats = Stats::new(&p, &cfg.geometry);
    let v = Validated::new(&p, &cfg, &global)?;
    for b in 0..p.grid[0] {
        v.run_block([b, 0, 0], &mut stats)?;
    }
    let mem = (0..p.buffers.len())
        .map(|k| global.read(k).into_iter().map(|w| w as i32).collect())
        .collect();
    Ok((mem, stats))
}

fn out(src: &str) -> Vec<i32> {
    run_src(src, false).unwrap().0.remove(0)
}

/// A program of one block of `threads` threads with an i32 buffer `out` of `threads`
/// elements, `functions` and `body` (RON text).
fn prog(threads: u32, functions: &str, body: &str) -> String {
    format!(
        "Program(name: \"t\", launch: (grid: [1], block: [{threads}]),
           buffers: [(name: \"out\", ty: I32, len: {threads})],
           shared: [(name: \"s\", ty: I32, dims: [{threads}])],
           functions: {{ {functions} }},
           body: [ Let(\"i\", \"tid.x\"), {body} ])"
    )
}

#[test]
fn lanes_that_return_stop_and_the_others_go_on() {
    let o = out(&prog(
        64,
        "",
        r#"If(cond: "i % 3 == 1", then: [Return]),
           Store("out[i]", "i + 1"),
           If(cond: "i >= 40", then: [Return], else: [Store("out[i]", "i + 2")]),
           Store("out[i]", "out[i] * 10")"#,
    ));
    let want: Vec<i32> = (0..64)
        .map(|i| match i {
            _ if i % 3 == 1 => 0,
            _ if i >= 40 => i + 1,
            _ => (i + 2) * 10,
        })
        .collect();
    assert_eq!(o, want);
}

#[test]
fn a_barrier_after_returns_waits_only_for_live_threads() {
    // Warp 1 returns whole, half of warp 2 returns; the rest meet at the barrier and read
    // what another warp wrote before it.
    let src = prog(
        96,
        "",
        r#"If(cond: "warpid == 1 || (warpid == 2 && laneid >= 16)", then: [Return]),
           Store("s[i]", "i * 3"),
           Barrier,
           Let("j", "i < 32 ? i + 64 : i - 64"),
           If(cond: "j % 32 < 16", then: [Store("out[i]", "s[j]")]),
           Barrier,
           Store("out[i]", "out[i] + 1")"#,
    );
    let (mem, stats) = run_src(&src, true).unwrap();
    let want: Vec<i32> = (0..96)
        .map(|i| {
            if (32..64).contains(&i) || i >= 80 {
                return 0;
            }
            let j = if i < 32 { i + 64 } else { i - 64 };
            if j % 32 < 16 {
                j * 3 + 1
            } else {
                1
            }
        })
        .collect();
    assert_eq!(mem[0], want);
    assert!(stats.races.is_empty(), "{:?}", stats.races);
}

#[test]
fn a_race_after_a_return_is_still_found() {
    // No barrier between the store of warp 0 and the load of warp 1.
    let src = prog(
        64,
        "",
        r#"If(cond: "laneid >= 16", then: [Return]),
           Store("s[i]", "i"),
           Store("out[i]", "s[(i + 32) % 64]")"#,
    );
    let (_, stats) = run_src(&src, true).unwrap();
    assert!(!stats.races.is_empty());
}

#[test]
fn a_barrier_that_only_some_remaining_lanes_reach_still_faults() {
    let src = prog(
        32,
        "",
        r#"If(cond: "laneid < 8", then: [Return]),
           If(cond: "laneid < 20", then: [Barrier])"#,
    );
    let f = run_src(&src, false).unwrap_err();
    assert!(
        matches!(f.kind, FaultKind::DivergentBarrier { .. }),
        "{f:?}"
    );
}

#[test]
fn break_in_a_divergent_loop() {
    // Each lane adds 0 + 1 + … + lane, breaking after its own index; lanes >= 20 loop to 24.
    let o = out(&prog(
        32,
        "",
        r#"Let("acc", "0"),
           For(var: "k", from: 0, to: 24, body: [
               Set("acc", "acc + k"),
               If(cond: "k == i", then: [Break]),
           ]),
           Store("out[i]", "acc")"#,
    ));
    let want: Vec<i32> = (0..32)
        .map(|i| if i < 24 { i * (i + 1) / 2 } else { 23 * 24 / 2 })
        .collect();
    assert_eq!(o, want);
}

#[test]
fn break_and_continue_in_a_while_with_an_else() {
    // k counts up; even lanes skip odd k, odd lanes skip multiples of 3; each stops after
    // adding 4 terms.
    let o = out(&prog(
        32,
        "",
        r#"Let("acc", "0"), Let("n", "0"), Let("k", "0"),
           While(cond: "k < 100", body: [
               Set("k", "k + 1"),
               If(cond: "i % 2 == 0", then: [
                   If(cond: "k % 2 == 1", then: [Continue]),
               ], else: [
                   If(cond: "k % 3 == 0", then: [Continue]),
               ]),
               Set("acc", "acc + k"),
               Set("n", "n + 1"),
               If(cond: "n == 4", then: [Break]),
           ]),
           Store("out[i]", "acc * 100 + k")"#,
    ));
    // Even: 2 + 4 + 6 + 8, stops at k = 8. Odd: 1 + 2 + 4 + 5, stops at k = 5.
    let want: Vec<i32> = (0..32)
        .map(|i| if i % 2 == 0 { 2000 + 8 } else { 1200 + 5 })
        .collect();
    assert_eq!(o, want);
}

#[test]
fn continue_skips_to_the_step() {
    let o = out(&prog(
        32,
        "",
        r#"Let("acc", "0"),
           For(var: "k", from: 0, to: 10, body: [
               If(cond: "k % 2 == i % 2", then: [Continue]),
               Set("acc", "acc + k"),
           ]),
           Store("out[i]", "acc")"#,
    ));
    let want: Vec<i32> = (0..32).map(|i| if i % 2 == 0 { 25 } else { 20 }).collect();
    assert_eq!(o, want);
}

#[test]
fn nested_loops_break_and_continue_their_own_loop() {
    let o = out(&prog(
        32,
        "",
        r#"Let("acc", "0"),
           For(var: "a", from: 0, to: 6, body: [
               If(cond: "a == i % 4", then: [Continue]),
               For(var: "b", from: 0, to: 8, body: [
                   If(cond: "b > a + i % 3", then: [Break]),
                   If(cond: "b == 1", then: [Continue]),
                   Set("acc", "acc + 10 * a + b"),
               ]),
               If(cond: "acc > 150 + i", then: [Break]),
           ]),
           Store("out[i]", "acc")"#,
    ));
    let want: Vec<i32> = (0..32)
        .map(|i: i32| {
            let mut acc = 0;
            for a in 0..6 {
                if a == i % 4 {
                    continue;
                }
                for b in 0..8 {
                    if b > a + i % 3 {
                        break;
                    }
                    if b == 1 {
                        continue;
                    }
                    acc += 10 * a + b;
                }
                if acc > 150 + i {
                    break;
                }
            }
            acc
        })
        .collect();
    assert_eq!(o, want);
}

#[test]
fn return_inside_loops_then_a_barrier() {
    // Lanes return in the middle of a nested loop; the others finish it, pass a barrier with
    // the lanes of other warps, and read a neighbour's value.
    let src = prog(
        64,
        "",
        r#"Let("acc", "0"),
           For(var: "a", from: 0, to: 4, body: [
               For(var: "b", from: 0, to: 4, body: [
                   If(cond: "a * 4 + b == i % 24", then: [Return]),
                   Set("acc", "acc + 1"),
               ]),
           ]),
           Store("s[i]", "acc"),
           Barrier,
           Store("out[i]", "s[i ^ 32] + 100 * acc")"#,
    );
    let (mem, _) = run_src(&src, true).unwrap();
    let alive = |i: i32| i % 24 >= 16;
    let want: Vec<i32> = (0..64)
        .map(|i: i32| {
            if !alive(i) {
                0
            } else {
                let other = if alive(i ^ 32) { 16 } else { 0 };
                other + 1600
            }
        })
        .collect();
    assert_eq!(mem[0], want);
}

#[test]
fn a_warp_whose_threads_all_returned_is_done() {
    let src = prog(32, "", r#"Return"#);
    let (mem, stats) = run_src(&src, false).unwrap();
    assert_eq!(mem[0], vec![0; 32]);
    // The `Mov` of `Let i` and the `Return`: the `Exit` is never reached.
    assert_eq!(stats.warp_instructions, 2);
}

#[test]
fn functions_expand_with_their_own_names() {
    // `tri` shadows the caller's `i` and `acc`, changes its parameter (a copy), returns early
    // from inside a loop, and calls `sq`.
    let o = out(&prog(
        32,
        r#""sq": (params: ["x"], returns: "x * x"),
           "tri": (params: ["i", "cap"], body: [
               Let("acc", "sq(2)"), Set("acc", "acc - 4"),
               For(var: "k", from: 0, to: 100, body: [
                   If(cond: "k > i", then: [Return]),
                   Set("acc", "acc + k"),
                   If(cond: "acc >= cap", then: [Set("acc", "cap"), Return]),
               ]),
               Set("i", "0"),
           ], returns: "acc")"#,
        r#"Let("acc", "7"),
           Let("t", "tri(i, 40)"),
           Let("q", "sq(i)"),
           Call("tri(i, 1)"),
           Store("out[i]", "t * 1000 + q + acc")"#,
    ));
    let want: Vec<i32> = (0..32)
        .map(|i: i32| {
            let tri = (i * (i + 1) / 2).min(40);
            tri * 1000 + i * i + 7
        })
        .collect();
    assert_eq!(o, want);
}

#[test]
fn function_errors_point_at_the_call_and_the_definition() {
    let err = |functions: &str, body: &str| {
        warpsim_lang::load_str("t.ron", &prog(32, functions, body), &Default::default())
            .unwrap_err()
    };
    let line_of = |d: &warpsim_kernel::Diag| d.location.split(':').nth(1).unwrap().to_owned();
    // An error inside the body is at the body's line, with the call as a note.
    let d = err(
        "\"f\": (params: [\"v\"],\n body: [Set(\"w\", \"v\")])",
        "\nCall(\"f(i)\")",
    );
    assert!(d.message.contains("no register `w`"), "{d}");
    assert_eq!(line_of(&d), "5");
    assert_eq!(d.related.len(), 1);
    assert!(d.related[0].message.contains("in this call of `f`"));
    assert_eq!(line_of(&d.related[0]), "7");
    // An error at the call is at the call, with the definition as a note.
    let d = err("\n\"f\": (params: [\"a\", \"b\"])", "\nCall(\"f(i)\")");
    assert!(d.message.contains("takes 2 arguments"), "{d}");
    assert_eq!(line_of(&d), "7");
    assert!(d.related[0].message.contains("`f` is defined here"));
    assert_eq!(line_of(&d.related[0]), "5");
    // A Return inside a function leaves the function, not the kernel; Break needs its loop.
    let d = err(
        "\"f\": (body: [Break])",
        "For(var: \"k\", from: 0, to: 2, body: [Call(\"f()\")])",
    );
    assert!(
        d.message
            .contains("`Break` outside a loop of this function"),
        "{d}"
    );
}

#[test]
fn a_function_that_returns_early_inside_the_callers_loop() {
    // `clamp` returns early for large values; it is called in a divergent loop that breaks.
    let o = out(&prog(
        32,
        r#""clamp": (params: ["v", "hi"], body: [
               If(cond: "v > hi", then: [Set("v", "hi"), Return]),
               Set("v", "v + 1000"),
           ], returns: "v")"#,
        r#"Let("acc", "0"),
           For(var: "k", from: 0, to: 10, body: [
               If(cond: "k > i", then: [Break]),
               Let("c", "clamp(k * i, 20)"),
               Set("acc", "acc + c"),
           ]),
           Store("out[i]", "acc")"#,
    ));
    let want: Vec<i32> = (0..32)
        .map(|i: i32| {
            (0..10)
                .take_while(|&k| k <= i)
                .map(|k| if k * i > 20 { 20 } else { k * i + 1000 })
                .sum()
        })
        .collect();
    assert_eq!(o, want);
}
