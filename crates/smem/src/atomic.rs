//! Shared-memory atomics (`atom.shared.OP`, `red.shared.OP`), priced as the H200 prices them.
//!
//! Measured with Nsight Compute on single-warp patterns (`calibration/probes/narrow/`,
//! `tests/fixtures/h200/narrow_*`); the rule, in words (README, "Atomics"):
//!
//! 1. **Native atomics** (every 32-bit integer op, and 64-bit `exch`/`cas`: one `ATOMS`) are
//!    served in the phases of an access of their width (the whole warp at 4 bytes, half-warps at
//!    8), but lanes never share a word: every active lane's update is its own visit to each bank
//!    it touches. A phase costs the most lanes queued on one bank, times 2 for `cas` (compare
//!    and swap move twice the data); its bank conflicts are that queue minus one.
//! 2. **Compare-and-swap loops** (`add.f32` and 64-bit `add`, which ptxas compiles to a loop of
//!    a load and `ATOMS.CAST.SPIN`): each trip, the lanes not yet done load their words (priced
//!    as a load of that width) and try the swap. The swap costs 2 wavefronts per phase with a
//!    lane left and no bank conflicts: each bank serves one lane, the lowest, and that lane
//!    succeeds unless a lane served earlier in the same trip (an earlier phase) wrote its word.
//!    Trips repeat until every lane is done.
//!
//! Atomics whose cost was not measured (64-bit `min`/`max`/`and`/`or`/`xor`, `f64`, `f16x2`)
//! are refused rather than guessed.

use crate::{cost, Cost, Error, Geometry, Op, WARP};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The operation of a shared atomic, as PTX names it (`sub` is CUDA's `atomicSub`, which PTX
/// writes as `add` of the negation, and is priced as `add`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomOp {
    /// Add.
    Add,
    /// Subtract (an `add` of the negation).
    Sub,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Exchange.
    Exch,
    /// Compare and swap.
    Cas,
    /// Wrapping increment (`atomicInc`).
    Inc,
    /// Wrapping decrement (`atomicDec`).
    Dec,
    /// `ATOMS.POPC.INC.32`: what ptxas emits for `atomicAdd(&x, 1)` on a 32-bit integer whose
    /// result is unused — an add of 1 per lane, aggregated per address by the hardware (lanes
    /// on one address are one update of their count). Only as `red` (it returns nothing).
    PopcInc,
}

/// Every operation with its name as written (PTX's and CUDA's names without `atomic`; `popc`
/// is SASS's `ATOMS.POPC.INC`, which PTX has no name for): the one table that trace lines,
/// `explain --op` and the loader's `Atomic(op: …)` read (the loader picks `popc` itself, as
/// ptxas does, and refuses it written).
pub const ATOM_OPS: [(&str, AtomOp); 12] = [
    ("add", AtomOp::Add),
    ("sub", AtomOp::Sub),
    ("min", AtomOp::Min),
    ("max", AtomOp::Max),
    ("and", AtomOp::And),
    ("or", AtomOp::Or),
    ("xor", AtomOp::Xor),
    ("exch", AtomOp::Exch),
    ("cas", AtomOp::Cas),
    ("inc", AtomOp::Inc),
    ("dec", AtomOp::Dec),
    ("popc", AtomOp::PopcInc),
];

/// The element type of a shared atomic (PTX's type suffix).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AtomTy {
    /// 32-bit unsigned.
    U32,
    /// 32-bit signed.
    S32,
    /// 32 bits, untyped.
    B32,
    /// 32-bit float.
    F32,
    /// 64-bit unsigned.
    U64,
    /// 64-bit signed.
    S64,
    /// 64 bits, untyped.
    B64,
    /// 64-bit float (`atomicAdd` on a double).
    F64,
    /// Two halves in one word (`atomicAdd` on a `__half2`).
    F16x2,
    /// Two bfloat16 in one word (`atomicAdd` on a `__nv_bfloat162`).
    Bf16x2,
    /// One half (`atomicAdd` on a `__half`: 2 bytes).
    F16,
}

const TYS: [(&str, AtomTy); 11] = [
    ("u32", AtomTy::U32),
    ("s32", AtomTy::S32),
    ("b32", AtomTy::B32),
    ("f32", AtomTy::F32),
    ("u64", AtomTy::U64),
    ("s64", AtomTy::S64),
    ("b64", AtomTy::B64),
    ("f64", AtomTy::F64),
    ("f16x2", AtomTy::F16x2),
    ("bf16x2", AtomTy::Bf16x2),
    ("f16", AtomTy::F16),
];

