//! `wgmma.mma_async` (Hopper's warpgroup matrix multiply): the operands
//! ([`WgmmaOp`]) and the shared-memory matrix descriptor ([`Desc`]) that places A and B.
//!
//! A warpgroup (4 consecutive warps, the first a multiple of 4) computes `D = A x B (+ D)`,
//! `M = 64`, `N` from 8 to 256, `K` 32 bytes of elements (k16 for f16/bf16, k8 tf32, k32 8-bit).
//! Warp `w % 4` of the group holds rows `16 (w % 4) ..+ 16` of D and reads only those rows of
//! A, so each warp's share is computed on its own. Layouts as the PTX ISA gives them
//! (section 9.7.15.5.1: "Register Fragments and Shared Memory Matrix Layouts", "Matrix
//! Descriptor Format", and the CuTe canonical layouts of its table): not yet measured on the
//! H200.

use super::{MmaType, Reg};
use crate::tensormap::TmaSwizzle;

/// Where A comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WgA {
    /// Four registers per lane, the fragment of `mma.m16n8k{8,16,32}`'s A for the warp's 16
    /// rows.
    Regs([Reg; 4]),
    /// A 64-bit matrix descriptor (its low word's register; the high word is the next).
    Desc(Reg),
}

/// `wgmma.mma_async.sync.aligned.m64nNkK[.satfinite].{d}.{a}.{b} {d..}, a, b-desc, scale-d[,
/// imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b]`. Kept in
/// [`crate::Program::wgmmas`]; the instruction is [`super::Inst::Wgmma`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WgmmaOp {
    /// N (a multiple of 8, 8 to 256).
    pub n: u16,
    /// D's element type (`f32`, `f16` or `s32`).
    pub d_ty: MmaType,
    /// A's element type.
    pub a_ty: MmaType,
    /// B's element type.
    pub b_ty: MmaType,
    /// `.satfinite` (integer results clamp instead of wrapping).
    pub satfinite: bool,
    /// D's registers, in the PTX list's order (`N/2` of f32/s32, `N/4` of f16x2).
    pub d: Vec<Reg>,
    /// A.
    pub a: WgA,
    /// B's descriptor (low word; the high word is the next register).
    pub b: Reg,
    /// `scale-d`: a predicate register (or a constant's) per lane; 0: `D = A x B`.
    pub scale_d: Reg,
    /// `imm-scale-a = -1`, `imm-scale-b = -1`: the operand's elements negated.
    pub neg_a: bool,
    /// See `neg_a`.
    pub neg_b: bool,
    /// `imm-trans-a = 1`: A is M-major in shared memory (16-bit types only).
    pub trans_a: bool,
    /// `imm-trans-b = 1`: B is N-major in shared memory (16-bit types only).
    pub trans_b: bool,
}

impl WgmmaOp {
    /// K: 32 bytes of A's elements.
    pub fn k(&self) -> usize {
        256 / self.a_ty.bits() as usize
    }

    /// How many registers D takes per lane.
    pub fn d_regs(&self) -> usize {
        self.n as usize / 2 / self.d_ty.per_reg()
    }

    /// Whether the shape and types are a form sm_90a has.
    pub fn check(&self) -> Result<(), String> {
        use MmaType::*;
        let (a, b, d, n) = (self.a_ty, self.b_ty, self.d_ty, self.n);
        let fp8 = |t| matches!(t, E4m3 | E5m2);
        let int8 = |t| matches!(t, S8 | U8);
        let ok = match a {
            F16 => b == F16 && matches!(d, F16 | F32),
            Bf16 | Tf32 => b == a && d == F32,
            E4m3 | E5m2 => fp8(b) && matches!(d, F16 | F32),
            S8 | U8 => int8(b) && d == S32,
            _ => false,
        };
        // The integer shapes skip some N above 32 (the PTX ISA's list: 8, 16, 24, 32, then
        // multiples of 16 to 256).
        let n_ok = n % 8 == 0 && (8..=256).contains(&n) && (!int8(a) || n <= 32 || n % 16 == 0);
        if !ok || !n_ok {
            return Err(format!(
                "`{}` is not a form of wgmma.mma_async (sm_90a: f16 and e4m3/e5m2 into f16 or \
                 f32, bf16 and tf32 into f32, s8/u8 into s32; N a multiple of 8 up to 256)",
                self.ptx_name()
            ));
        }
        if self.satfinite && d != S32 {
            return Err(format!(
                "`{}`: .satfinite needs s32 results",
                self.ptx_name()
            ));
        }
        if (self.trans_a || self.trans_b) && a.bits() != 16 {
            return Err(format!(
                "`{}`: imm-trans is 1, but only f16/bf16 operands may be transposed",
                self.ptx_name()
            ));
        }
        if self.trans_a && matches!(self.a, WgA::Regs(_)) {
            return Err("imm-trans-a with A in registers".into());
        }
        if self.d.len() != self.d_regs() {
            return Err(format!(
                "`{}` writes {} registers of D, not {}",
                self.ptx_name(),
                self.d_regs(),
                self.d.len()
            ));
        }
        Ok(())
    }

