//! Shared-memory race detection (`warpsim run --racecheck`), in the manner of
//! compute-sanitizer's racecheck.
//!
//! Within one *barrier interval* (from one `Barrier` that releases the block to the next, or
//! to the end of the block), a 32-bit shared word that one thread writes and a thread of a
//! **different warp** reads or writes is a hazard: on the GPU the two warps run in no fixed
//! order, so the result depends on timing. The executor runs warp 0 until the barrier, then
//! warp 1, and so on, so the order it happens to use says nothing: every cross-warp pair is
//! reported, named after the order in which the emulator met the two accesses:
//!
//! * **RAW**: a write, then a read by another warp (the read may see either value);
//! * **WAR**: a read, then a write by another warp (the read may see the new value);
//! * **WAW**: a write, then a write by another warp (either value may remain).
//!
//! Threads of one warp run in lockstep, so pairs inside a warp are never hazards.
//!
//! # Shadow memory
//!
//! Per word of the block's shared memory, a `Shadow` keeps the last writer and up to two
//! readers of different warps, each stamped with the interval it happened in (so a barrier
//! resets everything by starting a new interval, without clearing). Two readers of different
//! warps are enough to find *a* reader of another warp than any later writer: if the writer's
//! warp is one of them, the other one is not. Hazards are deduplicated by kind and the pair
//! of instructions; each keeps its first example and counts its occurrences (one per thread
//! and 32-bit word).
//!
//! The shadow is only allocated when [`crate::Config::racecheck`] is set; each worker
//! thread reuses its own from block to block.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use warpsim_kernel::Program;

/// Which pair of accesses a hazard is, in the order the emulator met them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HazardKind {
    /// Read after write.
    Raw,
    /// Write after read.
    War,
    /// Write after write.
    Waw,
    /// An access to a shared word that a `cp.async` writes, before the `wait_group` that
    /// completes the copy (`exec/race_async.rs`).
    Async,
    /// A read through the async proxy (`wgmma`'s operands, a TMA or bulk store's source) of a
    /// word a thread stored (generic proxy) without a `fence.proxy.async` since: the GPU may
    /// read the word's old value.
    Proxy,
}

impl HazardKind {
    /// `RAW`, `WAR` or `WAW`.
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::Raw => "RAW",
            HazardKind::War => "WAR",
            HazardKind::Waw => "WAW",
            HazardKind::Async => "ASYNC",
            HazardKind::Proxy => "PROXY",
        }
    }
}

impl fmt::Display for HazardKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One side of a hazard: an access by one thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    /// The instruction.
    pub pc: u32,
    /// The thread's linear index in its block (its warp is `thread / 32`).
    pub thread: u32,
    /// A store (or a load).
    pub store: bool,
}

/// One hazard: a kind, a pair of instructions, and its first example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hazard {
    /// RAW, WAR or WAW.
    pub kind: HazardKind,
    /// The access the emulator met first (the write of a RAW or WAW, the read of a WAR).
    pub first: Side,
    /// The access that conflicts with it, by a thread of another warp.
    pub second: Side,
    /// The shared word (byte address / 4) of the first example; see [`locate`].
    pub word: u32,
    /// The block of the first example.
    pub block: [u32; 3],
    /// Occurrences: conflicting accesses, one per thread and 32-bit word.
    pub count: u64,
}

impl Hazard {
    fn key(&self) -> (HazardKind, u32, u32) {
        (self.kind, self.first.pc, self.second.pc)
    }
}

/// The hazards of a run, one per kind and pair of instructions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Races {
    /// In the order first found (blocks in order, when merged in order).
    pub hazards: Vec<Hazard>,
}

impl Races {
    /// Adds `other`'s hazards (of later blocks): counts are summed, first examples kept.
    pub fn merge(&mut self, other: &Races) {
        for h in &other.hazards {
            match self.hazards.iter_mut().find(|m| m.key() == h.key()) {
                Some(m) => m.count += h.count,
                None => self.hazards.push(h.clone()),
            }
        }
    }

    /// Whether no hazard was found.
    pub fn is_empty(&self) -> bool {
        self.hazards.is_empty()
    }
}

