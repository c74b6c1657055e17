//! The data paths of `ldmatrix`, `stmatrix` and `cp.async` (`warpsim_exec::tensor`) against
//! the H200's functional dumps (`tests/fixtures/h200/tensor_smem/dumps.txt`: 21 LDSM register
//! sets, 21 STSM and 14 LDGSTS shared-memory results, including rows and lanes that share an
//! address), and hand-computed lanes.

use std::collections::BTreeMap;
use warpsim_exec::tensor::{cp_async, fragment_element, ldmatrix, stmatrix};
use warpsim_testkit::h200;

const WARP: usize = 32;

struct Launch {
    name: String,
    kind: String,
    o: [i64; WARP],
    s: Vec<u64>,
    size: u32,
    regs: BTreeMap<usize, [u32; 4]>,
    words: BTreeMap<u32, u32>,
}

fn launches() -> Vec<Launch> {
    let mut out: Vec<Launch> = Vec::new();
    for line in h200::fixture("tensor_smem/dumps.txt").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f[0] {
            "P" => out.push(Launch {
                name: f[1].into(),
                kind: f[2].into(),
                o: std::array::from_fn(|l| f[3 + l].parse().unwrap()),
                s: f.get(35..67)
                    .map_or(vec![], |s| s.iter().map(|v| v.parse().unwrap()).collect()),
                size: f.get(67).map_or(0, |v| v.parse().unwrap()),
                regs: BTreeMap::new(),
                words: BTreeMap::new(),
            }),
            "R" | "W" => {
                let l = out.last_mut().unwrap();
                assert_eq!(l.name, f[1]);
                let hex = |v: &str| u32::from_str_radix(v, 16).unwrap();
                if f[0] == "R" {
                    let r = [hex(f[3]), hex(f[4]), hex(f[5]), hex(f[6])];
                    l.regs.insert(f[2].parse().unwrap(), r);
                } else {
                    l.words.insert(f[2].parse().unwrap(), hex(f[3]));
                }
            }
            _ => panic!("{line}"),
        }
    }
    out
}

fn rows(o: &[i64; WARP]) -> [u32; WARP] {
    o.map(|v| v.max(0) as u32)
}

/// The bytes a run leaves that differ from the 0xEE sentinel, as the dump's words give them.
fn bytes_of_words(words: &BTreeMap<u32, u32>) -> BTreeMap<u32, u8> {
    let mut b = BTreeMap::new();
    for (&off, &w) in words {
        for i in 0..4 {
            b.insert(off + i, (w >> (8 * i)) as u8);
        }
    }
    b.retain(|_, v| *v != 0xEE);
    b
}

fn shape(kind: &str) -> (usize, bool) {
    let f: Vec<&str> = kind.split('.').collect();
    (f[1][1..].parse().unwrap(), f.get(2) == Some(&"trans"))
}

