//! Properties of the bank model, over random accesses and geometries.

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use warpsim_smem::{
    analyze, cost, cost_counting, cost_into, cost_uniform_into, BankCounts, Geometry, Op, WARP,
};

type Addrs = [u32; WARP];

/// Geometries whose phase bytes are a power of two of at least 64, so every undoubled phase
/// holds a whole number of lane quads (4, 8, 16 or 32 lanes) for every access width.
const QUAD_GEOMETRIES: &[(u32, u32)] = &[
    (32, 4),
    (16, 4),
    (64, 4),
    (128, 4),
    (1024, 4),
    (8, 8),
    (16, 8),
    (32, 8),
    (4, 16),
    (32, 16),
    (2, 32),
    (16, 64),
];

/// Any geometry, including ones whose phases hold 1, 2, 3, 6 ... lanes.
fn any_geometry() -> impl Strategy<Value = Geometry> {
    prop_oneof![
        3 => Just(Geometry::H200),
        2 => proptest::sample::select(QUAD_GEOMETRIES)
            .prop_map(|(b, w)| Geometry::new(b, w).unwrap()),
        2 => (1u32..=96, 2u32..=6).prop_map(|(b, s)| Geometry::new(b, 1 << s).unwrap()),
    ]
}

fn quad_geometry() -> impl Strategy<Value = Geometry> {
    proptest::sample::select(QUAD_GEOMETRIES).prop_map(|(b, w)| Geometry::new(b, w).unwrap())
}

fn any_op() -> impl Strategy<Value = Op> {
    prop_oneof![Just(Op::Ld), Just(Op::St)]
}

fn any_width() -> impl Strategy<Value = u32> {
    prop_oneof![Just(4u32), Just(8), Just(16)]
}

fn any_mask() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => Just(u32::MAX),
        3 => any::<u32>(),
        1 => Just(0u32),
        1 => (0u32..32).prop_map(|l| 1u32 << l),
        1 => Just(0x5555_5555u32),
        1 => Just(0x0000_ffffu32),
    ]
}

/// Lane element indices (to be multiplied by the width): small ranges so that banks clash
/// and words repeat, big ones to exercise the top of the address space, and a share of
/// patterns where lane `i` copies lane `i ^ 1` or `i ^ 2` so that rule 3 fires.
fn elements() -> impl Strategy<Value = Addrs> {
    let raw = prop_oneof![
        3 => proptest::array::uniform32(0u32..8),
        3 => proptest::array::uniform32(0u32..96),
        2 => (0u32..64, 0u32..40, 0u32..4).prop_map(|(base, stride, modulo)| {
            std::array::from_fn(|l| {
                let t = l as u32;
                base + stride * if modulo == 0 { t } else { t % (modulo * 4) }
            })
        }),
        1 => proptest::array::uniform32(0u32..(u32::MAX / 16)),
    ];
    (raw, 0u32..4).prop_map(|(mut e, pairing)| {
        // 0: as drawn; 1: pairs i, i^1; 2: pairs i, i^2; 3: quads.
        for i in 0..WARP {
            let j = match pairing {
                1 => i & !1,
                2 => i & !2,
                3 => i & !3,
                _ => i,
            };
            e[i] = e[j];
        }
        e
    })
}

fn to_addrs(e: &Addrs, width: u32) -> Addrs {
    std::array::from_fn(|l| e[l] * width)
}

/// A tiny deterministic generator for shuffles driven by a proptest seed (which shrinks).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Moves lane `l`'s address and activity to lane `perm[l]`.
fn permute(addrs: &Addrs, mask: u32, perm: &[usize; WARP]) -> (Addrs, u32) {
    let mut a = [0u32; WARP];
    let mut m = 0u32;
    for l in 0..WARP {
        a[perm[l]] = addrs[l];
        if mask & (1 << l) != 0 {
            m |= 1 << perm[l];
        }
    }
    (a, m)
}

/// Any permutation that keeps every lane inside its phase of `p` consecutive lanes.
fn in_phase_permutation(p: usize, seed: u64) -> [usize; WARP] {
    let mut rng = Rng(seed | 1);
    let mut perm: [usize; WARP] = std::array::from_fn(|l| l);
    for chunk in perm.chunks_mut(p) {
        rng.shuffle(chunk);
    }
    perm
}

