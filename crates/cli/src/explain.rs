//! `warpsim explain EXPR`: draw how the banks serve one warp access.
//!
//! EXPR is an index over `tid` (the lane, 0..31) in elements of `--width` bytes, such as
//! `tid*2`, `(tid%4)*32` or `tid*33+5`: lane `tid` accesses byte `EXPR * width`. The
//! expression language is C's integer arithmetic: `+ - * / % ^ & | << >>`, unary `-`,
//! parentheses, decimal and `0x` literals, with C's precedence. Errors point at a column.

use crate::args::MachineArgs;
use crate::print;
use miette::{Diagnostic, NamedSource, SourceSpan};
use warpsim_kernel::expr::{self, BinOp, Kind, Node, SyntaxError, SyntaxProblem, UnOp};
use warpsim_smem::{analyze, AccessKind, Analysis, Geometry, Op, WARP};

/// Arguments of `warpsim explain`.
#[derive(clap::Args)]
pub struct Args {
    /// Index over `tid` in elements of WIDTH bytes, e.g. `tid*2`, `(tid%4)*32`, `tid^1`.
    #[arg(allow_hyphen_values = true)]
    expr: String,
    /// `ld`, `st`, `atom.OP[.TYPE]` or `red.OP[.TYPE]` (OP: add sub min max and or xor exch
    /// cas inc dec, or `red.popc` for ATOMS.POPC.INC; e.g. `atom.add`, `atom.add.f32`).
    #[arg(long, default_value = "ld", value_parser = parse_op)]
    op: AccessKind,
    /// Bytes a lane accesses: 1, 2, 4, 8 or 16 (4 or 8 for atomics).
    #[arg(long, default_value_t = 4, value_parser = parse_width)]
    width: u32,
    #[command(flatten)]
    machine: MachineArgs,
    /// Active lanes: a 32-bit mask, decimal or 0x hex (bit N = lane N).
    #[arg(long, default_value = "0xffffffff", value_parser = parse_mask)]
    mask: u32,
}

fn parse_op(s: &str) -> Result<AccessKind, String> {
    s.parse()
}

fn parse_width(s: &str) -> Result<u32, String> {
    match s {
        "1" => Ok(1),
        "2" => Ok(2),
        "4" => Ok(4),
        "8" => Ok(8),
        "16" => Ok(16),
        _ => Err("shared-memory accesses are 1, 2, 4, 8 or 16 bytes: write one of those".into()),
    }
}

fn parse_mask(s: &str) -> Result<u32, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => s.replace('_', "").parse().ok(),
    };
    parsed.ok_or_else(|| {
        "a lane mask is a 32-bit number, decimal or 0x hex: e.g. 0xffffffff for every lane, \
         0x0000ffff for lanes 0-15"
            .into()
    })
}

pub fn run(args: Args) -> miette::Result<()> {
    let geom = warpsim_machine::Machine::resolve(&args.machine)?.geometry();
    let expr = parse(&args.expr)?;
    let addrs = addresses(&args.expr, &expr, args.width, args.mask)?;
    let op = match args.op {
        AccessKind::Plain(op) => op,
        AccessKind::Atomic(at) => {
            let head = format!(
                "{} (byte address = index x {})",
                args.expr.trim(),
                args.width
            );
            let text =
                crate::explain_atomic::render(&geom, &at, args.width, &head, &addrs, args.mask)?;
            return print(&text);
        }
    };
    let a =
        analyze(&geom, op, args.width, &addrs, args.mask).map_err(|e| miette::miette!("{e}"))?;
    print(&render(
        &geom, op, args.width, &args.expr, args.mask, &addrs, &a,
    ))
}

// ---------------------------------------------------------------------------------------
// The expression: the language of programs (`warpsim_kernel::expr`), kept to integer
// arithmetic over `tid`.

/// A byte range of the expression text.
type Span = (usize, usize);

/// An error in the expression, shown with the expression and a caret under the column.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message} (column {column})")]
struct ExprError {
    message: String,
    column: usize,
    #[source_code]
    src: NamedSource<String>,
    #[label("{label}")]
    span: SourceSpan,
    label: String,
    #[help]
    help: Option<String>,
}

