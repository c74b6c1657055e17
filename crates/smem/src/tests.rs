use super::*;

fn addrs(f: impl Fn(u32) -> u32) -> [u32; WARP] {
    std::array::from_fn(|l| f(l as u32))
}

fn wf(op: Op, width: u32, f: impl Fn(u32) -> u32) -> u32 {
    cost(&Geometry::H200, op, width, &addrs(f), u32::MAX)
        .unwrap()
        .wavefronts
}

#[test]
fn seed_examples() {
    assert_eq!(wf(Op::Ld, 4, |t| t * 4), 1);
    assert_eq!(wf(Op::Ld, 4, |t| t * 8), 2);
    assert_eq!(wf(Op::Ld, 4, |_| 0), 1);
    assert_eq!(wf(Op::Ld, 4, |t| (t % 4) * 128), 4);
    assert_eq!(wf(Op::Ld, 4, |t| t * 128), 32);
    assert_eq!(wf(Op::Ld, 4, |t| t * 33 * 4), 1);
    assert_eq!(wf(Op::Ld, 8, |t| t * 8), 2);
    assert_eq!(wf(Op::Ld, 8, |_| 0), 1);
    assert_eq!(wf(Op::St, 8, |_| 0), 2);
    assert_eq!(wf(Op::Ld, 16, |t| t * 16), 4);
    assert_eq!(wf(Op::Ld, 16, |_| 0), 2);
    assert_eq!(wf(Op::St, 16, |_| 0), 4);
    assert_eq!(wf(Op::Ld, 16, |t| ((t % 4) * 8 + t / 4) * 16), 16);
}

#[test]
fn errors() {
    let g = Geometry::H200;
    let a = addrs(|t| t * 4 + 2);
    assert!(matches!(
        cost(&g, Op::Ld, 4, &a, 1 << 3),
        Err(Error::Misaligned { lane: 3, .. })
    ));
    assert_eq!(cost(&g, Op::Ld, 4, &a, 0).unwrap(), Cost::default());
    assert!(matches!(cost(&g, Op::Ld, 3, &a, 1), Err(Error::Width(3))));
    assert!(Geometry::new(0, 4).is_err());
    assert!(Geometry::new(32, 3).is_err());
    assert!(Geometry::new(32, 2).is_err());
}

#[test]
fn scan32_paths_agree() {
    // The AVX2 path (where the CPU has it) and the portable one are the same source; make
    // sure the portable one is exercised too.
    let patterns: [[u32; WARP]; 5] = [
        addrs(|t| t * 4),
        addrs(|t| t * 132),
        addrs(|t| t * 8),
        addrs(|t| (t ^ 5) * 4 + 3),
        addrs(|t| t.wrapping_mul(2654435761)),
    ];
    for a in &patterns {
        for mask in [u32::MAX, 0x5555_5555, 1, 0x8000_0001, 0xffff] {
            for shift in 2..=6 {
                assert_eq!(scan32(shift, a, mask), scan32_portable(shift, a, mask));
            }
        }
    }
    assert_eq!(
        scan32_portable(2, &addrs(|t| t * 4), u32::MAX),
        (124, u32::MAX)
    );
    assert_eq!(scan32_portable(2, &addrs(|t| t * 8), u32::MAX).1, 0);
    assert_eq!(
        scan32_portable(2, &addrs(|t| t * 8), 0xffff),
        (120, 0x5555_5555)
    );
}

#[test]
fn per_bank_counts() {
    let g = Geometry::H200;
    let mut pb = vec![0u64; 32];
    cost_counting(&g, Op::Ld, 4, &addrs(|t| t * 128), u32::MAX, Some(&mut pb)).unwrap();
    assert_eq!(pb[0], 32);
    assert_eq!(pb[1..].iter().sum::<u64>(), 0);
    let mut pb = vec![0u64; 32];
    cost_counting(&g, Op::Ld, 4, &addrs(|t| t * 4), u32::MAX, Some(&mut pb)).unwrap();
    assert!(pb.iter().all(|&c| c == 1));
}

