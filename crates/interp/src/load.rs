//! The loader: RON text → checked [`Program`].
//!
//! One pass over the body both checks it (names, types, array ranks, constant indices) and
//! lowers it to [`Inst`]s. Registers are allocated as the body is read: every `Let` gets a
//! register of its own; temporaries are reused from one statement to the next.

use crate::ast::{self, Elem, Expr, Stmt, Text};
use crate::diag::{line_col, Diag, Phase};
use crate::expr::{self, BinOp, Kind, Node, UnOp};
use crate::ir::{Inst, Mem, Pc, Reg, Space, Special};
use crate::program::{BufferInfo, Expect, InstInfo, Program, RegInit, SharedInfo};
use std::collections::HashMap;
use std::sync::Arc;

/// Shared memory a block may use by default: the H200's 227 KiB.
pub const H200_SHARED_BYTES: u32 = 227 * 1024;

/// Most threads a block may have.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// Registers a warp may use (each is 32 lanes × 4 bytes).
pub const MAX_REGS: usize = 4096;

/// A layout forced on a shared array, overriding its declaration (used by `warpsim advise`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Padding elements per row.
    pub pad: Option<u32>,
    /// XOR swizzle group (0 = none).
    pub swizzle: Option<u32>,
}

/// What the loader may be told besides the file.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--define NAME=VALUE` overrides, in order.
    pub defines: Vec<(String, i64)>,
    /// Shared memory a block may use, in bytes.
    pub shared_limit: u32,
    /// Most bytes all global buffers together may take.
    pub max_buffer_bytes: u64,
    /// Layouts forced on shared arrays, by name.
    pub layouts: Vec<(String, Layout)>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            defines: Vec::new(),
            shared_limit: H200_SHARED_BYTES,
            max_buffer_bytes: 4 << 30,
            layouts: Vec::new(),
        }
    }
}

/// Reads and loads a program file.
pub fn load_file(path: &str, opts: &Options) -> Result<Program, Diag> {
    let src = std::fs::read_to_string(path).map_err(|e| {
        Diag::file(
            Phase::Syntax,
            path,
            format!("cannot read the program: {e}"),
            Some("check the path; programs live in programs/".into()),
        )
    })?;
    load_str(path, &src, opts)
}

/// Loads a program from its text; `path` names it in messages.
pub fn load_str(path: &str, src: &str, opts: &Options) -> Result<Program, Diag> {
    let src: Arc<str> = Arc::from(src);
    let ast = parse(path, &src)?;
    Loader::new(path, src.clone(), opts).program(&ast)
}

/// Parses the RON text into the AST.
pub fn parse(path: &str, src: &Arc<str>) -> Result<ast::Program, Diag> {
    parse_ron(
        path,
        src,
        "see the README's \"Kernel language\" section for the form of a program",
    )
}

/// Parses any RON file into `T` with the program's diagnostics: file:line:col, the field's
/// path, and `help` when there is nothing more specific to say. (Machine descriptions use it
/// too.)
pub fn parse_ron<T: serde::de::DeserializeOwned>(
    path: &str,
    src: &Arc<str>,
    help: &str,
) -> Result<T, Diag> {
    let ron_opts =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let mut de = ron::Deserializer::from_str_with_options(src, &ron_opts)
        .map_err(|e| ron_diag(path, src, e, "", help))?;
    let res = ast::with_source(src, || serde_path_to_error::deserialize(&mut de));
    match res {
        Ok(p) => {
            de.end().map_err(|e| {
                let e = de.span_error(e);
                ron_diag(path, src, e, "", help)
            })?;
            Ok(p)
        }
        Err(e) => {
            let where_ = e.path().to_string();
            let inner = e.into_inner();
            let spanned = de.span_error(inner);
            Err(ron_diag(path, src, spanned, &where_, help))
        }
    }
}

fn ron_diag(
    path: &str,
    src: &Arc<str>,
    e: ron::error::SpannedError,
    field: &str,
    default_help: &str,
) -> Diag {
    let pos = e.span.start;
    let mut off = offset_of_pos(src, pos.line, pos.col);
    let mut msg = e.code.to_string();
    let mut help = None;
    if matches!(e.code, ron::Error::ExpectedComma) {
        // Point just after the item that wants a comma, not at the next item.
        off = src[..off].trim_end().len();
        msg = "expected a comma after this item".into();
        help = Some("separate the items of a list or the fields of a struct with commas".into());
    }
    if matches!(e.code, ron::Error::ExceededRecursionLimit) {
        msg = "the program is nested too deeply for the RON reader".into();
        help = Some(
            "nest ifs and loops at most about 25 deep; move inner parts into separate statements"
                .into(),
        );
    }
    if !field.is_empty() && field != "." {
        msg = format!("{msg} (in `{field}`)");
    }
    if help.is_none() {
        help = Some(default_help.to_owned());
    }
    Diag::at(Phase::Syntax, path, src, off, 1, msg, help)
}

fn offset_of_pos(src: &str, line: usize, col: usize) -> usize {
    // `col` counts characters, 1-based.
    let start = crate::diag::line_start(src, line as u32);
    src[start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(src.len(), |(i, _)| start + i)
}

/// Value types of registers and expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// 32-bit signed.
    I32,
    /// 32-bit unsigned.
    U32,
    /// 32-bit float.
    F32,
    /// 64-bit float (two registers).
    F64,
    /// A comparison result, 0 or 1.
    Bool,
}

impl Ty {
    fn of(e: Elem) -> Ty {
        match e {
            Elem::F32 => Ty::F32,
            Elem::F64 => Ty::F64,
            Elem::U32 => Ty::U32,
            Elem::I32 => Ty::I32,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::U32 => "u32",
            Ty::F32 => "f32",
            Ty::F64 => "f64",
            Ty::Bool => "bool",
        }
    }
    fn is_int(self) -> bool {
        matches!(self, Ty::I32 | Ty::U32)
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    fn words(self) -> u16 {
        if self == Ty::F64 {
            2
        } else {
            1
        }
    }
    fn elem(self) -> Elem {
        match self {
            Ty::F32 => Elem::F32,
            Ty::F64 => Elem::F64,
            Ty::U32 => Elem::U32,
            Ty::I32 | Ty::Bool => Elem::I32,
        }
    }
}

/// A compile-time constant.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Const {
    /// An integer, typed if written `42u` or converted.
    Int(i64, Option<Ty>),
    /// A float, typed if converted.
    Float(f64, Option<Ty>),
}

/// The value of an expression being compiled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Const(Const),
    Reg(Reg, Ty),
}

#[derive(Clone, Debug)]
struct Var {
    reg: Reg,
    ty: Ty,
    line: u32,
}

/// Where an expression string stands, to point errors into it.
#[derive(Clone, Copy)]
struct Site {
    /// Byte offset of the string in the file, if known.
    base: Option<usize>,
    /// Offset of the statement (fallback).
    stmt: usize,
}

struct Loader<'a> {
    path: &'a str,
    src: Arc<str>,
    opts: &'a Options,
    defines: Vec<(String, i64)>,
    buffers: Vec<BufferInfo>,
    shared: Vec<SharedInfo>,
    code: Vec<Inst>,
    info: Vec<InstInfo>,
    init: Vec<(Reg, RegInit)>,
    consts: HashMap<(u64, bool), Reg>,
    /// Registers that are not temporaries (variables, constants, special registers).
    fixed: Vec<bool>,
    specials: HashMap<Special, Reg>,
    scopes: Vec<HashMap<String, Var>>,
    /// Next free register for variables and constants (grows down from the top? no: up).
    next_reg: usize,
    /// Temporaries of the current statement start here.
    temp_base: usize,
    high_water: usize,
    /// The pc of the `Mul` that `binary` emitted last, while it is the last instruction (for
    /// [`Loader::strength_reduce`] to fuse it with an `Add`).
    last_product: Option<usize>,
    depth: usize,
    max_depth: usize,
    cursor: usize,
    /// Location of the statement being compiled (line, col, text).
    cur: (u32, u32, String),
}

type R<T> = Result<T, Diag>;

const FUNCTIONS: &[&str] = &[
    "min", "max", "abs", "sqrt", "fma", "select", "i32", "u32", "f32", "f64",
];

impl<'a> Loader<'a> {
    fn new(path: &'a str, src: Arc<str>, opts: &'a Options) -> Self {
        Loader {
            path,
            src,
            opts,
            defines: Vec::new(),
            buffers: Vec::new(),
            shared: Vec::new(),
            code: Vec::new(),
            info: Vec::new(),
            init: Vec::new(),
            consts: HashMap::new(),
            fixed: Vec::new(),
            specials: HashMap::new(),
            scopes: vec![HashMap::new()],
            next_reg: 0,
            temp_base: 0,
            high_water: 0,
            last_product: None,
            depth: 0,
            max_depth: 0,
            cursor: 0,
            cur: (1, 1, String::new()),
        }
    }

    // ---- diagnostics -------------------------------------------------------------------

    fn err_at(
        &self,
        off: usize,
        len: usize,
        msg: impl Into<String>,
        help: impl Into<Option<String>>,
    ) -> Diag {
        Diag::at(
            Phase::Check,
            self.path,
            &self.src,
            off,
            len,
            msg,
            help.into(),
        )
    }

    /// An error about a string from the file (the whole string).
    fn err_text(&self, t: &Text, msg: impl Into<String>, help: impl Into<Option<String>>) -> Diag {
        match t.span {
            Some(off) => self.err_at(off, t.text.len().max(1), msg, help),
            None => self.err_at(self.cursor, 1, msg, help),
        }
    }

    /// An error about part of an expression.
    fn err_node(
        &self,
        site: Site,
        n: &Node,
        msg: impl Into<String>,
        help: impl Into<Option<String>>,
    ) -> Diag {
        match site.base {
            Some(b) => self.err_at(b + n.start, (n.end - n.start).max(1), msg, help),
            None => self.err_at(site.stmt, 1, msg, help),
        }
    }

