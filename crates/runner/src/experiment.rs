//! Experiments: sweeps over bank geometry and defines, and the layout advisor.
//!
//! A sweep runs the cartesian product of the values it is given, each variant exactly as
//! `warpsim run` would run it alone, in parallel (rayon over variants, and over blocks within
//! each), and returns the rows in variant order, so the output never depends on the thread
//! count; a variant that fails is a row marked failed, never zeros. The advisor re-runs a
//! program with other layouts of one shared array at a time (padding 0 to one bank cycle of
//! elements per row, XOR swizzles of the column index) and reports which remove the conflicts
//! on that array and at what cost in shared memory, and how many layouts it could not judge.

use crate::side_by_side::Gate;
use crate::{run, Defines, MemSpace, Report, RunOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use warpsim_kernel::Diag;
use warpsim_lang::{load_str, Layout, Options};

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

// ---- the layout advisor -----------------------------------------------------------------

/// One layout tried for one shared array.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// Padding elements per row.
    pub pad: u32,
    /// XOR swizzle group (0 = none).
    pub swizzle: u32,
    /// Stall cycles of the instructions that access this array.
    pub array_stall_cycles: u64,
    /// Stall cycles of the whole kernel.
    pub stall_cycles: u64,
    /// Shared wavefronts of the whole kernel.
    pub wavefronts: u64,
    /// 32-bit words of shared memory the padding takes.
    pub wasted_words: u32,
    /// Whether the results still matched the references.
    pub verified: Option<bool>,
    /// The timing model's elapsed cycles of the whole kernel (null with timing off).
    pub elapsed_cycles: Option<u64>,
    /// The timing model's issued warp instructions of the whole kernel (null with timing
    /// off): what breaks a tie in time (see [`rank`]).
    pub issued_warp_instructions: Option<u64>,
    /// The warp state the kernel's warps spent most cycles in, Nsight's name (null with
    /// timing off): what bounds it.
    pub top_stall: Option<String>,
}

impl Candidate {
    /// `pad 1`, `xor swizzle of 1-element groups`, `pad 1 + xor …`.
    pub fn describe(&self) -> String {
        match (self.pad, self.swizzle) {
            (0, 0) => "no padding, no swizzle".to_owned(),
            (p, 0) => format!("pad {p}"),
            (0, g) => format!("xor swizzle (groups of {g})"),
            (p, g) => format!("pad {p} + xor swizzle (groups of {g})"),
        }
    }
}

/// What the advisor found for one shared array.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrayAdvice {
    /// The array.
    pub array: String,
    /// Its declared layout.
    pub declared: Candidate,
    /// The layouts with the fewest bank conflicts on this array, fastest first (modelled
    /// elapsed cycles), then cheapest in words (empty when none beats the declared layout).
    pub best: Vec<Candidate>,
    /// Every layout tried, in the order tried (those the program cannot use left out).
    pub tried: Vec<Candidate>,
    /// The paddings tried were 0..=max_pad elements per row.
    pub max_pad: u32,
    /// Elements of this array in one cycle of all banks (banks × bank bytes ÷ element
    /// bytes): the paddings that can matter, and the default of `max_pad` (at most
    /// [`MAX_PAD`]).
    pub bank_cycle: u32,
    /// Layouts tried whose results did not match the references: not judged.
    pub failed_verification: u32,
    /// Layouts the program could not use (did not load or faulted): not judged.
    pub unusable: u32,
}

impl ArrayAdvice {
    /// Whether no layout could be judged: every one tried failed verification or could
    /// not be used.
    pub fn nothing_judged(&self) -> bool {
        self.tried.iter().all(|c| c.verified == Some(false))
    }
}

/// The largest padding the advisor tries (`--max-pad` above it is refused; the default, one
/// bank cycle, is cut to it).
pub const MAX_PAD: u32 = 1024;

