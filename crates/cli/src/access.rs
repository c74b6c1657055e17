//! `warpsim access TRACE`: price every warp access of a trace file.
//!
//! A trace has one access a line, `name op width o0 … o31`: `op` is `ld`, `st`,
//! `atom.OP[.TYPE]` or `red.OP[.TYPE]`, `width` 1, 2, 4, 8 or 16 bytes (4 or 8 for atomics),
//! `oN` lane N's byte offset into shared memory (`-1` or `_`: lane inactive). `#` starts a
//! comment; blank lines are skipped. This is the format of `tests/fixtures/h200/patterns.txt`
//! and `narrow_patterns.txt`. `ldmatrix`/`stmatrix` and `cp.async` lines have formats of their
//! own (module `access_tensor`).

use crate::access_tensor;
use crate::args::{Format, MachineArgs, OutputArgs, TraceFormats};
use crate::print;
use comfy_table::{presets, CellAlignment, Table};
use miette::miette;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Read};
use warpsim_smem::{
    atomic_cost, cost, AccessKind, AtomicError, Error as SmemError, Geometry, WARP,
};

/// Arguments of `warpsim access`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace file, one access a line: `name op width o0 … o31` (`-` reads stdin).
    trace: String,
    #[command(flatten)]
    machine: MachineArgs,
    #[command(flatten)]
    output: OutputArgs<TraceFormats>,
}

/// One priced line of the trace. For an atomic, `wavefronts` and `bank_conflicts` are Nsight's
/// atomic counters; a compare-and-swap loop (`atom.add.f32`, 64-bit `add`) also has the loop's
/// loads (Nsight counts them as loads) and its trips. For `ldsm`/`stsm`/`cp.async`,
/// `wavefronts` and `bank_conflicts` are the Source page's, beside Nsight's "ideal" and the
/// hardware counters (and, for `cp.async`, the global sectors and tag requests).
#[derive(Serialize, Default)]
pub(crate) struct Row {
    pub name: String,
    pub op: String,
    pub width: u32,
    pub wavefronts: u32,
    pub bank_conflicts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_wavefronts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_bank_conflicts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atoms_executed: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sectors: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tags: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_wavefronts: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_bank_conflicts: Option<u32>,
}

/// What is wrong with a trace line, and where (the column, where one field is at fault).
pub(crate) struct LineError {
    pub col: Option<usize>,
    pub msg: String,
}

impl From<String> for LineError {
    fn from(msg: String) -> Self {
        LineError { col: None, msg }
    }
}

/// One access of the trace, as read.
struct Access {
    name: String,
    op: AccessKind,
    width: u32,
    addrs: [u32; WARP],
    mask: u32,
}

/// Malformed lines are listed up to this many.
const MAX_ERRORS: usize = 20;

const FORMAT: &str = "write `name ld|st|atom.OP|red.OP 1|2|4|8|16 o0 … o31`: a name, the access \
                      kind, the width in bytes and 32 byte offsets, `-1` or `_` for an inactive \
                      lane";

/// Largest trace read by default, in bytes (256 MiB; `WARPSIM_MAX_FILE_BYTES` sets another):
/// a bigger or endless one (`yes |`) is refused once this much has been read; a file that is
/// not a regular file (`/dev/zero`, a FIFO) is refused unread.
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// Tables of more rows than this are drawn without comfy-table (which keeps every cell as
/// styled strings: 1.8 GB for 10⁶ rows), in its ASCII style.
const BIG_TABLE: usize = 10_000;

pub fn run(args: Args) -> miette::Result<()> {
    let geom = warpsim_machine::Machine::resolve(&args.machine)?.geometry();
    let rows = read_and_price(&args.trace, &geom)?;
    let out = match args.output.format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&rows)
                .map_err(|e| miette!("cannot write JSON: {e}"))?;
            s.push('\n');
            s
        }
        Format::Tsv => {
            let extra = extra_columns(&rows);
            let mut s = String::from("name\top\twidth\twavefronts\tbank_conflicts");
            for h in &EXTRA_HEAD[..extra] {
                let _ = write!(s, "\t{h}");
            }
            s.push('\n');
            for r in &rows {
                let _ = write!(
                    s,
                    "{}\t{}\t{}\t{}\t{}",
                    r.name, r.op, r.width, r.wavefronts, r.bank_conflicts
                );
                for c in &extra_cells(r)[..extra] {
                    let _ = write!(s, "\t{c}");
                }
                s.push('\n');
            }
            s
        }
        _ => table(&rows, std::io::stdout().is_terminal()),
    };
    print(&out)
}

