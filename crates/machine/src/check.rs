//! The GPU description's values checked field by field against physical ranges before any
//! work: each error at the field's file:line:col, naming the range.
//!
//! The ranges are wide (a GPU many times the H200's in every respect fits) but bounded, so
//! that nothing the timing model computes from them can wrap or allocate without bound: every
//! count is at most a few thousand (the model keeps a record per SM, per sub-partition, per
//! server, per channel), every latency and cost at most [`MAX_CYCLES`] cycles (so cycle
//! counts stay far below 2^63 for any grid warpsim runs), every bandwidth finite.

use crate::locate::field_offsets;
use crate::Gpu;
use std::sync::Arc;
use warpsim_kernel::{Diag, Phase};

/// The longest latency or cost a description may give, in cycles (a million: the H200's
/// longest, the launch overhead, is 2,940).
pub const MAX_CYCLES: f64 = 1e6;

/// One value's allowed range.
struct Rule {
    /// Dotted path in the file.
    path: &'static str,
    value: f64,
    min: f64,
    max: f64,
    /// What the value counts, for the message.
    unit: &'static str,
}

fn rule(path: &'static str, value: impl Into<f64>, min: f64, max: f64, unit: &'static str) -> Rule {
    Rule {
        path,
        value: value.into(),
        min,
        max,
        unit,
    }
}

/// Every range rule of `g`.
fn rules(g: &Gpu) -> Vec<Rule> {
    let r = &g.residency;
    let (sh, q, is, lat, gl, bar, la) = (
        &g.shared,
        &g.memory_queue,
        &g.issue,
        &g.latency,
        &g.global,
        &g.barrier,
        &g.launch,
    );
    let c = MAX_CYCLES;
    vec![
        rule("clock_mhz", g.clock_mhz, 1.0, 100_000.0, "MHz"),
        rule("sms", g.sms, 1.0, 4096.0, "SMs"),
        rule(
            "sub_partitions",
            g.sub_partitions,
            1.0,
            64.0,
            "sub-partitions",
        ),
        rule("residency.warps", r.warps, 1.0, 4096.0, "warps"),
        rule("residency.threads", r.threads, 1.0, 131_072.0, "threads"),
        rule("residency.blocks", r.blocks, 1.0, 4096.0, "blocks"),
        rule(
            "residency.registers",
            r.registers,
            1.0,
            16_777_216.0,
            "registers",
        ),
        rule(
            "residency.register_unit",
            r.register_unit,
            1.0,
            65_536.0,
            "registers",
        ),
        rule(
            "residency.shared_bytes",
            r.shared_bytes,
            1.0,
            2_147_483_648.0,
            "bytes",
        ),
        rule(
            "residency.shared_per_block",
            r.shared_per_block,
            0.0,
            1_048_576.0,
            "bytes",
        ),
        rule(
            "default_regs_per_thread",
            g.default_regs_per_thread,
            1.0,
            255.0,
            "registers",
        ),
        rule("banks", g.banks, 1.0, 1024.0, "banks"),
        rule("bank_bytes", g.bank_bytes, 4.0, 64.0, "bytes"),
        rule("shared.servers", sh.servers, 1.0, 64.0, "servers"),
        rule(
            "shared.cycles_per_wavefront",
            sh.cycles_per_wavefront,
            1.0,
            1024.0,
            "cycles",
        ),
        rule("shared.latency_base", sh.latency_base, 0.0, c, "cycles"),
        rule(
            "shared.return_wavefronts",
            sh.return_wavefronts,
            0.0,
            1024.0,
            "wavefronts",
        ),
        rule(
            "memory_queue.per_sub_partition",
            q.per_sub_partition,
            1.0,
            4096.0,
            "instructions",
        ),
        rule(
            "memory_queue.shared_stage",
            q.shared_stage,
            1.0,
            4096.0,
            "instructions",
        ),
        rule(
            "memory_queue.issue_interval",
            q.issue_interval,
            0.0,
            c,
            "cycles",
        ),
        rule("issue.int", is.int, 0.0, c, "cycles"),
        rule("issue.fp32", is.fp32, 0.0, c, "cycles"),
        rule("issue.fp64", is.fp64, 0.0, c, "cycles"),
        rule("issue.slow", is.slow, 0.0, c, "cycles"),
        rule("issue.tensor", is.tensor, 0.0, c, "cycles"),
        rule("latency.alu", lat.alu, 0.0, c, "cycles"),
        rule("latency.fp64", lat.fp64, 0.0, c, "cycles"),
        rule("latency.slow", lat.slow, 0.0, c, "cycles"),
        rule("latency.branch", lat.branch, 0.0, c, "cycles"),
        rule("latency.tensor", lat.tensor, 0.0, c, "cycles"),
        rule("global.sector_bytes", gl.sector_bytes, 1.0, 4096.0, "bytes"),
        rule("global.line_bytes", gl.line_bytes, 1.0, 65_536.0, "bytes"),
        rule("global.l1_hit", gl.l1_hit, 0.0, c, "cycles"),
        rule("global.l2_hit", gl.l2_hit, 0.0, c, "cycles"),
        rule("global.dram", gl.dram, 0.0, c, "cycles"),
        rule(
            "global.dram_bytes_per_cycle",
            gl.dram_bytes_per_cycle,
            1.0,
            1e7,
            "bytes a cycle",
        ),
        rule(
            "global.sm_read_bytes_per_cycle",
            gl.sm_read_bytes_per_cycle,
            1.0,
            1e6,
            "bytes a cycle",
        ),
        rule(
            "global.dram_channels",
            gl.dram_channels,
            1.0,
            65_536.0,
            "channels",
        ),
        rule(
            "global.dram_interleave_bytes",
            gl.dram_interleave_bytes,
            1.0,
            1_073_741_824.0,
            "bytes",
        ),
        rule(
            "global.dram_spread",
            gl.dram_spread.len() as f64,
            0.0,
            4096.0,
            "entries",
        ),
        rule(
            "global.load_cycles_per_line",
            gl.load_cycles_per_line,
            0.0,
            c,
            "cycles",
        ),
        rule(
            "global.store_cycles_per_line",
            gl.store_cycles_per_line,
            0.0,
            c,
            "cycles",
        ),
        rule("global.store_ack", gl.store_ack, 0.0, c, "cycles"),
        rule("barrier.base", bar.base, 0.0, c, "cycles"),
        rule("barrier.per_warp", bar.per_warp, 0.0, c, "cycles"),
        rule(
            "launch.overhead_cycles",
            la.overhead_cycles,
            0.0,
            c,
            "cycles",
        ),
        rule("launch.block_interval", la.block_interval, 0.0, c, "cycles"),
        rule("launch.refill_cycles", la.refill_cycles, 0.0, c, "cycles"),
        rule(
            "launch.dispatch_cycles_per_block",
            la.dispatch_cycles_per_block,
            0.0,
            c,
            "cycles",
        ),
        rule(
            "compiler.hoist_window",
            g.compiler.hoist_window as f64,
            1.0,
            crate::gpu::MAX_HOIST_WINDOW as f64,
            "instructions",
        ),
        rule(
            "compiler.if_convert",
            g.compiler.if_convert as f64,
            0.0,
            crate::gpu::MAX_IF_CONVERT as f64,
            "instructions",
        ),
        rule(
            "launch.icache_cold_cycles",
            la.icache_cold_cycles,
            0.0,
            c,
            "cycles",
        ),
    ]
}

