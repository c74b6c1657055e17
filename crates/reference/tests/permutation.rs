//! `expect: "permutation(src)"`: the final buffer is a rearrangement of `src`'s initial
//! contents, checked by sorting (O(n log n)), with failures reported like mismatches.

use warpsim_exec::init_words;
use warpsim_kernel::Program;
use warpsim_lang::{load_str, Options};
use warpsim_reference::check;

fn prog(ty: &str, out_len: &str, expect: &str) -> (Program, String) {
    let src = format!(
        "Program(\n    name: \"p\",\n    launch: (grid: [1], block: [32]),\n    buffers: [\n        (name: \"inp\", ty: {ty}, len: 64, init: Random(3)),\n        (name: \"out\", ty: {ty}, len: {out_len}, expect: \"{expect}\"),\n    ],\n    body: [],\n)\n"
    );
    match load_str("p.ron", &src, &Options::default()) {
        Ok(p) => (p, src),
        Err(e) => panic!("{e}"),
    }
}

fn err(ty: &str, out_len: &str, expect: &str) -> String {
    let src = format!(
        "Program(\n    name: \"p\",\n    launch: (grid: [1], block: [32]),\n    buffers: [\n        (name: \"inp\", ty: {ty}, len: 64, init: Random(3)),\n        (name: \"out\", ty: {ty}, len: {out_len}, expect: \"{expect}\"),\n    ],\n    body: [],\n)\n"
    );
    load_str("p.ron", &src, &Options::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_rearrangement_passes_and_a_changed_element_fails() {
    for ty in ["U32", "I32", "F32", "F64"] {
        let (p, _) = prog(ty, "64", "permutation(inp)");
        let initial: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
        let per = if ty == "F64" { 2 } else { 1 };
        // The reverse of inp, element by element.
        let rev: Vec<u32> = initial[0].chunks(per).rev().flatten().copied().collect();
        let v = check(&p, &initial, &[Vec::new(), rev.clone()]).unwrap();
        assert_eq!(v.len(), 1);
        assert!(v[0].ok, "{ty}: {:?}", v[0]);
        assert_eq!(v[0].mismatches, 0);

        // Element 5 duplicated over element 9: one surplus value, reported at index 9 or 5.
        let mut bad = rev.clone();
        for w in 0..per {
            bad[9 * per + w] = bad[5 * per + w];
        }
        let v = check(&p, &initial, &[Vec::new(), bad]).unwrap();
        assert!(!v[0].ok, "{ty}");
        assert_eq!(v[0].mismatches, 1, "{ty}");
        let m = v[0].first_mismatch.as_ref().unwrap();
        assert_eq!(
            m.index, 5,
            "{ty}: the first index holding the surplus value"
        );
        // The value reported missing is the one overwritten.
        let missing = warpsim_reference::check(&p, &initial, &[Vec::new(), rev]).unwrap();
        assert!(missing[0].ok);
        assert_ne!(format!("{}", m.got), format!("{}", m.want), "{ty}");
    }
}

#[test]
fn an_in_place_rearrangement_of_the_buffer_itself_is_allowed() {
    let (p, _) = prog("U32", "64", "permutation(out)");
    let initial: Vec<Vec<u32>> = p.buffers.iter().map(init_words).collect();
    let mut fin = initial[1].clone();
    fin.sort();
    assert!(check(&p, &initial, &[Vec::new(), fin.clone()]).unwrap()[0].ok);
    fin[0] = fin[0].wrapping_add(1);
    assert!(!check(&p, &initial, &[Vec::new(), fin]).unwrap()[0].ok);
}

#[test]
fn mistakes_are_refused_at_the_expression() {
    let e = err("U32", "32", "permutation(inp)");
    assert!(e.starts_with("p.ron:6:"), "{e}");
    assert!(
        e.contains("`out` (32 x u32) cannot be a permutation of `inp` (64 x u32)"),
        "{e}"
    );
    let e = err("U32", "64", "permutation(nope)");
    assert!(e.starts_with("p.ron:6:"), "{e}");
    assert!(
        e.contains("`permutation` takes the name of one buffer"),
        "{e}"
    );
    let e = err("U32", "64", "permutation(inp, inp)");
    assert!(
        e.contains("`permutation` takes the name of one buffer"),
        "{e}"
    );
}