/// Reads the trace (`-`: stdin) a line at a time, at most [`MAX_TRACE_BYTES`], and prices
/// each access; returns the rows, or every malformed line (up to [`MAX_ERRORS`]).
fn read_and_price(trace: &str, geom: &Geometry) -> miette::Result<Vec<Row>> {
    let shown = warpsim_kernel::escape::text(trace);
    let label: &str = if trace == "-" { "<stdin>" } else { &shown };
    let input: Box<dyn Read> = if trace == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(
            warpsim_kernel::input::open_regular(std::path::Path::new(trace))
                .map_err(|e| miette!(help = e.help(), "cannot read the trace {label}: {e}"))?,
        )
    };
    let max = warpsim_kernel::input::cap(MAX_TRACE_BYTES);
    let mut input = std::io::BufReader::new(input.take(max.saturating_add(1)));
    let mut rows = Vec::new();
    let mut errors = Vec::new();
    let mut bad = 0usize;
    let mut total = 0u64;
    let mut buf = Vec::new();
    for i in 1usize.. {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|e| miette!("cannot read the trace {label}: {e}"))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > max {
            return Err(miette!(
                help = format!(
                    "split the trace into smaller files, or set {} to its size in bytes",
                    warpsim_kernel::input::MAX_FILE_BYTES_VAR
                ),
                "{label}: the trace is larger than {max} bytes ({}), the most warpsim reads",
                warpsim_kernel::input::human(max)
            ));
        }
        let line = match std::str::from_utf8(&buf) {
            Ok(l) => l,
            Err(e) => {
                return Err(miette!(
                    "{label}:{i}:{}: the trace is not UTF-8 text (bad byte 0x{:02x}): a trace \
                     is plain text, one access a line",
                    e.valid_up_to() + 1,
                    buf[e.valid_up_to()]
                ))
            }
        };
        match price(geom, line) {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => {}
            Err(what) => {
                bad += 1;
                if errors.len() < MAX_ERRORS {
                    let e = match what.col {
                        Some(col) => format!("{label}:{i}:{col}: {}", what.msg),
                        None => format!("{label}:{i}: {}", what.msg),
                    };
                    errors.push(warpsim_kernel::escape::text(&e).into_owned());
                }
            }
        }
    }
    if bad > 0 {
        if bad > MAX_ERRORS {
            errors.push(format!("… and {} more malformed lines", bad - MAX_ERRORS));
        }
        return Err(miette!("{}", errors.join("\n")));
    }
    Ok(rows)
}

/// Prices one line: `None` for a blank or comment line, `Err` with what is wrong and what to
/// write instead.
fn price(geom: &Geometry, line: &str) -> Result<Option<Row>, LineError> {
    let fields = access_tensor::fields(line.split('#').next().unwrap_or(""));
    if fields.len() >= 2 && access_tensor::is_tensor(fields[1].1) {
        return access_tensor::price(geom, &fields).map(Some);
    }
    let Some(access) = parse(&fields)? else {
        return Ok(None);
    };
    let (w, m) = (access.width, access.mask);
    let mut row = Row {
        name: access.name,
        op: access.op.to_string(),
        width: w,
        wavefronts: 0,
        bank_conflicts: 0,
        ..Row::default()
    };
    match access.op {
        AccessKind::Plain(op) => {
            // (A misaligned lane is pointed at in its field.)
            let c = cost(geom, op, w, &access.addrs, m).map_err(|e| LineError {
                col: match e {
                    SmemError::Misaligned { lane, .. } => fields.get(3 + lane as usize),
                    _ => None,
                }
                .map(|f| f.0),
                msg: smem_error(e),
            })?;
            (row.wavefronts, row.bank_conflicts) = (c.wavefronts, c.conflicts);
        }
        AccessKind::Atomic(a) => {
            let c = atomic_cost(geom, &a, w, &access.addrs, m).map_err(|e| match e {
                AtomicError::Access(e) => smem_error(e),
                other => other.to_string(),
            })?;
            (row.wavefronts, row.bank_conflicts) = (c.atom.wavefronts, c.atom.conflicts);
            if !matches!(
                a.form(w),
                Ok(warpsim_smem::Form::Native(_) | warpsim_smem::Form::Popc)
            ) {
                row.load_wavefronts = Some(c.loads.wavefronts);
                row.load_bank_conflicts = Some(c.loads.conflicts);
                row.atoms_executed = Some(c.trips);
            }
        }
    }
    Ok(Some(row))
}

