//! The loader: RON text → checked [`Program`].
//!
//! One pass over the body both checks it (names, types, array ranks, constant indices) and
//! lowers it to [`Inst`]s. Registers are allocated as the body is read: every `Let` gets a
//! register of its own; temporaries are reused from one statement to the next.

use crate::file::{self, Elem, Expr, Stmt, Text};
use std::collections::HashMap;
use std::sync::Arc;
use warpsim_kernel::diag::{Diag, LineIndex, Phase};
use warpsim_kernel::expr::{self, BinOp, Kind, Node, UnOp};
use warpsim_kernel::ir::{Inst, LaneMask, Mem, Pc, Reg, Space, Special};
use warpsim_kernel::{BufferInfo, Expect, InstInfo, Program, RegInit, SharedInfo};

mod builtins;
mod constants;
mod decls;
mod defines;
mod func;
mod host_refs;
mod jump;
mod kernel;
mod lower_atomic;
mod lower_expr;
mod lower_half;
mod lower_stmt;
mod lower_tensor;
mod mathfn;
mod regs;
mod tensormaps;
mod warpops;

use defines::{fold_i64, fold_u32};
use lower_expr::{const_bits, const_f64, default_ty};

use warpsim_kernel::diag::parse_ron;
use warpsim_kernel::ptxas_op;

/// Most threads a block may have.
pub(crate) const MAX_THREADS_PER_BLOCK: u32 = 1024;
/// CUDA's largest grid: 2³¹−1 × 65,535 × 65,535 blocks.
pub(crate) const MAX_GRID: [i64; 3] = [(1 << 31) - 1, 65_535, 65_535];
/// CUDA's largest block: 1,024 × 1,024 × 64 threads (and at most 1,024 in all).
pub(crate) const MAX_BLOCK: [i64; 3] = [1024, 1024, 64];

/// Registers a warp may use (each is 32 lanes × 4 bytes).
pub(crate) const MAX_REGS: usize = 4096;

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
    /// Shared memory a block may use, in bytes (default: the H200's, [`warpsim_machine::Machine::shared_limit`]).
    pub shared_limit: u32,
    /// Most bytes all global buffers together may take.
    pub max_buffer_bytes: u64,
    /// Layouts forced on shared arrays, by name.
    pub layouts: Vec<(String, Layout)>,
    /// Run PTX shared accesses as written, without ptxas's merging (`--no-merge`).
    pub no_merge: bool,
    /// Most threads a launch may have in all (blocks x threads a block, `--max-threads`): a
    /// larger one is refused while loading rather than run for days.
    pub max_threads: u64,
    /// CUDA: folders a `.cu` may include from besides its own and the toolkit's
    /// (`--include-path`).
    pub include_paths: Vec<String>,
    /// CUDA: let a `.cu` include any readable file (`--any-include`).
    pub any_include: bool,
}

/// The default of [`Options::max_threads`]: 2^32 threads (a grid of 4,194,304 blocks of 1,024).
pub const MAX_LAUNCH_THREADS: u64 = 1 << 32;

impl Default for Options {
    fn default() -> Self {
        Options {
            defines: Vec::new(),
            shared_limit: warpsim_machine::Machine::h200().shared_limit(),
            max_buffer_bytes: 4 << 30,
            layouts: Vec::new(),
            no_merge: false,
            max_threads: MAX_LAUNCH_THREADS,
            include_paths: Vec::new(),
            any_include: false,
        }
    }
}

/// Reads (at most [`warpsim_kernel::diag::MAX_PROGRAM_BYTES`]) and loads a program file.
pub fn load_file(path: &str, opts: &Options) -> Result<Program, Diag> {
    let src = warpsim_kernel::diag::read_program(path)?;
    load_str(path, &src, opts)
}

