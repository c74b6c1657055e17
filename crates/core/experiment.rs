//! `warpsim sweep` and `warpsim advise`: many variants of one program, side by side.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use crate::print;
use crate::run::parse_define;
use std::io::IsTerminal;
use std::path::PathBuf;
use tracing_indicatif::span_ext::IndicatifSpanExt;
use warpsim_interp::load::H200_SHARED_BYTES;
use warpsim_interp::{Diag, Options, Phase};
use warpsim_runner::experiment::{self, SweepSpec};
use warpsim_runner::RunOptions;
use warpsim_smem::Geometry;

/// Output formats of `warpsim sweep` and `warpsim advise`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A table for a person.
    Table,
    /// Comma-separated values, one row per variant.
    Csv,
    /// JSON.
    Json,
}

/// Arguments of `warpsim sweep`.
#[derive(clap::Args)]
pub struct SweepArgs {
    /// The program file (RON), e.g. programs/transpose.ron.
    program: String,
    /// Bank counts to try, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "32")]
    banks: Vec<u32>,
    /// Bank widths in bytes to try, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4")]
    bank_bytes: Vec<u32>,
    /// A define and the values to try: NAME=V1,V2,… or NAME=FIRST..LAST (inclusive).
    /// Repeatable; a single value just sets the define.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUES")]
    defines: Vec<String>,
    /// Shared memory a block may use, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = H200_SHARED_BYTES)]
    shared_limit: u32,
    /// Most warp instructions one block may execute.
    #[arg(long, value_name = "STEPS", default_value_t = RunOptions::default().max_steps)]
    max_steps: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Also write a chart of stall cycles per variant (SVG).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Do not check results against the programs' references.
    #[arg(long)]
    no_verify: bool,
}

