//! Local memory (`Space::Local`): each thread's own bytes, and its faults.

use super::*;
use warpsim_kernel::LocalInfo;

/// A byte-addressed local access of `vec` `elem`s at `addr + off`.
fn local_mem(addr: u16, off: u16, vec: u8, data: u16) -> Mem {
    Mem {
        space: Space::Local,
        array: 0,
        rank: 0,
        idx: [r(addr), r(off), Reg(0)],
        vec,
        data: r(data),
        elem: None,
    }
}

fn with_local(mut p: P, bytes: u32, elem: Elem) -> Program {
    p.local = (
        vec![LocalInfo {
            name: "__local_depot0".into(),
            elem,
        }],
        bytes,
    );
    p.build()
}

#[test]
fn every_thread_has_its_own_local_memory() {
    // Every lane of two warps stores its thread index (and, as a vector, 100 + it) at the
    // same offsets, then loads them back.
    let p = P::new(vec![
        Add {
            dst: r(3),
            a: r(0),
            b: r(5),
        },
        Store(local_mem(1, 2, 1, 0)),
        Store(local_mem(1, 6, 2, 3)),
        Load(local_mem(1, 2, 1, 8)),
        Load(local_mem(1, 6, 2, 9)),
    ])
    .block([64, 1, 1])
    .special(0, Special::TidLinear)
    .konst(1, 8)
    .konst(2, 4)
    .konst(5, 100)
    .konst(6, 8)
    .konst(4, 0);
    // (The vector's second word: r4 = 0 in every lane.)
    let prog = with_local(p, 32, Elem::U32);
    let out = exec(&prog);
    for w in 0..2 {
        assert_eq!(out.reg(w, 8), lanes(|l| w as u32 * 32 + l), "warp {w}");
        assert_eq!(out.reg(w, 9), lanes(|l| w as u32 * 32 + l + 100));
        assert_eq!(out.reg(w, 10), [0; 32]);
    }
    // Never priced by the bank model.
    assert_eq!(
        out.stats.per_pc.iter().map(|p| p.wavefronts).sum::<u64>(),
        0
    );
}

#[test]
fn local_out_of_bounds_and_misaligned_fault() {
    // Lane l loads 4 bytes at offset 4 * l of its 16 bytes: lane 4 is past them.
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Load(local_mem(1, 3, 1, 4)),
    ])
    .special(0, Special::LaneId)
    .konst(2, 4)
    .konst(3, 0);
    let prog = with_local(p, 16, Elem::U32);
    let f = exec_cfg(&prog, Config::default(), [0; 3])
        .result
        .unwrap_err();
    assert_eq!(f.pc, Some(1));
    assert_eq!(f.thread, Some([4, 0, 0]));
    assert!(
        matches!(&f.kind, FaultKind::LocalOutOfBounds { access, bounds }
            if access == "a 4-byte access at local byte 16"
                && bounds == "the thread's 16 bytes of local memory"),
        "{f}"
    );
    // An 8-byte access at byte 4.
    let p = P::new(vec![Load(local_mem(1, 2, 1, 4))])
        .konst(1, 4)
        .konst(2, 0);
    let prog = with_local(p, 16, Elem::F64);
    let f = exec_cfg(&prog, Config::default(), [0; 3])
        .result
        .unwrap_err();
    assert!(
        matches!(
            &f.kind,
            FaultKind::Misaligned {
                width: 8,
                byte: 4,
                ..
            }
        ),
        "{f}"
    );
}

#[test]
fn indexed_local_accesses_are_malformed() {
    let mut m = local_mem(1, 1, 1, 4);
    m.rank = 1;
    let p = P::new(vec![Load(m)]);
    let prog = with_local(p, 16, Elem::U32);
    let f = exec_cfg(&prog, Config::default(), [0; 3])
        .result
        .unwrap_err();
    assert!(matches!(f.kind, FaultKind::Malformed(_)), "{f}");
}
