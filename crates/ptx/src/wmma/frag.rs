//! WMMA's fragments (`wmma.rs`): which shapes and types warpsim runs, each fragment's
//! registers and elements (`mma.sync`'s fragments, stacked or transposed as measured), and
//! the `ldmatrix` loads that fill a 16-bit one from shared memory.

/// Why a sub-byte or f64 WMMA is refused.
pub(super) const SUB_BYTE: &str =
    "the sub-byte (.s4, .u4, .b1: m8n8k32, m8n8k128) and .f64 (m8n8k4) WMMA \
                        shapes are not modelled (warpsim runs m16n16k16, m32n8k16 and m8n32k16 \
                        of .f16, .bf16, .s8 and .u8, and m16n16k8 of .tf32)";

/// Which matrix a fragment holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    A,
    B,
    C,
}

/// A fragment's element type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Ty {
    F16,
    Bf16,
    Tf32,
    F32,
    S8,
    U8,
    S32,
}

impl Ty {
    pub(super) fn of(p: &str) -> Option<Ty> {
        Some(match p {
            "f16" => Ty::F16,
            "bf16" => Ty::Bf16,
            "tf32" => Ty::Tf32,
            "f32" => Ty::F32,
            "s8" => Ty::S8,
            "u8" => Ty::U8,
            "s32" => Ty::S32,
            _ => return None,
        })
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::Tf32 => "tf32",
            Ty::F32 => "f32",
            Ty::S8 => "s8",
            Ty::U8 => "u8",
            Ty::S32 => "s32",
        }
    }

    pub(super) fn bytes(self) -> u8 {
        match self {
            Ty::F16 | Ty::Bf16 => 2,
            Ty::S8 | Ty::U8 => 1,
            Ty::Tf32 | Ty::F32 | Ty::S32 => 4,
        }
    }
}

/// A fragment: matrix, shape (`m`, `n`, `k`) and element type.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frag {
    pub(super) kind: Kind,
    pub(super) m: u8,
    pub(super) n: u8,
    pub(super) k: u8,
    pub(super) ty: Ty,
}

/// An element of a fragment at matrix coordinates (`rg g + rt t + r0`, `cg g + ct t + c0`) for
/// lane `4 g + t`: `[rg, rt, r0, cg, ct, c0]`.
pub(super) type At = [u8; 6];

/// The same element of the transposed matrix (row and column swapped).
pub(super) fn transposed(v: Vec<At>) -> Vec<At> {
    v.into_iter()
        .map(|[rg, rt, r0, cg, ct, c0]| [cg, ct, c0, rg, rt, r0])
        .collect()
}

/// `mma.sync.m16n8k16`'s A fragment (16 x 16 of 16-bit elements, 4 registers; of 8-bit ones,
/// 16 x 16 bytes, 2 registers) at rows `ro..ro + 16`, in register order (the PTX ISA's layout,
/// exact on the GPU: calibration/probes/mma_numerics).
pub(super) fn mma_a(bytes: u8, ro: u8) -> Vec<At> {
    let mut v = Vec::new();
    if bytes == 2 {
        for r in 0..4 {
            for h in 0..2 {
                v.push([1, 0, ro + 8 * (r & 1), 0, 2, 8 * (r >> 1) + h]);
            }
        }
    } else {
        for r in 0..2 {
            for b in 0..4 {
                v.push([1, 0, ro + 8 * r, 0, 4, b]);
            }
        }
    }
    v
}

/// `mma.sync.m16n8k16`'s B fragment (16 x 8; 2 registers of 16-bit elements, 1 of 8-bit ones)
/// at columns `co..co + 8`.
pub(super) fn mma_b(bytes: u8, co: u8) -> Vec<At> {
    let mut v = Vec::new();
    if bytes == 2 {
        for r in 0..2 {
            for h in 0..2 {
                v.push([0, 2, 8 * r + h, 1, 0, co]);
            }
        }
    } else {
        for b in 0..4 {
            v.push([0, 4, b, 1, 0, co]);
        }
    }
    v
}

