//! Atomics and narrow types in kernels: results against hand-computed values, and the shared
//! counters against the H200 rule worked out by hand (README rules 6–8).

use warpsim_exec::init_words;
use warpsim_exec::{run_block, Config, Global, Stats};
use warpsim_kernel::Program;
use warpsim_lang::{load_str, Options};

/// One block of `threads` threads over `buffers` (RON) and `shared`, running `body`.
fn prog(threads: u32, buffers: &str, shared: &str, body: &str) -> Program {
    let src = format!(
        "Program(name: \"t\", launch: (grid: [1], block: [{threads}]), buffers: [{buffers}], shared: [{shared}], body: [{body}])"
    );
    load_str("t.ron", &src, &Options::default()).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// Runs block 0 (and `blocks - 1` more along x); returns every buffer's words and the stats.
fn run(p: &Program, blocks: u32) -> (Vec<Vec<u32>>, Stats) {
    let cfg = Config {
        racecheck: true,
        ..Config::default()
    };
    let g = Global::new(p);
    for (k, b) in p.buffers.iter().enumerate() {
        g.write(k, &init_words(b));
    }
    let mut st = Stats::new(p, &cfg.geometry);
    for b in 0..blocks {
        run_block(p, &cfg, [b, 0, 0], &g, &mut st).unwrap();
    }
    ((0..p.buffers.len()).map(|k| g.read(k)).collect(), st)
}

/// The shared atomic's counters: (atom wavefronts, atom conflicts, loop-load wavefronts,
/// loop-load conflicts, ATOMS executed), summed over the program's atomics.
fn atom_counts(p: &Program, st: &Stats) -> [u64; 5] {
    let mut out = [0; 5];
    for (pc, i) in p.code.iter().enumerate() {
        if i.atomic().is_some() {
            let s = &st.per_pc[pc];
            out[0] += s.wavefronts - s.loop_load_wavefronts;
            out[1] += s.conflicts - s.loop_load_conflicts;
            out[2] += s.loop_load_wavefronts;
            out[3] += s.loop_load_conflicts;
            out[4] += s.atoms;
        }
    }
    out
}

const OLD: &str = "(name: \"old\", ty: U32, len: 32)";

#[test]
fn all_lanes_on_one_address_apply_every_update_in_lane_order() {
    let p = prog(
        32,
        OLD,
        "(name: \"s\", ty: U32, dims: [4])",
        "Store(\"s[tid.x % 4]\", \"0u\"), Atomic(op: \"add\", at: \"s[0]\", value: \"1u\", old: \"o\"), Store(\"old[tid.x]\", \"o + s[0] * 100u\")",
    );
    let (mem, st) = run(&p, 1);
    // Lane l sees l lanes before it; every lane then reads the final 32.
    let want: Vec<u32> = (0..32).map(|l| l + 3200).collect();
    assert_eq!(mem[0], want);
    // Rule 7: 32 lanes queue on bank 0 (a load would take 1).
    assert_eq!(atom_counts(&p, &st), [32, 31, 0, 0, 1]);
}

#[test]
fn every_operation_matches_cuda_lane_by_lane() {
    // Lane l updates s[0] (starting at 10) with operand l; `old` shows the chain.
    type Case = (&'static str, &'static str, fn(u32, u32) -> u32);
    let cases: &[Case] = &[
        ("add", "U32", |o, v| o.wrapping_add(v)),
        ("sub", "U32", |o, v| o.wrapping_sub(v)),
        ("min", "I32", |o, v| (o as i32).min(v as i32 - 16) as u32),
        ("max", "U32", |o, v| o.max(v)),
        ("and", "U32", |o, v| o & (v | 0x10)),
        ("or", "U32", |o, v| o | v),
        ("xor", "U32", |o, v| o ^ v),
        ("exch", "U32", |_, v| v),
        ("inc", "U32", |o, v| if o >= v { 0 } else { o + 1 }),
        ("dec", "U32", |o, v| if o == 0 || o > v { v } else { o - 1 }),
    ];
    for &(op, ty, f) in cases {
        let value = match op {
            "min" => "i32(laneid) - 16",
            "and" => "u32(laneid) | 16u",
            _ => "u32(laneid)",
        };
        let value = if ty == "I32" {
            value.to_owned()
        } else {
            format!("u32({value})")
        };
        let p = prog(
            32,
            OLD,
            &format!("(name: \"s\", ty: {ty}, dims: [1])"),
            &format!(
                "If(cond: \"tid.x == 0\", then: [Store(\"s[0]\", \"10\")]), Atomic(op: \"{op}\", at: \"s[0]\", value: \"{value}\", old: \"o\"), Store(\"old[tid.x]\", \"u32(o)\")"
            ),
        );
        let (mem, _) = run(&p, 1);
        let mut x = 10u32;
        let mut want = Vec::new();
        for l in 0..32 {
            want.push(x);
            x = f(x, l);
        }
        assert_eq!(mem[0], want, "{op}");
    }
}

#[test]
fn cas_swaps_only_where_the_element_holds_the_compare_value() {
    // s[0] = 0; lane l swaps in l + 1 if it holds l: every lane succeeds in turn.
    // s[1] = 0; every lane swaps in 7 if it holds 0: only lane 0 succeeds.
    let p = prog(
        32,
        &format!("{OLD}, (name: \"old2\", ty: U32, len: 32)"),
        "(name: \"s\", ty: U32, dims: [2])",
        "If(cond: \"tid.x < 2\", then: [Store(\"s[tid.x]\", \"0u\")]), \
         Atomic(op: \"cas\", at: \"s[0]\", compare: \"u32(laneid)\", value: \"u32(laneid) + 1u\", old: \"a\"), \
         Atomic(op: \"cas\", at: \"s[1]\", compare: \"0u\", value: \"7u\", old: \"b\"), \
         Store(\"old[tid.x]\", \"a\"), Store(\"old2[tid.x]\", \"b\")",
    );
    let (mem, st) = run(&p, 1);
    assert_eq!(mem[0], (0..32).collect::<Vec<u32>>());
    assert_eq!(
        mem[1],
        std::iter::once(0).chain([7; 31]).collect::<Vec<u32>>()
    );
    // cas: twice the queue, 32 lanes on one bank, twice.
    assert_eq!(atom_counts(&p, &st), [128, 62, 0, 0, 2]);
}

#[test]
fn shared_atomic_queues_as_the_h200_does() {
    // (index, wavefronts, conflicts): README rule 7 and its table.
    for (idx, wf, bc) in [
        ("tid.x", 1, 0),                             // spread: one lane a bank
        ("tid.x / 2", 2, 1),                         // two lanes a bank (and a word)
        ("(tid.x % 4) * 32", 32, 31),                // four words, all 32 lanes on bank 0
        ("(tid.x % 2) * 32 + tid.x / 2 % 16", 2, 1), // different words of one bank: 2 a bank
    ] {
        let p = prog(
            32,
            OLD,
            "(name: \"s\", ty: U32, dims: [128])",
            // A run-time 1 (a constant 1 with the result unused would be ATOMS.POPC.INC).
            &format!("Atomic(op: \"add\", at: \"s[{idx}]\", value: \"u32(ntid.x / 32)\")"),
        );
        let (_, st) = run(&p, 1);
        assert_eq!(atom_counts(&p, &st), [wf, bc, 0, 0, 1], "{idx}");
    }
}

#[test]
fn float_add_is_a_compare_and_swap_loop() {
    // README: atomicAdd(&f[0], 1.0f), 32 lanes: 32 trips, 64 atom + 32 load wavefronts.
    let p = prog(
        32,
        "(name: \"out\", ty: F32, len: 1)",
        "(name: \"f\", ty: F32, dims: [1024])",
        "If(cond: \"tid.x == 0\", then: [Store(\"f[0]\", \"0.5\")]), Atomic(op: \"add\", at: \"f[0]\", value: \"1.0\"), If(cond: \"tid.x == 0\", then: [Store(\"out[0]\", \"f[0]\")])",
    );
    let (mem, st) = run(&p, 1);
    assert_eq!(f32::from_bits(mem[0][0]), 32.5);
    assert_eq!(atom_counts(&p, &st), [64, 0, 32, 0, 32]);
    // atomicAdd(&f[tid*32], 1.0f): 64 atom + 528 load wavefronts, 496 load conflicts.
    let p = prog(
        32,
        "(name: \"out\", ty: F32, len: 1)",
        "(name: \"f\", ty: F32, dims: [1024])",
        "Atomic(op: \"add\", at: \"f[tid.x * 32]\", value: \"1.0\")",
    );
    let (_, st) = run(&p, 1);
    assert_eq!(atom_counts(&p, &st), [64, 0, 528, 496, 32]);
}

#[test]
fn global_atomics_from_many_blocks_add_up() {
    let p = prog(
        64,
        "(name: \"h\", ty: U32, len: 4), (name: \"m\", ty: I32, len: 1), (name: \"f\", ty: F32, len: 1)",
        "",
        "Atomic(op: \"add\", at: \"h[tid.x % 4]\", value: \"1u\"), Atomic(op: \"max\", at: \"m[0]\", value: \"i32(tid.x) - 100\"), Atomic(op: \"add\", at: \"f[0]\", value: \"0.5\")",
    );
    let (mem, _) = run(&p, 8);
    assert_eq!(mem[0], vec![128; 4]);
    assert_eq!(mem[1][0] as i32, 0); // max(0, -100 … -37) stays 0
    assert_eq!(f32::from_bits(mem[2][0]), 256.0);
}

#[test]
fn racecheck_atomics_race_with_plain_accesses_only() {
    let run_races = |body: &str| {
        let p = prog(64, OLD, "(name: \"s\", ty: U32, dims: [4])", body);
        let (_, st) = run(&p, 1);
        st.races.hazards.len()
    };
    // Two warps' atomics on one word: no race.
    assert_eq!(
        run_races("Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")"),
        0
    );
    // A plain store by warp 0 and atomics by warp 1 without a barrier: a race.
    assert!(run_races("If(cond: \"tid.x == 0\", then: [Store(\"s[0]\", \"5u\")]), If(cond: \"tid.x >= 32\", then: [Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")])") > 0);
    // Atomics, then a plain load by another warp without a barrier: a race; with one, none.
    assert!(run_races("If(cond: \"tid.x < 32\", then: [Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")]), If(cond: \"tid.x >= 32\", then: [Store(\"old[0]\", \"s[0]\")])") > 0);
    assert_eq!(run_races("If(cond: \"tid.x < 32\", then: [Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")]), Barrier, If(cond: \"tid.x >= 32\", then: [Store(\"old[0]\", \"s[0]\")])"), 0);
}

