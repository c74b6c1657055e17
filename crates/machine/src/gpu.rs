//! The GPU description: a RON file (`presets/h200.ron` is built in) giving the SM count,
//! clock, residency limits, latencies and bandwidths the model runs with.

use serde::{Deserialize, Serialize};
use std::sync::Arc;
use warpsim_kernel::{Diag, Phase};

/// The built-in H200 preset (the default `--gpu`).
pub const H200_RON: &str = include_str!("../presets/h200.ron");

/// Largest GPU description read by default, in bytes (1 MiB: the H200's is 6 KiB;
/// `WARPSIM_MAX_FILE_BYTES` sets another).
pub const MAX_GPU_BYTES: u64 = 1 << 20;

/// A GPU as the timing model sees it. Every field is documented in `presets/h200.ron` with
/// where its value comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Its name in reports.
    pub name: String,
    /// SM clock, MHz (cycles become nanoseconds with it).
    pub clock_mhz: f64,
    /// Streaming multiprocessors.
    pub sms: u32,
    /// Sub-partitions (warp schedulers) per SM, each issuing at most one warp instruction a
    /// cycle.
    pub sub_partitions: u32,
    /// What one SM can hold at once.
    pub residency: Residency,
    /// Registers per thread when neither the program nor `--regs` says.
    pub default_regs_per_thread: u32,
    /// Shared-memory banks (the bank model's geometry unless `--banks` overrides it).
    pub banks: u32,
    /// Bytes per bank word.
    pub bank_bytes: u32,
    /// The shared-memory pipe.
    pub shared: SharedPipe,
    /// The memory-instruction queue.
    pub memory_queue: MemoryQueue,
    /// Issue rates of the arithmetic pipes.
    pub issue: IssueRate,
    /// Fixed latencies by instruction class.
    pub latency: Latency,
    /// Global memory.
    pub global: GlobalMem,
    /// `bar.sync`: the last warp's arrival to the release, `base + per_warp * W`.
    pub barrier: Barrier,
    /// Kernel launch and block dispatch.
    pub launch: LaunchCost,
    /// What the timing model assumes of the compiler that would build the kernel for this
    /// GPU (warpsim's lowered code is not SASS).
    #[serde(default)]
    pub compiler: Compiler,
}

/// Assumptions about the code the GPU's compiler would emit, where warpsim's lowered code
/// differs from SASS.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Compiler {
    /// How far ahead, in instructions of a warp's trace, a warp whose next instruction waits
    /// may issue a later independent load or arithmetic instruction first, as the compiler
    /// hoists loads and their address arithmetic (1: in program order only; at most
    /// [`MAX_HOIST_WINDOW`]).
    pub hoist_window: u32,
    /// The longest `if` body, in issued instructions, that the compiler predicates rather than
    /// branches over: every warp issues such a body, predicated off where no lane takes it
    /// (0: none; at most [`MAX_IF_CONVERT`]). A description without it: 10.
    #[serde(default = "default_if_convert")]
    pub if_convert: u32,
}

/// The largest [`Compiler::if_convert`].
pub const MAX_IF_CONVERT: u32 = 64;

fn default_if_convert() -> u32 {
    10
}

/// The largest [`Compiler::hoist_window`] the model can track (a bit per instruction ahead).
pub const MAX_HOIST_WINDOW: u32 = 64;

impl Default for Compiler {
    /// A description without a `compiler` section: the H200 preset's assumptions.
    fn default() -> Self {
        Compiler {
            hoist_window: 24,
            if_convert: default_if_convert(),
        }
    }
}

/// Per-SM residency limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Residency {
    /// Resident warps.
    pub warps: u32,
    /// Resident threads.
    pub threads: u32,
    /// Resident blocks.
    pub blocks: u32,
    /// 32-bit registers.
    pub registers: u32,
    /// Registers are allocated per warp in multiples of this.
    pub register_unit: u32,
    /// Shared memory, bytes.
    pub shared_bytes: u32,
    /// Shared memory the system reserves per block, bytes.
    pub shared_per_block: u32,
}

/// The shared-memory pipe of an SM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedPipe {
    /// Instructions it serves at once (all warps of the SM share them).
    pub servers: u32,
    /// Cycles one instruction spends per wavefront (the SM serves `servers /
    /// cycles_per_wavefront` wavefronts a cycle).
    pub cycles_per_wavefront: u32,
    /// A load's result is ready this many cycles after its wavefronts are served (a lone load
    /// of N wavefronts: `cycles_per_wavefront * N + latency_base`).
    pub latency_base: u32,
    /// Wavefronts a 128-byte line of a global load's data takes of a server when it comes
    /// back (the L1 is the shared memory's SRAM): it waits for the end of the instruction the
    /// server is in, and a server serves an instruction between two lines. 0: the data does
    /// not use the pipe.
    pub return_wavefronts: u32,
}

