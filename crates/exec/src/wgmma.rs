//! `wgmma.mma_async` ([`Inst::Wgmma`](warpsim_kernel::ir::Inst::Wgmma)): one warp's quarter
//! of its warpgroup's `D = A x B (+ D)`. Warp `w % 4` of the group holds rows
//! `16 (w % 4) ..+ 16` of the 64 x N accumulator ([`WgmmaOp::d_at`]) and needs only those rows
//! of A, so each warp computes its share when it issues the instruction (the multiply is done
//! when issued; `wait_group` has nothing left to wait for). A comes from the warp's registers
//! (the `mma.m16n8k{16,8,32}` A fragment) or, like B, from shared memory through a matrix
//! descriptor ([`Desc::at`]).
//!
//! The arithmetic is `mma.sync`'s ([`crate::mma`]) for f16, bf16, tf32 and s8 (measured
//! exact: calibration/probes/wgmma); e4m3/e5m2 have their own, narrower adder ([`fp8_sum`]:
//! the H200's `mma.sync` of fp8 goes through f16 `HMMA`s, its `wgmma` is a native `QGMMA`).

use super::api::PcStats;
use super::block::Ctx;
use super::fault::{Fault, FaultKind, MaskError};
use super::mma::{aligned_sum, d_element, element, float_of, nominal};
use super::tensor_exec::shared_end;
use super::warp::At;
use super::{Lanes, FULL, WARP};
use warpsim_kernel::fp16::Half;
use warpsim_kernel::ir::{Desc, MmaOp, MmaShape, MmaType, Reg, WgA, WgmmaOp};
use warpsim_kernel::tensormap::TmaSwizzle;

