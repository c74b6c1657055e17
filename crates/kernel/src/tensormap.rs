//! TMA's tensor maps (issue 41): what `cuTensorMapEncodeTiled` describes — a tensor of up to 5
//! dimensions in a buffer, the box one `cp.async.bulk.tensor` moves, the swizzle of the box in
//! shared memory and the fill of elements outside the tensor — as a launch file gives it
//! (`tensor_maps:`), and the byte movement of one box. The executor calls [`TensorMap::copy`]
//! (`exec/bulk.rs`).
//!
//! A kernel receives a tensor map as a `__grid_constant__ CUtensorMap` parameter; its address
//! is [`TENSORMAP_BASE`]` + 128 k` for the program's map `k`.

/// The tag of a pointer to tensor map `k`: `TENSORMAP_BASE + 128 k` (below
/// [`crate::printf::STRING_BASE`], above every buffer pointer).
pub const TENSORMAP_BASE: u64 = 0xfffd << 48;

/// How a box is laid out in shared memory, as the H200 wrote it
/// (`calibration/probes/tensor_smem/README.md`, "TMA"): without a swizzle, dense rows of the
/// box's inner bytes; with one, every row takes the swizzle's whole span (a narrower row is
/// padded, the padding not written), then each 16-byte chunk moves to chunk
/// `c ^ ((address / 128) % n)` (`n` = 2, 4, 8 for 32, 64, 128 bytes: bits 4-6 of the shared
/// address XOR bits 7-9, CuTe's `Swizzle<1|2|3, 4, 3>` on bytes). A `wgmma` matrix descriptor
/// names the same modes (`ir::Desc`), and reads a tile TMA wrote this way as it was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TmaSwizzle {
    /// Rows as they are.
    #[default]
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

impl TmaSwizzle {
    /// The span in bytes (0 for none).
    pub fn bytes(self) -> u32 {
        match self {
            TmaSwizzle::None => 0,
            TmaSwizzle::B32 => 32,
            TmaSwizzle::B64 => 64,
            TmaSwizzle::B128 => 128,
        }
    }

    /// Where byte address `a` of an unswizzled box lands.
    pub fn apply(self, a: u32) -> u32 {
        let mask = (self.bytes() / 16).saturating_sub(1);
        a ^ (((a >> 7) & mask) << 4)
    }
}

/// One tensor map: `dims[i]` elements along dimension `i` (0 innermost), `strides[i]` bytes
/// between consecutive indices of dimension `i` (`strides[0]` is the element size), a box of
/// `boxes[i]` elements.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMap {
    /// Its name in the launch file.
    pub name: String,
    /// The buffer it describes.
    pub buffer: u16,
    /// Bytes an element.
    pub esize: u32,
    /// Dimensions (1 to 5).
    pub rank: u8,
    /// Elements along each dimension.
    pub dims: [u64; 5],
    /// Bytes between consecutive indices of each dimension.
    pub strides: [u64; 5],
    /// The box's elements along each dimension.
    pub boxes: [u32; 5],
    /// The box's layout in shared memory.
    pub swizzle: TmaSwizzle,
    /// Elements outside the tensor read as NaN (floats: `0x7ff7` in every 16 bits, as the
    /// H200 writes it), else as zero.
    pub fill_nan: bool,
}

impl TensorMap {
    /// Bytes a row of the box (its inner dimension) takes in shared memory: the inner bytes,
    /// or with a swizzle its span.
    pub fn row_bytes(&self) -> u64 {
        match self.swizzle.bytes() {
            0 => self.boxes[0] as u64 * self.esize as u64,
            s => s as u64,
        }
    }

    /// Bytes the box takes in shared memory (its rows, padded to the swizzle's span).
    pub fn footprint(&self) -> u64 {
        self.box_bytes() / (self.boxes[0] as u64 * self.esize as u64) * self.row_bytes()
    }

    /// The box's bytes (what a load completes on its barrier).
    pub fn box_bytes(&self) -> u64 {
        self.boxes[..self.rank as usize]
            .iter()
            .map(|&b| b as u64)
            .product::<u64>()
            * self.esize as u64
    }