/// The SM's queue of memory instructions (shared and global, loads and stores): each
/// sub-partition's own queue feeds an SM-wide stage, taken in turn; the stage is in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryQueue {
    /// Instructions each sub-partition's own queue holds while the stage is full.
    pub per_sub_partition: u32,
    /// Instructions the SM-wide stage holds, from any sub-partition, served in the order they
    /// entered it. A warp whose next memory instruction finds both full stalls
    /// (`mio_throttle` for shared, `lg_throttle` for global).
    pub shared_stage: u32,
    /// A sub-partition sends at most one memory instruction every this many cycles.
    pub issue_interval: u32,
}

/// Cycles between two instructions of one kind from one sub-partition (the pipe's rate); a
/// warp whose next instruction finds its pipe busy stalls (`math_pipe_throttle`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IssueRate {
    /// Integer arithmetic, moves, compares, selects, branches.
    pub int: u32,
    /// f32 arithmetic.
    pub fp32: u32,
    /// f64 arithmetic.
    pub fp64: u32,
    /// Division, remainder, square root, conversions.
    pub slow: u32,
    /// Tensor-core matrix multiplies (`mma.sync`), whatever their shape.
    #[serde(default = "tensor_issue")]
    pub tensor: u32,
}

/// Cycles from an instruction's issue until a dependent instruction may issue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// Integer and f32 arithmetic, moves.
    pub alu: u32,
    /// f64 arithmetic.
    pub fp64: u32,
    /// Division, remainder, square root, conversions.
    pub slow: u32,
    /// Branches (ifs, loop tests): the warp issues again this many cycles later.
    pub branch: u32,
    /// Tensor-core matrix multiplies (`mma.sync`).
    #[serde(default = "tensor_latency")]
    pub tensor: u32,
}

/// Global memory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GlobalMem {
    /// Accesses are split into sectors of this many bytes (coalescing).
    pub sector_bytes: u32,
    /// The SM's global path moves whole lines of this many bytes.
    pub line_bytes: u32,
    /// Load latency of an L1 hit (not used yet: global loads are not kept in L1).
    pub l1_hit: u32,
    /// Load latency of an L2 hit.
    pub l2_hit: u32,
    /// Load latency of an L2 miss (DRAM), without queueing.
    pub dram: u32,
    /// DRAM bandwidth of the whole GPU, bytes per cycle, shared by reads and write-backs.
    pub dram_bytes_per_cycle: f64,
    /// DRAM reads one SM can have served per cycle.
    pub sm_read_bytes_per_cycle: f64,
    /// Channels the DRAM's bandwidth is split into, each serving its requests in order
    /// (1: one queue for the whole GPU).
    #[serde(default = "one")]
    pub dram_channels: u32,
    /// Consecutive bytes that go to one channel; which channel serves each such chunk is a
    /// fixed hash of its address.
    #[serde(default = "interleave")]
    pub dram_interleave_bytes: u32,
    /// What a DRAM read takes beyond `dram`, in cycles, one entry per equally likely case:
    /// each interleave-sized chunk takes the entry a fixed hash of its address picks (the
    /// H200's: 32 quantiles of the read latency at an idle DRAM less their mean,
    /// `calibration/probes/dram_latency`). Empty: every read takes `dram`.
    #[serde(default)]
    pub dram_spread: Vec<i32>,
    /// Cycles the SM's global path spends per line of a load.
    pub load_cycles_per_line: u32,
    /// Cycles the SM's global path spends per line of a store.
    pub store_cycles_per_line: u32,
    /// Cycles after a store leaves the SM until it is acknowledged (an exited warp waits:
    /// `drain`).
    pub store_ack: u32,
}

fn one() -> u32 {
    1
}

/// `issue.tensor` of a description that does not give it (the H200 preset's).
fn tensor_issue() -> u32 {
    6
}

/// `latency.tensor` of a description that does not give it (the H200 preset's).
fn tensor_latency() -> u32 {
    24
}

fn interleave() -> u32 {
    256
}

/// Barrier cost.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Barrier {
    /// Cycles for a block of no warps.
    pub base: f64,
    /// Cycles per warp of the block.
    pub per_warp: f64,
}