#[test]
fn narrow_loads_stores_and_vectors() {
    // u8 tile: lane l stores l * 3 to t[l]; a 4-byte vector of u8 reads 4 of them back.
    let p = prog(
        32,
        "(name: \"o\", ty: U32, len: 32), (name: \"s8\", ty: I8, len: 32, init: Iota), (name: \"oi\", ty: I32, len: 32), (name: \"h\", ty: F16, len: 32)",
        "(name: \"t\", ty: U8, dims: [128]), (name: \"th\", ty: F16, dims: [64])",
        "Store(\"t[tid.x]\", \"u32(tid.x) * 3u + 250u\"), \
         If(cond: \"tid.x % 4 == 0\", then: [LoadVec([\"a\", \"b\", \"c\", \"d\"], \"t[tid.x]\"), Store(\"o[tid.x]\", \"a + b * 256u + c * 65536u + d * 16777216u\")]), \
         Store(\"oi[tid.x]\", \"s8[tid.x] - 200\"), \
         Store(\"th[tid.x * 2]\", \"f16(f32(tid.x) * 0.5)\"), Store(\"th[tid.x * 2 + 1]\", \"f16(-1.0)\"), \
         If(cond: \"tid.x % 4 == 0\", then: [LoadVec([\"h0\", \"h1\", \"h2\", \"h3\", \"h4\", \"h5\", \"h6\", \"h7\"], \"th[tid.x * 2]\"), Store(\"h[tid.x]\", \"h0 + h2 * h4 + h6\")])",
    );
    let (mem, st) = run(&p, 1);
    for l in (0..32u32).step_by(4) {
        let bytes: Vec<u32> = (l..l + 4).map(|k| (k * 3 + 250) & 0xff).collect();
        assert_eq!(
            mem[0][l as usize],
            bytes[0] | bytes[1] << 8 | bytes[2] << 16 | bytes[3] << 24
        );
    }
    // i8 Iota holds 0..31 sign-extended; i8 - 200 is an i32.
    assert_eq!(mem[2][5] as i32, 5 - 200);
    // h[l] (f16, packed two a word) = l/2 + (l+1)/2 * (l+2)/2 + (l+3)/2.
    let h = |k: usize| {
        let w = mem[3][k / 2];
        half::f16::from_bits((w >> (16 * (k % 2))) as u16).to_f32()
    };
    for l in (0..32).step_by(4) {
        let x = |k: usize| (l + k) as f32 * 0.5;
        assert_eq!(h(l), x(0) + x(1) * x(2) + x(3), "lane {l}");
    }
    // The u8 store: 32 lanes in 8 words, one wavefront; the 4-byte vector loads one each.
    let shared: u64 = st.per_pc.iter().map(|s| s.wavefronts).sum();
    assert!(shared > 0);
    assert!(st.races.is_empty());
}

