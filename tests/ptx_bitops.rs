//! The bit and integer PTX instructions of issue 37 (`bfi`, `bfe.u64`, every `prmt` mode,
//! `mad.hi`, `.b64` `clz`/`brev`/`popc`/`bfind`, `testp`, `setp.ftz` and `setp` with
//! `.and/.or/.xor`, `shf`, `cnot`, `szext`, `bmsk`, `dp4a`, `dp2a`): 62 operations on 256 input
//! tuples, every result equal to the H200's (tests/fixtures/cuda/bitops_h200.tsv, from
//! calibration/probes/cuda_coverage), and a few lanes computed by hand.

use warpsim_exec::{Config, Global, Stats, Validated};
use warpsim_lang::{load_file, Options};
use warpsim_testkit::root;

/// Runs `program` (under programs/) with buffers filled from `inputs` (name, 32-bit words);
/// returns the final words of every buffer, by name.
pub(crate) fn run_filled(program: &str, inputs: &[(&str, Vec<u32>)]) -> Vec<(String, Vec<u32>)> {
    let path = root().join("programs").join(program);
    let prog = load_file(path.to_str().unwrap(), &Options::default()).unwrap();
    let global = Global::new(&prog);
    for (name, words) in inputs {
        let k = prog.buffers.iter().position(|b| b.name == *name).unwrap();
        global.write(k, words);
    }
    let cfg = Config::default();
    let v = Validated::new(&prog, &cfg, &global).unwrap();
    let mut stats = Stats::new(&prog, &cfg.geometry);
    let [gx, gy, gz] = prog.grid;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                v.run_block([x, y, z], &mut stats).unwrap();
            }
        }
    }
    (0..prog.buffers.len())
        .map(|k| (prog.buffers[k].name.clone(), global.read(k)))
        .collect()
}

fn u64s(words: &[u32]) -> Vec<u64> {
    words
        .chunks(2)
        .map(|p| u64::from(p[0]) | u64::from(p[1]) << 32)
        .collect()
}

