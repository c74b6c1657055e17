use super::*;

#[test]
fn shared_out_of_bounds_faults() {
    // tile[lane][lane + 2]: lane 30 reaches column 32.
    let p = P::new(vec![
        Add {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Load(shared_mem(0, &[r(0), r(1)], 1, r(3))),
    ])
    .special(0, Special::LaneId)
    .konst(2, 2)
    .shared(tile("tile", Elem::F32, &[32, 32], 0, 0))
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert_eq!(f.pc, Some(1));
    assert_eq!(f.thread, Some([30, 0, 0]));
    assert!(
        matches!(
            &f.kind,
            FaultKind::OutOfBounds { global: false, access, bounds }
                if access == "tile[30][32]" && bounds == "tile[32][32]"
        ),
        "{f}"
    );

    // A negative index.
    let p = P::new(vec![
        Sub {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Store(shared_mem(0, &[r(1)], 1, r(0))),
    ])
    .special(0, Special::LaneId)
    .konst(2, 1)
    .shared(tile("v", Elem::U32, &[64], 0, 0))
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(
            &f.kind,
            FaultKind::OutOfBounds { global: false, access, bounds }
                if access == "v[-1]" && bounds == "v[64]"
        ),
        "{f}"
    );

    // A vector whose last element is outside.
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Load(shared_mem(0, &[r(1)], 4, r(4))),
    ])
    .special(0, Special::LaneId)
    .konst(2, 4)
    .shared(tile("v", Elem::F32, &[126], 0, 0))
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert_eq!(f.thread, Some([31, 0, 0]));
    assert!(
        matches!(
            &f.kind,
            FaultKind::OutOfBounds { global: false, access, bounds }
                if access == "v[124] (a vector of 4 f32), reaching [127]" && bounds == "v[126]"
        ),
        "{f}"
    );
}

#[test]
fn global_out_of_bounds_faults() {
    let p = P::new(vec![Store(global_mem(0, r(0), 1, r(0)))])
        .block([40, 1, 1])
        .special(0, Special::TidLinear)
        .buffer("out", Elem::U32, 36)
        .build();
    let o = exec_cfg(&p, Config::default(), [0; 3]);
    let f = o.fault();
    assert_eq!(f.thread, Some([36, 0, 0]));
    assert!(
        matches!(
            &f.kind,
            FaultKind::OutOfBounds { global: true, access, bounds }
                if access == "out[36]" && bounds == "out[36]"
        ),
        "{f}"
    );
    // Warp 0 ran and stored before warp 1 faulted.
    assert_eq!(o.global.read(0)[..32], lanes(|l| l));
}

#[test]
fn misaligned_vectors_fault() {
    // tile[lane][1] as a vector of 4 f32: byte 4 of row 0.
    let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 4, r(4)))])
        .special(0, Special::LaneId)
        .konst(1, 1)
        .shared(tile("tile", Elem::F32, &[32, 32], 0, 0))
        .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert_eq!(f.thread, Some([0, 0, 0]));
    assert!(
        matches!(
            &f.kind,
            FaultKind::Misaligned { width: 16, access, byte: 4, memory }
                if access == "tile[0][1] (a vector of 4 f32)" && memory == "shared memory"
        ),
        "{f}"
    );

    // Column 0 but rows padded by 1: row 1 starts at byte 132.
    let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 2, r(4)))])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .shared(tile("tile", Elem::F32, &[32, 32], 1, 0))
        .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert_eq!(f.thread, Some([1, 0, 0]));
    assert!(
        matches!(
            &f.kind,
            FaultKind::Misaligned { width: 8, access, byte: 132, memory }
                if access == "tile[1][0] (a vector of 2 f32)" && memory == "shared memory"
        ),
        "{f}"
    );

    // Global: buf[lane * 2 + 1] as a float2.
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Add {
            dst: r(1),
            a: r(1),
            b: r(3),
        },
        Load(global_mem(0, r(1), 2, r(4))),
    ])
    .special(0, Special::LaneId)
    .konst(2, 2)
    .konst(3, 1)
    .buffer("buf", Elem::F32, 128)
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(
            &f.kind,
            FaultKind::Misaligned { width: 8, access, byte: 4, memory }
                if access == "buf[1] (a vector of 2 f32)" && memory == "`buf`"
        ),
        "{f}"
    );
}

