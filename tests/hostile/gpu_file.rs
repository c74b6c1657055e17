//! GPU descriptions (`--gpu FILE`) with values no GPU has: each refused before any work, at
//! the value's file:line:col, naming the allowed range (issue 42, item 1).

use super::{case, write};

/// The built-in preset with `from` replaced by `to`, written to a scratch file.
fn gpu_with(name: &str, from: &str, to: &str) -> String {
    let src = std::fs::read_to_string(crate::util::root().join("crates/machine/presets/h200.ron"))
        .unwrap();
    assert!(src.contains(from), "{from}");
    write(name, &src.replacen(from, to, 1))
}

#[test]
fn absurd_gpu_values_are_refused_at_their_place_with_the_range() {
    let t = "programs/transpose.ron";
    for (i, (from, to, says)) in [
        ("sms: 132,", "sms: 1e9,", "`sms`"),
        ("sms: 132,", "sms: 1000000000,", "from 1 to 4,096 SMs"),
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
        ("(base: 12.65,", "(base: 1e18,", "`barrier.base` is 1e18"),
        ("(base: 12.65,", "(base: 1e300,", "`barrier.base`"),
        (
            "per_warp: 2.0)",
            "per_warp: NaN)",
            "`barrier.per_warp` is NaN",
        ),
        ("clock_mhz: 1980", "clock_mhz: 0.0", "`clock_mhz`"),
        ("dram: 710,", "dram: 4294967295,", "`global.dram`"),
        (
            "overhead_cycles: 2940,",
            "overhead_cycles: 4294967295,",
            "`launch.overhead_cycles`",
        ),
        (
            "dispatch_cycles_per_block: 1.16",
            "dispatch_cycles_per_block: -inf",
            "is -inf",
        ),
        (
            "dram_channels: 192,",
            "dram_channels: 4000000000,",
            "`global.dram_channels`",
        ),
        ("warps: 64,", "warps: 4000000000,", "`residency.warps`"),
        (
            "registers: 65536,",
            "registers: 4294967295,",
            "`residency.registers`",
        ),
        ("-209,", "-2000000,", "`global.dram_spread`"),
        ("line_bytes: 128,", "line_bytes: 8,", "smaller than"),
        (
            "shared_per_block: 1024,",
            "shared_per_block: 300000,",
            "leaves nothing",
        ),
        (
            "name: \"H200\"",
            "name: \"\\u{1b}]0;owned\\u{7}\"",
            "control characters",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let g = gpu_with(&format!("gpu_bad_{i}.ron"), from, to);
        for cmd in ["run", "check"] {
            let o = case(&[cmd, t, "--gpu", &g], 2, Some(&g), says);
            assert!(o.stdout.is_empty(), "{to}: {}", o.stdout);
            // A terminal escape is never printed back.
            assert!(!o.stderr.contains('\u{1b}'), "{to}: {}", o.stderr);
        }
    }
}

#[test]
fn the_preset_written_out_runs_as_the_builtin() {
    let g = gpu_with("gpu_same.ron", "sms: 132,", "sms: 132,");
    case(&["run", "programs/transpose.ron", "--gpu", &g], 0, None, "");
}
