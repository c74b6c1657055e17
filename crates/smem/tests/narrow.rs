//! 1- and 2-byte loads and stores and shared atomics against the H200: every measured pattern
//! of `tests/fixtures/h200/narrow_*` (Nsight Compute's load, store and atomic counters and the
//! `ATOMS` instructions executed, per pattern), and separately the held-out random patterns,
//! which were measured in the same run but not looked at until the rule was fixed
//! (`calibration/probes/narrow/`).

use warpsim_testkit::h200;

use warpsim_smem::{atomic_cost, cost, Atomic, Geometry, Op, WARP};

/// The counters of one pattern: ld wavefronts, ld conflicts, st wavefronts, st conflicts,
/// atom wavefronts, atom conflicts, ATOMS executed.
type Counters = [u32; 7];

/// Prices one trace line as the H200 counted it.
fn predict(op: &str, width: u32, addrs: &[u32; WARP], mask: u32) -> Counters {
    let g = Geometry::H200;
    match op {
        "ld" | "st" => {
            let c = cost(&g, op.parse::<Op>().unwrap(), width, addrs, mask).unwrap();
            let (w, b) = (c.wavefronts, c.conflicts);
            if op == "ld" {
                [w, b, 0, 0, 0, 0, 0]
            } else {
                [0, 0, w, b, 0, 0, 0]
            }
        }
        _ => {
            let a: Atomic = op.parse().unwrap();
            let c = atomic_cost(&g, &a, width, addrs, mask).unwrap();
            [
                c.loads.wavefronts,
                c.loads.conflicts,
                0,
                0,
                c.atom.wavefronts,
                c.atom.conflicts,
                c.trips,
            ]
        }
    }
}

/// Checks every pattern of `<stem>_patterns.txt` against `<stem>_measured.tsv`; returns how
/// many there were.
fn check(stem: &str) -> usize {
    h200::check(
        stem,
        Some(
            "name\top\twidth\tld_wavefronts\tld_bank_conflicts\tst_wavefronts\t\
             st_bank_conflicts\tatom_wavefronts\tatom_bank_conflicts\tatoms_executed",
        ),
        predict,
    )
}

#[test]
fn every_measured_narrow_and_atomic_pattern_is_reproduced() {
    assert_eq!(check("narrow"), 1125);
}

#[test]
fn held_out_random_patterns_are_reproduced() {
    assert_eq!(check("narrow_heldout"), 62);
}

#[test]
fn examples_of_the_rule() {
    let g = Geometry::H200;
    let a = |f: &dyn Fn(u32) -> u32| -> [u32; WARP] { std::array::from_fn(|l| f(l as u32)) };
    let wf =
        |op: Op, w: u32, f: &dyn Fn(u32) -> u32| cost(&g, op, w, &a(f), !0).unwrap().wavefronts;
    // 32 lanes reading the 32 bytes of 8 words, or one byte each of one word: one wavefront.
    assert_eq!(wf(Op::Ld, 1, &|t| t), 1);
    assert_eq!(wf(Op::St, 1, &|t| t % 4), 1);
    // u8 stride 32 bytes: 32 distinct words, 4 per bank of banks 0, 8, 16, 24... 8 each.
    assert_eq!(wf(Op::Ld, 1, &|t| t * 32), 8);
    // u16 stride 64 elements (128 bytes): every lane its own word on bank 0.
    assert_eq!(wf(Op::St, 2, &|t| t * 128), 32);
    let at = |s: &str, w: u32, f: &dyn Fn(u32) -> u32| {
        atomic_cost(&g, &s.parse().unwrap(), w, &a(f), !0).unwrap()
    };
    // A histogram's worst case: every lane on one bin.
    assert_eq!(at("atom.add", 4, &|_| 0).atom.wavefronts, 32);
    assert_eq!(at("red.add.f32", 4, &|_| 0).trips, 32);
}
