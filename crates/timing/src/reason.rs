//! Nsight Compute's warp states: every resident warp is in exactly one each cycle.

/// A warp state, named as Nsight Compute names its stall reasons
/// (`smsp__average_warps_issue_stalled_<name>_per_issue_active.ratio`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Reason {
    /// Waiting at a `bar.sync` for the other warps of its block.
    Barrier = 0,
    /// Waiting for the result of a shared-memory load (an MIO operation).
    ShortScoreboard,
    /// Its next instruction is a shared access held by its sub-partition's one memory
    /// instruction per few cycles, or any memory access held by a memory queue full of shared
    /// ones.
    MioThrottle,
    /// Waiting for the result of a global load.
    LongScoreboard,
    /// Its next instruction is a global access held by its sub-partition's one memory
    /// instruction per few cycles, or any memory access held by a memory queue full of global
    /// ones.
    LgThrottle,
    /// Waiting on a fixed-latency dependency (arithmetic result).
    Wait,
    /// Ready, but its scheduler issued another warp's instruction this cycle.
    NotSelected,
    /// Issued an instruction this cycle.
    Selected,
    /// No instruction fetched yet (block start, cold instruction cache).
    NoInstruction,
    /// Exited, waiting for its stores to complete.
    Drain,
    /// Not modelled (0).
    MathPipeThrottle,
    /// Waiting for a branch to resolve.
    BranchResolving,
    /// Not modelled (0).
    DispatchStall,
    /// Not modelled (0).
    Misc,
    /// Waiting for a uniform constant load (`ULDC`) whose line the SM's immediate constant
    /// cache does not hold yet (its first touch in the launch).
    ImcMiss,
}

/// How many reasons.
pub const N_REASONS: usize = 15;

/// Every reason, in Nsight's report order (the order of the JSON `stalls` object).
pub const ALL: [Reason; N_REASONS] = [
    Reason::Barrier,
    Reason::ShortScoreboard,
    Reason::MioThrottle,
    Reason::LongScoreboard,
    Reason::LgThrottle,
    Reason::Wait,
    Reason::NotSelected,
    Reason::Selected,
    Reason::NoInstruction,
    Reason::Drain,
    Reason::MathPipeThrottle,
    Reason::BranchResolving,
    Reason::DispatchStall,
    Reason::Misc,
    Reason::ImcMiss,
];

impl Reason {
    /// Nsight Compute's name.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Barrier => "barrier",
            Reason::ShortScoreboard => "short_scoreboard",
            Reason::MioThrottle => "mio_throttle",
            Reason::LongScoreboard => "long_scoreboard",
            Reason::LgThrottle => "lg_throttle",
            Reason::Wait => "wait",
            Reason::NotSelected => "not_selected",
            Reason::Selected => "selected",
            Reason::NoInstruction => "no_instruction",
            Reason::Drain => "drain",
            Reason::MathPipeThrottle => "math_pipe_throttle",
            Reason::BranchResolving => "branch_resolving",
            Reason::DispatchStall => "dispatch_stall",
            Reason::Misc => "misc",
            Reason::ImcMiss => "imc_miss",
        }
    }

    /// Its column on Nsight Compute's Source page (warp stall sampling, all samples), as
    /// Nsight Compute 2025.3 prints it for the H200 (`calibration/probes/source_page`).
    pub fn source_page_name(self) -> &'static str {
        match self {
            Reason::Barrier => "stall_barrier",
            Reason::ShortScoreboard => "stall_short_sb",
            Reason::MioThrottle => "stall_mio",
            Reason::LongScoreboard => "stall_long_sb",
            Reason::LgThrottle => "stall_lg",
            Reason::Wait => "stall_wait",
            Reason::NotSelected => "stall_not_selected",
            Reason::Selected => "stall_selected",
            Reason::NoInstruction => "stall_no_inst",
            Reason::Drain => "stall_drain",
            Reason::MathPipeThrottle => "stall_math",
            Reason::BranchResolving => "stall_branch_resolving",
            Reason::DispatchStall => "stall_dispatch",
            Reason::Misc => "stall_misc",
            Reason::ImcMiss => "stall_imc",
        }
    }

    /// Its Source page column of the samples taken when the warp's scheduler issued nothing
    /// (`stall_mio (Not Issued)`); `None` for `selected` and `not_selected`, which are by
    /// definition cycles in which the scheduler issued (the H200's columns are empty).
    pub fn not_issued_name(self) -> Option<&'static str> {
        Some(match self {
            Reason::Barrier => "stall_barrier (Not Issued)",
            Reason::ShortScoreboard => "stall_short_sb (Not Issued)",
            Reason::MioThrottle => "stall_mio (Not Issued)",
            Reason::LongScoreboard => "stall_long_sb (Not Issued)",
            Reason::LgThrottle => "stall_lg (Not Issued)",
            Reason::Wait => "stall_wait (Not Issued)",
            Reason::NotSelected | Reason::Selected => return None,
            Reason::NoInstruction => "stall_no_inst (Not Issued)",
            Reason::Drain => "stall_drain (Not Issued)",
            Reason::MathPipeThrottle => "stall_math (Not Issued)",
            Reason::BranchResolving => "stall_branch_resolving (Not Issued)",
            Reason::DispatchStall => "stall_dispatch (Not Issued)",
            Reason::Misc => "stall_misc (Not Issued)",
            Reason::ImcMiss => "stall_imc (Not Issued)",
        })
    }

    /// Its Warp State Statistics metric, whose value the model's `stalls` estimate.
    pub fn metric(self) -> String {
        format!(
            "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio",
            self.name()
        )
    }

    /// From its number.
    pub fn from_u8(v: u8) -> Reason {
        ALL[(v as usize).min(N_REASONS - 1)]
    }
}

/// Warp-cycles per reason.
pub type Cycles = [u64; N_REASONS];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every reason has its own Source page column, and its "Not Issued" column is that name
    /// with the suffix Nsight Compute prints (none for the two states of an issuing scheduler).
    #[test]
    fn every_reason_has_its_source_page_names() {
        let mut seen = std::collections::HashSet::new();
        for r in ALL {
            let col = r.source_page_name();
            assert!(col.starts_with("stall_") && seen.insert(col), "{col}");
            match r {
                Reason::Selected | Reason::NotSelected => assert!(r.not_issued_name().is_none()),
                _ => assert_eq!(r.not_issued_name(), Some(&*format!("{col} (Not Issued)"))),
            }
            assert!(r.metric().contains(r.name()));
        }
    }
}