/// `mma.sync`'s m16n8 accumulator (4 elements) at rows `ro..ro + 16`, columns `co..co + 8`.
pub(super) fn mma_c(ro: u8, co: u8) -> Vec<At> {
    let mut v = Vec::new();
    for p in 0..2 {
        for h in 0..2 {
            v.push([1, 0, ro + 8 * p, 0, 2, co + h]);
        }
    }
    v
}

impl Frag {
    /// The fragment of `kind` with elements `ty` in shape `shape`, if warpsim runs it.
    pub(super) fn new(kind: Kind, shape: &str, ty: Ty) -> Result<Frag, String> {
        let (m, n, k) = match (shape, kind, ty) {
            ("m16n16k16" | "m32n8k16" | "m8n32k16", Kind::A | Kind::B, Ty::F16 | Ty::Bf16)
            | ("m16n16k16" | "m32n8k16" | "m8n32k16", Kind::A | Kind::B, Ty::S8 | Ty::U8)
            | ("m16n16k16" | "m32n8k16" | "m8n32k16", Kind::C, Ty::F16 | Ty::F32 | Ty::S32) => {
                match shape {
                    "m16n16k16" => (16, 16, 16),
                    "m32n8k16" => (32, 8, 16),
                    _ => (8, 32, 16),
                }
            }
            ("m16n16k8", Kind::A | Kind::B, Ty::Tf32) | ("m16n16k8", Kind::C, Ty::F32) => {
                (16, 16, 8)
            }
            ("m8n8k32" | "m8n8k128" | "m8n8k4", ..) => {
                return Err(format!(
                    "the .{shape} shape (warpsim runs WMMA's m16n16k16, m32n8k16 and m8n32k16 \
                     of .f16, .bf16, .s8 and .u8, and m16n16k8 of .tf32; the sub-byte and .f64 \
                     shapes are not modelled)"
                ))
            }
            _ => {
                return Err(format!(
                    "a .{shape} fragment of .{} (warpsim runs m16n16k16, m32n8k16 and m8n32k16 \
                     with .f16, .bf16, .s8 or .u8 inputs and .f16, .f32 or .s32 accumulators, \
                     and m16n16k8 .tf32)",
                    ty.name()
                ))
            }
        };
        Ok(Frag { kind, m, n, k, ty })
    }

    /// The registers a PTX fragment names, and how many hold distinct elements: a lane holds
    /// 1/32 of the matrix, 2 elements a register of 16 bits, 4 of 8, 1 of 32 (the PTX ISA's
    /// register counts); a 16-bit A or B fragment of `.f16` always names 8 registers, the
    /// ones past the distinct elements repeating them (register `i` is register
    /// `i % distinct`: measured for m16n16k16 A and B, m32n8k16 B and m8n32k16 A, see
    /// `Frag::elems`).
    pub(super) fn regs(self) -> (usize, usize) {
        let (rows, cols) = self.dims();
        let elems = rows as usize * cols as usize / 32;
        let distinct = elems * self.ty.bytes() as usize / 4;
        match (self.kind, self.ty) {
            (Kind::A | Kind::B, Ty::F16) => (8, distinct),
            _ => (distinct, distinct),
        }
    }

    /// The matrix's rows and columns.
    pub(super) fn dims(self) -> (u8, u8) {
        match self.kind {
            Kind::A => (self.m, self.k),
            Kind::B => (self.k, self.n),
            Kind::C => (self.m, self.n),
        }
    }

