//! `ldmatrix`/`stmatrix` and `cp.async` against the H200: every launch of the first
//! tensor_smem device call (`tests/fixtures/h200/tensor_smem/launches.tsv`, joined by its
//! `join.py` from `calibration/probes/tensor_smem/`) priced by the crate and compared with
//! every counter measured for it; and the worked examples of the rule
//! (`calibration/probes/tensor_smem/README.md`), each naming its launch.

use warpsim_smem::{
    async_copy_cost, cost, matrix_cost, AsyncCopy, CopyCost, CopyError, CopyLanes, Cost, Geometry,
    Matrix, MatrixError, Op, WARP,
};
use warpsim_testkit::h200;

const G: Geometry = Geometry::H200;
const ALL: u32 = u32::MAX;

/// `ldsm.x4.trans` -> the shape.
fn matrix(kind: &str) -> Matrix {
    let f: Vec<&str> = kind.split('.').collect();
    Matrix {
        store: f[0] == "stsm",
        n: f[1][1..].parse().unwrap(),
        trans: f.get(2) == Some(&"trans"),
    }
}

/// `ca.16.z` -> the kind.
fn copy_kind(kind: &str) -> AsyncCopy {
    let f: Vec<&str> = kind.split('.').collect();
    AsyncCopy {
        bypass: f[0] == "cg",
        width: f[1].parse().unwrap(),
        zfill: f.get(2) == Some(&"z"),
    }
}

fn copy(kind: &str, dst: &[i64], src: &[u64], size: Option<u32>) -> Result<CopyCost, CopyError> {
    let k = copy_kind(kind);
    let mut d = [0u32; WARP];
    let mut mask = 0;
    for (l, &o) in dst.iter().enumerate() {
        if o >= 0 {
            d[l] = o as u32;
            mask |= 1 << l;
        }
    }
    let s: [u64; WARP] = src.try_into().unwrap();
    let size = [size.unwrap_or(k.width); WARP];
    async_copy_cost(
        &G,
        k,
        CopyLanes {
            dst: &d,
            src: &s,
            size: &size,
            mask,
        },
    )
}

fn lanes(f: impl Fn(u64) -> u64) -> Vec<u64> {
    (0..WARP as u64).map(f).collect()
}

fn ilanes(f: impl Fn(i64) -> i64) -> Vec<i64> {
    (0..WARP as i64).map(f).collect()
}

fn rows(f: impl Fn(u32) -> u32) -> [u32; WARP] {
    std::array::from_fn(|l| f(l as u32))
}

#[test]
fn every_launch_of_the_first_call() {
    let text = h200::fixture("tensor_smem/launches.tsv");
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (mut n, mut bad) = (0, Vec::new());
    let mut kinds = [0usize; 3];
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), head.len(), "{line}");
        let num = |c: &str| -> u32 { f[col(c)].parse().unwrap() };
        let (name, kind) = (f[0], f[1]);
        let (addrs, mask) = h200::lanes(&f[col("dst")].split(' ').collect::<Vec<_>>());
        let mut check = |what: &str, got: Vec<u32>, want: Vec<u32>| {
            if got != want {
                bad.push(format!(
                    "{name} {kind} {what}: measured {want:?}, rule {got:?}"
                ));
            }
        };
        if kind.starts_with("ldsm") || kind.starts_with("stsm") {
            kinds[0] += 1;
            let c = matrix_cost(&G, matrix(kind), &addrs, mask).unwrap();
            let got = vec![c.wavefronts, c.conflicts];
            check(
                "source page wf/bc",
                got.clone(),
                vec![num("sass_wf"), num("sass_bc")],
            );
            check(
                "hardware op wf/bc",
                got,
                vec![num("hw_op_wf"), num("hw_op_bc")],
            );
        } else if kind == "lds.128" || kind == "sts.128" {
            kinds[2] += 1;
            let op = if kind == "lds.128" { Op::Ld } else { Op::St };
            let c = cost(&G, op, 16, &addrs, mask).unwrap();
            check(
                "house rule wf/bc",
                vec![c.wavefronts, c.conflicts],
                vec![num("hw_op_wf"), num("hw_op_bc")],
            );
        } else {
            kinds[1] += 1;
            let k = copy_kind(kind);
            let src: Vec<u64> = f[col("src")]
                .split(' ')
                .map(|v| v.parse().unwrap())
                .collect();
            let src: [u64; WARP] = src.try_into().unwrap();
            let size = [if k.zfill { num("size") } else { k.width }; WARP];
            let c = async_copy_cost(
                &G,
                k,
                CopyLanes {
                    dst: &addrs,
                    src: &src,
                    size: &size,
                    mask,
                },
            )
            .unwrap();
            // The probe kernel's own shared wavefronts in the hardware total: 5, or 4 when it
            // first loads the sources through L1 (`warm`; calibration analysis.txt).
            let harness = if num("warm") == 1 { 4 } else { 5 };
            check(
                "source page wf/bc (op_ldgsts and its cache_access/bypass)",
                vec![c.wavefronts, c.conflicts, c.wavefronts, c.conflicts],
                vec![num("sass_wf"), num("sass_bc"), num("sub_wf"), num("sub_bc")],
            );
            check("sectors", vec![c.sectors], vec![num("sectors")]);
            check(
                "hardware op_ldgsts bc, total bc, total wf, op_ld+op_st wf",
                vec![c.hw_conflicts, c.hw_conflicts, c.hw_wavefronts + harness, 0],
                vec![
                    num("hw_ldgsts_bc"),
                    num("hw_total_bc"),
                    num("hw_total_wf"),
                    num("hw_op_wf"),
                ],
            );
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} of {n} launches differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(n, 540);
    assert_eq!(kinds, [368, 128, 44]);
}