/// `wgmma.mma_async` number `k` of the program by warp `at.w`.
pub(super) fn wgmma(
    cx: &mut Ctx,
    at: &At,
    k: u16,
    r: &mut [Lanes],
    ps: &mut PcStats,
) -> Result<(), Fault> {
    let prog = cx.prog;
    let Some(op) = prog.wgmmas.get(k as usize) else {
        return Err(cx.fault(
            at.pc,
            FaultKind::Malformed(format!("wgmma #{k} has no operands in the program")),
            None,
        ));
    };
    if at.active != FULL {
        let lane = (!at.active).trailing_zeros();
        return Err(cx.lane_fault(
            at.pc,
            at.w,
            lane,
            FaultKind::WarpMask {
                op: "wgmma.mma_async",
                mask: FULL,
                lane,
                why: MaskError::NotReached { reached: at.active },
            },
            Some(
                "wgmma.mma_async.sync.aligned needs all 128 threads of the warpgroup: run it \
                 outside divergent code"
                    .into(),
            ),
        ));
    }
    let threads: u64 = prog.block.iter().map(|&x| x.max(1) as u64).product();
    let warps = threads.div_ceil(32) as usize;
    if at.w / 4 * 4 + 4 > warps {
        return Err(cx.fault(
            at.pc,
            FaultKind::Unpriceable(format!(
                "warp {} runs wgmma.mma_async, but its warpgroup (warps {} to {}) is not whole: \
                 the block has {warps} warps",
                at.w,
                at.w / 4 * 4,
                at.w / 4 * 4 + 3
            )),
            Some("a warpgroup is 4 warps: give the block a multiple of 128 threads".into()),
        ));
    }
    let uniform = |cx: &Ctx, reg: Reg, what: &str| -> Result<Desc, Fault> {
        let (lo, hi) = (&r[reg.0 as usize], &r[reg.0 as usize + 1]);
        let bits = |l: usize| lo[l] as u64 | (hi[l] as u64) << 32;
        if let Some(l) = (1..WARP).find(|&l| bits(l) != bits(0)) {
            return Err(cx.lane_fault(
                at.pc,
                at.w,
                l as u32,
                FaultKind::Unpriceable(format!(
                    "{what}'s matrix descriptor differs between lanes (lane 0: {:#x}, lane {l}: \
                     {:#x})",
                    bits(0),
                    bits(l)
                )),
                Some("a descriptor must be the same in every thread of the warpgroup".into()),
            ));
        }
        let d = Desc::of(bits(0));
        if d.base != 0 && d.swizzle != TmaSwizzle::None {
            return Err(cx.fault(
                at.pc,
                FaultKind::Unpriceable(format!(
                    "{what}'s matrix descriptor has base offset {} (a {}-byte swizzle pattern \
                     that does not start at its boundary): not modelled",
                    d.base,
                    d.swizzle.bytes()
                )),
                Some(
                    "align the tile to the swizzle's repeat (1024 bytes for 128-byte swizzle) \
                     and give base offset 0"
                        .into(),
                ),
            ));
        }
        Ok(d)
    };
    let b_desc = uniform(cx, op.b, "B")?;
    let a_desc = match op.a {
        WgA::Desc(a) => Some(uniform(cx, a, "A")?),
        WgA::Regs(_) => None,
    };
    let (n, kk, wq) = (op.n as usize, op.k(), at.w % 4);
    let end = shared_end(cx);
    let shared = &*cx.shared;
    // The element of `bytes` bytes at shared byte `a` (aligned to its size), inside the block's
    // shared memory.
    let read = |a: u32, bytes: u32| -> Option<u64> {
        if a as u64 + bytes as u64 > end as u64 {
            return None;
        }
        warpsim_kernel::narrow::get(shared, bytes, a as u64).map(u64::from)
    };
    let oob = |cx: &Ctx, what: &str, mn: usize, k: usize, a: u32| {
        cx.fault(
            at.pc,
            FaultKind::OutOfBounds {
                global: false,
                access: format!(
                    "element ({mn}, {k}) of {what} of `{}` at shared byte {a}",
                    cx.text(at.pc)
                ),
                bounds: format!("the block's {end} bytes of shared memory"),
            },
            Some(
                "check the descriptor's start address and byte offsets (encoded as address / 16)"
                    .into(),
            ),
        )
    };
    let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
    let reg = |q: Reg, l: usize| r.get(q.0 as usize).map_or(0, |v| v[l]);
    // The mma.sync with this one's types whose A fragment a register A has (m16n8k16 for
    // 16-bit types, m16n8k8 for tf32, m16n8k32 for 8-bit ones), and whose arithmetic D's is.
    let like = MmaOp {
        shape: match op.a_ty.bits() {
            16 => MmaShape::M16N8K16,
            32 => MmaShape::M16N8K8,
            _ => MmaShape::M16N8K32,
        },
        d_ty: op.d_ty,
        a_ty: op.a_ty,
        b_ty: op.b_ty,
        c_ty: op.d_ty,
        satfinite: op.satfinite,
        d: [Reg(0); 4],
        a: match op.a {
            WgA::Regs(regs) => regs,
            WgA::Desc(_) => [Reg(0); 4],
        },
        b: [Reg(0); 2],
        c: [Reg(0); 4],
    };
    // This warp's 16 rows of A (16 x K, K <= 32) and all of B (K x N, N <= 256).
    let mut a = [[0f64; 32]; 16];
    let ea = op.a_ty.bits() / 8;
    if let Some(d) = a_desc {
        for (row, out) in a.iter_mut().enumerate() {
            for (k, v) in out.iter_mut().enumerate().take(kk) {
                let mn = 16 * wq + row;
                let at_ = d.at(op.trans_a, ea, mn as u32, k as u32);
                let bits = read(at_, ea).ok_or_else(|| oob(cx, "A", mn, k, at_))?;
                *v = sign(op.neg_a) * float_of(op.a_ty, bits);
            }
        }
    } else {
        for lane in 0..WARP {
            for i in 0..16 * kk / WARP {
                let (row, col) = like.a_at(lane, i);
                let bits = element(op.a_ty, &like.a, i, lane, &reg);
                a[row][col] = sign(op.neg_a) * float_of(op.a_ty, bits);
            }
        }
    }
    let eb = op.b_ty.bits() / 8;
    let mut b = vec![0f64; kk * n];
    for col in 0..n {
        for k in 0..kk {
            let at_ = b_desc.at(op.trans_b, eb, col as u32, k as u32);
            let bits = read(at_, eb).ok_or_else(|| oob(cx, "B", col, k, at_))?;
            b[k * n + col] = sign(op.neg_b) * float_of(op.b_ty, bits);
        }
    }
    // The 16-byte rows of the core matrices read: this warp's rows of A and all of B (the
    // pieces the race checker is told of); the tensor cores' reads (`op_gmma`) are A's and B
    // once per warpgroup (on its first warp).
    let mut rows = Vec::new();
    if let Some(d) = a_desc {
        core_rows(
            &d,
            op.trans_a,
            ea,
            16 * wq as u32..16 * wq as u32 + 16,
            &mut rows,
        );
    }
    let a_rows = rows.len();
    core_rows(&b_desc, op.trans_b, eb, 0..n as u32, &mut rows);
    if let Some(race) = cx.race.as_mut() {
        race_reads(race, at, rows.clone());
    }
    if wq != 0 {
        rows.truncate(a_rows);
    }
    super::memory::relayout_all(cx, at.pc, 16, rows.iter_mut())?;
    let cost = warpsim_smem::core_matrices_cost(&cx.cfg.geometry, &rows)
        .map_err(|e| cx.fault(at.pc, FaultKind::Unpriceable(e.to_string()), None))?;
    ps.gmma_wavefronts += cost.wavefronts as u64;
    ps.gmma_conflicts += cost.conflicts as u64;
    // D: every element from its C (D's old value, or zero when scale-d is false).
    let fp8 = matches!(op.a_ty, MmaType::E4m3 | MmaType::E5m2);
    let per = n / 2;
    let mut out = vec![0u64; WARP * per];
    for lane in 0..WARP {
        let accumulate = reg(op.scale_d, lane) != 0;
        for i in 0..per {
            let (row, col) = WgmmaOp::d_at(wq, lane, i);
            let row = row - 16 * wq;
            let c = if accumulate {
                float_of(op.d_ty, element(op.d_ty, &op.d, i, lane, &reg))
            } else {
                0.0
            };
            let ab = |x: usize| (a[row][x], b[x * n + col]);
            out[lane * per + i] = if fp8 {
                let term = |x: usize| {
                    let (p, q) = ab(x);
                    let e = nominal(op.a_ty, p) + nominal(op.b_ty, q);
                    (p * q, e, p != 0.0 && q != 0.0)
                };
                fp8_sum(c, (0..kk).map(term), op.d_ty)
            } else {
                d_element(&like, kk, ab, c)
            };
        }
    }
    let e = op.d_ty.per_reg();
    let bits = op.d_ty.bits() as usize;
    for (j, &dst) in op.d.iter().enumerate() {
        let Some(v) = r.get_mut(dst.0 as usize) else {
            continue;
        };
        for (lane, x) in v.iter_mut().enumerate() {
            let mut w = 0u32;
            for h in 0..e {
                w |= (out[lane * per + j * e + h] as u32) << (bits * h % 32);
            }
            *x = w;
        }
    }
    Ok(())
}