/// Writes `n` with thousands separators (or as it is when it is not a whole number).
fn num(n: f64) -> String {
    if !n.is_finite() {
        return format!("{n}");
    }
    if n != 0.0 && (n.abs() < 1e-3 || n.abs() >= 1e15) {
        return format!("{n:e}");
    }
    if n.fract() != 0.0 {
        return format!("{n}");
    }
    let s = format!("{}", n.abs() as u64);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// Checks every value of `g` parsed from `src` (named `path`); the first one out of range is
/// an error at its place in the file.
pub(crate) fn check(g: &Gpu, path: &str, src: &Arc<str>) -> Result<(), Diag> {
    let fields = field_offsets(src);
    let at = |field: &str, message: String, help: String| {
        // The field's value, or the file when it was left to its default.
        match fields.iter().rev().find(|(k, _)| k == field) {
            Some(&(_, off)) => Diag::at(Phase::Check, path, src, off, 1, message, Some(help)),
            None => Diag::file(Phase::Check, path, message, Some(help)),
        }
    };
    for r in rules(g) {
        if r.value.is_nan() || r.value < r.min || r.value > r.max {
            return Err(at(
                r.path,
                format!(
                    "`{}` is {}: it must be from {} to {} {}",
                    r.path,
                    num(r.value),
                    num(r.min),
                    num(r.max),
                    r.unit
                ),
                format!(
                    "give `{}` a value in that range (a GPU description's values are physical \
                     quantities; see crates/machine/presets/h200.ron for the H200's)",
                    r.path
                ),
            ));
        }
    }
    let name_bad = g.name.chars().count() > 200 || g.name.chars().any(char::is_control);
    if g.name.is_empty() || name_bad {
        return Err(at(
            "name",
            "`name` must be 1 to 200 characters with no control characters".into(),
            "name the GPU in plain text, e.g. \"H200\"".into(),
        ));
    }
    let gl = &g.global;
    if let Some(&e) = gl.dram_spread.iter().find(|&&e| {
        let total = gl.dram as f64 + e as f64;
        !(0.0..=MAX_CYCLES).contains(&total)
    }) {
        return Err(at(
            "global.dram_spread",
            format!(
                "`global.dram_spread` has {e}: `global.dram` ({}) plus every entry must be from \
                 0 to {} cycles",
                num(gl.dram as f64),
                num(MAX_CYCLES)
            ),
            "the spread is each read's latency less `global.dram`".into(),
        ));
    }
    if gl.line_bytes < gl.sector_bytes {
        return Err(at(
            "global.line_bytes",
            format!(
                "`global.line_bytes` ({}) is smaller than `global.sector_bytes` ({})",
                gl.line_bytes, gl.sector_bytes
            ),
            "a line holds whole sectors (the H200's: 128 and 32)".into(),
        ));
    }
    // Each channel's calendar has a slot per 16 cycles; a channel slower than a sector a slot
    // would keep a slot per 16 cycles of every read's wait.
    let least = gl.sector_bytes as f64 * gl.dram_channels as f64 / 16.0;
    if gl.dram_bytes_per_cycle < least {
        return Err(at(
            "global.dram_bytes_per_cycle",
            format!(
                "`global.dram_bytes_per_cycle` ({}) over {} channels is less than a sector \
                 ({} bytes) per channel every 16 cycles: at least {} bytes a cycle",
                gl.dram_bytes_per_cycle,
                gl.dram_channels,
                gl.sector_bytes,
                num(least.ceil())
            ),
            "raise the bandwidth or lower `global.dram_channels`".into(),
        ));
    }
    let r = &g.residency;
    if r.shared_per_block >= r.shared_bytes {
        return Err(at(
            "residency.shared_per_block",
            format!(
                "`residency.shared_per_block` ({}) leaves nothing of `residency.shared_bytes` \
                 ({}) to a block",
                r.shared_per_block, r.shared_bytes
            ),
            "the per-block reserve is a small part of an SM's shared memory (H200: 1,024 of \
             233,472)"
                .into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{Gpu, H200_RON};

    fn err(from: &str, to: &str) -> warpsim_kernel::Diag {
        assert!(H200_RON.contains(from), "{from}");
        Gpu::parse("g.ron", &H200_RON.replacen(from, to, 1)).unwrap_err()
    }

    #[test]
    fn values_out_of_range_are_refused_at_their_place() {
        for (from, to, says) in [
            (
                "sms: 132,",
                "sms: 1000000000,",
                "`sms` is 1,000,000,000: it must be from 1 to 4,096",
            ),
            ("servers: 2,", "servers: 1000000,", "`shared.servers`"),
            (
                "sub_partitions: 4,",
                "sub_partitions: 100000000,",
                "`sub_partitions`",
            ),
            (
                "dram_bytes_per_cycle: 2228.0",
                "dram_bytes_per_cycle: inf",
                "is inf",
            ),
            (
                "sm_read_bytes_per_cycle: 64.0",
                "sm_read_bytes_per_cycle: 1e-10",
                "1e-10",
            ),
            ("(base: 12.65,", "(base: 1e18,", "`barrier.base`"),
            ("(base: 12.65,", "(base: NaN,", "`barrier.base` is NaN"),
            ("clock_mhz: 1980", "clock_mhz: -1", "`clock_mhz`"),
            (
                "store_ack: 15,",
                "store_ack: 4000000000,",
                "`global.store_ack`",
            ),
            ("-209,", "-2000,", "`global.dram_spread` has -2000"),
            ("line_bytes: 128,", "line_bytes: 16,", "smaller than"),
            (
                "shared_per_block: 1024,",
                "shared_per_block: 233472,",
                "leaves nothing",
            ),
            (
                "name: \"H200\"",
                "name: \"a\\u{1b}[2Jb\"",
                "control characters",
            ),
            (
                "dram_bytes_per_cycle: 2228.0",
                "dram_bytes_per_cycle: 100.0",
                "at least 384",
            ),
        ] {
            let e = err(from, to);
            assert!(e.message.contains(says), "{to}: {}", e.message);
            // At the value's line (each of these is on its own line of the preset).
            let line = H200_RON[..H200_RON.find(from).unwrap()]
                .matches('\n')
                .count()
                + 1;
            assert!(
                e.location.starts_with(&format!("g.ron:{line}:")),
                "{to}: {} (line {line})",
                e.location
            );
        }
    }

    #[test]
    fn the_preset_is_in_range() {
        let g = Gpu::h200();
        for r in super::rules(&g) {
            assert!(r.value >= r.min && r.value <= r.max, "{}", r.path);
        }
    }
}