/// One shared atomic: `atom.OP[.TYPE]` (returns the old value) or `red.OP[.TYPE]` (does not).
/// Without a type the operation is on integers of the access width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Atomic {
    /// `atom` (true) or `red` (false).
    pub returns: bool,
    /// The operation.
    pub op: AtomOp,
    /// The element type, if named.
    pub ty: Option<AtomTy>,
}

impl fmt::Display for Atomic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = ATOM_OPS
            .iter()
            .find(|(_, o)| *o == self.op)
            .map_or("?", |p| p.0);
        write!(f, "{}.{op}", if self.returns { "atom" } else { "red" })?;
        if let Some(ty) = self.ty {
            let t = TYS.iter().find(|(_, t)| *t == ty).map_or("?", |p| p.0);
            write!(f, ".{t}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Atomic {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let names = ATOM_OPS.map(|p| p.0).join(" ");
        let mut parts = s.split('.');
        let returns = match parts.next() {
            Some("atom") => true,
            Some("red") => false,
            _ => return Err(format!("`{s}` is not an atomic: write atom.OP or red.OP")),
        };
        let op = parts.next().unwrap_or("");
        let op = ATOM_OPS
            .iter()
            .find(|(n, _)| *n == op)
            .map(|p| p.1)
            .ok_or_else(|| {
                format!("`{op}` in `{s}` is not an atomic operation: use one of {names}")
            })?;
        let ty =
            match parts.next() {
                None => None,
                Some(t) => Some(TYS.iter().find(|(n, _)| *n == t).map(|p| p.1).ok_or_else(
                    || {
                        format!(
                            "`{t}` in `{s}` is not an atomic type: use one of {}",
                            TYS.map(|p| p.0).join(" ")
                        )
                    },
                )?),
            };
        if parts.next().is_some() {
            return Err(format!(
                "`{s}` has too many parts: write atom.OP, red.OP or atom.OP.TYPE"
            ));
        }
        Ok(Atomic { returns, op, ty })
    }
}

/// Any shared access a trace line or `warpsim explain --op` names: `ld`, `st`,
/// `atom.OP[.TYPE]` or `red.OP[.TYPE]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessKind {
    /// A load or a store.
    Plain(Op),
    /// An atomic.
    Atomic(Atomic),
}

impl fmt::Display for AccessKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessKind::Plain(op) => op.fmt(f),
            AccessKind::Atomic(a) => a.fmt(f),
        }
    }
}

impl std::str::FromStr for AccessKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "ld" => Ok(AccessKind::Plain(Op::Ld)),
            "st" => Ok(AccessKind::Plain(Op::St)),
            _ if s.starts_with("atom.") || s.starts_with("red.") => {
                s.parse().map(AccessKind::Atomic)
            }
            _ => Err(format!(
                "`{s}` is not an access kind: write `ld`, `st`, `atom.OP` or `red.OP` (OP one \
                 of {}, optionally with a type such as `atom.add.f32`)",
                ATOM_OPS.map(|p| p.0).join(" ")
            )),
        }
    }
}

/// Why an atomic cannot be priced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AtomicError {
    /// The geometry, width or an address is wrong (as for loads and stores).
    #[error(transparent)]
    Access(#[from] Error),
    /// PTX has no such atomic, or its cost was not measured.
    #[error("{0}")]
    Unsupported(String),
}

/// How the H200 runs an atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// One `ATOMS` instruction; the number is the wavefronts per lane queued on a bank
    /// (2 for `cas`, 1 otherwise).
    Native(u32),
    /// ptxas's loop of a load and `ATOMS.CAST.SPIN` (`add.f32`, `add.f64`, every 64-bit
    /// integer op but `exch`/`cas`).
    CasLoop,
    /// `add.f16x2`/`add.bf16x2`: CUDA's header tries a generic `ATOM.E.ADD.F16x2` first (on a
    /// shared address it does nothing but cost one atomic wavefront), then runs the loop.
    TriedCasLoop,
    /// `add.f16` (2 bytes): a generic load of the word, then trips of a generic
    /// `ATOM.E.CAS` on the whole word by every lane left, each priced as a native 4-byte
    /// `cas`; one lane of each word succeeds a trip.
    WordCasLoop,
    /// `ATOMS.POPC.INC.32`: one `ATOMS`, lanes on one address served as one.
    Popc,
}