    /// Each distinct element in register order (`[rg, rt, r0, cg, ct, c0]`): the `mma.sync`
    /// fragments the shape's `wmma.mma` runs on (`Expand::mma`).
    ///
    /// * m16n16k16: A is m16n8k16's A; B its B of columns 0-7, then 8-15; the accumulator
    ///   m16n8's of columns 0-7, then 8-15 (calibration/probes/wmma_layout, f16; the s8/u8 A
    ///   and B: wmma_numerics/raw/layout_more.txt).
    /// * m32n8k16: two m16n8k16 down the rows. A: m16n8k16's A of rows 0-15, then 16-31
    ///   (measured for f16 row-major, wmma_layout); B: m16n8k16's B (measured for f16
    ///   col-major); the accumulator m16n8's of rows 0-15, then 16-31 (measured, f32 and f16:
    ///   layout_more.txt).
    /// * m8n32k16: the transposed problem D^T = B^T A^T, a m32n8k16. A: the transpose of
    ///   m16n8k16's B (measured for f16 row-major, wmma_layout); B: the transpose of m16n8k16's
    ///   A of columns 0-15, then 16-31 (measured for f16 col-major, layout_more.txt); the
    ///   accumulator the transposed m16n8's (measured for f32, layout_more.txt).
    /// * m16n16k8 (tf32): m16n8k8's tf32 A; its B of columns 0-7, then 8-15 (wmma_layout).
    ///
    /// Not measured, and taken from the same rule: the other layouts of each (col-major where
    /// row-major was measured, and the reverse: m16n16k16's measured both, the same logical
    /// elements), bf16 (the f16 elements, registers dense) and the 8-bit fragments of m32n8k16
    /// and m8n32k16, and m8n32k16's f16 accumulator (the f32 one's order, two a register).
    /// calibration/probes/wmma_numerics/layout_more2.cu dumps them all.
    pub(super) fn elems(self) -> Vec<At> {
        let bytes = self.ty.bytes();
        match (self.kind, bytes, self.m) {
            (Kind::A, 4, _) => (0..4u8)
                .map(|e| [1, 0, 8 * (e & 1), 0, 1, 4 * (e >> 1)])
                .collect(),
            (Kind::B, 4, _) => (0..4u8)
                .map(|e| [0, 1, 4 * (e & 1), 1, 0, 8 * (e >> 1)])
                .collect(),
            (Kind::A, _, 16) => mma_a(bytes, 0),
            (Kind::B, _, 16) => [mma_b(bytes, 0), mma_b(bytes, 8)].concat(),
            (Kind::C, _, 16) => [mma_c(0, 0), mma_c(0, 8)].concat(),
            (Kind::A, _, 32) => [mma_a(bytes, 0), mma_a(bytes, 16)].concat(),
            (Kind::B, _, 32) => mma_b(bytes, 0),
            (Kind::C, _, 32) => [mma_c(0, 0), mma_c(16, 0)].concat(),
            (Kind::A, _, _) => transposed(mma_b(bytes, 0)),
            (Kind::B, _, _) => transposed([mma_a(bytes, 0), mma_a(bytes, 16)].concat()),
            (Kind::C, _, _) => transposed([mma_c(0, 0), mma_c(16, 0)].concat()),
        }
    }
}

/// One `ldmatrix.m8n8` of a fragment's registers `first..first + n`: its matrices' rows at
/// `FragAt::Rows` `swap` from memory row and element `origin`.
pub(super) struct Ldsm {
    pub(super) first: usize,
    pub(super) n: usize,
    pub(super) trans: bool,
    pub(super) swap: bool,
    pub(super) origin: (u8, u8),
}