    /// Its PTX spelling without operands.
    pub fn ptx_name(&self) -> String {
        format!(
            "wgmma.mma_async.sync.aligned.m64n{}k{}{}.{}.{}.{}",
            self.n,
            self.k(),
            if self.satfinite { ".satfinite" } else { "" },
            self.d_ty.name(),
            self.a_ty.name(),
            self.b_ty.name()
        )
    }

    /// The registers it reads (A's registers or descriptor, B's descriptor, scale-d), each
    /// with its words; D is read too when `scale-d` is true.
    pub fn srcs(&self) -> Vec<(Reg, u8)> {
        let mut v = match &self.a {
            WgA::Regs(r) => r.iter().map(|&r| (r, 1)).collect(),
            WgA::Desc(r) => vec![(*r, 2)],
        };
        v.push((self.b, 2));
        v.push((self.scale_d, 1));
        v
    }

    /// Row and column in D (64 x N) of element `i` of lane `lane` of the group's warp `wq`
    /// (0-3): the `mma.m16n8` accumulator repeated every 8 columns, rows `16 wq` down (the PTX
    /// ISA's figure for `wgmma .m64nNk16` D).
    pub fn d_at(wq: usize, lane: usize, i: usize) -> (usize, usize) {
        let (g, t) = (lane / 4, lane % 4);
        (
            16 * wq + g + 8 * ((i >> 1) & 1),
            8 * (i >> 2) + 2 * t + (i & 1),
        )
    }
}

/// A decoded shared-memory matrix descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc {
    /// The matrix's start (shared byte address; bits 0-13, times 16).
    pub start: u32,
    /// Leading dimension byte offset (bits 16-29, times 16).
    pub lbo: u32,
    /// Stride dimension byte offset (bits 32-45, times 16).
    pub sbo: u32,
    /// Matrix base offset (bits 49-51).
    pub base: u8,
    /// Bits 62-63: 0 none (8 x 16-byte core matrices), 1 128-byte, 2 64-byte, 3 32-byte, the
    /// swizzles TMA writes.
    pub swizzle: TmaSwizzle,
}

impl Desc {
    /// Decodes a descriptor's 64 bits.
    pub fn of(bits: u64) -> Desc {
        let field = |at: u32| (((bits >> at) & 0x3fff) as u32) << 4;
        Desc {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base: ((bits >> 49) & 7) as u8,
            swizzle: match bits >> 62 {
                0 => TmaSwizzle::None,
                1 => TmaSwizzle::B128,
                2 => TmaSwizzle::B64,
                _ => TmaSwizzle::B32,
            },
        }
    }