/// 32 lanes reading tile[lane][0] of a [32][32] f32 array: 32 wavefronts, 31 conflicts;
/// with one element of padding per row, 1 wavefront.
#[test]
fn shared_bank_cost() {
    for (pad, wavefronts, conflicts) in [(0, 32, 31), (1, 1, 0)] {
        let p = P::new(vec![
            Load(shared_mem(0, &[r(0), r(1)], 1, r(2))),
            Store(shared_mem(0, &[r(1), r(0)], 1, r(2))),
        ])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .shared(tile("tile", Elem::F32, &[32, 32], pad, 0))
        .build();
        let o = exec(&p);
        let s = &o.stats.per_pc[0];
        assert_eq!(
            (s.wavefronts, s.conflicts),
            (wavefronts, conflicts),
            "pad {pad}"
        );
        // The row store tile[0][lane] is conflict-free either way.
        assert_eq!(o.stats.per_pc[1].wavefronts, 1);
        assert_eq!(o.stats.per_bank.iter().sum::<u64>(), 64);
        if pad == 0 {
            assert_eq!(o.stats.per_bank[0], 33);
        }
        // Per instruction: the column load asks bank 0 for 32 words (unpadded) or every
        // bank for one; the row store every bank for one.
        let pb = &o.stats.per_pc_bank;
        assert_eq!(pb.len(), p.code.len() * 32);
        if pad == 0 {
            assert_eq!(pb[0], 32);
            assert_eq!(pb[1..32].iter().sum::<u64>(), 0);
        } else {
            assert!(pb[..32].iter().all(|&v| v == 1));
        }
        assert!(pb[32..64].iter().all(|&v| v == 1));
        let summed: Vec<u64> = (0..32)
            .map(|b| (0..p.code.len()).map(|pc| pb[pc * 32 + b]).sum())
            .collect();
        assert_eq!(summed, o.stats.per_bank);
        assert_eq!(o.stats.wavefronts(), wavefronts + 1);
        assert_eq!(o.stats.conflicts(), conflicts);
    }
}

/// Vector and f64 accesses move the right words; stores to one address keep the highest
/// lane's value.
#[test]
fn vector_and_wide_accesses() {
    // Each lane stores (4l, 4l+1, 4l+2, 4l+3) as a float4 at v[4 * lane], reads back
    // v[4 * (31 - lane)] as two float2, and writes an f64 pair to a global buffer.
    let p = P::new(vec![
        /* 0 */
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        /* 1 */
        Add {
            dst: r(5),
            a: r(1),
            b: r(20),
        },
        /* 2 */
        Add {
            dst: r(6),
            a: r(1),
            b: r(21),
        },
        /* 3 */
        Add {
            dst: r(7),
            a: r(1),
            b: r(22),
        },
        /* 4 */
        Add {
            dst: r(8),
            a: r(1),
            b: r(23),
        },
        /* 5 */ Store(shared_mem(0, &[r(1)], 4, r(5))),
        /* 6 */
        Sub {
            dst: r(9),
            a: r(24),
            b: r(0),
        },
        /* 7 */
        Mul {
            dst: r(9),
            a: r(9),
            b: r(2),
        },
        /* 8 */ Load(shared_mem(0, &[r(9)], 2, r(10))),
        /* 9 */
        Add {
            dst: r(9),
            a: r(9),
            b: r(25),
        },
        /* 10 */ Load(shared_mem(0, &[r(9)], 2, r(12))),
        /* 11 */ Store(global_mem(0, r(0), 1, r(10))),
        /* 12 */ Store(global_mem(1, r(22), 1, r(0))),
        /* 13 */ Load(global_mem(0, r(0), 1, r(14))),
    ])
    .special(0, Special::LaneId)
    .konst(2, 4)
    .konst(20, 0)
    .konst(21, 1)
    .konst(22, 2)
    .konst(23, 3)
    .konst(24, 31)
    .konst(25, 2)
    .shared(tile("v", Elem::U32, &[128], 0, 0))
    .buffer("d", Elem::F64, 32)
    .buffer("same", Elem::U32, 4)
    .build();
    let o = exec(&p);
    let m = |l: u32| 4 * (31 - l);
    assert_eq!(o.reg(0, 10), lanes(m));
    assert_eq!(o.reg(0, 11), lanes(|l| m(l) + 1));
    assert_eq!(o.reg(0, 12), lanes(|l| m(l) + 2));
    assert_eq!(o.reg(0, 13), lanes(|l| m(l) + 3));
    let d = o.global.read(0);
    assert_eq!(d.len(), 64);
    for l in 0..32u32 {
        assert_eq!(d[2 * l as usize], m(l));
        assert_eq!(d[2 * l as usize + 1], m(l) + 1);
    }
    assert_eq!(o.reg(0, 14), lanes(m));
    assert_eq!(o.reg(0, 15), lanes(|l| m(l) + 1));
    assert_eq!(o.global.read(1), [0, 0, 31, 0]);
    // 16-byte stores: 4 phases of 8 lanes, conflict-free.
    assert_eq!(o.stats.per_pc[5].wavefronts, 4);
    // 8-byte loads 16 bytes apart: lanes l and l + 8 share banks, 2 per phase of 16.
    assert_eq!(o.stats.per_pc[8].wavefronts, 4);
}