#[test]
fn matrix_worked_examples() {
    let x = |n, trans| Matrix {
        store: false,
        n,
        trans,
    };
    let c = |n, wf, bc| Cost {
        wavefronts: wf,
        conflicts: bc,
        phases: n,
    };
    // ldsm_x4_stride16: contiguous rows, each matrix 128 bytes on 32 banks.
    assert_eq!(
        matrix_cost(&G, x(4, false), &rows(|t| t * 16), ALL),
        Ok(c(4, 4, 0))
    );
    // ldsm_x4_stride128: every row of a matrix on banks 0-3 -> 8 per matrix.
    assert_eq!(
        matrix_cost(&G, x(4, false), &rows(|t| t * 128), ALL),
        Ok(c(4, 32, 28))
    );
    // .trans costs the same; stores too.
    assert_eq!(
        matrix_cost(&G, x(4, true), &rows(|t| t * 128), ALL),
        Ok(c(4, 32, 28))
    );
    let st = Matrix {
        store: true,
        ..x(4, false)
    };
    assert_eq!(
        matrix_cost(&G, st, &rows(|t| t * 128), ALL),
        Ok(c(4, 32, 28))
    );
    // ldsm_x4_pairs: rows repeat in pairs and merge -> 1 a matrix (LDS.128 would take 2).
    assert_eq!(
        matrix_cost(&G, x(4, false), &rows(|t| (t / 2) * 16), ALL),
        Ok(c(4, 4, 0))
    );
    assert_eq!(
        cost(&G, Op::Ld, 16, &rows(|t| (t / 2) * 16), ALL)
            .unwrap()
            .wavefronts,
        2
    );
    // ldsm_x1_unused_bank0: lanes 8-31 give no address, not even a conflicting one.
    let r = rows(|t| if t < 8 { t * 16 } else { 0 });
    assert_eq!(matrix_cost(&G, x(1, false), &r, ALL), Ok(c(1, 1, 0)));
    // Nor are they checked: misaligned or inactive past the used lanes is fine.
    let r = rows(|t| if t < 16 { t * 16 } else { 3 });
    assert_eq!(matrix_cost(&G, x(2, false), &r, 0xffff), Ok(c(2, 2, 0)));
    // x1 with rows at stride 128: 8-way.
    let r = rows(|t| if t < 8 { t * 128 } else { 0 });
    assert_eq!(matrix_cost(&G, x(1, false), &r, ALL).unwrap().wavefronts, 8);
}

#[test]
fn matrix_faults() {
    let x4 = Matrix {
        store: false,
        n: 4,
        trans: false,
    };
    // risky_ldsm_x4_rows_mis8: rows 8-byte aligned fault on the H200.
    assert_eq!(
        matrix_cost(&G, x4, &rows(|t| t * 24 + 8), ALL),
        Err(MatrixError::Misaligned { lane: 0, addr: 8 })
    );
    // risky_ldsm_x4_stride136: row 1 at 136.
    assert_eq!(
        matrix_cost(&G, x4, &rows(|t| t * 136), ALL),
        Err(MatrixError::Misaligned { lane: 1, addr: 136 })
    );
    assert_eq!(
        matrix_cost(&G, x4, &rows(|t| t * 16), ALL >> 1),
        Err(MatrixError::Inactive { lane: 31, used: 32 })
    );
    let x3 = Matrix { n: 3, ..x4 };
    assert_eq!(
        matrix_cost(&G, x3, &rows(|t| t * 16), ALL),
        Err(MatrixError::Count(3))
    );
}

