//! The types callers use: how to run a block ([`Config`]), global memory ([`Global`]) and what
//! a run did ([`Stats`]).

use super::words::Words;
use std::sync::atomic::Ordering::Relaxed;
use warpsim_kernel::Program;
use warpsim_smem::{Geometry, WARP};

/// How to run a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// The shared-memory bank geometry that prices every shared access.
    pub geometry: Geometry,
    /// Most warp instructions one block may execute (all its warps together) before it
    /// faults as a runaway loop. Checked at every `LoopBack`, `ForNext` and `Barrier`.
    pub max_steps: u64,
    /// Look for shared-memory races between warps (`race`); they are added to
    /// [`Stats::races`]. Off by default: without it, nothing is tracked.
    pub racecheck: bool,
    /// Price the accesses of one region of shared memory as if it had another layout (the
    /// advisor's "what if" on CUDA and PTX kernels); the data stays where the kernel puts it.
    pub relayout: Option<warpsim_smem::Relayout>,
}

impl Config {
    /// The default [`Config::max_steps`].
    pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;
}

impl Default for Config {
    fn default() -> Self {
        Config {
            geometry: Geometry::H200,
            max_steps: Config::DEFAULT_MAX_STEPS,
            racecheck: false,
            relayout: None,
        }
    }
}

/// Global memory: one array of 32-bit words per buffer of the program.
///
/// An `f64` element takes two words, little-endian (low word first). Blocks may run in
/// parallel on several threads; every access is a `Relaxed` atomic load or store.
#[derive(Debug, Default)]
pub struct Global {
    /// The words of each buffer, in the order of [`Program::buffers`] (8-byte aligned, so
    /// an even pair of words is also a 64-bit host atomic: [`Words::pair`]).
    pub buffers: Vec<Words>,
}

impl Global {
    /// Zeroed buffers, sized by [`warpsim_kernel::BufferInfo::words`].
    pub fn new(prog: &Program) -> Self {
        Global {
            buffers: prog
                .buffers
                .iter()
                .map(|b| Words::zeroed(b.words() as usize))
                .collect(),
        }
    }

    /// Every buffer's words (copied out of its 64-bit storage, one buffer at a time).
    pub fn into_words(self) -> Vec<Vec<u32>> {
        self.buffers.into_iter().map(Words::into_vec).collect()
    }

    /// A copy of buffer `buf`'s words (empty if there is no such buffer).
    pub fn read(&self, buf: usize) -> Vec<u32> {
        self.buffers
            .get(buf)
            .map_or_else(Vec::new, |b| b.iter().map(|w| w.load(Relaxed)).collect())
    }

    /// Overwrites the first `words.len()` words of buffer `buf` (as many as fit; nothing if
    /// there is no such buffer). For filling buffers before a run.
    pub fn write(&self, buf: usize, words: &[u32]) {
        if let Some(b) = self.buffers.get(buf) {
            for (d, &s) in b.iter().zip(words) {
                d.store(s, Relaxed);
            }
        }
    }
}

/// What one instruction (one pc) did over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PcStats {
    /// Warp executions.
    pub executions: u64,
    /// Active lanes, summed over its executions.
    pub lanes: u64,
    /// Shared-memory wavefronts (shared accesses only).
    pub wavefronts: u64,
    /// Shared-memory bank conflicts (shared accesses only).
    pub conflicts: u64,
    /// Shared atomics compiled to a compare-and-swap loop: the wavefronts of the loop's loads
    /// (part of `wavefronts`; Nsight counts them as loads).
    pub loop_load_wavefronts: u64,
    /// Shared atomics: the bank conflicts of a loop's loads (part of `conflicts`).
    pub loop_load_conflicts: u64,
    /// Shared atomics: `ATOMS` instructions executed (a loop's trips; one per native atomic).
    pub atoms: u64,
    /// `cp.async`: the global sectors read (`smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts`).
    pub copy_sectors: u64,
    /// `cp.async`: the wavefronts it adds to the hardware total
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared` (`.cg` ones: none without a zero fill).
    pub copy_hw_wavefronts: u64,
    /// `cp.async`: `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts` (the hardware
    /// counter; the Source page's are in `conflicts`).
    pub copy_hw_conflicts: u64,
    /// `wgmma`: the tensor cores' reads of its shared operands (Nsight's
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma`; not in `wavefronts`).
    pub gmma_wavefronts: u64,
    /// `wgmma`: `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma`.
    pub gmma_conflicts: u64,
    /// Constant loads: the distinct addresses of each execution, summed (an `LDC`'s
    /// constant-cache requests).
    pub const_requests: u64,
    /// Constant loads: executions whose lanes read more than one address.
    pub const_divergent: u64,
    /// Shuffles: lanes that read a lane not executing the shuffle (outside the member mask or
    /// inactive: undefined in CUDA; they get 0, as on the H200).
    pub shfl_outside: u64,
}

