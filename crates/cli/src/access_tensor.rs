//! `warpsim access`: the trace lines of `ldmatrix`/`stmatrix` and `cp.async` (issue 41).
//!
//! * `name ldsm|stsm x1|x2|x4[.trans] o0 … o31`: lane `l`'s row address (lanes past `8n` are
//!   given but unused; `-1` or `_` there is fine);
//! * `name cp.async.ca|cp.async.cg 4|8|16 d0 … d31 s0 … s31 [z0 … z31]`: shared destinations
//!   (`-1` or `_`: lane inactive), global source byte addresses, and optionally each lane's
//!   src-size (bytes read, the rest zero-filled: the instruction's `.ZFILL` form).
//!
//! Priced by [`warpsim_smem::matrix_cost`] and [`warpsim_smem::async_copy_cost`]; the row's
//! `wavefronts`/`bank_conflicts` are the Source page's, with Nsight's "ideal" and, for
//! `cp.async`, the sectors, tags and the hardware counters beside them.

use crate::access::{LineError, Row};
use warpsim_smem::{
    async_copy_cost, matrix_cost, AsyncCopy, CopyError, CopyLanes, Geometry, Matrix, MatrixError,
    WARP,
};

const MATRIX_FORMAT: &str = "write `name ldsm|stsm x1|x2|x4[.trans] o0 … o31`: a name, the \
                             instruction, the shape and 32 row byte offsets (lanes past 8 per \
                             matrix are unused: `-1` or `_` is fine there)";

const COPY_FORMAT: &str = "write `name cp.async.ca|cp.async.cg 4|8|16 d0 … d31 s0 … s31 [z0 … \
                           z31]`: a name, the instruction, the bytes a lane copies, 32 shared \
                           destinations (`-1` or `_`: lane inactive), 32 global source byte \
                           addresses and optionally 32 src-sizes";

/// A field of the line and its 1-based column.
pub(crate) type Field<'a> = (usize, &'a str);

/// The whitespace-separated fields of a line with their columns (in characters, from 1).
pub(crate) fn fields(line: &str) -> Vec<Field<'_>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, &line[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, &line[s..]));
    }
    out.into_iter()
        .map(|(s, f)| (line[..s].chars().count() + 1, f))
        .collect()
}

/// Whether the line's op is one of this module's.
pub(crate) fn is_tensor(op: &str) -> bool {
    matches!(op, "ldsm" | "stsm") || op.starts_with("cp.async")
}

fn err(col: usize, msg: String) -> LineError {
    LineError {
        col: Some(col),
        msg,
    }
}

