//! `warpsim._native`: the Rust side of the Python package (the `warpsim` package in
//! `python/warpsim` is the API; this module is what it calls).
//!
//! # Brief overview
//!
//! * [`run_file`]: a RON program file, loaded and run as `warpsim run` does.
//! * [`launch`] (`launch.rs`): a CUDA or PTX kernel launched on NumPy arrays (CuPy's
//!   `RawKernel` call): the arrays' bytes are the buffers' initial words and take back
//!   their final ones; scalars are typed from the kernel's PTX parameters.
//! * [`sweep_file`]: variants of a RON program (defines, bank geometry), on the runner's
//!   thread pool, one JSON row each as `warpsim sweep --format json` writes them.
//! * [`NativeReport`]: a run's report (`json`, `table`, `svg`).
//! * The exceptions `Error` and its `LoadError`, `CompileError` and `Fault` (`errors.rs`).
//!
//! Every run happens on a thread of its own with the GIL released; the calling thread wakes
//! every 50 ms to let Python handle signals, so Ctrl-C interrupts the call (the run itself
//! finishes in the background, its result dropped).

// Errors are `Diag`s by design (they carry the source snippet): not boxed.
#![allow(clippy::result_large_err)]

mod errors;
mod launch;

use pyo3::prelude::*;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use warpsim_kernel::{Diag, Program};
use warpsim_machine::{Machine, MachineArgs};
use warpsim_runner::experiment::{self, SweepRow, Variant};
use warpsim_runner::{Defines, Report, RunOptions, TableStyle, TimingOptions};

/// The options every run takes, with the CLI's names: the dict `warpsim._options.resolve`
/// gives (`timing`, `gpu` and `verify` always there; the others None or missing: the
/// GPU's geometry, no racecheck, the CLI's step limit).
#[derive(Clone, Debug, FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct Opts {
    gpu: String,
    #[pyo3(default)]
    banks: Option<u32>,
    #[pyo3(default)]
    bank_bytes: Option<u32>,
    timing: bool,
    #[pyo3(default)]
    racecheck: bool,
    verify: bool,
    #[pyo3(default)]
    max_steps: Option<u64>,
}

impl Opts {
    /// The machine and run options (what `MachineArgs` and `RunArgs` give the CLI).
    fn resolve(&self) -> Result<(Machine, RunOptions), Diag> {
        let machine = Machine::resolve(&MachineArgs {
            gpu: self.gpu.clone(),
            banks: self.banks.into_iter().collect(),
            bank_bytes: self.bank_bytes.into_iter().collect(),
        })?;
        let opts = RunOptions {
            machine: machine.clone(),
            max_steps: self.max_steps.unwrap_or(RunOptions::default().max_steps),
            verify: self.verify,
            racecheck: self.racecheck,
            progress: false,
            timing: self.timing.then(TimingOptions::default),
            ..RunOptions::default()
        };
        Ok((machine, opts))
    }

    /// The loader's options on `machine` with `defines` (as the CLI's `LoadArgs`).
    fn load_options(machine: &Machine, defines: Vec<(String, i64)>) -> warpsim_lang::Options {
        warpsim_lang::Options {
            defines,
            shared_limit: machine.shared_limit(),
            ..warpsim_lang::Options::default()
        }
    }
}

/// Runs `f` on a thread of its own with the GIL released, waking every 50 ms for signals.
pub(crate) fn detached<T: Send + 'static>(
    py: Python<'_>,
    f: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("warpsim".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| errors::Error::new_err(format!("cannot start the run's thread: {e}")))?;
    // (`detach` wants what it borrows to be shareable: the receiver is not, a Mutex is.)
    let rx = std::sync::Mutex::new(rx);
    loop {
        let got = py.detach(|| match rx.lock() {
            Ok(r) => r.recv_timeout(Duration::from_millis(50)),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        });
        match got {
            Ok(v) => return Ok(v),
            Err(RecvTimeoutError::Timeout) => py.check_signals()?,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(errors::Error::new_err(
                    "warpsim stopped without a result (an internal error: please report it)",
                ))
            }
        }
    }
}