#[test]
fn every_dump_of_the_first_call() {
    let (mut counts, mut bad) = ([0; 3], Vec::new());
    for l in launches() {
        if l.kind.starts_with("ldsm") {
            counts[0] += 1;
            let (n, trans) = shape(&l.kind);
            // Shared memory held u16 = byte offset / 2.
            let got = ldmatrix(n, trans, &rows(&l.o), |b| (b / 2) as u16);
            assert_eq!(l.regs.len(), WARP, "{}", l.name);
            for (&t, want) in &l.regs {
                if got[t][..n] != want[..n] {
                    bad.push(format!(
                        "{} lane {t}: {:x?} not {:x?}",
                        l.name,
                        &got[t][..n],
                        &want[..n]
                    ));
                }
            }
        } else {
            let mut mem = BTreeMap::new();
            if l.kind.starts_with("stsm") {
                counts[1] += 1;
                let (n, trans) = shape(&l.kind);
                // Register j of lane t held b16 elements t*8+2j (low) and t*8+2j+1.
                let regs: [[u32; 4]; WARP] = std::array::from_fn(|t| {
                    std::array::from_fn(|j| {
                        let e = (t * 8 + 2 * j) as u32;
                        e | (e + 1) << 16
                    })
                });
                stmatrix(n, trans, &rows(&l.o), &regs, |a, v| {
                    mem.insert(a, v as u8);
                    mem.insert(a + 1, (v >> 8) as u8);
                });
            } else {
                counts[2] += 1;
                let f: Vec<&str> = l.kind.split('.').collect();
                let width: u32 = f[1].parse().unwrap();
                let size = if f.get(2) == Some(&"z") {
                    l.size
                } else {
                    width
                };
                let mask = (0..WARP)
                    .filter(|&t| l.o[t] >= 0)
                    .fold(0u32, |m, t| m | 1 << t);
                let src: [u64; WARP] = l.s.clone().try_into().unwrap();
                // Global word w held w | 0x00800000.
                let read = |b: u64| (((b / 4) as u32 | 0x0080_0000) >> (8 * (b % 4))) as u8;
                cp_async(
                    width,
                    &rows(&l.o),
                    &src,
                    &[size; WARP],
                    mask,
                    read,
                    |a, v| {
                        mem.insert(a, v);
                    },
                );
            }
            mem.retain(|_, v| *v != 0xEE);
            let want = bytes_of_words(&l.words);
            if mem != want {
                let differ = want
                    .keys()
                    .chain(mem.keys())
                    .filter(|k| want.get(k) != mem.get(k))
                    .count();
                bad.push(format!("{}: {differ} bytes differ", l.name));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert_eq!(counts, [21, 21, 14]);
}

#[test]
fn fragments_by_hand() {
    // Lane 5 holds row 1, columns 2 and 3; transposed, rows 2 and 3 of column 1.
    assert_eq!(fragment_element(5, 0, false), (1, 2));
    assert_eq!(fragment_element(5, 1, false), (1, 3));
    assert_eq!(fragment_element(5, 1, true), (3, 1));
    // x2 over a row-major 8x16 b16 tile (32-byte rows), element = its index: matrix 1 is
    // columns 8-15 (rows at +16 bytes).
    let rows: [u32; WARP] = std::array::from_fn(|l| match l {
        0..=7 => l as u32 * 32,
        8..=15 => (l as u32 - 8) * 32 + 16,
        _ => 0,
    });
    let r = ldmatrix(2, false, &rows, |b| (b / 2) as u16);
    // Lane 6: row 1, columns 4, 5 -> elements 20, 21; matrix 1: columns 12, 13 -> 28, 29.
    assert_eq!(r[6][0], 20 | 21 << 16);
    assert_eq!(r[6][1], 28 | 29 << 16);
    let t = ldmatrix(1, true, &rows, |b| (b / 2) as u16);
    // .trans, lane 6: (row 4, col 1) and (row 5, col 1) -> elements 65 and 81.
    assert_eq!(t[6][0], 65 | 81 << 16);
    // stmatrix is ldmatrix's inverse on distinct rows.
    let mut mem = BTreeMap::new();
    stmatrix(2, true, &rows, &t.map(|x| [x[0], x[0], 0, 0]), |a, v| {
        mem.insert(a, v);
    });
    assert_eq!(mem[&(32 + 2)], 17);
    // Two rows of one matrix on one address: the lower row's values stay.
    let mut same = rows;
    same[3] = same[2];
    let regs: [[u32; 4]; WARP] = std::array::from_fn(|t| [t as u32 | (t as u32) << 16, 0, 0, 0]);
    let mut mem = BTreeMap::new();
    stmatrix(1, false, &same, &regs, |a, v| {
        mem.insert(a, v);
    });
    assert_eq!(mem[&same[2]], 8); // row 2 = lanes 8-11
}

#[test]
fn cp_async_zero_fill_and_winner() {
    let dst: [u32; WARP] = std::array::from_fn(|l| if l < 2 { 0 } else { 16 * l as u32 });
    let src: [u64; WARP] = std::array::from_fn(|l| 100 * l as u64);
    let mut size = [16; WARP];
    size[5] = 3;
    let mut mem = BTreeMap::new();
    cp_async(
        16,
        &dst,
        &src,
        &size,
        u32::MAX,
        |b| b as u8,
        |a, v| {
            mem.insert(a, v);
        },
    );
    // Lanes 0 and 1 on one destination: lane 1's copy (bytes 100..).
    assert_eq!(mem[&0], 100);
    // Lane 5 reads 3 bytes, the rest zero.
    assert_eq!((mem[&80], mem[&82], mem[&83], mem[&95]), (244, 246, 0, 0));
}
