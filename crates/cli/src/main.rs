//! The `warpsim` command line.
//!
//! Each subcommand lives in its own module with an `Args` struct and a `run` function that
//! returns `miette::Result<()>`; `main` dispatches and turns every error into exit code 2.

use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::process::ExitCode;

mod access;
mod access_tensor;
mod args;
mod experiment;
mod explain;
mod explain_atomic;
mod output;
mod run;

/// The environment variables warpsim reads, for `--help`.
const ENVIRONMENT: &str = "Environment:
  WARPSIM_NVRTC   libnvrtc.so.12 for `cuda:` programs (default: the library path, then
                  pip's nvidia-cuda-nvrtc-cu12 in Python's site-packages)
  WARPSIM_CACHE   folder of NVRTC's cached PTX (default: $XDG_CACHE_HOME/warpsim or
                  ~/.cache/warpsim)
  WARPSIM_MAX_FILE_BYTES
                  the most bytes read of any input file (default: programs 64 MiB,
                  traces 256 MiB, GPU descriptions 1 MiB)";

/// Warp-level SIMT emulator that prices every shared-memory access like an NVIDIA H200.
#[derive(Parser)]
#[command(name = "warpsim", version, about, after_help = ENVIRONMENT)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Price each access of a trace file (one warp access a line).
    Access(access::Args),
    /// Draw how the banks serve one access given as an index expression over `tid`.
    Explain(explain::Args),
    /// Check a program and summarize it: launch, buffers, shared layout, code size.
    Check(run::CheckArgs),
    /// Run a program over its grid: shared-memory counters, costliest lines, verification.
    Run(run::RunArgs),
    /// Run every combination of bank counts, bank widths and define values, side by side.
    Sweep(experiment::SweepArgs),
    /// Try paddings and XOR swizzles of each shared array and say which remove the conflicts.
    Advise(experiment::AdviseArgs),
    /// Print a completion script for a shell (e.g. `warpsim completions bash > warpsim.bash`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    // Colours and box drawing only on a terminal (and no colours under NO_COLOR); carets
    // under the columns that errors point at.
    let tty = std::io::stderr().is_terminal();
    let color = tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut theme = match (tty, color) {
        (true, true) => miette::GraphicalTheme::unicode(),
        (true, false) => miette::GraphicalTheme::unicode_nocolor(),
        _ => miette::GraphicalTheme::none(),
    };
    theme.characters.underline = '^';
    theme.characters.underbar = '^';
    // Only fails if a hook is already set, and then that one is used.
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(
            miette::MietteHandlerOpts::new()
                .graphical_theme(theme.clone())
                .terminal_links(false)
                .wrap_lines(false)
                .build(),
        )
    }));
    // clap's usage errors exit with code 2; they quote the arguments, so they are printed
    // with control characters escaped (help and version as clap prints them).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(),
        Err(e) => {
            use std::io::Write;
            let text = e.render().to_string();
            let _ = write!(
                std::io::stderr(),
                "{}",
                warpsim_kernel::escape::lines(&text)
            );
            return ExitCode::from(e.exit_code().clamp(0, 255) as u8);
        }
    };
    logging(tty);
    let result = match cli.command {
        Command::Access(args) => access::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Check(args) => run::check(args),
        Command::Run(args) => run::run(args),
        Command::Sweep(args) => experiment::sweep(args),
        Command::Advise(args) => experiment::advise(args),
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "warpsim", &mut out);
            print(&String::from_utf8_lossy(&out))
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(mut report) => {
            use std::io::Write;
            // Nothing a user gave reaches the terminal raw (warpsim_kernel::escape).
            if let Some(d) = report.downcast_mut::<warpsim_kernel::Diag>() {
                d.escape_all();
            }
            let _ = writeln!(std::io::stderr(), "{report:?}");
            ExitCode::from(2)
        }
    }
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: warnings); progress bars (spans with
/// target `warpsim::progress`, such as a sweep's) are drawn only on a terminal, and elsewhere
/// progress comes as a plain line every ten seconds (events with target
/// `warpsim::progress_line`); neither is subject to `RUST_LOG`: the filter sits on the log
/// layer alone.
fn logging(tty: bool) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::{filter, EnvFilter, Layer};
    let indicatif = tracing_indicatif::IndicatifLayer::new();
    let log = tracing_subscriber::fmt::layer()
        .with_writer(indicatif.get_stderr_writer())
        .with_ansi(tty)
        .with_target(false)
        .with_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("warn"))
                .add_directive(
                    "warpsim::progress_line=off"
                        .parse()
                        .expect("a valid directive"),
                ),
        );
    let bars = tty
        .then(|| indicatif.with_filter(filter::filter_fn(|m| m.target() == "warpsim::progress")));
    let lines = (!tty).then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false)
            .without_time()
            .with_level(false)
            .with_target(false)
            .with_filter(filter::filter_fn(|m| {
                m.target() == "warpsim::progress_line"
            }))
    });
    let _ = tracing_subscriber::registry()
        .with(log)
        .with(bars)
        .with(lines)
        .try_init();
}

/// Writes `text` to stdout; a closed pipe (`warpsim ... | head`) is not an error.
fn print(text: &str) -> miette::Result<()> {
    use std::io::Write;
    // Names in reports come from users: their control characters are made visible.
    let text = warpsim_kernel::escape::lines(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(miette::miette!("cannot write the output: {e}"))
        }
        _ => Ok(()),
    }
}
