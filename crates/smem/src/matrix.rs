//! `ldmatrix` / `stmatrix` (SASS `LDSM` / `STSM`, `.m8n8 .x1/.x2/.x4 [.trans] .b16`): the bank
//! rule measured on the H200 (`calibration/probes/tensor_smem/README.md`, "LDSM / STSM";
//! 209 + 159 launches exact on the Source page and the hardware counters).
//!
//! * One phase per 8x8 matrix. Matrix `m`'s rows are the row addresses of lanes `8m … 8m+7`,
//!   16 bytes each. The phase costs the most distinct words asked of one bank (rows on one
//!   address merge, as in `LDS`). Wavefronts are the sum over the matrices; bank conflicts are
//!   wavefronts minus the number of matrices, which is also Nsight's "ideal".
//! * `.trans` costs the same; loads and stores cost the same.
//! * Lanes `8n …` (past the last matrix) give no address: not priced, not checked.
//! * A used row address that is not 16-byte aligned is a fault ("misaligned address").
//!
//! Nsight counts them twice over: on the Source page as `..._op_ldsm` / `..._op_stsm`, and in
//! the hardware `l1tex__…_op_ld` / `_op_st` counters, added to the `LDS` / `STS` traffic.
//!
//! [`core_matrices_cost`] prices the tensor cores' reads of `wgmma`'s shared operands
//! (Nsight's `..._op_gmma`) by the same rule: one phase per core matrix of 8 rows of 16 bytes.

use crate::*;
use std::fmt;

/// Bytes of one matrix row.
pub const MATRIX_ROW_BYTES: u32 = 16;

/// One `ldmatrix` / `stmatrix` warp instruction's shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Matrix {
    /// `stmatrix` (a store) rather than `ldmatrix`.
    pub store: bool,
    /// Matrices: 1, 2 or 4 (`.x1`, `.x2`, `.x4`).
    pub n: u32,
    /// `.trans`.
    pub trans: bool,
}

impl Matrix {
    /// Lanes that give a row address (`8n`).
    pub fn used_lanes(&self) -> u32 {
        8 * self.n
    }

    /// The mask of the lanes that give a row address.
    pub fn used_mask(&self) -> u32 {
        if self.n >= 4 {
            u32::MAX
        } else {
            (1u32 << (8 * self.n)) - 1
        }
    }
}

impl fmt::Display for Matrix {
    /// As a trace line writes it: `ldsm x4.trans`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.store { "stsm" } else { "ldsm" };
        let t = if self.trans { ".trans" } else { "" };
        write!(f, "{op} x{}{t}", self.n)
    }
}

/// Why a matrix access cannot be priced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatrixError {
    /// The geometry is not one [`Geometry::new`] accepts.
    #[error(transparent)]
    Geometry(#[from] Error),
    /// Not `.x1`, `.x2` or `.x4`.
    #[error("{0} matrices is not a shape: ldmatrix/stmatrix move 1, 2 or 4 (.x1, .x2, .x4)")]
    Count(u32),
    /// A lane that gives a row address is inactive.
    #[error(
        "lane {lane} gives the address of row {} of matrix {} but is inactive: lanes 0 to {} \
         must all give a row address", lane % 8, lane / 8, used - 1
    )]
    Inactive {
        /// The lane.
        lane: u32,
        /// Lanes that must be active (8 per matrix).
        used: u32,
    },
    /// A used row address is not 16-byte aligned (the H200 faults: "misaligned address").
    #[error(
        "lane {lane}'s row address {addr} is not 16-byte aligned (misaligned address): a matrix \
         row is 16 bytes and must start at a multiple of 16"
    )]
    Misaligned {
        /// The lane.
        lane: u32,
        /// Its row's byte address.
        addr: u32,
    },
}

/// Prices one `ldmatrix`/`stmatrix`: `rows[l]` is lane `l`'s row address (used for lanes
/// `0 … 8n-1` only; `mask` must have those lanes, the others are ignored). Returns
/// wavefronts, bank conflicts and `phases` = the number of matrices (Nsight's "ideal").
pub fn matrix_cost(
    geom: &Geometry,
    m: Matrix,
    rows: &[u32; WARP],
    mask: u32,
) -> Result<Cost, MatrixError> {
    matrix_cost_into(geom, m, rows, mask, &mut ())
}