    fn parse_expr(&self, t: &Text) -> R<(Node, Site)> {
        let site = Site {
            base: t.span,
            stmt: t.span.unwrap_or(self.cursor),
        };
        match expr::parse(&t.text) {
            Ok(n) => Ok((n, site)),
            Err(e) => Err(match t.span {
                Some(b) => self.err_at(
                    b + e.at,
                    e.len,
                    format!("syntax error: {}", e.message),
                    None,
                ),
                None => self.err_text(t, format!("syntax error in `{}`: {e}", t.text), None),
            }),
        }
    }

    // ---- constant expressions (launch, sizes) ------------------------------------------

    fn define(&self, name: &str) -> Option<i64> {
        self.defines
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// Evaluates an expression of defines to an integer.
    fn const_int(&self, e: &Expr, what: &str) -> R<i64> {
        let (n, site) = self.parse_expr(&e.0)?;
        self.fold_int(&n, site, what)
    }

    fn fold_int(&self, n: &Node, site: Site, what: &str) -> R<i64> {
        let over = || {
            self.err_node(
                site,
                n,
                format!("{what}: this overflows 64-bit arithmetic"),
                Some("check the defines' values (`--define`)".to_owned()),
            )
        };
        Ok(match &n.kind {
            Kind::Int { value, .. } => *value,
            Kind::Name(name) => self.define(name).ok_or_else(|| {
                self.err_node(
                    site,
                    n,
                    format!("{what} must be a constant, but `{name}` is not a define"),
                    Some(format!("defines: {}", self.define_list())),
                )
            })?,
            Kind::Unary(UnOp::Neg, a) => self
                .fold_int(a, site, what)?
                .checked_neg()
                .ok_or_else(over)?,
            Kind::Unary(UnOp::BitNot, a) => !self.fold_int(a, site, what)?,
            Kind::Unary(UnOp::Not, a) => (self.fold_int(a, site, what)? == 0) as i64,
            Kind::Binary(op, a, b) => {
                let x = self.fold_int(a, site, what)?;
                let y = self.fold_int(b, site, what)?;
                fold_i64(*op, x, y)
                    .map_err(|m| self.err_node(site, n, format!("{what}: {m}"), None))?
            }
            Kind::Cond(c, a, b) => {
                if self.fold_int(c, site, what)? != 0 {
                    self.fold_int(a, site, what)?
                } else {
                    self.fold_int(b, site, what)?
                }
            }
            Kind::Call(f, args) if (f == "min" || f == "max") && args.len() == 2 => {
                let x = self.fold_int(&args[0], site, what)?;
                let y = self.fold_int(&args[1], site, what)?;
                if f == "min" {
                    x.min(y)
                } else {
                    x.max(y)
                }
            }
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("{what} must be an integer expression of defines"),
                    Some(
                        "use integer literals, defines, + - * / % << >> & | ^, min and max"
                            .to_owned(),
                    ),
                ))
            }
        })
    }

    fn define_list(&self) -> String {
        if self.defines.is_empty() {
            "none".into()
        } else {
            self.defines
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    fn line_of(&self, t: &Text) -> u32 {
        line_col(&self.src, t.span.unwrap_or(self.cursor)).0
    }

    // ---- the program -------------------------------------------------------------------

    fn program(mut self, p: &ast::Program) -> R<Program> {
        // Defines: declared defaults, then overrides.
        for (name, v) in &p.defines {
            if !is_ident(&name.text) {
                return Err(self.err_text(
                    name,
                    format!("`{}` is not a valid define name", name.text),
                    Some("use letters, digits and _, starting with a letter".to_owned()),
                ));
            }
            if self.define(&name.text).is_some() {
                return Err(self.err_text(
                    name,
                    format!("define `{}` is declared twice", name.text),
                    None,
                ));
            }
            self.defines.push((name.text.clone(), *v));
        }
        for (name, v) in &self.opts.defines {
            match self.defines.iter_mut().find(|(n, _)| n == name) {
                Some(d) => d.1 = *v,
                None => {
                    return Err(Diag::file(
                        Phase::Check,
                        self.path,
                        format!("--define {name}={v}: the program has no define `{name}`"),
                        Some(format!("its defines are: {}", self.define_list())),
                    ))
                }
            }
        }
        let grid = self.dims3(&p.launch.grid, "grid", u32::MAX as i64)?;
        let block = self.dims3(&p.launch.block, "block", MAX_THREADS_PER_BLOCK as i64)?;
        let threads: i64 = block.iter().map(|&d| d as i64).product();
        if threads > MAX_THREADS_PER_BLOCK as i64 {
            let at = p.launch.block[0]
                .0
                .span
                .unwrap_or_else(|| self.find_field("block"));
            return Err(self.err_at(
                at,
                1,
                format!("a block of {threads} threads is more than the {MAX_THREADS_PER_BLOCK} a block may have"),
                Some("make the block smaller and the grid larger".to_owned()),
            ));
        }
        self.buffers(p)?;
        self.shared_arrays(p)?;
        self.cursor = p.name.span.unwrap_or(0);
        self.block(&p.body)?;
        let end = self.src.trim_end().len().saturating_sub(1);
        let (line, col) = line_col(&self.src, end);
        self.cur = (line, col, "end of the kernel".into());
        self.emit(Inst::Exit);
        // Check the CPU references now that every name is known.
        let expects: Vec<_> = p.buffers.iter().map(|b| b.expect.clone()).collect();
        for (i, e) in expects.into_iter().enumerate() {
            if let Some(t) = e {
                let (node, site) = self.parse_expr(&t)?;
                self.check_host(&node, site, &mut vec!["i".to_owned()])?;
                let tolerance = p.buffers[i].tolerance.unwrap_or(1e-4);
                let line = self.line_of(&t);
                self.buffers[i].expect = Some(Expect {
                    text: t.text.clone(),
                    node,
                    tolerance,
                    line,
                });
            }
        }
        let nregs = self.high_water.max(self.next_reg).max(1);
        if let Some(r) = p.regs_per_thread.filter(|r| !(1..=255).contains(r)) {
            let at = self.find_field("regs_per_thread");
            return Err(self.err_at(
                at,
                1,
                format!("regs_per_thread: {r} is not a register count a GPU thread can have"),
                Some("write what ptxas -v reports, 1 to 255".to_owned()),
            ));
        }
        Ok(Program {
            name: p.name.text.clone(),
            path: self.path.to_owned(),
            source: self.src.clone(),
            defines: self.defines,
            grid,
            block,
            buffers: self.buffers,
            shared_bytes: self.shared.last().map_or(0, |s| s.base + s.bytes),
            shared: self.shared,
            code: self.code,
            info: self.info,
            nregs,
            init: self.init,
            max_depth: self.max_depth,
            regs_per_thread: p.regs_per_thread,
        })
    }

    /// Offset of `field:` in the file (for values written without quotes, which keep no span).
    fn find_field(&self, field: &str) -> usize {
        let pat = format!("{field}:");
        self.src.find(&pat).unwrap_or(self.cursor)
    }

    fn dims3(&self, dims: &[Expr], what: &str, max: i64) -> R<[u32; 3]> {
        if dims.is_empty() || dims.len() > 3 {
            let at = dims
                .first()
                .and_then(|d| d.0.span)
                .unwrap_or_else(|| self.find_field(what));
            return Err(self.err_at(
                at,
                1,
                format!(
                    "the {what} has {} dimensions; give 1 to 3 (x, y, z)",
                    dims.len()
                ),
                None,
            ));
        }
        let mut out = [1u32; 3];
        for (i, d) in dims.iter().enumerate() {
            let v = self.const_int(d, &format!("{what} dimension {i}"))?;
            if v < 1 || v > max {
                let at = d.0.span.unwrap_or_else(|| self.find_field(what));
                return Err(self.err_at(
                    at,
                    d.0.text.len(),
                    format!(
                        "{what} dimension {} is {v}; it must be between 1 and {max}",
                        ["x", "y", "z"][i]
                    ),
                    Some("check the defines it uses".to_owned()),
                ));
            }
            out[i] = v as u32;
        }
        Ok(out)
    }

    fn check_name(&self, t: &Text, what: &str) -> R<()> {
        let n = &t.text;
        if !is_ident(n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is not a valid {what} name"),
                Some("use letters, digits and _, starting with a letter".to_owned()),
            ));
        }
        if special(n).is_some() || FUNCTIONS.contains(&n.as_str()) || n == "i" && what == "buffer" {
            return Err(self.err_text(
                t,
                format!("`{n}` is a built-in name and cannot name a {what}"),
                Some("choose another name".to_owned()),
            ));
        }
        if self.define(n).is_some()
            || self.buffers.iter().any(|b| &b.name == n)
            || self.shared.iter().any(|s| &s.name == n)
        {
            return Err(self.err_text(
                t,
                format!("`{n}` is already the name of a define or an array"),
                Some("choose another name".to_owned()),
            ));
        }
        Ok(())
    }

    fn buffers(&mut self, p: &ast::Program) -> R<()> {
        let mut total: u64 = 0;
        for b in &p.buffers {
            self.check_name(&b.name, "buffer")?;
            let len = self.const_int(&b.len, "a buffer length")?;
            if len < 1 {
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` would have {len} elements; it needs at least 1",
                        b.name
                    ),
                    None,
                ));
            }
            let bytes = (len as u64).saturating_mul(b.ty.bytes() as u64);
            let before = total;
            total = total.saturating_add(bytes);
            if total > self.opts.max_buffer_bytes {
                let all = if before > 0 {
                    format!(", {total} bytes with the buffers before it")
                } else {
                    String::new()
                };
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` asks for {len} elements ({bytes} bytes{all}); all buffers together may take at most {} bytes",
                        b.name, self.opts.max_buffer_bytes
                    ),
                    Some("use smaller defines (e.g. --define N=…), or raise --max-memory".to_owned()),
                ));
            }
            if len > u32::MAX as i64 {
                return Err(self.err_text(
                    &b.len.0,
                    format!(
                        "buffer `{}` asks for {len} elements; a buffer may have at most {} (32-bit indices)",
                        b.name,
                        u32::MAX
                    ),
                    Some("use smaller defines (e.g. --define N=…)".to_owned()),
                ));
            }
            if let Some(t) = b.tolerance {
                if !(0.0..1.0).contains(&t) {
                    return Err(self.err_text(
                        &b.name,
                        format!("tolerance {t} of `{}` is not in [0, 1)", b.name),
                        None,
                    ));
                }
            }
            self.buffers.push(BufferInfo {
                name: b.name.text.clone(),
                elem: b.ty,
                len: len as u64,
                init: b.init,
                expect: None,
                line: self.line_of(&b.name),
            });
        }
        Ok(())
    }

    fn shared_arrays(&mut self, p: &ast::Program) -> R<()> {
        let mut base: u64 = 0;
        for s in &p.shared {
            self.check_name(&s.name, "shared array")?;
            if s.dims.is_empty() || s.dims.len() > 3 {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "shared array `{}` has {} dimensions; give 1 to 3",
                        s.name,
                        s.dims.len()
                    ),
                    None,
                ));
            }
            let mut dims = Vec::new();
            for d in &s.dims {
                let v = self.const_int(d, "an array dimension")?;
                if !(1..=1 << 20).contains(&v) {
                    return Err(self.err_text(
                        &d.0,
                        format!(
                            "dimension {v} of `{}` must be between 1 and 1048576",
                            s.name
                        ),
                        None,
                    ));
                }
                dims.push(v as u32);
            }
            let forced = self
                .opts
                .layouts
                .iter()
                .find(|(n, _)| *n == s.name.text)
                .map(|l| l.1)
                .unwrap_or_default();
            let pad = match (forced.pad, &s.pad) {
                (Some(p), _) => p as i64,
                (None, Some(e)) => self.const_int(e, "padding")?,
                (None, None) => 0,
            };
            let swz = match (forced.swizzle, &s.swizzle) {
                (Some(p), _) => p as i64,
                (None, Some(e)) => self.const_int(e, "a swizzle")?,
                (None, None) => 0,
            };
            let cols = *dims.last().unwrap_or(&1) as i64;
            if !(0..=4096).contains(&pad) {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "padding {pad} of `{}` must be between 0 and 4096 elements",
                        s.name
                    ),
                    None,
                ));
            }
            if swz < 0 || (swz > 0 && (cols % swz != 0 || !((cols / swz) as u64).is_power_of_two()))
            {
                return Err(self.err_text(
                    &s.name,
                    format!("swizzle {swz} of `{}` does not fit its rows of {cols} elements", s.name),
                    Some("the swizzle group must divide the row length into a power-of-two number of groups (0 turns it off)".to_owned()),
                ));
            }
            let rows: u64 = dims[..dims.len() - 1].iter().map(|&d| d as u64).product();
            let row_len = cols as u64 + pad as u64;
            let bytes = rows * row_len * s.ty.bytes() as u64;
            base = base.div_ceil(16) * 16;
            if base + bytes > self.opts.shared_limit as u64 {
                return Err(self.err_text(
                    &s.name,
                    format!(
                        "shared array `{}` needs {bytes} bytes, which takes the block's shared memory to {} bytes, over the limit of {}",
                        s.name,
                        base + bytes,
                        self.opts.shared_limit
                    ),
                    Some("make it smaller, or raise the limit with --shared-limit".to_owned()),
                ));
            }
            self.shared.push(SharedInfo {
                name: s.name.text.clone(),
                elem: s.ty,
                dims,
                pad: pad as u32,
                swizzle: swz as u32,
                base: base as u32,
                row_len: row_len as u32,
                rows: rows as u32,
                bytes: bytes as u32,
                line: self.line_of(&s.name),
            });
            base += bytes;
        }
        Ok(())
    }

    // ---- registers -----------------------------------------------------------------------

    fn alloc_var(&mut self, words: u16) -> R<Reg> {
        // Variables and constants take registers above every temporary used so far, so
        // they never collide with the temporaries of earlier statements.
        let r = self.next_reg.max(self.high_water);
        self.next_reg = r + words as usize;
        self.temp_base = self.next_reg;
        self.fixed.resize(self.next_reg, false);
        for f in &mut self.fixed[r..] {
            *f = true;
        }
        self.high_water = self.high_water.max(self.next_reg);
        self.check_regs()?;
        Ok(Reg(r as u16))
    }

    fn alloc_temp(&mut self, words: u16) -> R<Reg> {
        let r = self.temp_base;
        self.temp_base += words as usize;
        self.high_water = self.high_water.max(self.temp_base);
        self.check_regs()?;
        Ok(Reg(r as u16))
    }

    fn check_regs(&self) -> R<()> {
        if self.high_water > MAX_REGS {
            return Err(self.err_at(
                self.cursor,
                1,
                format!("the program needs more than {MAX_REGS} registers"),
                Some("use fewer registers (Let) or split long expressions".to_owned()),
            ));
        }
        Ok(())
    }

    fn const_reg(&mut self, bits: u64, ty: Ty) -> R<Reg> {
        let wide = ty == Ty::F64;
        if let Some(&r) = self.consts.get(&(bits, wide)) {
            return Ok(r);
        }
        let r = self.alloc_var(ty.words())?;
        self.init.push((r, RegInit::Const(bits as u32)));
        if wide {
            self.init
                .push((Reg(r.0 + 1), RegInit::Const((bits >> 32) as u32)));
        }
        self.consts.insert((bits, wide), r);
        Ok(r)
    }

    fn special_reg(&mut self, s: Special) -> R<Reg> {
        if let Some(&r) = self.specials.get(&s) {
            return Ok(r);
        }
        let r = self.alloc_var(1)?;
        self.init.push((r, RegInit::Special(s)));
        self.specials.insert(s, r);
        Ok(r)
    }

    fn lookup(&self, name: &str) -> Option<&Var> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    // ---- emission ------------------------------------------------------------------------

    fn emit(&mut self, i: Inst) -> Pc {
        self.code.push(i);
        self.info.push(InstInfo {
            line: self.cur.0,
            col: self.cur.1,
            text: self.cur.2.clone(),
        });
        (self.code.len() - 1) as Pc
    }

    fn emit_at(&mut self, i: Inst, site: Site, n: &Node, text: String) -> Pc {
        let off = site.base.map_or(site.stmt, |b| b + n.start);
        let (line, col) = line_col(&self.src, off);
        self.code.push(i);
        self.info.push(InstInfo { line, col, text });
        (self.code.len() - 1) as Pc
    }

    // ---- statements ----------------------------------------------------------------------

    fn stmt_pos(&mut self, s: &Stmt) {
        let first = match s {
            Stmt::Let(t, _) | Stmt::Set(t, _) | Stmt::Store(t, _) | Stmt::StoreVec(t, _) => t.span,
            Stmt::LoadVec(n, t) => n.first().and_then(|n| n.span).or(t.span),
            Stmt::If { cond, .. } | Stmt::While { cond, .. } => cond.span,
            Stmt::For { var, .. } => var.span,
            Stmt::Barrier => self.src[self.cursor..]
                .find("Barrier")
                .map(|i| self.cursor + i),
        };
        if let (Stmt::Barrier, Some(off)) = (s, first) {
            self.cursor = off;
        } else if let Some(off) = first {
            // Point at the statement's keyword: the name before the `(` that opens it.
            let before = &self.src[self.cursor.min(off)..off];
            let kw = before.rfind('(').map(|p| {
                let head =
                    before[..p].trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
                self.cursor.min(off) + head.len()
            });
            self.cursor = kw.unwrap_or(off);
        }
        let (line, col) = line_col(&self.src, self.cursor);
        let text = match s {
            Stmt::Let(n, e) => format!("{} = {}", n.text, e.text),
            Stmt::Set(n, e) => format!("{} = {}", n.text, e.text),
            Stmt::Store(t, e) => format!("{} = {}", t.text, e.text),
            Stmt::LoadVec(n, t) => format!("({}) = {}", join(n), t.text),
            Stmt::StoreVec(t, v) => format!("{} = ({})", t.text, join(v)),
            Stmt::If { cond, .. } => format!("if {}", cond.text),
            Stmt::While { cond, .. } => format!("while {}", cond.text),
            Stmt::For { var, to, .. } => format!("for {} < {}", var.text, to.0.text),
            Stmt::Barrier => "barrier".into(),
        };
        self.cur = (line, col, text);
    }

    fn block(&mut self, body: &[Stmt]) -> R<()> {
        for s in body {
            self.stmt_pos(s);
            self.temp_base = self.next_reg;
            self.stmt(s)?;
        }
        Ok(())
    }

    fn nested(&mut self, body: &[Stmt]) -> R<()> {
        self.scopes.push(HashMap::new());
        let r = self.block(body);
        self.scopes.pop();
        r
    }

    fn enter(&mut self) {
        self.depth += 1;
        self.max_depth = self.max_depth.max(self.depth);
    }

    fn declare(&mut self, t: &Text, ty: Ty) -> R<Reg> {
        self.check_var_name(t)?;
        let reg = self.alloc_var(ty.words())?;
        let line = self.line_of(t);
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(t.text.clone(), Var { reg, ty, line });
        Ok(reg)
    }

    fn check_var_name(&self, t: &Text) -> R<()> {
        let n = &t.text;
        if !is_ident(n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is not a valid register name"),
                Some("use letters, digits and _, starting with a letter".to_owned()),
            ));
        }
        if special(n).is_some() || FUNCTIONS.contains(&n.as_str()) {
            return Err(self.err_text(
                t,
                format!("`{n}` is a built-in name"),
                Some("choose another register name".to_owned()),
            ));
        }
        if self.define(n).is_some() {
            return Err(self.err_text(
                t,
                format!("`{n}` is a define"),
                Some("choose another register name".to_owned()),
            ));
        }
        if self.buffers.iter().any(|b| &b.name == n) || self.shared.iter().any(|s| &s.name == n) {
            return Err(self.err_text(
                t,
                format!("`{n}` is an array"),
                Some("choose another register name".to_owned()),
            ));
        }
        if let Some(v) = self.lookup(n) {
            return Err(self.err_text(
                t,
                format!("register `{n}` is already declared (line {})", v.line),
                Some(format!(
                    "assign it with Set(\"{n}\", …), or choose another name"
                )),
            ));
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> R<()> {
        match s {
            Stmt::Let(name, e) => {
                let (n, site) = self.parse_expr(e)?;
                let v = self.expr(&n, site)?;
                let ty = match v {
                    Val::Reg(_, t) => t,
                    Val::Const(c) => default_ty(c),
                };
                let reg = self.declare(name, ty)?;
                self.write_to(reg, ty, v, site, &n)?;
            }
            Stmt::Set(name, e) => {
                let Some(var) = self.lookup(&name.text).cloned() else {
                    return Err(self.err_text(
                        name,
                        format!("no register `{}` to assign", name.text),
                        Some(format!("declare it first with Let(\"{}\", …)", name.text)),
                    ));
                };
                let (n, site) = self.parse_expr(e)?;
                let v = self.expr(&n, site)?;
                let v = self.coerce(v, var.ty, site, &n, "the register's type")?;
                self.write_to(var.reg, var.ty, v, site, &n)?;
            }
            Stmt::Store(target, value) => {
                let (tn, tsite) = self.parse_expr(target)?;
                let (vn, vsite) = self.parse_expr(value)?;
                let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
                let Kind::Index(_, idx) = &tn.kind else {
                    unreachable!("array_of checks")
                };
                let v = self.expr(&vn, vsite)?;
                let v = self.coerce(v, Ty::of(elem), vsite, &vn, "the array's element type")?;
                let data = self.materialize(v, Ty::of(elem))?;
                let idx = self.indices(space, array, idx, tsite, 1)?;
                let mem = Mem {
                    space,
                    array,
                    rank,
                    idx,
                    vec: 1,
                    data,
                };
                let text = format!("{} = {}", target.text, value.text);
                self.emit_at(Inst::Store(mem), tsite, &tn, text);
            }
            Stmt::LoadVec(names, src) => {
                let (sn, site) = self.parse_expr(src)?;
                let (space, array, elem, rank) = self.array_of(&sn, site)?;
                let Kind::Index(_, idx) = &sn.kind else {
                    unreachable!("array_of checks")
                };
                let vec = self.vec_len(names.len(), elem, src, space, array)?;
                let idx = self.indices(space, array, idx, site, vec)?;
                let ty = Ty::of(elem);
                let first = Reg(self.next_reg.max(self.high_water) as u16);
                for n in names {
                    self.declare(n, ty)?;
                }
                let mem = Mem {
                    space,
                    array,
                    rank,
                    idx,
                    vec,
                    data: first,
                };
                let text = format!("({}) = {}", join(names), src.text);
                self.emit_at(Inst::Load(mem), site, &sn, text);
            }
            Stmt::StoreVec(target, values) => {
                let (tn, tsite) = self.parse_expr(target)?;
                let (space, array, elem, rank) = self.array_of(&tn, tsite)?;
                let Kind::Index(_, idx) = &tn.kind else {
                    unreachable!("array_of checks")
                };
                let vec = self.vec_len(values.len(), elem, target, space, array)?;
                let ty = Ty::of(elem);
                let mut vals = Vec::new();
                for v in values {
                    let (vn, vsite) = self.parse_expr(v)?;
                    let val = self.expr(&vn, vsite)?;
                    vals.push(self.coerce(val, ty, vsite, &vn, "the array's element type")?);
                }
                let data = self.alloc_temp(ty.words() * vec as u16)?;
                for (k, v) in vals.into_iter().enumerate() {
                    let dst = Reg(data.0 + k as u16 * ty.words());
                    let src = self.materialize(v, ty)?;
                    self.emit(if ty == Ty::F64 {
                        Inst::Mov64 { dst, a: src }
                    } else {
                        Inst::Mov { dst, a: src }
                    });
                }
                let idx = self.indices(space, array, idx, tsite, vec)?;
                let mem = Mem {
                    space,
                    array,
                    rank,
                    idx,
                    vec,
                    data,
                };
                let text = format!("{} = ({})", target.text, join(values));
                self.emit_at(Inst::Store(mem), tsite, &tn, text);
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                let (n, site) = self.parse_expr(cond)?;
                let v = self.expr(&n, site)?;
                let known = match v {
                    Val::Const(Const::Int(x, _)) => Some(x != 0),
                    _ => None,
                };
                let c = self.truth(v, site, &n)?;
                self.enter();
                if let Some(taken) = known {
                    // A constant condition (a define's value, say): only the part that runs
                    // is kept, without a frame. The other part is lowered all the same, so
                    // that its mistakes are reported whatever the defines, then dropped.
                    let start = self.code.len();
                    self.nested(if taken { otherwise } else { then })?;
                    self.code.truncate(start);
                    self.info.truncate(start);
                    self.last_product = None;
                    self.nested(if taken { then } else { otherwise })?;
                    self.depth -= 1;
                    return Ok(());
                }
                let at = self.emit(Inst::If {
                    c,
                    else_pc: 0,
                    end_pc: 0,
                });
                self.nested(then)?;
                // Without an else-part there is nothing to switch to: lanes that skipped the
                // then-part wait at the `EndIf`.
                let el = (!otherwise.is_empty()).then(|| self.emit(Inst::Else { end_pc: 0 }));
                self.nested(otherwise)?;
                let end = self.emit(Inst::EndIf);
                self.depth -= 1;
                self.code[at as usize] = Inst::If {
                    c,
                    else_pc: el.map_or(end, |el| el + 1),
                    end_pc: end,
                };
                if let Some(el) = el {
                    self.code[el as usize] = Inst::Else { end_pc: end };
                }
            }
            Stmt::While { cond, body } => {
                self.emit(Inst::LoopStart);
                self.enter();
                let head = self.code.len() as Pc;
                let c = self.cond(cond)?;
                let test = self.emit(Inst::LoopTest { c, exit_pc: 0 });
                let saved_cur = self.cur.clone();
                self.nested(body)?;
                // The back-edge belongs to the `While` (a runaway loop's fault points there).
                self.cur = saved_cur;
                self.emit(Inst::LoopBack { head_pc: head });
                let end = self.emit(Inst::LoopEnd);
                self.depth -= 1;
                self.code[test as usize] = Inst::LoopTest { c, exit_pc: end };
            }
            Stmt::For {
                var,
                from,
                to,
                step,
                body,
            } => {
                let saved_cur = self.cur.clone();
                let (fnode, fsite) = self.parse_expr(&from.0)?;
                let fv = self.expr(&fnode, fsite)?;
                let ty = match fv {
                    Val::Reg(_, t) => t,
                    Val::Const(c) => default_ty(c),
                };
                if !ty.is_int() {
                    return Err(self.err_text(
                        &from.0,
                        format!(
                            "a loop counter must be an integer, and `{}` is {}",
                            from.0.text,
                            ty.name()
                        ),
                        Some("loop over integers and convert inside the body".to_owned()),
                    ));
                }
                self.scopes.push(HashMap::new());
                let reg = self.declare(var, ty)?;
                self.write_to(reg, ty, fv, fsite, &fnode)?;
                let sval = match step {
                    Some(s) => {
                        let (n, site) = self.parse_expr(&s.0)?;
                        let v = self.expr(&n, site)?;
                        self.coerce(v, ty, site, &n, "the loop counter's type")?
                    }
                    None => Val::Const(Const::Int(1, None)),
                };
                let down = matches!(sval, Val::Const(Const::Int(v, _)) if v < 0);
                if matches!(sval, Val::Const(Const::Int(0, _))) {
                    let t = step.as_ref().map(|s| &s.0).unwrap_or(var);
                    return Err(self.err_text(
                        t,
                        "a loop step of 0 never ends".to_owned(),
                        Some("use a step other than 0".to_owned()),
                    ));
                }
                self.emit(Inst::LoopStart);
                self.enter();
                let head = self.code.len() as Pc;
                self.temp_base = self.next_reg;
                let (tnode, tsite) = self.parse_expr(&to.0)?;
                let tv = self.expr(&tnode, tsite)?;
                let tv = self.coerce(tv, ty, tsite, &tnode, "the loop counter's type")?;
                let bound = self.materialize(tv, ty)?;
                let signed = ty == Ty::I32;
                let (a, b) = if down { (bound, reg) } else { (reg, bound) };
                let test = self.emit(Inst::ForTest {
                    a,
                    b,
                    signed,
                    exit_pc: 0,
                });
                // The body's own scope is nested inside the counter's.
                self.nested(body)?;
                self.cur = saved_cur;
                self.temp_base = self.next_reg;
                let step = self.materialize(sval, ty)?;
                self.emit(Inst::ForNext {
                    var: reg,
                    step,
                    head_pc: head,
                });
                let end = self.emit(Inst::LoopEnd);
                self.depth -= 1;
                self.scopes.pop();
                self.code[test as usize] = Inst::ForTest {
                    a,
                    b,
                    signed,
                    exit_pc: end,
                };
            }
            Stmt::Barrier => {
                self.emit(Inst::Barrier);
            }
        }
        Ok(())
    }

    fn vec_len(&self, n: usize, elem: Elem, t: &Text, space: Space, array: u16) -> R<u8> {
        let width = n as u32 * elem.bytes();
        if !(n == 2 || n == 4) || !(width == 8 || width == 16) {
            return Err(self.err_text(
                t,
                format!("a vector access of {n} {elem} elements is {width} bytes; vector accesses are 8 or 16 bytes"),
                Some("use 2 or 4 elements of f32/i32/u32, or 2 of f64".to_owned()),
            ));
        }
        if space == Space::Shared {
            let s = &self.shared[array as usize];
            if s.swizzle > 0 && s.swizzle < n as u32 {
                return Err(self.err_text(
                    t,
                    format!(
                        "`{}` is swizzled in groups of {} elements, which splits this {n}-element vector access",
                        s.name, s.swizzle
                    ),
                    Some(format!("use a swizzle group of at least {n} (or 0) for `{}`", s.name)),
                ));
            }
        }
        Ok(n as u8)
    }

    fn cond(&mut self, t: &Text) -> R<Reg> {
        let (n, site) = self.parse_expr(t)?;
        let v = self.expr(&n, site)?;
        self.truth(v, site, &n)
    }

    /// A 0/1 register from a condition (integers test against 0).
    fn truth(&mut self, v: Val, site: Site, n: &Node) -> R<Reg> {
        match v {
            Val::Reg(r, Ty::Bool) => Ok(r),
            Val::Reg(r, t) if t.is_int() => {
                let z = self.const_reg(0, t)?;
                let d = self.alloc_temp(1)?;
                self.emit(Inst::Ne { dst: d, a: r, b: z });
                Ok(d)
            }
            Val::Const(Const::Int(x, _)) => self.const_reg((x != 0) as u64, Ty::Bool),
            _ => Err(self.err_node(
                site,
                n,
                "a condition must be a comparison or an integer".to_owned(),
                Some("compare floats explicitly, e.g. `x > 0.0`".to_owned()),
            )),
        }
    }

    /// Puts the value `v` of type `ty` into register `dst`.
    fn write_to(&mut self, dst: Reg, ty: Ty, v: Val, _site: Site, _n: &Node) -> R<()> {
        match v {
            Val::Reg(r, _) => {
                // The expression's last instruction wrote a temporary: let it write `dst`.
                if !self.fixed.get(r.0 as usize).copied().unwrap_or(false) && r != dst {
                    if let Some(last) = self.code.last_mut() {
                        if retarget(last, r, dst) {
                            return Ok(());
                        }
                    }
                }
                if r != dst {
                    self.emit(if ty == Ty::F64 {
                        Inst::Mov64 { dst, a: r }
                    } else {
                        Inst::Mov { dst, a: r }
                    });
                }
            }
            Val::Const(c) => {
                let r = self.materialize(Val::Const(c), ty)?;
                self.emit(if ty == Ty::F64 {
                    Inst::Mov64 { dst, a: r }
                } else {
                    Inst::Mov { dst, a: r }
                });
            }
        }
        Ok(())
    }

    /// A register holding `v` as type `ty` (constants go to the constant pool).
    fn materialize(&mut self, v: Val, ty: Ty) -> R<Reg> {
        Ok(match v {
            Val::Reg(r, _) => r,
            Val::Const(c) => {
                let bits = const_bits(c, ty);
                self.const_reg(bits, ty)?
            }
        })
    }

    /// Converts `v` to `ty` where that is implicit: literals take any fitting type, and
    /// i32/u32 convert into each other (same bits).
    fn coerce(&mut self, v: Val, ty: Ty, site: Site, n: &Node, what: &str) -> R<Val> {
        match v {
            Val::Reg(r, t) if t == ty => Ok(Val::Reg(r, t)),
            Val::Reg(r, t) if t.is_int() && ty.is_int() => Ok(Val::Reg(r, ty)),
            Val::Reg(r, Ty::Bool) if ty.is_int() => Ok(Val::Reg(r, ty)),
            Val::Reg(_, t) => Err(self.err_node(
                site,
                n,
                format!("this is {}, but {what} is {}", t.name(), ty.name()),
                Some(format!("convert it: {}(…)", ty.name())),
            )),
            Val::Const(c) => {
                self.check_const_fits(c, ty, site, n)?;
                Ok(Val::Const(c))
            }
        }
    }

    fn check_const_fits(&self, c: Const, ty: Ty, site: Site, n: &Node) -> R<()> {
        match (c, ty) {
            (Const::Int(v, _), Ty::I32) if v < i32::MIN as i64 || v > u32::MAX as i64 => {}
            (Const::Int(v, _), Ty::U32) if v < i32::MIN as i64 || v > u32::MAX as i64 => {}
            (Const::Int(..), _) => return Ok(()),
            (Const::Float(..), t) if t.is_float() => return Ok(()),
            (Const::Float(..), t) => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("a float where {} is expected", t.name()),
                    Some(format!("convert it: {}(…)", t.name())),
                ))
            }
        }
        Err(self.err_node(
            site,
            n,
            format!("this constant does not fit in {}", ty.name()),
            Some("use a smaller value".to_owned()),
        ))
    }

    // ---- arrays --------------------------------------------------------------------------

    /// Resolves an `a[i]…` node to its array: (space, index, element type, rank).
    fn array_of(&self, n: &Node, site: Site) -> R<(Space, u16, Elem, u8)> {
        let Kind::Index(name, idx) = &n.kind else {
            return Err(self.err_node(
                site,
                n,
                "expected an array element such as `tile[r][c]`".to_owned(),
                None,
            ));
        };
        if let Some(i) = self.shared.iter().position(|s| &s.name == name) {
            let s = &self.shared[i];
            if idx.len() != s.dims.len() {
                return Err(self.err_node(
                    site,
                    n,
                    format!(
                        "`{name}` has {} dimensions but is indexed with {}",
                        s.dims.len(),
                        idx.len()
                    ),
                    Some(format!("write {name}{}", "[…]".repeat(s.dims.len()))),
                ));
            }
            return Ok((Space::Shared, i as u16, s.elem, idx.len() as u8));
        }
        if let Some(i) = self.buffers.iter().position(|b| &b.name == name) {
            if idx.len() != 1 {
                return Err(self.err_node(
                    site,
                    n,
                    format!(
                        "buffer `{name}` is one-dimensional but is indexed with {} indices",
                        idx.len()
                    ),
                    Some(format!("compute a flat index: {name}[row * width + col]")),
                ));
            }
            return Ok((Space::Global, i as u16, self.buffers[i].elem, 1));
        }
        Err(self.err_node(
            site,
            n,
            format!("no array named `{name}`"),
            Some(self.array_list()),
        ))
    }

    fn array_list(&self) -> String {
        let names: Vec<_> = self
            .shared
            .iter()
            .map(|s| s.name.as_str())
            .chain(self.buffers.iter().map(|b| b.name.as_str()))
            .collect();
        if names.is_empty() {
            "the program declares no arrays".into()
        } else {
            format!("arrays: {}", names.join(", "))
        }
    }

    /// Compiles index expressions into registers, checking constant ones against the bounds.
    fn indices(
        &mut self,
        space: Space,
        array: u16,
        idx: &[Node],
        site: Site,
        vec: u8,
    ) -> R<[Reg; 3]> {
        let dims: Vec<u64> = match space {
            Space::Shared => self.shared[array as usize]
                .dims
                .iter()
                .map(|&d| d as u64)
                .collect(),
            Space::Global => vec![self.buffers[array as usize].len],
        };
        let name = match space {
            Space::Shared => self.shared[array as usize].name.clone(),
            Space::Global => self.buffers[array as usize].name.clone(),
        };
        let mut out = [Reg(0); 3];
        for (d, n) in idx.iter().enumerate() {
            let v = self.expr(n, site)?;
            let last = d + 1 == idx.len();
            if let Val::Const(Const::Int(x, _)) = v {
                let extra = if last { vec as i64 - 1 } else { 0 };
                if x < 0 || x >= dims[d] as i64 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!(
                            "index {x} is out of bounds: dimension {d} of `{name}` has {} elements",
                            dims[d]
                        ),
                        Some("indices run from 0 to the size minus 1".to_owned()),
                    ));
                }
                if x + extra >= dims[d] as i64 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!(
                            "the {vec} elements from index {x} reach index {}, past the end: \
                             dimension {d} of `{name}` has {} elements",
                            x + extra,
                            dims[d]
                        ),
                        Some(if dims[d] as i64 >= vec as i64 {
                            format!(
                                "a vector of {vec} starts at most at index {} here",
                                dims[d] as i64 - vec as i64
                            )
                        } else {
                            format!("use fewer than {vec} elements, or a longer `{name}`")
                        }),
                    ));
                }
            }
            let v = match v {
                Val::Reg(_, t) if !t.is_int() => {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("an index must be an integer, and this is {}", t.name()),
                        Some("convert it: i32(…)".to_owned()),
                    ))
                }
                Val::Const(Const::Float(..)) => {
                    return Err(self.err_node(
                        site,
                        n,
                        "an index must be an integer".to_owned(),
                        Some("convert it: i32(…)".to_owned()),
                    ))
                }
                v => v,
            };
            out[d] = self.materialize(v, Ty::I32)?;
        }
        Ok(out)
    }

    // ---- expressions ---------------------------------------------------------------------

    fn expr(&mut self, n: &Node, site: Site) -> R<Val> {
        match &n.kind {
            Kind::Int { value, unsigned } => {
                if *unsigned && (*value < 0 || *value > u32::MAX as i64) {
                    return Err(self.err_node(
                        site,
                        n,
                        "this constant does not fit in u32".to_owned(),
                        None,
                    ));
                }
                Ok(Val::Const(Const::Int(*value, unsigned.then_some(Ty::U32))))
            }
            Kind::Float(v) => Ok(Val::Const(Const::Float(*v, None))),
            Kind::Name(name) => self.name(name, n, site),
            Kind::Index(..) => {
                let (space, array, elem, rank) = self.array_of(n, site)?;
                let Kind::Index(_, idx) = &n.kind else {
                    unreachable!("array_of checks")
                };
                let idx = self.indices(space, array, idx, site, 1)?;
                let ty = Ty::of(elem);
                let data = self.alloc_temp(ty.words())?;
                let text = self.node_text(n, site);
                self.emit_at(
                    Inst::Load(Mem {
                        space,
                        array,
                        rank,
                        idx,
                        vec: 1,
                        data,
                    }),
                    site,
                    n,
                    text,
                );
                Ok(Val::Reg(data, ty))
            }
            Kind::Unary(op, a) => {
                let v = self.expr(a, site)?;
                self.unary(*op, v, site, n)
            }
            Kind::Binary(op, a, b) => {
                let x = self.expr(a, site)?;
                let y = self.expr(b, site)?;
                self.binary(*op, x, y, site, n)
            }
            Kind::Cond(c, a, b) => {
                let cv = self.expr(c, site)?;
                let x = self.expr(a, site)?;
                let y = self.expr(b, site)?;
                if let Val::Const(Const::Int(k, _)) = cv {
                    if matches!((x, y), (Val::Const(_), Val::Const(_))) {
                        return Ok(if k != 0 { x } else { y });
                    }
                }
                let cr = self.truth(cv, site, c)?;
                self.select(cr, x, y, site, n)
            }
            Kind::Call(f, args) => self.call(f, args, site, n),
        }
    }

    fn node_text(&self, n: &Node, site: Site) -> String {
        match site.base {
            Some(b) => self
                .src
                .get(b + n.start..b + n.end)
                .unwrap_or("")
                .to_owned(),
            None => String::new(),
        }
    }

    fn name(&mut self, name: &str, n: &Node, site: Site) -> R<Val> {
        if let Some(v) = self.lookup(name) {
            return Ok(Val::Reg(v.reg, v.ty));
        }
        if let Some(v) = self.define(name) {
            return Ok(Val::Const(Const::Int(v, None)));
        }
        if let Some(s) = special(name) {
            let r = self.special_reg(s)?;
            return Ok(Val::Reg(r, Ty::I32));
        }
        if self.shared.iter().any(|s| s.name == name) || self.buffers.iter().any(|b| b.name == name)
        {
            return Err(self.err_node(
                site,
                n,
                format!("`{name}` is an array"),
                Some(format!("index it: {name}[…]")),
            ));
        }
        let mut known: Vec<&str> = self
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(|k| k.as_str()))
            .collect();
        known.sort();
        let close = known
            .iter()
            .find(|k| similar(k, name))
            .map(|k| format!("did you mean `{k}`? "));
        Err(self.err_node(
            site,
            n,
            format!("unknown name `{name}`"),
            Some(format!(
                "{}registers here: {}; defines: {}; special registers: tid.x/y/z, tid, ctaid.*, ntid.*, nctaid.*, laneid, warpid",
                close.unwrap_or_default(),
                if known.is_empty() { "none".to_owned() } else { known.join(", ") },
                self.define_list()
            )),
        ))
    }

    /// Types both operands alike: literals adopt the other side's type; i32 with u32 gives u32.
    fn unify(&mut self, x: Val, y: Val, site: Site, n: &Node) -> R<(Val, Val, Ty)> {
        let t = match (x, y) {
            (Val::Reg(_, a), Val::Reg(_, b)) => {
                if a == b {
                    a
                } else if a.is_int() && b.is_int() {
                    Ty::U32
                } else {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("mismatched types: {} and {}", a.name(), b.name()),
                        Some(format!(
                            "convert one side, e.g. {}(…)",
                            if a.is_float() { a.name() } else { b.name() }
                        )),
                    ));
                }
            }
            (Val::Reg(_, a), Val::Const(c)) | (Val::Const(c), Val::Reg(_, a)) => {
                self.check_const_fits(c, a, site, n)?;
                a
            }
            (Val::Const(a), Val::Const(b)) => match (a, b) {
                (Const::Float(_, t), _) | (_, Const::Float(_, t)) => t.unwrap_or(Ty::F32),
                (Const::Int(_, ta), Const::Int(_, tb)) => ta.or(tb).unwrap_or(Ty::I32),
            },
        };
        Ok((x, y, t))
    }

    fn binary(&mut self, op: BinOp, x: Val, y: Val, site: Site, n: &Node) -> R<Val> {
        use BinOp::*;
        // Fold constants.
        if let (Val::Const(a), Val::Const(b)) = (x, y) {
            return self.fold(op, a, b, site, n);
        }
        if matches!(op, Shl | Shr) {
            let tx = match x {
                Val::Reg(_, t) => t,
                Val::Const(c) => default_ty(c),
            };
            if !tx.is_int() {
                return Err(self.err_node(
                    site,
                    n,
                    format!("shifts need integers, and the left side is {}", tx.name()),
                    None,
                ));
            }
            if let Val::Reg(_, t) = y {
                if !t.is_int() {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("a shift amount must be an integer, not {}", t.name()),
                        None,
                    ));
                }
            }
            let a = self.materialize(x, tx)?;
            let b = self.materialize(y, Ty::U32)?;
            let dst = self.alloc_temp(1)?;
            self.emit(match (op, tx) {
                (Shl, _) => Inst::Shl { dst, a, b },
                (_, Ty::I32) => Inst::ShrS { dst, a, b },
                _ => Inst::ShrU { dst, a, b },
            });
            return Ok(Val::Reg(dst, tx));
        }
        if matches!(op, LAnd | LOr) {
            let a = self.truth(x, site, n)?;
            let b = self.truth(y, site, n)?;
            let dst = self.alloc_temp(1)?;
            self.emit(if op == LAnd {
                Inst::And { dst, a, b }
            } else {
                Inst::Or { dst, a, b }
            });
            return Ok(Val::Reg(dst, Ty::Bool));
        }
        let (x, y, t) = self.unify(x, y, site, n)?;
        if let Some(v) = self.strength_reduce(op, x, y, t)? {
            return Ok(v);
        }
        let (x, y) = match op {
            Gt | Ge => (y, x),
            _ => (x, y),
        };
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge);
        let rt = if cmp { Ty::Bool } else { t };
        let dst = self.alloc_temp(rt.words())?;
        let bad = |s: &Self| {
            Err(s.err_node(
                site,
                n,
                format!("`{}` does not apply to {}", op.symbol(), t.name()),
                Some(match t {
                    Ty::Bool => "compare with == / != or combine with && / ||".to_owned(),
                    _ => "convert the operands to an integer type".to_owned(),
                }),
            ))
        };
        let inst = match t {
            Ty::I32 | Ty::U32 | Ty::Bool => {
                let s = t == Ty::I32;
                match op {
                    Add if t != Ty::Bool => Inst::Add { dst, a, b },
                    Sub if t != Ty::Bool => Inst::Sub { dst, a, b },
                    Mul if t != Ty::Bool => Inst::Mul { dst, a, b },
                    Div if t != Ty::Bool => {
                        if s {
                            Inst::DivS { dst, a, b }
                        } else {
                            Inst::DivU { dst, a, b }
                        }
                    }
                    Rem if t != Ty::Bool => {
                        if s {
                            Inst::RemS { dst, a, b }
                        } else {
                            Inst::RemU { dst, a, b }
                        }
                    }
                    And => Inst::And { dst, a, b },
                    Or => Inst::Or { dst, a, b },
                    Xor => Inst::Xor { dst, a, b },
                    Eq => Inst::Eq { dst, a, b },
                    Ne => Inst::Ne { dst, a, b },
                    Lt | Gt if t != Ty::Bool => {
                        if s {
                            Inst::LtS { dst, a, b }
                        } else {
                            Inst::LtU { dst, a, b }
                        }
                    }
                    Le | Ge if t != Ty::Bool => {
                        if s {
                            Inst::LeS { dst, a, b }
                        } else {
                            Inst::LeU { dst, a, b }
                        }
                    }
                    _ => return bad(self),
                }
            }
            Ty::F32 => match op {
                Add => Inst::FAdd { dst, a, b },
                Sub => Inst::FSub { dst, a, b },
                Mul => Inst::FMul { dst, a, b },
                Div => Inst::FDiv { dst, a, b },
                Rem => Inst::FRem { dst, a, b },
                Eq => Inst::FEq { dst, a, b },
                Ne => Inst::FNe { dst, a, b },
                Lt | Gt => Inst::FLt { dst, a, b },
                Le | Ge => Inst::FLe { dst, a, b },
                _ => return bad(self),
            },
            Ty::F64 => match op {
                Add => Inst::DAdd { dst, a, b },
                Sub => Inst::DSub { dst, a, b },
                Mul => Inst::DMul { dst, a, b },
                Div => Inst::DDiv { dst, a, b },
                Rem => Inst::DRem { dst, a, b },
                Eq => Inst::DEq { dst, a, b },
                Ne => Inst::DNe { dst, a, b },
                Lt | Gt => Inst::DLt { dst, a, b },
                Le | Ge => Inst::DLe { dst, a, b },
                _ => return bad(self),
            },
        };
        let product = matches!(inst, Inst::Mul { .. });
        // Point faults (division by zero) at the operation itself.
        let text = self.cur.2.clone();
        let pc = self.emit_at(inst, site, n, text);
        self.last_product = product.then_some(pc as usize);
        Ok(Val::Reg(dst, rt))
    }

    /// Cheaper instructions for a few integer operations, with the same results:
    ///
    /// * `x * y + z` (or `z + x * y`) whose product was the instruction just emitted, into a
    ///   temporary: one [`Inst::Mad`] instead of the `Mul` and an `Add`;
    /// * division and remainder by a constant power of two: shifts and masks instead of a
    ///   division in every lane (32 hardware divides: about 70 ns more per warp instruction
    ///   than a mask, measured).
    ///
    /// `None`: nothing to do, lower `x op y` as it is.
    fn strength_reduce(&mut self, op: BinOp, x: Val, y: Val, t: Ty) -> R<Option<Val>> {
        if !matches!(t, Ty::I32 | Ty::U32) {
            return Ok(None);
        }
        match (op, x, y) {
            (BinOp::Add, x, y) => {
                let Some(&Inst::Mul { dst, a, b }) = self.code.last() else {
                    return Ok(None);
                };
                // The product must be this expression's own: a temporary (a variable's
                // register keeps its value for later reads) that `binary` has just written.
                if self.last_product != Some(self.code.len() - 1)
                    || self.fixed.get(dst.0 as usize).copied().unwrap_or(false)
                {
                    return Ok(None);
                }
                let other = match (x, y) {
                    (Val::Reg(p, _), other) | (other, Val::Reg(p, _)) if p == dst => other,
                    _ => return Ok(None),
                };
                // (`other` is a register or a constant: neither emits an instruction.)
                let c = self.materialize(other, t)?;
                if let Some(last) = self.code.last_mut() {
                    *last = Inst::Mad { dst, a, b, c };
                }
                self.last_product = None;
                Ok(Some(Val::Reg(dst, t)))
            }
            (BinOp::Div | BinOp::Rem, x @ Val::Reg(..), Val::Const(Const::Int(d, _)))
                if (2..=1 << 30).contains(&d) && (d as u64).is_power_of_two() =>
            {
                let k = d.trailing_zeros() as u8;
                let a = self.materialize(x, t)?;
                let dst = self.alloc_temp(1)?;
                let inst = match (op, t) {
                    (BinOp::Div, Ty::I32) => Inst::DivS2 { dst, a, k },
                    (BinOp::Rem, Ty::I32) => Inst::RemS2 { dst, a, k },
                    (BinOp::Div, _) => Inst::ShrU {
                        dst,
                        a,
                        b: self.const_reg(k as u64, Ty::U32)?,
                    },
                    _ => Inst::And {
                        dst,
                        a,
                        b: self.const_reg(d as u64 - 1, Ty::U32)?,
                    },
                };
                self.emit(inst);
                Ok(Some(Val::Reg(dst, t)))
            }
            _ => Ok(None),
        }
    }

    fn fold(&self, op: BinOp, a: Const, b: Const, site: Site, n: &Node) -> R<Val> {
        use BinOp::*;
        let err = |m: String| self.err_node(site, n, m, None);
        Ok(Val::Const(match (a, b) {
            (Const::Int(x, ta), Const::Int(y, tb)) => {
                let t = ta.or(tb);
                let v = if t == Some(Ty::U32) {
                    // u32 arithmetic wraps, as it does at run time.
                    fold_u32(op, x as u32, y as u32).map_err(err)?
                } else {
                    fold_i64(op, x, y).map_err(err)?
                };
                let cmp = matches!(op, Eq | Ne | Lt | Le | Gt | Ge | LAnd | LOr);
                let v = match t {
                    Some(Ty::U32) if !cmp => v as u32 as i64,
                    _ => v,
                };
                Const::Int(v, if cmp { None } else { t })
            }
            (a, b) => {
                let x = const_f64(a);
                let y = const_f64(b);
                let t = match (a, b) {
                    (Const::Float(_, t), _) | (_, Const::Float(_, t)) => t,
                    _ => None,
                };
                let r = match op {
                    Add => x + y,
                    Sub => x - y,
                    Mul => x * y,
                    Div => x / y,
                    Rem => x % y,
                    Eq => return Ok(Val::Const(Const::Int((x == y) as i64, None))),
                    Ne => return Ok(Val::Const(Const::Int((x != y) as i64, None))),
                    Lt => return Ok(Val::Const(Const::Int((x < y) as i64, None))),
                    Le => return Ok(Val::Const(Const::Int((x <= y) as i64, None))),
                    Gt => return Ok(Val::Const(Const::Int((x > y) as i64, None))),
                    Ge => return Ok(Val::Const(Const::Int((x >= y) as i64, None))),
                    _ => return Err(err(format!("`{}` does not apply to floats", op.symbol()))),
                };
                Const::Float(r, t)
            }
        }))
    }

    fn unary(&mut self, op: UnOp, v: Val, site: Site, n: &Node) -> R<Val> {
        if let Val::Const(c) = v {
            return Ok(Val::Const(match (op, c) {
                (UnOp::Neg, Const::Int(x, t)) => Const::Int(
                    x.checked_neg()
                        .ok_or_else(|| self.err_node(site, n, "overflow".to_owned(), None))?,
                    t,
                ),
                (UnOp::Neg, Const::Float(x, t)) => Const::Float(-x, t),
                (UnOp::Not, Const::Int(x, _)) => Const::Int((x == 0) as i64, None),
                (UnOp::BitNot, Const::Int(x, Some(Ty::U32))) => {
                    Const::Int(!(x as u32) as i64, Some(Ty::U32))
                }
                (UnOp::BitNot, Const::Int(x, t)) => Const::Int(!x, t),
                _ => {
                    return Err(self.err_node(
                        site,
                        n,
                        "this operator does not apply to a float".to_owned(),
                        None,
                    ))
                }
            }));
        }
        let Val::Reg(a, t) = v else { unreachable!() };
        let dst = self.alloc_temp(t.words())?;
        let inst = match (op, t) {
            (UnOp::Neg, Ty::I32 | Ty::U32) => Inst::Neg { dst, a },
            (UnOp::Neg, Ty::F32) => Inst::FNeg { dst, a },
            (UnOp::Neg, Ty::F64) => Inst::DNeg { dst, a },
            (UnOp::BitNot, Ty::I32 | Ty::U32) => Inst::Not { dst, a },
            (UnOp::Not, Ty::Bool) => {
                let one = self.const_reg(1, Ty::Bool)?;
                Inst::Xor { dst, a, b: one }
            }
            (UnOp::Not, Ty::I32 | Ty::U32) => {
                let z = self.const_reg(0, t)?;
                self.emit(Inst::Eq { dst, a, b: z });
                return Ok(Val::Reg(dst, Ty::Bool));
            }
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("this operator does not apply to {}", t.name()),
                    None,
                ))
            }
        };
        self.emit(inst);
        Ok(Val::Reg(dst, t))
    }

    fn select(&mut self, c: Reg, x: Val, y: Val, site: Site, n: &Node) -> R<Val> {
        let (x, y, t) = self.unify(x, y, site, n)?;
        let a = self.materialize(x, t)?;
        let b = self.materialize(y, t)?;
        let dst = self.alloc_temp(t.words())?;
        self.emit(if t == Ty::F64 {
            Inst::Select64 { dst, c, a, b }
        } else {
            Inst::Select { dst, c, a, b }
        });
        Ok(Val::Reg(dst, t))
    }

    fn call(&mut self, f: &str, args: &[Node], site: Site, n: &Node) -> R<Val> {
        let arity = match f {
            "min" | "max" => 2,
            "abs" | "sqrt" | "i32" | "u32" | "f32" | "f64" => 1,
            "fma" | "select" => 3,
            _ => {
                return Err(self.err_node(
                    site,
                    n,
                    format!("unknown function `{f}`"),
                    Some(format!("functions: {}", FUNCTIONS.join(", "))),
                ))
            }
        };
        if args.len() != arity {
            return Err(self.err_node(
                site,
                n,
                format!("`{f}` takes {arity} argument(s), not {}", args.len()),
                None,
            ));
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a, site)?);
        }
        match f {
            "min" | "max" => {
                let (x, y, t) = self.unify(vals[0], vals[1], site, n)?;
                if let (Val::Const(a), Val::Const(b)) = (x, y) {
                    let (p, q) = (const_f64(a), const_f64(b));
                    let pick_a = if f == "min" { p <= q } else { p >= q };
                    return Ok(Val::Const(if pick_a { a } else { b }));
                }
                let a = self.materialize(x, t)?;
                let b = self.materialize(y, t)?;
                let dst = self.alloc_temp(t.words())?;
                let min = f == "min";
                self.emit(match t {
                    Ty::I32 => {
                        if min {
                            Inst::MinS { dst, a, b }
                        } else {
                            Inst::MaxS { dst, a, b }
                        }
                    }
                    Ty::U32 | Ty::Bool => {
                        if min {
                            Inst::MinU { dst, a, b }
                        } else {
                            Inst::MaxU { dst, a, b }
                        }
                    }
                    Ty::F32 => {
                        if min {
                            Inst::FMin { dst, a, b }
                        } else {
                            Inst::FMax { dst, a, b }
                        }
                    }
                    Ty::F64 => {
                        if min {
                            Inst::DMin { dst, a, b }
                        } else {
                            Inst::DMax { dst, a, b }
                        }
                    }
                });
                Ok(Val::Reg(dst, t))
            }
            "abs" | "sqrt" => {
                let v = vals[0];
                if let Val::Const(c) = v {
                    return Ok(Val::Const(match (f, c) {
                        ("abs", Const::Int(x, t)) => Const::Int(x.abs(), t),
                        ("abs", Const::Float(x, t)) => Const::Float(x.abs(), t),
                        // (The type stays: `sqrt(f64(2))` is an f64, as at run time.)
                        (_, Const::Float(x, Some(Ty::F32))) => {
                            Const::Float((x as f32).sqrt() as f64, Some(Ty::F32))
                        }
                        (_, Const::Float(x, t)) => Const::Float(x.sqrt(), t),
                        (_, c) => Const::Float(const_f64(c).sqrt(), None),
                    }));
                }
                let Val::Reg(a, t) = v else { unreachable!() };
                let dst = self.alloc_temp(t.words())?;
                self.emit(match (f, t) {
                    ("abs", Ty::I32) => Inst::AbsS { dst, a },
                    ("abs", Ty::U32) => Inst::Mov { dst, a },
                    ("abs", Ty::F32) => Inst::FAbs { dst, a },
                    ("abs", Ty::F64) => Inst::DAbs { dst, a },
                    ("sqrt", Ty::F32) => Inst::FSqrt { dst, a },
                    ("sqrt", Ty::F64) => Inst::DSqrt { dst, a },
                    _ => {
                        return Err(self.err_node(
                            site,
                            n,
                            format!("`{f}` does not apply to {}", t.name()),
                            Some("convert the argument: f32(…)".to_owned()),
                        ))
                    }
                });
                Ok(Val::Reg(dst, t))
            }
            "fma" => {
                let (x, y, t) = self.unify(vals[0], vals[1], site, n)?;
                let (_, z, t2) = self.unify(Val::Reg(Reg(0), t), vals[2], site, n)?;
                if !t2.is_float() || t != t2 {
                    return Err(self.err_node(
                        site,
                        n,
                        "fma takes floats of one type".to_owned(),
                        Some("convert the arguments: f32(…)".to_owned()),
                    ));
                }
                let a = self.materialize(x, t)?;
                let b = self.materialize(y, t)?;
                let c = self.materialize(z, t)?;
                let dst = self.alloc_temp(t.words())?;
                self.emit(if t == Ty::F32 {
                    Inst::FFma { dst, a, b, c }
                } else {
                    Inst::DFma { dst, a, b, c }
                });
                Ok(Val::Reg(dst, t))
            }
            "select" => {
                let c = self.truth(vals[0], site, &args[0])?;
                self.select(c, vals[1], vals[2], site, n)
            }
            _ => {
                // Conversions.
                let to = match f {
                    "i32" => Ty::I32,
                    "u32" => Ty::U32,
                    "f32" => Ty::F32,
                    _ => Ty::F64,
                };
                match vals[0] {
                    Val::Const(c) => Ok(Val::Const(match (c, to) {
                        (Const::Int(x, _), Ty::I32) => Const::Int(x as i32 as i64, Some(Ty::I32)),
                        (Const::Int(x, _), Ty::U32) => Const::Int(x as u32 as i64, Some(Ty::U32)),
                        (Const::Float(x, _), Ty::I32) => Const::Int(x as i32 as i64, Some(Ty::I32)),
                        (Const::Float(x, _), Ty::U32) => Const::Int(x as u32 as i64, Some(Ty::U32)),
                        (c, t) => Const::Float(const_f64(c), Some(t)),
                    })),
                    Val::Reg(a, from) => {
                        if from == to
                            || (from.is_int() && to.is_int())
                            || (from == Ty::Bool && to.is_int())
                        {
                            return Ok(Val::Reg(a, to));
                        }
                        let dst = self.alloc_temp(to.words())?;
                        self.emit(Inst::Cvt {
                            dst,
                            a,
                            from: from.elem(),
                            to: to.elem(),
                        });
                        Ok(Val::Reg(dst, to))
                    }
                }
            }
        }
    }

    // ---- CPU reference expressions -------------------------------------------------------

    fn check_host(&self, n: &Node, site: Site, vars: &mut Vec<String>) -> R<()> {
        match &n.kind {
            Kind::Int { .. } | Kind::Float(_) => Ok(()),
            Kind::Name(name) => {
                if vars.contains(name) || self.define(name).is_some() {
                    Ok(())
                } else {
                    Err(self.err_node(site, n, format!("unknown name `{name}` in the reference"), Some(format!("the reference may use `i` (the element index), sum variables and the defines ({})", self.define_list()))))
                }
            }
            Kind::Index(name, idx) => {
                if !self.buffers.iter().any(|b| &b.name == name) || idx.len() != 1 {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("`{name}` is not a buffer"),
                        Some(
                            "the reference reads buffers' initial contents: buf[index]".to_owned(),
                        ),
                    ));
                }
                self.check_host(&idx[0], site, vars)
            }
            Kind::Unary(_, a) => self.check_host(a, site, vars),
            Kind::Binary(_, a, b) => {
                self.check_host(a, site, vars)?;
                self.check_host(b, site, vars)
            }
            Kind::Cond(c, a, b) => {
                self.check_host(c, site, vars)?;
                self.check_host(a, site, vars)?;
                self.check_host(b, site, vars)
            }
            Kind::Call(f, args) if f == "sum" => {
                let [v, from, to, body] = args.as_slice() else {
                    return Err(self.err_node(
                        site,
                        n,
                        "sum takes 4 arguments: sum(k, from, to, term)".to_owned(),
                        None,
                    ));
                };
                let Kind::Name(var) = &v.kind else {
                    return Err(self.err_node(
                        site,
                        v,
                        "the first argument of sum names its variable".to_owned(),
                        None,
                    ));
                };
                self.check_host(from, site, vars)?;
                self.check_host(to, site, vars)?;
                vars.push(var.clone());
                let r = self.check_host(body, site, vars);
                vars.pop();
                r
            }
            Kind::Call(f, args) => {
                let arity = match f.as_str() {
                    "min" | "max" => 2,
                    "abs" | "sqrt" | "i32" | "u32" | "f32" | "f64" => 1,
                    "fma" | "select" => 3,
                    _ => {
                        return Err(self.err_node(
                            site,
                            n,
                            format!("unknown function `{f}`"),
                            Some(format!("functions: sum, {}", FUNCTIONS.join(", "))),
                        ))
                    }
                };
                if args.len() != arity {
                    return Err(self.err_node(
                        site,
                        n,
                        format!("`{f}` takes {arity} argument(s)"),
                        None,
                    ));
                }
                for a in args {
                    self.check_host(a, site, vars)?;
                }
                Ok(())
            }
        }
    }
}