#[test]
fn an_unused_add_of_one_is_popc_inc() {
    // nvcc: `atomicAdd(&s[0], 1u)` with the result unused is ATOMS.POPC.INC.32: the 32 lanes on
    // one address are one visit (README rule 9). With `old:`, or a run-time operand, ATOMS.ADD.
    let body = |atomic: &str| {
        format!(
            "Store(\"s[tid.x]\", \"0u\"), Let(\"one\", \"u32(ntid.x / 32)\"), {atomic}, Store(\"old[tid.x]\", \"s[0]\")"
        )
    };
    let shared = "(name: \"s\", ty: U32, dims: [32])";
    for (atomic, counts) in [
        (
            "Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")",
            [1, 0, 0, 0, 1],
        ),
        (
            "Atomic(op: \"add\", at: \"s[0]\", value: \"2u - 1u\")",
            [1, 0, 0, 0, 1],
        ),
        (
            "Atomic(op: \"add\", at: \"s[0]\", value: \"one\")",
            [32, 31, 0, 0, 1],
        ),
        (
            "Atomic(op: \"add\", at: \"s[0]\", value: \"1u\", old: \"o\")",
            [32, 31, 0, 0, 1],
        ),
        (
            "Atomic(op: \"sub\", at: \"s[0]\", value: \"0u - 1u\")",
            [32, 31, 0, 0, 1],
        ),
    ] {
        let p = prog(32, OLD, shared, &body(atomic));
        let (mem, st) = run(&p, 1);
        assert_eq!(mem[0], vec![32; 32], "{atomic}");
        assert_eq!(atom_counts(&p, &st), counts, "{atomic}");
    }
    let p = prog(
        32,
        OLD,
        shared,
        &body("Atomic(op: \"add\", at: \"s[0]\", value: \"1u\")"),
    );
    assert!(p.code.iter().any(|i| i.to_string().contains("popcinc")));
}

