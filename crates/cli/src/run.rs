//! `warpsim check PROGRAM` and `warpsim run PROGRAM`: load a kernel, and run it over its grid.
//!
//! Exit codes: 0 when the program is valid (`check`) or ran and verified (`run`; also when no
//! buffer has an `expect`, or with `--no-verify`); 1 when it ran but a buffer differs from its
//! `expect`, or `--racecheck` found a race; 2 for every error (bad arguments, a program that
//! does not load, a fault while running, a reference that cannot be evaluated), printed as a
//! diagnostic pointing at the file, line and column.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use crate::print;
use std::io::IsTerminal;
use std::path::PathBuf;
use warpsim_kernel::{Diag, Phase, Program};
use warpsim_lang::Options;
use warpsim_lang::{H200_SHARED_BYTES, MAX_SHARED_LIMIT};
use warpsim_runner::{RunOptions, TableStyle};
use warpsim_smem::Geometry;

/// What both `check` and `run` take to load a program.
#[derive(clap::Args)]
pub struct LoadArgs {
    /// The program file (RON), e.g. programs/transpose.ron.
    program: String,
    /// Overrides a define of the program: NAME=VALUE (an integer, decimal or 0x hex).
    /// Repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// Shared memory a block may use, in bytes (default: the H200's 227 KiB).
    #[arg(long, value_name = "BYTES", default_value_t = H200_SHARED_BYTES,
          value_parser = clap::value_parser!(u32).range(1..=MAX_SHARED_LIMIT as i64))]
    shared_limit: u32,
    /// Most bytes all global buffers together may take (default 4 GiB); a program asking
    /// for more is refused before anything is allocated.
    #[arg(long, value_name = "BYTES", default_value_t = Options::default().max_buffer_bytes)]
    max_memory: u64,
    /// PTX kernels: run the shared accesses as the PTX writes them, without the model of
    /// ptxas's merging into 8- and 16-byte accesses (README, "ptxas merging").
    #[arg(long)]
    no_merge: bool,
}

/// Arguments of `warpsim check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    load: LoadArgs,
    /// Also list the lowered code: one line per warp instruction, with the source line and
    /// text it came from (what the run's instruction counts count).
    #[arg(long)]
    code: bool,
}

/// Output formats of `warpsim run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Tables for a person.
    Table,
    /// The whole report as JSON (keys described in the README).
    Json,
}

/// Arguments of `warpsim run`.
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    geometry: crate::GeometryArgs,
    #[command(flatten)]
    timing: TimingArgs,
    /// Most warp instructions one block may execute before it counts as a runaway loop.
    #[arg(long, value_name = "STEPS", default_value_t = RunOptions::default().max_steps)]
    max_steps: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also write an SVG chart of the per-bank load and of the hottest shared instructions.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Do not check the buffers against their `expect` references.
    #[arg(long)]
    no_verify: bool,
    /// Look for shared-memory races between warps within each barrier interval (RAW, WAR,
    /// WAW, as compute-sanitizer's racecheck); exit code 1 if there are any.
    #[arg(long)]
    racecheck: bool,
}

/// The timing model's options (`run`, and the experiments).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TimingArgs {
    /// Do not run the timing model: no time section, `timing` null, `stall_cycles` 0.
    #[arg(long)]
    no_timing: bool,
    /// The GPU the timing model runs: a preset name (h200) or a RON description like
    /// crates/timing/presets/h200.ron.
    #[arg(long, value_name = "NAME|FILE", default_value = "h200")]
    gpu: String,
    /// Registers per thread for the residency (overrides the program's `regs_per_thread`;
    /// default: the GPU description's default_regs_per_thread, 32 on the H200).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    regs: Option<u32>,
    /// Also write one SM's warps over time as Chrome trace-event JSON (open in Perfetto).
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Sampled timing: simulate one SM in K and every K-th block, whose global accesses also
    /// stand for the next K-1 blocks' (K divides the GPU's SMs: 2, 3, 4, 6, 11, 12 ... on the
    /// H200); within a few percent of the full model. auto: K = 12 for grids of at least 8
    /// waves, else 1 (every block). README, "Sampled timing".
    #[arg(long, value_name = "K|auto", default_value = "auto", value_parser = parse_sample)]
    sample: Sample,
}

/// `--sample`: a number, or the launch decides.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sample {
    /// As `Gpu::auto_sample` says.
    #[default]
    Auto,
    /// One in K.
    K(u32),
}

fn parse_sample(s: &str) -> Result<Sample, String> {
    if s == "auto" {
        return Ok(Sample::Auto);
    }
    match s.parse::<u32>() {
        Ok(k) if k >= 1 => Ok(Sample::K(k)),
        _ => Err(format!("expected a whole number from 1 or auto, got {s:?}")),
    }
}

impl TimingArgs {
    /// The GPU description (always loaded: its bank geometry is the default) and the timing
    /// options (None with --no-timing).
    pub fn resolve(
        &self,
    ) -> Result<(warpsim_runner::Gpu, Option<warpsim_runner::TimingOptions>), Diag> {
        let gpu = warpsim_runner::Gpu::named_or_file(&self.gpu)?;
        let sample = match self.sample {
            Sample::Auto => None,
            Sample::K(k) => Some(k),
        };
        if let Some(k) = sample.filter(|k| !gpu.sms.is_multiple_of(*k)) {
            let divisors: Vec<String> = (1..=gpu.sms)
                .filter(|d| gpu.sms % d == 0)
                .map(|d| d.to_string())
                .collect();
            return Err(Diag::file(
                Phase::Check,
                &self.gpu,
                format!(
                    "--sample {k}: the GPU's {} SMs do not split into {k} equal parts",
                    gpu.sms
                ),
                Some(format!("use one of {}", divisors.join(", "))),
            ));
        }
        let opts = (!self.no_timing).then(|| warpsim_runner::TimingOptions {
            gpu: gpu.clone(),
            regs_per_thread: self.regs,
            timeline: self.timeline.is_some(),
            sample,
        });
        Ok((gpu, opts))
    }
}