/// Makes the instruction that wrote `from` write `to` instead, if it is a plain
/// single-destination instruction.
fn retarget(i: &mut Inst, from: Reg, to: Reg) -> bool {
    use Inst::*;
    match i {
        Mov { dst, .. }
        | Mov64 { dst, .. }
        | Select { dst, .. }
        | Select64 { dst, .. }
        | Add { dst, .. }
        | Sub { dst, .. }
        | Mul { dst, .. }
        | Mad { dst, .. }
        | DivS { dst, .. }
        | DivU { dst, .. }
        | RemS { dst, .. }
        | RemU { dst, .. }
        | DivS2 { dst, .. }
        | RemS2 { dst, .. }
        | And { dst, .. }
        | Or { dst, .. }
        | Xor { dst, .. }
        | Shl { dst, .. }
        | ShrS { dst, .. }
        | ShrU { dst, .. }
        | MinS { dst, .. }
        | MinU { dst, .. }
        | MaxS { dst, .. }
        | MaxU { dst, .. }
        | Eq { dst, .. }
        | Ne { dst, .. }
        | LtS { dst, .. }
        | LtU { dst, .. }
        | LeS { dst, .. }
        | LeU { dst, .. }
        | Neg { dst, .. }
        | Not { dst, .. }
        | AbsS { dst, .. }
        | FAdd { dst, .. }
        | FSub { dst, .. }
        | FMul { dst, .. }
        | FDiv { dst, .. }
        | FRem { dst, .. }
        | FMin { dst, .. }
        | FMax { dst, .. }
        | FEq { dst, .. }
        | FNe { dst, .. }
        | FLt { dst, .. }
        | FLe { dst, .. }
        | FNeg { dst, .. }
        | FAbs { dst, .. }
        | FSqrt { dst, .. }
        | FFma { dst, .. }
        | DAdd { dst, .. }
        | DSub { dst, .. }
        | DMul { dst, .. }
        | DDiv { dst, .. }
        | DRem { dst, .. }
        | DMin { dst, .. }
        | DMax { dst, .. }
        | DEq { dst, .. }
        | DNe { dst, .. }
        | DLt { dst, .. }
        | DLe { dst, .. }
        | DNeg { dst, .. }
        | DAbs { dst, .. }
        | DSqrt { dst, .. }
        | DFma { dst, .. }
        | Cvt { dst, .. }
            if *dst == from =>
        {
            *dst = to;
            true
        }
        Load(m) if m.data == from && m.vec == 1 => {
            m.data = to;
            true
        }
        _ => false,
    }
}

