//! Warp-level operations against hand-computed lanes: every shuffle mode at widths 8, 16 and
//! 32, 64-bit shuffles, votes, `activemask`, partial masks, divergence, partial warps, and
//! the faults for masks that do not match the lanes that reach the operation.

use super::*;
use crate::fault::MaskError;

/// Loads a program whose body is `body` (one block of `threads` threads, a u32 buffer `out`
/// of `threads * words` words and an f64 buffer `d` of `threads` elements), runs it, and
/// returns `out`'s words.
fn run_body(threads: u32, words: u32, body: &str) -> Result<Vec<u32>, Fault> {
    let src = format!(
        r#"Program(
    name: "t",
    launch: (grid: [1], block: [{threads}]),
    buffers: [
        (name: "out", ty: U32, len: {len}),
        (name: "d", ty: F64, len: {threads}, init: Iota),
    ],
    body: [
{body}
    ],
)"#,
        len = threads * words,
    );
    let p = warpsim_lang::load_str("t.ron", &src, &Default::default())
        .unwrap_or_else(|d| panic!("{}\n{src}", d.message));
    let global = Global::new(&p);
    for (k, b) in p.buffers.iter().enumerate() {
        global.write(k, &crate::init_words(b));
    }
    let mut stats = Stats::new(&p, &Config::default().geometry);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats)?;
    Ok(global.read(0))
}

/// The lane a CUDA shuffle reads, from the CUDA Programming Guide's words (not PTX's
/// formulas, which the executor follows): segments of `w` lanes; `idx` reads lane `b % w`
/// of the segment; `up` reads `l - b` unless that is before the segment; `down` and `xor`
/// read `l + b` / `l ^ b` unless that is past the segment's end.
fn cuda_src(mode: &str, l: u32, b: u32, w: u32) -> u32 {
    let start = l / w * w;
    let end = start + w;
    match mode {
        "shfl_sync" => start + b % w,
        "shfl_up_sync" => {
            if l >= b && l - b >= start {
                l - b
            } else {
                l
            }
        }
        "shfl_down_sync" => {
            if l + b < end {
                l + b
            } else {
                l
            }
        }
        _ => {
            if (l ^ b) < end {
                l ^ b
            } else {
                l
            }
        }
    }
}

#[test]
fn every_shuffle_mode_and_width_reads_the_lane_cuda_names() {
    for mode in [
        "shfl_sync",
        "shfl_up_sync",
        "shfl_down_sync",
        "shfl_xor_sync",
    ] {
        for w in [8u32, 16, 32] {
            for b in [0u32, 1, 3, 5, 9, 17, 31] {
                let body = format!(
                    r#"Let("v", "u32(laneid) * 100u + 7u"),
                       Store("out[tid]", "{mode}(0xffffffff, v, {b}, {w})"),"#
                );
                let out = run_body(32, 1, &body).unwrap();
                for l in 0..32 {
                    let want = cuda_src(mode, l, b, w) * 100 + 7;
                    assert_eq!(out[l as usize], want, "{mode} b={b} w={w} lane {l}");
                }
            }
        }
    }
}

#[test]
fn hand_computed_lanes() {
    // up by 1 in segments of 8: the first lane of each segment keeps its own value.
    let out = run_body(
        32,
        1,
        r#"Store("out[tid]", "shfl_up_sync(0xffffffff, laneid, 1, 8)"),"#,
    )
    .unwrap();
    assert_eq!(&out[..10], &[0, 0, 1, 2, 3, 4, 5, 6, 8, 8]);
    // down by 2 over the whole warp: lanes 30 and 31 keep theirs.
    let out = run_body(
        32,
        1,
        r#"Store("out[tid]", "shfl_down_sync(0xffffffff, laneid, 2)"),"#,
    )
    .unwrap();
    assert_eq!(&out[28..], &[30, 31, 30, 31]);
    // xor 8 in segments of 8: lanes 0-7 would read 8-15, a later segment: their own value;
    // lanes 8-15 read 0-7, an earlier one.
    let out = run_body(
        32,
        1,
        r#"Store("out[tid]", "shfl_xor_sync(0xffffffff, laneid, 8, 8)"),"#,
    )
    .unwrap();
    assert_eq!(&out[6..10], &[6, 7, 0, 1]);
    // idx with a lane past the width (and a negative one): modulo the width in the segment.
    let out = run_body(
        32,
        1,
        r#"Store("out[tid]", "shfl_sync(0xffffffff, laneid, laneid < 16 ? 21 : -1, 16)"),"#,
    )
    .unwrap();
    assert_eq!((out[0], out[15], out[16], out[31]), (5, 5, 31, 31));
    // A per-lane source lane: a rotation.
    let out = run_body(
        32,
        1,
        r#"Store("out[tid]", "shfl_sync(0xffffffff, laneid * 2, (laneid + 1) % 32)"),"#,
    )
    .unwrap();
    assert_eq!((out[0], out[30], out[31]), (2, 62, 0));
}

