//! The report for a person: header, totals, costliest lines, bank heat line, verification,
//! emulator speed.

use crate::{xyz, MemSpace, Report};
use comfy_table::{presets, CellAlignment, Table};
use std::fmt::Write;

/// How to draw the table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TableStyle {
    /// Box-drawing characters and a block-character heat ramp (for terminals); otherwise
    /// plain ASCII. Never any ANSI escape codes.
    pub unicode: bool,
}

const RAMP_UNICODE: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const RAMP_ASCII: [char; 10] = [' ', '.', ':', '-', '=', '+', '*', '#', '%', '@'];

/// One character per value, scaled to the largest (any nonzero value shows at least the
/// first mark).
pub(crate) fn heat(values: &[u64], unicode: bool) -> String {
    let ramp: &[char] = if unicode { &RAMP_UNICODE } else { &RAMP_ASCII };
    let max = values.iter().copied().max().unwrap_or(0);
    let top = (ramp.len() - 1) as f64;
    values
        .iter()
        .map(|&v| {
            if v == 0 || max == 0 {
                ramp[0]
            } else {
                let k = ((v as f64 / max as f64) * top).round().max(1.0) as usize;
                ramp[k.min(ramp.len() - 1)]
            }
        })
        .collect()
}

/// `12345678` → `12.3 M`.
pub(crate) fn si(v: f64) -> String {
    let (d, s) = if v >= 1e9 {
        (1e9, " G")
    } else if v >= 1e6 {
        (1e6, " M")
    } else if v >= 1e3 {
        (1e3, " k")
    } else {
        return format!("{v:.0}");
    };
    format!("{:.1}{s}", v / d)
}

/// Seconds for a person: `1.23 s`, `45.6 ms`, `789 µs` (ASCII: `us`).
pub(crate) fn duration(s: f64, unicode: bool) -> String {
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{:.0} {}", s * 1e6, if unicode { "µs" } else { "us" })
    }
}

pub(crate) fn new_table(style: TableStyle) -> Table {
    let mut t = Table::new();
    t.load_style(if style.unicode {
        presets::UTF8_FULL_CONDENSED
    } else {
        presets::ASCII_FULL_CONDENSED
    });
    t.force_no_tty();
    t
}

