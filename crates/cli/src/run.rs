//! `warpsim check PROGRAM` and `warpsim run PROGRAM`: load a kernel, and run it over its grid.
//!
//! Exit codes: 0 when the program is valid (`check`) or ran and verified (`run`; also when no
//! buffer has an `expect`, or with `--no-verify`); 1 when it ran but a buffer differs from its
//! `expect`, or `--racecheck` found a race; 2 for every error (bad arguments, a program that
//! does not load, a fault while running, a reference that cannot be evaluated), printed as a
//! diagnostic pointing at the file, line and column.

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

use crate::args::{Format, LoadArgs, MachineArgs, OutputArgs, ReportFormats, TimingArgs};
use crate::print;
use std::io::IsTerminal;
use std::path::PathBuf;
use warpsim_kernel::{Diag, Phase};
use warpsim_machine::Machine;
use warpsim_runner::{RunOptions, TableStyle};

/// Arguments of `warpsim check`.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    machine: MachineArgs,
    /// Also list the lowered code: one line per warp instruction, with the source line and
    /// text it came from (what the run's instruction counts count).
    #[arg(long)]
    code: bool,
}

/// Arguments of `warpsim run`.
#[derive(clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    load: LoadArgs,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    timing: TimingArgs,
    #[command(flatten)]
    output: OutputArgs<ReportFormats>,
    /// Also write an SVG chart of the per-bank load and of the hottest shared instructions.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Also write one SM's warps over time as Chrome trace-event JSON (open in Perfetto).
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Do not check the buffers against their `expect` references.
    #[arg(long)]
    no_verify: bool,
    /// Look for shared-memory races between warps within each barrier interval (RAW, WAR,
    /// WAW, as compute-sanitizer's racecheck); exit code 1 if there are any.
    #[arg(long)]
    racecheck: bool,
    /// Price one shared array's accesses as if its bytes had another layout, as `advise` names
    /// them: `ARRAY=Swizzle<B,M,S>` or `ARRAY=pad P bytes every R` (the data stays where the
    /// kernel puts it: results are the kernel's own, costs and time are the layout's).
    #[arg(long, value_name = "ARRAY=LAYOUT")]
    relayout: Option<String>,
}

/// `--relayout ARRAY=LAYOUT` of `prog`.
fn relayout(prog: &warpsim_kernel::Program, arg: &str) -> miette::Result<warpsim_smem::Relayout> {
    let names = || {
        let v: Vec<String> = prog
            .shared
            .iter()
            .map(|a| format!("`{}`", a.name))
            .collect();
        if v.is_empty() {
            "none".to_owned()
        } else {
            v.join(", ")
        }
    };
    let Some((name, layout)) = arg.split_once('=') else {
        return Err(miette::miette!(
            help = "write --relayout 'ARRAY=Swizzle<3,4,3>' or --relayout 'ARRAY=pad 4 bytes every 128'",
            "--relayout `{arg}` names no array"
        ));
    };
    let Some(a) = prog.shared.iter().find(|a| a.name == name.trim()) else {
        return Err(miette::miette!(
            help = format!("the program's shared arrays: {}", names()),
            "--relayout: the program has no shared array `{}`",
            name.trim()
        ));
    };
    let kind = warpsim_smem::RelayoutKind::parse(layout).map_err(|e| {
        miette::miette!(
            help = "as `warpsim advise` names layouts",
            "--relayout: {e}"
        )
    })?;
    Ok(warpsim_smem::Relayout {
        start: a.base,
        end: a.base + a.bytes,
        kind,
    })
}

/// `warpsim check`.
pub fn check(args: CheckArgs) -> miette::Result<()> {
    let machine = Machine::resolve(&args.machine)?;
    let prog = args.load.load(&machine)?;
    warpsim_runner::check_references(&prog)?;
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
    let machine = Machine::resolve(&args.machine)?;
    if args.timeline.is_some() && args.timing.no_timing {
        return Err(miette::miette!(
            help = "drop --no-timing to write a timeline, or drop --timeline",
            "--timeline cannot be written with --no-timing: the timeline is the timing \
             model's"
        ));
    }
    let prog = args.load.load(&machine)?;
    let inputs = crate::output::inputs(&args.load.program, &prog.kernel_files, &args.machine.gpu);
    if let Some(path) = &args.svg {
        crate::output::check_output(path, "SVG", &inputs)?;
    }
    if let Some(path) = &args.timeline {
        crate::output::check_output(path, "timeline", &inputs)?;
        if args
            .svg
            .as_deref()
            .is_some_and(|svg| crate::output::same_path(svg, path))
        {
            return Err(miette::miette!(
                help = "give --svg and --timeline different files",
                "{}: --svg and --timeline name the same file",
                warpsim_kernel::escape::path(path)
            ));
        }
    }
    let timing = args.timing.resolve(&machine, args.timeline.is_some())?;
    let opts = RunOptions {
        machine,
        max_steps: args.load.max_steps,
        max_memory: args.load.max_memory,
        verify: !args.no_verify,
        racecheck: args.racecheck,
        progress: true,
        timing,
        relayout: args
            .relayout
            .as_deref()
            .map(|r| relayout(&prog, r))
            .transpose()?,
    };
    let report = warpsim_runner::run(&prog, &opts).map_err(miette::Report::new)?;
    if let (Some(path), Some(t)) = (&args.timeline, &report.timing) {
        let json =
            warpsim_timing::chrome_trace(&t.detail.timeline, t.clock_mhz, &t.gpu, &report.kernel);
        crate::output::write_output(path, "timeline", json.as_bytes())?;
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
        crate::output::write_output(path, "SVG", svg.as_bytes())?;
    }
    // The kernel's `printf` text, as `cudaDeviceSynchronize` would flush it: on stderr, so
    // that it never mixes with the report (JSON has it too, as `printf`).
    if !report.printf.is_empty() {
        eprint!("{}", report.printf);
    }
    if report.printf_dropped > 0 {
        eprintln!(
            "warning: {} bytes of printf output dropped past the GPU's 1 MiB printf buffer",
            report.printf_dropped
        );
    }
    let text = match args.output.format {
        Format::Json => report.to_json() + "\n",
        _ => report.to_table(TableStyle {
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