#[test]
fn bank_counts() {
    let g = Geometry::H200;
    let mut c = BankCounts::new(32);
    assert!(c.is_empty());
    // Every bank once (kept as one number), twice.
    for _ in 0..2 {
        cost_into(&g, Op::Ld, 4, &addrs(|t| t * 4), u32::MAX, &mut c).unwrap();
    }
    // Banks 0-15 once, from half a warp.
    cost_into(&g, Op::St, 4, &addrs(|t| t * 4), 0xffff, &mut c).unwrap();
    // 32-way on bank 0, with lanes 1 and 2 on one word: 31 distinct words.
    let a = addrs(|t| if t == 2 { 128 } else { t * 128 });
    let cost = cost_into(&g, Op::Ld, 4, &a, u32::MAX, &mut c).unwrap();
    assert_eq!((cost.wavefronts, cost.conflicts), (31, 30));
    let got: Vec<u64> = (0..32).map(|b| c.get(b)).collect();
    let mut want = vec![2u64; 32];
    want[..16].iter_mut().for_each(|n| *n += 1);
    want[0] += 31;
    assert_eq!(got, want);
    let mut out = vec![1u64; 32];
    c.add_to(&mut out);
    assert_eq!(out, want.iter().map(|n| n + 1).collect::<Vec<_>>());
    assert_eq!(c.get(32), 0);
    c.clear();
    assert!(c.is_empty());
    // A smaller counter grows to the geometry.
    let mut small = BankCounts::new(4);
    cost_into(&g, Op::Ld, 4, &addrs(|t| t * 4), 1 << 31, &mut small).unwrap();
    assert_eq!(small.banks(), 32);
    assert_eq!(small.get(31), 1);
}

#[test]
fn wide_rows_fast_path() {
    let g = Geometry::H200;
    // 8-byte rows, an f64 column of a tile padded by one (66 words a row), 16-byte rows,
    // and (slow path) a 2-way conflicted 8-byte access: as the spelled-out analysis says.
    let cases: [(Op, u32, [u32; WARP]); 5] = [
        (Op::Ld, 8, addrs(|t| 800 + t * 8)),
        (Op::St, 8, addrs(|t| t * 33 * 8)),
        (Op::Ld, 16, addrs(|t| t * 16)),
        (Op::St, 8, addrs(|t| t * 16)),
        (Op::Ld, 8, addrs(|t| (t ^ 3) * 8)),
    ];
    for (op, width, a) in cases {
        let mut pb = vec![0u64; 32];
        let c = cost_counting(&g, op, width, &a, u32::MAX, Some(&mut pb)).unwrap();
        let an = analyze(&g, op, width, &a, u32::MAX).unwrap();
        assert_eq!(c, an.cost);
        let mut want = vec![0u64; 32];
        for ph in &an.phases {
            for (b, &n) in ph.per_bank.iter().enumerate() {
                want[b] += n as u64;
            }
        }
        assert_eq!(pb, want);
    }
    assert_eq!(wide_rows(2, 8, &addrs(|t| t * 8)), Some(2));
    assert_eq!(wide_rows(2, 8, &addrs(|t| t * 16)), None);
    assert_eq!(wide_rows(2, 16, &addrs(|t| t * 16 + 8)), None);
}

#[test]
fn general_path_without_sorting() {
    let g = Geometry::H200;
    // 16-byte loads, four lanes per word group: rule 3 pairs lanes; 2 wavefronts.
    assert_eq!(wf(Op::Ld, 16, |t| (t / 2) * 16), 2);
    // Eight-byte stores on one bank pair, every lane its own words: 32 words on banks 0
    // and 1 per phase of 16 lanes.
    assert_eq!(wf(Op::St, 8, |t| t * 128), 32);
    // Duplicate words in a conflicted phase are served once.
    assert_eq!(wf(Op::Ld, 4, |t| (t % 8) * 128), 8);
    // More than 64 banks: the sorted path.
    let g128 = Geometry::new(128, 4).unwrap();
    let c = cost(&g128, Op::Ld, 4, &addrs(|t| (t % 4) * 512), u32::MAX).unwrap();
    assert_eq!(c.wavefronts, 4);
    let mut pb = vec![0u64; 128];
    cost_counting(
        &g,
        Op::Ld,
        4,
        &addrs(|t| (t % 8) * 128),
        u32::MAX,
        Some(&mut pb),
    )
    .unwrap();
    assert_eq!(pb[0], 8);
}