/// Loads a program from its text; `path` names it in messages.
pub fn load_str(path: &str, src: &str, opts: &Options) -> Result<Program, Diag> {
    let need = (src.len() as u64).saturating_mul(warpsim_kernel::diag::LOAD_BYTES_PER_SOURCE_BYTE);
    if need > opts.max_buffer_bytes {
        return Err(Diag::file(
            Phase::Check,
            path,
            format!(
                "loading this program of {} bytes takes up to {need} bytes, more than \
                 --max-memory {}",
                src.len(),
                opts.max_buffer_bytes
            ),
            Some("raise --max-memory".into()),
        ));
    }
    let src: Arc<str> = Arc::from(src);
    let ast = parse(path, &src)?;
    Loader::new(path, src.clone(), opts).program(&ast)
}

/// The kernel file a launch file's `cuda:` or `ptx:` names (relative to the launch file, as
/// the loader finds it), if it names one and parses: the files an output must not replace
/// include it.
pub fn kernel_file(path: &str, src: &str) -> Option<std::path::PathBuf> {
    let ast = parse(path, &Arc::from(src)).ok()?;
    let k = ast.cuda.as_ref().or(ast.ptx.as_ref())?;
    let dir = std::path::Path::new(path).parent()?;
    Some(dir.join(&k.file.text))
}

/// Parses the RON text into the AST.
pub(crate) fn parse(path: &str, src: &Arc<str>) -> Result<file::ProgramSource, Diag> {
    file::with_source(src, || {
        parse_ron(
            path,
            src,
            "see the README's \"Kernel language\" section for the form of a program",
        )
    })
}

/// Value types of registers and expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KernelTy {
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
    /// IEEE half precision: the 16 bits in the low half of a register.
    F16,
    /// bfloat16: the 16 bits in the low half of a register.
    BF16,
}

impl KernelTy {
    fn of(e: Elem) -> KernelTy {
        match e {
            Elem::F32 => KernelTy::F32,
            Elem::F64 => KernelTy::F64,
            Elem::U32 => KernelTy::U32,
            Elem::I32 => KernelTy::I32,
            // Narrow integers are loaded widened (zero- or sign-extended).
            Elem::U8 | Elem::U16 => KernelTy::U32,
            Elem::I8 | Elem::I16 => KernelTy::I32,
            Elem::F16 => KernelTy::F16,
            Elem::BF16 => KernelTy::BF16,
        }
    }
    fn name(self) -> &'static str {
        match self {
            KernelTy::I32 => "i32",
            KernelTy::U32 => "u32",
            KernelTy::F32 => "f32",
            KernelTy::F64 => "f64",
            KernelTy::Bool => "bool",
            KernelTy::F16 => "f16",
            KernelTy::BF16 => "bf16",
        }
    }
    fn is_int(self) -> bool {
        matches!(self, KernelTy::I32 | KernelTy::U32)
    }
    fn is_float(self) -> bool {
        matches!(
            self,
            KernelTy::F32 | KernelTy::F64 | KernelTy::F16 | KernelTy::BF16
        )
    }
    /// The half format of `F16`/`BF16`.
    fn half(self) -> Option<warpsim_kernel::fp16::Half> {
        self.elem().half()
    }
    fn words(self) -> u16 {
        if self == KernelTy::F64 {
            2
        } else {
            1
        }
    }
    fn elem(self) -> Elem {
        match self {
            KernelTy::F32 => Elem::F32,
            KernelTy::F64 => Elem::F64,
            KernelTy::U32 => Elem::U32,
            KernelTy::I32 | KernelTy::Bool => Elem::I32,
            KernelTy::F16 => Elem::F16,
            KernelTy::BF16 => Elem::BF16,
        }
    }
}

/// A compile-time constant.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Const {
    /// An integer, typed if written `42u` or converted.
    Int(i64, Option<KernelTy>),
    /// A float, typed if converted.
    Float(f64, Option<KernelTy>),
}

/// The value of an expression being compiled.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Const(Const),
    Reg(Reg, KernelTy),
}