/// One access recorded in the shadow: interval, thread and instruction (interval 0: none).
#[derive(Clone, Copy, Debug, Default)]
struct Rec {
    epoch: u32,
    thread: u32,
    pc: u32,
}

/// The shadow of one shared word: three [`Rec`]s — the last writer ([`WRITER`]), a reader
/// ([`READER`]) and a reader of another warp than it ([`READER2`], only while the first is
/// of this interval). All zeros is "nothing recorded", so a new shadow is zeroed memory,
/// which the OS maps lazily: a large shared memory costs only the words a block touches.
type Cell = [u32; 9];
const WRITER: usize = 0;
/// Marks a writer [`Rec`]'s pc as an atomic's.
const ATOMIC: u32 = 1 << 31;
const READER: usize = 3;
const READER2: usize = 6;

#[inline]
fn rec(c: &Cell, at: usize) -> Rec {
    Rec {
        epoch: c[at],
        thread: c[at + 1],
        pc: c[at + 2],
    }
}

#[inline]
fn set(c: &mut Cell, at: usize, r: Rec) {
    c[at] = r.epoch;
    c[at + 1] = r.thread;
    c[at + 2] = r.pc;
}

thread_local! {
    /// Each worker's shadow cells and the next interval number, reused from block to block.
    static POOL: RefCell<(Vec<Cell>, u32)> = const { RefCell::new((Vec::new(), 1)) };
}

/// The race detector of one block.
#[derive(Debug)]
pub(crate) struct Shadow {
    cells: Vec<Cell>,
    /// The current barrier interval's number (never 0).
    epoch: u32,
    block: [u32; 3],
    found: Vec<Hazard>,
    index: HashMap<(HazardKind, u32, u32), usize>,
    /// The words `cp.async` copies that no `wait_group` has completed yet.
    pub(crate) copies: crate::race_async::Copies,
    /// Per thread: how many `fence.proxy.async` it executed.
    fences: Vec<u32>,
    /// Per word: its last generic-proxy writer's fence count plus one at the write (0: none
    /// pending): that writer has not fenced it while its count is below this.
    unfenced: Vec<u32>,
}

impl Shadow {
    /// A detector for block `ctaid` of `prog`, sized by its shared memory.
    pub(crate) fn new(prog: &Program, ctaid: [u32; 3]) -> Self {
        let words = prog.shared_bytes.div_ceil(4) as usize;
        let (mut cells, mut epoch) = POOL.with(|p| std::mem::take(&mut *p.borrow_mut()));
        if epoch == 0 || epoch >= u32::MAX - 1 {
            cells.clear();
            epoch = 1;
        }
        if cells.len() < words {
            // Zeroed (and so lazily mapped) rather than grown by writing.
            cells = vec![[0; 9]; words];
        }
        Shadow {
            cells,
            epoch,
            block: ctaid,
            found: Vec::new(),
            index: HashMap::new(),
            copies: Default::default(),
            fences: Vec::new(),
            unfenced: Vec::new(),
        }
    }