fn fold_i64(op: BinOp, x: i64, y: i64) -> Result<i64, String> {
    use BinOp::*;
    let over = || "this overflows 64-bit arithmetic".to_owned();
    Ok(match op {
        Add => x.checked_add(y).ok_or_else(over)?,
        Sub => x.checked_sub(y).ok_or_else(over)?,
        Mul => x.checked_mul(y).ok_or_else(over)?,
        Div | Rem if y == 0 => return Err("division by zero".into()),
        Div => x.checked_div(y).ok_or_else(over)?,
        Rem => x.checked_rem(y).ok_or_else(over)?,
        And => x & y,
        Or => x | y,
        Xor => x ^ y,
        Shl => {
            if !(0..63).contains(&y) {
                return Err(format!("shift by {y} is out of range"));
            }
            x.checked_mul(1 << y).ok_or_else(over)?
        }
        Shr => {
            if !(0..64).contains(&y) {
                return Err(format!("shift by {y} is out of range"));
            }
            x >> y
        }
        Eq => (x == y) as i64,
        Ne => (x != y) as i64,
        Lt => (x < y) as i64,
        Le => (x <= y) as i64,
        Gt => (x > y) as i64,
        Ge => (x >= y) as i64,
        LAnd => (x != 0 && y != 0) as i64,
        LOr => (x != 0 || y != 0) as i64,
    })
}

