//! The flag groups every command flattens, each declared and checked once here:
//!
//! * [`MachineArgs`] (`--gpu`, `--banks`, `--bank-bytes`): every command; resolved and
//!   validated by [`Machine::resolve`] (or [`Machine::resolve_sweep`]) alone.
//! * [`LoadArgs`] (the program, `-D`, `--shared-limit`, `--max-memory`, `--no-merge`,
//!   `--max-steps`): `check`, `run`, `sweep`, `advise`.
//! * [`TimingArgs`] (`--no-timing`, `--regs`, `--sample`): `run`, `sweep`, `advise`.
//! * [`OutputArgs`] (`--format`, from the formats a command writes): `run`, `access`,
//!   `sweep`, `advise`.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use clap::builder::TypedValueParser as _;
use std::marker::PhantomData;
use warpsim_kernel::{Diag, Phase, Program, MAX_SHARED_LIMIT};
use warpsim_lang::Options;
use warpsim_machine::Machine;
pub use warpsim_machine::MachineArgs;
use warpsim_runner::{RunOptions, TimingOptions};

/// What the commands that take a program share.
#[derive(clap::Args, Clone, Debug)]
pub struct LoadArgs {
    /// The program file (RON), e.g. programs/transpose.ron.
    pub program: String,
    /// Overrides a define of the program: NAME=VALUE (an integer, decimal or 0x hex).
    /// Repeatable. `sweep`: NAME=V1,V2,… or NAME=FIRST..LAST (inclusive), the values to try.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
    /// Shared memory a block may use, in bytes (default: the GPU's, 227 KiB on the H200).
    #[arg(long, value_name = "BYTES",
          value_parser = clap::value_parser!(u32).range(1..=MAX_SHARED_LIMIT as i64))]
    pub shared_limit: Option<u32>,
    /// Most bytes all global buffers together may take (default 4 GiB); a program asking
    /// for more is refused before anything is allocated. It also caps the timing model's
    /// traces, and the variants `sweep` and `advise` run side by side share it.
    #[arg(long, value_name = "BYTES", default_value_t = Options::default().max_buffer_bytes)]
    pub max_memory: u64,
    /// PTX kernels: run the shared accesses as the PTX writes them, without the model of
    /// ptxas's merging into 8- and 16-byte accesses (README, "ptxas merging").
    #[arg(long)]
    pub no_merge: bool,
    /// Most threads a launch may have in all (blocks × threads a block); a larger launch is
    /// refused while loading, before anything runs (every thread is emulated).
    #[arg(long, value_name = "N", default_value_t = Options::default().max_threads)]
    pub max_threads: u64,
    /// Most warp instructions one block may execute before it counts as a runaway loop
    /// (the commands that run the program).
    #[arg(long, value_name = "STEPS", default_value_t = RunOptions::default().max_steps)]
    pub max_steps: u64,
    /// CUDA kernels: a folder the `.cu` may include headers from, besides its own folder and
    /// the CUDA toolkit's (passed to NVRTC as an include path). Repeatable.
    #[arg(long = "include-path", short = 'I', value_name = "DIR")]
    pub include_paths: Vec<String>,
    /// CUDA kernels: let the `.cu` include any file you can read (by default a header
    /// outside its folder, the toolkit's and the --include-path folders is refused).
    #[arg(long)]
    pub any_include: bool,
}

impl LoadArgs {
    /// The `-D NAME=VALUE`s, parsed (one value each).
    pub fn defines(&self) -> Result<Vec<(String, i64)>, Diag> {
        self.defines
            .iter()
            .map(|d| parse_define(&self.program, d))
            .collect()
    }

    /// The loader's options on `machine` with `defines`.
    pub fn options(&self, machine: &Machine, defines: Vec<(String, i64)>) -> Options {
        Options {
            defines,
            shared_limit: self.shared_limit.unwrap_or(machine.shared_limit()),
            max_buffer_bytes: self.max_memory,
            no_merge: self.no_merge,
            max_threads: self.max_threads,
            include_paths: self.include_paths.clone(),
            any_include: self.any_include,
            ..Options::default()
        }
    }

    /// Reads and loads the program for `machine`.
    pub fn load(&self, machine: &Machine) -> Result<Program, Diag> {
        let opts = self.options(machine, self.defines()?);
        let src = warpsim_kernel::diag::read_program(&self.program)?;
        warpsim_lang::load_str(&self.program, &src, &opts)
    }
}

