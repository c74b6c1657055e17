//! The bank model against the H200: every measured access in `tests/fixtures/h200/`, the
//! seed examples of the rule, and accesses outside the fixtures worked out by hand from the
//! rule (the reasoning is written next to each expected number).

use warpsim_testkit::h200;

use warpsim_smem::{analyze, cost, Cost, Geometry, Op, WARP};

const ALL: u32 = u32::MAX;

/// One line of `patterns.txt`.
struct Pattern {
    name: String,
    op: Op,
    width: u32,
    addrs: [u32; WARP],
    mask: u32,
}

fn patterns() -> Vec<Pattern> {
    h200::fixture("patterns.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(f.len(), 3 + WARP, "{line}");
            let (addrs, mask) = h200::lanes(&f[3..]);
            Pattern {
                name: f[0].to_string(),
                op: f[1].parse().unwrap(),
                width: f[2].parse().unwrap(),
                addrs,
                mask,
            }
        })
        .collect()
}

/// `(name, op, width, wavefronts, bank_conflicts)` per line of `measured.tsv`.
fn measured() -> Vec<(String, String, u32, u32, u32)> {
    let text = h200::fixture("measured.tsv");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("name\top\twidth\twavefronts\tbank_conflicts")
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            (
                f[0].to_string(),
                f[1].to_string(),
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_measured_access_is_reproduced() {
    let pats = patterns();
    let meas = measured();
    assert_eq!(pats.len(), 374);
    assert_eq!(meas.len(), 374);
    let g = Geometry::H200;
    let mut wrong = Vec::new();
    for (p, (name, op, width, wf, bc)) in pats.iter().zip(&meas) {
        assert_eq!(&p.name, name, "patterns.txt and measured.tsv out of step");
        assert_eq!(&p.op.to_string(), op, "{name}");
        assert_eq!(p.width, *width, "{name}");
        let c = cost(&g, p.op, p.width, &p.addrs, p.mask).unwrap();
        let a = analyze(&g, p.op, p.width, &p.addrs, p.mask).unwrap();
        if (c.wavefronts, c.conflicts) != (*wf, *bc) {
            wrong.push(format!(
                "cost {name}: model {}/{}, measured {wf}/{bc}",
                c.wavefronts, c.conflicts
            ));
        }
        if (a.cost.wavefronts, a.cost.conflicts) != (*wf, *bc) {
            wrong.push(format!(
                "analyze {name}: model {}/{}, measured {wf}/{bc}",
                a.cost.wavefronts, a.cost.conflicts
            ));
        }
        // The picture adds up to the totals.
        let per_phase: u32 = a.phases.iter().map(|p| p.wavefronts).sum();
        assert_eq!(per_phase, a.cost.wavefronts, "{name}");
    }
    assert!(
        wrong.is_empty(),
        "{} mismatches:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Prices lane addresses `f(tid)` (bytes) on `geom` with both `cost` and `analyze`, checks
/// that they agree, and returns `(wavefronts, bank_conflicts, busy phases)`.
fn price(geom: Geometry, op: Op, width: u32, mask: u32, f: impl Fn(u32) -> u32) -> (u32, u32, u32) {
    let addrs: [u32; WARP] = std::array::from_fn(|l| f(l as u32));
    let c = cost(&geom, op, width, &addrs, mask).unwrap();
    let a = analyze(&geom, op, width, &addrs, mask).unwrap();
    assert_eq!(c, a.cost, "cost and analyze disagree");
    (c.wavefronts, c.conflicts, c.phases)
}

fn h200(op: Op, width: u32, f: impl Fn(u32) -> u32) -> (u32, u32, u32) {
    price(Geometry::H200, op, width, ALL, f)
}

fn geom(banks: u32, bank_bytes: u32) -> Geometry {
    Geometry::new(banks, bank_bytes).unwrap()
}

/// The examples given with the rule in `calibration/sources/h200/README.md` (addresses in bytes).
#[test]
fn seed_examples() {
    use Op::{Ld, St};
    // 4-byte: smem[tid], smem[tid*2], smem[0], smem[(tid%4)*32], smem[tid*32].
    assert_eq!(h200(Ld, 4, |t| t * 4), (1, 0, 1));
    assert_eq!(h200(Ld, 4, |t| t * 2 * 4), (2, 1, 1));
    assert_eq!(h200(Ld, 4, |_| 0), (1, 0, 1));
    assert_eq!(h200(Ld, 4, |t| (t % 4) * 32 * 4), (4, 3, 1));
    assert_eq!(h200(Ld, 4, |t| t * 32 * 4), (32, 31, 1));
    // Column 5 of float tile[32][32] and of tile[32][33].
    assert_eq!(h200(Ld, 4, |t| (t * 32 + 5) * 4), (32, 31, 1));
    assert_eq!(h200(Ld, 4, |t| (t * 33 + 5) * 4), (1, 0, 1));
    // 8-byte: tid is two half-warp phases of one cycle; one address is one (load, rule 3
    // makes the whole warp one phase) or two (store, two half-warps).
    assert_eq!(h200(Ld, 8, |t| t * 8), (2, 0, 2));
    assert_eq!(h200(Ld, 8, |_| 0), (1, 0, 1));
    assert_eq!(h200(St, 8, |_| 0), (2, 0, 2));
    // 16-byte: tid is four quarter-warps; one address is two half-warps (load) or four
    // quarter-warps (store); (tid%4)*8 + tid/4 puts 4 distinct elements on each bank group
    // of every quarter-warp: 4 phases x 4.
    assert_eq!(h200(Ld, 16, |t| t * 16), (4, 0, 4));
    assert_eq!(h200(Ld, 16, |_| 0), (2, 0, 2));
    assert_eq!(h200(St, 16, |_| 0), (4, 0, 4));
    assert_eq!(h200(Ld, 16, |t| ((t % 4) * 8 + t / 4) * 16), (16, 12, 4));
}

/// 8-byte loads whose lanes pair up as `i` and `i ^ 2`: rule 3 applies with the second
/// partner too.
#[test]
fn eight_byte_pairs_on_i_xor_2() {
    use Op::{Ld, St};
    // Element (t/4)*2 + t%2: lanes t and t^2 (bit 1 flipped) read the same element, so rule 3
    // holds and the load is one 32-lane phase. It reads elements 0..15 = words 0..31, each
    // bank once: 1 wavefront. As a store, rule 3 does not apply: two half-warps, each
    // elements 0..7 = words 0..15 on distinct banks: 2 wavefronts, no conflict.
    let e = |t: u32| (t / 4) * 2 + t % 2;
    assert_eq!(h200(Ld, 8, |t| e(t) * 8), (1, 0, 1));
    assert_eq!(h200(St, 8, |t| e(t) * 8), (2, 0, 2));
    // The same pairs, 128 bytes apart: every element sits on banks 0 and 1. Load: one phase,
    // 16 distinct elements -> 16 distinct words on bank 0 -> 16 wavefronts, 15 conflicts.
    // Store: two phases of 8 distinct elements each -> 8 + 8 = 16 wavefronts, 14 conflicts.
    assert_eq!(h200(Ld, 8, |t| e(t) * 128), (16, 15, 1));
    assert_eq!(h200(St, 8, |t| e(t) * 128), (16, 14, 2));
    // Lanes paired as i^2 except one pair that differs: no doubling, two half-warps of the
    // element pattern above: half-warp 0 reads elements 0..7 plus element 40 (lane 2 moved,
    // 320 B = words 80,81 = banks 16,17, not used by elements 0..7 = banks 0..15): 1 cycle;
    // half-warp 1 reads elements 8..15 (banks 16..31): 1 cycle. 2 wavefronts, 2 phases.
    assert_eq!(
        h200(Ld, 8, |t| if t == 2 { 320 } else { e(t) * 8 }),
        (2, 0, 2)
    );
}

/// 16-byte accesses with some lanes inactive.
#[test]
fn sixteen_byte_partial_masks() {
    use Op::{Ld, St};
    let h = |op, mask, f: fn(u32) -> u32| price(Geometry::H200, op, 16, mask, f);
    // Only the first quarter-warp active, smem16[tid]: lanes 0..7 read words 0..31, one per
    // bank: 1 wavefront; the other three quarter-warps have no active lane and cost nothing.
    assert_eq!(h(Ld, 0x0000_00ff, |t| t * 16), (1, 0, 1));
    // Lanes 4..7 only, 128 bytes apart: all four on banks 0..3, 4 distinct words each, in one
    // phase (no pairing: lanes 4 and 5 and lanes 4 and 6 differ): 4 wavefronts, 3 conflicts.
    assert_eq!(h(Ld, 0x0000_00f0, |t| t * 128), (4, 3, 1));
    assert_eq!(h(St, 0x0000_00f0, |t| t * 128), (4, 3, 1));
    // Lanes 0, 8, 16, 24 active, smem16[tid]: no active lane has an active partner i^1, so
    // rule 3 holds vacuously and a load runs in half-warps: {0, 8} read 0 and 128, both on
    // banks 0..3 -> 2 cycles; {16, 24} likewise -> 4 wavefronts, 2 conflicts, 2 phases.
    // (measured: ld16_evenonly_tid shows the same vacuous doubling.) A store stays in
    // quarter-warps, one lane each: 4 phases of 1 cycle.
    assert_eq!(h(Ld, 0x0101_0101, |t| t * 16), (4, 2, 2));
    assert_eq!(h(St, 0x0101_0101, |t| t * 16), (4, 0, 4));
    // Lanes 0..3 of every quarter-warp, smem16[tid]: 4 lanes x 4 words = 16 distinct banks
    // per quarter-warp: 4 phases of 1 cycle.
    assert_eq!(h(Ld, 0x0f0f_0f0f, |t| t * 16), (4, 0, 4));
}

/// Stores never get rule 3's doubling, whatever the pairing.
#[test]
fn stores_never_double() {
    use Op::{Ld, St};
    // smem16[tid/2]: lanes i and i^1 share an element. Load: half-warps of 16 lanes reading
    // 8 elements = 32 distinct words -> 2 phases of 1 cycle. Store: quarter-warps of 8 lanes,
    // 4 elements = 16 words -> 4 phases of 1 cycle.
    assert_eq!(h200(Ld, 16, |t| (t / 2) * 16), (2, 0, 2));
    assert_eq!(h200(St, 16, |t| (t / 2) * 16), (4, 0, 4));
    // smem8[tid/2]: load one phase (words 0..31), store two half-warps (words 0..15, 16..31).
    assert_eq!(h200(Ld, 8, |t| (t / 2) * 8), (1, 0, 1));
    assert_eq!(h200(St, 8, |t| (t / 2) * 8), (2, 0, 2));
    // smem16[(tid/4)*8]: 8 distinct elements 128 B apart (banks 0..3), four lanes each, so
    // both pairings hold. Load: half-warps hold 4 distinct elements on banks 0..3 -> 4 + 4 =
    // 8 wavefronts, 2 phases. Store: quarter-warps hold 2 -> 4 x 2 = 8 wavefronts, 4 phases.
    assert_eq!(h200(Ld, 16, |t| (t / 4) * 128), (8, 6, 2));
    assert_eq!(h200(St, 16, |t| (t / 4) * 128), (8, 4, 4));
}

/// Phases whose lanes are all inactive cost nothing (rule 4); a fully inactive warp is free,
/// whatever its inactive lanes' addresses.
#[test]
fn inactive_phases_cost_nothing() {
    use Op::{Ld, St};
    // smem8[tid], first half-warp only: one phase, 16 lanes on 32 distinct banks.
    assert_eq!(
        price(Geometry::H200, Ld, 8, 0x0000_ffff, |t| t * 8),
        (1, 0, 1)
    );
    assert_eq!(
        price(Geometry::H200, St, 8, 0xffff_0000, |t| t * 8),
        (1, 0, 1)
    );
    // One lane of a 16-byte store: one quarter-warp of one lane, 4 words on 4 banks.
    assert_eq!(
        price(Geometry::H200, St, 16, 1 << 31, |t| t * 16),
        (1, 0, 1)
    );
    // No lane: nothing, even if the (ignored) addresses are misaligned.
    assert_eq!(price(Geometry::H200, Ld, 16, 0, |t| t * 16 + 3), (0, 0, 0));
    // smem[tid*32] on the even lanes: 16 distinct words on bank 0 -> 16 wavefronts.
    assert_eq!(
        price(Geometry::H200, Ld, 4, 0x5555_5555, |t| t * 128),
        (16, 15, 1)
    );
    // The last quarter-warp only, all on banks 0..3, 128 B apart: 8 cycles.
    assert_eq!(
        price(Geometry::H200, Ld, 16, 0xff00_0000, |t| t * 128),
        (8, 7, 1)
    );
}

/// 16 banks of 4 bytes: a phase moves 64 bytes, so 16 lanes of 4 bytes, 8 of 8, 4 of 16.
#[test]
fn sixteen_banks() {
    use Op::{Ld, St};
    let g = geom(16, 4);
    // smem[tid]: two half-warps, words 0..15 and 16..31, one per bank: 2 x 1. (Rule 3 is for
    // 8- and 16-byte loads only, so a 4-byte broadcast is still two phases.)
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 4), (2, 0, 2));
    assert_eq!(price(g, Ld, 4, ALL, |_| 0), (2, 0, 2));
    // smem[tid*16]: every word on bank 0, 16 distinct per phase: 2 x 16.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 64), (32, 30, 2));
    // smem[tid*32] (the H200's 32-way conflict) is the same here: 2 x 16.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 128), (32, 30, 2));
    // smem8[tid]: 4 phases of 8 lanes x 2 words on 16 distinct banks: 4 x 1.
    assert_eq!(price(g, Ld, 8, ALL, |t| t * 8), (4, 0, 4));
    // One 8-byte address: rule 3 doubles the load to 16 lanes -> 2 phases; store 4 phases.
    assert_eq!(price(g, Ld, 8, ALL, |_| 0), (2, 0, 2));
    assert_eq!(price(g, St, 8, ALL, |_| 0), (4, 0, 4));
    // smem16[tid]: 8 phases of 4 lanes x 4 words = 16 distinct banks: 8 x 1.
    assert_eq!(price(g, Ld, 16, ALL, |t| t * 16), (8, 0, 8));
}

/// 64 banks of 4 bytes: a phase moves 256 bytes, so 32 lanes of 4 or 8 bytes (the warp caps
/// it), 16 of 16 bytes.
#[test]
fn sixty_four_banks() {
    use Op::{Ld, St};
    let g = geom(64, 4);
    // smem[tid*32]: banks (32 t) % 64 alternate 0 and 32, 16 distinct words each: 16 cycles.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 128), (16, 15, 1));
    // smem[tid*64]: every lane on bank 0: 32 cycles.
    assert_eq!(price(g, St, 4, ALL, |t| t * 256), (32, 31, 1));
    // smem8[tid]: one phase, words 0..63 one per bank: 1 cycle (the H200 needs 2).
    assert_eq!(price(g, Ld, 8, ALL, |t| t * 8), (1, 0, 1));
    // smem16[tid]: half-warps, 16 lanes x 4 words = 64 banks: 2 x 1.
    assert_eq!(price(g, Ld, 16, ALL, |t| t * 16), (2, 0, 2));
    // One 16-byte address: load doubled to the whole warp (1), store in half-warps (2).
    assert_eq!(price(g, Ld, 16, ALL, |_| 0), (1, 0, 1));
    assert_eq!(price(g, St, 16, ALL, |_| 0), (2, 0, 2));
    // smem16[tid*16] (256 B apart): every lane on banks 0..3; half-warps of 16 distinct
    // elements: 2 x 16.
    assert_eq!(price(g, Ld, 16, ALL, |t| t * 256), (32, 30, 2));
}

/// 32 banks of 8 bytes: bank of A is (A / 8) % 32, a phase moves 256 bytes.
#[test]
fn eight_byte_banks() {
    use Op::{Ld, St};
    let g = geom(32, 8);
    // smem[tid] (4-byte): lanes 2k and 2k+1 read the two halves of word k; 16 words on 16
    // banks, one phase: 1 cycle.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 4), (1, 0, 1));
    // smem[tid*2] (4-byte, 8 B apart): words 0..31, one per bank: 1 (the H200 needs 2).
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 8), (1, 0, 1));
    // smem[tid*32] (128 B apart = 16 words): banks alternate 0 and 16: 16 cycles.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 128), (16, 15, 1));
    // smem[tid*64] (256 B apart): all on bank 0: 32 cycles.
    assert_eq!(price(g, St, 4, ALL, |t| t * 256), (32, 31, 1));
    // Lanes 0 and 1 only, two halves of word 0: one word, 1 cycle; bytes 0 and 256: two
    // words of bank 0, 2 cycles.
    assert_eq!(price(g, Ld, 4, 0b11, |t| t * 4), (1, 0, 1));
    assert_eq!(price(g, St, 4, 0b11, |t| t * 4), (1, 0, 1));
    assert_eq!(price(g, Ld, 4, 0b11, |t| t * 256), (2, 1, 1));
    // smem8[tid]: one phase, words 0..31: 1 cycle.
    assert_eq!(price(g, Ld, 8, ALL, |t| t * 8), (1, 0, 1));
    // smem16[tid]: half-warps of 16 lanes x 2 words = 32 banks: 2 x 1.
    assert_eq!(price(g, Ld, 16, ALL, |t| t * 16), (2, 0, 2));
    // One 16-byte address: load doubled to one phase (1); store two half-warps (2).
    assert_eq!(price(g, Ld, 16, ALL, |_| 0), (1, 0, 1));
    assert_eq!(price(g, St, 16, ALL, |_| 0), (2, 0, 2));
}

