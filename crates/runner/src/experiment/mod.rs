//! Experiments: sweeps over bank geometry and defines, and the layout advisor.
//!
//! A sweep runs the cartesian product of the values it is given, each variant exactly as
//! `warpsim run` would run it alone, in parallel (rayon over variants, and over blocks within
//! each), and returns the rows in variant order, so the output never depends on the thread
//! count; a variant that fails is a row marked failed, never zeros. The advisor (`advise`,
//! `advise_code`) re-runs a program with other layouts of one shared array at a time.

use crate::side_by_side::Gate;
use crate::{Defines, Report, RunOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use warpsim_kernel::Diag;
use warpsim_lang::{load_str, Options};

/// What to sweep: every combination of the listed values.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    /// Bank counts.
    pub banks: Vec<u32>,
    /// Bank widths in bytes.
    pub bank_bytes: Vec<u32>,
    /// Defines and their values, in the order given (the last varies fastest).
    pub defines: Vec<(String, Vec<i64>)>,
}

/// One combination.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// Bank count.
    pub banks: u32,
    /// Bank width in bytes.
    pub bank_bytes: u32,
    /// The swept defines' values (the others keep their defaults or `--define`s).
    pub defines: Defines,
}

impl Variant {
    /// A short label: `32x4B N=1024 PAD=1`.
    pub fn label(&self) -> String {
        let mut s = format!("{}x{}B", self.banks, self.bank_bytes);
        for (k, v) in &self.defines.0 {
            let _ = write!(s, " {k}={v}");
        }
        s
    }
}

/// The result of one variant. A variant that could not run has no counters (`null` in
/// JSON, empty in CSV, "failed" in tables and charts), never zeros.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// The settings.
    #[serde(flatten)]
    pub variant: Variant,
    /// Shared load wavefronts.
    pub ld_wavefronts: Option<u64>,
    /// Shared load bank conflicts.
    pub ld_bank_conflicts: Option<u64>,
    /// Shared store wavefronts.
    pub st_wavefronts: Option<u64>,
    /// Shared store bank conflicts.
    pub st_bank_conflicts: Option<u64>,
    /// All shared wavefronts.
    pub wavefronts: Option<u64>,
    /// All bank conflicts.
    pub bank_conflicts: Option<u64>,
    /// Modelled warp-cycles stalled on the shared-memory pipe (`mio_throttle` +
    /// `short_scoreboard`; 0 with timing off).
    pub stall_cycles: Option<u64>,
    /// The timing model's elapsed cycles (`gpc__cycles_elapsed.max`; null with timing off).
    pub elapsed_cycles: Option<u64>,
    /// The timing model's duration in nanoseconds at the preset clock (null with timing off).
    pub duration_ns: Option<f64>,
    /// Whether the results matched the references (null: nothing to check, or failed).
    pub verified: Option<bool>,
    /// Why the variant could not run (then every counter is null).
    pub error: Option<String>,
}

/// The counter columns of a sweep row, in order (CSV and JSON; the Python package's
/// `warpsim.sweep` takes its columns from here): a failed row has them all empty.
pub const SWEEP_COUNTERS: [&str; 10] = [
    "ld_wavefronts",
    "ld_bank_conflicts",
    "st_wavefronts",
    "st_bank_conflicts",
    "wavefronts",
    "bank_conflicts",
    "stall_cycles",
    "elapsed_cycles",
    "duration_ns",
    "verified",
];

impl SweepRow {
    /// The row of `variant`, which ran and gave `r`.
    pub fn of(variant: Variant, r: &Report) -> SweepRow {
        SweepRow {
            variant,
            ld_wavefronts: Some(r.shared.ld_wavefronts),
            ld_bank_conflicts: Some(r.shared.ld_bank_conflicts),
            st_wavefronts: Some(r.shared.st_wavefronts),
            st_bank_conflicts: Some(r.shared.st_bank_conflicts),
            wavefronts: Some(r.shared.wavefronts()),
            bank_conflicts: Some(r.shared.bank_conflicts()),
            stall_cycles: Some(r.stall_cycles),
            elapsed_cycles: r.timing.as_ref().map(|t| t.elapsed_cycles),
            duration_ns: r.timing.as_ref().map(|t| t.duration_ns),
            verified: r.verified,
            error: None,
        }
    }
}

impl Variant {
    fn failed_row(self, error: String) -> SweepRow {
        SweepRow {
            variant: self,
            ld_wavefronts: None,
            ld_bank_conflicts: None,
            st_wavefronts: None,
            st_bank_conflicts: None,
            wavefronts: None,
            bank_conflicts: None,
            stall_cycles: None,
            elapsed_cycles: None,
            duration_ns: None,
            verified: None,
            error: Some(error),
        }
    }
}

