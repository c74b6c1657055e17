//! The report's constant-memory block (`calibration/probes/cuda_coverage`, spec C-5): which
//! SASS instruction each `ld.const` is taken for (the timing model's rule, spec C-2:
//! `warpsim_timing::static_code`), and Nsight Compute's constant-cache counters over the run.

use crate::{InstReport, MemSpace};
use serde::Serialize;
use warpsim_exec::Stats;
use warpsim_kernel::Program;
use warpsim_timing::Class;

/// Nsight Compute's constant-memory counters over the run, for the kernel's own `ld.const`s
/// (the H200's also count the kernel parameters' loads: the prologue's `LDC`s of bank 0 and
/// its `ULDC.64 c[0x0][0x208]`, which warpsim does not run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConstantTotals {
    /// `LDC`s executed (`smsp__inst_executed_op_ldc.sum`): loads whose address may differ
    /// between lanes.
    pub ldc_instructions: u64,
    /// `LDC`s whose active lanes read more than one address
    /// (`sm__idc_divergent_instructions.sum`).
    pub ldc_divergent: u64,
    /// Their replays, one per further distinct address
    /// (`sm__idc_divergent_instruction_replays.sum`).
    pub ldc_replays: u64,
    /// Constant-cache requests: `LDC`s plus replays (`idc__requests.sum`).
    pub idc_requests: u64,
    /// `ULDC`s executed (`smsp__imc_requests.sum`): loads whose address is the same in every
    /// lane, a `ULDC.64` pair once.
    pub uldc_instructions: u64,
}

/// Names the constant rows of `rows` by their SASS instruction and returns the totals; `None`
/// when no constant load ran.
pub(crate) fn totals(
    prog: &Program,
    stats: &Stats,
    rows: &mut [InstReport],
) -> Option<ConstantTotals> {
    if !rows.iter().any(|r| r.space == MemSpace::Const) {
        return None;
    }
    let code = warpsim_timing::static_code(prog);
    let mut t = ConstantTotals::default();
    for row in rows.iter_mut().filter(|r| r.space == MemSpace::Const) {
        let ps = stats.per_pc.get(row.pc).cloned().unwrap_or_default();
        let name = match code.get(row.pc).map(|c| c.class) {
            Some(Class::UniformConstLd) => {
                t.uldc_instructions += ps.executions;
                if code.get(row.pc).and_then(|c| c.pair).is_some() {
                    "ULDC.64"
                } else {
                    "ULDC"
                }
            }
            Some(Class::ConstLd) => {
                t.ldc_instructions += ps.executions;
                t.ldc_divergent += ps.const_divergent;
                t.ldc_replays += ps.const_requests.saturating_sub(ps.executions);
                t.idc_requests += ps.const_requests;
                row.requests = Some(ps.const_requests);
                "LDC"
            }
            _ => "ULDC.64 (pair)",
        };
        row.instruction = Some(name.to_string());
    }
    Some(t)
}