#[test]
fn swizzled_layout() {
    // tile[32][32] with swizzle 1: tile[lane][0] lands on bank `lane`.
    let p = P::new(vec![
        Store(shared_mem(0, &[r(0), r(1)], 1, r(0))),
        Load(shared_mem(0, &[r(0), r(1)], 1, r(2))),
    ])
    .special(0, Special::LaneId)
    .konst(1, 0)
    .shared(tile("tile", Elem::F32, &[32, 32], 0, 1))
    .build();
    let o = exec(&p);
    assert_eq!(o.stats.per_pc[0].wavefronts, 1);
    assert_eq!(o.reg(0, 2), lanes(|l| l));
    // A float2 at tile[1][0] with swizzle 1 and pad 1: column 0 is stored at element
    // 33 + 1 (aligned), column 1 at 33 + 0, so the pair is not contiguous.
    let p = P::new(vec![Load(shared_mem(0, &[r(0), r(1)], 2, r(4)))])
        .special(0, Special::LaneId)
        .konst(1, 0)
        .shared(tile("tile", Elem::F32, &[32, 32], 1, 1))
        .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(f.kind, FaultKind::SwizzleSplit { group: 1, .. }),
        "{f}"
    );
}

#[test]
fn special_registers() {
    let p = P::new(vec![])
        .block([32, 8, 1])
        .special(0, Special::LaneId)
        .special(1, Special::WarpId)
        .special(2, Special::Tid(0))
        .special(3, Special::Tid(1))
        .special(4, Special::Tid(2))
        .special(5, Special::TidLinear)
        .special(6, Special::Ctaid(1))
        .special(7, Special::Ntid(1))
        .special(8, Special::Nctaid(0))
        .build();
    let mut p = p;
    p.grid = [5, 6, 1];
    let o = exec_cfg(&p, Config::default(), [4, 3, 0]);
    o.result.as_ref().unwrap();
    for w in 0..8 {
        assert_eq!(o.reg(w, 0), lanes(|l| l));
        assert_eq!(o.reg(w, 1), [w as u32; 32]);
        assert_eq!(o.reg(w, 2), lanes(|l| l));
        assert_eq!(o.reg(w, 3), [w as u32; 32]);
        assert_eq!(o.reg(w, 4), [0; 32]);
        assert_eq!(o.reg(w, 5), lanes(|l| 32 * w as u32 + l));
        assert_eq!(o.reg(w, 6), [3; 32]);
        assert_eq!(o.reg(w, 7), [8; 32]);
        assert_eq!(o.reg(w, 8), [5; 32]);
    }

    // A 3-D block of 8 x 2 x 3 = 48 threads: 2 warps, the second with 16 lanes.
    let p = P::new(vec![Add {
        dst: r(9),
        a: r(0),
        b: r(0),
    }])
    .block([8, 2, 3])
    .special(0, Special::Tid(0))
    .special(1, Special::Tid(1))
    .special(2, Special::Tid(2))
    .build();
    let o = exec(&p);
    let t = |w: usize, l: u32| 32 * w as u32 + l;
    assert_eq!(o.reg(1, 0)[..16], lanes(|l| t(1, l) % 8)[..16]);
    assert_eq!(o.reg(1, 1)[..16], lanes(|l| t(1, l) / 8 % 2)[..16]);
    assert_eq!(o.reg(1, 2)[..16], lanes(|l| t(1, l) / 16)[..16]);
    assert_eq!(
        o.reg(1, 9)[16..],
        [0; 16],
        "missing lanes are never written"
    );
    assert_eq!(o.stats.per_pc[0].lanes, 48);
    assert_eq!(o.stats.thread_instructions, 96);
    assert_eq!(o.stats.warp_instructions, 4);
}

#[test]
fn partial_last_warp() {
    // 40 threads each store tid to out[tid]; out has exactly 40 elements.
    let p = P::new(vec![Store(global_mem(0, r(0), 1, r(0)))])
        .block([40, 1, 1])
        .special(0, Special::TidLinear)
        .buffer("out", Elem::U32, 40)
        .build();
    let o = exec(&p);
    assert_eq!(o.global.read(0), (0..40).collect::<Vec<u32>>());
    assert_eq!(o.stats.per_pc[0].executions, 2);
    assert_eq!(o.stats.per_pc[0].lanes, 40);
}