fn error(src: &str, span: Span, message: String, label: &str, help: &str) -> miette::Report {
    let (start, end) = span;
    let start = start.min(src.len());
    let column = src[..start].chars().count() + 1;
    // A caret needs a character to stand under: point past the end at an added space.
    let len = (end.clamp(start, src.len()) - start).max(1);
    // Control characters shown escaped, the span moved past the escapes.
    let end = (start + len).min(src.len());
    let (mut shown, before) = warpsim_kernel::escape::line_keeping(src, start);
    let added = warpsim_kernel::escape::line_keeping(src, end).1 - before;
    let (start, len) = (start + before, len + added);
    if start + len > shown.len() {
        shown.push(' ');
    }
    ExprError {
        message: warpsim_kernel::escape::text(&message).into_owned(),
        column,
        src: NamedSource::new("EXPR", shown),
        span: (start, len).into(),
        label: label.to_string(),
        help: (!help.is_empty()).then(|| help.to_string()),
    }
    .into()
}

const OPERATORS: &str = "an index uses `tid`, numbers (decimal or 0x hex), parentheses and \
                         + - * / % ^ & | << >>, e.g. `(tid%4)*32` or `tid*33+5`";

/// The binary operators an index may use.
const INDEX_OPS: [BinOp; 10] = [
    BinOp::Or,
    BinOp::Xor,
    BinOp::And,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::Div,
    BinOp::Rem,
];

/// Parses EXPR with the programs' parser, then checks that it uses only `tid`, integers,
/// unary `-` and [`INDEX_OPS`]. Syntax errors are worded for an index.
fn parse(src: &str) -> miette::Result<Node> {
    let n = expr::parse(src).map_err(|e| syntax_error(src, &e))?;
    check_index(src, &n)?;
    Ok(n)
}

/// A syntax error of the shared parser, worded for an index.
fn syntax_error(src: &str, e: &SyntaxError) -> miette::Report {
    let span = (e.at, e.at + e.len);
    let text = src.get(e.at..(e.at + e.len).min(src.len())).unwrap_or("");
    let value = "expected a value here";
    let close = format!("close the `(` of column {}", open_paren_column(src, e.at));
    let (message, label, help) = match e.problem {
        SyntaxProblem::Number => (
            format!("`{text}` is not a number"),
            "not a number",
            "write a decimal number such as 32 or a hex one such as 0x20, below 2^63",
        ),
        SyntaxProblem::Character => (
            format!("`{text}` cannot appear in an index"),
            "unexpected character",
            OPERATORS,
        ),
        SyntaxProblem::TooDeep => (
            "the index nests too many operations deep".into(),
            "here",
            "write a shorter index",
        ),
        SyntaxProblem::Empty => (
            "the index is empty".into(),
            value,
            "write `tid`, a number or `(`",
        ),
        SyntaxProblem::Value if e.at >= src.trim_end().len() => (
            "the index ends where a value should follow".into(),
            value,
            "write `tid`, a number or `(`",
        ),
        SyntaxProblem::Value if text == ")" => (
            "`)` where a value should be".into(),
            value,
            "write `tid`, a number or `(`",
        ),
        SyntaxProblem::Value => (
            format!("`{text}` where a value should be"),
            value,
            "write `tid`, a number or `(` before it",
        ),
        SyntaxProblem::Expected => ("missing `)`".into(), "expected `)` here", close.as_str()),
        SyntaxProblem::Trailing if text == ")" => (
            "unmatched `)`".into(),
            "no `(` opens this",
            "remove it or add the `(` it closes",
        ),
        SyntaxProblem::Trailing => (
            "expected an operator".into(),
            "expected an operator here",
            OPERATORS,
        ),
    };
    error(src, span, message, label, help)
}