/// An access error worded for a trace line.
fn smem_error(e: SmemError) -> String {
    match e {
        SmemError::Misaligned { lane, addr, width } => format!(
            "lane {lane}'s offset {addr} is not a multiple of the {width}-byte access width: \
             write an aligned offset such as {} (or `-1` to make the lane inactive)",
            addr / width * width
        ),
        other => other.to_string(),
    }
}

/// A line's access from its fields (comment removed); errors at the field's column.
fn parse(fields: &[access_tensor::Field<'_>]) -> Result<Option<Access>, LineError> {
    let at = |k: usize, msg: String| LineError {
        col: Some(fields[k].0),
        msg,
    };
    if fields.is_empty() {
        return Ok(None);
    }
    if fields.len() != 3 + WARP {
        let lanes = fields.len().saturating_sub(3);
        return Err(format!(
            "expected 35 fields, found {} ({lanes} lane offset{}): {FORMAT}",
            fields.len(),
            if lanes == 1 { "" } else { "s" }
        )
        .into());
    }
    let op: AccessKind = fields[1].1.parse().map_err(|e| at(1, e))?;
    let width = match fields[2].1 {
        "1" => 1,
        "2" => 2,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        w => {
            return Err(at(
                2,
                format!("`{w}` is not an access width: write 1, 2, 4, 8 or 16 (bytes a lane)"),
            ))
        }
    };
    let mut addrs = [0u32; WARP];
    let mut mask = 0u32;
    for (lane, &(_, field)) in fields[3..].iter().enumerate() {
        if field == "-1" || field == "_" {
            continue;
        }
        addrs[lane] = number(field).ok_or_else(|| {
            at(
                3 + lane,
                format!(
                    "lane {lane}'s offset `{field}` is not a byte offset: write a whole number \
                 from 0 to 4294967295 (decimal or 0x hex), or `-1` or `_` for an inactive lane"
                ),
            )
        })?;
        mask |= 1 << lane;
    }
    Ok(Some(Access {
        name: fields[0].1.to_string(),
        op,
        width,
        addrs,
        mask,
    }))
}

/// A decimal or `0x` hexadecimal `u32`.
fn number(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None if s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        None => None,
    }
}

/// The columns `ldsm`/`stsm`/`cp.async` rows add (shown only when the trace has such a row).
const EXTRA_HEAD: [&str; 5] = [
    "ideal",
    "sectors",
    "tags",
    "hw_wavefronts",
    "hw_bank_conflicts",
];

/// How many of [`EXTRA_HEAD`] the rows need: all or none.
fn extra_columns(rows: &[Row]) -> usize {
    if rows.iter().any(|r| r.ideal.is_some()) {
        EXTRA_HEAD.len()
    } else {
        0
    }
}

/// A row's cells of [`EXTRA_HEAD`] (`-` where it has none).
fn extra_cells(r: &Row) -> [String; 5] {
    [
        r.ideal,
        r.sectors,
        r.tags,
        r.hw_wavefronts,
        r.hw_bank_conflicts,
    ]
    .map(|v| v.map_or_else(|| "-".to_string(), |v| v.to_string()))
}

/// A row's cells, the first five and then `extra` of [`EXTRA_HEAD`].
fn cells(r: &Row, extra: usize) -> Vec<String> {
    let mut c = vec![
        warpsim_kernel::escape::text(&r.name).into_owned(),
        r.op.to_string(),
        r.width.to_string(),
        with_loads(r.wavefronts, r.load_wavefronts),
        with_loads(r.bank_conflicts, r.load_bank_conflicts),
    ];
    c.extend(extra_cells(r).into_iter().take(extra));
    c
}

