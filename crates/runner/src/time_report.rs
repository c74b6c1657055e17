//! The table's time section: the timing model's estimate, its stall breakdown, what bank
//! conflicts cost, and the source lines where warps wait longest.

use crate::table::{new_table, right_align, TableStyle};
use crate::Report;
use std::fmt::Write;
use warpsim_kernel::Program;
use warpsim_timing::{Reason, REASONS};

/// Stall cycles of one source line, like Nsight Compute's Source page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStalls {
    /// 1-based line.
    pub line: u32,
    /// The source text of its first instruction.
    pub text: String,
    /// Warp instructions issued from it.
    pub issued: u64,
    /// Warp-cycles per reason spent at its instructions.
    pub cycles: [u64; warpsim_timing::N_REASONS],
}

impl LineStalls {
    fn stalled(&self) -> u64 {
        self.cycles.iter().sum::<u64>() - self.cycles[Reason::Selected as usize]
    }
}

/// The lines of `prog` whose instructions warps waited at, most stalled first (at most `n`).
pub(crate) fn line_stalls(
    prog: &Program,
    timing: &warpsim_timing::Timing,
    n: usize,
) -> Vec<LineStalls> {
    let mut lines: Vec<LineStalls> = Vec::new();
    // Each line's place in `lines` (a search of `lines` per instruction made a large program's
    // report quadratic).
    let mut at: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (pc, c) in timing.detail.per_pc.iter().enumerate() {
        let issued = timing.detail.issued_pc.get(pc).copied().unwrap_or(0);
        if issued == 0 && c.iter().all(|&v| v == 0) {
            continue;
        }
        let Some(info) = prog.info.get(pc) else {
            continue;
        };
        let k = *at.entry(info.line).or_insert_with(|| {
            lines.push(LineStalls {
                line: info.line,
                text: info.text.to_string(),
                issued: 0,
                cycles: [0; warpsim_timing::N_REASONS],
            });
            lines.len() - 1
        });
        let l = &mut lines[k];
        l.issued += issued;
        for (a, b) in l.cycles.iter_mut().zip(c) {
            *a += b;
        }
    }
    lines.sort_by_key(|l| (std::cmp::Reverse(l.stalled()), l.line));
    lines.truncate(n);
    lines
}

fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut o = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            o.push(',');
        }
        o.push(c);
    }
    o
}

/// The largest reasons of `cycles`, as `name value` pairs (value = cycles / `per`).
fn top_reasons(cycles: &[u64; warpsim_timing::N_REASONS], per: f64, n: usize) -> String {
    let mut v: Vec<(Reason, u64)> = REASONS
        .iter()
        .map(|&r| (r, cycles[r as usize]))
        .filter(|&(_, c)| c > 0)
        .collect();
    v.sort_by_key(|&(r, c)| (std::cmp::Reverse(c), r as u8));
    v.truncate(n);
    v.iter()
        .map(|(r, c)| format!("{} {:.1}", r.name(), *c as f64 / per.max(1.0)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The time section (empty without timing).
pub(crate) fn section(r: &Report, style: &TableStyle) -> String {
    let style = *style;
    let Some(t) = &r.timing else {
        return "time: not modelled (--no-timing)\n\n".into();
    };
    let mut o = String::new();
    let mu = if style.unicode { "µs" } else { "us" };
    let sampled = if t.sampled > 1 {
        format!(
            "; sampled: {} of the SMs simulated, for one block in {}",
            t.sms / t.sampled,
            t.sampled
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        o,
        "time ({} model: {} SMs at {} MHz, {} registers per thread{sampled})",
        t.gpu, t.sms, t.clock_mhz, t.detail.regs_per_thread
    );
    let mut tb = new_table(style);
    tb.set_header(vec!["modelled", "value", "Nsight Compute metric"]);
    let issued = t.issued_warp_instructions;
    let rows = [
        (
            "estimated duration",
            format!("{:.2} {mu}", t.duration_ns / 1000.0),
            "gpu__time_duration.sum",
        ),
        (
            "elapsed cycles",
            thousands(t.elapsed_cycles),
            "gpc__cycles_elapsed.max",
        ),
        (
            "SM active cycles (average)",
            thousands(t.sm_active_cycles_avg.round() as u64),
            "sm__cycles_active.avg",
        ),
        (
            "shared pipe utilisation",
            format!("{:.1}%", t.shared_pipe_utilization * 100.0),
            "l1tex__data_pipe_lsu_wavefronts_mem_shared",
        ),
        (
            "issued warp instructions",
            thousands(issued),
            "smsp__inst_executed.sum",
        ),
        (
            "warp cycles per issued instruction",
            format!("{:.2}", t.warp_cycles_per_issued_instruction),
            "smsp__average_warp_latency_per_inst_issued",
        ),
    ];
    for (a, b, c) in rows {
        tb.add_row(vec![a.to_string(), b, c.to_string()]);
    }
    right_align(&mut tb, 1..2);
    let _ = writeln!(o, "{tb}");
    let _ = writeln!(
        o,
        "stalls, cycles per issued instruction: {}",
        top_reasons(&t.detail.cycles, issued as f64, 8)
    );
    let pct = if t.elapsed_cycles > 0 {
        t.conflict_cost_cycles as f64 * 100.0 / t.elapsed_cycles as f64
    } else {
        0.0
    };
    let _ = writeln!(
        o,
        "bank conflicts cost {} cycles ({pct:.0}%): {} elapsed as run, {} with every shared access conflict-free",
        if t.conflict_cost_cycles < 0 {
            format!("-{}", thousands(t.conflict_cost_cycles.unsigned_abs()))
        } else {
            thousands(t.conflict_cost_cycles as u64)
        },
        thousands(t.elapsed_cycles),
        thousands(t.detail.ideal_elapsed_cycles)
    );
    let _ = writeln!(
        o,
        "stall cycles: {} (modelled warp-cycles waiting on the shared pipe: mio_throttle + short_scoreboard)",
        thousands(r.stall_cycles)
    );
    o.push('\n');
    if !r.line_stalls.is_empty() {
        let _ = writeln!(
            o,
            "where warps wait (warp-cycles per source line, top reasons)"
        );
        let mut tb = new_table(style);
        tb.set_header(vec![
            "location",
            "text",
            "issued",
            "stalled",
            "top reasons (cycles per issue)",
        ]);
        for l in &r.line_stalls {
            let mut c = l.cycles;
            c[Reason::Selected as usize] = 0;
            tb.add_row(vec![
                format!("{}:{}", r.file, l.line),
                l.text.clone(),
                thousands(l.issued),
                thousands(l.stalled()),
                top_reasons(&c, l.issued as f64, 3),
            ]);
        }
        right_align(&mut tb, 2..4);
        let _ = writeln!(o, "{tb}");
        o.push('\n');
    }
    o
}
