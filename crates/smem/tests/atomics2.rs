//! The shared atomics CUDA C emits, against the H200 (`calibration/atomics2/`): every measured
//! pattern of `tests/fixtures/h200/atomics2_*` — `ATOMS.POPC.INC` (an unused `atomicAdd(&x,
//! 1)`), `atomicSub`/`Inc`/`Dec`, the 64-bit loops (`add min max and or xor`, `f64`), the
//! half-pair loops (`f16x2`, `bf16x2`) and the half's word loop — and separately the held-out
//! random patterns, drawn from another seed and compared only after the rule was fixed.
//! Each probe first stored its lanes' initial values (the store columns), then ran the atomic.

use warpsim_smem::{atomic_cost_with, cost, Atomic, Geometry, LoopData, Op, WARP};

fn fixture(file: &str) -> String {
    let path = format!(
        "{}/../../tests/fixtures/h200/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The probe's memory (calibration/atomics2/probe.cu): the element at byte `o` starts as
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

fn check(stem: &str) -> usize {
    let pats = fixture(&format!("{stem}_patterns.txt"));
    let meas = fixture(&format!("{stem}_measured.tsv"));
    let mut rows = meas.lines();
    rows.next();
    let (mut n, mut bad) = (0, Vec::new());
    for (line, row) in pats.lines().zip(rows) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let m: Vec<&str> = row.split('\t').collect();
        assert_eq!(
            (f[0], f[1], f[2]),
            (m[0], m[1], m[2]),
            "fixtures out of step"
        );
        let width: u32 = f[2].parse().unwrap();
        let mut addrs = [0u32; WARP];
        let mut mask = 0u32;
        for (l, o) in f[3..].iter().enumerate() {
            if *o != "-1" {
                addrs[l] = o.parse().unwrap();
                mask |= 1 << l;
            }
        }
        let want: Vec<u32> = m[3..].iter().map(|v| v.parse().unwrap()).collect();
        let got = predict(f[1], width, &addrs, mask);
        if got[..] != want[..] {
            bad.push(format!(
                "{} {}: measured {want:?}, rule {got:?}",
                f[0], f[1]
            ));
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    n
}

#[test]
fn every_measured_pattern_is_reproduced() {
    assert_eq!(check("atomics2"), 589);
}

#[test]
fn held_out_random_patterns_are_reproduced() {
    assert_eq!(check("atomics2_heldout"), 67);
}