#[test]
fn signed_float_and_64_bit_values() {
    // An f64 is two 32-bit shuffles; d holds 0.0, 1.0, … (Iota).
    let out = run_body(
        32,
        2,
        r#"Let("x", "shfl_xor_sync(0xffffffff, d[tid] * 1.5, 1)"),
           Store("out[2 * tid]", "u32(x)"),
           Store("out[2 * tid + 1]", "u32(x * 2.0)"),
           Let("y", "shfl_down_sync(0xffffffff, -3 - laneid, 4)"),
           If(cond: "y != -3 - min(laneid + 4, select(laneid < 28, 99, laneid))", then: [
               Store("out[2 * tid]", "12345u"),
           ]),"#,
    )
    .unwrap();
    for l in 0..32u32 {
        let src = (l ^ 1) as f64 * 1.5;
        assert_eq!(out[2 * l as usize], src as u32, "lane {l}");
        assert_eq!(out[2 * l as usize + 1], (src * 2.0) as u32, "lane {l}");
    }
    // The f64 shuffle is two instructions.
    let p = warpsim_lang::load_str(
        "t.ron",
        r#"Program(name: "t", launch: (grid: [1], block: [32]),
            buffers: [(name: "d", ty: F64, len: 32)],
            body: [Store("d[tid]", "shfl_sync(0xffffffff, d[tid], 0)")])"#,
        &Default::default(),
    )
    .unwrap();
    let n = p
        .code
        .iter()
        .filter(|i| matches!(i, Inst::Shfl { .. }))
        .count();
    assert_eq!(n, 2);
}

#[test]
fn votes_and_activemask_in_divergent_code() {
    let out = run_body(
        32,
        4,
        r#"Let("b", "ballot_sync(0xffffffff, laneid % 3 == 0)"),
           Store("out[tid]", "b"),
           If(cond: "laneid >= 8 && laneid < 24", then: [
               Let("m", "activemask()"),
               Store("out[32 + tid]", "m"),
               Store("out[64 + tid]", "ballot_sync(m, laneid & 1)"),
               Store("out[96 + tid]", "u32(any_sync(m, laneid == 9)) * 10u + u32(all_sync(m, laneid > 7))"),
           ]),"#,
    )
    .unwrap();
    let threes: u32 = (0..32).filter(|l| l % 3 == 0).map(|l| 1u32 << l).sum();
    assert!(out[..32].iter().all(|&b| b == threes));
    for l in 0..32 {
        let inside = (8..24).contains(&l);
        let want = |v: u32| if inside { v } else { 0 };
        assert_eq!(out[32 + l], want(0x00ff_ff00), "activemask lane {l}");
        assert_eq!(out[64 + l], want(0x00aa_aa00), "ballot lane {l}");
        assert_eq!(out[96 + l], want(11), "any/all lane {l}");
    }
}

