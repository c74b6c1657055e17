//! Report rows of `ldmatrix`/`stmatrix` and `cp.async` (issue 41), named as Nsight Compute
//! shows them (`calibration/probes/tensor_smem/README.md`, "Which counters a user sees"):
//!
//! * `LDSM` / `STSM` land in the `loads` / `stores` totals (the hardware
//!   `l1tex__…_op_ld` / `_op_st` counters add them to the `LDS` / `STS` traffic); their own
//!   row in the per-instruction table is the Source page's `op_ldsm` / `op_stsm`.
//! * `LDGSTS` has its own `async copies` totals: the Source page's `op_ldgsts` wavefronts and
//!   bank conflicts, the global sectors read, and the hardware
//!   `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts`. They are not in the
//!   `total` row (no `op_ld`/`op_st` counter sees them).
//! * `wgmma`'s shared operands, read by the tensor cores, have `tensor cores` totals and a row:
//!   Nsight's `l1tex__…_op_gmma` wavefronts and bank conflicts, in no `op_ld` total.
//! * TMA and bulk copies and `mbarrier` operations have no row: no LSU shared counter sees
//!   them on the H200 (`tensor_smem`); their counts go to the totals' `tma_*` and
//!   `mbarrier_instructions`, which the report prints as such.

use super::{InstReport, MemSpace, SharedTotals, StallCycles, Timing};
use warpsim_exec::Stats;
use warpsim_kernel::ir::Inst;
use warpsim_kernel::Program;
use warpsim_smem::Op;

/// The report row of the matrix or copy instruction at `pc` (None for any other
/// instruction, or one never executed), adding its counters to `shared`.
pub(crate) fn row(
    prog: &Program,
    stats: &Stats,
    pc: usize,
    shared: &mut SharedTotals,
    timing: Option<&Timing>,
) -> Option<InstReport> {
    let ps = stats.per_pc.get(pc).filter(|p| p.executions > 0)?;
    match prog.code.get(pc)? {
        Inst::Bulk(_) | Inst::BulkTensor(_) => {
            shared.tma_instructions += ps.executions;
            shared.tma_copies += ps.lanes;
            return None;
        }
        Inst::Mbar(_) => {
            shared.mbarrier_instructions += ps.executions;
            return None;
        }
        _ => {}
    }
    let mut ideal = ps.wavefronts.saturating_sub(ps.conflicts);
    let (mut wavefronts, mut conflicts) = (ps.wavefronts, ps.conflicts);
    let (op, array, width, name) = match prog.code.get(pc)? {
        Inst::Wgmma { op } => {
            shared.gmma_wavefronts += ps.gmma_wavefronts;
            shared.gmma_bank_conflicts += ps.gmma_conflicts;
            shared.gmma_instructions += ps.executions;
            (wavefronts, conflicts) = (ps.gmma_wavefronts, ps.gmma_conflicts);
            ideal = wavefronts - conflicts;
            let w = prog.wgmmas.get(*op as usize)?;
            let name = format!("wgmma.m64n{}k{}", w.n, w.k());
            (Op::Ld, u16::MAX, 16, name)
        }
        Inst::Matrix(m) => {
            let t = if m.trans { ".trans" } else { "" };
            let (op, name) = if m.store {
                shared.st_wavefronts += ps.wavefronts;
                shared.st_bank_conflicts += ps.conflicts;
                shared.st_instructions += ps.executions;
                (Op::St, format!("stmatrix.x{}{t}", m.n))
            } else {
                shared.ld_wavefronts += ps.wavefronts;
                shared.ld_bank_conflicts += ps.conflicts;
                shared.ld_instructions += ps.executions;
                (Op::Ld, format!("ldmatrix.x{}{t}", m.n))
            };
            shared.ideal_wavefronts += ideal;
            (op, m.array, 16, name)
        }
        Inst::CpAsync(c) => {
            shared.ldgsts_wavefronts += ps.wavefronts;
            shared.ldgsts_bank_conflicts += ps.conflicts;
            shared.ldgsts_instructions += ps.executions;
            shared.ldgsts_sectors += ps.copy_sectors;
            shared.ldgsts_hw_bank_conflicts += ps.copy_hw_conflicts;
            let k = if c.bypass { "cg" } else { "ca" };
            (Op::St, c.array, c.width as u32, format!("cp.async.{k}"))
        }
        _ => return None,
    };
    let info = prog.info.get(pc);
    Some(InstReport {
        pc,
        line: info.map_or(0, |i| i.line),
        col: info.map_or(0, |i| i.col),
        text: info.map_or_else(String::new, |i| i.text.to_string()),
        space: MemSpace::Shared,
        op,
        array: prog
            .shared
            .get(array as usize)
            .map_or_else(|| "shared".into(), |s| s.name.clone()),
        width,
        executions: ps.executions,
        lanes: ps.lanes,
        wavefronts: Some(wavefronts),
        bank_conflicts: Some(conflicts),
        ideal_wavefronts: Some(ideal),
        conflict_degree: (ideal > 0).then(|| (wavefronts as f64 / ideal as f64).round() as u64),
        atomic: None,
        instruction: Some(name),
        requests: None,
        loop_loads: None,
        per_bank: None,
        first_access: None,
        stalls: timing
            .and_then(|t| t.detail.per_pc.get(pc))
            .map(|c| StallCycles(*c)),
    })
}
