//! What `ldmatrix`, `stmatrix` and `cp.async` do to registers and shared memory (issue 41),
//! as the PTX ISA defines the fragments and as the H200 resolves lanes that share an address
//! (`calibration/probes/tensor_smem/README.md`, "Data"; the functional dumps of the first
//! device call are `tests/fixtures/h200/tensor_smem/dumps.txt`, checked by
//! `crates/exec/tests/tensor_dumps.rs`).
//!
//! These are the data paths the executor's `ldmatrix`/`stmatrix`/`cp.async` handlers will
//! call (the instructions are not in the IR yet); the bank cost of each is
//! [`warpsim_smem::matrix_cost`] / [`warpsim_smem::async_copy_cost`].

use warpsim_smem::WARP;

/// The element of 8x8 matrix fragment register half `h` of lane `t`: (row, column).
/// Non-transposed: lane `t` holds row `t / 4`, columns `2 (t % 4)` and `2 (t % 4) + 1`;
/// `.trans`: the same with row and column exchanged.
#[inline]
pub fn fragment_element(t: usize, h: usize, trans: bool) -> (usize, usize) {
    let (a, b) = (t / 4, 2 * (t % 4) + h);
    if trans {
        (b, a)
    } else {
        (a, b)
    }
}

/// `ldmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16`: register `i` of lane `t` (for
/// `i < n`) from the 16-bit elements at matrix `i`'s rows (`rows[8i + r]`, byte addresses),
/// low half first. `read16(byte address)` reads shared memory.
pub fn ldmatrix(
    n: usize,
    trans: bool,
    rows: &[u32; WARP],
    mut read16: impl FnMut(u32) -> u16,
) -> [[u32; 4]; WARP] {
    let mut out = [[0u32; 4]; WARP];
    for (t, regs) in out.iter_mut().enumerate() {
        for (i, reg) in regs.iter_mut().enumerate().take(n) {
            let mut v = 0u32;
            for h in 0..2 {
                let (r, c) = fragment_element(t, h, trans);
                v |= (read16(rows[8 * i + r] + 2 * c as u32) as u32) << (16 * h);
            }
            *reg = v;
        }
    }
    out
}

/// `stmatrix.sync.aligned.m8n8.x{n}[.trans].shared.b16`: writes every element of the `n`
/// matrices from the lanes' registers, `write16(byte address, value)`, in the order that
/// leaves the H200's result where rows share an address: matrices in order (a later matrix
/// wins), and inside a matrix the lowest row last (it wins).
pub fn stmatrix(
    n: usize,
    trans: bool,
    rows: &[u32; WARP],
    regs: &[[u32; 4]; WARP],
    mut write16: impl FnMut(u32, u16),
) {
    for i in 0..n {
        for r in (0..8).rev() {
            for c in 0..8 {
                // The lane and half holding element (r, c) of the matrix.
                let (t, h) = if trans {
                    (c * 4 + r / 2, r % 2)
                } else {
                    (r * 4 + c / 2, c % 2)
                };
                let v = (regs[t][i] >> (16 * h)) as u16;
                write16(rows[8 * i + r] + 2 * c as u32, v);
            }
        }
    }
}

/// `cp.async.ca|cg.shared.global [dst], [src], width[, src-size]`: each active lane copies
/// `size[l]` bytes from `src[l]` and writes zero over the rest of its `width`; lanes in
/// increasing order, so that of lanes on one destination the highest's copy stays (measured
/// for `.ca`; assumed for `.cg`, the draw decides).
pub fn cp_async(
    width: u32,
    dst: &[u32; WARP],
    src: &[u64; WARP],
    size: &[u32; WARP],
    mask: u32,
    mut read_byte: impl FnMut(u64) -> u8,
    mut write_byte: impl FnMut(u32, u8),
) {
    for l in (0..WARP).filter(|&l| mask >> l & 1 != 0) {
        for i in 0..width {
            let v = if i < size[l] {
                read_byte(src[l] + i as u64)
            } else {
                0
            };
            write_byte(dst[l] + i, v);
        }
    }
}