/// Parses `NAME=VALUE` of `--define`.
pub fn parse_define(program: &str, s: &str) -> Result<(String, i64), Diag> {
    let help = Some("write --define NAME=VALUE with an integer value, e.g. --define N=2048".into());
    let Some((name, raw)) = s.split_once('=') else {
        return Err(Diag::file(
            Phase::Check,
            program,
            format!("--define {s}: expected NAME=VALUE"),
            help,
        ));
    };
    let name = name.trim();
    let v = raw.trim().replace('_', "");
    let (neg, digits) = match v.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, v.strip_prefix('+').unwrap_or(&v)),
    };
    let parsed = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => i128::from_str_radix(hex, 16).ok(),
        None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            digits.parse::<i128>().ok()
        }
        None => None,
    };
    let value = parsed
        .map(|p| if neg { -p } else { p })
        .and_then(|p| i64::try_from(p).ok());
    match (name.is_empty(), value) {
        (false, Some(v)) => Ok((name.to_owned(), v)),
        (true, _) => Err(Diag::file(
            Phase::Check,
            program,
            format!("--define {s}: the name is missing"),
            help,
        )),
        (false, None) => Err(Diag::file(
            Phase::Check,
            program,
            format!(
                "--define {s}: `{}` is not an integer that fits in 64 bits",
                raw.trim()
            ),
            help,
        )),
    }
}

fn load(a: &LoadArgs) -> Result<Program, Diag> {
    let defines = a
        .defines
        .iter()
        .map(|d| parse_define(&a.program, d))
        .collect::<Result<Vec<_>, _>>()?;
    let opts = Options {
        defines,
        shared_limit: a.shared_limit,
        max_buffer_bytes: a.max_memory,
        no_merge: a.no_merge,
        ..Options::default()
    };
    let src = warpsim_kernel::diag::read_program(&a.program)?;
    warpsim_lang::load_str(&a.program, &src, &opts)
}

/// `warpsim check`.
pub fn check(args: CheckArgs) -> miette::Result<()> {
    let prog = load(&args.load).map_err(miette::Report::new)?;
    let mut out = warpsim_runner::describe(&prog);
    // Hints for ports from CUDA (lint.rs): accesses nvcc would likely merge.
    for h in warpsim_lang::merge_hints(&prog) {
        out.push_str(&format!("hint: {}: {}\n", h.location, h.message));
    }
    if args.code {
        out.push('\n');
        out.push_str(&prog.listing());
    }
    print(&out)
}

/// `warpsim run`.
pub fn run(args: RunArgs) -> miette::Result<()> {
    let prog = load(&args.load).map_err(miette::Report::new)?;
    if let Some(path) = &args.svg {
        crate::check_output(path, "SVG")?;
    }
    if let Some(path) = &args.timing.timeline {
        crate::check_output(path, "timeline")?;
    }
    let (gpu, timing) = args.timing.resolve().map_err(miette::Report::new)?;
    let opts = RunOptions {
        geometry: args.geometry.or(Geometry {
            banks: gpu.banks,
            bank_bytes: gpu.bank_bytes,
        }),
        max_steps: args.max_steps,
        verify: !args.no_verify,
        racecheck: args.racecheck,
        progress: true,
        timing,
    };
    let report = warpsim_runner::run(&prog, &opts).map_err(miette::Report::new)?;
    if let (Some(path), Some(t)) = (&args.timing.timeline, &report.timing) {
        let json = warpsim_timing::timeline::chrome_trace(
            &t.detail.timeline,
            t.clock_mhz,
            &t.gpu,
            &report.kernel,
        );
        std::fs::write(path, json).map_err(|e| {
            miette::Report::new(Diag::file(
                Phase::Check,
                &path.display().to_string(),
                format!("cannot write the timeline: {e}"),
                None,
            ))
        })?;
    }
    if let Some(path) = &args.svg {
        let svg = report.to_svg().map_err(|e| {
            miette::Report::new(Diag::file(
                Phase::Runtime,
                &args.load.program,
                format!("cannot draw the SVG: {e}"),
                None,
            ))
        })?;
        std::fs::write(path, svg).map_err(|e| {
            miette::Report::new(Diag::file(
                Phase::Runtime,
                &path.display().to_string(),
                format!("cannot write the SVG: {e}"),
                Some("check that the directory exists and is writable".into()),
            ))
        })?;
    }
    let text = match args.format {
        Format::Json => report.to_json() + "\n",
        Format::Table => report.to_table(TableStyle {
            unicode: std::io::stdout().is_terminal(),
        }),
    };
    print(&text)?;
    let racy = report.races.as_ref().is_some_and(|r| !r.is_empty());
    if report.verified == Some(false) || racy {
        // Ran, but the results are wrong or racy: exit code 1 (2 is for errors).
        std::process::exit(1);
    }
    Ok(())
}