    /// Moves the box at element coordinates `at` (one per dimension): for each of its
    /// elements, row by row, `f(shared byte offset from the box's start, padded and swizzled,
    /// with `base` the box's shared address; the element's global byte offset in the buffer,
    /// or `None` outside the tensor)`.
    pub fn copy(&self, base: u32, at: &[i32], mut f: impl FnMut(u32, Option<u64>)) {
        let r = self.rank as usize;
        let mut idx = [0u32; 5];
        let total: u64 = self.boxes[..r].iter().map(|&b| b as u64).product();
        for n in 0..total {
            let mut rest = n;
            for (i, x) in idx.iter_mut().enumerate().take(r) {
                *x = (rest % self.boxes[i] as u64) as u32;
                rest /= self.boxes[i] as u64;
            }
            let mut g = Some(0u64);
            for (i, &x) in idx.iter().enumerate().take(r) {
                let c = at.get(i).copied().unwrap_or(0) as i64 + x as i64;
                g = match g {
                    Some(o) if c >= 0 && (c as u64) < self.dims[i] => {
                        Some(o + c as u64 * self.strides[i])
                    }
                    _ => None,
                };
            }
            let (row, x) = (n / self.boxes[0] as u64, n % self.boxes[0] as u64);
            let off = (row * self.row_bytes() + x * self.esize as u64) as u32;
            let s = self
                .swizzle
                .apply(base.wrapping_add(off))
                .wrapping_sub(base);
            f(s, g);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(swizzle: TmaSwizzle) -> TensorMap {
        TensorMap {
            name: "m".into(),
            buffer: 0,
            esize: 4,
            rank: 2,
            dims: [40, 3, 1, 1, 1],
            strides: [4, 160, 0, 0, 0],
            boxes: [32, 8, 1, 1, 1],
            swizzle,
            fill_nan: false,
        }
    }

    #[test]
    fn a_box_is_row_major_with_the_outside_missing() {
        let mut seen = Vec::new();
        map(TmaSwizzle::None).copy(0, &[16, 1], |s, g| seen.push((s, g)));
        assert_eq!(seen.len(), 256);
        // Row 0 of the box is tensor row 1, columns 16..48: 24 inside.
        assert_eq!(seen[0], (0, Some(160 + 64)));
        assert_eq!(seen[23], (92, Some(160 + 39 * 4)));
        assert_eq!(seen[24], (96, None));
        // Box row 2 is tensor row 3: outside.
        assert_eq!(seen[64], (256, None));
        assert_eq!(map(TmaSwizzle::None).box_bytes(), 1024);
    }

    #[test]
    fn swizzled_rows_narrower_than_the_span_are_padded_to_it() {
        // 16-byte rows with the 64-byte swizzle: row r at 64 r, then the XOR (as the H200's
        // `tmadump_128Bi64` dump shows for 64-byte rows under the 128-byte swizzle).
        let mut m = map(TmaSwizzle::B64);
        m.boxes = [4, 8, 1, 1, 1];
        assert_eq!(
            (m.row_bytes(), m.footprint(), m.box_bytes()),
            (64, 512, 128)
        );
        let mut seen = Vec::new();
        m.copy(0, &[0, 0], |s, _| seen.push(s));
        // Row 2 (at 128): chunk 0 ^ 1; row 4 (at 256): chunk 0 ^ 2.
        assert_eq!(&seen[8..12], &[144, 148, 152, 156]);
        assert_eq!(seen[16], 256 + 32);
        assert_eq!(seen[4], 64);
    }

    #[test]
    fn the_128_byte_swizzle_xors_chunks_with_the_row() {
        let s = TmaSwizzle::B128;
        // Row 0: as is; row 1 (bytes 128..): chunk c goes to c ^ 1; row 7: c ^ 7.
        assert_eq!(s.apply(16), 16);
        assert_eq!(s.apply(128), 128 + 16);
        assert_eq!(s.apply(128 + 16 + 4), 128 + 4);
        assert_eq!(s.apply(7 * 128 + 3 * 16), 7 * 128 + 4 * 16);
        // The pattern repeats every 1,024 bytes.
        assert_eq!(s.apply(1024 + 128), 1024 + 128 + 16);
        assert_eq!(TmaSwizzle::B64.apply(3 * 128), 3 * 128 + 48);
        assert_eq!(TmaSwizzle::B64.apply(4 * 128), 4 * 128);
        assert_eq!(TmaSwizzle::B32.apply(128), 128 + 16);
        assert_eq!(TmaSwizzle::B32.apply(256), 256);
        assert_eq!(TmaSwizzle::None.apply(128), 128);
    }
}