#[test]
fn f64_and_f16_adds_match_cuda() {
    // 32 lanes add to one shared double and one shared half, lane by lane in lane order:
    // `old` shows the chain; the price is rule 8's 64-bit loop and rule 10's word loop.
    let bufs = "(name: \"od\", ty: F64, len: 32), (name: \"oh\", ty: F16, len: 32), (name: \"fin\", ty: F64, len: 2)";
    let shared = "(name: \"d\", ty: F64, dims: [2]), (name: \"h\", ty: F16, dims: [2])";
    let p = prog(
        32,
        bufs,
        shared,
        "If(cond: \"tid.x < 2\", then: [Store(\"d[tid.x]\", \"f64(0)\"), Store(\"h[tid.x]\", \"f16(0.0)\")]), \
         SyncWarp(\"0xffffffff\"), \
         Atomic(op: \"add\", at: \"d[0]\", value: \"f64(tid.x) + 0.5\", old: \"a\"), \
         Atomic(op: \"add\", at: \"h[1]\", value: \"f16(1.0)\", old: \"b\"), \
         Store(\"od[tid.x]\", \"a\"), Store(\"oh[tid.x]\", \"b\"), \
         If(cond: \"tid.x == 0\", then: [Store(\"fin[0]\", \"d[0]\"), Store(\"fin[1]\", \"f64(h[1])\")])",
    );
    let (mem, st) = run(&p, 1);
    let f64s = |w: &[u32]| -> Vec<f64> {
        w.chunks(2)
            .map(|c| f64::from_bits(c[0] as u64 | (c[1] as u64) << 32))
            .collect()
    };
    // Lane l sees the sum of (k + 0.5) over k < l: l²/2.
    let want: Vec<f64> = (0..32).map(|l| (l * l) as f64 / 2.0).collect();
    assert_eq!(f64s(&mem[0]), want);
    // Halves: lane l sees l (0x3c00 = 1.0, …); two halves a word.
    let halves: Vec<u16> = mem[1]
        .iter()
        .flat_map(|w| [*w as u16, (*w >> 16) as u16])
        .collect();
    let want: Vec<u16> = (0..32)
        .map(|l| warpsim_kernel::fp16::Half::F16.from_f64(l as f64))
        .collect();
    assert_eq!(halves, want);
    assert_eq!(f64s(&mem[2]), vec![512.0, 32.0]);
    // Priced as measured (calibration/probes/shared_atomics, `red_add1_u64_const0`, `atom_add_f16_const0`):
    // the double: 32 trips, 96 atom + 32 load wavefronts; the half: 32 trips of 32, 31, …
    // lanes queued twice, one load of the word.
    assert_eq!(atom_counts(&p, &st), [96 + 1056, 496, 32 + 1, 0, 32 + 32]);
}

#[test]
fn global_f16_add_keeps_the_other_half() {
    let p = prog(
        64,
        "(name: \"g\", ty: F16, len: 4, init: Zeros)",
        "",
        "Atomic(op: \"add\", at: \"g[tid.x % 2 + 1]\", value: \"f16(0.5)\")",
    );
    let (mem, _) = run(&p, 1);
    let h = |x: f64| warpsim_kernel::fp16::Half::F16.from_f64(x) as u32;
    // Elements 1 and 2 get 32 × 0.5 = 16 each; elements 0 and 3 stay 0.
    assert_eq!(mem[0], vec![h(16.0) << 16, h(16.0)]);
}

/// The H200's lane returns of a `calibration/probes/shared_atomics` probe (`values.tsv`: `name kind
/// returns words`, returns in hex).
fn h200_returns(name: &str) -> Vec<u64> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/h200/shared_atomics/values.tsv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{name}\t")))
        .unwrap();
    let rets = line.split('\t').nth(2).unwrap();
    rets.split(',')
        .map(|h| u64::from_str_radix(h, 16).unwrap())
        .collect()
}