/// A run's report.
#[pyclass(frozen, module = "warpsim._native")]
pub struct NativeReport {
    report: Report,
}

#[pymethods]
impl NativeReport {
    /// The report as `warpsim run --format json` prints it.
    fn json(&self) -> String {
        self.report.to_json()
    }

    /// The report as `warpsim run` prints it (box-drawing characters with `unicode`).
    #[pyo3(signature = (unicode = false))]
    fn table(&self, unicode: bool) -> String {
        self.report.to_table(TableStyle { unicode })
    }

    /// The report's counters as a sweep row's (`warpsim sweep --format json`): a JSON
    /// object with `SWEEP_COUNTERS` and `error` (null).
    fn sweep_row(&self) -> String {
        let v = Variant {
            banks: 0,
            bank_bytes: 0,
            defines: Defines(Vec::new()),
        };
        serde_json::to_string(&SweepRow::of(v, &self.report)).unwrap_or_default()
    }

    /// The SVG chart `warpsim run --svg` writes.
    fn svg(&self) -> PyResult<String> {
        self.report
            .to_svg()
            .map_err(|e| errors::Error::new_err(format!("cannot draw the SVG: {e}")))
    }
}

/// Loads and runs the RON program at `path` as `warpsim run` does.
#[pyfunction]
fn run_file(
    py: Python<'_>,
    path: String,
    defines: Vec<(String, i64)>,
    opts: Opts,
) -> PyResult<NativeReport> {
    let result = detached(py, move || -> Result<Report, Diag> {
        let (machine, ro) = opts.resolve()?;
        let prog = load(&path, Opts::load_options(&machine, defines))?;
        warpsim_runner::run(&prog, &ro)
    })?;
    result
        .map(|report| NativeReport { report })
        .map_err(|d| errors::to_py(py, &d))
}

fn load(path: &str, opts: warpsim_lang::Options) -> Result<Program, Diag> {
    let src = warpsim_kernel::diag::read_program(path)?;
    warpsim_lang::load_str(path, &src, &opts)
}

/// Runs variants of the RON program at `path` (each: bank count, bank width, defines; `None`
/// for the machine's geometry), in parallel, and gives one JSON object per variant in order,
/// as `warpsim sweep --format json` writes its rows (a failed variant has `error` and null
/// counters).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn sweep_file(
    py: Python<'_>,
    path: String,
    variants: Vec<(Option<u32>, Option<u32>, Vec<(String, i64)>)>,
    defines: Vec<(String, i64)>,
    opts: Opts,
) -> PyResult<Vec<String>> {
    // Each variant has its geometry; a sweep does not racecheck.
    let opts = Opts {
        banks: None,
        bank_bytes: None,
        racecheck: false,
        ..opts
    };
    let result = detached(py, move || -> Result<Vec<String>, Diag> {
        let (machine, ro) = opts.resolve()?;
        let geom = machine.geometry();
        let src = warpsim_kernel::diag::read_program(&path)?;
        let base = Opts::load_options(&machine, defines);
        let vs = variants
            .into_iter()
            .map(|(banks, bank_bytes, d)| Variant {
                banks: banks.unwrap_or(geom.banks),
                bank_bytes: bank_bytes.unwrap_or(geom.bank_bytes),
                defines: Defines(d),
            })
            .collect();
        let rows = experiment::sweep(&path, &src, &base, &ro, vs, &|| {});
        Ok(rows
            .iter()
            .map(|r| serde_json::to_string(r).unwrap_or_default())
            .collect())
    })?;
    result.map_err(|d| errors::to_py(py, &d))
}

/// The native module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeReport>()?;
    m.add("SWEEP_COUNTERS", experiment::SWEEP_COUNTERS.to_vec())?;
    m.add_function(wrap_pyfunction!(run_file, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_file, m)?)?;
    m.add_function(wrap_pyfunction!(launch::launch, m)?)?;
    errors::add(m)?;
    Ok(())
}
