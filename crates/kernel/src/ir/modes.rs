//! The small operation and mode enums the warp-wide and 64-bit instructions carry.

/// Which lane a [`Inst::Shfl`] reads (PTX `shfl.sync`'s modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    /// `__shfl_sync`: lane `b` of the segment (`b` modulo the width).
    Idx,
    /// `__shfl_up_sync`: lane `laneid − b`, own value below the segment's first lane.
    Up,
    /// `__shfl_down_sync`: lane `laneid + b`, own value past the segment's last lane.
    Down,
    /// `__shfl_xor_sync`: lane `laneid ^ b`, own value past the segment's last lane.
    Xor,
}

/// The operation of an [`Inst::Redux`] (`redux.sync`'s of sm_90).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum ReduxOp {
    Add,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
}

impl ReduxOp {
    /// `x op y`.
    #[inline]
    pub fn apply(self, x: u32, y: u32) -> u32 {
        match self {
            ReduxOp::Add => x.wrapping_add(y),
            ReduxOp::MinU => x.min(y),
            ReduxOp::MinS => (x as i32).min(y as i32) as u32,
            ReduxOp::MaxU => x.max(y),
            ReduxOp::MaxS => (x as i32).max(y as i32) as u32,
            ReduxOp::And => x & y,
            ReduxOp::Or => x | y,
            ReduxOp::Xor => x ^ y,
        }
    }
}

/// Which reduction a [`Inst::BarrierRed`] makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarRedOp {
    /// `__syncthreads_count`: how many threads had it.
    Popc,
    /// `__syncthreads_and`: 1 if every thread had it.
    And,
    /// `__syncthreads_or`: 1 if some thread had it.
    Or,
}

impl BarRedOp {
    /// `popc`, `and`, `or` (PTX's names).
    pub fn name(self) -> &'static str {
        match self {
            BarRedOp::Popc => "popc",
            BarRedOp::And => "and",
            BarRedOp::Or => "or",
        }
    }
}

/// Which vote a [`Inst::Vote`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VoteMode {
    /// `__ballot_sync`: bit `l` set where lane `l` is active and its predicate holds.
    Ballot,
    /// `__any_sync`: 1 if the predicate holds in some active lane.
    Any,
    /// `__all_sync`: 1 if it holds in every active lane.
    All,
    /// `__uni_sync` (PTX `vote.uni`): 1 if it holds in every active lane or in none.
    Uni,
}

impl ShflMode {
    /// `idx`, `up`, `down`, `bfly` (PTX's names).
    pub fn name(self) -> &'static str {
        match self {
            ShflMode::Idx => "idx",
            ShflMode::Up => "up",
            ShflMode::Down => "down",
            ShflMode::Xor => "bfly",
        }
    }
}

impl VoteMode {
    /// `ballot`, `any`, `all`, `uni` (PTX's names).
    pub fn name(self) -> &'static str {
        match self {
            VoteMode::Ballot => "ballot",
            VoteMode::Any => "any",
            VoteMode::All => "all",
            VoteMode::Uni => "uni",
        }
    }
}

/// A 64-bit integer operation of [`Inst::Int64`] (`S`/`U`: signed or unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Op64 {
    And,
    Or,
    Xor,
    MinS,
    MinU,
    MaxS,
    MaxU,
    /// Rounds toward zero; `i64::MIN / -1` wraps to `i64::MIN`.
    DivS,
    DivU,
    /// The sign of the dividend; `i64::MIN % -1` is 0.
    RemS,
    RemU,
    /// The high 64 bits of the 128-bit product.
    MulHiS,
    MulHiU,
}

impl Op64 {
    /// The lower-case name (`mins`, `divu`, `mulhis`, …).
    pub fn name(self) -> String {
        format!("{self:?}").to_ascii_lowercase()
    }

    /// Whether it divides (and faults on a zero divisor).
    pub fn divides(self) -> bool {
        matches!(self, Op64::DivS | Op64::DivU | Op64::RemS | Op64::RemU)
    }
}

/// A 64-bit integer comparison of [`Inst::Cmp64`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Cmp64 {
    Eq,
    Ne,
    LtS,
    LtU,
    LeS,
    LeU,
}

impl Cmp64 {
    /// The lower-case name (`eq`, `lts`, …).
    pub fn name(self) -> String {
        format!("{self:?}").to_ascii_lowercase()
    }
}