#[test]
fn lanes_on_one_address_get_what_the_h200_returned() {
    // The probes (calibration/probes/shared_atomics/probe.cu) on 32 lanes at offset 0: the H200 served them
    // in lane order, as warpsim does, so every lane's old value is equal bit for bit.
    // atomicInc(&s[0], 1000) from 3; atomicAdd(&h[0], __int2half_rn(lane + 1)) from 1.0;
    // atomicAdd(&d[0], double(lane + 1)) from 1.0.
    let p = prog(
        32,
        "(name: \"oi\", ty: U32, len: 32), (name: \"oh\", ty: F16, len: 32), (name: \"od\", ty: F64, len: 32)",
        "(name: \"s\", ty: U32, dims: [1]), (name: \"h\", ty: F16, dims: [2]), (name: \"d\", ty: F64, dims: [1])",
        "If(cond: \"tid.x == 0\", then: [Store(\"s[0]\", \"3u\"), Store(\"h[0]\", \"f16(1.0)\"), Store(\"h[1]\", \"f16(1.0)\"), Store(\"d[0]\", \"f64(1)\")]), \
         SyncWarp(\"0xffffffff\"), \
         Atomic(op: \"inc\", at: \"s[0]\", value: \"1000u\", old: \"a\"), \
         Atomic(op: \"add\", at: \"h[0]\", value: \"f16(tid.x + 1)\", old: \"b\"), \
         Atomic(op: \"add\", at: \"d[0]\", value: \"f64(tid.x + 1)\", old: \"c\"), \
         Store(\"oi[tid.x]\", \"a\"), Store(\"oh[tid.x]\", \"b\"), Store(\"od[tid.x]\", \"c\")",
    );
    let (mem, _) = run(&p, 1);
    let inc: Vec<u64> = mem[0].iter().map(|&w| w as u64).collect();
    assert_eq!(inc, h200_returns("atom_inc_u32_const0"));
    let halves: Vec<u64> = mem[1]
        .iter()
        .flat_map(|w| [(*w & 0xffff) as u64, (*w >> 16) as u64])
        .collect();
    assert_eq!(halves, h200_returns("atom_add_f16_const0"));
    let doubles: Vec<u64> = mem[2]
        .chunks(2)
        .map(|c| c[0] as u64 | (c[1] as u64) << 32)
        .collect();
    assert_eq!(doubles, h200_returns("atom_add_f64_const0"));
}

#[test]
fn loop_lanes_land_trip_by_trip_as_on_the_h200() {
    // atomicAdd(&d[(lane % 4) * 16], double(lane + 1)) from 1.0: four doubles on banks 0-1, a
    // 64-bit loop whose second half-warp can win a word before a lower lane of the first
    // (lane 16 before lane 4): the old values follow the trips, as the H200 returned them.
    let p = prog(
        32,
        "(name: \"od\", ty: F64, len: 32)",
        "(name: \"d\", ty: F64, dims: [64])",
        "Store(\"d[tid.x]\", \"f64(1)\"), Store(\"d[tid.x + 32]\", \"f64(1)\"), SyncWarp(\"0xffffffff\"), \
         Atomic(op: \"add\", at: \"d[(tid.x % 4) * 16]\", value: \"f64(tid.x + 1)\", old: \"c\"), \
         Store(\"od[tid.x]\", \"c\")",
    );
    let (mem, _) = run(&p, 1);
    let doubles: Vec<u64> = mem[0]
        .chunks(2)
        .map(|c| c[0] as u64 | (c[1] as u64) << 32)
        .collect();
    assert_eq!(doubles, h200_returns("atom_add_f64_bank0_4words"));
}