/// The `ldmatrix` loads of a 16-bit A or B fragment stored `col`-major, from its element table:
/// each register must be a row of an 8 x 8 matrix (lane `4 g + t` holding elements `2 t`,
/// `2 t + 1` of row `g`; `.trans`: row `2 t` and `2 t + 1` of column `g`), and each 4 (or 2)
/// registers' matrices must lie as one `warpsim.fragaddr.rows` gives them (matrix `j` at rows
/// `8 (j & 1)`, elements `8 (j >> 1)` from the first's, or the two swapped). `None`: the
/// fragment is not ldmatrix-shaped, and is loaded element by element.
pub(super) fn ldsm_plan(frag: Frag, col: bool) -> Option<Vec<Ldsm>> {
    let elems = frag.elems();
    let (_, distinct) = frag.regs();
    // Each register: transposed or not, and its matrix's origin in memory (row, element).
    let mut mats = Vec::with_capacity(distinct);
    for r in 0..distinct {
        let mem = |e: At| {
            let (a, b) = if col { (3, 0) } else { (0, 3) };
            ([e[a], e[a + 1], e[a + 2]], [e[b], e[b + 1], e[b + 2]])
        };
        let ((r0, c0), (r1, c1)) = (mem(*elems.get(2 * r)?), mem(*elems.get(2 * r + 1)?));
        let m = match (r0, c0) {
            ([1, 0, mr], [0, 2, mc]) if r1 == r0 && c1 == [0, 2, mc + 1] => (false, (mr, mc)),
            ([0, 2, mr], [1, 0, mc]) if c1 == c0 && r1 == [0, 2, mr + 1] => (true, (mr, mc)),
            _ => return None,
        };
        mats.push(m);
    }
    let n = match distinct {
        2 => 2,
        d if d % 4 == 0 => 4,
        _ => return None,
    };
    let mut plan = Vec::new();
    for (c, chunk) in mats.chunks(n).enumerate() {
        let (trans, (or, oc)) = chunk[0];
        let at = |swap: bool, j: u8| {
            let (a, b) = (8 * (j & 1), 8 * (j >> 1));
            if swap {
                (or + b, oc + a)
            } else {
                (or + a, oc + b)
            }
        };
        let fits = |swap: bool| {
            chunk
                .iter()
                .enumerate()
                .all(|(j, &(tr, o))| tr == trans && o == at(swap, j as u8))
        };
        let swap = match (fits(false), fits(true)) {
            (true, _) => false,
            (false, true) => true,
            (false, false) => return None,
        };
        plan.push(Ldsm {
            first: c * n,
            n,
            trans,
            swap,
            origin: (or, oc),
        });
    }
    Some(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPES: [&str; 4] = ["m16n16k16", "m32n8k16", "m8n32k16", "m16n16k8"];
    const TYPES: [Ty; 7] = [
        Ty::F16,
        Ty::Bf16,
        Ty::Tf32,
        Ty::F32,
        Ty::S8,
        Ty::U8,
        Ty::S32,
    ];

    /// Every fragment warpsim runs: its 32 lanes' elements cover the matrix exactly once, in
    /// as many registers as the PTX ISA gives it.
    #[test]
    fn every_fragment_covers_its_matrix_once() {
        let mut n = 0;
        for shape in SHAPES {
            for kind in [Kind::A, Kind::B, Kind::C] {
                for ty in TYPES {
                    let Ok(f) = Frag::new(kind, shape, ty) else {
                        continue;
                    };
                    n += 1;
                    let (rows, cols) = f.dims();
                    let (regs, distinct) = f.regs();
                    let per = 4 / ty.bytes() as usize;
                    let elems = f.elems();
                    assert_eq!(elems.len(), distinct * per, "{shape} {kind:?} {ty:?}");
                    let mut seen = vec![0u8; rows as usize * cols as usize];
                    for l in 0..32u32 {
                        let (g, t) = (l / 4, l % 4);
                        for e in &elems {
                            let r = e[0] as u32 * g + e[1] as u32 * t + e[2] as u32;
                            let c = e[3] as u32 * g + e[4] as u32 * t + e[5] as u32;
                            assert!(
                                r < rows as u32 && c < cols as u32,
                                "{shape} {kind:?} {ty:?}"
                            );
                            seen[(r * cols as u32 + c) as usize] += 1;
                        }
                    }
                    assert!(seen.iter().all(|&s| s == 1), "{shape} {kind:?} {ty:?}");
                    // The PTX ISA's register counts.
                    let want = match (shape, kind, ty) {
                        (_, Kind::A | Kind::B, Ty::F16) | (_, Kind::C, Ty::F32 | Ty::S32) => 8,
                        (_, Kind::C, _) => 4,
                        ("m16n16k16", _, Ty::Bf16) | ("m16n16k8", ..) => 4,
                        ("m32n8k16", Kind::A, Ty::Bf16) | ("m8n32k16", Kind::B, Ty::Bf16) => 8,
                        (_, _, Ty::Bf16) => 2,
                        ("m16n16k16", ..) => 2,
                        ("m32n8k16", Kind::A, _) | ("m8n32k16", Kind::B, _) => 4,
                        _ => 1,
                    };
                    assert_eq!(regs, want, "{shape} {kind:?} {ty:?}");
                }
            }
        }
        // 3 shapes x (4 A + 4 B + 3 C) and m16n16k8's 3.
        assert_eq!(n, 36);
    }

    /// The ldmatrix loads derived from the element tables: m16n16k16's are the measured ones
    /// (wmma_layout: `LDSM.16.M88.4`, `.MT88.4` for a col-major A and a row-major B); the new
    /// shapes' 32-row operands are two `.x4`, 16 rows apart, the 8-wide ones one `.x2`.
    #[test]
    fn ldmatrix_plans() {
        let plan = |shape, kind, col| {
            let f = Frag::new(kind, shape, Ty::F16).unwrap();
            ldsm_plan(f, col)
                .unwrap()
                .iter()
                .map(|l| (l.first, l.n, l.trans, l.swap, l.origin))
                .collect::<Vec<_>>()
        };
        let m16 = "m16n16k16";
        assert_eq!(plan(m16, Kind::A, false), [(0, 4, false, false, (0, 0))]);
        assert_eq!(plan(m16, Kind::A, true), [(0, 4, true, true, (0, 0))]);
        assert_eq!(plan(m16, Kind::B, true), [(0, 4, false, true, (0, 0))]);
        assert_eq!(plan(m16, Kind::B, false), [(0, 4, true, false, (0, 0))]);
        let m32 = "m32n8k16";
        assert_eq!(
            plan(m32, Kind::A, false),
            [(0, 4, false, false, (0, 0)), (4, 4, false, false, (16, 0))]
        );
        assert_eq!(
            plan(m32, Kind::A, true),
            [(0, 4, true, true, (0, 0)), (4, 4, true, true, (0, 16))]
        );
        assert_eq!(plan(m32, Kind::B, true), [(0, 2, false, true, (0, 0))]);
        assert_eq!(plan(m32, Kind::B, false), [(0, 2, true, false, (0, 0))]);
        let m8 = "m8n32k16";
        assert_eq!(plan(m8, Kind::A, false), [(0, 2, false, true, (0, 0))]);
        assert_eq!(plan(m8, Kind::A, true), [(0, 2, true, false, (0, 0))]);
        assert_eq!(
            plan(m8, Kind::B, true),
            [(0, 4, false, false, (0, 0)), (4, 4, false, false, (16, 0))]
        );
        assert_eq!(
            plan(m8, Kind::B, false),
            [(0, 4, true, true, (0, 0)), (4, 4, true, true, (0, 16))]
        );
    }

    /// The sub-byte and f64 shapes are refused, naming what runs.
    #[test]
    fn other_shapes_are_refused() {
        for shape in ["m8n8k32", "m8n8k128", "m8n8k4"] {
            let e = Frag::new(Kind::A, shape, Ty::F16).unwrap_err();
            assert!(e.contains("m32n8k16 and m8n32k16"), "{e}");
        }
        let e = Frag::new(Kind::A, "m16n16k8", Ty::F16).unwrap_err();
        assert!(e.contains("m16n16k8 .tf32"), "{e}");
    }
}