fn table(rows: &[Row], tty: bool) -> String {
    let sum = |f: &dyn Fn(&Row) -> u32| rows.iter().map(|r| f(r) as u64).sum::<u64>();
    let loads = sum(&|r| r.load_wavefronts.unwrap_or(0));
    let wavefronts = sum(&|r| r.wavefronts) + loads;
    let conflicts = sum(&|r| r.bank_conflicts + r.load_bank_conflicts.unwrap_or(0));
    let of_loops = if rows.iter().any(|r| r.load_wavefronts.is_some()) {
        format!(" ({loads} wavefronts are the loads of compare-and-swap loops, `+ N ld`)")
    } else {
        String::new()
    };
    let t = if tty && rows.len() <= BIG_TABLE {
        comfy(rows, tty)
    } else {
        ascii(rows)
    };
    let copies: Vec<&Row> = rows.iter().filter(|r| r.tags.is_some()).collect();
    let copies = if copies.is_empty() {
        String::new()
    } else {
        let sum = |f: &dyn Fn(&Row) -> Option<u32>| {
            copies.iter().map(|r| f(r).unwrap_or(0) as u64).sum::<u64>()
        };
        format!(
            "cp.async ({}): {} sectors; on the hardware counters {} wavefronts (in the shared \
             total), {} bank conflicts (op_ldgsts)\n",
            copies.len(),
            sum(&|r| r.sectors),
            sum(&|r| r.hw_wavefronts),
            sum(&|r| r.hw_bank_conflicts)
        )
    };
    format!(
        "{t}\n{} access{}: {wavefronts} wavefronts, {conflicts} bank conflicts{of_loops}\n{copies}",
        rows.len(),
        if rows.len() == 1 { "" } else { "es" }
    )
}

/// The first five columns of every table.
const HEAD: [&str; 5] = ["name", "op", "width", "wavefronts", "bank_conflicts"];

/// The table in comfy-table's `ASCII_FULL_CONDENSED` style, drawn straight into one string.
fn ascii(rows: &[Row]) -> String {
    let extra = extra_columns(rows);
    let head: Vec<&str> = HEAD.iter().chain(&EXTRA_HEAD[..extra]).copied().collect();
    let mut w: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in w.iter_mut().zip(cells(r, extra)) {
            *w = (*w).max(c.chars().count());
        }
    }
    let rule = |fill: char, joint: char| {
        let mut s = String::from("+");
        for (i, w) in w.iter().enumerate() {
            if i > 0 {
                s.push(joint);
            }
            s.extend(std::iter::repeat_n(fill, w + 2));
        }
        s.push_str("+\n");
        s
    };
    let line = |out: &mut String, c: Vec<String>| {
        out.push('|');
        for (i, (c, w)) in c.iter().zip(&w).enumerate() {
            // Padded by hand: `format!`'s widths stop at 65,535 (a longer name panicked).
            let pad = std::iter::repeat_n(' ', w.saturating_sub(c.chars().count()));
            out.push(' ');
            if i < 2 {
                out.push_str(c);
                out.extend(pad);
            } else {
                out.extend(pad);
                out.push_str(c);
            }
            out.push_str(" |");
        }
        out.push('\n');
    };
    let mut out = rule('-', '+');
    line(&mut out, head.iter().map(|h| h.to_string()).collect());
    out.push_str(&rule('=', '='));
    for r in rows {
        line(&mut out, cells(r, extra));
    }
    out.push_str(&rule('-', '+'));
    out.pop();
    out
}

fn comfy(rows: &[Row], tty: bool) -> String {
    let mut t = Table::new();
    t.load_style(if tty {
        presets::UTF8_FULL_CONDENSED
    } else {
        presets::ASCII_FULL_CONDENSED
    });
    let extra = extra_columns(rows);
    t.set_header(HEAD.iter().chain(&EXTRA_HEAD[..extra]));
    for r in rows {
        t.add_row(cells(r, extra));
    }
    for col in 2..5 + extra {
        if let Some(c) = t.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    t.to_string()
}

/// A table cell: an atomic's count, plus its loop's loads where it is a loop.
fn with_loads(n: u32, loads: Option<u32>) -> String {
    match loads {
        Some(l) => format!("{n} + {l} ld"),
        None => n.to_string(),
    }
}
