//! The operands of the warp-wide matrix and asynchronous-copy instructions (issue 41):
//! `ldmatrix`/`stmatrix` ([`MatrixOp`]) and `cp.async` ([`CopyOp`]). The executor's handlers
//! are in `exec/tensor_exec.rs`; the bank rules in `warpsim_smem::matrix` and
//! `warpsim_smem::async_copy`.

use super::Reg;

/// `ldmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16 {regs}, [addr]` (a load) or
/// `stmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16 [addr], {regs}` (a store): `n` 8x8
/// matrices of 16-bit elements; lane `8i + r` gives the shared byte address of row `r` of
/// matrix `i` in `addr`; each lane's register `regs[i]` holds its two elements of matrix `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixOp {
    /// `stmatrix` (else `ldmatrix`).
    pub store: bool,
    /// Matrices: 1, 2 or 4.
    pub n: u8,
    /// `.trans`.
    pub trans: bool,
    /// The row address (a shared byte address; the low word of a 64-bit register).
    pub addr: Reg,
    /// One register per matrix (the first `n` are used).
    pub regs: [Reg; 4],
    /// The shared array the address points into, for reports only.
    pub array: u16,
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], width[, size]`: each active lane copies
/// `width` bytes from global byte address `src` (a 64-bit pointer, as byte-addressed global
/// accesses hold it) to shared byte address `dst`; with `size`, only the first `size` bytes
/// are read and the rest are written as zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyOp {
    /// `.cg` (bypasses L1; 16 bytes only).
    pub bypass: bool,
    /// Bytes a lane copies: 4, 8 or 16.
    pub width: u8,
    /// The shared destination (byte address).
    pub dst: Reg,
    /// The global source: a register pair (low word first).
    pub src: Reg,
    /// The src-size operand, if the instruction has one (`.ZFILL` in SASS).
    pub size: Option<Reg>,
    /// The shared array the destination points into, for reports only.
    pub array: u16,
}

impl MatrixOp {
    /// The registers it uses (`regs[..n]`).
    pub fn used_regs(&self) -> &[Reg] {
        &self.regs[..(self.n as usize).min(4)]
    }
}

/// Which address lane `l` gives for one access of a WMMA fragment ([`super::Inst::FragAddr`]:
/// `dst = base + at.offset(l, stride)` bytes). PTX's `wmma.load`/`wmma.store` lower to these
/// and ordinary accesses (`ptx/src/wmma.rs`), as ptxas lowers them to `LDSM`/`LDS`/`LDG`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragAt {
    /// The row addresses of an `ldmatrix.x4` of 16-bit elements: lane `l` gives row `l % 8`
    /// of matrix `j = l / 8`, which starts at memory row `8 * (j & 1)` and element
    /// `8 * (j >> 1)` (`swap`: row `8 * (j >> 1)`, element `8 * (j & 1)`).
    Rows {
        /// Matrices run down the rows first (`ldmatrix` of a col-major A, a row-major B).
        swap: bool,
    },
    /// The element at fragment coordinates (`rg * g + rt * t + r0`, `cg * g + ct * t + c0`)
    /// with `g = l / 4`, `t = l % 4`, in memory at `(row * stride + col) * esize` (`trans`:
    /// `(col * stride + row) * esize`).
    Elem {
        /// The row's multiple of `g`.
        rg: u8,
        /// The row's multiple of `t`.
        rt: u8,
        /// The row's constant.
        r0: u8,
        /// The column's multiple of `g`.
        cg: u8,
        /// The column's multiple of `t`.
        ct: u8,
        /// The column's constant.
        c0: u8,
        /// The matrix is stored column by column.
        trans: bool,
        /// Bytes an element.
        esize: u8,
    },
}

impl FragAt {
    /// Lane `l`'s byte offset from the fragment's base, for a leading dimension of `stride`
    /// elements.
    pub fn offset(self, l: u32, stride: u64) -> u64 {
        match self {
            FragAt::Rows { swap } => {
                let j = (l / 8) as u64;
                let (rb, cb) = if swap {
                    (j >> 1, j & 1)
                } else {
                    (j & 1, j >> 1)
                };
                ((l % 8) as u64 + 8 * rb)
                    .wrapping_mul(stride)
                    .wrapping_add(8 * cb)
                    * 2
            }
            FragAt::Elem {
                rg,
                rt,
                r0,
                cg,
                ct,
                c0,
                trans,
                esize,
            } => {
                let (g, t) = ((l / 4) as u64, (l % 4) as u64);
                let row = rg as u64 * g + rt as u64 * t + r0 as u64;
                let col = cg as u64 * g + ct as u64 * t + c0 as u64;
                let (a, b) = if trans { (col, row) } else { (row, col) };
                a.wrapping_mul(stride)
                    .wrapping_add(b)
                    .wrapping_mul(esize as u64)
            }
        }
    }
}

/// The shape of an `mma.sync.aligned` (`M x N x K`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaShape {
    /// `m16n8k4` (tf32).
    M16N8K4,
    /// `m16n8k8` (f16, bf16, tf32).
    M16N8K8,
    /// `m16n8k16` (f16, bf16, s8, u8).
    M16N8K16,
    /// `m16n8k32` (s8, u8, e4m3, e5m2).
    M16N8K32,
    /// `m8n8k4` (f64).
    M8N8K4,
    /// `m8n8k16` (s8, u8).
    M8N8K16,
}

impl MmaShape {
    /// `(M, N, K)`.
    pub fn mnk(self) -> (usize, usize, usize) {
        match self {
            MmaShape::M16N8K4 => (16, 8, 4),
            MmaShape::M16N8K8 => (16, 8, 8),
            MmaShape::M16N8K16 => (16, 8, 16),
            MmaShape::M16N8K32 => (16, 8, 32),
            MmaShape::M8N8K4 => (8, 8, 4),
            MmaShape::M8N8K16 => (8, 8, 16),
        }
    }

    /// The shape of PTX name `s` (`m16n8k16`).
    pub fn of(s: &str) -> Option<MmaShape> {
        use MmaShape::*;
        [M16N8K4, M16N8K8, M16N8K16, M16N8K32, M8N8K4, M8N8K16]
            .into_iter()
            .find(|x| x.name() == s)
    }

    /// Its PTX name (`m16n8k16`).
    pub fn name(self) -> &'static str {
        match self {
            MmaShape::M16N8K4 => "m16n8k4",
            MmaShape::M16N8K8 => "m16n8k8",
            MmaShape::M16N8K16 => "m16n8k16",
            MmaShape::M16N8K32 => "m16n8k32",
            MmaShape::M8N8K4 => "m8n8k4",
            MmaShape::M8N8K16 => "m8n8k16",
        }
    }
}

/// The element type of an `mma` operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MmaType {
    /// IEEE half.
    F16,
    /// bfloat16.
    Bf16,
    /// TensorFloat-32: an f32 register whose low 13 mantissa bits are ignored.
    Tf32,
    /// 8-bit float, 4 exponent and 3 mantissa bits (no infinities).
    E4m3,
    /// 8-bit float, 5 exponent and 2 mantissa bits.
    E5m2,
    /// Signed 8-bit integer.
    S8,
    /// Unsigned 8-bit integer.
    U8,
    /// f32.
    F32,
    /// 32-bit signed integer (integer accumulators).
    S32,
    /// f64 (a register pair).
    F64,
}

impl MmaType {
    /// Bits of one element.
    pub fn bits(self) -> u32 {
        match self {
            MmaType::E4m3 | MmaType::E5m2 | MmaType::S8 | MmaType::U8 => 8,
            MmaType::F16 | MmaType::Bf16 => 16,
            MmaType::Tf32 | MmaType::F32 | MmaType::S32 => 32,
            MmaType::F64 => 64,
        }
    }

    /// Elements one 32-bit register holds (an f64 takes a pair: 1).
    pub fn per_reg(self) -> usize {
        (32 / self.bits().min(32)) as usize
    }

    /// 32-bit words of one register of this type (2 for f64).
    pub fn words(self) -> u8 {
        if self == MmaType::F64 {
            2
        } else {
            1
        }
    }

    /// Whether it is an integer type.
    pub fn is_int(self) -> bool {
        matches!(self, MmaType::S8 | MmaType::U8 | MmaType::S32)
    }

    /// The type of PTX name `s` (`f16`).
    pub fn of(s: &str) -> Option<MmaType> {
        use MmaType::*;
        [F16, Bf16, Tf32, E4m3, E5m2, S8, U8, F32, S32, F64]
            .into_iter()
            .find(|x| x.name() == s)
    }

    /// Its PTX name (`f16`).
    pub fn name(self) -> &'static str {
        match self {
            MmaType::F16 => "f16",
            MmaType::Bf16 => "bf16",
            MmaType::Tf32 => "tf32",
            MmaType::E4m3 => "e4m3",
            MmaType::E5m2 => "e5m2",
            MmaType::S8 => "s8",
            MmaType::U8 => "u8",
            MmaType::F32 => "f32",
            MmaType::S32 => "s32",
            MmaType::F64 => "f64",
        }
    }
}

/// `mma.sync.aligned.{shape}.row.col[.satfinite].{d}.{a}.{b}.{c} {d..}, {a..}, {b..}, {c..}`:
/// the warp's `D = A x B + C` on the tensor cores, each matrix spread over the 32 lanes'
/// registers as the PTX ISA's fragment layouts say ([`MmaOp::a_at`], [`MmaOp::b_at`],
/// [`MmaOp::cd_at`]). Kept in [`crate::Program::mmas`]; the instruction is
/// [`super::Inst::Mma`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmaOp {
    /// `M x N x K`.
    pub shape: MmaShape,
    /// Element types of D, A, B and C.
    pub d_ty: MmaType,
    /// A's element type.
    pub a_ty: MmaType,
    /// B's element type.
    pub b_ty: MmaType,
    /// C's element type.
    pub c_ty: MmaType,
    /// `.satfinite` (integer results clamp to the `s32` range instead of wrapping).
    pub satfinite: bool,
    /// D's registers (the first [`MmaOp::regs_of`]`(d_ty, M*N)` are used).
    pub d: [Reg; 4],
    /// A's registers.
    pub a: [Reg; 4],
    /// B's registers.
    pub b: [Reg; 2],
    /// C's registers.
    pub c: [Reg; 4],
}

impl MmaOp {
    /// Registers per lane of a fragment of `elems` elements of type `ty`.
    pub fn regs_of(ty: MmaType, elems: usize) -> usize {
        (elems / 32).div_ceil(ty.per_reg())
    }

    /// How many registers A, B, C and D take per lane.
    pub fn counts(&self) -> [usize; 4] {
        let (m, n, k) = self.shape.mnk();
        [
            Self::regs_of(self.a_ty, m * k),
            Self::regs_of(self.b_ty, k * n),
            Self::regs_of(self.c_ty, m * n),
            Self::regs_of(self.d_ty, m * n),
        ]
    }

    /// The registers it reads (A, B, then C), each with its words.
    pub fn srcs(&self) -> impl Iterator<Item = (Reg, u8)> + '_ {
        let [na, nb, nc, _] = self.counts();
        let a = self.a[..na.min(4)].iter().map(|&r| (r, self.a_ty.words()));
        let b = self.b[..nb.min(2)].iter().map(|&r| (r, self.b_ty.words()));
        let c = self.c[..nc.min(4)].iter().map(|&r| (r, self.c_ty.words()));
        a.chain(b).chain(c)
    }

    /// The registers it writes, each with its words.
    pub fn dsts(&self) -> impl Iterator<Item = (Reg, u8)> + '_ {
        let nd = self.counts()[3];
        self.d[..nd.min(4)].iter().map(|&r| (r, self.d_ty.words()))
    }

    /// Row and column in A (`M x K`, row-major) of element `i` of lane `lane`'s fragment
    /// (register `i / per_reg`, element `i % per_reg` of it from the low bits), as the PTX
    /// ISA's figures for `mma.m16n8k*` and `mma.m8n8k*` give them: `g = lane / 4`,
    /// `t = lane % 4`, `e` elements a register; register `j` holds row `g` (`g + 8` for odd
    /// `j` when M = 16) and columns `e t .. e t + e - 1`, plus `4 e` for `j ≥ 2` (M = 16) or
    /// `4 e j` (M = 8).
    pub fn a_at(&self, lane: usize, i: usize) -> (usize, usize) {
        let (m, _, _) = self.shape.mnk();
        let e = self.a_ty.per_reg();
        let (g, t, j) = (lane / 4, lane % 4, i / e);
        let within = e * t + i % e;
        if m == 16 {
            (g + 8 * (j & 1), within + 4 * e * (j >> 1))
        } else {
            (g, within + 4 * e * j)
        }
    }

    /// Row (k) and column (n) in B (`K x N`) of element `i` of lane `lane`'s fragment:
    /// column `g`, rows `e t .. e t + e - 1` of register `j`, plus `4 e j`.
    pub fn b_at(&self, lane: usize, i: usize) -> (usize, usize) {
        let e = self.b_ty.per_reg();
        let (g, t, j) = (lane / 4, lane % 4, i / e);
        (e * t + i % e + 4 * e * j, g)
    }

    /// Row and column in C and D (`M x N`) of element `i` of lane `lane`'s fragment: row `g`
    /// (`g + 8` for `i ≥ 2` when M = 16), column `2 t + i % 2`.
    pub fn cd_at(&self, lane: usize, i: usize) -> (usize, usize) {
        let (m, _, _) = self.shape.mnk();
        let (g, t) = (lane / 4, lane % 4);
        let row = if m == 16 { g + 8 * (i >> 1) } else { g };
        (row, 2 * t + (i & 1))
    }

    /// Whether the shape and types are a form sm_90 has (the others are refused: their
    /// layouts are not those of [`MmaOp::a_at`]).
    pub fn check(&self) -> Result<(), String> {
        use MmaShape::*;
        use MmaType::*;
        let (a, b, c, d) = (self.a_ty, self.b_ty, self.c_ty, self.d_ty);
        let int8 = |t| matches!(t, S8 | U8);
        let fp8 = |t| matches!(t, E4m3 | E5m2);
        let half_acc = |t| matches!(t, F16 | F32);
        let ok = match self.shape {
            M16N8K4 => a == Tf32 && b == Tf32 && c == F32 && d == F32,
            M16N8K8 => {
                (a == F16 && b == F16 && half_acc(c) && half_acc(d))
                    || (matches!(a, Bf16 | Tf32) && b == a && c == F32 && d == F32)
            }
            M16N8K16 => {
                (a == F16 && b == F16 && half_acc(c) && half_acc(d))
                    || (a == Bf16 && b == Bf16 && c == F32 && d == F32)
                    || (int8(a) && int8(b) && c == S32 && d == S32)
            }
            M16N8K32 => {
                (int8(a) && int8(b) && c == S32 && d == S32)
                    || (fp8(a) && fp8(b) && half_acc(c) && c == d)
            }
            M8N8K4 => a == F64 && b == F64 && c == F64 && d == F64,
            M8N8K16 => int8(a) && int8(b) && c == S32 && d == S32,
        };
        if !ok {
            return Err(format!(
                "`{}` is not a form of mma.sync that warpsim runs (the sm_90 forms: m16n8k{{8,16}} \
                 f16 and bf16, m16n8k{{4,8}} tf32, m16n8k{{16,32}} and m8n8k16 s8/u8, m16n8k32 \
                 e4m3/e5m2, m8n8k4 f64; .row.col)",
                self.ptx_name()
            ));
        }
        if self.satfinite && d != S32 {
            return Err(format!(
                "`{}`: .satfinite needs s32 results",
                self.ptx_name()
            ));
        }
        Ok(())
    }

    /// Its PTX spelling without operands.
    pub fn ptx_name(&self) -> String {
        format!(
            "mma.sync.aligned.{}.row.col{}.{}.{}.{}.{}",
            self.shape.name(),
            if self.satfinite { ".satfinite" } else { "" },
            self.d_ty.name(),
            self.a_ty.name(),
            self.b_ty.name(),
            self.c_ty.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::FragAt;

    /// ldmatrix.x4 rows of a 16 x 16 tile with 24 elements a row: lane 8 j + r gives row r of
    /// matrix j, the matrices in the order (rows 0-7, 8-15) x (columns 0-7, 8-15), or with
    /// `swap` (columns 0-7, 8-15) x (rows 0-7, 8-15).
    #[test]
    fn rows_walk_the_four_matrices() {
        let rows = FragAt::Rows { swap: false };
        let swapped = FragAt::Rows { swap: true };
        for (lane, row, col) in [
            (0, 0, 0),
            (7, 7, 0),
            (8, 8, 0),
            (15, 15, 0),
            (16, 0, 8),
            (31, 15, 8),
        ] {
            assert_eq!(rows.offset(lane, 24), (row * 24 + col) * 2, "lane {lane}");
        }
        for (lane, row, col) in [(0, 0, 0), (8, 0, 8), (16, 8, 0), (31, 15, 8)] {
            assert_eq!(
                swapped.offset(lane, 24),
                (row * 24 + col) * 2,
                "lane {lane}"
            );
        }
    }

    /// An element at (g + 8, 2 t + 1) of lane 4 g + t, row-major and transposed.
    #[test]
    fn elements_follow_g_and_t() {
        let e = |trans| FragAt::Elem {
            rg: 1,
            rt: 0,
            r0: 8,
            cg: 0,
            ct: 2,
            c0: 1,
            trans,
            esize: 4,
        };
        // Lane 13: g = 3, t = 1: row 11, column 3.
        assert_eq!(e(false).offset(13, 20), (11 * 20 + 3) * 4);
        assert_eq!(e(true).offset(13, 20), (3 * 20 + 11) * 4);
    }
}
