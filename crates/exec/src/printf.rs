//! [`Inst::Printf`](warpsim_kernel::ir::Inst::Printf) (CUDA's `printf`): each active lane, in
//! lane order, formats the program's (parsed) format with the arguments packed in its local
//! memory, and the text goes to [`Stats::printf`](super::Stats::printf) — the block's lines
//! in the order its warps ran them, the blocks in grid order (as the runner merges them).
//! Past [`MAX_PRINTF`] bytes a run's text is cut, as the GPU's 1 MiB printf buffer drops what
//! does not fit, and the bytes dropped are counted.

use super::block::Ctx;
use super::fault::{Fault, FaultKind};
use super::warp::At;
use super::Lanes;
use super::LOADER_BUG;
use warpsim_kernel::ir::Reg;
use warpsim_smem::WARP;

/// The most bytes of `printf` text a run keeps (the GPU's default printf buffer).
pub const MAX_PRINTF: usize = 1 << 20;

/// Runs a `printf` by the active lanes of warp `at.w`.
pub(super) fn run(
    cx: &mut Ctx,
    at: &At,
    r: &mut [Lanes],
    dst: Reg,
    args: Reg,
    fmt: u16,
) -> Result<(), Fault> {
    let Some(format) = cx.prog.formats.get(fmt as usize) else {
        return Err(cx.fault(
            at.pc,
            FaultKind::Malformed(format!(
                "printf names format {fmt}, which the program lacks"
            )),
            Some(LOADER_BUG.into()),
        ));
    };
    let size = cx.prog.local_bytes as u64;
    let lw = cx.prog.local_bytes.div_ceil(4) as usize;
    let first = at.w * WARP * lw;
    let base = r[args.0 as usize];
    let mut lanes = at.active;
    while lanes != 0 {
        let l = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        let window = cx
            .local
            .get(first + l * lw..first + (l + 1) * lw)
            .unwrap_or(&[]);
        let start = base[l] as u64;
        let read = |at: u32, bytes: u32| -> Option<u64> {
            let a = start + at as u64;
            if a + bytes as u64 > size {
                return None;
            }
            Some((0..bytes as u64).fold(0u64, |v, k| {
                let b = a + k;
                let w = window.get((b / 4) as usize).copied().unwrap_or(0);
                v | (((w >> ((b % 4) * 8)) & 0xff) as u64) << (8 * k)
            }))
        };
        let line = warpsim_kernel::printf::format(&format.pieces, &format.strings, read);
        cx.printf.add(&line);
        r[dst.0 as usize][l] = format.args;
    }
    Ok(())
}

/// A run's `printf` text, cut at [`MAX_PRINTF`] bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintfOut {
    /// The text kept.
    pub text: Vec<u8>,
    /// Bytes dropped past the limit.
    pub dropped: u64,
}

impl PrintfOut {
    /// Appends `bytes`, as much as fits.
    pub fn add(&mut self, bytes: &[u8]) {
        let room = MAX_PRINTF.saturating_sub(self.text.len());
        let keep = bytes.len().min(room);
        self.text.extend_from_slice(&bytes[..keep]);
        self.dropped += (bytes.len() - keep) as u64;
    }

    /// Appends another run's (a later block's) text.
    pub fn merge(&mut self, other: &PrintfOut) {
        self.add(&other.text);
        self.dropped += other.dropped;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_is_cut_at_the_buffer_and_the_rest_counted() {
        let mut a = PrintfOut::default();
        a.add(&vec![b'x'; MAX_PRINTF - 3]);
        a.add(b"12345");
        assert_eq!((a.text.len(), a.dropped), (MAX_PRINTF, 2));
        let mut b = PrintfOut::default();
        b.add(b"later");
        let mut first = PrintfOut::default();
        first.add(b"one ");
        first.merge(&b);
        assert_eq!(first.text, b"one later");
        a.merge(&b);
        assert_eq!((a.text.len(), a.dropped), (MAX_PRINTF, 7));
    }
}