/// Corner geometries: one bank, and a bank count that is not a power of two.
#[test]
fn odd_geometries() {
    use Op::{Ld, St};
    // One 4-byte bank: a phase moves 4 bytes, which is less than one 16-byte lane, so a phase
    // holds one lane (the floor of one). smem16[tid]: 32 phases of 4 words on bank 0: 128
    // cycles, 96 conflicts. One 16-byte address, load: rule 3 makes phases of 2 lanes sharing
    // 4 words: 16 x 4 = 64 cycles. Store: 32 x 4 = 128.
    let g = geom(1, 4);
    assert_eq!(price(g, Ld, 16, ALL, |t| t * 16), (128, 96, 32));
    assert_eq!(price(g, Ld, 16, ALL, |_| 0), (64, 48, 16));
    assert_eq!(price(g, St, 16, ALL, |_| 0), (128, 96, 32));
    // One 4-byte bank, 4-byte smem[tid]: a phase holds one lane: 32 phases of 1 cycle.
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 4), (32, 0, 32));
    // 33 banks: smem[tid*32] lands on bank 32 t mod 33 = -t mod 33, all distinct: 1 cycle
    // (the padding trick, done by the hardware).
    let g = geom(33, 4);
    assert_eq!(price(g, Ld, 4, ALL, |t| t * 128), (1, 0, 1));
    // 33 banks, 8-byte: a phase moves 132 bytes = 16 lanes of 8 (rounded down); smem8[tid]:
    // 2 phases of words 0..31 and 32..63 (banks 32, 0..30), distinct: 2 x 1.
    assert_eq!(price(g, Ld, 8, ALL, |t| t * 8), (2, 0, 2));
}

