//! `ldmatrix`/`stmatrix` and `cp.async` in the warp loop: data checked against what the PTX
//! ISA's fragment layout says (computed here from the words, not with `crate::tensor`),
//! counters against the bank rules' worked examples, faults, and the race checker's view of
//! pending copies.

use super::*;
use warpsim_kernel::ir::{CopyOp, MatrixOp};

/// Shared memory of `bytes` bytes as one `u32` array.
fn words(bytes: u32) -> SharedInfo {
    tile("s", Elem::U32, &[bytes / 4], 0, 0)
}

/// Fills the shared words with `word index * 7 + 1` (lane `l` of each of `k` steps stores
/// word `32 j + l`), using registers 20..24.
fn fill(k: u32) -> Vec<Inst> {
    let mut code = vec![];
    for j in 0..k {
        // r20 = tid + 32 j (r21 = 32 j), r22 = r20 * 7 + 1.
        code.push(Add {
            dst: r(20),
            a: r(0),
            b: r(21),
        });
        code.push(Mad {
            dst: r(22),
            a: r(20),
            b: r(23),
            c: r(24),
        });
        code.push(Store(shared_mem(0, &[r(20)], 1, r(22))));
        if j + 1 < k {
            code.push(Add {
                dst: r(21),
                a: r(21),
                b: r(25),
            });
        }
    }
    code
}

fn with_fill(code: Vec<Inst>, k: u32, bytes: u32) -> P {
    let mut all = fill(k);
    all.extend(code);
    P::new(all)
        .special(0, Special::TidLinear)
        .konst(21, 0)
        .konst(23, 7)
        .konst(24, 1)
        .konst(25, 32)
        .shared(words(bytes))
}

fn word(i: u32) -> u32 {
    i * 7 + 1
}

fn ldsm(n: u8, trans: bool, addr: u16, first: u16) -> Inst {
    Matrix(MatrixOp {
        store: false,
        n,
        trans,
        addr: r(addr),
        regs: [r(first), r(first + 1), r(first + 2), r(first + 3)],
        array: 0,
    })
}

#[test]
fn ldmatrix_x4_gives_each_lane_its_fragment() {
    // Rows at `l * 16` (4 contiguous matrices of 8 rows), then at `l * 128`.
    let p = with_fill(
        vec![
            Mul {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            ldsm(4, false, 1, 4),
            Mul {
                dst: r(1),
                a: r(0),
                b: r(3),
            },
            ldsm(4, false, 1, 8),
        ],
        32,
        4096,
    )
    .konst(2, 16)
    .konst(3, 128)
    .build();
    let out = exec(&p);
    for (first, stride) in [(4u16, 16u32), (8, 128)] {
        for i in 0..4u16 {
            // Lane t holds row t / 4 of matrix i, columns 2 (t % 4) and 2 (t % 4) + 1: the
            // word at that row's address plus 4 (t % 4).
            let want = lanes(|t| word(((8 * i as u32 + t / 4) * stride + 4 * (t % 4)) / 4));
            assert_eq!(out.reg(0, first + i), want, "stride {stride}, matrix {i}");
        }
    }
    // Contiguous rows: one wavefront a matrix; rows 128 bytes apart: 8 rows on banks 0-3,
    // 8 wavefronts a matrix (the README's `ldsm_x4_stride128`: 32 / 28).
    let pcs: Vec<usize> = (0..p.code.len())
        .filter(|&pc| matches!(p.code[pc], Matrix(_)))
        .collect();
    let ps = |k: usize| &out.stats.per_pc[pcs[k]];
    assert_eq!((ps(0).wavefronts, ps(0).conflicts), (4, 0));
    assert_eq!((ps(1).wavefronts, ps(1).conflicts), (32, 28));
    // The bank counts of the instruction: 32 words on banks 0-3 for the strided one.
    let banks = Geometry::H200.banks as usize;
    let row = &out.stats.per_pc_bank[pcs[1] * banks..(pcs[1] + 1) * banks];
    assert_eq!(row[..4], [32, 32, 32, 32]);
    assert!(row[4..].iter().all(|&c| c == 0));
}

#[test]
fn ldmatrix_trans_transposes_and_x1_ignores_the_other_lanes() {
    // x1.trans: lanes 0-7 give rows at `l * 16`; lanes 8-31 give misaligned addresses,
    // which are not used (no fault, not priced).
    let p = with_fill(
        vec![
            Mul {
                dst: r(1),
                a: r(0),
                b: r(2),
            },
            LtU {
                dst: r(5),
                a: r(0),
                b: r(6),
            },
            Select {
                dst: r(1),
                c: r(5),
                a: r(1),
                b: r(7),
            },
            ldsm(1, true, 1, 10),
        ],
        4,
        512,
    )
    .konst(2, 16)
    .konst(6, 8)
    .konst(7, 3)
    .build();
    let out = exec(&p);
    // Element (row, col) is the 16-bit half at row * 16 + 2 col.
    let half = |row: u32, col: u32| {
        let b = row * 16 + 2 * col;
        (word(b / 4) >> (8 * (b % 4))) & 0xffff
    };
    // `.trans`: lane t holds elements (2 (t % 4), t / 4) and (2 (t % 4) + 1, t / 4).
    let want = lanes(|t| half(2 * (t % 4), t / 4) | half(2 * (t % 4) + 1, t / 4) << 16);
    assert_eq!(out.reg(0, 10), want);
    let pc = p.code.iter().position(|i| matches!(i, Matrix(_))).unwrap();
    assert_eq!(out.stats.per_pc[pc].wavefronts, 1);
}

#[test]
fn stmatrix_writes_what_ldmatrix_reads_back() {
    // stmatrix x2.trans of registers r4, r5 (lane-distinct values) to rows `l * 32`, then
    // ldmatrix x2.trans of the same rows: the same registers.
    let st = Matrix(MatrixOp {
        store: true,
        n: 2,
        trans: true,
        addr: r(1),
        regs: [r(4), r(5), r(0), r(0)],
        array: 0,
    });
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        Mad {
            dst: r(4),
            a: r(0),
            b: r(3),
            c: r(6),
        },
        Mad {
            dst: r(5),
            a: r(0),
            b: r(7),
            c: r(6),
        },
        st,
        ldsm(2, true, 1, 8),
        // The word of row 0, columns 0-1 of matrix 0.
        Load(shared_mem(0, &[r(12)], 1, r(13))),
    ])
    .special(0, Special::TidLinear)
    .konst(2, 32)
    .konst(3, 0x0001_0003)
    .konst(6, 0x0100_0010)
    .konst(7, 0x0005_0007)
    .konst(12, 0)
    .shared(words(1024))
    .build();
    let out = exec(&p);
    assert_eq!(out.reg(0, 8), out.reg(0, 4));
    assert_eq!(out.reg(0, 9), out.reg(0, 5));
    // With `.trans`, element (r, c) is half r % 2 of lane 4c + r / 2: word 0 (elements
    // (0, 0) and (0, 1)) is lane 0's low half and lane 4's low half.
    let low = |t: u32| (t * 0x0001_0003 + 0x0100_0010) & 0xffff;
    assert_eq!(out.reg(0, 13)[0], low(0) | low(4) << 16);
}