/// Default of `warpsim sweep --max-variants`: the most variants one sweep runs.
pub const MAX_VARIANTS: u64 = 10_000;

/// How many variants `spec` has (the product of its value counts), without listing them;
/// saturates rather than overflowing.
pub fn variant_count(spec: &SweepSpec) -> u64 {
    spec.defines
        .iter()
        .map(|(_, v)| v.len() as u64)
        .chain([spec.banks.len() as u64, spec.bank_bytes.len() as u64])
        .fold(1u64, u64::saturating_mul)
}

/// The variants of a sweep, in order: banks outermost, then bank widths, then the defines
/// in the order given, the last varying fastest.
pub fn variants(spec: &SweepSpec) -> Vec<Variant> {
    let mut combos: Vec<Vec<(String, i64)>> = vec![Vec::new()];
    for (name, values) in &spec.defines {
        let mut next = Vec::with_capacity(combos.len() * values.len());
        for c in &combos {
            for &v in values {
                let mut c = c.clone();
                c.push((name.clone(), v));
                next.push(c);
            }
        }
        combos = next;
    }
    let mut out = Vec::new();
    for &banks in &spec.banks {
        for &bank_bytes in &spec.bank_bytes {
            for c in &combos {
                out.push(Variant {
                    banks,
                    bank_bytes,
                    defines: Defines(c.clone()),
                });
            }
        }
    }
    out
}

/// Loads `src` with the variant's defines on top of `base`, and runs it.
fn run_variant(
    path: &str,
    src: &str,
    base: &Options,
    run_opts: &RunOptions,
    v: &Variant,
    gate: &Gate,
) -> Result<Report, Diag> {
    let mut opts = base.clone();
    for (k, val) in &v.defines.0 {
        opts.defines.retain(|(n, _)| n != k);
        opts.defines.push((k.clone(), *val));
    }
    let prog = load_str(path, src, &opts)?;
    let ro = RunOptions {
        machine: run_opts.machine.with_geometry(v.banks, v.bank_bytes)?,
        ..run_opts.clone()
    };
    gate.run(&prog, &ro)
}

/// Runs every variant (in parallel) and returns one row each, in variant order. `tick` is
/// called once per finished variant (for a progress bar). List the variants with
/// [`variants`] after checking [`variant_count`] against a limit.
pub fn sweep(
    path: &str,
    src: &str,
    base: &Options,
    run_opts: &RunOptions,
    variants: Vec<Variant>,
    tick: &(dyn Fn() + Sync),
) -> Vec<SweepRow> {
    let gate = Gate::new(run_opts.max_memory);
    variants
        .into_par_iter()
        .map(|v| {
            let row = match run_variant(path, src, base, run_opts, &v, &gate) {
                Ok(r) => SweepRow::of(v, &r),
                Err(e) => v.failed_row(e.to_string()),
            };
            tick();
            row
        })
        .collect()
}

/// `1015808` → `1,015,808`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Sweep rows as a table for a person.
pub fn sweep_table(rows: &[SweepRow], style: crate::TableStyle) -> String {
    let mut t = comfy_table::Table::new();
    t.load_style(if style.unicode {
        comfy_table::presets::UTF8_FULL_CONDENSED
    } else {
        comfy_table::presets::ASCII_FULL_CONDENSED
    });
    t.force_no_tty();
    let define_names: Vec<String> = rows
        .first()
        .map(|r| r.variant.defines.0.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut header = vec!["banks".to_owned(), "bank bytes".to_owned()];
    header.extend(define_names.iter().cloned());
    header.extend(
        [
            "ld wavefronts",
            "st wavefronts",
            "bank conflicts",
            "stall cycles",
            "cycles",
            "time",
            "verified",
        ]
        .map(String::from),
    );
    t.set_header(header);
    for r in rows {
        let mut cells = vec![
            r.variant.banks.to_string(),
            r.variant.bank_bytes.to_string(),
        ];
        cells.extend(r.variant.defines.0.iter().map(|(_, v)| v.to_string()));
        match &r.error {
            Some(e) => {
                cells.extend(["-", "-", "-", "-", "-", "failed"].map(String::from));
                let first = e.lines().next().unwrap_or("");
                let cut: String = first.chars().take(200).collect();
                let more = if cut.len() < first.len() { "…" } else { "" };
                cells.push(format!("error: {cut}{more}"));
            }
            None => {
                for n in [
                    r.ld_wavefronts,
                    r.st_wavefronts,
                    r.bank_conflicts,
                    r.stall_cycles,
                ] {
                    cells.push(n.map_or("-".to_owned(), thousands));
                }
                cells.push(r.elapsed_cycles.map_or("-".to_owned(), thousands));
                cells.push(
                    r.duration_ns
                        .map_or("-".to_owned(), |ns| format!("{:.2} us", ns / 1000.0)),
                );
                cells.push(verdict(r.verified).to_owned());
            }
        }
        t.add_row(cells);
    }
    for c in 2.. {
        let Some(col) = t.column_mut(c) else { break };
        col.set_cell_alignment(comfy_table::CellAlignment::Right);
    }
    format!("{t}\n")
}

fn verdict(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "NO",
        None => "-",
    }
}