#[test]
fn async_copy_worked_examples() {
    let coal4 = lanes(|t| 4096 + t * 4);
    // cp_ca4_same_coal: 32 destinations on one word, no merging -> 32/31 (STS would give 1).
    let c = copy("ca.4", &[256; 32], &coal4, None).unwrap();
    assert_eq!((c.wavefronts, c.conflicts, c.ideal), (32, 31, 1));
    assert_eq!(c.hw_wavefronts, 32);
    // cp_ca4_contig_same: all sources on one word -> source bank multiplicity 32.
    let c = copy("ca.4", &ilanes(|t| t * 4), &[512; 32], None).unwrap();
    assert_eq!(
        (c.wavefronts, c.conflicts, c.sectors, c.tags),
        (32, 31, 1, 1)
    );
    // A partial src-size of 0 reads nothing: the destination side alone.
    let c = copy("ca.4.z", &ilanes(|t| t * 4), &[512; 32], Some(0)).unwrap();
    assert_eq!((c.wavefronts, c.sectors), (1, 0));
    // Scattered sources (cp_ca4_contig_scatter): 32 lines at bank 0 -> 32/31 on the Source
    // page, 32 sectors in one phase -> hardware ideal 8, bank conflicts 24.
    let c = copy("ca.4", &ilanes(|t| t * 4), &lanes(|t| t * 256), None).unwrap();
    assert_eq!(
        (c.wavefronts, c.conflicts, c.hw_conflicts, c.sectors),
        (32, 31, 24, 32)
    );
    assert_eq!(c.tags, 32);
    // cp_ca16_contig_scatter: 8 lane-words on banks 0-3 a quarter -> 32/28; 8 sectors a
    // quarter -> hardware ideal 2 x 4, bc 24.
    let c = copy("ca.16", &ilanes(|t| t * 16), &lanes(|t| t * 256), None).unwrap();
    assert_eq!((c.wavefronts, c.conflicts, c.hw_conflicts), (32, 28, 24));
    // ca.8 with destinations in pairs: 2 per half-warp -> 4/2.
    let c = copy("ca.8", &ilanes(|t| (t / 2) * 8), &lanes(|t| t * 8), None).unwrap();
    assert_eq!((c.wavefronts, c.conflicts, c.ideal), (4, 2, 2));
    // Pre-registered sector bound: 32 sectors on 32 distinct source banks, one phase -> 8.
    let c = copy(
        "ca.4",
        &ilanes(|t| t * 4),
        &lanes(|t| t * 128 + 4 * t),
        None,
    )
    .unwrap();
    assert_eq!(
        (c.wavefronts, c.conflicts, c.hw_conflicts, c.sectors),
        (8, 7, 0, 32)
    );
}

#[test]
fn bypass_copy_worked_examples() {
    let s = lanes(|t| t * 16);
    let wf = |d: Vec<i64>| copy("cg.16", &d, &s, None).unwrap();
    // Contiguous, reversed within lines (mask 7): one wavefront a line.
    let c = wf(ilanes(|t| t * 16));
    assert_eq!(
        (c.wavefronts, c.conflicts, c.hw_wavefronts, c.sectors),
        (4, 0, 0, 16)
    );
    assert_eq!(wf(ilanes(|t| (31 - t) * 16)).wavefronts, 4);
    // perm7: 20; stride 2: 32; pairs: 16 after merging; all on one destination: 1.
    assert_eq!(wf(ilanes(|t| ((7 * t) % 32) * 16)).wavefronts, 20);
    assert_eq!(wf(ilanes(|t| t * 32)).wavefronts, 32);
    assert_eq!(wf(ilanes(|t| (t / 2) * 16)).wavefronts, 16);
    assert_eq!(wf(vec![256; 32]).wavefronts, 1);
    // cp_cg16_stride128B: 32 sectors.
    assert_eq!(wf(ilanes(|t| t * 128)).sectors, 32);
    // With a src-size of 8 at stride 128: the zero-fill store (32/28) on the Source page and,
    // since lanes read less than 16 bytes, on the hardware counters (ideal 2 x 4: bc 24).
    let c = copy("cg.16.z", &ilanes(|t| t * 128), &s, Some(8)).unwrap();
    assert_eq!(
        (
            c.wavefronts,
            c.conflicts,
            c.hw_wavefronts,
            c.hw_conflicts,
            c.sectors
        ),
        (64, 28, 32, 24, 32)
    );
    // src-size 16: nothing on the hardware counters.
    let c = copy("cg.16.z", &ilanes(|t| t * 128), &s, Some(16)).unwrap();
    assert_eq!((c.wavefronts, c.hw_wavefronts), (64, 0));
}