/// A global pointer pair to byte `b` of buffer 0: low word `b`, high word `1 << 8`.
const BUF0_HI: u32 = 1 << (Mem::GLOBAL_BASE_SHIFT - 32);

fn copy(bypass: bool, width: u8, size: Option<u16>) -> Inst {
    CpAsync(CopyOp {
        bypass,
        width,
        dst: r(1),
        src: r(2),
        size: size.map(r),
        array: 0,
    })
}

/// Runs `p` with buffer 0 holding `i * 3 + 5` in word `i` (and `racecheck`).
fn exec_global(p: &Program, racecheck: bool) -> Out {
    let cfg = Config {
        racecheck,
        ..Config::default()
    };
    let global = Global::new(p);
    let n = p.buffers[0].words() as u32;
    global.write(0, &(0..n).map(|i| i * 3 + 5).collect::<Vec<_>>());
    let mut stats = Stats::new(p, &cfg.geometry);
    let mut sc = Scratch::default();
    let ctaid = [0, 0, 0];
    let result = Validated::check(p, &cfg, &global, ctaid)
        .and_then(|v| run(&v, ctaid, &mut stats, &mut sc, &mut ()));
    if let Err(f) = &result {
        panic!("unexpected fault: {f}");
    }
    Out {
        result,
        regs: sc.regs,
        stats,
        global,
        nregs: p.nregs,
    }
}

/// Lane `l`: destination `l * 16`, source `l * 16` (r1, r2:r3), then `code`.
fn copy_program(code: Vec<Inst>) -> P {
    let mut all = vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(9),
        },
        Mov { dst: r(2), a: r(1) },
    ];
    all.extend(code);
    P::new(all)
        .special(0, Special::TidLinear)
        .konst(3, BUF0_HI)
        .konst(9, 16)
        .konst(10, 4)
        .konst(11, 0)
        .shared(words(1024))
        .buffer("g", Elem::U32, 256)
}