/// Arguments of `warpsim advise`.
#[derive(clap::Args)]
pub struct AdviseArgs {
    /// The program file (RON).
    program: String,
    /// Overrides a define: NAME=VALUE. Repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// Number of shared-memory banks.
    #[arg(long, default_value_t = 32)]
    banks: u32,
    /// Width of one bank in bytes.
    #[arg(long, default_value_t = 4)]
    bank_bytes: u32,
    /// Largest padding to try, in elements per row.
    #[arg(long, default_value_t = 8)]
    max_pad: u32,
    /// Shared memory a block may use, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = H200_SHARED_BYTES)]
    shared_limit: u32,
    /// Output format (table or json).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

fn read(program: &str) -> Result<String, Diag> {
    std::fs::read_to_string(program).map_err(|e| {
        Diag::file(
            Phase::Syntax,
            program,
            format!("cannot read the program: {e}"),
            Some("check the path; programs live in programs/".into()),
        )
    })
}

/// Parses `NAME=1,2,3` or `NAME=0..4` into the values to sweep.
fn parse_values(program: &str, s: &str) -> Result<(String, Vec<i64>), Diag> {
    let Some((name, raw)) = s.split_once('=') else {
        return parse_define(program, s).map(|(n, v)| (n, vec![v]));
    };
    let mut values = Vec::new();
    for part in raw.split(',') {
        if let Some((a, b)) = part.split_once("..") {
            let (_, lo) = parse_define(program, &format!("{name}={a}"))?;
            let (_, hi) = parse_define(program, &format!("{name}={}", b.trim_start_matches('=')))?;
            if hi < lo || hi - lo > 4096 {
                return Err(Diag::file(
                    Phase::Check,
                    program,
                    format!(
                        "--define {s}: the range {lo}..{hi} is empty or longer than 4096 values"
                    ),
                    Some("write FIRST..LAST with FIRST <= LAST, e.g. PAD=0..2".into()),
                ));
            }
            values.extend(lo..=hi);
        } else {
            values.push(parse_define(program, &format!("{name}={part}"))?.1);
        }
    }
    Ok((name.trim().to_owned(), values))
}

fn geometry_error(program: &str, e: warpsim_smem::Error) -> Diag {
    Diag::file(
        Phase::Check,
        program,
        format!("invalid bank geometry: {e}"),
        Some("use --banks 1..=1024 and --bank-bytes 4, 8, 16, 32 or 64".into()),
    )
}

/// `warpsim sweep`.
pub fn sweep(args: SweepArgs) -> miette::Result<()> {
    let p = &args.program;
    let src = read(p)?;
    let mut spec = SweepSpec {
        banks: args.banks.clone(),
        bank_bytes: args.bank_bytes.clone(),
        defines: Vec::new(),
    };
    for d in &args.defines {
        let (name, values) = parse_values(p, d)?;
        spec.defines.retain(|(n, _)| *n != name);
        spec.defines.push((name, values));
    }
    for &b in &spec.banks {
        for &w in &spec.bank_bytes {
            Geometry::new(b, w).map_err(|e| geometry_error(p, e))?;
        }
    }
    let base = Options {
        shared_limit: args.shared_limit,
        ..Options::default()
    };
    // Check the program once with the first variant so a broken file fails as itself.
    let first = experiment::variants(&spec);
    if let Some(v) = first.first() {
        let mut o = base.clone();
        o.defines = v.defines.0.clone();
        warpsim_interp::load_str(p, &src, &o)?;
    }
    let run_opts = RunOptions {
        max_steps: args.max_steps,
        verify: !args.no_verify,
        ..RunOptions::default()
    };
    let span = tracing::info_span!(target: "warpsim::progress", "sweep");
    if let Ok(style) = tracing_indicatif::style::ProgressStyle::with_template(
        "{spinner} {msg} [{wide_bar}] {pos}/{len} variants, {elapsed} (eta {eta})",
    ) {
        span.pb_set_style(&style.progress_chars("=> "));
    }
    span.pb_set_length(first.len() as u64);
    span.pb_set_message(&format!("{} variants of {p}", first.len()));
    let rows = {
        let _enter = span.enter();
        experiment::sweep(p, &src, &base, &run_opts, &spec, &|| span.pb_inc(1))
    };
    drop(span);
    if let Some(path) = &args.svg {
        let title = std::path::Path::new(p)
            .file_stem()
            .map_or(p.clone(), |s| s.to_string_lossy().into_owned());
        let svg = experiment::sweep_svg(&title, &rows).map_err(|e| {
            Diag::file(Phase::Runtime, p, format!("cannot draw the SVG: {e}"), None)
        })?;
        std::fs::write(path, svg).map_err(|e| {
            Diag::file(
                Phase::Runtime,
                &path.display().to_string(),
                format!("cannot write the SVG: {e}"),
                Some("check that the directory exists and is writable".into()),
            )
        })?;
    }
    print(&match args.format {
        Format::Table => experiment::sweep_table(
            &rows,
            warpsim_runner::TableStyle {
                unicode: std::io::stdout().is_terminal(),
            },
        ),
        Format::Csv => experiment::sweep_csv(&rows),
        Format::Json => experiment::sweep_json(&rows) + "\n",
    })?;
    if let Some(bad) = rows.iter().find(|r| r.error.is_some()) {
        return Err(Diag::file(
            Phase::Runtime,
            p,
            format!(
                "{} of {} variants failed; the first ({}): {}",
                rows.iter().filter(|r| r.error.is_some()).count(),
                rows.len(),
                bad.variant.label(),
                bad.error.as_deref().unwrap_or("")
            ),
            Some("run that variant alone with `warpsim run` to see the error in full".into()),
        )
        .into());
    }
    if rows.iter().any(|r| r.verified == Some(false)) {
        std::process::exit(1);
    }
    Ok(())
}

/// `warpsim advise`.
pub fn advise(args: AdviseArgs) -> miette::Result<()> {
    let p = &args.program;
    let src = read(p)?;
    let defines = args
        .defines
        .iter()
        .map(|d| parse_define(p, d))
        .collect::<Result<Vec<_>, _>>()?;
    let geometry = Geometry::new(args.banks, args.bank_bytes).map_err(|e| geometry_error(p, e))?;
    let base = Options {
        defines,
        shared_limit: args.shared_limit,
        ..Options::default()
    };
    let run_opts = RunOptions {
        geometry,
        ..RunOptions::default()
    };
    let advice = experiment::advise(p, &src, &base, &run_opts, args.max_pad.min(64))?;
    print(&match args.format {
        Format::Json => experiment::advice_json(&advice) + "\n",
        _ => experiment::advice_text(&advice),
    })
}