/// [`fold_i64`] for u32 constants: wrapping, with the executor's shifts (0 from 32 on).
fn fold_u32(op: BinOp, x: u32, y: u32) -> Result<i64, String> {
    use BinOp::*;
    Ok(match op {
        Add => x.wrapping_add(y) as i64,
        Sub => x.wrapping_sub(y) as i64,
        Mul => x.wrapping_mul(y) as i64,
        Div | Rem if y == 0 => return Err("division by zero".into()),
        Div => (x / y) as i64,
        Rem => (x % y) as i64,
        Shl => x.checked_shl(y).unwrap_or(0) as i64,
        Shr => x.checked_shr(y).unwrap_or(0) as i64,
        _ => return fold_i64(op, x as i64, y as i64),
    })
}

fn const_f64(c: Const) -> f64 {
    match c {
        Const::Int(x, _) => x as f64,
        Const::Float(x, _) => x,
    }
}

fn default_ty(c: Const) -> Ty {
    match c {
        Const::Int(_, t) => t.unwrap_or(Ty::I32),
        Const::Float(_, t) => t.unwrap_or(Ty::F32),
    }
}

/// The bits of a constant as a value of type `ty` (the low 32 bits, or 64 for f64).
fn const_bits(c: Const, ty: Ty) -> u64 {
    match ty {
        Ty::I32 | Ty::U32 | Ty::Bool => match c {
            Const::Int(x, _) => x as u32 as u64,
            Const::Float(x, _) => x as i64 as u32 as u64,
        },
        Ty::F32 => (const_f64(c) as f32).to_bits() as u64,
        Ty::F64 => const_f64(c).to_bits(),
    }
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

fn join(v: &[Text]) -> String {
    v.iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Names one edit apart, for "did you mean".
fn similar(a: &str, b: &str) -> bool {
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut i = 0;
    while i < a.len() && i < b.len() && a[i] == b[i] {
        i += 1;
    }
    a[i.min(a.len())..]
        .iter()
        .skip(1)
        .eq(b[i.min(b.len())..].iter().skip(1))
        || a[i..] == b[(i + 1).min(b.len())..]
        || a[(i + 1).min(a.len())..] == b[i..]
}

/// The special register a name stands for.
pub fn special(name: &str) -> Option<Special> {
    let dim = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((base, d)) = name.split_once('.') {
        let d = dim(d)?;
        return match base {
            "tid" => Some(Special::Tid(d)),
            "ctaid" => Some(Special::Ctaid(d)),
            "ntid" => Some(Special::Ntid(d)),
            "nctaid" => Some(Special::Nctaid(d)),
            _ => None,
        };
    }
    match name {
        "tid" => Some(Special::TidLinear),
        "laneid" => Some(Special::LaneId),
        "warpid" => Some(Special::WarpId),
        _ => None,
    }
}