/// A `calibration/probes/shared_atomics` probe as a kernel: shared memory initialised as probe.cu's
/// `fill_init`, lane `l` at byte offset `offs[l]` (-1: inactive), its return (`ret`, the
/// lane's `bytes` from byte `bytes · l`) and the whole array stored. (kind, element, shared
/// init, atomic and the store of its return, bytes returned a lane).
const PROBES: [(&str, &str, &str, &str, usize); 6] = [
    (
        "atom.add1.u32",
        "U32",
        "u32(k) * 7u + 3u",
        "Atomic(op: \"add\", at: \"a[o / 4]\", value: \"1u\", old: \"r\"), Store(\"ret[tid.x]\", \"r\")",
        4,
    ),
    (
        "atom.inc.u32",
        "U32",
        "u32(k) * 7u + 3u",
        "Atomic(op: \"inc\", at: \"a[o / 4]\", value: \"1000u\", old: \"r\"), Store(\"ret[tid.x]\", \"r\")",
        4,
    ),
    (
        "atom.add.f16",
        "F16",
        "f16(f32(1 << (k / 2 % 4)))",
        "Atomic(op: \"add\", at: \"a[o / 2]\", value: \"f16(tid.x + 1)\", old: \"r\"), Store(\"ret[tid.x]\", \"r\")",
        2,
    ),
    (
        "atom.add.f64",
        "F64",
        "f64(1)",
        "Atomic(op: \"add\", at: \"a[o / 8]\", value: \"f64(tid.x + 1)\", old: \"r\"), Store(\"ret[tid.x]\", \"r\")",
        8,
    ),
    // atomicMin(long long*, 16 - (lane + 1)) on words holding 7 · (word) + 3 (the high
    // words 0): signed, so the lanes from 16 on (negative) lower it.
    (
        "atom.min.s64",
        "I32",
        "k % 2u == 1u ? 0 : i32(k) * 7 + 3",
        "Atomic(op: \"min\", at: \"a[o / 4]\", value: [\"15 - i32(tid.x)\", \"tid.x > 15u ? -1 : 0\"], old: [\"r\", \"r2\"]), \
         Store(\"ret[2 * tid.x]\", \"r\"), Store(\"ret[2 * tid.x + 1]\", \"r2\")",
        8,
    ),
    // atomicAdd(__nv_bfloat162*, (1.0, 0.5)) on words holding (1.0, 1.0): the old pair is
    // the lane's returned word.
    (
        "atom.add.bf16x2",
        "BF16",
        "bf16(1.0)",
        "Atomic(op: \"add\", at: \"a[o / 2]\", value: [\"bf16(1.0)\", \"bf16(0.5)\"], old: [\"r\", \"r2\"]), \
         Store(\"ret[2 * tid.x]\", \"r\"), Store(\"ret[2 * tid.x + 1]\", \"r2\")",
        4,
    ),
];

#[test]
fn every_probe_of_these_kinds_returns_and_leaves_what_the_h200_did() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/h200/shared_atomics/"
    );
    let pats = std::fs::read_to_string(format!("{dir}probe_patterns.txt")).unwrap();
    let vals = std::fs::read_to_string(format!("{dir}values.tsv")).unwrap();
    let mut n = 0;
    for line in vals.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        let Some(&(_, ty, init, atomic, ret_bytes)) = PROBES.iter().find(|p| p.0 == f[1]) else {
            continue;
        };
        let offs: Vec<i64> = pats
            .lines()
            .find(|l| l.split_whitespace().next() == Some(f[0]))
            .unwrap()
            .split_whitespace()
            .skip(2)
            .map(|o| o.parse().unwrap())
            .collect();
        let bytes = match ty {
            "U32" | "I32" => 4,
            "F16" | "BF16" => 2,
            _ => 8,
        };
        let len = 8192 / bytes;
        let mut body = format!(
            "For(var: \"k\", from: \"tid.x\", to: \"{len}\", step: 32, body: [Store(\"a[k]\", \"{init}\")]), Barrier, Let(\"o\", \"-1\"), "
        );
        for (l, o) in offs.iter().enumerate().filter(|(_, o)| **o >= 0) {
            body += &format!("If(cond: \"tid.x == {l}\", then: [Set(\"o\", \"{o}\")]), ");
        }
        body += &format!(
            "If(cond: \"o >= 0\", then: [{atomic}]), Barrier, \
             For(var: \"k\", from: \"tid.x\", to: \"{len}\", step: 32, body: [Store(\"mem[k]\", \"a[k]\")])"
        );
        let p = prog(
            32,
            &format!(
                "(name: \"ret\", ty: {ty}, len: {}), (name: \"mem\", ty: {ty}, len: {len})",
                32 * ret_bytes / bytes
            ),
            &format!("(name: \"a\", ty: {ty}, dims: [{len}])"),
            &body,
        );
        let (mem, _) = run(&p, 1);
        let rets: Vec<u64> = match ret_bytes {
            4 => mem[0].iter().map(|&w| w as u64).collect(),
            2 => mem[0]
                .iter()
                .flat_map(|w| [(*w & 0xffff) as u64, (*w >> 16) as u64])
                .collect(),
            _ => mem[0]
                .chunks(2)
                .map(|c| c[0] as u64 | (c[1] as u64) << 32)
                .collect(),
        };
        let want: Vec<u64> = f[2]
            .split(',')
            .map(|h| u64::from_str_radix(h, 16).unwrap())
            .collect();
        assert_eq!(rets, want, "{}: the lanes' old values", f[0]);
        for w in f[3].split(',') {
            let (off, vals) = w.split_once('=').unwrap();
            let (init, fin) = vals.split_once('>').unwrap();
            let k = off.parse::<usize>().unwrap() / 4;
            let fin = u32::from_str_radix(fin, 16).unwrap();
            assert_eq!(mem[1][k], fin, "{}: word at byte {off} (from {init})", f[0]);
        }
        n += 1;
    }
    // 15 + 15 + 57 + 13 + 13 (min.s64) + 14 (bf16x2) probes, held-out ones included.
    assert_eq!(n, 127);
}