#[derive(Clone, Debug)]
struct Var {
    reg: Reg,
    ty: KernelTy,
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
    /// Line starts of `src`, for offset → line:col in logarithmic time.
    lines: LineIndex,
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
    cur: (u32, u32, Arc<str>),
    /// The `If`s and loops open here that have a frame at run time (for `Break`, `Continue`
    /// and `Return`).
    open: Vec<jump::Open>,
    /// The program's functions and the calls being expanded.
    funcs: func::Funcs,
    /// Shared memory of a `cuda:`/`ptx:` kernel (static and dynamic), in bytes.
    kernel_shared_bytes: Option<u32>,
    /// Local memory of a `cuda:`/`ptx:` kernel: its views and bytes per thread.
    kernel_local: (Vec<warpsim_kernel::LocalInfo>, u32),
    /// A `cuda:`/`ptx:` kernel's `printf` formats (`Program::formats`).
    kernel_formats: Vec<warpsim_kernel::printf::Format>,
    /// A `cuda:`/`ptx:` kernel's files (`Program::kernel_files`).
    kernel_files: Vec<String>,
    /// The `mma.sync` operands (`Program::mmas`): a `cuda:`/`ptx:` kernel's, or the `Mma`
    /// statements'.
    mmas: Vec<warpsim_kernel::ir::MmaOp>,
    /// A `cuda:`/`ptx:` kernel's `wgmma.mma_async` operands (`Program::wgmmas`).
    wgmmas: Vec<warpsim_kernel::ir::WgmmaOp>,
    /// The launch file's tensor maps (`Program::tensor_maps`).
    tensor_maps: Vec<warpsim_kernel::tensormap::TensorMap>,
}

type R<T> = Result<T, Diag>;

impl<'a> Loader<'a> {
    fn new(path: &'a str, src: Arc<str>, opts: &'a Options) -> Self {
        Loader {
            path,
            lines: LineIndex::new(&src),
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
            cur: (1, 1, Arc::from("")),
            open: Vec::new(),
            funcs: func::Funcs::default(),
            kernel_shared_bytes: None,
            kernel_local: (Vec::new(), 0),
            kernel_formats: Vec::new(),
            kernel_files: Vec::new(),
            mmas: Vec::new(),
            wgmmas: Vec::new(),
            tensor_maps: Vec::new(),
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
            Some(off) => {
                let end = warpsim_kernel::literal::offset(&self.src, off, t.text.len());
                self.err_at(off, (end - off).max(1), msg, help)
            }
            // A plain integer (`len: 0`) has no span: point at its first occurrence as a
            // token after the cursor (the declaration being checked).
            None => match self.find_token(&t.text) {
                Some(off) => self.err_at(off, t.text.len(), msg, help),
                None => self.err_at(self.cursor, 1, msg, help),
            },
        }
    }

    /// The first occurrence of `tok` as a whole token at or after the cursor.
    fn find_token(&self, tok: &str) -> Option<usize> {
        if tok.is_empty() {
            return None;
        }
        let hay = self.src.get(self.cursor..)?;
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "_.\"".contains(c));
        hay.match_indices(tok)
            .find(|&(i, _)| {
                !word(hay[..i].chars().next_back()) && !word(hay[i + tok.len()..].chars().next())
            })
            .map(|(i, _)| self.cursor + i)
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
            Some(b) => {
                let at = |k| warpsim_kernel::literal::offset(&self.src, b, k);
                let (start, end) = (at(n.start), at(n.end));
                self.err_at(start, (end - start).max(1), msg, help)
            }
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
                    warpsim_kernel::literal::offset(&self.src, b, e.at),
                    e.len,
                    format!("syntax error: {}", e.message),
                    None,
                ),
                None => self.err_text(t, format!("syntax error in `{}`: {e}", t.text), None),
            }),
        }
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
pub(crate) fn special(name: &str) -> Option<Special> {
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
        _ => name
            .strip_prefix("lanemask_")
            .and_then(|k| LaneMask::ALL.into_iter().find(|m| m.suffix() == k))
            .map(Special::LaneMask),
    }
}