/// Launch costs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchCost {
    /// Cycles the kernel takes beyond its busiest SM (launch, teardown).
    pub overhead_cycles: u32,
    /// Cycles between two blocks starting on one SM.
    pub block_interval: u32,
    /// Cycles after a block ends before its SM takes another.
    pub refill_cycles: u32,
    /// Blocks sent into freed slots leave the dispatcher at most one every this many
    /// cycles, for the whole GPU (the first wave starts on all SMs at once).
    pub dispatch_cycles_per_block: f64,
    /// Extra cycles before the first block on an SM can issue (a cold instruction cache).
    pub icache_cold_cycles: u32,
}

impl Gpu {
    /// The GPU that sampled timing simulates (`--sample k`, `k` dividing `sms`): one SM in
    /// `k`, for one block in `k`. What all SMs share is kept whole: the L2 and the DRAM, whose
    /// channels and bandwidth also serve the global accesses of the blocks not simulated
    /// (`warpsim_timing::BlockTrace::take_shadows`); the dispatcher hands out blocks `k` times as far
    /// apart.
    pub fn sampled(&self, k: u32) -> Gpu {
        let mut g = self.clone();
        if k > 1 {
            g.sms = self.sms / k;
            g.launch.dispatch_cycles_per_block *= k as f64;
        }
        g
    }

    /// The built-in H200.
    pub fn h200() -> Gpu {
        Gpu::parse("presets/h200.ron", H200_RON).expect("the built-in preset parses")
    }

    /// A built-in preset by name (`h200`, any case), else a file.
    pub fn named_or_file(name: &str) -> Result<Gpu, Diag> {
        if name.eq_ignore_ascii_case("h200") {
            return Ok(Gpu::h200());
        }
        let src =
            warpsim_kernel::input::read_text_capped(std::path::Path::new(name), MAX_GPU_BYTES)
                .map_err(|e| {
                    let help = match e {
                        warpsim_kernel::input::InputError::Io(_) => {
                            "--gpu takes a preset name (h200) or a RON file like \
                         crates/machine/presets/h200.ron"
                                .into()
                        }
                        _ => e.help(),
                    };
                    Diag::file(
                        Phase::Syntax,
                        name,
                        format!("cannot read the GPU description: {e}"),
                        Some(help),
                    )
                })?;
        Gpu::parse(name, &src)
    }

    /// Parses a description; `path` names it in messages.
    pub fn parse(path: &str, src: &str) -> Result<Gpu, Diag> {
        let src: Arc<str> = Arc::from(src);
        let gpu: Gpu = warpsim_kernel::diag::parse_ron(
            path,
            &src,
            "see crates/machine/presets/h200.ron for every field of a GPU description",
        )?;
        crate::check::check(&gpu, path, &src)?;
        Ok(gpu)
    }

    /// Registers a block of `threads` threads takes at `regs` registers per thread.
    pub fn block_registers(&self, threads: u32, regs: u32) -> u64 {
        let unit = self.residency.register_unit as u64;
        let per_warp = (regs as u64 * 32).div_ceil(unit) * unit;
        per_warp * threads.div_ceil(32) as u64
    }

    /// Blocks of `threads` threads at `regs` registers each and `shared_bytes` of shared
    /// memory that one SM holds at once (0: none fits).
    pub fn blocks_per_sm(&self, threads: u32, regs: u32, shared_bytes: u32) -> u64 {
        self.block_needs(threads, regs, shared_bytes)
            .iter()
            .map(|&(need, have, _)| have / need.max(1))
            .fold(self.residency.blocks as u64, u64::min)
    }

    /// What a block of `threads` threads at `regs` registers each with `shared_bytes` of
    /// shared memory takes of an SM, against what the SM has: (need, have, what) for its
    /// warps, threads, registers and shared memory (with the per-block reserve).
    pub fn block_needs(&self, threads: u32, regs: u32, shared_bytes: u32) -> [(u64, u64, &str); 4] {
        let r = &self.residency;
        [
            (threads.div_ceil(32) as u64, r.warps as u64, "warps"),
            (threads as u64, r.threads as u64, "threads"),
            (
                self.block_registers(threads, regs),
                r.registers as u64,
                "registers",
            ),
            (
                shared_bytes as u64 + r.shared_per_block as u64,
                r.shared_bytes as u64,
                "bytes of shared memory",
            ),
        ]
    }