/// Runs blocks `0..blocks` along x on `threads` OS threads at once (block `b` on thread
/// `b % threads`), all on one global memory; returns every buffer's words.
fn run_threads(p: &Program, blocks: u32, threads: u32) -> Vec<Vec<u32>> {
    let cfg = Config::default();
    let g = Global::new(p);
    for (k, b) in p.buffers.iter().enumerate() {
        g.write(k, &init_words(b));
    }
    std::thread::scope(|s| {
        for t in 0..threads {
            let (g, cfg) = (&g, &cfg);
            s.spawn(move || {
                let mut st = Stats::new(p, &cfg.geometry);
                for b in (t..blocks).step_by(threads as usize) {
                    run_block(p, cfg, [b, 0, 0], g, &mut st).unwrap();
                }
            });
        }
    });
    (0..p.buffers.len()).map(|k| g.read(k)).collect()
}

fn pair(m: &[u32], k: usize) -> u64 {
    m[2 * k] as u64 | (m[2 * k + 1] as u64) << 32
}

#[test]
fn global_64_bit_atomics_land_exactly_on_any_number_of_threads() {
    // 64 blocks of 64 threads (g = the global thread, 0 … 4095), every one on the same few
    // 64-bit words: u64 add of 2^32 - 1 + 2^32 (carries between the words), signed long
    // long min/max, and/or/xor of a bit in each word, exch, a cas from 0 only one thread
    // wins, and an f64 add. With 32-bit host atomics the carries and the signed compares
    // of the two words would tear; here each is one 64-bit host atomic.
    let p = prog(
        64,
        "(name: \"u\", ty: U32, len: 12), (name: \"s\", ty: I32, len: 4, init: Iota), \
         (name: \"d\", ty: F64, len: 1), (name: \"won\", ty: U32, len: 1)",
        "",
        "Let(\"g\", \"ctaid.x * 64u + tid.x\"), \
         Atomic(op: \"add\", at: \"u[0]\", value: [\"4294967295u\", \"1u\"]), \
         Atomic(op: \"or\", at: \"u[2]\", value: [\"1u << (g % 32u)\", \"1u << (g / 128u)\"]), \
         Atomic(op: \"xor\", at: \"u[4]\", value: [\"g\", \"g\"]), \
         Atomic(op: \"max\", at: \"u[6]\", value: [\"g\", \"4095u - g\"]), \
         Atomic(op: \"cas\", at: \"u[8]\", compare: [\"0u\", \"0u\"], value: [\"g + 1u\", \"~g\"], old: [\"clo\", \"chi\"]), \
         If(cond: \"clo == 0u && chi == 0u\", then: [Atomic(op: \"add\", at: \"won[0]\", value: \"1u\")]), \
         Atomic(op: \"exch\", at: \"u[10]\", value: [\"g\", \"g + 7u\"]), \
         Atomic(op: \"min\", at: \"s[0]\", value: [\"g\", \"i32(g) - 2048\"]), \
         Atomic(op: \"max\", at: \"s[2]\", value: [\"g\", \"2048 - i32(g)\"]), \
         Atomic(op: \"add\", at: \"d[0]\", value: \"f64(g) * 0.5\")",
    );
    let n = 4096u64;
    for threads in [1, 2, 4] {
        let m = run_threads(&p, 64, threads);
        let u = &m[0];
        assert_eq!(pair(u, 0), n * 0x1_ffff_ffff, "{threads} threads: add");
        assert_eq!(pair(u, 1), 0xffff_ffff_ffff_ffff, "or");
        assert_eq!(pair(u, 2), 0, "xor of 0 … 4095 in both words");
        // max of (g, 4095 - g) as unsigned long long: the high word decides, g = 0.
        assert_eq!(pair(u, 3), 4095 << 32, "max");
        let c = pair(u, 4);
        assert_eq!(
            (c >> 32) as u32,
            !(c as u32 - 1),
            "cas: one thread's pair, whole"
        );
        assert_eq!(m[3][0], 1, "exactly one cas found 0");
        let x = pair(u, 5);
        assert_eq!(
            x >> 32,
            (x & 0xffff_ffff) + 7,
            "exch: one thread's pair, whole"
        );
        // long long min of (g, g - 2048): -2048 + 0 (signed; the initial Iota pair is
        // 0 + 1 << 32); max of (g, 2048 - g): 2048 << 32 | 0.
        let s = &m[1];
        assert_eq!(pair(s, 0) as i64, -2048 << 32, "min.s64");
        assert_eq!(pair(s, 1) as i64, 2048 << 32, "max.s64");
        let d = f64::from_bits(pair(&m[2], 0));
        assert_eq!(d, (0..n).map(|g| g as f64 * 0.5).sum::<f64>(), "f64 add");
    }
}

