//! Another layout of one region of shared memory, for pricing only: "what would this array's
//! accesses cost if it were swizzled or padded?" (`warpsim advise` on CUDA and PTX kernels,
//! whose addresses are computed in code the advisor cannot rewrite). Each address inside the
//! region is moved by the layout before it is priced; the data does not move, so results are
//! the kernel's own.

/// A layout of the bytes `start..end` of a block's shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relayout {
    /// First byte of the region.
    pub start: u32,
    /// One past its last byte.
    pub end: u32,
    /// How its offsets move.
    pub kind: RelayoutKind,
}

/// How a region's byte offsets move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayoutKind {
    /// CuTe's `Swizzle<bits, base, shift>` on byte offsets: bits `base .. base + bits` XORed
    /// with bits `base + shift .. base + shift + bits` (`Swizzle<3,4,3>` is the 128-byte
    /// swizzle of TMA and `wgmma` descriptors).
    Xor {
        /// Bits XORed (2^bits chunks).
        bits: u32,
        /// log2 of the chunk bytes that move together.
        base: u32,
        /// How far above them the bits that pick the chunk lie (log2 of the row's chunks).
        shift: u32,
    },
    /// `pad` bytes after every `row` bytes.
    Pad {
        /// Bytes of a row.
        row: u32,
        /// Bytes of padding after it.
        pad: u32,
    },
}

impl RelayoutKind {
    /// A layout as [`Relayout::name`] writes it: `Swizzle<B,M,S>` (`B` 1 to 5, `M` 0 to 10,
    /// `S` at least `B`) or `pad P bytes every R` (`R` a power of two from 4 to 2^20, `P` a
    /// positive multiple of 4 below 2^16).
    pub fn parse(s: &str) -> Result<RelayoutKind, String> {
        let s = s.trim();
        let nums =
            |t: &str| -> Option<Vec<u32>> { t.split(',').map(|x| x.trim().parse().ok()).collect() };
        if let Some(inner) = s.strip_prefix("Swizzle<").and_then(|t| t.strip_suffix('>')) {
            return match nums(inner).as_deref() {
                Some(&[bits, base, shift])
                    if (1..=5).contains(&bits) && base <= 10 && shift >= bits && shift <= 16 =>
                {
                    Ok(RelayoutKind::Xor { bits, base, shift })
                }
                _ => Err(format!(
                    "`{s}` is not a swizzle warpsim can try: Swizzle<B,M,S> with B 1 to 5, M 0 \
                     to 10 and S from B to 16"
                )),
            };
        }
        let words: Vec<&str> = s.split_whitespace().collect();
        if let ["pad", p, "bytes", "every", r] = words[..] {
            if let (Ok(pad), Ok(row)) = (p.parse::<u32>(), r.parse::<u32>()) {
                if row.is_power_of_two()
                    && (4..=1 << 20).contains(&row)
                    && pad % 4 == 0
                    && pad > 0
                    && pad < 1 << 16
                {
                    return Ok(RelayoutKind::Pad { row, pad });
                }
            }
            return Err(format!(
                "`{s}`: the row must be a power of two from 4 to 1048576 bytes and the padding a \
                 positive multiple of 4 below 65536"
            ));
        }
        Err(format!(
            "`{s}` is not a layout: write `Swizzle<B,M,S>` or `pad P bytes every R`, as `warpsim \
             advise` names them"
        ))
    }
}

impl Relayout {
    /// Where `addr` lies in the new layout (addresses outside the region stay).
    #[inline]
    pub fn map(&self, addr: u32) -> u32 {
        if addr < self.start || addr >= self.end {
            return addr;
        }
        let o = addr - self.start;
        self.start
            + match self.kind {
                RelayoutKind::Xor { bits, base, shift } => {
                    let mask = ((1u32 << bits) - 1) << (base + shift);
                    o ^ ((o & mask) >> shift)
                }
                RelayoutKind::Pad { row, pad } => o + o / row * pad,
            }
    }

    /// Whether every aligned access of `width` bytes stays whole and aligned in the new
    /// layout (a swizzle of smaller chunks, or a padding that is no multiple of it, would split
    /// or misalign it: such a layout cannot hold that access).
    pub fn keeps(&self, width: u32) -> bool {
        match self.kind {
            RelayoutKind::Xor { base, .. } => width <= 1 << base,
            RelayoutKind::Pad { row, pad } => row % width == 0 && pad % width == 0,
        }
    }

    /// Its name: `Swizzle<3,4,3>`, `pad 16 bytes every 128`.
    pub fn name(&self) -> String {
        match self.kind {
            RelayoutKind::Xor { bits, base, shift } => format!("Swizzle<{bits},{base},{shift}>"),
            RelayoutKind::Pad { row, pad } => format!("pad {pad} bytes every {row}"),
        }
    }

    /// The byte offset `o` of the new layout as C: `o ^ ((o >> 3) & 0x70)`.
    pub fn recipe(&self) -> String {
        match self.kind {
            RelayoutKind::Xor { bits, base, shift } => {
                let mask = ((1u32 << bits) - 1) << base;
                format!("o ^ ((o >> {shift}) & {mask:#x})")
            }
            RelayoutKind::Pad { row, pad } => format!("o + o / {row} * {pad}"),
        }
    }

    /// Bytes the region takes in the new layout.
    pub fn bytes(&self) -> u32 {
        let n = self.end - self.start;
        match self.kind {
            RelayoutKind::Xor { .. } => n,
            RelayoutKind::Pad { row, pad } => n + n.div_ceil(row).saturating_sub(1) * pad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzle_343_is_the_128_byte_pattern_and_padding_shifts_rows() {
        let x = Relayout {
            start: 1024,
            end: 1024 + 8192,
            kind: RelayoutKind::Xor {
                bits: 3,
                base: 4,
                shift: 3,
            },
        };
        // Row r's chunk c lands at chunk c ^ (r % 8).
        for r in 0..16u32 {
            for c in 0..8u32 {
                let a = x.map(1024 + r * 128 + c * 16);
                assert_eq!(a, 1024 + r * 128 + ((c ^ (r % 8)) * 16));
            }
        }
        assert_eq!(x.map(100), 100);
        assert!(x.keeps(16) && !x.keeps(32));
        assert_eq!(x.recipe(), "o ^ ((o >> 3) & 0x70)");
        let p = Relayout {
            start: 0,
            end: 4096,
            kind: RelayoutKind::Pad { row: 128, pad: 4 },
        };
        assert_eq!(p.map(130), 134);
        assert!(p.keeps(4) && !p.keeps(8));
        assert_eq!(p.bytes(), 4096 + 31 * 4);
        // Names read back.
        for k in [x.kind, p.kind] {
            let r = Relayout { kind: k, ..x };
            assert_eq!(RelayoutKind::parse(&r.name()), Ok(k));
        }
        for bad in [
            "Swizzle<0,4,3>",
            "Swizzle<3,4,2>",
            "pad 3 bytes every 128",
            "pad 4 bytes every 100",
            "xor",
        ] {
            assert!(RelayoutKind::parse(bad).is_err(), "{bad}");
        }
    }
}
