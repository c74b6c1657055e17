//! 64-bit and `f16x2` atomics through the PTX front end (README "PTX beyond the first
//! subset"), hand-written in tests/fixtures/ptx/atomics64.ptx: every value worked out by hand
//! and verified, the rows priced and named as the `Atomic` statement's, `ATOMS.POPC.INC`
//! picked by the RON loader's rule, and what is not modelled refused.

use crate::util::{run_verified, warpsim};

/// The atomic rows: (name, wavefronts, loop-load wavefronts).
fn atomics(r: &serde_json::Value) -> Vec<(String, u64, u64)> {
    let mut v: Vec<_> = r["per_instruction"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|row| {
            Some((
                row["atomic"].as_str()?.to_owned(),
                row["wavefronts"].as_u64().unwrap_or(0),
                row["loop_loads"][0].as_u64().unwrap_or(0),
            ))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn sixty_four_bit_and_half2_atomics_run_verified_and_priced() {
    let r = run_verified("tests/fixtures/ptx/atomics64.ron", &[]);
    let a = atomics(&r);
    let shared: Vec<_> = a.iter().filter(|x| x.1 > 0).cloned().collect();
    // As the RON pair atomics on one address (tests/pair_atomics.rs): a u64 add is 32 trips
    // (96 atom and 32 load wavefronts: 4 a trip while both half-warps have lanes left, then
    // 2), an f16x2 add 65 and 32, cas native (twice 16 lanes a half-warp), exch native.
    // min.s64 of -t and max.u64 of t from 0: lane 0 changes nothing (done after its load),
    // every other lane changes the word, one a trip: 31 trips, 15 × 4 + 16 × 2 = 92.
    let s = |n: &str, w: u64, l: u64| (n.to_owned(), w, l);
    assert_eq!(
        shared,
        [
            s("atom.add.f16x2", 65, 32),
            s("atom.add.u64", 96, 32),
            s("atom.cas.u64", 64, 0),
            s("atom.exch.u64", 32, 0),
            s("atom.max.u64", 92, 31),
            s("atom.min.s64", 92, 31),
        ]
    );
    // Global ones are counted, not priced.
    let global: Vec<_> = a
        .iter()
        .filter(|x| x.1 == 0)
        .map(|x| x.0.as_str())
        .collect();
    assert_eq!(
        global,
        [
            "atom.add.f16x2",
            "atom.add.f64",
            "atom.add.u64",
            "atom.cas.u64",
            "atom.max.s64",
            "atom.min.s64",
            "atom.or.u64",
            "atom.xor.u64",
        ]
    );
}

#[test]
fn bf16x2_adds_return_what_the_h200_returned() {
    // Shared: rule 10 as for f16x2 (the generic try + 32 trips: 65 atom, 32 load wavefronts,
    // the H200's `atom_add_bf16x2_const0`); global: counted.
    let r = run_verified("tests/fixtures/ptx/bf16x2.ron", &[]);
    assert_eq!(
        atomics(&r),
        [
            ("atom.add.bf16x2".to_owned(), 0, 0),
            ("atom.add.bf16x2".to_owned(), 65, 32)
        ]
    );
}

#[test]
fn an_unread_add_of_one_is_popc_inc_as_in_ron() {
    // 32 lanes on two words of banks 0 and 1: POPC.INC serves each address once (1
    // wavefront); the read add and the run-time 1 are ATOMS.ADD (16 lanes a bank: 16).
    let r = run_verified("tests/fixtures/ptx/popc.ron", &[]);
    let a = atomics(&r);
    let names: Vec<_> = a.iter().map(|x| (x.0.as_str(), x.1)).collect();
    assert_eq!(
        names,
        [
            ("atom.add.u32", 16),
            ("atom.add.u32", 16),
            ("red.popc.u32", 1)
        ]
    );
    let sh = &r["shared"];
    assert_eq!(
        [
            &sh["atom_wavefronts"],
            &sh["atom_bank_conflicts"],
            &sh["atom_instructions"]
        ],
        [33, 30, 3]
    );
}

#[test]
fn unmodelled_atomics_exit_2_at_their_line() {
    for (k, line, want) in [
        ("half2_max", 11, "only add was measured on the H200"),
        (
            "buffer",
            21,
            "`red.global.add.u64` on a buffer of f32 elements",
        ),
        ("min_f64", 32, "CUDA has no such atomic"),
        ("misaligned", 42, "misaligned 8-byte access"),
    ] {
        let path = format!("tests/fixtures/ptx/bad_atom_{k}.ron");
        let out = warpsim()
            .args(["run", &path, "--no-timing"])
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{k}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{k}: {err}");
        let at = format!("tests/fixtures/ptx/bad_atomics64.ptx:{line}:2");
        assert!(err.contains(&at), "{k}: no {at} in {err}");
    }
}