/// A permutation that keeps rule 3's verdict and the phases, for undoubled phases of `p`
/// lanes (a multiple of 4). Rule 3 asks whether lanes `i` and `i ^ 1` (or `i` and `i ^ 2`)
/// agree; those pairs live inside aligned quads of lanes. So we may
/// * move whole quads to other quad slots of the same undoubled phase (the doubled phase of
///   `2p` lanes is a union of two undoubled ones, so it is kept too);
/// * inside each quad, XOR the lane's low two bits with a per-quad constant: that maps the
///   pair {i, i^m} onto the pair {i^c, i^c^m}, so the set of `m`-pairs is unchanged;
/// * swap the low two bits of every lane (the same for all quads): that turns `i^1` pairs
///   into `i^2` pairs and back, and rule 3 accepts either.
///
/// Moving single lanes freely would not do: e.g. a broadcast in lanes 0-1 and another in
/// lanes 2-3 pairs as `i^1`; swapping lanes 1 and 2 breaks both pairings and the phase
/// halves, which genuinely changes the cost.
fn pairing_permutation(p: usize, seed: u64) -> [usize; WARP] {
    let mut rng = Rng(seed | 1);
    let swap_bits = rng.below(2) == 1;
    let mut quads: Vec<usize> = (0..WARP / 4).collect();
    for chunk in quads.chunks_mut(p / 4) {
        rng.shuffle(chunk);
    }
    let xors: Vec<usize> = (0..WARP / 4).map(|_| rng.below(4)).collect();
    std::array::from_fn(|l| {
        let q = l / 4;
        let mut low = (l % 4) ^ xors[q];
        if swap_bits {
            low = ((low & 1) << 1) | (low >> 1);
        }
        quads[q] * 4 + low
    })
}

