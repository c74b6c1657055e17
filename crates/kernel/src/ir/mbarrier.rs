//! The operands of `mbarrier` (issue 41): the transaction barriers of asynchronous copies
//! (`cuda::barrier`, `cuda::pipeline`, TMA), and of the bulk copies that complete their
//! transactions ([`BulkOp`]). A barrier is an 8-byte object in shared memory;
//! the executor keeps its state there in [`MbarState`]'s encoding (the hardware's own encoding
//! is opaque to programs: PTX only says the object is 8 bytes, 8-aligned).

use super::Reg;

/// What an [`MbarOp`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarKind {
    /// `mbarrier.init [addr], count`: expected arrivals `a`, phase 0, no transactions.
    Init,
    /// `mbarrier.arrive[_drop][.noComplete][.expect_tx] state, [addr][, a]`: each active lane
    /// arrives once (`a` times with a count operand); `tx` first adds `a` transaction bytes
    /// and arrives once; `drop` also lowers the expected count of later phases;
    /// `no_complete` may not complete the phase.
    Arrive {
        /// `arrive_drop`.
        drop: bool,
        /// `.noComplete`.
        no_complete: bool,
        /// `.expect_tx`.
        tx: bool,
    },
    /// `mbarrier.expect_tx [addr], a`: `a` more transaction bytes before the phase completes.
    ExpectTx,
    /// `mbarrier.complete_tx [addr], a`: `a` transaction bytes arrived.
    CompleteTx,
    /// `mbarrier.{test,try}_wait[.parity] p, [addr], a`: `p` is whether the phase `a` names
    /// (the state an arrive returned, or with `parity` a phase's parity) is complete. A
    /// `try_wait` that would fail suspends the warp until it completes; so does a
    /// `test_wait` (the retry loop around it would spin).
    Wait {
        /// `a` is a phase parity (else a 64-bit state).
        parity: bool,
        /// Never times out (a kernel-language `BarrierWait`, which has no retry loop around
        /// it): parked until the phase completes, or a deadlock fault.
        block: bool,
    },
    /// `mbarrier.inval [addr]`: the object is no longer a barrier.
    Inval,
    /// `cp.async.mbarrier.arrive[.noinc] [addr]`: an arrival once the thread's earlier
    /// `cp.async` copies are complete (warpsim's copies complete at issue); without `.noinc`
    /// the pending count is raised by one first, so the two cancel.
    AsyncArrive {
        /// `.noinc`.
        noinc: bool,
    },
}

impl std::fmt::Display for MbarKind {
    /// The PTX name (`arrive_drop.noComplete`, `try_wait.parity`, ...).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            MbarKind::Init => f.write_str("init"),
            MbarKind::Arrive {
                drop,
                no_complete,
                tx,
            } => {
                f.write_str(if drop { "arrive_drop" } else { "arrive" })?;
                if no_complete {
                    f.write_str(".noComplete")?;
                }
                if tx {
                    f.write_str(".expect_tx")?;
                }
                Ok(())
            }
            MbarKind::ExpectTx => f.write_str("expect_tx"),
            MbarKind::CompleteTx => f.write_str("complete_tx"),
            MbarKind::Wait { parity, .. } => f.write_str(if parity {
                "try_wait.parity"
            } else {
                "try_wait"
            }),
            MbarKind::Inval => f.write_str("inval"),
            MbarKind::AsyncArrive { noinc } => f.write_str(if noinc {
                "cp.async.arrive.noinc"
            } else {
                "cp.async.arrive"
            }),
        }
    }
}

/// One `mbarrier` instruction on the barrier at shared byte address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarOp {
    /// What it does.
    pub kind: MbarKind,
    /// The barrier's shared byte address (8-aligned).
    pub addr: Reg,
    /// The result: an arrive's 64-bit state (a register pair), a wait's predicate; `None`
    /// for the sink `_` and the instructions without one.
    pub dst: Option<Reg>,
    /// The operand: a count, transaction bytes, a 64-bit state (register pair) or a parity;
    /// `None` where the instruction has none (an arrival of one).
    pub a: Option<Reg>,
}

impl MbarOp {
    /// `(register, width)` of each register it reads.
    pub fn reads(&self) -> impl Iterator<Item = (Reg, u8)> {
        let wide = matches!(self.kind, MbarKind::Wait { parity: false, .. });
        std::iter::once((self.addr, 1)).chain(self.a.map(|a| (a, if wide { 2 } else { 1 })))
    }

    /// `(register, width)` of the register it writes, if any.
    pub fn writes(&self) -> Option<(Reg, u8)> {
        let wide = matches!(self.kind, MbarKind::Arrive { .. });
        self.dst.map(|d| (d, if wide { 2 } else { 1 }))
    }
}