    /// The `active` lanes of warp `w` execute `fence.proxy.async`: their earlier shared
    /// stores become visible to the async proxy.
    pub(crate) fn proxy_fence(&mut self, w: usize, active: u32) {
        let need = (w + 1) * 32;
        if self.fences.len() < need {
            self.fences.resize(need, 0);
        }
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            self.fences[w * 32 + l] += 1;
        }
    }

    /// A generic-proxy store of `word` by `thread`: not visible to the async proxy until the
    /// thread's next `fence.proxy.async`.
    fn generic_write(&mut self, thread: u32, word: usize) {
        if self.unfenced.len() <= word {
            self.unfenced.resize(word + 1, 0);
        }
        let f = self.fences.get(thread as usize).copied().unwrap_or(0);
        self.unfenced[word] = f + 1;
    }

    /// `words` words from byte address `addr` written through the async proxy (a TMA or bulk
    /// load): nothing of them waits for a fence.
    pub(crate) fn async_write(&mut self, addr: u32, words: usize) {
        let at = (addr / 4) as usize;
        for word in at..(at + words).min(self.unfenced.len()) {
            self.unfenced[word] = 0;
        }
    }

    /// Warp `w`'s instruction `pc` reads `words` words from each byte address of `addrs`
    /// through the async proxy (`wgmma`, a TMA or bulk store): a word whose last writer
    /// stored it without a `fence.proxy.async` since is a [`HazardKind::Proxy`].
    pub(crate) fn async_read(&mut self, pc: usize, w: usize, addrs: &[u32], words: usize) {
        for &a in addrs {
            let at = (a / 4) as usize;
            for word in at..(at + words).min(self.unfenced.len()) {
                let pending = self.unfenced[word];
                if pending == 0 {
                    continue;
                }
                let Some(c) = self.cells.get(word) else {
                    continue;
                };
                let writer = rec(c, WRITER);
                let fenced = self
                    .fences
                    .get(writer.thread as usize)
                    .copied()
                    .unwrap_or(0);
                if fenced < pending {
                    let side = Side {
                        pc: pc as u32,
                        thread: w as u32 * 32,
                        store: false,
                    };
                    self.hazard(HazardKind::Proxy, writer, true, side, word as u32);
                }
            }
        }
    }

    /// Thread `thread`'s pending copies complete with phase `phase` of the mbarrier at shared
    /// byte `addr` (`cp.async.mbarrier.arrive`).
    pub(crate) fn copies_arrive(&mut self, thread: usize, addr: u32, phase: bool) {
        self.copies.attach(thread as u32, addr, phase);
    }

    /// Phase `phase` of the mbarrier at `addr` completes: it orders what came before against
    /// what comes after (a new interval, as at a barrier of the block), and the copies that
    /// arrive with it are complete.
    pub(crate) fn phase_complete(&mut self, addr: u32, phase: bool) {
        self.copies.complete(addr, phase);
        self.barrier();
    }

    /// Every warp passed a barrier: a new interval begins.
    pub(crate) fn barrier(&mut self) {
        if self.epoch >= u32::MAX - 1 {
            self.cells.iter_mut().for_each(|c| *c = [0; 9]);
            self.epoch = 0;
        }
        self.epoch += 1;
    }

    #[cold]
    fn hazard(
        &mut self,
        kind: HazardKind,
        mut first: Rec,
        first_store: bool,
        second: Side,
        word: u32,
    ) {
        first.pc &= !ATOMIC;
        let key = (kind, first.pc, second.pc);
        match self.index.get(&key) {
            Some(&i) => self.found[i].count += 1,
            None => {
                self.index.insert(key, self.found.len());
                self.found.push(Hazard {
                    kind,
                    first: Side {
                        pc: first.pc,
                        thread: first.thread,
                        store: first_store,
                    },
                    second,
                    word,
                    block: self.block,
                    count: 1,
                });
            }
        }
    }

    /// An access `side` to `word`: a hazard if a `cp.async` that no `wait_group` completed
    /// writes it.
    #[cold]
    fn pending_copy(&mut self, word: u32, side: Side) {
        if let Some(p) = self.copies.pending(word) {
            let first = Rec {
                epoch: self.epoch,
                thread: p.thread,
                pc: p.pc,
            };
            self.hazard(HazardKind::Async, first, true, side, word);
        }
    }

    /// One shared access by the `active` lanes of warp `w`: lane `l` touches `words`
    /// consecutive words from byte address `addrs[l]`.
    pub(crate) fn access(
        &mut self,
        pc: usize,
        w: usize,
        store: bool,
        active: u32,
        addrs: &[u32; 32],
        words: usize,
    ) {
        let e = self.epoch;
        let pc = pc as u32;
        let w = w as u32;
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let thread = w * 32 + l;
            let me = Rec {
                epoch: e,
                thread,
                pc,
            };
            let side = Side { pc, thread, store };
            let at = (addrs[l as usize] / 4) as usize;
            for word in at..at + words {
                if !self.copies.is_empty() {
                    self.pending_copy(word as u32, side);
                }
                let Some(c) = self.cells.get(word) else {
                    continue;
                };
                let (writer, reader, reader2) = (rec(c, WRITER), rec(c, READER), rec(c, READER2));
                let other = |r: &Rec| r.epoch == e && r.thread / 32 != w;
                if other(&writer) {
                    let kind = if store {
                        HazardKind::Waw
                    } else {
                        HazardKind::Raw
                    };
                    self.hazard(kind, writer, true, side, word as u32);
                }
                if store {
                    for r in [reader, reader2] {
                        if other(&r) {
                            self.hazard(HazardKind::War, r, false, side, word as u32);
                        }
                    }
                    set(&mut self.cells[word], WRITER, me);
                    self.generic_write(thread, word);
                } else if reader.epoch != e || reader.thread / 32 == w {
                    set(&mut self.cells[word], READER, me);
                } else if reader2.epoch != e || reader2.thread / 32 == w {
                    set(&mut self.cells[word], READER2, me);
                }
            }
        }
    }

    /// One shared atomic by the `active` lanes of warp `w`: lane `l` updates `words`
    /// consecutive words from byte address `addrs[l]` (2 for a 64-bit atomic). Atomics never
    /// race with each other; an atomic and a plain load or store of one of its words by
    /// another warp in the same barrier interval do (either order). The atomic is recorded as
    /// each word's writer, marked with [`ATOMIC`] in its pc.
    pub(crate) fn atomic(
        &mut self,
        pc: usize,
        w: usize,
        active: u32,
        addrs: &[u32; 32],
        words: usize,
    ) {
        let e = self.epoch;
        let w = w as u32;
        let mut lanes = active;
        while lanes != 0 {
            let l = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let thread = w * 32 + l;
            let side = Side {
                pc: pc as u32,
                thread,
                store: true,
            };
            let at = (addrs[l as usize] / 4) as usize;
            for word in at..at + words {
                if !self.copies.is_empty() {
                    self.pending_copy(word as u32, side);
                }
                let Some(c) = self.cells.get(word) else {
                    continue;
                };
                let (writer, reader, reader2) = (rec(c, WRITER), rec(c, READER), rec(c, READER2));
                let other = |r: &Rec| r.epoch == e && r.thread / 32 != w;
                if other(&writer) && writer.pc & ATOMIC == 0 {
                    self.hazard(HazardKind::Waw, writer, true, side, word as u32);
                }
                for r in [reader, reader2] {
                    if other(&r) {
                        self.hazard(HazardKind::War, r, false, side, word as u32);
                    }
                }
                if writer.epoch != e || writer.pc & ATOMIC != 0 || writer.thread / 32 == w {
                    let me = Rec {
                        epoch: e,
                        thread,
                        pc: pc as u32 | ATOMIC,
                    };
                    set(&mut self.cells[word], WRITER, me);
                    self.generic_write(thread, word);
                }
            }
        }
    }

    /// The block ended: adds its hazards to `races` and returns the cells for the next block.
    pub(crate) fn finish(self, races: &mut Races) {
        races.merge(&Races {
            hazards: self.found,
        });
        let (cells, epoch) = (self.cells, self.epoch);
        POOL.with(|p| *p.borrow_mut() = (cells, epoch.wrapping_add(1)));
    }
}

