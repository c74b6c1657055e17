//! The layout advisor of RON programs: re-runs a program with other layouts of one shared array
//! at a time (padding 0 to one bank cycle of elements per row, XOR swizzles of the column
//! index) and reports which remove the conflicts on that array and at what cost in shared
//! memory, and how many layouts it could not judge. (CUDA and PTX kernels: `advise_code`.)

use super::thousands;
use crate::side_by_side::Gate;
use crate::{run, MemSpace, Report, RunOptions};
use rayon::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use warpsim_kernel::Diag;
use warpsim_lang::{load_str, Layout, Options};

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
    /// A CUDA or PTX kernel's layout, of the array's bytes (`pad` and `swizzle` are 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layout: Option<ByteLayout>,
}

/// A layout of a CUDA or PTX kernel's shared array, of its bytes (`advise_code`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ByteLayout {
    /// `Swizzle<3,4,3>`, `pad 16 bytes every 128`, or `as declared`.
    pub name: String,
    /// Where byte offset `o` of the array goes, as C: `o ^ ((o >> 3) & 0x70)`.
    pub recipe: String,
}

impl Candidate {
    /// Whether it is the same layout as `other`.
    pub fn same(&self, other: &Candidate) -> bool {
        (self.pad, self.swizzle, &self.layout) == (other.pad, other.swizzle, &other.layout)
    }

    /// Whether it swizzles (rather than only pads).
    pub fn is_swizzle(&self) -> bool {
        self.swizzle != 0
            || self
                .layout
                .as_ref()
                .is_some_and(|l| l.name.starts_with("Swizzle"))
    }

    /// `pad 1`, `xor swizzle of 1-element groups`, `pad 1 + xor …`; a kernel's byte layout by
    /// its name and where it puts byte offset `o`.
    pub fn describe(&self) -> String {
        if let Some(l) = &self.layout {
            return match l.recipe.as_str() {
                "o" => l.name.clone(),
                r => format!("{} (byte offset o at {r})", l.name),
            };
        }
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
    /// What was searched, in words, where it is not paddings and swizzles of elements (a
    /// CUDA or PTX kernel's array).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searched: Option<String>,
}

impl ArrayAdvice {
    /// The advice on `array` from its `declared` layout and the layouts `tried` (None where
    /// the program could not use one): the verified layouts with the fewest conflicts, if
    /// fewer than the declared layout's, ranked ([`rank`]).
    pub(super) fn judge(
        array: String,
        declared: Candidate,
        tried: Vec<Option<Candidate>>,
        (max_pad, bank_cycle): (u32, u32),
        searched: Option<String>,
    ) -> ArrayAdvice {
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
        ArrayAdvice {
            array,
            declared,
            best,
            tried,
            max_pad,
            bank_cycle,
            failed_verification,
            unusable,
            searched,
        }
    }

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
        out.push(ArrayAdvice::judge(
            arr.name.clone(),
            declared,
            tried,
            (max_pad, bank_cycle),
            None,
        ));
    }
    Ok(out)
}

pub(super) fn candidate(
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
        layout: None,
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
            c.layout.as_ref().map(|l| l.name.clone()),
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
        let looked = a.searched.clone().unwrap_or_else(|| {
            format!(
                "paddings 0-{} ({}) and XOR swizzles",
                a.max_pad,
                if a.max_pad >= a.bank_cycle {
                    format!("a bank cycle is {} elements", a.bank_cycle)
                } else {
                    format!("of a bank cycle of {} elements", a.bank_cycle)
                }
            )
        });
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
    if out.len() == SHOWN && out.iter().all(|c| !c.is_swizzle()) {
        if let Some(swz) = best.iter().find(|c| c.is_swizzle()) {
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
        "layout",
    ]);
    for a in advice {
        for c in &a.tried {
            let declared = c.same(&a.declared);
            let best = a.best.iter().any(|b| b.same(c));
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
                c.layout.as_ref().map_or(String::new(), |l| l.name.clone()),
            ]);
        }
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// The advice as JSON.
pub fn advice_json(advice: &[ArrayAdvice]) -> String {
    serde_json::to_string_pretty(advice).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