/// Tries layouts for every shared array of the program (one array at a time, the others as
/// declared): paddings `0..=max_pad` (default: one bank cycle of the array's elements, at
/// most [`MAX_PAD`]) and every XOR swizzle group that fits its rows, counting each layout
/// run on `bar`.
pub fn advise(
    path: &str,
    src: &str,
    base: &Options,
    run_opts: &RunOptions,
    max_pad: Option<u32>,
    bar: &crate::progress::Progress,
) -> Result<Vec<ArrayAdvice>, Diag> {
    let prog = load_str(path, src, base)?;
    let declared_report = run(&prog, run_opts)?;
    let g = run_opts.machine.geometry();
    let mut out = Vec::new();
    let gate = Gate::new(run_opts.max_memory);
    for arr in &prog.shared {
        let cols = *arr.dims.last().unwrap_or(&1);
        let bank_cycle = (g.banks * g.bank_bytes / arr.elem.bytes()).max(1);
        let max_pad = max_pad.unwrap_or(bank_cycle).min(MAX_PAD);
        let mut layouts: Vec<(u32, u32)> = (0..=max_pad).map(|p| (p, 0)).collect();
        let mut g = 1;
        while g < cols {
            if cols % g == 0 && (cols / g).is_power_of_two() {
                layouts.push((0, g));
            }
            g *= 2;
        }
        bar.add_len(layouts.len() as u64);
        let declared = candidate(arr.pad, arr.swizzle, &arr.name, &declared_report, arr);
        let tried: Vec<Option<Candidate>> = layouts
            .par_iter()
            .map(|&(pad, swizzle)| {
                if (pad, swizzle) == (arr.pad, arr.swizzle) {
                    return Some(declared.clone());
                }
                let mut opts = base.clone();
                opts.layouts.retain(|(n, _)| n != &arr.name);
                opts.layouts.push((
                    arr.name.clone(),
                    Layout {
                        pad: Some(pad),
                        swizzle: Some(swizzle),
                    },
                ));
                // A layout this program cannot use (a swizzle that would split its vector
                // accesses, a size over the limit) is counted, not judged.
                let p = load_str(path, src, &opts).ok();
                let r = p.as_ref().and_then(|p| gate.run(p, run_opts).ok());
                bar.tick();
                let (p, r) = (p?, r?);
                let a = p.shared.iter().find(|s| s.name == arr.name)?;
                Some(candidate(pad, swizzle, &arr.name, &r, a))
            })
            .collect();
        let unusable = tried.iter().filter(|c| c.is_none()).count() as u32;
        let tried: Vec<Candidate> = tried.into_iter().flatten().collect();
        let failed_verification = tried.iter().filter(|c| c.verified == Some(false)).count() as u32;
        let min = tried
            .iter()
            .filter(|c| c.verified != Some(false))
            .map(|c| c.array_stall_cycles)
            .min()
            .unwrap_or(declared.array_stall_cycles);
        let mut best: Vec<Candidate> = if min < declared.array_stall_cycles {
            tried
                .iter()
                .filter(|c| c.array_stall_cycles == min && c.verified != Some(false))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        rank(&mut best);
        out.push(ArrayAdvice {
            array: arr.name.clone(),
            declared,
            best,
            tried,
            max_pad,
            bank_cycle,
            failed_verification,
            unusable,
        });
    }
    Ok(out)
}

fn candidate(
    pad: u32,
    swizzle: u32,
    name: &str,
    r: &Report,
    arr: &warpsim_kernel::SharedInfo,
) -> Candidate {
    let array_stall_cycles = r
        .per_instruction
        .iter()
        .filter(|i| i.space == MemSpace::Shared && i.array == name)
        .map(|i| i.bank_conflicts.unwrap_or(0))
        .sum();
    let top_stall = r.timing.as_ref().and_then(|t| {
        warpsim_timing::REASONS
            .iter()
            .zip(t.detail.cycles)
            .filter(|&(_, c)| c > 0)
            .max_by_key(|&(_, c)| c)
            .map(|(r, _)| r.name().to_owned())
    });
    Candidate {
        pad,
        swizzle,
        array_stall_cycles,
        stall_cycles: r.stall_cycles,
        wavefronts: r.shared.wavefronts(),
        wasted_words: arr.wasted_words(),
        verified: r.verified,
        elapsed_cycles: r.timing.as_ref().map(|t| t.elapsed_cycles),
        issued_warp_instructions: r.timing.as_ref().map(|t| t.issued_warp_instructions),
        top_stall,
    }
}

/// Orders equally conflict-free layouts best first: by modelled time, where a layout within
/// [`NO_GAIN`] of the fastest counts as fast as it (below the model's resolution, and below
/// the H200's own spread: the 32x32 transpose's XOR swizzle took 4,103 SM-active cycles in
/// the median of five runs, 4,409 in one); among those as fast, the one that issues fewer
/// instructions (a swizzle's XOR and address arithmetic take issue slots the padding does not;
/// on the H200 the swizzled transpose is the slower of the two, 4,103 against 4,010), then
/// the one that wastes fewer words.
fn rank(best: &mut [Candidate]) {
    let fastest = best.iter().filter_map(|c| c.elapsed_cycles).min();
    let tier = |c: &Candidate| match (c.elapsed_cycles, fastest) {
        (Some(e), Some(f)) if e as f64 <= f as f64 * (1.0 + NO_GAIN) => 0,
        (Some(e), _) => e,
        (None, _) => u64::MAX,
    };
    best.sort_by_key(|c| {
        (
            tier(c),
            c.issued_warp_instructions.unwrap_or(0),
            c.wasted_words,
            c.pad,
            c.swizzle,
        )
    });
}

/// Below this gain in modelled time (a fraction of the declared layout's elapsed cycles) the
/// advice says a layout does not speed the kernel up.
pub const NO_GAIN: f64 = 0.02;

/// What a warp state says bounds a kernel, in words.
fn bound_by(stall: &str) -> String {
    match stall {
        "long_scoreboard" | "lg_throttle" | "drain" => "global memory".into(),
        "mio_throttle" | "short_scoreboard" => "the shared-memory pipe".into(),
        "barrier" => "barriers".into(),
        "no_instruction" => "launch and instruction fetch".into(),
        "wait" | "math_pipe_throttle" | "dispatch_stall" | "selected" | "not_selected" => {
            "instruction issue and arithmetic".into()
        }
        s => format!("{s} stalls"),
    }
}

/// `modelled time 13,211 → 6,395 cycles (−51.6%)`, or nothing with timing off.
fn time_change(from: &Candidate, to: &Candidate) -> Option<String> {
    let (a, b) = (from.elapsed_cycles?, to.elapsed_cycles?);
    let pct = if a == 0 {
        0.0
    } else {
        (b as f64 / a as f64 - 1.0) * 100.0
    };
    let sign = if pct < 0.0 { "−" } else { "+" };
    Some(format!(
        "modelled time {} → {} cycles ({sign}{:.1}%)",
        thousands(a),
        thousands(b),
        pct.abs()
    ))
}

/// How many of the best layouts the text shows per array (the cheapest).
const SHOWN: usize = 4;

/// The advice for a person: for each array, how far the search went, then the cheapest
/// layouts that remove (or most reduce) its conflicts.
pub fn advice_text(advice: &[ArrayAdvice]) -> String {
    let mut s = String::new();
    if advice.is_empty() {
        s.push_str("the program has no shared arrays: nothing to advise\n");
    }
    for a in advice {
        let d = &a.declared;
        let looked = format!(
            "paddings 0-{} ({}) and XOR swizzles",
            a.max_pad,
            if a.max_pad >= a.bank_cycle {
                format!("a bank cycle is {} elements", a.bank_cycle)
            } else {
                format!("of a bank cycle of {} elements", a.bank_cycle)
            }
        );
        if a.nothing_judged() {
            let _ = writeln!(
                s,
                "{}: nothing could be judged — all {} layouts tried ({looked}) failed \
                 verification; fix the program's results first, or advise with --no-verify",
                a.array,
                a.tried.len()
            );
            continue;
        }
        let skipped = a.failed_verification + a.unusable;
        let note = if skipped > 0 {
            format!(
                "; {} layouts failed verification and {} could not be used: not judged",
                a.failed_verification, a.unusable
            )
        } else {
            String::new()
        };
        if a.best.is_empty() {
            let time = d.elapsed_cycles.map_or(String::new(), |c| {
                format!(", modelled time {} cycles", thousands(c))
            });
            let _ = writeln!(
                s,
                "{}: keep {} — bank conflicts {} on this array{time}; no layout tried \
                 ({looked}) does better{note}",
                a.array,
                d.describe(),
                thousands(d.array_stall_cycles)
            );
            continue;
        }
        let _ = writeln!(s, "{}: tried {looked}{note}", a.array);
        for b in shown(&a.best) {
            let what = if b.array_stall_cycles == 0 {
                "removes the conflicts"
            } else {
                "reduces the conflicts most"
            };
            let time = time_change(d, b).map_or(String::new(), |t| format!(", {t}"));
            let _ = writeln!(
                s,
                "{}: {} → bank conflicts {} → {}{time}, {} words per {} ({what})",
                a.array,
                b.describe(),
                thousands(d.array_stall_cycles),
                thousands(b.array_stall_cycles),
                thousands(b.wasted_words as u64),
                a.array,
            );
        }

        if a.best.len() > SHOWN {
            let _ = writeln!(
                s,
                "{}: and {} more with as few conflicts, each slower or costing more instructions or \
                 words (--format json lists them)",
                a.array,
                a.best.len() - SHOWN
            );
        }
        if let Some(line) = no_gain(a) {
            s.push_str(&line);
        }
    }
    s
}

/// The best layouts the text shows: the first [`SHOWN`] in rank order, except that the
/// best-ranked swizzle takes the last place when the paddings fill the others, so both kinds
/// of fix are on screen.
fn shown(best: &[Candidate]) -> Vec<&Candidate> {
    let mut out: Vec<&Candidate> = best.iter().take(SHOWN).collect();
    if out.len() == SHOWN && out.iter().all(|c| c.swizzle == 0) {
        if let Some(swz) = best.iter().find(|c| c.swizzle != 0) {
            out[SHOWN - 1] = swz;
        }
    }
    out
}

/// When the fastest of the best layouts does not speed the kernel up (by [`NO_GAIN`] or
/// more of its modelled time), a line that says so and what bounds the kernel.
fn no_gain(a: &ArrayAdvice) -> Option<String> {
    let (d, b) = (&a.declared, a.best.first()?);
    let (from, to) = (d.elapsed_cycles?, b.elapsed_cycles?);
    if from == 0 || (from as f64 - to as f64) >= NO_GAIN * from as f64 {
        return None;
    }
    let what = if b.array_stall_cycles == 0 {
        "removes every conflict"
    } else {
        "removes the most conflicts"
    };
    let bound = b
        .top_stall
        .as_deref()
        .map_or("something else".to_owned(), bound_by);
    Some(format!(
        "{}: {} {what}, but the kernel is bound by {bound}: {} — it does not speed the kernel \
         up\n",
        a.array,
        b.describe(),
        time_change(d, b)?
    ))
}

/// Every layout tried, as CSV: one row per array and layout.
pub fn advice_csv(advice: &[ArrayAdvice]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.write_record([
        "array",
        "pad",
        "swizzle",
        "array_stall_cycles",
        "stall_cycles",
        "wavefronts",
        "wasted_words",
        "verified",
        "declared",
        "best",
        "elapsed_cycles",
        "issued_warp_instructions",
        "top_stall",
    ]);
    for a in advice {
        for c in &a.tried {
            let declared = (c.pad, c.swizzle) == (a.declared.pad, a.declared.swizzle);
            let best = a
                .best
                .iter()
                .any(|b| (b.pad, b.swizzle) == (c.pad, c.swizzle));
            let _ = w.write_record([
                a.array.clone(),
                c.pad.to_string(),
                c.swizzle.to_string(),
                c.array_stall_cycles.to_string(),
                c.stall_cycles.to_string(),
                c.wavefronts.to_string(),
                c.wasted_words.to_string(),
                c.verified.map_or(String::new(), |v| v.to_string()),
                declared.to_string(),
                best.to_string(),
                c.elapsed_cycles.map_or(String::new(), |v| v.to_string()),
                c.issued_warp_instructions
                    .map_or(String::new(), |v| v.to_string()),
                c.top_stall.clone().unwrap_or_default(),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The advice as JSON.
pub fn advice_json(advice: &[ArrayAdvice]) -> String {
    serde_json::to_string_pretty(advice).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
