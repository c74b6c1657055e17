//! `warpsim sweep` and `warpsim advise`: many variants of one program, side by side.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use crate::print;
use crate::run::parse_define;
use std::io::IsTerminal;
use std::path::PathBuf;
use warpsim_kernel::{Diag, Phase};
use warpsim_lang::Options;
use warpsim_lang::{H200_SHARED_BYTES, MAX_SHARED_LIMIT};
use warpsim_runner::experiment::{self, SweepSpec};
use warpsim_runner::progress::Progress;
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
    #[arg(long, value_name = "BYTES", default_value_t = H200_SHARED_BYTES,
          value_parser = clap::value_parser!(u32).range(1..=MAX_SHARED_LIMIT as i64))]
    shared_limit: u32,
    /// PTX kernels: no model of ptxas's merging of shared accesses (see `run --no-merge`).
    #[arg(long)]
    no_merge: bool,
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
    /// Most variants (the product of all value counts) a sweep may have; a larger sweep is
    /// refused before anything runs.
    #[arg(long, value_name = "N", default_value_t = experiment::MAX_VARIANTS)]
    max_variants: u64,
}

/// Arguments of `warpsim advise`.
#[derive(clap::Args)]
pub struct AdviseArgs {
    /// The program file (RON).
    program: String,
    /// Overrides a define: NAME=VALUE. Repeatable.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    defines: Vec<String>,
    #[command(flatten)]
    geometry: crate::GeometryArgs,
    /// Largest padding to try, in elements per row (at most 1024). Default: one bank cycle,
    /// banks × bank bytes ÷ element bytes (32 for floats on the H200), at most 1024.
    #[arg(long, value_name = "ELEMENTS")]
    max_pad: Option<u32>,
    /// Do not check results against the references: judge every layout by its conflicts.
    #[arg(long)]
    no_verify: bool,
    /// Shared memory a block may use, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = H200_SHARED_BYTES,
          value_parser = clap::value_parser!(u32).range(1..=MAX_SHARED_LIMIT as i64))]
    shared_limit: u32,
    /// PTX kernels: no model of ptxas's merging of shared accesses (see `run --no-merge`).
    #[arg(long)]
    no_merge: bool,
    /// Output format: table (the advice), csv (every layout tried) or json.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
}

fn read(program: &str) -> Result<std::sync::Arc<str>, Diag> {
    warpsim_kernel::diag::read_program(program)
}

/// Most values one `FIRST..LAST` range of `sweep --define` may have.
const MAX_RANGE: i64 = 4096;

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
            if hi < lo || hi - lo >= MAX_RANGE {
                return Err(Diag::file(
                    Phase::Check,
                    program,
                    format!(
                        "--define {s}: the range {lo}..{hi} is empty or longer than {MAX_RANGE} values"
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
    let count = experiment::variant_count(&spec);
    if count > args.max_variants {
        return Err(Diag::file(
            Phase::Check,
            p,
            format!(
                "the sweep has {} variants (the product of the values given), more than \
                 --max-variants {}",
                experiment::thousands(count),
                args.max_variants
            ),
            Some(
                "sweep fewer values at a time, or raise --max-variants (each variant is a \
                 whole run)"
                    .into(),
            ),
        )
        .into());
    }
    if let Some(path) = &args.svg {
        crate::check_output(path, "SVG")?;
    }
    let base = Options {
        shared_limit: args.shared_limit,
        no_merge: args.no_merge,
        ..Options::default()
    };
    let variants = experiment::variants(&spec);
    let first = variants.first().cloned();
    let run_opts = RunOptions {
        max_steps: args.max_steps,
        verify: !args.no_verify,
        ..RunOptions::default()
    };
    let bar = Progress::new(&format!("{count} variants of {p}"), count, "variants");
    let rows = experiment::sweep(p, &src, &base, &run_opts, variants, &|| bar.tick());
    drop(bar);
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
    if rows.iter().all(|r| r.error.is_some()) {
        // Every variant failed: show the first one's diagnostic in full (a broken file fails
        // as itself, with its position).
        if let Some(v) = first {
            let mut o = base.clone();
            o.defines = v.defines.0.clone();
            warpsim_lang::load_str(p, &src, &o)?;
        }
    }
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
    let g = args.geometry.or(Geometry::H200);
    let geometry = Geometry::new(g.banks, g.bank_bytes).map_err(|e| geometry_error(p, e))?;
    if let Some(m) = args.max_pad.filter(|&m| m > experiment::MAX_PAD) {
        return Err(Diag::file(
            Phase::Check,
            p,
            format!(
                "--max-pad {m} is more than {}, the most the advisor tries",
                experiment::MAX_PAD
            ),
            Some(
                "a padding only matters modulo one bank cycle (banks × bank bytes ÷ element bytes)"
                    .into(),
            ),
        )
        .into());
    }
    let base = Options {
        defines,
        shared_limit: args.shared_limit,
        no_merge: args.no_merge,
        ..Options::default()
    };
    let run_opts = RunOptions {
        geometry,
        verify: !args.no_verify,
        ..RunOptions::default()
    };
    // A `cuda:`/`ptx:` kernel computes its shared addresses in the PTX (its positions point
    // into the .cu or .ptx, not the launch file): no layout of ours changes them.
    let prog = warpsim_lang::load_str(p, &src, &base)?;
    if prog.path != *p {
        return Err(Diag::file(
            Phase::Check,
            p,
            format!(
                "advise cannot relayout the shared arrays of a `cuda:` or `ptx:` kernel: their \
                 addresses are computed in the kernel's code ({})",
                prog.path
            ),
            Some(
                "name the padding or swizzle in the source as a define listed in `macros` and \
                 compare its values with `warpsim sweep FILE -D NAME=0..2`"
                    .into(),
            ),
        )
        .into());
    }
    let bar = Progress::new(&format!("layouts of {p}"), 0, "layouts");
    let advice = experiment::advise(p, &src, &base, &run_opts, args.max_pad, &bar)?;
    drop(bar);
    print(&match args.format {
        Format::Json => experiment::advice_json(&advice) + "\n",
        Format::Csv => experiment::advice_csv(&advice),
        Format::Table => experiment::advice_text(&advice),
    })?;
    if !advice.is_empty() && advice.iter().all(|a| a.nothing_judged()) {
        // Ran, but every layout's results were wrong: no advice could be given.
        std::process::exit(1);
    }
    Ok(())
}
