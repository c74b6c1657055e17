//! The layout advisor of CUDA and PTX kernels, whose shared addresses are computed in code it
//! cannot rewrite: each shared array's accesses are priced as if its bytes had another layout
//! ([`warpsim_smem::Relayout`]: CuTe-style XOR swizzles `Swizzle<B,M,S>` of 4-, 8- and
//! 16-byte chunks, and paddings of 4, 8 or 16 bytes after rows of 32 bytes to 4 KiB), every
//! access of the kernel to it included (`ldmatrix`, `cp.async`, `wgmma`'s core matrices). The
//! data does not move, so the results are the kernel's own; what changes is what each access
//! costs and, through the timing model, how long the kernel takes. The advice is then the
//! layout to write into the kernel, as where it puts the array's byte offset `o`.

use super::advise::{candidate, ArrayAdvice, ByteLayout, Candidate};
use crate::side_by_side::Gate;
use crate::{run, Report, RunOptions};
use rayon::prelude::*;
use warpsim_kernel::{Diag, Program, SharedInfo};
use warpsim_smem::{Relayout, RelayoutKind};

/// The layouts tried for an array of `bytes` bytes: every `Swizzle<B,M,S>` of 4-, 8- and
/// 16-byte chunks (`M` 2 to 4) whose pattern (`2^(B+M+S)` bytes) fits the array, `S >= B`,
/// and every padding of 4, 8 or 16 bytes after rows of 32 bytes to 4 KiB shorter than it.
pub fn layouts(bytes: u32) -> Vec<RelayoutKind> {
    let mut out = Vec::new();
    for base in 2..=4 {
        for bits in 1..=5 {
            for shift in bits..=10 {
                if 1u64 << (bits + base + shift) <= bytes as u64 {
                    out.push(RelayoutKind::Xor { bits, base, shift });
                }
            }
        }
    }
    for k in 5..=12 {
        for pad in [4, 8, 16] {
            if 1 << k < bytes {
                out.push(RelayoutKind::Pad { row: 1 << k, pad });
            }
        }
    }
    out
}

/// Tries [`layouts`] for every shared array of a CUDA or PTX kernel (one array at a time),
/// counting each run on `bar`.
pub fn advise_code(
    prog: &Program,
    run_opts: &RunOptions,
    bar: &crate::progress::Progress,
) -> Result<Vec<ArrayAdvice>, Diag> {
    let declared_report = run(prog, run_opts)?;
    let gate = Gate::new(run_opts.max_memory);
    let mut out = Vec::new();
    for arr in prog.shared.iter().filter(|a| a.bytes > 0) {
        let kinds = layouts(arr.bytes);
        bar.add_len(kinds.len() as u64);
        let as_declared = ByteLayout {
            name: "as declared".into(),
            recipe: "o".into(),
        };
        let declared = code_candidate(arr, &declared_report, None, as_declared);
        let tried: Vec<Option<Candidate>> = kinds
            .par_iter()
            .map(|&kind| {
                let rl = Relayout {
                    start: arr.base,
                    end: arr.base + arr.bytes,
                    kind,
                };
                let opts = RunOptions {
                    relayout: Some(rl),
                    ..run_opts.clone()
                };
                // A layout that splits one of the kernel's vector accesses is counted, not
                // judged.
                let r = gate.run(prog, &opts).ok();
                bar.tick();
                let name = ByteLayout {
                    name: rl.name(),
                    recipe: rl.recipe(),
                };
                Some(code_candidate(arr, &r?, Some(rl), name))
            })
            .collect();
        let wgmma_note = if has_async_layouts(prog) {
            "; tiles that wgmma or TMA read or write must use one of their swizzle modes: \
             Swizzle<3,4,3>, <2,4,3>, <1,4,3> (128, 64, 32 bytes)"
        } else {
            ""
        };
        let searched = format!(
            "{} layouts of its {} bytes: XOR swizzles Swizzle<B,M,S> of 4- to 16-byte chunks and \
             paddings of 4 to 16 bytes after rows of 32 bytes to 4 KiB{wgmma_note}",
            kinds.len(),
            arr.bytes
        );
        let advice = ArrayAdvice::judge(arr.name.clone(), declared, tried, (0, 0), Some(searched));
        out.push(advice);
    }
    Ok(out)
}

/// Whether the kernel has `wgmma` or TMA, whose hardware reads and writes tiles in fixed
/// swizzle modes.
fn has_async_layouts(prog: &Program) -> bool {
    use warpsim_kernel::ir::Inst;
    prog.code
        .iter()
        .any(|i| matches!(i, Inst::Wgmma { .. } | Inst::BulkTensor(_)))
}

/// A candidate of array `arr` from run `r`: its conflicts are those of the instructions that
/// access it, and of `wgmma`'s operand reads (which name no array).
fn code_candidate(
    arr: &SharedInfo,
    r: &Report,
    rl: Option<Relayout>,
    layout: ByteLayout,
) -> Candidate {
    let mut c = candidate(0, 0, &arr.name, r, arr);
    c.array_stall_cycles += r.shared.gmma_bank_conflicts;
    c.wasted_words = rl.map_or(0, |rl| (rl.bytes() - arr.bytes) / 4);
    c.layout = Some(layout);
    c
}