/// The timing model's options.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct TimingArgs {
    /// Do not run the timing model: no time section, `timing` null, `stall_cycles` 0.
    #[arg(long)]
    pub no_timing: bool,
    /// Registers per thread for the residency (overrides the program's `regs_per_thread`;
    /// default: the GPU description's default_regs_per_thread, 32 on the H200).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=255))]
    pub regs: Option<u32>,
    /// Sampled timing: simulate one SM in K and every K-th block, whose global accesses also
    /// stand for the next K-1 blocks' (K divides the GPU's SMs: 2, 3, 4, 6, 11, 12 ... on the
    /// H200); within a few percent of the full model. auto: K = 12 for grids of at least 8
    /// waves, else 1 (every block). README, "Sampled timing".
    #[arg(long, value_name = "K|auto", default_value = "auto", value_parser = parse_sample)]
    pub sample: Sample,
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
    /// The timing options on `machine` (None with --no-timing); `timeline`: keep one SM's.
    pub fn resolve(
        &self,
        machine: &Machine,
        timeline: bool,
    ) -> Result<Option<TimingOptions>, Diag> {
        let sms = machine.gpu().sms;
        let sample = match self.sample {
            Sample::Auto => None,
            Sample::K(k) => Some(k),
        };
        if let Some(k) = sample.filter(|k| !sms.is_multiple_of(*k)) {
            let divisors: Vec<String> = (1..=sms)
                .filter(|d| sms.is_multiple_of(*d))
                .map(|d| d.to_string())
                .collect();
            return Err(Diag::file(
                Phase::Check,
                machine.source(),
                format!("--sample {k}: the GPU's {sms} SMs do not split into {k} equal parts"),
                Some(format!("use one of {}", divisors.join(", "))),
            ));
        }
        Ok((!self.no_timing).then_some(TimingOptions {
            regs_per_thread: self.regs,
            timeline,
            sample,
        }))
    }
}

/// Output formats (each command writes some of them: [`Formats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For a person.
    Table,
    /// JSON (keys described in the README).
    Json,
    /// Comma-separated values, one row per variant or layout.
    Csv,
    /// Tab-separated values, one row per access.
    Tsv,
}

impl Format {
    const ALL: [(Format, &'static str, &'static str); 4] = [
        (Format::Table, "table", "For a person"),
        (Format::Json, "json", "JSON (keys described in the README)"),
        (
            Format::Csv,
            "csv",
            "Comma-separated values, one row per variant or layout",
        ),
        (
            Format::Tsv,
            "tsv",
            "Tab-separated values, one row per access",
        ),
    ];
}

/// The formats a command writes.
pub trait Formats: Clone + Send + Sync + 'static {
    /// They, the default first.
    const FORMATS: &'static [Format];
}

/// `run`: a table or the JSON report.
#[derive(Clone, Debug)]
pub struct ReportFormats;
impl Formats for ReportFormats {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Json];
}

/// `sweep` and `advise`: also CSV.
#[derive(Clone, Debug)]
pub struct RowFormats;
impl Formats for RowFormats {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Csv, Format::Json];
}

/// `access`: also TSV.
#[derive(Clone, Debug)]
pub struct TraceFormats;
impl Formats for TraceFormats {
    const FORMATS: &'static [Format] = &[Format::Table, Format::Tsv, Format::Json];
}

/// `--format`, from the formats `F` a command writes.
#[derive(clap::Args, Clone, Debug)]
pub struct OutputArgs<F: Formats> {
    /// Output format.
    #[arg(long, default_value = "table", value_parser = format_parser::<F>())]
    pub format: Format,
    #[arg(skip)]
    formats: PhantomData<F>,
}

/// A parser of `F`'s formats by name, each with its help.
fn format_parser<F: Formats>() -> impl clap::builder::TypedValueParser<Value = Format> {
    let names = Format::ALL
        .iter()
        .filter(|(f, _, _)| F::FORMATS.contains(f))
        .map(|(_, name, help)| clap::builder::PossibleValue::new(*name).help(*help));
    clap::builder::PossibleValuesParser::new(names).map(|s| {
        Format::ALL
            .iter()
            .find(|(_, name, _)| *name == s)
            .map_or(Format::Table, |(f, _, _)| *f)
    })
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