impl Atomic {
    /// How this atomic of `width` bytes runs, or why it is not priced.
    pub fn form(&self, width: u32) -> Result<Form, AtomicError> {
        let no = |why: &str| {
            Err(AtomicError::Unsupported(format!(
                "`{self}` of {width} bytes {why}"
            )))
        };
        let size = match self.ty {
            Some(AtomTy::U64 | AtomTy::S64 | AtomTy::B64 | AtomTy::F64) => Some(8),
            Some(AtomTy::F16) => Some(2),
            Some(_) => Some(4),
            None => None,
        };
        match (width, size) {
            (4 | 8, None) => {}
            (2 | 4 | 8, Some(s)) if s == width => {}
            (2 | 4 | 8, Some(_)) => return no("does not exist: the type's size is not the width"),
            _ => {
                return no(
                    "does not exist: shared atomics are 4 or 8 bytes (PTX's 32- and 64-bit \
                     forms), or 2 for `atom.add.f16`",
                )
            }
        }
        if !self.returns && matches!(self.op, AtomOp::Exch | AtomOp::Cas) {
            return no("does not exist: `red` has no exch or cas (use atom)");
        }
        if self.op == AtomOp::PopcInc {
            return match (self.returns, width, self.ty) {
                (true, ..) => no(
                    "does not exist: ATOMS.POPC.INC returns nothing (ptxas emits it only when \
                     the result is unused): write red.popc",
                ),
                (_, 4, None | Some(AtomTy::U32 | AtomTy::S32 | AtomTy::B32)) => Ok(Form::Popc),
                _ => no("does not exist: ATOMS.POPC.INC.32 is on 32-bit integers"),
            };
        }
        let float = matches!(
            self.ty,
            Some(AtomTy::F32 | AtomTy::F64 | AtomTy::F16x2 | AtomTy::Bf16x2 | AtomTy::F16)
        );
        let halves = matches!(self.ty, Some(AtomTy::F16x2 | AtomTy::Bf16x2));
        match (width, self.op) {
            (2, AtomOp::Add) => Ok(Form::WordCasLoop),
            (4, AtomOp::Add) if halves => Ok(Form::TriedCasLoop),
            (_, AtomOp::Add) if float => Ok(Form::CasLoop),
            (_, _) if float => no(
                "does not exist in CUDA for shared memory (float atomics are \
                                   add only here; exch of a float is a b32/b64 exch)",
            ),
            (4, AtomOp::Cas) => Ok(Form::Native(2)),
            (4, _) => Ok(Form::Native(1)),
            (8, AtomOp::Exch) => Ok(Form::Native(1)),
            (8, AtomOp::Cas) => Ok(Form::Native(2)),
            (
                8,
                AtomOp::Add | AtomOp::Min | AtomOp::Max | AtomOp::And | AtomOp::Or | AtomOp::Xor,
            ) => Ok(Form::CasLoop),
            (8, AtomOp::Inc | AtomOp::Dec | AtomOp::Sub) => no("does not exist in PTX"),
            _ => no("was not measured on the H200, so warpsim does not price it"),
        }
    }
}

/// The price of one warp's shared atomic, split as Nsight Compute counts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AtomCost {
    /// The `ATOMS` instructions (`l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom`,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom`); `phases` counts each trip's.
    pub atom: Cost,
    /// The loads of a compare-and-swap loop (counted by Nsight as loads, `op_ld`); zero for a
    /// native atomic.
    pub loads: Cost,
    /// `ATOMS` instructions executed: 1 for a native atomic, the loop's trips for a loop (0 if
    /// no lane is active in a loop).
    pub trips: u32,
}

impl AtomCost {
    /// Loads and atomics together.
    pub fn total(&self) -> Cost {
        Cost {
            wavefronts: self.atom.wavefronts + self.loads.wavefronts,
            conflicts: self.atom.conflicts + self.loads.conflicts,
            phases: self.atom.phases + self.loads.phases,
        }
    }
}

/// The banks a lane's access touches, as a bit set over at most [`crate::MAX_BANKS`] banks.
struct BankSet([u64; 16]);

impl BankSet {
    fn new() -> Self {
        BankSet([0; 16])
    }
    fn has(&self, b: u32) -> bool {
        self.0[(b / 64) as usize] >> (b % 64) & 1 != 0
    }
    fn set(&mut self, b: u32) {
        self.0[(b / 64) as usize] |= 1 << (b % 64);
    }
}