#[test]
fn long_long_min_max_compare_signed_on_shared_memory() {
    // Lane 0 offers 0, lane l > 0 offers -l (a long long: high word -1); both words start
    // at 5. As unsigned long longs every -l would be huge; signed, min ends at -31 and max
    // stays 5.
    let p = prog(
        32,
        "(name: \"out\", ty: I32, len: 4), (name: \"old\", ty: I32, len: 64)",
        "(name: \"s\", ty: I32, dims: [4])",
        "If(cond: \"tid.x == 0\", then: [Store(\"s[0]\", \"5\"), Store(\"s[1]\", \"0\"), Store(\"s[2]\", \"5\"), Store(\"s[3]\", \"0\")]), \
         SyncWarp(\"0xffffffff\"), \
         Atomic(op: \"min\", at: \"s[0]\", value: [\"-i32(tid.x)\", \"tid.x == 0 ? 0 : -1\"], old: [\"lo\", \"hi\"]), \
         Atomic(op: \"max\", at: \"s[2]\", value: [\"-i32(tid.x)\", \"tid.x == 0 ? 0 : -1\"]), \
         SyncWarp(\"0xffffffff\"), \
         Store(\"old[2 * tid.x]\", \"lo\"), Store(\"old[2 * tid.x + 1]\", \"hi\"), \
         If(cond: \"tid.x < 4\", then: [Store(\"out[tid.x]\", \"s[tid.x]\")])",
    );
    let (m, st) = run(&p, 1);
    assert_eq!(pair(&m[0], 0) as i64, -31, "min");
    assert_eq!(pair(&m[0], 1) as i64, 5, "max");
    // Rule 8's 64-bit loop on the values: every lane lowers the word, so each trip's lowest
    // lane lands (the second half-warp's swap fails after the first's changed the word):
    // lane 0 sees 5, lane l > 0 what lane l - 1 left, -(l - 1).
    for l in 0..32i64 {
        let want = if l == 0 { 5 } else { 1 - l };
        assert_eq!(pair(&m[1], l as usize) as i64, want, "lane {l}'s old value");
    }
    // min: 32 trips with a swap; max: no lane would raise 5, so every lane is done after
    // its load, no swap (the `ATOMS` executed are the min's 32).
    assert_eq!(atom_counts(&p, &st)[4], 32);
}

#[test]
fn racecheck_sees_both_words_of_a_64_bit_atomic() {
    let races = |shared: &str, body: &str| {
        let p = prog(64, OLD, shared, body);
        let (_, st) = run(&p, 1);
        st.races.hazards.len()
    };
    let u = "(name: \"s\", ty: U32, dims: [4])";
    // Warp 0 stores the high word (s[1]) of the pair warp 1 updates at s[0], no barrier.
    let pair = "If(cond: \"tid.x == 0\", then: [Store(\"s[1]\", \"5u\")]), \
                If(cond: \"tid.x >= 32\", then: [Atomic(op: \"add\", at: \"s[0]\", value: [\"1u\", \"0u\"])])";
    assert!(races(u, pair) > 0, "the second word of a u64 atomic");
    // A plain load of the high word after the pair atomics, by another warp: a race.
    let load = "If(cond: \"tid.x < 32\", then: [Atomic(op: \"or\", at: \"s[2]\", value: [\"1u\", \"1u\"])]), \
                If(cond: \"tid.x >= 32\", then: [Store(\"old[0]\", \"s[3]\")])";
    assert!(races(u, load) > 0, "a load of the high word");
    // An f64 add and a store of its high word.
    let d = "(name: \"d\", ty: F64, dims: [2])";
    let f64 = "If(cond: \"tid.x == 0\", then: [Store(\"old[0]\", \"u32(d[0])\")]), \
               If(cond: \"tid.x >= 32\", then: [Atomic(op: \"add\", at: \"d[0]\", value: \"f64(1)\")])";
    assert!(races(d, f64) > 0, "an f64 add and a load of it");
    // A __half2 atomic is one word: the next word is not touched.
    let h = "(name: \"h\", ty: F16, dims: [8])";
    let half2 = "If(cond: \"tid.x == 0\", then: [Store(\"h[2]\", \"f16(1.0)\")]), \
                 If(cond: \"tid.x >= 32\", then: [Atomic(op: \"add\", at: \"h[0]\", value: [\"f16(1.0)\", \"f16(1.0)\"])])";
    assert_eq!(races(h, half2), 0, "a __half2 atomic touches one word");
}
