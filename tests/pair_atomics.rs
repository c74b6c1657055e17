//! Pair atomics from the command line (README "Atomics"): 64-bit (`unsigned long long`) and
//! `__half2` atomics with every lane of the warp on one address, verified against values
//! worked out by hand (the fixtures' `expect`s), their report rows named by type; and 64-bit
//! global atomics from many blocks, exact on one runner thread or two.

use crate::util::run_verified;

fn atomics(r: &serde_json::Value) -> Vec<(String, u64, Option<u64>)> {
    r["per_instruction"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|row| {
            let name = row["atomic"].as_str()?;
            let loads = row["loop_loads"][0].as_u64();
            Some((
                name.to_owned(),
                row["wavefronts"].as_u64().unwrap_or(0),
                loads,
            ))
        })
        .collect()
}

#[test]
fn u64_atomics_with_every_lane_on_one_address() {
    let r = run_verified("tests/fixtures/u64_atomics.ron", &[]);
    let mut a = atomics(&r);
    a.sort();
    // add and xor: 32 trips, one lane each (96 atom + 32 load wavefronts, as the H200's
    // `red_add1_u64_const0`); max: lane 0 swaps, the rest see nothing to change on reload (1
    // trip); cas: native, twice 16 lanes queued in each half-warp.
    assert_eq!(
        a,
        [
            ("atom.add.u64".to_owned(), 96, Some(32)),
            ("atom.cas.u64".to_owned(), 64, None),
            ("atom.max.u64".to_owned(), 4, Some(2)),
            ("atom.xor.u64".to_owned(), 96, Some(32)),
        ]
    );
}

#[test]
fn half2_atomics_with_every_lane_on_one_address() {
    let r = run_verified("tests/fixtures/half2_atomics.ron", &[]);
    let a = atomics(&r);
    // Shared: the generic try (1) + 32 trips of 2 (the H200's `atom_add_f16x2_const0`: 65);
    // global: counted, not priced.
    assert_eq!(a.iter().filter(|x| x.0 == "atom.add.f16x2").count(), 3);
    assert!(a
        .iter()
        .filter(|x| x.2.is_some())
        .all(|x| x.1 == 65 && x.2 == Some(32)));
}

#[test]
fn u64_global_atomics_are_exact_on_any_number_of_threads() {
    // tests/fixtures/u64_global_atomics.ron: 16,384 threads into 16 bins of u64 add, long
    // long min, u64 max and or, and f64 add, verified against closed forms; the runner's
    // blocks on one thread and on two.
    for threads in ["1", "2"] {
        let out = crate::util::warpsim()
            .args([
                "run",
                "tests/fixtures/u64_global_atomics.ron",
                "--format",
                "json",
                "--no-timing",
            ])
            .env("RAYON_NUM_THREADS", threads)
            .output()
            .unwrap();
        assert!(out.status.success(), "{threads} threads");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["verified"], true, "{threads}: {}", r["verification"]);
        let mut a: Vec<String> = atomics(&r).into_iter().map(|x| x.0).collect();
        a.sort();
        assert_eq!(
            a,
            [
                "atom.add.f64",
                "atom.add.u64",
                "atom.max.u64",
                "atom.min.s64",
                "atom.or.u64"
            ]
        );
    }
}