/// The banks of the words that `width` bytes from `addr` fall in.
fn lane_banks(geom: &Geometry, addr: u32, width: u32) -> impl Iterator<Item = u32> + '_ {
    let first = addr / geom.bank_bytes;
    let last = (addr as u64 + width as u64 - 1) / geom.bank_bytes as u64;
    (first as u64..=last).map(move |w| (w % geom.banks as u64) as u32)
}

/// Lane masks of the phases of an atomic of `width` bytes (no load pairing).
fn phase_masks(geom: &Geometry, width: u32) -> impl Iterator<Item = u32> {
    let lanes = geom.lanes_per_phase(width);
    (0..WARP as u32).step_by(lanes as usize).map(move |s| {
        let n = lanes.min(WARP as u32 - s);
        (if n == 32 { u32::MAX } else { (1u32 << n) - 1 }) << s
    })
}

fn check(geom: &Geometry, width: u32, addrs: &[u32; WARP], mask: u32) -> Result<(), Error> {
    // The load rule checks the geometry, the width and every active lane's alignment.
    cost(geom, Op::Ld, width, addrs, mask).map(|_| ())
}

/// What a compare-and-swap loop's lanes find in memory. A loop's trips depend on values: its
/// swap compares the word with what the lane loaded, so a swap that leaves the value alone
/// does not fail the lanes behind it, and the 64-bit `min`/`max` loops skip the swap when the
/// loaded value would not change (README rule 8). [`atomic_cost`] assumes every update changes
/// its word ([`Versions`]); [`atomic_cost_with`] takes the values.
pub trait LoopData {
    /// Lane `l` loads its word at the start of a trip: the value it compares with later.
    fn load(&mut self, l: usize) -> u64;
    /// Whether lane `l`, having loaded `seen`, swaps at all (false: it is done without).
    fn wants(&mut self, l: usize, seen: u64) -> bool;
    /// Lane `l`'s swap: if its word still holds `seen`, write the update and return true.
    fn swap(&mut self, l: usize, seen: u64) -> bool;
}

/// The address-only [`LoopData`]: every lane swaps, and every swap changes its word (a
/// version number per address stands for the value).
#[derive(Debug)]
pub struct Versions<'a> {
    addrs: &'a [u32; WARP],
    seen: [(u32, u64); WARP],
    n: usize,
}

impl<'a> Versions<'a> {
    /// Versions of the lanes' words, all 0.
    pub fn new(addrs: &'a [u32; WARP]) -> Self {
        Versions {
            addrs,
            seen: [(0, 0); WARP],
            n: 0,
        }
    }
    fn slot(&mut self, l: usize) -> usize {
        let a = self.addrs[l];
        match self.seen[..self.n].iter().position(|&(x, _)| x == a) {
            Some(i) => i,
            None => {
                self.seen[self.n] = (a, 0);
                self.n += 1;
                self.n - 1
            }
        }
    }
}

impl LoopData for Versions<'_> {
    fn load(&mut self, l: usize) -> u64 {
        let i = self.slot(l);
        self.seen[i].1
    }
    fn wants(&mut self, _: usize, _: u64) -> bool {
        true
    }
    fn swap(&mut self, l: usize, seen: u64) -> bool {
        let i = self.slot(l);
        let ok = self.seen[i].1 == seen;
        if ok {
            self.seen[i].1 += 1;
        }
        ok
    }
}