#[test]
fn async_copy_errors() {
    let s = lanes(|t| t * 16);
    assert!(matches!(
        copy("cg.8", &ilanes(|t| t * 8), &s, None),
        Err(CopyError::Width {
            bypass: true,
            width: 8
        })
    ));
    assert_eq!(
        copy(
            "ca.16",
            &ilanes(|t| t * 16 + if t == 3 { 8 } else { 0 }),
            &s,
            None
        ),
        Err(CopyError::Destination {
            lane: 3,
            addr: 56,
            width: 16
        })
    );
    let mut bad = s.clone();
    bad[5] += 4;
    assert_eq!(
        copy("ca.16", &ilanes(|t| t * 16), &bad, None),
        Err(CopyError::Source {
            lane: 5,
            addr: 84,
            width: 16
        })
    );
    assert!(matches!(
        copy("ca.4.z", &ilanes(|t| t * 4), &s, Some(5)),
        Err(CopyError::Size {
            lane: 0,
            size: 5,
            width: 4
        })
    ));
    // No active lane: nothing.
    assert_eq!(copy("ca.4", &[-1; 32], &s, None), Ok(CopyCost::default()));
}

/// The launches of `calibration/probes/ldgsts_tma3` (on an H100, the same SM) whose Source-page
/// counters the rule does not give, each with why; every other of the 270 is exact.
const LDGSTS_TMA3_MISSES: [&str; 19] = [
    // `.ca` with random sources: a phase conflicted on both sides costs more (draw1's open
    // part; one 8-byte launch costs less), and the `.cg.z` zero-fill store priced as that
    // `.ca` copy with it.
    "n_ca16_stride2_random",
    "n_ca16_random_random",
    "z_ca16z_stride2_random_half",
    "z_ca16z_random_random_half",
    "z_ca4z_random_random_half",
    "z_ca4z_stride2_random_half",
    "z_ca4z_contig_random_half",
    "z_ca8z_contig_random_half",
    "z_ca8z_stride2_random_half",
    "z_cg16z_stride2_random_half",
    "z_cg16z_random_random_half",
    "z_cg16z_stride2_random_zero",
    "z_cg16z_random_random_zero",
    "z_cg16z_stride2_random_full",
    "z_cg16z_random_random_full",
    // `.cg` with random destinations and coalesced sources: one group more than the rule.
    "n_cg16_random_coal",
    "z_cg16z_random_coal_half",
    "z_cg16z_random_coal_zero",
    "z_cg16z_random_coal_full",
];

#[test]
fn every_ldgsts_launch_of_ldgsts_tma3() {
    let text = h200::fixture("tensor_smem/ldgsts_tma3.tsv");
    let (mut exact, mut missed, mut unexpected) = (0, Vec::new(), Vec::new());
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let (name, k) = (f[0], copy_kind(f[1]));
        let (dst, mask) = h200::lanes(&f[2].split(' ').collect::<Vec<_>>());
        let num = |s: &str| -> Vec<u64> { s.split(' ').map(|v| v.parse().unwrap()).collect() };
        let src: [u64; WARP] = num(f[3]).try_into().unwrap();
        let size: [u32; WARP] = std::array::from_fn(|l| num(f[4])[l] as u32);
        let lanes = CopyLanes {
            dst: &dst,
            src: &src,
            size: &size,
            mask,
        };
        let c = async_copy_cost(&G, k, lanes).unwrap();
        let (wf, bc): (u32, u32) = (f[5].parse().unwrap(), f[6].parse().unwrap());
        let right = (c.wavefronts, c.conflicts) == (wf, bc);
        match (right, LDGSTS_TMA3_MISSES.contains(&name)) {
            (true, false) => exact += 1,
            (false, true) => missed.push(name),
            (true, true) => unexpected.push(format!("{name}: now exact, take it off the list")),
            (false, false) => unexpected.push(format!(
                "{name}: measured {wf}/{bc}, rule {}/{}",
                c.wavefronts, c.conflicts
            )),
        }
    }
    assert!(unexpected.is_empty(), "{unexpected:#?}");
    assert_eq!((exact, missed.len()), (251, 19));
}