/// One execution of a shared-memory instruction, kept to show which banks its lanes hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstAccess {
    /// The block it ran in.
    pub block: [u32; 3],
    /// The warp in the block.
    pub warp: u32,
    /// Byte address of each lane (meaningful where `mask` has the lane).
    pub addrs: [u32; WARP],
    /// Active lanes.
    pub mask: u32,
    /// Bytes per lane.
    pub width: u32,
    /// A store (else a load).
    pub store: bool,
}

/// What a run did: per instruction, per bank, and in total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Indexed by pc (one entry per instruction of [`Program::code`]).
    pub per_pc: Vec<PcStats>,
    /// Distinct words each bank served, over all shared accesses.
    pub per_bank: Vec<u64>,
    /// Distinct words each bank served, per instruction: entry `pc * banks + bank` (nonzero
    /// only for shared accesses). Summed over pcs, it is [`Stats::per_bank`].
    pub per_pc_bank: Vec<u64>,
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Thread instructions executed (active lanes summed over warp instructions).
    pub thread_instructions: u64,
    /// Shared-memory races found (only with [`Config::racecheck`]).
    pub races: crate::race::Races,
    /// Per pc, the first execution of each shared-memory instruction in the lowest block
    /// that ran it (blocks are merged in order, so this does not depend on threads).
    pub first_accesses: Vec<Option<Box<FirstAccess>>>,
    /// What the kernel's `printf`s printed, the blocks in order (`crate::printf`).
    pub printf: crate::PrintfOut,
}

impl Stats {
    /// Empty statistics for `prog` under `geom`.
    pub fn new(prog: &Program, geom: &Geometry) -> Self {
        Stats {
            per_pc: vec![PcStats::default(); prog.code.len()],
            per_bank: vec![0; geom.banks as usize],
            per_pc_bank: vec![0; prog.code.len() * geom.banks as usize],
            warp_instructions: 0,
            thread_instructions: 0,
            races: Default::default(),
            first_accesses: vec![None; prog.code.len()],
            printf: Default::default(),
        }
    }

    /// Grows the per-instruction and per-bank tables to `code` instructions and `banks` banks
    /// (they are never shrunk).
    pub(super) fn fit(&mut self, code: usize, banks: usize) {
        if self.per_pc.len() < code {
            self.per_pc.resize(code, PcStats::default());
        }
        if self.first_accesses.len() < code {
            self.first_accesses.resize(code, None);
        }
        if self.per_bank.len() < banks {
            self.per_bank.resize(banks, 0);
        }
        if self.per_pc_bank.len() < code * banks {
            self.per_pc_bank.resize(code * banks, 0);
        }
    }

    /// Adds `other` (e.g. another thread's blocks) to these.
    pub fn merge(&mut self, other: &Stats) {
        if self.per_pc.len() < other.per_pc.len() {
            self.per_pc.resize(other.per_pc.len(), PcStats::default());
        }
        for (a, b) in self.per_pc.iter_mut().zip(&other.per_pc) {
            a.executions += b.executions;
            a.lanes += b.lanes;
            a.wavefronts += b.wavefronts;
            a.conflicts += b.conflicts;
            a.loop_load_wavefronts += b.loop_load_wavefronts;
            a.loop_load_conflicts += b.loop_load_conflicts;
            a.atoms += b.atoms;
            a.copy_sectors += b.copy_sectors;
            a.copy_hw_wavefronts += b.copy_hw_wavefronts;
            a.copy_hw_conflicts += b.copy_hw_conflicts;
            a.gmma_wavefronts += b.gmma_wavefronts;
            a.gmma_conflicts += b.gmma_conflicts;
            a.const_requests += b.const_requests;
            a.const_divergent += b.const_divergent;
            a.shfl_outside += b.shfl_outside;
        }
        if self.per_bank.len() < other.per_bank.len() {
            self.per_bank.resize(other.per_bank.len(), 0);
        }
        for (a, b) in self.per_bank.iter_mut().zip(&other.per_bank) {
            *a += b;
        }
        if self.per_pc_bank.len() < other.per_pc_bank.len() {
            self.per_pc_bank.resize(other.per_pc_bank.len(), 0);
        }
        for (a, b) in self.per_pc_bank.iter_mut().zip(&other.per_pc_bank) {
            *a += b;
        }
        self.warp_instructions += other.warp_instructions;
        self.thread_instructions += other.thread_instructions;
        self.races.merge(&other.races);
        self.printf.merge(&other.printf);
        if self.first_accesses.len() < other.first_accesses.len() {
            self.first_accesses.resize(other.first_accesses.len(), None);
        }
        for (a, b) in self.first_accesses.iter_mut().zip(&other.first_accesses) {
            if a.is_none() {
                a.clone_from(b);
            }
        }
    }

    /// Shared-memory wavefronts over all instructions.
    pub fn wavefronts(&self) -> u64 {
        self.per_pc.iter().map(|p| p.wavefronts).sum()
    }

    /// Shared-memory bank conflicts over all instructions.
    pub fn conflicts(&self) -> u64 {
        self.per_pc.iter().map(|p| p.conflicts).sum()
    }
}