    /// The `--sample` a launch of `blocks` blocks gets by default (README, "Sampled timing"):
    /// when the grid fills the GPU at least [`AUTO_SAMPLE_WAVES`] times (`per_sm` blocks an SM),
    /// the largest divisor of the SMs up to [`AUTO_SAMPLE_MAX`] that leaves at least
    /// [`AUTO_SAMPLE_MIN_SMS`] SMs; else 1 (every block).
    pub fn auto_sample(&self, blocks: u64, per_sm: u64) -> u32 {
        if blocks < AUTO_SAMPLE_WAVES * self.sms as u64 * per_sm.max(1) {
            return 1;
        }
        (1..=AUTO_SAMPLE_MAX)
            .rev()
            .find(|&k| self.sms.is_multiple_of(k) && self.sms / k >= AUTO_SAMPLE_MIN_SMS)
            .unwrap_or(1)
    }
}

/// Waves from which a grid is sampled by default.
pub const AUTO_SAMPLE_WAVES: u64 = 8;
/// The largest K the default sampling takes.
pub const AUTO_SAMPLE_MAX: u32 = 12;
/// The fewest SMs the default sampling simulates.
pub const AUTO_SAMPLE_MIN_SMS: u32 = 8;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_grids_are_sampled_by_default() {
        let g = Gpu::h200();
        // The transpose: 256 threads, 28 registers, 4 KiB of shared memory: 8 an SM.
        let per = g.blocks_per_sm(256, 28, 4096);
        assert_eq!(per, 8);
        // matmul TILE=32: 1,024 threads.
        assert_eq!(g.blocks_per_sm(1024, 29, 8192), 2);
        assert_eq!(g.auto_sample(8 * 132 * 8 - 1, per), 1);
        assert_eq!(g.auto_sample(8 * 132 * 8, per), 12);
        // Other machines: the largest divisor up to 12 leaving at least 8 SMs.
        let mut other = g.clone();
        other.sms = 20;
        assert_eq!(other.auto_sample(1 << 30, per), 2);
        other.sms = 8;
        assert_eq!(other.auto_sample(1 << 30, per), 1);
    }

    #[test]
    fn builtin_parses() {
        let g = Gpu::h200();
        assert_eq!(g.sms, 132);
        assert_eq!(g.block_registers(256, 28), 8192);
    }

    #[test]
    fn bad_field_points_at_line() {
        let src = H200_RON.replace("sms: 132,", "sms: 132, smz: 1,");
        let e = Gpu::parse("x.ron", &src).unwrap_err();
        assert!(e.location.starts_with("x.ron:"), "{}", e.location);
        assert!(e.line().is_some());
        assert!(e.message.contains("smz"), "{}", e.message);
        let src = H200_RON.replace("sms: 132,", "sms: 0,");
        let e = Gpu::parse("x.ron", &src).unwrap_err();
        assert!(e.message.contains("sms"), "{}", e.message);
        for bad in ["dram_channels: 0,", "dram_channels: 4000000000,"] {
            let src = H200_RON.replace("dram_channels: 192,", bad);
            let e = Gpu::parse("x.ron", &src).unwrap_err();
            assert!(e.message.contains("global.dram_channels"), "{}", e.message);
        }
        for bad in ["hoist_window: 0", "hoist_window: 65"] {
            let src = H200_RON.replace("hoist_window: 24", bad);
            let e = Gpu::parse("x.ron", &src).unwrap_err();
            assert!(e.message.contains("compiler.hoist_window"), "{}", e.message);
        }
        let src = H200_RON.replace("if_convert: 10,", "if_convert: 65,");
        let e = Gpu::parse("x.ron", &src).unwrap_err();
        assert!(e.message.contains("compiler.if_convert"), "{}", e.message);
    }

    #[test]
    fn a_description_without_a_compiler_section_gets_the_presets_assumption() {
        let h = Gpu::h200();
        let start = H200_RON
            .find("    compiler: (")
            .expect("the preset declares it");
        let end = start + H200_RON[start..].find("),\n").unwrap() + 3;
        let old = format!("{}{}", &H200_RON[..start], &H200_RON[end..]);
        let g = Gpu::parse("old.ron", &old).unwrap();
        assert_eq!(g.compiler, h.compiler);
        assert_eq!(g.compiler.hoist_window, 24);
        // A `compiler` section of before `if_convert` gets the preset's 10.
        let g = Gpu::parse("old.ron", &H200_RON.replace("if_convert: 10,", "")).unwrap();
        assert_eq!(g.compiler.if_convert, 10);
    }
}
