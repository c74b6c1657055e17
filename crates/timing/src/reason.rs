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
}

/// How many reasons.
pub const N_REASONS: usize = 14;

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
        }
    }

    /// From its number.
    pub fn from_u8(v: u8) -> Reason {
        ALL[(v as usize).min(N_REASONS - 1)]
    }
}

/// Warp-cycles per reason.
pub type Cycles = [u64; N_REASONS];