pub(crate) fn right_align(t: &mut Table, cols: std::ops::Range<usize>) {
    for c in cols {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
}

impl Report {
    /// The report as text for a person.
    pub fn to_table(&self, style: TableStyle) -> String {
        let mut o = String::new();
        let dash = if style.unicode { "—" } else { "-" };
        let times = if style.unicode { "×" } else { "x" };

        // Header.
        let _ = writeln!(o, "{} {dash} {}", self.kernel, self.file);
        let defines: Vec<String> = self
            .defines
            .0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !defines.is_empty() {
            let _ = writeln!(o, "defines   {}", defines.join(" "));
        }
        let _ = writeln!(
            o,
            "launch    grid {} {times} block {} ({} blocks of {} threads), {} B shared per block",
            xyz(self.launch.grid),
            xyz(self.launch.block),
            self.launch.blocks,
            self.launch.threads_per_block,
            self.launch.shared_bytes
        );
        let _ = writeln!(
            o,
            "geometry  {} banks {times} {} B",
            self.geometry.banks, self.geometry.bank_bytes
        );
        if let Some(r) = &self.relayout {
            let _ = writeln!(
                o,
                "relayout  {r}: its accesses priced in that layout (the data is where the \
                 kernel puts it)"
            );
        }
        if let Some(s) = self.shared_stream {
            let what = match s {
                "as-written" => "shared accesses as the PTX writes them (--no-merge)",
                _ => "shared accesses merged as ptxas does (--no-merge: as written)",
            };
            let _ = writeln!(o, "stream    {what}");
        }
        o.push('\n');

        // Totals.
        let s = &self.shared;
        let mut t = new_table(style);
        t.set_header(vec![
            "shared memory",
            "wavefronts",
            "bank conflicts",
            "instructions",
        ]);
        t.add_row(vec![
            "loads".to_string(),
            s.ld_wavefronts.to_string(),
            s.ld_bank_conflicts.to_string(),
            s.ld_instructions.to_string(),
        ]);
        t.add_row(vec![
            "stores".to_string(),
            s.st_wavefronts.to_string(),
            s.st_bank_conflicts.to_string(),
            s.st_instructions.to_string(),
        ]);
        if s.atom_instructions > 0 {
            t.add_row(vec![
                "atomics".to_string(),
                s.atom_wavefronts.to_string(),
                s.atom_bank_conflicts.to_string(),
                s.atom_instructions.to_string(),
            ]);
        }
        if s.gmma_instructions > 0 {
            t.add_row(vec![
                "tensor cores".to_string(),
                s.gmma_wavefronts.to_string(),
                s.gmma_bank_conflicts.to_string(),
                s.gmma_instructions.to_string(),
            ]);
        }
        if s.ldgsts_instructions > 0 {
            t.add_row(vec![
                "async copies".to_string(),
                s.ldgsts_wavefronts.to_string(),
                s.ldgsts_bank_conflicts.to_string(),
                s.ldgsts_instructions.to_string(),
            ]);
        }
        t.add_row(vec![
            "total".to_string(),
            s.wavefronts().to_string(),
            s.bank_conflicts().to_string(),
            (s.ld_instructions + s.st_instructions + s.atom_instructions).to_string(),
        ]);
        right_align(&mut t, 1..4);
        let _ = writeln!(o, "{t}");
        if s.ldgsts_instructions > 0 {
            let _ = writeln!(
                o,
                "async copies (cp.async, Source page op_ldgsts; not in the total): {} global \
                 sectors read, {} hardware op_ldgsts bank conflicts",
                s.ldgsts_sectors, s.ldgsts_hw_bank_conflicts
            );
        }
        if s.gmma_instructions > 0 {
            let _ = writeln!(
                o,
                "tensor cores (wgmma reading its shared operands, Nsight's op_gmma; not in the \
                 total): one wavefront per core matrix of 8 rows of 16 bytes"
            );
        }
        if s.tma_instructions > 0 {
            let _ = writeln!(
                o,
                "TMA and bulk copies (UTMALDG/UTMASTG/UBLKCP): {} instructions, {} copies; no \
                 shared-pipe wavefronts (the H200 shows them only in l1tex__data_bank_writes/reads)",
                s.tma_instructions, s.tma_copies
            );
        }
        if s.mbarrier_instructions > 0 {
            let _ = writeln!(
                o,
                "mbarrier operations (SYNCS): {} instructions; no shared-pipe wavefronts",
                s.mbarrier_instructions
            );
        }
        if s.wavefronts() > 0 {
            let _ = writeln!(
                o,
                "ideal: {} wavefronts {dash} conflicts cost {:.2}{times} the ideal",
                s.ideal_wavefronts,
                self.cost_over_ideal()
            );
        } else if s.ldgsts_instructions == 0 && s.tma_instructions == 0 && s.gmma_instructions == 0
        {
            let _ = writeln!(o, "no shared-memory accesses");
        }
        if let Some(c) = &self.constant {
            let _ = writeln!(
                o,
                "constant memory: {} LDC ({} divergent, {} replays, {} cache requests), {} ULDC",
                c.ldc_instructions,
                c.ldc_divergent,
                c.ldc_replays,
                c.idc_requests,
                c.uldc_instructions
            );
        }
        o.push('\n');

        o.push_str(&crate::time_report::section(self, &style));

        // Costliest lines.
        let top = self.costliest(10);
        if !top.is_empty() {
            let _ = writeln!(o, "costliest memory instructions");
            let mut t = new_table(style);
            t.set_header(vec![
                "location",
                "access",
                "text",
                "executions",
                "wavefronts",
                "conflicts",
                "degree",
            ]);
            for i in top {
                let space = match i.space {
                    MemSpace::Shared => "shared",
                    MemSpace::Global => "global",
                    MemSpace::Local => "local",
                    MemSpace::Const => "const",
                };
                let opt = |v: Option<u64>| v.map_or_else(|| dash.to_string(), |v| v.to_string());
                t.add_row(vec![
                    format!("{}:{}:{}", self.file, i.line, i.col),
                    match (&i.atomic, &i.instruction) {
                        (Some(a), _) => format!("{a} {space}"),
                        (None, Some(n)) => n.clone(),
                        (None, None) => format!("{} {space} {}B", i.op, i.width),
                    },
                    i.text.clone(),
                    i.executions.to_string(),
                    opt(i.wavefronts),
                    opt(i.bank_conflicts),
                    i.conflict_degree
                        .map_or_else(|| dash.to_string(), |d| format!("{d}-way")),
                ]);
            }
            right_align(&mut t, 3..7);
            let _ = writeln!(o, "{t}");
            o.push('\n');
        }

        // Bank heat.
        let max = self.per_bank.iter().copied().max().unwrap_or(0);
        let total: u64 = self.per_bank.iter().sum();
        if total > 0 {
            let _ = writeln!(
                o,
                "words served per bank (max {max}, min {}, total {total})",
                self.per_bank.iter().copied().min().unwrap_or(0)
            );
            let bar = if style.unicode { '│' } else { '|' };
            let line = heat(&self.per_bank, style.unicode);
            let chars: Vec<char> = line.chars().collect();
            for (k, chunk) in chars.chunks(64).enumerate() {
                let first = k * 64;
                let last = first + chunk.len() - 1;
                let text: String = chunk.iter().collect();
                let _ = writeln!(o, "  banks {first:>3}-{last:<3} {bar}{text}{bar}");
            }
            o.push('\n');
        }

        o.push_str(&crate::race::section(self.races.as_deref()));
        for w in &self.warnings {
            let _ = writeln!(
                o,
                "warning: {}:{}:{}: {}",
                self.file, w.line, w.col, w.message
            );
            let _ = writeln!(o, "  {}\n", w.text);
        }

        // Verification.
        match self.verified {
            None => {
                let _ = writeln!(
                    o,
                    "verified: not checked (no buffer has an expect, or --no-verify)"
                );
            }
            Some(ok) => {
                let _ = writeln!(o, "verified: {}", if ok { "yes" } else { "NO" });
                for v in &self.verification {
                    if let Some(check) = &v.check {
                        let what = format!("{} (check `{check}`)", v.buffer);
                        let _ = match &v.first_failure {
                            None => writeln!(o, "  {what}: ok ({} elements)", v.elements),
                            Some(f) => writeln!(
                                o,
                                "  {what}: fails at {} of {} elements; first at {f}",
                                v.mismatches, v.elements
                            ),
                        };
                    } else if v.ok {
                        let tol = v
                            .abs_tolerance
                            .map(|t| {
                                format!(
                                    ", max error {:.3e} within {:.3e}",
                                    v.max_abs_error.unwrap_or(0.0),
                                    t
                                )
                            })
                            .unwrap_or_default();
                        let _ = writeln!(o, "  {}: ok ({} elements{tol})", v.buffer, v.elements);
                    } else {
                        let first = v
                            .first_mismatch
                            .map(|m| {
                                format!("; first at [{}]: got {}, want {}", m.index, m.got, m.want)
                            })
                            .unwrap_or_default();
                        let _ = writeln!(
                            o,
                            "  {}: {} of {} elements differ{first}",
                            v.buffer, v.mismatches, v.elements
                        );
                    }
                }
            }
        }

        // Emulator.
        let e = &self.emulator;
        let _ = writeln!(
            o,
            "emulator: {} warp instructions ({} thread instructions) in {} {dash} {} warp instructions/s on {} thread{}",
            e.warp_instructions,
            e.thread_instructions,
            duration(e.seconds, style.unicode),
            si(e.warp_instructions_per_second),
            e.threads,
            if e.threads == 1 { "" } else { "s" }
        );
        o
    }
}