#[test]
fn errors_are_values() {
    let g = Geometry::H200;
    let a: [u32; WARP] = std::array::from_fn(|l| l as u32 * 8 + 4);
    // 4-byte aligned, not 8-byte aligned.
    assert!(cost(&g, Op::Ld, 4, &a, ALL).is_ok());
    assert!(cost(&g, Op::Ld, 8, &a, ALL).is_err());
    assert!(analyze(&g, Op::Ld, 8, &a, ALL).is_err());
    assert!(cost(&g, Op::Ld, 12, &a, ALL).is_err());
    // A geometry written out by hand that `Geometry::new` would refuse is an error, not a
    // division by zero.
    let t: [u32; WARP] = std::array::from_fn(|l| l as u32 * 4);
    for bad in [
        Geometry {
            banks: 0,
            bank_bytes: 4,
        },
        Geometry {
            banks: 32,
            bank_bytes: 0,
        },
        Geometry {
            banks: 32,
            bank_bytes: 12,
        },
        Geometry {
            banks: 5000,
            bank_bytes: 4,
        },
    ] {
        assert!(bad.validate().is_err());
        assert!(cost(&bad, Op::Ld, 4, &t, ALL).is_err());
        assert!(analyze(&bad, Op::Ld, 4, &t, ALL).is_err());
        let _ = (bad.bank_of(100), bad.lanes_per_phase(0));
    }
    // The largest addresses do not overflow.
    let top: [u32; WARP] = std::array::from_fn(|l| u32::MAX - 15 - l as u32 * 16);
    assert_eq!(
        cost(&g, Op::Ld, 16, &top, ALL).unwrap(),
        Cost {
            wavefronts: 4,
            conflicts: 0,
            phases: 4
        }
    );
}