/// `cp.async.bulk` (TMA's one-dimensional copies): `size` bytes (a multiple of 16) between
/// 16-aligned addresses, by each active lane. Into shared memory
/// (`.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size, [mbar]`): the
/// bytes then complete as transaction bytes of the barrier at `mbar`. Out of it
/// (`.global.shared::cta.bulk_group [dst], [src], size`): `mbar` is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BulkOp {
    /// The destination: a shared byte address, or (`mbar` is `None`) a 64-bit global pointer
    /// (a register pair).
    pub dst: Reg,
    /// The source: a 64-bit global pointer, or (`mbar` is `None`) a shared byte address.
    pub src: Reg,
    /// Bytes.
    pub size: Reg,
    /// The barrier whose transactions the copy completes (a copy into shared memory).
    pub mbar: Option<Reg>,
}

impl BulkOp {
    /// `(register, width)` of each register it reads.
    pub fn reads(&self) -> impl Iterator<Item = (Reg, u8)> {
        let (d, s) = if self.mbar.is_some() { (1, 2) } else { (2, 1) };
        [(self.dst, d), (self.src, s), (self.size, 1)]
            .into_iter()
            .chain(self.mbar.map(|m| (m, 1)))
    }
}

/// `cp.async.bulk.tensor.{rank}d` (TMA with a tensor map): the box of the tensor map `map`
/// points to ([`crate::tensormap::TENSORMAP_BASE`]) at element coordinates `coords[..rank]`,
/// by each active lane. A load (`.shared::cluster.global.tile.mbarrier::complete_tx::bytes
/// [smem], [map, {c..}], [mbar]`) writes the box to `smem` (swizzled as the map says) and
/// completes its bytes on the barrier at `mbar`; a store (`.global.shared::cta.tile.bulk_group
/// [map, {c..}], [smem]`) writes the box's elements inside the tensor from `smem`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorOp {
    /// A store (shared to global).
    pub store: bool,
    /// Dimensions (1 to 5).
    pub rank: u8,
    /// The box's shared byte address.
    pub smem: Reg,
    /// The tensor map's address (a register pair).
    pub map: Reg,
    /// The box's first element, per dimension (signed).
    pub coords: [Reg; 5],
    /// The barrier a load completes (a store: unused).
    pub mbar: Reg,
}

impl TensorOp {
    /// `(register, width)` of each register it reads.
    pub fn reads(&self) -> impl Iterator<Item = (Reg, u8)> + '_ {
        [(self.smem, 1), (self.map, 2), (self.mbar, 1)]
            .into_iter()
            .chain(
                self.coords[..(self.rank as usize).min(5)]
                    .iter()
                    .map(|&c| (c, 1)),
            )
    }
}

/// The state of one barrier, as the executor keeps it in the object's 8 bytes: pending
/// arrivals of the current phase (bits 0-19), expected arrivals per phase (20-39),
/// outstanding transaction bytes (40-60, two's complement) and the phase's parity (63). A
/// zero object (never initialised, or invalidated) has no expected arrivals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarState {
    /// Arrivals the current phase still waits for.
    pub pending: u32,
    /// Arrivals each phase waits for.
    pub expected: u32,
    /// Transaction bytes the current phase still waits for (negative when more completed
    /// than were expected so far).
    pub tx: i32,
    /// The current phase's parity.
    pub phase: bool,
}

impl MbarState {
    /// The largest arrival count and transaction count PTX allows (2^20 - 1).
    pub const MAX: u32 = (1 << 20) - 1;

    /// The state in an object's 8 bytes.
    pub fn decode(v: u64) -> MbarState {
        let m = Self::MAX as u64;
        let tx = ((v >> 40) & 0x1f_ffff) as u32;
        MbarState {
            pending: (v & m) as u32,
            expected: ((v >> 20) & m) as u32,
            tx: ((tx << 11) as i32) >> 11,
            phase: v >> 63 == 1,
        }
    }

    /// The object's 8 bytes.
    pub fn encode(self) -> u64 {
        let m = Self::MAX as u64;
        (self.pending as u64 & m)
            | (self.expected as u64 & m) << 20
            | (self.tx as u32 as u64 & 0x1f_ffff) << 40
            | (self.phase as u64) << 63
    }

    /// The state an arrive returns: the pending count after it (low word) and the phase it
    /// arrived in (bit 31 of the high word).
    pub fn token(self) -> u64 {
        self.pending as u64 | (self.phase as u64) << 63
    }
}

#[cfg(test)]
mod tests {
    use super::MbarState;

    #[test]
    fn the_encoding_round_trips() {
        for s in [
            MbarState {
                pending: 3,
                expected: 256,
                tx: -4096,
                phase: true,
            },
            MbarState {
                pending: MbarState::MAX,
                expected: MbarState::MAX,
                tx: MbarState::MAX as i32,
                phase: false,
            },
            MbarState {
                pending: 0,
                expected: 1,
                tx: -(MbarState::MAX as i32),
                phase: true,
            },
        ] {
            assert_eq!(MbarState::decode(s.encode()), s);
        }
        assert_eq!(MbarState::decode(0).expected, 0);
    }
}
