//! `warpsim sweep` and `warpsim advise`: many variants of one program, side by side.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use crate::args::{
    parse_define, Format, LoadArgs, MachineArgs, OutputArgs, RowFormats, TimingArgs,
};
use crate::print;
use std::io::IsTerminal;
use std::path::PathBuf;
use warpsim_kernel::{Diag, Phase};
use warpsim_machine::Machine;
use warpsim_runner::experiment::{self, SweepSpec};
use warpsim_runner::Progress;
use warpsim_runner::RunOptions;

/// Arguments of `warpsim sweep`: every combination of the bank counts and widths
/// (`--banks 16,32 --bank-bytes 4,8`) and define values (`-D PAD=0..2`) given.
#[derive(clap::Args)]
pub struct SweepArgs {
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    timing: TimingArgs,
    #[command(flatten)]
    output: OutputArgs<RowFormats>,
    /// Also write a chart of stall cycles per variant (SVG).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Do not check results against the programs' references.
    #[arg(long)]
    no_verify: bool,
    /// Most variants (the product of all value counts) a sweep may have; a larger sweep is
    /// refused before anything runs. At most 1,000,000 (the variants are listed before the
    /// first runs).
    #[arg(long, value_name = "N", default_value_t = experiment::MAX_VARIANTS,
          value_parser = clap::value_parser!(u64).range(1..=MAX_VARIANTS_CEILING))]
    max_variants: u64,
}

/// Arguments of `warpsim advise`.
#[derive(clap::Args)]
pub struct AdviseArgs {
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    timing: TimingArgs,
    /// Output format: table (the advice), csv (every layout tried) or json.
    #[command(flatten)]
    output: OutputArgs<RowFormats>,
    /// Largest padding to try, in elements per row (at most 1024). Default: one bank cycle,
    /// banks × bank bytes ÷ element bytes (32 for floats on the H200), at most 1024.
    #[arg(long, value_name = "ELEMENTS")]
    max_pad: Option<u32>,
    /// Do not check results against the references: judge every layout by its conflicts.
    #[arg(long)]
    no_verify: bool,
}

fn read(program: &str) -> Result<std::sync::Arc<str>, Diag> {
    warpsim_kernel::diag::read_program(program)
}

/// The most `--max-variants` may allow.
const MAX_VARIANTS_CEILING: u64 = 1_000_000;

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
            if hi
                .checked_sub(lo)
                .is_none_or(|d| !(0..MAX_RANGE).contains(&d))
            {
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

/// `warpsim sweep`.
pub fn sweep(args: SweepArgs) -> miette::Result<()> {
    let p = &args.load.program;
    let src = read(p)?;
    let mut defines: Vec<(String, Vec<i64>)> = Vec::new();
    for d in &args.load.defines {
        let (name, values) = parse_values(p, d)?;
        defines.retain(|(n, _)| *n != name);
        defines.push((name, values));
    }
    let machines = Machine::resolve_sweep(&args.machine)?;
    let spec = SweepSpec {
        banks: machines.banks,
        bank_bytes: machines.bank_bytes,
        defines,
    };
    let machine = machines.base;
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
    let base = args.load.options(&machine, Vec::new());
    let variants = experiment::variants(&spec);
    let first = variants.first().cloned();
    if let Some(path) = &args.svg {
        // The kernel's files, from the first variant; if it does not load, the kernel file the
        // launch file names (another variant may run and write the SVG).
        let loaded = first.as_ref().and_then(|v| {
            let mut o = base.clone();
            o.defines = v.defines.0.clone();
            warpsim_lang::load_str(p, &src, &o).ok()
        });
        let files = match loaded {
            Some(g) => g.kernel_files,
            None => warpsim_lang::kernel_file(p, &src)
                .map(|f| f.to_string_lossy().into_owned())
                .into_iter()
                .collect(),
        };
        let inputs = crate::output::inputs(p, &files, &args.machine.gpu);
        crate::output::check_output(path, "SVG", &inputs)?;
    }
    let run_opts = RunOptions {
        timing: args.timing.resolve(&machine, false)?,
        machine,
        max_steps: args.load.max_steps,
        max_memory: args.load.max_memory,
        verify: !args.no_verify,
        ..RunOptions::default()
    };
    let bar = Progress::new(&format!("{count} variants of {p}"), count, "variants");
    let rows = experiment::sweep(p, &src, &base, &run_opts, variants, &|| bar.tick());
    drop(bar);
    if let Some(path) = &args.svg {
        let title = std::path::Path::new(p)
            .file_stem()
            .map_or(p.to_owned(), |s| s.to_string_lossy().into_owned());
        let svg = experiment::sweep_svg(&title, &rows).map_err(|e| {
            Diag::file(Phase::Runtime, p, format!("cannot draw the SVG: {e}"), None)
        })?;
        crate::output::write_output(path, "SVG", svg.as_bytes())?;
    }
    // (RowFormats: a table, CSV or JSON.)
    print(&match args.output.format {
        Format::Csv => experiment::sweep_csv(&rows),
        Format::Json => experiment::sweep_json(&rows) + "\n",
        _ => experiment::sweep_table(
            &rows,
            warpsim_runner::TableStyle {
                unicode: std::io::stdout().is_terminal(),
            },
        ),
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
    let p = &args.load.program;
    let src = read(p)?;
    let defines = args.load.defines()?;
    let machine = Machine::resolve(&args.machine)?;
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
    let base = args.load.options(&machine, defines);
    let run_opts = RunOptions {
        timing: args.timing.resolve(&machine, false)?,
        machine,
        max_steps: args.load.max_steps,
        max_memory: args.load.max_memory,
        verify: !args.no_verify,
        ..RunOptions::default()
    };
    // A `cuda:`/`ptx:` kernel computes its shared addresses in the PTX (its positions point
    // into the .cu or .ptx, not the launch file): its accesses are priced in other layouts
    // instead of rewriting its code.
    let prog = warpsim_lang::load_str(p, &src, &base)?;
    let bar = Progress::new(&format!("layouts of {p}"), 0, "layouts");
    let advice = if prog.path != *p {
        if args.max_pad.is_some() {
            return Err(Diag::file(
                Phase::Check,
                p,
                format!(
                    "--max-pad counts elements of a RON program's rows; the shared arrays of \
                     this `cuda:`/`ptx:` kernel ({}) have bytes, whose paddings (4 to 16 bytes) \
                     and swizzles advise tries all of",
                    prog.path
                ),
                Some("leave --max-pad out".into()),
            )
            .into());
        }
        experiment::advise_code(&prog, &run_opts, &bar)?
    } else {
        experiment::advise(p, &src, &base, &run_opts, args.max_pad, &bar)?
    };
    drop(bar);
    print(&match args.output.format {
        Format::Json => experiment::advice_json(&advice) + "\n",
        Format::Csv => experiment::advice_csv(&advice),
        _ => experiment::advice_text(&advice),
    })?;
    if !advice.is_empty() && advice.iter().all(|a| a.nothing_judged()) {
        // Ran, but every layout's results were wrong: no advice could be given.
        std::process::exit(1);
    }
    Ok(())
}