/// The shared array and logical index (outermost first) that holds shared word `word`, or
/// None if it is padding or outside every array. For an `f64` array, the element whose
/// low or high half the word is.
pub fn locate(prog: &Program, word: u32) -> Option<(usize, Vec<u32>)> {
    let byte = word as u64 * 4;
    prog.shared.iter().enumerate().find_map(|(k, s)| {
        let base = s.base as u64;
        if byte < base || byte >= base + s.bytes as u64 {
            return None;
        }
        let eb = s.elem.bytes() as u64;
        let phys = (byte - base) / eb;
        let row_len = s.row_len.max(1) as u64;
        let (row, c) = (phys / row_len, (phys % row_len) as u32);
        let (&last, outer) = s.dims.split_last()?;
        let row = u32::try_from(row).ok()?;
        // The XOR swizzle is its own inverse.
        let col = if s.swizzle > 0 && last / s.swizzle > 0 {
            let g = s.swizzle;
            ((c / g) ^ (row % (last / g))) * g + c % g
        } else {
            c
        };
        if col >= last || s.physical(row, col) as u64 != phys {
            return None;
        }
        let mut idx = vec![0; outer.len()];
        let mut r = row;
        for (i, &d) in idx.iter_mut().zip(outer).rev() {
            *i = r % d.max(1);
            r /= d.max(1);
        }
        if r != 0 {
            return None;
        }
        idx.push(col);
        Some((k, idx))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{run_block, Config, Global, Stats};
    use warpsim_smem::Geometry;

    /// Runs block 0 (and `more` blocks after it) of `body` over shared arrays `shared` with
    /// `threads` threads, with racecheck on.
    fn races(threads: u32, shared: &str, body: &str, more: u32) -> (Program, Races) {
        let src = format!(
            "Program(name: \"t\", launch: (grid: [{}], block: [{threads}]),
             buffers: [(name: \"out\", ty: I32, len: 4096)],
             shared: [{shared}], body: [{body}])",
            more + 1
        );
        let prog = warpsim_lang::load_str("t.ron", &src, &Default::default()).unwrap();
        let cfg = Config {
            racecheck: true,
            ..Config::default()
        };
        let g = Global::new(&prog);
        let mut stats = Stats::new(&prog, &Geometry::H200);
        for b in 0..=more {
            run_block(&prog, &cfg, [b, 0, 0], &g, &mut stats).unwrap();
        }
        (prog, stats.races)
    }

    fn kinds(r: &Races) -> Vec<&'static str> {
        r.hazards.iter().map(|h| h.kind.name()).collect()
    }

    #[test]
    fn cross_warp_pairs_are_hazards() {
        let s = r#"(name: "s", ty: I32, dims: [64])"#;
        // Warp 0 reads s[32..64] before warp 1 writes it (WAR), warp 1 reads what warp 0
        // wrote (RAW).
        let (_, r) = races(
            64,
            s,
            r#"Store("s[tid.x]", "1"), Store("out[tid.x]", "s[63 - tid.x]")"#,
            0,
        );
        assert_eq!(kinds(&r), ["WAR", "RAW"]);
        let raw = &r.hazards[1];
        assert_eq!((raw.first.thread / 32, raw.second.thread / 32), (0, 1));
        assert!(raw.first.store && !raw.second.store);
        // 32 words, each read by one thread of the other warp, per warp pair.
        assert_eq!(raw.count, 32);
        // Everybody writes s[0]: WAW (found once: the first lane of warp 1 meets warp 0's
        // write, the others their own warp's).
        let (_, r) = races(64, s, r#"Store("s[0]", "tid.x")"#, 0);
        assert_eq!(kinds(&r), ["WAW"]);
        assert_eq!(r.hazards[0].count, 1);
        // Warp 0 reads s[32..64] before warp 1 writes it: WAR.
        let (_, r) = races(
            64,
            s,
            r#"If(cond: "tid.x < 32", then: [Store("out[tid.x]", "s[tid.x + 32]")], else: [Store("s[tid.x]", "2")])"#,
            0,
        );
        assert_eq!(kinds(&r), ["WAR"]);
        // Counts add up over blocks; the first example stays that of block 0.
        let (_, r) = races(64, s, r#"Store("s[0]", "tid.x")"#, 2);
        assert_eq!(r.hazards[0].count, 3);
        assert_eq!(r.hazards[0].block, [0, 0, 0]);
    }

    #[test]
    fn same_warp_pairs_and_barriers_are_not() {
        let s = r#"(name: "s", ty: I32, dims: [64])"#;
        // Lanes of one warp exchange values without a barrier: lockstep, no hazard.
        let (_, r) = races(
            64,
            s,
            r#"Store("s[tid.x]", "tid.x"), Store("out[tid.x]", "s[tid.x ^ 1]"), Store("s[warpid * 32]", "tid.x")"#,
            0,
        );
        assert!(r.is_empty(), "{r:?}");
        // Across warps, but separated by a barrier.
        let (_, r) = races(
            64,
            s,
            r#"Store("s[tid.x]", "1"), Barrier, Store("out[tid.x]", "s[63 - tid.x]"), Barrier, Store("s[tid.x]", "2")"#,
            0,
        );
        assert!(r.is_empty(), "{r:?}");
        // Read-only sharing between warps.
        let (_, r) = races(64, s, r#"Store("out[tid.x]", "s[0] + s[tid.x]")"#, 0);
        assert!(r.is_empty(), "{r:?}");
        // A loop with a barrier in each trip (the shape of a tree reduction).
        let (_, r) = races(
            64,
            s,
            r#"Store("s[tid.x]", "tid.x"), Barrier, Let("k", "32"),
               While(cond: "k > 0", body: [
                   If(cond: "tid.x < k", then: [Store("s[tid.x]", "s[tid.x] + s[tid.x + k]")]),
                   Barrier, Set("k", "k / 2")])"#,
            0,
        );
        assert!(r.is_empty(), "{r:?}");
    }

    #[test]
    fn three_warps_with_the_writer_among_the_readers() {
        // Warps 0 and 1 read s[0]; then warp 1 and warp 2 write it. Warp 1's write races with
        // warp 0's read, warp 2's with both reads and with warp 1's write.
        let s = r#"(name: "s", ty: I32, dims: [4])"#;
        let (_, r) = races(
            96,
            s,
            r#"If(cond: "warpid < 2", then: [Store("out[tid.x]", "s[0]")]),
               If(cond: "warpid > 0", then: [Store("s[0]", "tid.x")])"#,
            0,
        );
        assert_eq!(kinds(&r), ["WAR", "WAW"]);
    }

    #[test]
    fn locate_inverts_every_layout() {
        let shared = r#"(name: "a", ty: F32, dims: [4, 8], pad: 1),
                        (name: "b", ty: F64, dims: [2, 3, 8], swizzle: 2),
                        (name: "c", ty: I32, dims: [8, 16], pad: 4, swizzle: 4)"#;
        let (prog, _) = races(32, shared, "", 0);
        let mut found = 0;
        for (k, s) in prog.shared.iter().enumerate() {
            let (&last, outer) = s.dims.split_last().unwrap();
            let rows: u32 = outer.iter().product();
            for row in 0..rows {
                for col in 0..last {
                    let byte = s.base + s.physical(row, col) * s.elem.bytes();
                    let mut idx = Vec::new();
                    let mut r = row;
                    for &d in outer.iter().rev() {
                        idx.insert(0, r % d);
                        r /= d;
                    }
                    idx.push(col);
                    for half in 0..s.elem.bytes() / 4 {
                        assert_eq!(locate(&prog, byte / 4 + half), Some((k, idx.clone())));
                        found += 1;
                    }
                }
            }
        }
        assert_eq!(found, 32 + 2 * 48 + 128);
        // Padding is in no array; nor is a word past the end.
        assert_eq!(locate(&prog, 8), None);
        assert_eq!(locate(&prog, prog.shared_bytes / 4 + 10), None);
    }

    fn side(pc: u32, thread: u32, store: bool) -> Side {
        Side { pc, thread, store }
    }

    #[test]
    fn merge_sums_counts_and_keeps_the_first_example() {
        let h = |kind, a, b, block, count| Hazard {
            kind,
            first: side(a, 0, true),
            second: side(b, 40, false),
            word: 7,
            block,
            count,
        };
        let mut x = Races {
            hazards: vec![h(HazardKind::Raw, 1, 2, [0, 0, 0], 3)],
        };
        x.merge(&Races {
            hazards: vec![
                h(HazardKind::War, 1, 2, [1, 0, 0], 1),
                h(HazardKind::Raw, 1, 2, [1, 0, 0], 5),
            ],
        });
        assert_eq!(x.hazards.len(), 2);
        assert_eq!(x.hazards[0].count, 8);
        assert_eq!(x.hazards[0].block, [0, 0, 0]);
        assert_eq!(x.hazards[1].kind, HazardKind::War);
    }
}