/// Prices a `ldsm`/`stsm`/`cp.async` line (its fields, comment removed, at least two).
pub(crate) fn price(geom: &Geometry, f: &[Field<'_>]) -> Result<Row, LineError> {
    let (col, op) = f[1];
    match op {
        "ldsm" | "stsm" => matrix(geom, f),
        "cp.async.ca" | "cp.async.cg" => copy(geom, f),
        _ => Err(err(
            col,
            format!(
                "`{op}` is not an access kind: write `cp.async.ca` or `cp.async.cg` (or ld, st, \
                 ldsm, stsm, atom.OP, red.OP)"
            ),
        )),
    }
}

fn matrix(geom: &Geometry, f: &[Field<'_>]) -> Result<Row, LineError> {
    if f.len() != 3 + WARP {
        let last = f.last().map_or(1, |x| x.0);
        return Err(err(
            last,
            format!("expected 35 fields, found {}: {MATRIX_FORMAT}", f.len()),
        ));
    }
    let (col, shape) = f[2];
    let (n, trans) = match shape {
        "x1" => (1, false),
        "x2" => (2, false),
        "x4" => (4, false),
        "x1.trans" => (1, true),
        "x2.trans" => (2, true),
        "x4.trans" => (4, true),
        s => {
            return Err(err(
                col,
                format!("`{s}` is not a shape: write x1, x2 or x4, with .trans if transposed"),
            ))
        }
    };
    let m = Matrix {
        store: f[1].1 == "stsm",
        n,
        trans,
    };
    let mut rows = [0u32; WARP];
    let mut mask = 0;
    for (lane, &(col, v)) in f[3..].iter().enumerate() {
        if inactive(v) {
            continue;
        }
        rows[lane] = number(v).filter(|&x| x <= u32::MAX as u64).ok_or_else(|| {
            err(
                col,
                format!(
                    "lane {lane}'s row offset `{v}` is not a byte offset: write a whole number \
                     from 0 to 4294967295 (decimal or 0x hex)"
                ),
            )
        })? as u32;
        mask |= 1 << lane;
    }
    let c = matrix_cost(geom, m, &rows, mask).map_err(|e| {
        let lane = match e {
            MatrixError::Misaligned { lane, .. } | MatrixError::Inactive { lane, .. } => lane,
            _ => 0,
        };
        err(f[3 + lane as usize].0, e.to_string())
    })?;
    Ok(Row {
        name: f[0].1.to_string(),
        op: format!("{}.x{n}{}", f[1].1, if trans { ".trans" } else { "" }),
        width: 16,
        wavefronts: c.wavefronts,
        bank_conflicts: c.conflicts,
        ideal: Some(c.phases),
        // The hardware op_ld / op_st counters hold the same numbers.
        hw_wavefronts: Some(c.wavefronts),
        hw_bank_conflicts: Some(c.conflicts),
        ..Row::default()
    })
}

fn copy(geom: &Geometry, f: &[Field<'_>]) -> Result<Row, LineError> {
    if f.len() != 3 + 2 * WARP && f.len() != 3 + 3 * WARP {
        let last = f.last().map_or(1, |x| x.0);
        return Err(err(
            last,
            format!(
                "expected 67 fields (99 with src-sizes), found {}: {COPY_FORMAT}",
                f.len()
            ),
        ));
    }
    let bypass = f[1].1 == "cp.async.cg";
    let (col, w) = f[2];
    let width = match (w, bypass) {
        ("4", false) => 4,
        ("8", false) => 8,
        ("16", _) => 16,
        _ => {
            let what = if bypass {
                "cp.async.cg copies 16 bytes a lane: write 16 (or use cp.async.ca for 4 or 8)"
            } else {
                "write 4, 8 or 16 (bytes a lane)"
            };
            return Err(err(col, format!("`{w}` is not a cp.async size: {what}")));
        }
    };
    let zfill = f.len() == 3 + 3 * WARP;
    let (mut dst, mut src, mut size) = ([0u32; WARP], [0u64; WARP], [width; WARP]);
    let mut mask = 0u32;
    for lane in 0..WARP {
        let (dc, d) = f[3 + lane];
        if inactive(d) {
            continue;
        }
        dst[lane] = number(d).filter(|&x| x <= u32::MAX as u64).ok_or_else(|| {
            err(
                dc,
                format!(
                    "lane {lane}'s destination `{d}` is not a shared byte offset: write a whole \
                     number from 0 to 4294967295 (decimal or 0x hex), or `-1` or `_` for an \
                     inactive lane"
                ),
            )
        })? as u32;
        mask |= 1 << lane;
        let (sc, s) = f[3 + WARP + lane];
        src[lane] = number(s).ok_or_else(|| {
            err(
                sc,
                format!(
                    "lane {lane}'s source `{s}` is not a global byte address: write a whole \
                     number (decimal or 0x hex); the lane is active (its destination is {d})"
                ),
            )
        })?;
        if zfill {
            let (zc, z) = f[3 + 2 * WARP + lane];
            size[lane] = number(z).filter(|&x| x <= width as u64).ok_or_else(|| {
                err(
                    zc,
                    format!(
                        "lane {lane}'s src-size `{z}` is not a byte count from 0 to {width}: \
                             write the bytes the lane reads (the rest of its {width} are \
                             zero-filled)"
                    ),
                )
            })? as u32;
        }
    }
    let kind = AsyncCopy {
        bypass,
        width,
        zfill,
    };
    let lanes = CopyLanes {
        dst: &dst,
        src: &src,
        size: &size,
        mask,
    };
    let c = async_copy_cost(geom, kind, lanes).map_err(|e| {
        let at = match e {
            CopyError::Destination { lane, .. } => f[3 + lane as usize].0,
            CopyError::Source { lane, .. } => f[3 + WARP + lane as usize].0,
            CopyError::Size { lane, .. } => f[3 + 2 * WARP + lane as usize].0,
            _ => col,
        };
        err(at, e.to_string())
    })?;
    Ok(Row {
        name: f[0].1.to_string(),
        op: format!("{}{}", f[1].1, if zfill { ".zfill" } else { "" }),
        width,
        wavefronts: c.wavefronts,
        bank_conflicts: c.conflicts,
        ideal: Some(c.ideal),
        sectors: Some(c.sectors),
        tags: Some(c.tags),
        hw_wavefronts: Some(c.hw_wavefronts),
        hw_bank_conflicts: Some(c.hw_conflicts),
        ..Row::default()
    })
}

fn inactive(v: &str) -> bool {
    v == "-1" || v == "_"
}

/// A decimal or `0x` hexadecimal `u64`.
fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}