    /// The shared byte address of element (`mn`, `k`) of a matrix of `esize`-byte elements
    /// (`mn` the row of A or the column of B, `k` within the instruction's 32 bytes of K), in
    /// the canonical layouts of the PTX ISA (`T` = elements per 16 bytes, `W` the swizzle's
    /// row bytes; offsets in elements unless named):
    ///
    /// * K-major, no swizzle: `((8,m),(T,2)) : ((1T,SBO),(1,LBO))`;
    /// * K-major, swizzled: `((8,m),(T,2)) : ((W/16 T,SBO),(1,T))`;
    /// * MN-major, no swizzle: `((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))`;
    /// * MN-major, swizzled: `((T,W/16,m),(8,k)) : ((1,T,LBO),(W/16 T,SBO))`;
    ///
    /// then the swizzle on the whole address.
    pub fn at(&self, mn_major: bool, esize: u32, mn: u32, k: u32) -> u32 {
        let w = self.swizzle.bytes();
        let off = if !mn_major {
            let kb = k * esize;
            let (row, group) = (mn % 8, mn / 8);
            match self.swizzle {
                TmaSwizzle::None => row * 16 + group * self.sbo + kb % 16 + (kb / 16) * self.lbo,
                _ => row * w + group * self.sbo + kb,
            }
        } else {
            let t = 16 / esize;
            match self.swizzle {
                TmaSwizzle::None => {
                    (mn % t) * esize + (mn / t) * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo
                }
                _ => {
                    let run = t * (w / 16);
                    (mn % run) * esize + (mn / run) * self.lbo + (k % 8) * w + (k / 8) * self.sbo
                }
            }
        };
        self.swizzle.apply(self.start.wrapping_add(off))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(start: u32, lbo: u32, sbo: u32, mode: u64) -> u64 {
        (start as u64 >> 4) | (lbo as u64 >> 4) << 16 | (sbo as u64 >> 4) << 32 | mode << 62
    }

    /// The PTX ISA's worked examples (section 9.7.15.5.1.2.1.3): the exact layouts it gives
    /// for the canonical ones, element (mn, k) at the offset their strides say.
    #[test]
    fn the_ptx_isa_examples() {
        // K-major, no swizzle, tf32: ((8,2),(4,4)):((4,32),(1,64)) elements, LBO 256 B, SBO 128 B.
        let d = Desc::of(desc(0, 256, 128, 0));
        for mn in 0..16 {
            for k in 0..8 {
                let e = (mn % 8) * 4 + (mn / 8) * 32 + k % 4 + (k / 4) * 64;
                assert_eq!(d.at(false, 4, mn, k), e * 4, "mn {mn} k {k}");
            }
        }
        // MN-major, no swizzle, bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 256 B, SBO 128 B.
        let d = Desc::of(desc(0, 256, 128, 0));
        for mn in 0..16 {
            for k in 0..16 {
                let e = mn % 8 + (mn / 8) * 64 + (k % 8) * 8 + (k / 8) * 128;
                assert_eq!(d.at(true, 2, mn, k), e * 2, "mn {mn} k {k}");
            }
        }
        // MN-major, 64-byte swizzle, bf16: Swizzle<2,4,3> o ((8,4,2),(8,2)):((1,8,256),(32,512)),
        // LBO 512 B, SBO 1024 B.
        let d = Desc::of(desc(0, 512, 1024, 2));
        for mn in 0..64 {
            for k in 0..16 {
                let e =
                    mn % 8 + ((mn / 8) % 4) * 8 + (mn / 32) * 256 + (k % 8) * 32 + (k / 8) * 512;
                let b = e * 2;
                assert_eq!(
                    d.at(true, 2, mn, k),
                    b ^ (((b >> 7) & 3) << 4),
                    "mn {mn} k {k}"
                );
            }
        }
        // MN-major, 32-byte swizzle, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 256 B, SBO 512 B.
        let d = Desc::of(desc(0, 256, 512, 3));
        for mn in 0..32 {
            for k in 0..16 {
                let e =
                    mn % 8 + ((mn / 8) % 2) * 8 + (mn / 16) * 128 + (k % 8) * 16 + (k / 8) * 256;
                let b = e * 2;
                assert_eq!(
                    d.at(true, 2, mn, k),
                    b ^ (((b >> 7) & 1) << 4),
                    "mn {mn} k {k}"
                );
            }
        }
    }

    /// K-major with the 128-byte swizzle, as TMA writes a 64 x 64 f16 tile with
    /// `CU_TENSOR_MAP_SWIZZLE_128B` (row r at 128 r, its 16-byte chunk c at chunk c ^ (r % 8)),
    /// read 16 columns at a time by advancing the start address 32 bytes.
    #[test]
    fn k_major_128b_reads_a_tma_tile() {
        let tma = |r: u32, col: u32| {
            let chunk = (col * 2 / 16) ^ (r % 8);
            r * 128 + chunk * 16 + (col * 2) % 16
        };
        for kstep in 0..4 {
            let d = Desc::of(desc(1024 + 32 * kstep, 16, 1024, 1));
            for mn in 0..64 {
                for k in 0..16 {
                    assert_eq!(d.at(false, 2, mn, k), 1024 + tma(mn, 16 * kstep + k));
                }
            }
        }
    }

    /// D's fragment: lane 4 g + t of warp q holds (16 q + g (+8), 8 j + 2 t (+1)).
    #[test]
    fn d_fragment() {
        assert_eq!(WgmmaOp::d_at(0, 0, 0), (0, 0));
        assert_eq!(WgmmaOp::d_at(0, 5, 3), (9, 3));
        assert_eq!(WgmmaOp::d_at(2, 31, 6), (32 + 7 + 8, 8 + 6));
    }
}