/// Sweep rows as CSV: one column per setting, then the counters.
pub fn sweep_csv(rows: &[SweepRow]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let define_names: Vec<String> = rows
        .first()
        .map(|r| r.variant.defines.0.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut header = vec!["banks".to_owned(), "bank_bytes".to_owned()];
    header.extend(define_names);
    header.extend(SWEEP_COUNTERS.map(String::from));
    header.extend(["status", "error"].map(String::from));
    // Writing to a Vec cannot fail.
    let _ = w.write_record(&header);
    for r in rows {
        let mut rec = vec![
            r.variant.banks.to_string(),
            r.variant.bank_bytes.to_string(),
        ];
        rec.extend(r.variant.defines.0.iter().map(|(_, v)| v.to_string()));
        rec.extend(
            [
                r.ld_wavefronts,
                r.ld_bank_conflicts,
                r.st_wavefronts,
                r.st_bank_conflicts,
                r.wavefronts,
                r.bank_conflicts,
                r.stall_cycles,
                r.elapsed_cycles,
            ]
            .map(|n| n.map_or(String::new(), |n| n.to_string())),
        );
        rec.push(r.duration_ns.map_or(String::new(), |ns| ns.to_string()));
        rec.push(match r.verified {
            Some(b) => b.to_string(),
            None => String::new(),
        });
        rec.push(if r.error.is_some() { "failed" } else { "ok" }.to_owned());
        rec.push(r.error.clone().unwrap_or_default());
        let _ = w.write_record(&rec);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// Sweep rows as JSON (an array of objects).
pub fn sweep_json(rows: &[SweepRow]) -> String {
    serde_json::to_string_pretty(rows).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// A chart of stall cycles per variant, as an SVG document.
pub fn sweep_svg(title: &str, rows: &[SweepRow]) -> Result<String, String> {
    use plotters::prelude::*;
    let n = rows.len().max(1);
    let height = 120 + 26 * n as u32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (960, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let max = rows
            .iter()
            .filter_map(|r| r.stall_cycles)
            .max()
            .unwrap_or(0);
        let top = (max + max / 10).max(1);
        let labels: Vec<String> = rows.iter().map(|r| r.variant.label()).collect();
        let label_w = labels.iter().map(|l| l.len()).max().unwrap_or(8) as u32 * 8 + 20;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{title}: stall cycles (bank conflicts) per variant"),
                ("sans-serif", 18),
            )
            .margin(16)
            .x_label_area_size(40)
            .y_label_area_size(label_w.min(420))
            .build_cartesian_2d(0u64..top, (0u32..n as u32 - 1).into_segmented())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .x_desc("stall cycles")
            .y_label_formatter(&|v| match v {
                plotters::prelude::SegmentValue::CenterOf(i)
                | plotters::prelude::SegmentValue::Exact(i) => {
                    // The first variant on top.
                    labels
                        .get(n - 1 - (*i as usize).min(n - 1))
                        .cloned()
                        .unwrap_or_default()
                }
                plotters::prelude::SegmentValue::Last => String::new(),
            })
            .x_label_formatter(&|v| thousands(*v))
            .draw()
            .map_err(|e| e.to_string())?;
        // Bars in row order (plotters' Histogram orders them by a hash: a different file
        // each run); a failed variant gets the word "failed", not an empty bar.
        let segs = (0u32..n as u32 - 1).into_segmented();
        let at = |i: usize| (segs.from_index(n - 1 - i), segs.from_index(n - i));
        chart
            .draw_series(rows.iter().enumerate().filter_map(|(i, r)| {
                let (Some(y), Some(ny)) = at(i) else {
                    return None;
                };
                let mut rect = Rectangle::new(
                    [(r.stall_cycles?, y), (0, ny)],
                    RGBColor(214, 96, 77).filled(),
                );
                rect.set_margin(3, 3, 0, 0);
                Some(rect)
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(rows.iter().enumerate().filter_map(|(i, r)| {
                r.error.as_ref()?;
                Some(Text::new(
                    "failed",
                    (0, SegmentValue::CenterOf((n - 1 - i) as u32)),
                    ("sans-serif", 14).into_font().color(&RGBColor(160, 0, 0)),
                ))
            }))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

mod advise;
mod advise_code;
pub use advise::*;
pub use advise_code::advise_code;