/// [`matrix_cost`], also adding the words each bank served to `counts`.
pub fn matrix_cost_counting(
    geom: &Geometry,
    m: Matrix,
    rows: &[u32; WARP],
    mask: u32,
    counts: &mut BankCounts,
) -> Result<Cost, MatrixError> {
    if counts.each.len() < geom.banks as usize {
        counts.each.resize(geom.banks as usize, 0);
    }
    matrix_cost_into(geom, m, rows, mask, counts)
}

/// The tensor cores' reads of a `wgmma` operand in shared memory (`HGMMA`/`QGMMA`/`IGMMA`;
/// Nsight's `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma`): `rows` holds its core
/// matrices, 8 row addresses of 16 bytes each, priced as `ldmatrix` prices a matrix (one
/// phase each). Measured on 12 layouts (`calibration/probes/wgmma`, RESULT.md): 16 wavefronts
/// for the 64 x 32 bytes of A, 16 for B's 64 x 32, none of them conflicts.
pub fn core_matrices_cost(geom: &Geometry, rows: &[u32]) -> Result<Cost, MatrixError> {
    let one = Matrix {
        store: false,
        n: 1,
        trans: false,
    };
    let mut total = Cost::default();
    for m in rows.chunks(8) {
        let mut r = [0u32; WARP];
        r[..m.len()].copy_from_slice(m);
        let c = matrix_cost_into(geom, one, &r, 0xff, &mut ())?;
        total.wavefronts += c.wavefronts;
        total.conflicts += c.conflicts;
        total.phases += c.phases;
    }
    Ok(total)
}

fn matrix_cost_into<S: Sink + ?Sized>(
    geom: &Geometry,
    m: Matrix,
    rows: &[u32; WARP],
    mask: u32,
    sink: &mut S,
) -> Result<Cost, MatrixError> {
    geom.validate()?;
    if !matches!(m.n, 1 | 2 | 4) {
        return Err(MatrixError::Count(m.n));
    }
    let used = m.used_mask();
    let missing = used & !mask;
    if missing != 0 {
        return Err(MatrixError::Inactive {
            lane: missing.trailing_zeros(),
            used: m.used_lanes(),
        });
    }
    for (lane, &a) in rows.iter().enumerate().take(m.used_lanes() as usize) {
        if a % MATRIX_ROW_BYTES != 0 {
            return Err(MatrixError::Misaligned {
                lane: lane as u32,
                addr: a,
            });
        }
    }
    let shift = geom.bank_bytes.trailing_zeros();
    let mut wavefronts = 0;
    for mat in 0..m.n as usize {
        // The distinct words of the matrix's 8 rows (at most 8 x 4 on 4-byte banks).
        let mut words = [0u32; 32];
        let mut nw = 0;
        for &a in &rows[8 * mat..8 * mat + 8] {
            let (first, last) = (a >> shift, (a + MATRIX_ROW_BYTES - 1) >> shift);
            for w in first..=last {
                if !words[..nw].contains(&w) {
                    words[nw] = w;
                    nw += 1;
                }
            }
        }
        // The most of them on one bank.
        let mut most = 0;
        for (i, &w) in words[..nw].iter().enumerate() {
            let b = w % geom.banks;
            if words[..i].iter().any(|&v| v % geom.banks == b) {
                continue;
            }
            let on = words[i..nw]
                .iter()
                .filter(|&&v| v % geom.banks == b)
                .count() as u32;
            sink.add(b as usize, on as u64);
            most = most.max(on);
        }
        wavefronts += most;
    }
    Ok(Cost {
        wavefronts,
        conflicts: wavefronts - m.n,
        phases: m.n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A core matrix of 8 contiguous rows is one wavefront wherever it starts; 8 rows 128 bytes
    /// apart are one bank's 8 words each: 8 wavefronts, 7 conflicts.
    #[test]
    fn core_matrices_cost_one_phase_each() {
        let g = Geometry::H200;
        let rows: Vec<u32> = (0..8)
            .map(|r| 16 + 16 * r)
            .chain((0..8).map(|r| 128 * r))
            .collect();
        let c = core_matrices_cost(&g, &rows).unwrap();
        assert_eq!((c.wavefronts, c.conflicts, c.phases), (9, 7, 2));
        assert!(core_matrices_cost(&g, &[8; 8]).is_err());
    }
}