/// Prices one warp's shared atomic. `addrs[l]` is lane `l`'s byte address, used where bit `l`
/// of `mask` is set. Errors as [`cost`] does, and for atomics PTX lacks or that were not
/// measured (see [`Atomic::form`]). A compare-and-swap loop is priced as if every update
/// changed its word ([`atomic_cost_with`] takes the values).
pub fn atomic_cost(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<AtomCost, AtomicError> {
    atomic_cost_with(geom, atomic, width, addrs, mask, &mut Versions::new(addrs))
}

/// [`atomic_cost`], with what a compare-and-swap loop's lanes find in memory.
pub fn atomic_cost_with(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    data: &mut dyn LoopData,
) -> Result<AtomCost, AtomicError> {
    priced(geom, atomic, width, addrs, mask, data, &mut |_| {})
}

/// [`atomic_cost`], calling `each` with every trip of a loop (not for a native atomic) without
/// allocating: a trip's `done` lanes are the ones whose update lands in it, so the trips in
/// order, each's lanes lowest first, are the order the lanes' updates reach memory.
pub fn atomic_cost_each(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    each: &mut dyn FnMut(&Trip),
) -> Result<AtomCost, AtomicError> {
    priced(
        geom,
        atomic,
        width,
        addrs,
        mask,
        &mut Versions::new(addrs),
        each,
    )
}

fn priced(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    data: &mut dyn LoopData,
    each: &mut dyn FnMut(&Trip),
) -> Result<AtomCost, AtomicError> {
    let form = atomic.form(width)?;
    check(geom, width, addrs, mask)?;
    Ok(match form {
        Form::Native(per) => native(geom, per, false, width, addrs, mask),
        Form::Popc => native(geom, 1, true, width, addrs, mask),
        Form::CasLoop => cas_loop(geom, width, addrs, mask, data, |t| each(&t))?,
        Form::TriedCasLoop => tried(
            cas_loop(geom, width, addrs, mask, data, |t| each(&t))?,
            mask,
        ),
        Form::WordCasLoop => word_cas_loop(geom, addrs, mask, |t| each(&t))?,
    })
}

/// The generic try before a half-pair loop: one atomic wavefront (when a lane is active).
fn tried(mut c: AtomCost, mask: u32) -> AtomCost {
    if mask != 0 {
        c.atom.wavefronts += 1;
        c.atom.phases += 1;
    }
    c
}

/// Rule 10: `atomicAdd` on a half — one 4-byte load of the lanes' words, then trips in which
/// every lane left tries a 4-byte `cas` on its word (priced as a native `cas`), and the lowest
/// lane of each word succeeds.
fn word_cas_loop(
    geom: &Geometry,
    addrs: &[u32; WARP],
    mask: u32,
    mut each: impl FnMut(Trip),
) -> Result<AtomCost, Error> {
    let words: [u32; WARP] = std::array::from_fn(|l| addrs[l] & !3);
    let mut out = AtomCost::default();
    if mask == 0 {
        return Ok(out);
    }
    out.loads = cost(geom, Op::Ld, 4, &words, mask)?;
    let mut left = mask;
    while left != 0 {
        out.trips += 1;
        let c = native(geom, 2, false, 4, &words, left);
        out.atom.wavefronts += c.atom.wavefronts;
        out.atom.conflicts += c.atom.conflicts;
        out.atom.phases += c.atom.phases;
        let done = first_of_address(&words, left);
        each(Trip {
            left,
            load: Cost::default(),
            tried: left,
            skipped: 0,
            done,
        });
        left &= !done;
    }
    Ok(out)
}

/// Rule 1: each phase costs the most lanes queued on one bank (`merge`, `ATOMS.POPC.INC`: the
/// most distinct addresses).
fn native(
    geom: &Geometry,
    per: u32,
    merge: bool,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> AtomCost {
    let mut atom = Cost::default();
    for phase in phase_masks(geom, width) {
        let m = mask & phase;
        let q = queue(
            geom,
            width,
            addrs,
            if merge { first_of_address(addrs, m) } else { m },
        );
        if q > 0 {
            atom.wavefronts += per * q;
            atom.conflicts += q - 1;
            atom.phases += 1;
        }
    }
    AtomCost {
        atom,
        loads: Cost::default(),
        trips: 1,
    }
}

/// The lowest lane of each distinct address among the lanes of `m`.
fn first_of_address(addrs: &[u32; WARP], m: u32) -> u32 {
    let mut firsts = 0u32;
    for l in (0..WARP).filter(|l| m >> l & 1 != 0) {
        if !(0..l).any(|k| firsts >> k & 1 != 0 && addrs[k] == addrs[l]) {
            firsts |= 1 << l;
        }
    }
    firsts
}

/// The longest queue of lanes on one bank among the lanes of `m`.
fn queue(geom: &Geometry, width: u32, addrs: &[u32; WARP], m: u32) -> u32 {
    let mut per_bank = [0u8; crate::MAX_BANKS as usize];
    let mut most = 0;
    for l in (0..WARP).filter(|l| m >> l & 1 != 0) {
        for b in lane_banks(geom, addrs[l], width) {
            per_bank[b as usize] += 1;
            most = most.max(per_bank[b as usize] as u32);
        }
    }
    most
}

/// One trip of a compare-and-swap loop, for [`analyze_atomic`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trip {
    /// Lanes that had not yet succeeded (they load and try).
    pub left: u32,
    /// The load's price.
    pub load: Cost,
    /// Lanes each bank served (tried), lowest first.
    pub tried: u32,
    /// Lanes whose load showed nothing to change (64-bit `min`/`max`): done without a swap.
    pub skipped: u32,
    /// Lanes whose swap succeeded.
    pub done: u32,
}

/// Rule 8: trips of a load by the lanes left and a one-lane-per-bank swap, until every lane
/// is done. A swap succeeds if its word still holds what the lane loaded.
fn cas_loop(
    geom: &Geometry,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    data: &mut dyn LoopData,
    mut each: impl FnMut(Trip),
) -> Result<AtomCost, Error> {
    let mut out = AtomCost::default();
    let mut left = mask;
    let mut seen = [0u64; WARP];
    while left != 0 {
        let load = cost(geom, Op::Ld, width, addrs, left)?;
        out.loads.wavefronts += load.wavefronts;
        out.loads.conflicts += load.conflicts;
        out.loads.phases += load.phases;
        let mut trying = 0u32;
        for l in (0..WARP).filter(|l| left >> l & 1 != 0) {
            seen[l] = data.load(l);
            if data.wants(l, seen[l]) {
                trying |= 1 << l;
            }
        }
        let skipped = left & !trying;
        if trying != 0 {
            out.trips += 1;
        }
        let (mut tried, mut done) = (0u32, 0u32);
        for phase in phase_masks(geom, width) {
            let lanes = trying & phase;
            if lanes == 0 {
                continue;
            }
            out.atom.wavefronts += 2;
            out.atom.phases += 1;
            let mut taken = BankSet::new();
            for l in (0..WARP).filter(|l| lanes >> l & 1 != 0) {
                if lane_banks(geom, addrs[l], width).any(|b| taken.has(b)) {
                    continue;
                }
                lane_banks(geom, addrs[l], width).for_each(|b| taken.set(b));
                tried |= 1 << l;
            }
            // The banks serve their lanes of this phase together; in lane order here.
            for l in (0..WARP).filter(|l| (tried & lanes) >> l & 1 != 0) {
                if data.swap(l, seen[l]) {
                    done |= 1 << l;
                }
            }
        }
        each(Trip {
            left,
            load,
            tried,
            skipped,
            done,
        });
        left &= !(done | skipped);
    }
    Ok(out)
}

/// One phase of a native atomic, for [`analyze_atomic`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AtomPhase {
    /// First lane of the phase.
    pub first_lane: u32,
    /// The active lanes (bit `l` = lane `l`).
    pub active: u32,
    /// For each bank, the lanes queued on it, in the order they are served (`ATOMS.POPC.INC`:
    /// the lowest lane of each address).
    pub queues: Vec<Vec<u32>>,
    /// For each bank, the lanes each entry of `queues` stands for: 1 each, except for
    /// `ATOMS.POPC.INC`, where all the lanes on one address are served in one visit.
    pub served: Vec<Vec<u32>>,
    /// Wavefronts of this phase.
    pub wavefronts: u32,
}