/// The column of the last `(` before byte `end` that no `)` closes (1 if none).
fn open_paren_column(src: &str, end: usize) -> usize {
    let mut open = Vec::new();
    for (i, c) in src[..end.min(src.len())].char_indices() {
        match c {
            '(' => open.push(i),
            ')' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.last().map_or(1, |&i| src[..i].chars().count() + 1)
}

fn check_index(src: &str, n: &Node) -> miette::Result<()> {
    match &n.kind {
        Kind::Int { .. } => Ok(()),
        Kind::Name(name) if name == "tid" => Ok(()),
        Kind::Name(name) => Err(error(
            src,
            (n.start, n.end),
            format!("unknown name `{name}`"),
            "not `tid`",
            "the only variable is `tid`, the lane (0 to 31)",
        )),
        Kind::Unary(UnOp::Neg, a) => check_index(src, a),
        Kind::Binary(op, a, b) if INDEX_OPS.contains(op) => {
            check_index(src, a)?;
            check_index(src, b)
        }
        _ => Err(error(
            src,
            (n.start, n.end),
            format!("`{}` cannot appear in an index", &src[n.start..n.end]),
            "not an index",
            OPERATORS,
        )),
    }
}

/// Why a lane's index cannot be computed: the message, and where.
type EvalError = (String, Span);

/// The value of a checked index for lane `tid`, in 64-bit arithmetic.
fn eval(e: &Node, tid: i64) -> Result<i64, EvalError> {
    let span = (e.start, e.end);
    match &e.kind {
        Kind::Int { value, .. } => Ok(*value),
        Kind::Name(_) => Ok(tid),
        Kind::Unary(_, x) => eval(x, tid)?.checked_neg().ok_or_else(|| {
            (
                "the negation overflows 64 bits".into(),
                (e.start, e.start + 1),
            )
        }),
        Kind::Binary(op, l, r) => {
            // The operator stands between its operands (with spaces, trimmed when shown).
            let span = (l.end, r.start);
            let (a, b) = (eval(l, tid)?, eval(r, tid)?);
            let overflow = || (format!("`{}` overflows 64 bits", op.symbol()), span);
            match op {
                BinOp::Or => Ok(a | b),
                BinOp::Xor => Ok(a ^ b),
                BinOp::And => Ok(a & b),
                BinOp::Add => a.checked_add(b).ok_or_else(overflow),
                BinOp::Sub => a.checked_sub(b).ok_or_else(overflow),
                BinOp::Mul => a.checked_mul(b).ok_or_else(overflow),
                BinOp::Div | BinOp::Rem if b == 0 => Err(("division by zero".into(), span)),
                BinOp::Div => a.checked_div(b).ok_or_else(overflow),
                BinOp::Rem => a.checked_rem(b).ok_or_else(overflow),
                BinOp::Shl | BinOp::Shr if !(0..63).contains(&b) => {
                    Err((format!("a shift by {b} (shifts go from 0 to 62)"), span))
                }
                BinOp::Shl => a.checked_mul(1i64 << b).ok_or_else(overflow),
                BinOp::Shr => Ok(a >> b),
                _ => Err((format!("`{}` cannot appear in an index", op.symbol()), span)),
            }
        }
        _ => Err(("this cannot appear in an index".into(), span)),
    }
}

/// Every active lane's byte address.
fn addresses(src: &str, e: &Node, width: u32, mask: u32) -> miette::Result<[u32; WARP]> {
    let mut addrs = [0u32; WARP];
    for lane in (0..WARP).filter(|&l| mask & (1 << l) != 0) {
        let whole = (0, src.len());
        let v = eval(e, lane as i64).map_err(|(msg, (from, to))| {
            let text = &src[from..to];
            let from = from + (text.len() - text.trim_start().len());
            let to = to - (text.len() - text.trim_end().len());
            error(
                src,
                (from, to),
                format!("lane {lane}: {msg}"),
                "here",
                "every active lane's index must be computable; --mask leaves lanes out",
            )
        })?;
        if v < 0 {
            return Err(error(
                src,
                whole,
                format!("lane {lane}: the index is {v}, and addresses cannot be negative"),
                "negative for this lane",
                "shared-memory indices start at 0: add an offset, or --mask the lane out",
            ));
        }
        let byte = (v as u64)
            .checked_mul(width as u64)
            .filter(|&b| b <= u32::MAX as u64);
        addrs[lane] = match byte {
            Some(b) => b as u32,
            None => {
                return Err(error(
                    src,
                    whole,
                    format!("lane {lane}: index {v} x {width} bytes is past 4 GiB"),
                    "too large for this lane",
                    "shared-memory byte addresses must fit in 32 bits",
                ))
            }
        };
    }
    Ok(addrs)
}

// ---------------------------------------------------------------------------------------
// The picture.

/// Output lines stay within this many columns.
const COLUMNS: usize = 80;
/// Width of the row labels (`cycle 127`).
const LABEL: usize = 9;

fn render(
    geom: &Geometry,
    op: Op,
    width: u32,
    src: &str,
    mask: u32,
    addrs: &[u32; WARP],
    a: &Analysis,
) -> String {
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    let kind = match op {
        Op::Ld => "load",
        Op::St => "store",
    };
    let head = format!("{kind} of {width} bytes a lane at element ");
    let tail = format!(" (byte address = index x {width})");
    line(format!(
        "{head}{}{tail}",
        shorten(src.trim(), COLUMNS - head.len() - tail.len())
    ));
    let active = mask.count_ones();
    line(format!(
        "{} bank{} of {} B; {active} of 32 lanes active{}",
        geom.banks,
        plural(geom.banks),
        geom.bank_bytes,
        if mask == u32::MAX {
            String::new()
        } else {
            format!(" (mask 0x{mask:08x})")
        }
    ));

    // Cells are as wide as the widest bank number (3 at least, for `*32`); bands of banks
    // fill at most 80 columns.
    let cell = digits(geom.banks.saturating_sub(1)).max(3);
    let band = if cell <= 3 { 16 } else { 8 };
    for ph in &a.phases {
        line(String::new());
        let last = ph.first_lane + ph.lanes - 1;
        let lanes = if ph.lanes == 1 {
            format!("lane {}", ph.first_lane)
        } else {
            format!("lanes {}-{last}", ph.first_lane)
        };
        if ph.active == 0 {
            line(format!(
                "phase {}: {lanes}, no active lane: 0 cycles",
                ph.first_lane / a.lanes_per_phase
            ));
            continue;
        }
        line(format!(
            "phase {}: {lanes}, {} cycle{}",
            ph.first_lane / a.lanes_per_phase,
            ph.wavefronts,
            plural(ph.wavefronts)
        ));
        // Runs of bands with nothing to show are one `idle` line.
        let mut idle_from = None;
        for first in (0..geom.banks).step_by(band) {
            let banks = first..(first + band as u32).min(geom.banks);
            let in_band: Vec<_> = ph
                .slots
                .iter()
                .filter(|s| banks.contains(&s.bank))
                .collect();
            if in_band.is_empty() {
                idle_from.get_or_insert(first);
                if banks.end == geom.banks {
                    line(idle(idle_from.take().unwrap_or(first), banks.end));
                }
                continue;
            }
            if let Some(from) = idle_from.take() {
                line(idle(from, first));
            }
            let mut row = format!("{:>LABEL$}", "bank");
            for b in banks.clone() {
                row += &format!(" {b:>cell$}");
            }
            line(row);
            for cycle in 0..ph.wavefronts {
                let mut row = format!("{:>LABEL$}", format!("cycle {cycle}"));
                for b in banks.clone() {
                    let text = match in_band.iter().find(|s| s.bank == b && s.cycle == cycle) {
                        None => ".".to_string(),
                        Some(s) if s.lanes.count_ones() == 1 => {
                            s.lanes.trailing_zeros().to_string()
                        }
                        Some(s) => format!("*{}", s.lanes.count_ones()),
                    };
                    row += &format!(" {text:>cell$}");
                }
                line(row);
            }
        }
    }
    line(String::new());
    line("cells: the lane a bank serves; *N: N lanes share one word; .: idle".into());
    line(String::new());

    let c = a.cost;
    let busy = a.phases.iter().filter(|p| p.active != 0).count();
    line(format!("wavefronts: {}", c.wavefronts));
    line(format!("bank conflicts: {}", c.conflicts));
    line(format!(
        "phases: {busy} busy of {}, {} lane{} a phase",
        a.phases.len(),
        a.lanes_per_phase,
        plural(a.lanes_per_phase)
    ));
    line(format!(
        "rule 3: {}",
        doubling(geom, op, width, addrs, mask, a)
    ));
    line(verdict(a));
    out
}

/// The line for banks `from..to` that serve nothing in a phase.
fn idle(from: u32, to: u32) -> String {
    if to - from == 1 {
        format!("{:>LABEL$} {from}: idle", "bank")
    } else {
        format!("{:>LABEL$} {from}-{}: idle", "banks", to - 1)
    }
}

/// What rule 3 did, and why.
fn doubling(
    geom: &Geometry,
    op: Op,
    width: u32,
    addrs: &[u32; WARP],
    mask: u32,
    a: &Analysis,
) -> String {
    let pairs = |m: usize| {
        (0..WARP)
            .all(|i| mask & (1 << i) == 0 || mask & (1 << (i ^ m)) == 0 || addrs[i] == addrs[i ^ m])
    };
    let pairing = if pairs(1) { "i^1" } else { "i^2" };
    if a.doubled {
        format!("doubled the phase (every active lane shares its address with lane {pairing})")
    } else if width <= 4 {
        "no doubling (it is for 8- and 16-byte loads)".into()
    } else if op == Op::St {
        "no doubling (stores never double)".into()
    } else if mask != 0 && (pairs(1) || pairs(2)) {
        debug_assert_eq!(geom.lanes_per_phase(width), WARP as u32);
        "no doubling needed (the phase is already the whole warp)".into()
    } else {
        "no doubling (lanes do not pair up as i^1 or i^2 on one address)".into()
    }
}

/// The one-line verdict: the degree is the worst phase's cycles.
fn verdict(a: &Analysis) -> String {
    let c = a.cost;
    if c.phases == 0 {
        return "no active lane: 0 cycles".into();
    }
    let degree = a.phases.iter().map(|p| p.wavefronts).max().unwrap_or(0);
    let phases = if c.phases > 1 {
        format!(" in {} phases", c.phases)
    } else {
        String::new()
    };
    let total = format!("{} cycle{}{phases}", c.wavefronts, plural(c.wavefronts));
    if degree <= 1 {
        format!("conflict-free: {total}")
    } else {
        format!("{degree}-way bank conflict: {total}")
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn digits(n: u32) -> usize {
    n.to_string().len()
}

/// `s`, cut to at most `max` characters with `...` when longer.
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let keep: String = s.chars().take(max.saturating_sub(3)).collect();
        format!("{keep}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(src: &str) -> Vec<i64> {
        let e = parse(src).unwrap();
        (0..4).map(|t| eval(&e, t).unwrap()).collect()
    }

    #[test]
    fn c_precedence() {
        assert_eq!(values("tid*2+1"), [1, 3, 5, 7]);
        assert_eq!(values("1+tid*2"), [1, 3, 5, 7]);
        assert_eq!(values("(tid%4)*32"), [0, 32, 64, 96]);
        assert_eq!(values("tid^1"), [1, 0, 3, 2]);
        assert_eq!(values("tid/2"), [0, 0, 1, 1]);
        assert_eq!(values("1<<tid+1"), [2, 4, 8, 16]); // + binds tighter than <<
        assert_eq!(values("tid&1|2"), [2, 3, 2, 3]); // & tighter than |
        assert_eq!(values("tid^1&2"), [0, 1, 2, 3]); // & tighter than ^
        assert_eq!(values("0x10-tid-1"), [15, 14, 13, 12]); // left-associative
        assert_eq!(values("-tid+3"), [3, 2, 1, 0]);
        assert_eq!(values("- -tid"), [0, 1, 2, 3]);
        assert_eq!(values("64>>tid"), [64, 32, 16, 8]);
        assert_eq!(values(" ( tid ) "), [0, 1, 2, 3]);
    }

    #[test]
    fn errors() {
        for bad in [
            "",
            "tid*",
            "*tid",
            "(tid",
            "tid)",
            "tid tid",
            "x",
            "tid$2",
            "0x",
            "12ab",
            "99999999999999999999",
            "()",
            "tid+-",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should not parse");
        }
        let deep = "(".repeat(10_000) + "tid" + &")".repeat(10_000);
        assert!(parse(&deep).is_err());
        assert!(parse(&"-".repeat(10_000)).is_err());
        assert!(parse(&vec!["1"; 40_000].join("+")).is_err());
        assert!(parse(&vec!["tid"; 150].join("*1+")).is_ok());
        let e = parse("32/tid").unwrap();
        assert!(eval(&e, 0).is_err());
        assert!(eval(&parse("tid<<99").unwrap(), 1).is_err());
        assert!(eval(&parse("tid*0x7fffffffffffffff*2").unwrap(), 1).is_err());
    }
}
