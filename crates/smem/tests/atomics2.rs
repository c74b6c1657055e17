//! The shared atomics CUDA C emits, against the H200 (`calibration/probes/shared_atomics/`): every measured
//! pattern of `tests/fixtures/h200/atomics2_*` — `ATOMS.POPC.INC` (an unused `atomicAdd(&x,
//! 1)`), `atomicSub`/`Inc`/`Dec`, the 64-bit loops (`add min max and or xor`, `f64`), the
//! half-pair loops (`f16x2`, `bf16x2`) and the half's word loop — and separately the held-out
//! random patterns, drawn from another seed and compared only after the rule was fixed.
//! Each probe first stored its lanes' initial values (the store columns), then ran the atomic.

use warpsim_testkit::h200;

use warpsim_smem::{atomic_cost_with, cost, Atomic, Geometry, LoopData, Op, WARP};

/// The probe's memory (calibration/probes/shared_atomics/probe.cu): the element at byte `o` starts as
/// `7 * (o / 4) + 3`, lane `l` applies `lane + 1` (`16 - (lane + 1)` for `min.s64`; `and`
/// clears those bits, `or` sets them in the high word). Float adds stand in as integer adds:
/// only whether an update changes its word matters to the loop.
struct Probe<'a> {
    op: &'a str,
    addrs: &'a [u32; WARP],
    mem: Vec<(u32, u64)>,
}

impl Probe<'_> {
    fn get(&self, a: u32) -> u64 {
        self.mem
            .iter()
            .find(|m| m.0 == a)
            .map_or(7 * (a as u64 / 4) + 3, |m| m.1)
    }
    fn operand(&self, l: usize) -> u64 {
        let v = l as u64 + 1;
        if self.op == "atom.min.s64" {
            (16 - v as i64) as u64
        } else {
            v
        }
    }
    fn update(&self, old: u64, v: u64) -> u64 {
        match self.op.split('.').nth(1).unwrap() {
            "min" if self.op.ends_with("s64") => (old as i64).min(v as i64) as u64,
            "min" => old.min(v),
            "max" => old.max(v),
            "and" => old & !v,
            "or" => old | v << 32,
            "xor" => old ^ v,
            _ => old.wrapping_add(v),
        }
    }
}

impl LoopData for Probe<'_> {
    fn load(&mut self, l: usize) -> u64 {
        self.get(self.addrs[l])
    }
    fn wants(&mut self, l: usize, seen: u64) -> bool {
        !self.op.contains(".min.") && !self.op.contains(".max.")
            || self.update(seen, self.operand(l)) != seen
    }
    fn swap(&mut self, l: usize, seen: u64) -> bool {
        let a = self.addrs[l];
        if self.get(a) != seen {
            return false;
        }
        let new = self.update(seen, self.operand(l));
        match self.mem.iter_mut().find(|m| m.0 == a) {
            Some(m) => m.1 = new,
            None => self.mem.push((a, new)),
        }
        true
    }
}

/// ld wavefronts, ld conflicts, st wavefronts, st conflicts, atom wavefronts, atom conflicts,
/// ATOMS executed.
fn predict(op: &str, width: u32, addrs: &[u32; WARP], mask: u32) -> [u32; 7] {
    let g = Geometry::H200;
    let st = cost(&g, Op::St, width, addrs, mask).unwrap();
    let a: Atomic = op.parse().unwrap();
    let mut data = Probe {
        op,
        addrs,
        mem: Vec::new(),
    };
    let c = atomic_cost_with(&g, &a, width, addrs, mask, &mut data).unwrap();
    [
        c.loads.wavefronts,
        c.loads.conflicts,
        st.wavefronts,
        st.conflicts,
        c.atom.wavefronts,
        c.atom.conflicts,
        c.trips,
    ]
}

/// Checks every pattern of `<stem>_patterns.txt` against `<stem>_measured.tsv`; returns how
/// many there were.
fn check(stem: &str) -> usize {
    h200::check(stem, None, predict)
}

#[test]
fn every_measured_pattern_is_reproduced() {
    assert_eq!(check("atomics2"), 589);
}

#[test]
fn held_out_random_patterns_are_reproduced() {
    assert_eq!(check("atomics2_heldout"), 67);
}
