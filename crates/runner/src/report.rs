//! What a run reports ([`Report`]: Nsight Compute's shared-memory counters per launch, per
//! memory instruction and per bank, the verification, the timing model's answer and the
//! emulator's speed) and how it is built from the executor's [`Stats`] ([`build`]).

use super::{constant, tensor_rows, time_report, ConstantTotals, RaceReport, Timing};
use serde::{Serialize, Serializer};
use warpsim_exec::Stats;
use warpsim_kernel::ir::Space;
use warpsim_kernel::Program;
use warpsim_reference::Verdict;
use warpsim_smem::{Geometry, Op};
/// The defines, serialized as a JSON object in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Defines(pub Vec<(String, i64)>);

impl Serialize for Defines {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// Grid and block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaunchReport {
    /// Blocks in the grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads in a block (x, y, z).
    pub block: [u32; 3],
    /// Blocks in all.
    pub blocks: u64,
    /// Threads per block.
    pub threads_per_block: u32,
    /// Shared memory per block, in bytes.
    pub shared_bytes: u32,
}

/// Nsight Compute's shared-memory counters over the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SharedTotals {
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`
    pub ld_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`
    pub ld_bank_conflicts: u64,
    /// `smsp__inst_executed_op_shared_ld.sum`: warp-level shared loads executed.
    pub ld_instructions: u64,
    /// Wavefronts of shared stores.
    pub st_wavefronts: u64,
    /// Bank conflicts of shared stores.
    pub st_bank_conflicts: u64,
    /// Warp-level shared stores executed.
    pub st_instructions: u64,
    /// Wavefronts without any bank conflict: one per busy phase (wavefronts − conflicts).
    pub ideal_wavefronts: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum`: wavefronts of shared atomics
    /// (the loads of a compare-and-swap loop count as loads, as in Nsight).
    pub atom_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum`.
    pub atom_bank_conflicts: u64,
    /// `smsp__sass_inst_executed_op_shared_atom.sum`: `ATOMS` executed (a loop's trips).
    pub atom_instructions: u64,
    /// `cp.async` (`LDGSTS`): the Source page's
    /// `smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum` (not in the
    /// totals above: no `op_ld`/`op_st` counter sees them).
    #[serde(skip_serializing_if = "is_zero")]
    pub ldgsts_wavefronts: u64,
    /// `smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum`.
    #[serde(skip_serializing_if = "is_zero")]
    pub ldgsts_bank_conflicts: u64,
    /// `cp.async` warp instructions executed.
    #[serde(skip_serializing_if = "is_zero")]
    pub ldgsts_instructions: u64,
    /// The hardware `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum`.
    #[serde(skip_serializing_if = "is_zero")]
    pub ldgsts_hw_bank_conflicts: u64,
    /// `smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum`: global sectors read.
    #[serde(skip_serializing_if = "is_zero")]
    pub ldgsts_sectors: u64,
    /// `wgmma` (`HGMMA`/`QGMMA`/`IGMMA`): the tensor cores' reads of its shared operands,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum` (not in the totals above).
    #[serde(skip_serializing_if = "is_zero")]
    pub gmma_wavefronts: u64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum`.
    #[serde(skip_serializing_if = "is_zero")]
    pub gmma_bank_conflicts: u64,
    /// `wgmma.mma_async` warp instructions executed (`sm__inst_executed_pipe_tensor_op_gmma`:
    /// four per warpgroup).
    #[serde(skip_serializing_if = "is_zero")]
    pub gmma_instructions: u64,
    /// TMA and bulk copies (`cp.async.bulk[.tensor]`: `UTMALDG`, `UTMASTG`, `UBLKCP`) executed
    /// (warp instructions): no shared-pipe counter sees them, as on the H200.
    #[serde(skip_serializing_if = "is_zero")]
    pub tma_instructions: u64,
    /// The copies they made (one per active lane).
    #[serde(skip_serializing_if = "is_zero")]
    pub tma_copies: u64,
    /// `mbarrier` operations (`SYNCS`) executed (warp instructions, a parked wait's retries
    /// included): no shared-pipe wavefronts.
    #[serde(skip_serializing_if = "is_zero")]
    pub mbarrier_instructions: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

impl SharedTotals {
    /// All shared wavefronts.
    pub fn wavefronts(&self) -> u64 {
        self.ld_wavefronts + self.st_wavefronts + self.atom_wavefronts
    }
    /// All bank conflicts.
    pub fn bank_conflicts(&self) -> u64 {
        self.ld_bank_conflicts + self.st_bank_conflicts + self.atom_bank_conflicts
    }
}

/// Which memory an instruction accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MemSpace {
    /// Shared memory (priced).
    Shared,
    /// Global memory (counted only).
    Global,
    /// Local memory (PTX `.local`, each thread's own; counted only, timed as global).
    Local,
    /// Constant memory (PTX `.const`, CUDA `__constant__`; counted only, timed as `LDC`).
    Const,
}

/// What one memory instruction did over the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstReport {
    /// Its index in the lowered code.
    pub pc: usize,
    /// 1-based line in the program file.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The source it implements.
    pub text: String,
    /// Shared or global.
    pub space: MemSpace,
    /// Load or store.
    pub op: Op,
    /// The shared array or buffer.
    pub array: String,
    /// Bytes per lane.
    pub width: u32,
    /// Warp-level executions.
    pub executions: u64,
    /// Active lanes summed over executions.
    pub lanes: u64,
    /// Shared wavefronts (null for global accesses, which are not priced).
    pub wavefronts: Option<u64>,
    /// Shared bank conflicts (null for global accesses).
    pub bank_conflicts: Option<u64>,
    /// Wavefronts it would take without conflicts (null for global accesses).
    pub ideal_wavefronts: Option<u64>,
    /// Wavefronts over the ideal, rounded: 32 for a 32-way conflict (null for global
    /// accesses).
    pub conflict_degree: Option<u64>,
    /// An atomic: its PTX name (`atom.add.u32`); `op` is then `st`. A shared one's
    /// `wavefronts`/`bank_conflicts` are its atomic counters, with a compare-and-swap loop's
    /// loads in `loop_loads`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic: Option<String>,
    /// A warp-wide matrix access or asynchronous copy: its PTX name (`ldmatrix.x4.trans`,
    /// `stmatrix.x2`, `cp.async.ca`); `width` is then a row's (16) or a lane's copy bytes. A
    /// constant load: the SASS instruction the timing model takes it for (`LDC`, `ULDC`,
    /// `ULDC.64`, `ULDC.64 (pair)` for a pair's second word: see [`ConstantTotals`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<String>,
    /// An `LDC`: its constant-cache requests, one per distinct address of each execution.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// A shared compare-and-swap loop's loads: (wavefronts, bank conflicts, trips).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_loads: Option<[u64; 3]>,
    /// Distinct words each bank served for this instruction (shared accesses, when the
    /// executor records it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_bank: Option<Vec<u64>>,
    /// One execution of a shared access (the first in the lowest block that ran it), bank by
    /// bank: which banks its lanes hit. (Its JSON key is `sample`.)
    #[serde(rename = "sample", skip_serializing_if = "Option::is_none")]
    pub first_access: Option<FirstAccessReport>,
    /// With timing: warp-cycles its warps spent waiting to issue it (and issuing it:
    /// `selected`), by Nsight's stall reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stalls: Option<StallCycles>,
}

/// Warp-cycles by Nsight stall reason, serialized as an object in Nsight's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StallCycles(pub [u64; warpsim_timing::N_REASONS]);

impl Serialize for StallCycles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            warpsim_timing::REASONS
                .iter()
                .zip(self.0)
                .map(|(r, v)| (r.name(), v)),
        )
    }
}

/// One execution of a shared-memory instruction, bank by bank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FirstAccessReport {
    /// The block it ran in.
    pub block: [u32; 3],
    /// The warp in the block.
    pub warp: u32,
    /// Active lanes.
    pub lanes: u32,
    /// Wavefronts this one execution took.
    pub wavefronts: u32,
    /// Per bank, the lanes whose access touched it.
    pub lanes_per_bank: Vec<u32>,
    /// Per bank, the distinct words it served (summed over phases).
    pub words_per_bank: Vec<u32>,
}

/// The report row of an atomic at `pc`, adding a shared one's counters to `shared` (its
/// loop's loads as loads, as Nsight counts them).
fn atomic_row(
    prog: &Program,
    stats: &Stats,
    pc: usize,
    m: warpsim_kernel::ir::Mem,
    op: warpsim_smem::AtomOp,
    shared: &mut SharedTotals,
) -> Option<InstReport> {
    let ps = stats.per_pc.get(pc).filter(|p| p.executions > 0)?;
    let (space, array, elem) = match m.space {
        Space::Shared => {
            let s = prog.shared.get(m.array as usize)?;
            (MemSpace::Shared, s.name.clone(), s.elem)
        }
        Space::Global => {
            let b = prog.buffers.get(m.array as usize)?;
            (MemSpace::Global, b.name.clone(), b.elem)
        }
        // (No atomics on local or constant memory: the executor refuses them.)
        Space::Local | Space::Const => return None,
    };
    let priced = space == MemSpace::Shared;
    let (aw, ac) = (
        ps.wavefronts - ps.loop_load_wavefronts,
        ps.conflicts - ps.loop_load_conflicts,
    );
    let ideal = aw.saturating_sub(ac);
    if priced {
        shared.atom_wavefronts += aw;
        shared.atom_bank_conflicts += ac;
        shared.atom_instructions += ps.atoms;
        shared.ideal_wavefronts += ideal + ps.loop_load_wavefronts - ps.loop_load_conflicts;
        let looped = ps.loop_load_wavefronts > 0 || ps.atoms > ps.executions;
        if looped {
            shared.ld_wavefronts += ps.loop_load_wavefronts;
            shared.ld_bank_conflicts += ps.loop_load_conflicts;
            // A loop loads once a trip; a half's word loop once (README rule 10).
            shared.ld_instructions += if elem == warpsim_kernel::Elem::F16 && m.vec == 1 {
                ps.executions
            } else {
                ps.atoms
            };
        }
    }
    let ty = match elem {
        // A pair atomic (README "Atomics"): unsigned long long on u32 words, long long on
        // i32 words, __half2 or __nv_bfloat162.
        warpsim_kernel::Elem::U32 if m.vec == 2 => "u64",
        warpsim_kernel::Elem::I32 if m.vec == 2 => "s64",
        warpsim_kernel::Elem::F16 if m.vec == 2 => "f16x2",
        warpsim_kernel::Elem::BF16 if m.vec == 2 => "bf16x2",
        warpsim_kernel::Elem::F32 => "f32",
        warpsim_kernel::Elem::F64 => "f64",
        warpsim_kernel::Elem::F16 => "f16",
        warpsim_kernel::Elem::I32 => "s32",
        _ => "u32",
    };
    let looped = priced && (ps.loop_load_wavefronts > 0 || ps.atoms > ps.executions);
    let info = prog.info.get(pc);
    Some(InstReport {
        pc,
        line: info.map_or(0, |i| i.line),
        col: info.map_or(0, |i| i.col),
        text: info.map_or_else(String::new, |i| i.text.to_string()),
        space,
        op: Op::St,
        array,
        width: elem.bytes() * m.vec as u32,
        executions: ps.executions,
        lanes: ps.lanes,
        wavefronts: priced.then_some(aw),
        bank_conflicts: priced.then_some(ac),
        ideal_wavefronts: priced.then_some(ideal),
        conflict_degree: (priced && ideal > 0).then(|| (aw as f64 / ideal as f64).round() as u64),
        // `atom.add.u32`; ATOMS.POPC.INC (an unused `atomicAdd(&x, 1)`) is `red.popc.u32`.
        atomic: Some(format!(
            "{}.{ty}",
            warpsim_smem::Atomic {
                returns: op != warpsim_smem::AtomOp::PopcInc,
                op,
                ty: None
            }
        )),
        instruction: None,
        requests: None,
        loop_loads: looped.then_some([ps.loop_load_wavefronts, ps.loop_load_conflicts, ps.atoms]),
        per_bank: None,
        first_access: None,
        stalls: None,
    })
}

fn first_access_report(
    geom: &Geometry,
    s: &warpsim_exec::FirstAccess,
) -> Option<FirstAccessReport> {
    let op = if s.store { Op::St } else { Op::Ld };
    let a = warpsim_smem::analyze(geom, op, s.width, &s.addrs, s.mask).ok()?;
    let banks = geom.banks as usize;
    let mut lanes_per_bank = vec![0u32; banks];
    let mut words_per_bank = vec![0u32; banks];
    for ph in &a.phases {
        for slot in &ph.slots {
            lanes_per_bank[slot.bank as usize] += slot.lanes.count_ones();
            words_per_bank[slot.bank as usize] += 1;
        }
    }
    Some(FirstAccessReport {
        block: s.block,
        warp: s.warp,
        lanes: s.mask.count_ones(),
        wavefronts: a.cost.wavefronts,
        lanes_per_bank,
        words_per_bank,
    })
}

/// Something the kernel did that CUDA leaves undefined, run as the H200 runs it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WarningReport {
    /// 1-based line of the instruction in the program file.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The source it implements.
    pub text: String,
    /// What happened and what to change.
    pub message: String,
}

/// The warnings of a run: shuffles that read lanes not executing them.
fn warnings(prog: &Program, stats: &Stats) -> Vec<WarningReport> {
    stats
        .per_pc
        .iter()
        .enumerate()
        .filter(|(_, ps)| ps.shfl_outside > 0)
        .map(|(pc, ps)| {
            let info = prog.info.get(pc);
            WarningReport {
                line: info.map_or(0, |i| i.line),
                col: info.map_or(0, |i| i.col),
                text: info.map_or_else(String::new, |i| i.text.to_string()),
                message: format!(
                    "this shuffle read a lane that does not execute it {} times (a source lane \
                     outside the member mask, or not active): CUDA leaves the value undefined; \
                     warpsim gives 0, as the H200 does. Shuffle only from lanes in the mask \
                     (for a partial warp, offsets below the number of members)",
                    ps.shfl_outside
                ),
            }
        })
        .collect()
}

/// How the emulator did.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Emulator {
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Thread instructions executed (active lanes summed).
    pub thread_instructions: u64,
    /// Wall time of running the blocks (not loading, filling or verifying).
    pub seconds: f64,
    /// `warp_instructions / seconds`.
    pub warp_instructions_per_second: f64,
    /// Worker threads (rayon).
    pub threads: usize,
    /// Wall time of filling the buffers.
    pub init_seconds: f64,
    /// Wall time of the verification.
    pub verify_seconds: f64,
}

/// Everything a run found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The kernel's name.
    pub kernel: String,
    /// The program file.
    pub file: String,
    /// `cuda:`/`ptx:` kernels: the stream of shared accesses that ran, `ptxas-merged` or
    /// `as-written` (`--no-merge`); absent for RON kernels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_stream: Option<&'static str>,
    /// `--relayout`: the shared array priced in another layout, and the layout
    /// (`tile=Swizzle<5,2,5>`); absent when every array is priced where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relayout: Option<String>,
    /// Every define with the value in force, in declaration order.
    pub defines: Defines,
    /// Grid, block and shared memory per block.
    pub launch: LaunchReport,
    /// The bank geometry.
    pub geometry: Geometry,
    /// Shared-memory counters.
    pub shared: SharedTotals,
    /// Constant-memory counters (absent when the kernel reads no constant memory).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constant: Option<ConstantTotals>,
    /// Modelled warp-cycles stalled on the shared-memory pipe: `mio_throttle` plus
    /// `short_scoreboard` (waiting for shared loads), summed over all warps (0 without
    /// timing). The conflict counts are in `shared`.
    pub stall_cycles: u64,
    /// One entry per memory instruction that executed, in program order.
    pub per_instruction: Vec<InstReport>,
    /// Distinct words each bank served, over all shared accesses.
    pub per_bank: Vec<u64>,
    /// Whether every buffer with an `expect` matched (null when none has one, or with
    /// `--no-verify`).
    pub verified: Option<bool>,
    /// One verdict per checked buffer.
    pub verification: Vec<Verdict>,
    /// Shared-memory races, one per kind and pair of instructions (null without
    /// `--racecheck`).
    pub races: Option<Vec<RaceReport>>,
    /// What the kernel did that CUDA leaves undefined and warpsim ran as the H200 does (absent
    /// when nothing).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<WarningReport>,
    /// What the kernel's `printf`s printed, blocks in grid order, warps in the order they ran,
    /// lanes in order (absent when nothing); the CLI writes it to stderr.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub printf: String,
    /// Bytes of `printf` text dropped past the GPU's 1 MiB buffer (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub printf_dropped: u64,
    /// The timing model's estimate (null with `--no-timing`).
    pub timing: Option<Timing>,
    /// With timing: the source lines warps waited at longest (the table shows them).
    #[serde(skip)]
    pub line_stalls: Vec<time_report::LineStalls>,
    /// Speed of the emulator.
    pub emulator: Emulator,
}

impl Report {
    /// Pretty JSON.
    pub fn to_json(&self) -> String {
        // Serializing plain data into a String cannot fail; keep a fallback anyway.
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\": \"cannot serialize the report: {e}\"}}"))
    }

    /// The instructions that cost most: by bank conflicts, then wavefronts, then program
    /// order; global accesses last.
    pub fn costliest(&self, n: usize) -> Vec<&InstReport> {
        let mut v: Vec<&InstReport> = self.per_instruction.iter().collect();
        v.sort_by_key(|i| {
            (
                std::cmp::Reverse(i.bank_conflicts.unwrap_or(0)),
                std::cmp::Reverse(i.wavefronts.unwrap_or(0)),
                i.space != MemSpace::Shared,
                i.pc,
            )
        });
        v.truncate(n);
        v
    }

    /// `wavefronts / ideal` over all shared accesses (1 when there are none).
    pub fn cost_over_ideal(&self) -> f64 {
        if self.shared.ideal_wavefronts == 0 {
            1.0
        } else {
            self.shared.wavefronts() as f64 / self.shared.ideal_wavefronts as f64
        }
    }
}

/// The words each bank served for instruction `pc` ([`Stats::per_pc_bank`]).
fn inst_banks(stats: &Stats, pc: usize, banks: usize) -> Option<Vec<u64>> {
    stats
        .per_pc_bank
        .get(pc * banks..(pc + 1) * banks)
        .map(<[u64]>::to_vec)
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    prog: &Program,
    geom: Geometry,
    blocks: u64,
    stats: &Stats,
    verified: Option<bool>,
    verification: Vec<Verdict>,
    emulator: Emulator,
    timing: Option<Timing>,
) -> Report {
    let mut shared = SharedTotals::default();
    let mut per_instruction = Vec::new();
    for (pc, inst) in prog.code.iter().enumerate() {
        if let Some((m, op)) = inst.atomic() {
            if let Some(mut row) = atomic_row(prog, stats, pc, m, op, &mut shared) {
                row.stalls = timing
                    .as_ref()
                    .and_then(|t| t.detail.per_pc.get(pc))
                    .map(|c| StallCycles(*c));
                per_instruction.push(row);
            }
            continue;
        }
        let Some((m, store)) = inst.mem() else {
            if let Some(row) = tensor_rows::row(prog, stats, pc, &mut shared, timing.as_ref()) {
                per_instruction.push(row);
            }
            continue;
        };
        let Some(ps) = stats.per_pc.get(pc) else {
            continue;
        };
        if ps.executions == 0 {
            continue;
        }
        let (space, array, elem) = match m.space {
            Space::Shared => match prog.shared.get(m.array as usize) {
                Some(s) => (MemSpace::Shared, s.name.clone(), s.elem),
                None => continue,
            },
            Space::Global => match prog.buffers.get(m.array as usize) {
                Some(b) => (MemSpace::Global, b.name.clone(), b.elem),
                None => continue,
            },
            Space::Local => match prog.local.get(m.array as usize) {
                Some(l) => (MemSpace::Local, l.name.clone(), l.elem),
                None => continue,
            },
            Space::Const => match prog.buffers.get(m.array as usize) {
                Some(b) => (MemSpace::Const, b.name.clone(), b.elem),
                None => continue,
            },
        };
        let elem = m.elem.unwrap_or(elem);
        let op = if store { Op::St } else { Op::Ld };
        let info = prog.info.get(pc);
        let priced = space == MemSpace::Shared;
        let ideal = ps.wavefronts.saturating_sub(ps.conflicts);
        if priced {
            let (w, c, i) = match op {
                Op::Ld => (
                    &mut shared.ld_wavefronts,
                    &mut shared.ld_bank_conflicts,
                    &mut shared.ld_instructions,
                ),
                Op::St => (
                    &mut shared.st_wavefronts,
                    &mut shared.st_bank_conflicts,
                    &mut shared.st_instructions,
                ),
            };
            *w += ps.wavefronts;
            *c += ps.conflicts;
            *i += ps.executions;
            shared.ideal_wavefronts += ideal;
        }
        per_instruction.push(InstReport {
            pc,
            line: info.map_or(0, |i| i.line),
            col: info.map_or(0, |i| i.col),
            text: info.map_or_else(String::new, |i| i.text.to_string()),
            space,
            op,
            array,
            width: m.vec as u32 * elem.bytes(),
            executions: ps.executions,
            lanes: ps.lanes,
            wavefronts: priced.then_some(ps.wavefronts),
            bank_conflicts: priced.then_some(ps.conflicts),
            ideal_wavefronts: priced.then_some(ideal),
            conflict_degree: (priced && ideal > 0)
                .then(|| (ps.wavefronts as f64 / ideal as f64).round() as u64),
            atomic: None,
            instruction: None,
            requests: None,
            loop_loads: None,
            per_bank: if priced {
                inst_banks(stats, pc, geom.banks as usize)
            } else {
                None
            },
            first_access: stats
                .first_accesses
                .get(pc)
                .and_then(|s| s.as_deref())
                .and_then(|s| first_access_report(&geom, s)),
            stalls: timing
                .as_ref()
                .and_then(|t| t.detail.per_pc.get(pc))
                .map(|c| StallCycles(*c)),
        });
    }
    Report {
        kernel: prog.name.clone(),
        file: prog.path.clone(),
        shared_stream: prog.shared_stream,
        relayout: None,
        defines: Defines(prog.defines.clone()),
        launch: LaunchReport {
            grid: prog.grid,
            block: prog.block,
            blocks,
            threads_per_block: prog.threads_per_block(),
            shared_bytes: prog.shared_bytes,
        },
        geometry: geom,
        stall_cycles: timing.as_ref().map_or(0, |t| t.detail.shared_stall_cycles),
        shared,
        constant: constant::totals(prog, stats, &mut per_instruction),
        per_instruction,
        per_bank: stats.per_bank.clone(),
        verified,
        verification,
        races: None,
        warnings: warnings(prog, stats),
        printf: String::from_utf8_lossy(&stats.printf.text).into_owned(),
        printf_dropped: stats.printf.dropped,
        line_stalls: timing
            .as_ref()
            .map(|t| time_report::line_stalls(prog, t, 8))
            .unwrap_or_default(),
        timing,
        emulator,
    }
}