#[test]
fn cp_async_copies_and_zero_fills() {
    // 16 bytes a lane; then, with src-size 4, over the same destinations: words 1-3 zero.
    let read = |k: u16| Load(shared_mem(0, &[r(12)], 4, r(k)));
    let p = copy_program(vec![
        copy(false, 16, None),
        AsyncWait { n: 0, all: true },
        Mul {
            dst: r(12),
            a: r(0),
            b: r(10),
        },
        read(16),
        copy(true, 16, Some(10)),
        AsyncCommit,
        AsyncWait { n: 0, all: false },
        read(20),
    ])
    .build();
    let out = exec_global(&p, true);
    for k in 0..4u16 {
        assert_eq!(out.reg(0, 16 + k), lanes(|l| (4 * l + k as u32) * 3 + 5));
        let zf = if k == 0 {
            lanes(|l| (4 * l) * 3 + 5)
        } else {
            [0; 32]
        };
        assert_eq!(out.reg(0, 20 + k), zf);
    }
    let pcs: Vec<usize> = (0..p.code.len())
        .filter(|&pc| matches!(p.code[pc], CpAsync(_)))
        .collect();
    // `.ca` 16 bytes, contiguous: 4 phases of one wavefront, 16 sectors.
    let ca = &out.stats.per_pc[pcs[0]];
    assert_eq!((ca.wavefronts, ca.conflicts, ca.copy_sectors), (4, 0, 16));
    assert_eq!((ca.copy_hw_wavefronts, ca.copy_hw_conflicts), (4, 0));
    // `.cg` with src-size: 4 groups (one a 128-byte line) plus the zero fill's 4 phases;
    // the hardware sees the fill (every lane reads less than 16 bytes).
    let cg = &out.stats.per_pc[pcs[1]];
    assert_eq!((cg.wavefronts, cg.conflicts, cg.copy_sectors), (8, 0, 16));
    assert_eq!(cg.copy_hw_wavefronts, 4);
    assert!(out.stats.races.is_empty(), "{:?}", out.stats.races);
}

#[test]
fn reading_a_copy_before_its_wait_is_a_race() {
    // Two groups; `wait_group 1` completes the first only: reading its words is fine, the
    // second's is a hazard; after `wait_group 0`, nothing.
    let p = copy_program(vec![
        copy(false, 16, None),
        AsyncCommit,
        Add {
            dst: r(1),
            a: r(1),
            b: r(13),
        },
        copy(false, 16, None),
        AsyncCommit,
        AsyncWait { n: 1, all: false },
        Mul {
            dst: r(12),
            a: r(0),
            b: r(10),
        },
        Load(shared_mem(0, &[r(12)], 1, r(16))),
        Add {
            dst: r(12),
            a: r(12),
            b: r(14),
        },
        Load(shared_mem(0, &[r(12)], 1, r(17))),
        AsyncWait { n: 0, all: false },
        Load(shared_mem(0, &[r(12)], 1, r(18))),
    ])
    .konst(13, 512)
    .konst(14, 128)
    .build();
    let out = exec_global(&p, true);
    let hz = &out.stats.races.hazards;
    assert_eq!(hz.len(), 1, "{hz:?}");
    let h = &hz[0];
    assert_eq!(h.kind, HazardKind::Async);
    assert!(matches!(p.code[h.first.pc as usize], CpAsync(_)));
    assert_eq!(h.first.pc, 5);
    assert_eq!(h.second.pc, 11);
    assert_eq!(h.count, 32);
}

#[test]
fn matrix_and_copy_faults() {
    // A row address that is not 16-byte aligned.
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        ldsm(2, false, 1, 4),
    ])
    .special(0, Special::TidLinear)
    .konst(2, 24)
    .shared(words(1024))
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(
            f.kind,
            FaultKind::Misaligned {
                width: 16,
                byte: 24,
                ..
            }
        ),
        "{f}"
    );
    // Rows past the block's shared memory.
    let p = P::new(vec![
        Mul {
            dst: r(1),
            a: r(0),
            b: r(2),
        },
        ldsm(4, false, 1, 4),
    ])
    .special(0, Special::TidLinear)
    .konst(2, 64)
    .shared(words(1024))
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(f.kind, FaultKind::OutOfBounds { global: false, .. }),
        "{f}"
    );
    // A cp.async source past its buffer (lane 16 reads bytes 1024..1040 of 1024).
    let p = copy_program(vec![
        Add {
            dst: r(2),
            a: r(2),
            b: r(13),
        },
        copy(false, 16, None),
    ])
    .konst(13, 768)
    .build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(
        matches!(f.kind, FaultKind::OutOfBounds { global: true, .. }),
        "{f}"
    );
    // A src-size larger than the copy.
    let p = copy_program(vec![copy(false, 4, Some(9))]).build();
    let f = exec_cfg(&p, Config::default(), [0; 3]).result.unwrap_err();
    assert!(f.to_string().contains("src-size 16"), "{f}");
}