/// An atomic spelled out: the phases and bank queues of a native one, the trips of a loop.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AtomAnalysis {
    /// How it runs.
    pub form: Form,
    /// The totals, equal to [`atomic_cost`]'s.
    pub cost: AtomCost,
    /// Native: its phases (empty for a loop).
    pub phases: Vec<AtomPhase>,
    /// Loop: its trips (empty for a native atomic).
    pub trips: Vec<Trip>,
}

/// Prices one atomic like [`atomic_cost`] and says how.
pub fn analyze_atomic(
    geom: &Geometry,
    atomic: &Atomic,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
) -> Result<AtomAnalysis, AtomicError> {
    let form = atomic.form(width)?;
    check(geom, width, addrs, mask)?;
    let mut phases = Vec::new();
    let mut trips = Vec::new();
    let cost = match form {
        Form::Native(_) | Form::Popc => {
            let (per, merge) = match form {
                Form::Native(per) => (per, false),
                _ => (1, true),
            };
            for phase in phase_masks(geom, width) {
                let active = mask & phase;
                let firsts = if merge {
                    first_of_address(addrs, active)
                } else {
                    active
                };
                let mut queues = vec![Vec::new(); geom.banks as usize];
                let mut served = vec![Vec::new(); geom.banks as usize];
                for l in (0..WARP as u32).filter(|l| firsts >> l & 1 != 0) {
                    let a = addrs[l as usize];
                    let n = (0..WARP)
                        .filter(|&k| active >> k & 1 != 0 && addrs[k] == a)
                        .count() as u32;
                    for b in lane_banks(geom, a, width) {
                        queues[b as usize].push(l);
                        served[b as usize].push(if merge { n } else { 1 });
                    }
                }
                let q = queues.iter().map(Vec::len).max().unwrap_or(0) as u32;
                phases.push(AtomPhase {
                    first_lane: phase.trailing_zeros(),
                    active,
                    queues,
                    served,
                    wavefronts: per * q,
                });
            }
            native(geom, per, merge, width, addrs, mask)
        }
        Form::CasLoop | Form::TriedCasLoop => {
            let c = cas_loop(geom, width, addrs, mask, &mut Versions::new(addrs), |t| {
                trips.push(t)
            })?;
            if form == Form::TriedCasLoop {
                tried(c, mask)
            } else {
                c
            }
        }
        Form::WordCasLoop => word_cas_loop(geom, addrs, mask, |t| trips.push(t))?,
    };
    Ok(AtomAnalysis {
        form,
        cost,
        phases,
        trips,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(f: impl Fn(u32) -> u32) -> [u32; WARP] {
        std::array::from_fn(|l| f(l as u32))
    }

    fn at(s: &str) -> Atomic {
        s.parse().unwrap()
    }

    #[test]
    fn names_round_trip() {
        for s in [
            "atom.add",
            "red.xor.b32",
            "atom.cas.b64",
            "atom.add.f32",
            "red.inc",
        ] {
            assert_eq!(at(s).to_string(), s);
        }
        assert!("atom.mul".parse::<Atomic>().is_err());
        assert!("ld.add".parse::<Atomic>().is_err());
        assert!("atom.add.f8".parse::<Atomic>().is_err());
        assert_eq!(at("atom.add.f16x2").to_string(), "atom.add.f16x2");
        assert!("atom.add.u32.x".parse::<Atomic>().is_err());
    }

    #[test]
    fn forms() {
        assert_eq!(at("atom.add").form(4), Ok(Form::Native(1)));
        assert_eq!(at("atom.cas").form(4), Ok(Form::Native(2)));
        assert_eq!(at("red.add.f32").form(4), Ok(Form::CasLoop));
        assert_eq!(at("atom.add").form(8), Ok(Form::CasLoop));
        assert_eq!(at("atom.exch.b64").form(8), Ok(Form::Native(1)));
        assert!(at("red.cas").form(4).is_err());
        assert_eq!(at("atom.min").form(8), Ok(Form::CasLoop)); // calibration/probes/shared_atomics
        assert_eq!(at("atom.xor.b64").form(8), Ok(Form::CasLoop));
        assert_eq!(at("atom.add.f64").form(8), Ok(Form::CasLoop));
        assert_eq!(at("atom.add.f16x2").form(4), Ok(Form::TriedCasLoop));
        assert_eq!(at("red.add.bf16x2").form(4), Ok(Form::TriedCasLoop));
        assert_eq!(at("atom.add.f16").form(2), Ok(Form::WordCasLoop));
        assert!(at("atom.min.f16x2").form(4).is_err());
        assert!(at("atom.add.f32").form(8).is_err());
        assert!(at("atom.add").form(2).is_err());
        assert!(at("atom.inc").form(8).is_err());
    }

    #[test]
    fn native_queues_lanes_not_words() {
        let g = Geometry::H200;
        let c = |s: &str, w: u32, f: &dyn Fn(u32) -> u32, m: u32| {
            let a = atomic_cost(&g, &at(s), w, &addrs(f), m).unwrap();
            (a.atom.wavefronts, a.atom.conflicts)
        };
        assert_eq!(c("atom.add", 4, &|t| t * 4, !0), (1, 0));
        assert_eq!(c("atom.add", 4, &|_| 0, !0), (32, 31)); // one address: 32 lanes queue
        assert_eq!(c("atom.add", 4, &|t| (t / 2) * 4, !0), (2, 1));
        assert_eq!(c("atom.cas", 4, &|_| 0, 0xff), (16, 7));
        assert_eq!(c("atom.exch", 8, &|_| 0, !0), (32, 30)); // half-warps
        assert_eq!(c("atom.add", 4, &|_| 0, 0), (0, 0));
    }

    #[test]
    fn cas_loop_serves_one_lane_per_bank() {
        let g = Geometry::H200;
        let c = |s: &str, w: u32, f: &dyn Fn(u32) -> u32| {
            atomic_cost(&g, &at(s), w, &addrs(f), !0).unwrap()
        };
        let one = c("atom.add.f32", 4, &|_| 0);
        assert_eq!(
            (one.trips, one.atom.wavefronts, one.loads.wavefronts),
            (32, 64, 32)
        );
        let col = c("atom.add.f32", 4, &|t| t * 128);
        assert_eq!((col.trips, col.loads.conflicts), (32, 496));
        // 64-bit: two half-warps per trip; a second-half lane on a word the first half just
        // wrote fails (measured: 17 trips).
        assert_eq!(c("atom.add", 8, &|t| (t % 4) * 128).trips, 17);
        assert_eq!(c("atom.add", 8, &|_| 0).atom.wavefronts, 96);
    }

    #[test]
    fn popc_serves_each_address_once() {
        let g = Geometry::H200;
        let c = |f: &dyn Fn(u32) -> u32, m: u32| {
            let a = atomic_cost(&g, &at("red.popc"), 4, &addrs(f), m).unwrap();
            (a.atom.wavefronts, a.atom.conflicts, a.trips)
        };
        assert_eq!(c(&|_| 0, !0), (1, 0, 1)); // one address: one visit
        assert_eq!(c(&|t| t * 128, !0), (32, 31, 1)); // 32 words on bank 0
        assert_eq!(c(&|t| (t % 4) * 128, !0), (4, 3, 1)); // 4 words on bank 0
        assert_eq!(c(&|t| (t / 2) * 4, !0), (1, 0, 1));
        assert_eq!(c(&|t| (t / 4) * 128, 0x0f0f_0f0f), (4, 3, 1));
        assert!(at("atom.popc").form(4).is_err());
        assert!(at("red.popc").form(8).is_err());
        assert!(at("red.popc.f32").form(4).is_err());
    }

    #[test]
    fn half_loops() {
        let g = Geometry::H200;
        let c = |s: &str, w: u32, f: &dyn Fn(u32) -> u32| {
            let a = atomic_cost(&g, &at(s), w, &addrs(f), !0).unwrap();
            (
                a.atom.wavefronts,
                a.atom.conflicts,
                a.loads.wavefronts,
                a.trips,
            )
        };
        // f16x2, one address: rule 8's 32 trips plus the generic try's wavefront.
        assert_eq!(c("atom.add.f16x2", 4, &|_| 0), (65, 0, 32, 32));
        // A half, one word: 32 trips of 32, 31, … lanes queued twice (a cas); one word load.
        assert_eq!(c("atom.add.f16", 2, &|t| (t % 2) * 2), (1056, 496, 1, 32));
        // Halves of 16 words, two a word: 2 trips (2 then 1 lane a bank).
        assert_eq!(c("atom.add.f16", 2, &|t| t * 2), (6, 1, 1, 2));
    }

    /// A loop's data: 64-bit `min` of `lane + 1` over a word holding 3.
    struct Min3(u64);
    impl LoopData for Min3 {
        fn load(&mut self, _: usize) -> u64 {
            self.0
        }
        fn wants(&mut self, l: usize, seen: u64) -> bool {
            (l as u64 + 1) < seen
        }
        fn swap(&mut self, l: usize, seen: u64) -> bool {
            let ok = self.0 == seen;
            if ok {
                self.0 = seen.min(l as u64 + 1);
            }
            ok
        }
    }

    #[test]
    fn min_loop_skips_what_would_not_change() {
        // Measured (atom_min_u64_const0): 2 loads, 1 ATOMS, 2 atom wavefronts.
        let g = Geometry::H200;
        let a = addrs(|_| 0);
        let c = atomic_cost_with(&g, &at("atom.min.u64"), 8, &a, !0, &mut Min3(3)).unwrap();
        assert_eq!((c.loads.wavefronts, c.atom.wavefronts, c.trips), (2, 2, 1));
        // Without values every lane is assumed to change the word: as `add`.
        let c = atomic_cost(&g, &at("atom.min.u64"), 8, &a, !0).unwrap();
        assert_eq!(c.trips, 32);
    }

    #[test]
    fn analysis_matches_cost() {
        let g = Geometry::H200;
        for s in [
            "atom.add",
            "atom.cas",
            "atom.add.f32",
            "atom.exch.b64",
            "red.popc",
            "atom.add.f16x2",
            "atom.add.f16",
        ] {
            let w = match s {
                _ if s.ends_with("b64") => 8,
                "atom.add.f16" => 2,
                _ => 4,
            };
            let a = addrs(|t| (t * 7 % 5) * 128 + (t % 3) * w);
            let an = analyze_atomic(&g, &at(s), w, &a, 0xdead_beef).unwrap();
            assert_eq!(
                an.cost,
                atomic_cost(&g, &at(s), w, &a, 0xdead_beef).unwrap()
            );
        }
    }
}