/// Tells the race checker which 16-byte pieces of shared memory the warp's share reads
/// (through the async proxy: a piece stored without `fence.proxy.async` since is a hazard).
fn race_reads(race: &mut crate::race::Shadow, at: &At, mut chunks: Vec<u32>) {
    chunks.sort_unstable();
    chunks.dedup();
    race.async_read(at.pc, at.w, &chunks, 4);
    for batch in chunks.chunks(WARP) {
        let mut addrs = [0u32; WARP];
        addrs[..batch.len()].copy_from_slice(batch);
        let lanes = if batch.len() == WARP {
            FULL
        } else {
            (1u32 << batch.len()) - 1
        };
        race.access(at.pc, at.w, false, lanes, &addrs, 4);
    }
}

/// `C + sum of terms` as `QGMMA` adds fp8 products (`terms`: exact product, nominal exponent
/// from each factor's own format, whether nonzero): each addend (the K products and C)
/// truncated toward zero to a multiple of `2^(e - 13)`, `e` the largest nominal exponent
/// among them; the truncated addends summed exactly; an `f32` D is that sum truncated toward
/// zero to 14 significant bits, an `f16` D the sum rounded to nearest. Returns D's bits.
///
/// Derived from the words of calibration/probes/wgmma's two fp8 forms (8,192 of 8,192 each,
/// both with C = 0) after they were measured: post hoc, so `calibration/probes/wgmma_draw`
/// checks it on a fresh draw (other K sums, C added, other N) before anything rests on it.
/// The "about 14 bits" agree with what DeepSeek-V3's report says of Hopper's fp8 accumulation.
fn fp8_sum(c: f64, terms: impl Iterator<Item = (f64, i32, bool)> + Clone, d_ty: MmaType) -> u64 {
    let exact = |s: f64| match d_ty {
        MmaType::F16 => Half::F16.from_f64(s) as u64,
        _ if s.is_nan() => 0x7fff_ffff,
        _ => (s as f32).to_bits() as u64,
    };
    let Some(s) = aligned_sum(c, d_ty, terms.clone(), 13) else {
        return exact(terms.fold(c, |s, t| s + t.0));
    };
    if d_ty == MmaType::F16 || s == 0.0 {
        return exact(s);
    }
    // 14 significant bits, toward zero.
    let e = ((s.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let q = 2f64.powi(e - 13);
    exact((s / q).trunc() * q)
}

/// The row addresses of the core matrices (8 rows of 16 bytes) that hold rows or columns
/// `mns` of a `wgmma` operand's 32 bytes of K through descriptor `d`, 8 per matrix: a K-major
/// matrix is 8 rows of `mn` by 16 bytes of K, an MN-major one 8 rows of K by 16 bytes of `mn`.
fn core_rows(d: &Desc, mn_major: bool, esize: u32, mns: std::ops::Range<u32>, out: &mut Vec<u32>) {
    let t = 16 / esize;
    if mn_major {
        for mn in mns.step_by(t as usize) {
            for k0 in (0..32 / esize).step_by(8) {
                out.extend((0..8).map(|k| d.at(true, esize, mn, k0 + k) & !15));
            }
        }
    } else {
        for mn in mns.step_by(8) {
            for k in (0..32 / esize).step_by(t as usize) {
                out.extend((0..8).map(|r| d.at(false, esize, mn + r, k) & !15));
            }
        }
    }
}