#[test]
fn bit_and_integer_operations_equal_the_h200() {
    let tsv = std::fs::read_to_string(root().join("tests/fixtures/cuda/bitops_h200.tsv")).unwrap();
    let names: Vec<String> = tsv
        .lines()
        .nth(2)
        .unwrap()
        .trim_start_matches("# ")
        .split('\t')
        .map(str::to_owned)
        .collect();
    assert_eq!(names.len(), 62);
    let rows: Vec<Vec<u64>> = tsv
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            l.split('\t')
                .map(|x| u64::from_str_radix(x, 16).unwrap())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 256);
    let mut input = Vec::new();
    for r in &rows {
        for v in &r[1..5] {
            input.extend([*v as u32, (*v >> 32) as u32]);
        }
    }
    let out = run_filled("../tests/fixtures/ptx/bitops62.ron", &[("in", input)]);
    let got = u64s(&out[0].1);
    let mut wrong = Vec::new();
    for (t, r) in rows.iter().enumerate() {
        for (j, name) in names.iter().enumerate() {
            let (g, w) = (got[62 * t + j], r[5 + j]);
            if g != w {
                wrong.push(format!(
                    "{name} of tuple {t} (a {:#x} b {:#x} c {:#x} d {:#x}): {g:#x}, H200 {w:#x}",
                    r[1], r[2], r[3], r[4]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 15872 differ:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(40)].join("\n")
    );
}

#[test]
fn bit_operations_by_hand() {
    use warpsim_kernel::{BitOp, PrmtMode, TestKind};
    // bfi.b32: 4 bits of 0xf at bit 8 into 0.
    assert_eq!(BitOp::Bfi { wide: false }.eval(0xf, 0, 8, 4), 0xf00);
    // bfi.b64 with a position past 255 inserts nothing (the H200's saturation: 300 ≥ 64).
    assert_eq!(BitOp::Bfi { wide: true }.eval(1, 7, 300, 1), 7);
    // bfe.u64: 8 bits from bit 32; bfe.s64 sign-extends bit 7 of them.
    let x = 0x0000_00f0_0000_0000u64;
    assert_eq!(BitOp::Bfe64 { signed: false }.eval(x, 32, 8, 0), 0xf0);
    assert_eq!(
        BitOp::Bfe64 { signed: true }.eval(x, 32, 8, 0),
        0xffff_ffff_ffff_fff0
    );
    // prmt.b32.b4e with selector 0: bytes 0, 7, 6, 5 of {b, a}.
    let p = BitOp::Prmt(PrmtMode::B4e).eval(0x4433_2211, 0x8877_6655, 0, 0);
    assert_eq!(p, 0x6677_8811);
    // mad.hi.s32: hi(-1 * 1) + 5 = -1 + 5.
    let m = BitOp::MadHi {
        signed: true,
        wide: false,
    };
    assert_eq!(m.eval(u64::from(u32::MAX), 1, 5, 0), 4);
    assert_eq!(BitOp::Clz64.eval(1, 0, 0, 0), 63);
    assert_eq!(BitOp::Popc64.eval(u64::MAX, 0, 0, 0), 64);
    // testp.normal: ±0 is normal, a subnormal is not.
    let normal = BitOp::Testp {
        kind: TestKind::Normal,
        wide: false,
    };
    assert_eq!(normal.eval(0x8000_0000, 0, 0, 0), 1);
    assert_eq!(normal.eval(1, 0, 0, 0), 0);
    assert_eq!(BitOp::Ftz.eval(0x8000_0001, 0, 0, 0), 0x8000_0000);
    assert_eq!(
        BitOp::Dp4a {
            sa: true,
            sb: false
        }
        .eval(0xff, 2, 10, 0),
        8
    );
}

#[test]
fn warp_instructions_of_issue_37_run_verified() {
    // shfl37: a run-time width (c in a register), the predicate, and a read outside the mask
    // (0, as on the H200); redux37: redux.sync and match.sync; clock37: the clocks.
    // args37: arguments typed by the kernel's PTX parameters. more37: mul24/mad24, sad, lop3,
    // %lanemask_*, elect.sync, ldu and prefetch (hand-computed lanes: more37.ptx). hints37:
    // createpolicy, ld/st with .L2::cache_hint, discard. fns37: fns.b32 (fns37.ptx). device37:
    // device variables (`__device__`): a ticket counter and an initialised table. rcp37:
    // rcp.rn.f64.
    for k in [
        "shfl37", "redux37", "clock37", "args37", "more37", "hints37", "fns37", "device37", "rcp37",
    ] {
        let path = format!("tests/fixtures/ptx/{k}.ron");
        let out = crate::util::run(&["run", &path, "--format", "json", "--no-timing"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{k}: {err}");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(r["verified"], true, "{k}: {}", r["verification"]);
    }
}

/// A warp spinning on a shared flag another warp sets: its turn ends (warp.rs `TURN_STEPS`),
/// the other warp runs, and the spin ends (it was a runaway fault).
#[test]
fn a_warp_spinning_on_another_warps_store_sees_it() {
    crate::util::run_verified("tests/fixtures/ptx/spin37.ron", &[]);
}

/// `%reserved_smem_offset_*`: the block's 1 KiB of reserved shared memory after its own,
/// counted in its shared bytes, usable as scratch.
#[test]
fn reserved_shared_memory_follows_the_kernels_own() {
    crate::util::run_verified("tests/fixtures/ptx/reserved37.ron", &[]);
}

#[test]
fn trap_is_a_fault_at_its_line() {
    let out = crate::util::run(&["run", "tests/fixtures/ptx/bad_trap37.ron", "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the kernel executed `trap`"), "{err}");
    assert!(err.contains("warp37.ptx:"), "{err}");
    assert!(err.contains("lane 5") || err.contains("(5,0,0)"), "{err}");
}

#[test]
fn a_refused_instruction_names_the_coverage_table() {
    let out = crate::util::run(&["run", "tests/fixtures/ptx/bad_unsupported.ron"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.ptx:9:2"), "{err}");
    assert!(err.contains("`pmevent` is not supported"), "{err}");
    assert!(err.contains("docs/src/ptx-coverage.md"), "{err}");
}

#[test]
fn an_argument_that_does_not_fit_its_parameter_is_refused_at_the_argument() {
    for (k, want, col) in [
        (
            "float",
            "parameter 4 is a u32, an integer: 1.5 is not an integer",
            "bad_args37_float.ron:6:",
        ),
        (
            "range",
            "parameter 4 is a u32: 4294967296 is out of its range (-2147483648 to 4294967295)",
            "bad_args37_range.ron:6:",
        ),
    ] {
        let path = format!("tests/fixtures/ptx/bad_args37_{k}.ron");
        let out = crate::util::run(&["run", &path]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{k}: {err}");
        assert!(err.contains(col), "{k}: {err}");
    }
}

#[test]
fn lop3_mul24_and_sad_by_hand() {
    use warpsim_kernel::BitOp;
    // lop3 with the table 0xf0 is `a`, 0xcc `b`, 0xaa `c`, 0x80 `a & b & c`.
    for (lut, want) in [
        (0xf0, 0xf0f0),
        (0xcc, 0xcccc),
        (0xaa, 0xaaaa),
        (0x80, 0x8080),
    ] {
        assert_eq!(
            BitOp::Lop3.eval(0xf0f0, 0xcccc, 0xaaaa, lut),
            want,
            "{lut:#x}"
        );
    }
    let m = |hi, signed, add| BitOp::Mul24 { hi, signed, add };
    // Bit 24 and up are ignored: 0x1000002 is 2.
    assert_eq!(m(false, false, false).eval(0x100_0002, 3, 0, 0), 6);
    // 0xffffff * 0xffffff = 0xfffffe000001: low word 0xfe000001, bits 16..48 0xfffffe00.
    assert_eq!(
        m(false, false, false).eval(0xff_ffff, 0xff_ffff, 0, 0),
        0xfe00_0001
    );
    assert_eq!(
        m(true, false, false).eval(0xff_ffff, 0xff_ffff, 0, 0),
        0xffff_fe00
    );
    // Signed: 0xffffff is -1, so -1 * -1 = 1; mad24 adds.
    assert_eq!(m(false, true, true).eval(0xff_ffff, 0xff_ffff, 41, 0), 42);
    // sad: |a - b| + c, unsigned and signed.
    assert_eq!(BitOp::Sad { signed: false }.eval(3, 10, 1, 0), 8);
    assert_eq!(
        BitOp::Sad { signed: true }.eval(u64::from(-5i32 as u32), 5, 0, 0),
        10
    );
    assert_eq!(
        BitOp::Sad { signed: false }.eval(u64::from(-5i32 as u32), 5, 0, 0),
        0xffff_fff6
    );
}

#[test]
fn fns_by_hand() {
    use warpsim_kernel::BitOp;
    let f = |mask: u32, base: u32, off: i32| {
        BitOp::Fns.eval(u64::from(mask), u64::from(base), u64::from(off as u32), 0) as u32
    };
    // The PTX ISA's examples.
    assert_eq!(f(0xaaaa_aaaa, 3, 1), 3);
    assert_eq!(f(0xaaaa_aaaa, 3, -1), 3);
    assert_eq!(f(0xaaaa_aaaa, 2, 1), 3);
    assert_eq!(f(0xaaaa_aaaa, 2, -1), 1);
    // The third set bit from 4 upwards in 0b1011_0110: bits 4, 5, 7.
    assert_eq!(f(0b1011_0110, 4, 3), 7);
    assert_eq!(f(0b1011_0110, 4, 4), u32::MAX);
    // Downwards from 31 in 1 << 0: the first set bit is 0; none for the second.
    assert_eq!(f(1, 31, -1), 0);
    assert_eq!(f(1, 31, -2), u32::MAX);
    // Offset 0: base itself, or none. An offset of i32::MIN is a count, not an overflow.
    assert_eq!(f(0x10, 4, 0), 4);
    assert_eq!(f(0x10, 5, 0), u32::MAX);
    assert_eq!(f(u32::MAX, 31, i32::MIN), u32::MAX);
    // A base above 31 (undefined in the PTX ISA): none.
    assert_eq!(f(u32::MAX, 32, 1), u32::MAX);
    assert_eq!(f(u32::MAX, 40, 0), u32::MAX);
}

#[test]
fn fns_is_what_the_hardware_returns() {
    // Every base and offset -34..34 over 12 masks, measured on an H100 and an H200 (the same):
    // tests/fixtures/fns_h100.txt, from calibration/probes/fns.
    use warpsim_kernel::BitOp;
    let text =
        std::fs::read_to_string(crate::util::root().join("tests/fixtures/fns_h100.txt")).unwrap();
    let pos = "abcdefghijklmnopqrstuvwxyzABCDEF";
    let mut n = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let (mask, base) = (
            u32::from_str_radix(f[0], 16).unwrap(),
            f[1].parse::<u32>().unwrap(),
        );
        for (k, c) in f[2].chars().enumerate() {
            let off = k as i32 - 34;
            let want = pos.find(c).map_or(u32::MAX, |p| p as u32);
            let got =
                BitOp::Fns.eval(u64::from(mask), u64::from(base), u64::from(off as u32), 0) as u32;
            assert_eq!(got, want, "mask {mask:08x} base {base} offset {off}");
            n += 1;
        }
    }
    assert_eq!(n, 12 * 32 * 69);
}

#[test]
fn an_expect_error_of_a_ptx_launch_points_into_the_launch_file() {
    let out = crate::util::run(&["run", "tests/fixtures/ptx/bad_expect37.ron", "--no-timing"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad_expect37.ron:6:57: this constant does not fit in 32 bits"),
        "{err}"
    );
    assert!(!err.contains("more37.ptx"), "{err}");
}