/// The H200 rule of `calibration/sources/h200/README.md`, written out the plain way: 32 banks of 4 bytes,
/// sets of words per bank. Returns `(wavefronts, bank_conflicts)`.
fn naive_h200(op: Op, width: u32, addrs: &Addrs, mask: u32) -> (u32, u32) {
    let active = |i: usize| mask & (1 << i) != 0;
    // Rule 2: a phase moves 128 bytes.
    let mut lanes = (128 / width) as usize;
    // Rule 3.
    let paired =
        |m: usize| (0..32).all(|i| !active(i) || !active(i ^ m) || addrs[i] == addrs[i ^ m]);
    if op == Op::Ld && width >= 8 && (paired(1) || paired(2)) {
        lanes = (lanes * 2).min(32);
    }
    let (mut wavefronts, mut busy) = (0, 0);
    for first in (0..32).step_by(lanes) {
        // Rule 1 and 4: the distinct 4-byte words asked of each bank.
        let mut banks: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
        for l in (first..first + lanes).filter(|&l| active(l)) {
            for k in 0..(width / 4) as u64 {
                let word = addrs[l] as u64 / 4 + k;
                banks.entry(word % 32).or_default().insert(word);
            }
        }
        if !banks.is_empty() {
            busy += 1;
            wavefronts += banks.values().map(|s| s.len() as u32).max().unwrap();
        }
    }
    // Rule 5.
    (wavefronts, wavefronts - busy)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Without rule 3 (4-byte accesses, and every store), lanes are anonymous inside a
    /// phase: any reordering within a phase keeps the cost.
    #[test]
    fn reordering_a_phase_keeps_the_cost_without_rule_3(
        g in any_geometry(), op in any_op(), width in any_width(), e in elements(),
        mask in any_mask(), seed in any::<u64>(),
    ) {
        // Loads of 8 and 16 bytes are for the next property.
        let op = if width == 4 { op } else { Op::St };
        let addrs = to_addrs(&e, width);
        let p = g.lanes_per_phase(width) as usize;
        let (pa, pm) = permute(&addrs, mask, &in_phase_permutation(p, seed));
        prop_assert_eq!(
            cost(&g, op, width, &addrs, mask).unwrap(),
            cost(&g, op, width, &pa, pm).unwrap()
        );
    }

    /// With rule 3 in play (loads of 8 or 16 bytes), reorderings that keep the lane pairs of
    /// rule 3 keep the cost (see [`pairing_permutation`]).
    #[test]
    fn reordering_quads_keeps_the_cost_of_wide_loads(
        g in quad_geometry(), width in prop_oneof![Just(8u32), Just(16)], e in elements(),
        mask in any_mask(), seed in any::<u64>(),
    ) {
        let addrs = to_addrs(&e, width);
        let p = g.lanes_per_phase(width) as usize;
        prop_assert_eq!(p % 4, 0);
        let (pa, pm) = permute(&addrs, mask, &pairing_permutation(p, seed));
        let before = analyze(&g, Op::Ld, width, &addrs, mask).unwrap();
        let after = analyze(&g, Op::Ld, width, &pa, pm).unwrap();
        prop_assert_eq!(before.doubled, after.doubled);
        prop_assert_eq!(before.cost, after.cost);
    }

    /// A phase with an active lane costs at least one cycle; one without costs none.
    #[test]
    fn busy_phases_cost_at_least_one(
        g in any_geometry(), op in any_op(), width in any_width(), e in elements(),
        mask in any_mask(),
    ) {
        let addrs = to_addrs(&e, width);
        let a = analyze(&g, op, width, &addrs, mask).unwrap();
        for ph in &a.phases {
            if ph.active != 0 {
                prop_assert!(ph.wavefronts >= 1);
            } else {
                prop_assert_eq!(ph.wavefronts, 0);
            }
        }
        let c = cost(&g, op, width, &addrs, mask).unwrap();
        prop_assert_eq!(c.phases as usize, a.phases.iter().filter(|p| p.active != 0).count());
        prop_assert!(c.wavefronts >= c.phases);
        prop_assert_eq!(mask != 0, c.wavefronts >= 1);
        prop_assert_eq!(c.conflicts, c.wavefronts - c.phases);
    }

    /// `cost`, `cost_counting` and `analyze` tell the same story.
    #[test]
    fn cost_counting_and_analyze_agree(
        g in any_geometry(), op in any_op(), width in any_width(), e in elements(),
        mask in any_mask(),
    ) {
        let addrs = to_addrs(&e, width);
        let c = cost(&g, op, width, &addrs, mask).unwrap();
        let a = analyze(&g, op, width, &addrs, mask).unwrap();
        prop_assert_eq!(c, a.cost);
        let mut counted = vec![0u64; g.banks as usize];
        let c2 = cost_counting(&g, op, width, &addrs, mask, Some(&mut counted)).unwrap();
        prop_assert_eq!(c, c2);
        let mut summed = vec![0u64; g.banks as usize];
        for ph in &a.phases {
            for (b, n) in ph.per_bank.iter().enumerate() {
                summed[b] += *n as u64;
            }
            // The slots agree with the per-bank counts and cover the active lanes.
            let lanes = ph.slots.iter().fold(0, |acc, s| acc | s.lanes);
            prop_assert_eq!(lanes, ph.active);
            for (b, n) in ph.per_bank.iter().enumerate() {
                let slots = ph.slots.iter().filter(|s| s.bank as usize == b).count();
                prop_assert_eq!(slots, *n as usize);
            }
        }
        prop_assert_eq!(&counted, &summed);
        // The same access added twice to `BankCounts` (which keeps accesses that ask every
        // bank for one word apart), and once more to the plain counts.
        let mut counts = BankCounts::new(g.banks);
        for _ in 0..2 {
            prop_assert_eq!(cost_into(&g, op, width, &addrs, mask, &mut counts).unwrap(), c);
        }
        let twice: Vec<u64> = (0..g.banks as usize).map(|b| counts.get(b)).collect();
        let doubled: Vec<u64> = summed.iter().map(|n| 2 * n).collect();
        prop_assert_eq!(&twice, &doubled);
        let mut added = counted.clone();
        counts.add_to(&mut added);
        let tripled: Vec<u64> = summed.iter().map(|n| 3 * n).collect();
        prop_assert_eq!(added, tripled);
        prop_assert_eq!(counts.is_empty(), summed.iter().all(|&n| n == 0));
    }

    /// A broadcast priced by `cost_uniform_into` costs and counts what the same address in
    /// every lane does.
    #[test]
    fn uniform_accesses_agree(
        g in any_geometry(), op in any_op(), width in any_width(), e in 0u32..(u32::MAX / 16),
        mask in any_mask(), misalign in 0u32..4,
    ) {
        let addr = e * width + if misalign == 3 { 4 } else { 0 };
        let addrs = [addr; WARP];
        let mut want = vec![0u64; g.banks as usize];
        let c = cost_counting(&g, op, width, &addrs, mask, Some(&mut want));
        let mut counts = BankCounts::new(g.banks);
        let u = cost_uniform_into(&g, op, width, addr, mask, &mut counts);
        prop_assert_eq!(&u, &c);
        let got: Vec<u64> = (0..g.banks as usize).map(|b| counts.get(b)).collect();
        prop_assert_eq!(got, want);
    }

    /// The H200 geometry matches a plain re-implementation of the written rule.
    #[test]
    fn h200_matches_the_naive_rule(
        op in any_op(), width in any_width(), e in elements(), mask in any_mask(),
    ) {
        let addrs = to_addrs(&e, width);
        let c = cost(&Geometry::H200, op, width, &addrs, mask).unwrap();
        prop_assert_eq!((c.wavefronts, c.conflicts), naive_h200(op, width, &addrs, mask));
    }

    /// With 8-byte banks, two lanes reading the two 4-byte halves of one 8-byte word share
    /// it: one pass.
    #[test]
    fn halves_of_an_eight_byte_word_are_one_pass(
        banks in 16u32..=1024, word in 0u32..(u32::MAX / 8), i in 0usize..32, j in 0usize..32,
        op in any_op(), swap in any::<bool>(),
    ) {
        prop_assume!(i != j);
        let g = Geometry::new(banks, 8).unwrap();
        let mut addrs = [0u32; WARP];
        let (lo, hi) = if swap { (j, i) } else { (i, j) };
        addrs[lo] = word * 8;
        addrs[hi] = word * 8 + 4;
        let c = cost(&g, op, 4, &addrs, (1 << i) | (1 << j)).unwrap();
        prop_assert_eq!((c.wavefronts, c.conflicts, c.phases), (1, 0, 1));
    }

    /// Nothing panics: any width, alignment or mask gives a cost or an error.
    #[test]
    fn never_panics(
        g in any_geometry(), op in any_op(), width in 0u32..40,
        addrs in proptest::array::uniform32(any::<u32>()), mask in any_mask(),
    ) {
        let c = cost(&g, op, width, &addrs, mask);
        let a = analyze(&g, op, width, &addrs, mask);
        prop_assert_eq!(c.is_ok(), a.is_ok());
        if let (Ok(c), Ok(a)) = (c, a) {
            prop_assert_eq!(c, a.cost);
        }
    }
}