#[test]
fn partial_masks_and_reads_of_lanes_outside_them() {
    // Lanes 0-15 shuffle among themselves with mask 0xffff; a source lane outside the mask
    // (xor 16) that does not execute the shuffle gives 0, as on the H200, whatever it holds
    // (lanes 16-31 set v to 1000 + lane before).
    let out = run_body(
        32,
        1,
        r#"Let("v", "u32(laneid) + 1000u"),
           If(cond: "laneid < 16", then: [
               Set("v", "u32(laneid)"),
               Store("out[tid]", "shfl_xor_sync(0xffff, v, 1) * 100u + shfl_xor_sync(0xffff, v, 16)"),
           ]),"#,
    )
    .unwrap();
    for l in 0..16u32 {
        assert_eq!(out[l as usize], (l ^ 1) * 100, "lane {l}");
    }
    // A partial warp: 48 threads, so warp 1 has lanes 0-15 only; a full mask is fine there.
    let out = run_body(
        48,
        1,
        r#"Store("out[tid]", "shfl_down_sync(0xffffffff, u32(tid), 8) + ballot_sync(0xffffffff, 1)"),"#,
    )
    .unwrap();
    assert_eq!(out[32], 40 + 0xffff);
    // Lane 8 reads lane 16, which holds no thread: 0 (`tid` is set in every lane, to 48
    // there, and not read).
    assert_eq!(out[40], 0xffff);
    assert_eq!(out[39], 47 + 0xffff);
    assert_eq!(out[0], 8u32.wrapping_add(u32::MAX));
    // SyncWarp with the lanes that are there.
    run_body(32, 1, r#"If(cond: "laneid < 4", then: [SyncWarp("0xf")]),"#).unwrap();
}

#[test]
fn disjoint_groups_may_pass_different_masks() {
    // Two tiles of 16 in one warp (cooperative groups' `tiled_partition<16>`): each half
    // passes its own mask; votes count within the half, shuffles read within it.
    let out = run_body(
        32,
        3,
        r#"Let("m", "laneid < 16 ? 0x0000ffff : 0xffff0000"),
           Store("out[tid]", "ballot_sync(m, laneid % 3 == 0)"),
           Store("out[32 + tid]", "u32(all_sync(m, laneid < 16)) * 10u + u32(any_sync(m, laneid == 20))"),
           Store("out[64 + tid]", "shfl_down_sync(m, u32(laneid), 4, 16)"),"#,
    )
    .unwrap();
    let threes: u32 = (0..32).filter(|l| l % 3 == 0).map(|l| 1u32 << l).sum();
    for l in 0..32usize {
        let (half, lo) = if l < 16 {
            (0x0000_ffff, true)
        } else {
            (0xffff_0000, false)
        };
        assert_eq!(out[l], threes & half, "ballot lane {l}");
        assert_eq!(out[32 + l], if lo { 10 } else { 1 }, "all/any lane {l}");
        let src = if l % 16 + 4 < 16 { l + 4 } else { l };
        assert_eq!(out[64 + l], src as u32, "shfl lane {l}");
    }
    // Groups that overlap are still a fault: lanes 0-15 name lanes 0-31, lanes 16-31 only
    // themselves.
    let (why, lane, _) = mask_error(
        r#"Store("out[tid]", "ballot_sync(laneid < 16 ? 0xffffffff : 0xffff0000, 1)"),"#,
    );
    assert_eq!(
        (why, lane),
        (
            MaskError::Differs {
                first: 0,
                other: 0xffff_0000
            },
            16
        )
    );
}

fn mask_error(body: &str) -> (MaskError, u32, Fault) {
    let f = run_body(32, 1, body).unwrap_err();
    match f.kind {
        FaultKind::WarpMask { why, lane, .. } => (why, lane, f),
        ref k => panic!("expected a WarpMask fault, got {k:?}"),
    }
}

#[test]
fn masks_that_do_not_match_the_lanes_fault() {
    // Lanes 16-31 are in the mask but on the other side of the If.
    let (why, lane, f) = mask_error(
        r#"If(cond: "laneid < 16", then: [Store("out[tid]", "shfl_down_sync(0xffffffff, laneid, 1)")]),"#,
    );
    assert_eq!(
        (why, lane),
        (
            MaskError::NotReached {
                reached: 0x0000_ffff
            },
            16
        )
    );
    assert_eq!(f.thread, Some([16, 0, 0]));
    assert!(
        f.kind
            .to_string()
            .contains("lane 16 is in the mask 0xffffffff of `shfl_down_sync` but did not reach it"),
        "{}",
        f.kind
    );
    // Every lane executes it, but lanes 16-31 are not in the mask.
    let (why, lane, _) = mask_error(r#"Store("out[tid]", "ballot_sync(0x0000ffff, laneid > 3)"),"#);
    assert_eq!((why, lane), (MaskError::NotInMask, 16));
    // Lanes pass different masks.
    let (why, lane, _) =
        mask_error(r#"Store("out[tid]", "any_sync(laneid < 5 ? 0xffffffff : 0xfffffffe, 1)"),"#);
    assert_eq!(
        (why, lane),
        (
            MaskError::Differs {
                first: 0,
                other: 0xffff_fffe
            },
            5
        )
    );
    // SyncWarp in divergent code with the whole warp's mask.
    let (why, _, _) = mask_error(r#"If(cond: "laneid == 3", then: [SyncWarp("0xffffffff")]),"#);
    assert!(matches!(why, MaskError::NotReached { reached: 8 }));
    // A lane that left a loop early is not at the shuffle inside it.
    let (why, lane, _) = mask_error(
        r#"For(var: "k", from: 0, to: "laneid + 1", body: [
               Store("out[tid]", "shfl_sync(0xffffffff, k, 0)"),
           ]),"#,
    );
    assert_eq!(lane, 0);
    assert!(matches!(why, MaskError::NotReached { .. }));
}

#[test]
fn warp_operations_cost_instructions_not_wavefronts() {
    let p = warpsim_lang::load_str(
        "t.ron",
        r#"Program(name: "t", launch: (grid: [1], block: [64]),
            buffers: [(name: "o", ty: U32, len: 64)],
            body: [Store("o[tid]", "shfl_xor_sync(0xffffffff, u32(tid), 1) + ballot_sync(activemask(), 1)"), SyncWarp("0xffffffff")])"#,
        &Default::default(),
    )
    .unwrap();
    let global = Global::new(&p);
    let mut stats = Stats::new(&p, &Config::default().geometry);
    run_block(&p, &Config::default(), [0; 3], &global, &mut stats).unwrap();
    assert_eq!(stats.wavefronts(), 0);
    for (pc, i) in p.code.iter().enumerate() {
        if matches!(
            i,
            Inst::Shfl { .. } | Inst::Vote { .. } | Inst::ActiveMask { .. } | Inst::SyncWarp { .. }
        ) {
            assert_eq!(stats.per_pc[pc].executions, 2, "{i}");
        }
    }
}
