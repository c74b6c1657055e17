//! A checked, lowered program: what the loader produces and the executor runs.

use crate::elem::{Elem, Init};
use crate::expr::Node;
use crate::ir::{Inst, Mem, Reg, Space, Special};
use std::sync::Arc;

/// Where a register's value comes from when a warp starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RegInit {
    /// The same constant in every lane.
    Const(u32),
    /// A special per-thread value.
    Special(Special),
}

/// A global buffer after its defines are resolved.
#[derive(Clone, Debug)]
pub struct BufferInfo {
    /// Its name.
    pub name: String,
    /// Element type.
    pub elem: Elem,
    /// Number of elements.
    pub len: u64,
    /// Initial contents.
    pub init: Init,
    /// The CPU reference for its final contents, over `i` (see `warpsim-reference`).
    pub expect: Option<Expect>,
    /// A predicate over the final contents that must hold for every element `i` (`check`;
    /// see `warpsim-reference`).
    pub check: Option<Expect>,
    /// 1-based source line of its declaration.
    pub line: u32,
    /// A module symbol's buffer: a `__constant__` symbol (PTX `.const`; read-only,
    /// `crate::ir::Space::Const` loads only) or a `__device__` variable (PTX `.global`,
    /// [`ConstData::device`]): its initial contents, which replace `init`. `None`: a launch
    /// buffer.
    pub constant: Option<ConstData>,
}

/// The initial contents of a constant symbol: the PTX initialiser's bytes (zeros where there
/// is none), then the launch file's fills in order, as `cudaMemcpyToSymbol` calls before the
/// launch would write them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConstData {
    /// The symbol's bytes as the module initialises them.
    pub bytes: Vec<u8>,
    /// The fills, applied in order.
    pub fills: Vec<ConstFill>,
    /// A device variable's (PTX `.global`, CUDA `__device__`): written like a global buffer,
    /// not in the constant bank.
    pub device: bool,
}

/// One fill of a constant symbol: `len` elements of `elem` from byte `offset`.
#[derive(Clone, Debug, PartialEq)]
pub struct ConstFill {
    /// Byte offset in the symbol.
    pub offset: u64,
    /// Element type.
    pub elem: Elem,
    /// Elements.
    pub len: u64,
    /// Where the elements come from.
    pub src: FillSrc,
}

/// What a [`ConstFill`] writes.
#[derive(Clone, Debug, PartialEq)]
pub enum FillSrc {
    /// A buffer initialisation (`Zeros`, `Iota`, `Random(seed)`; also a `from:` buffer's
    /// initial contents, which its `Init` gives).
    Init(Init),
    /// Each element's bits (two words for 8-byte elements; a narrow element in the low bits).
    Values(Vec<[u32; 2]>),
}

impl BufferInfo {
    /// Size in 32-bit words.
    pub fn words(&self) -> u64 {
        (self.len * self.elem.bytes() as u64).div_ceil(4)
    }

    /// Size in bytes, as allocated (whole 32-bit words).
    pub fn bytes(&self) -> u64 {
        self.words().saturating_mul(4)
    }
}

/// A buffer's expected contents.
#[derive(Clone, Debug)]
pub struct Expect {
    /// The expression as written.
    pub text: String,
    /// Its parse tree (checked by the loader: names, buffers and functions exist).
    pub node: Node,
    /// Relative tolerance for floats.
    pub tolerance: f64,
    /// 1-based source line.
    pub line: u32,
    /// Byte offset of the expression's text in the launch file, if known (a string with
    /// escapes is longer there: [`crate::literal::offset`]).
    pub offset: Option<usize>,
}

/// A shared array after its defines are resolved, with its place in shared memory.
#[derive(Clone, Debug)]
pub struct SharedInfo {
    /// Its name.
    pub name: String,
    /// Element type.
    pub elem: Elem,
    /// Logical dimensions, outermost first.
    pub dims: Vec<u32>,
    /// Padding elements after each row (last dimension).
    pub pad: u32,
    /// XOR swizzle group (0 = none); see the `swizzle` field of a shared array in the file format.
    pub swizzle: u32,
    /// Byte offset of element 0 in the block's shared memory.
    pub base: u32,
    /// Physical elements per row: last dimension + pad.
    pub row_len: u32,
    /// Rows: the product of all dimensions but the last (1 for 1-D arrays).
    pub rows: u32,
    /// Bytes it occupies.
    pub bytes: u32,
    /// 1-based source line of its declaration.
    pub line: u32,
}

impl SharedInfo {
    /// Physical element index of logical (row, column), after swizzle and padding.
    #[inline]
    pub fn physical(&self, row: u32, col: u32) -> u32 {
        let c = if self.swizzle > 0 {
            let g = self.swizzle;
            let groups = self.dims[self.dims.len() - 1] / g;
            ((col / g) ^ (row % groups)) * g + col % g
        } else {
            col
        };
        row * self.row_len + c
    }

    /// Words of padding (bytes not holding a logical element), in 32-bit words.
    pub fn wasted_words(&self) -> u32 {
        self.rows * self.pad * self.elem.bytes() / 4 // (whole words only, for narrow elements)
    }
}

/// A view of a thread's local memory (a PTX `.local` variable accessed as `elem`s).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalInfo {
    /// The variable's name (`__local_depot0`).
    pub name: String,
    /// The element an access moves (times its vector).
    pub elem: Elem,
}

/// Where an instruction came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstInfo {
    /// 1-based line in the program file.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// The source it implements, short (e.g. `tile[r][c]` for a load, the statement for a store).
    /// Shared: a statement's instructions all point at its one text.
    pub text: std::sync::Arc<str>,
}

/// A program ready to run: defines resolved, names checked, lowered to [`Inst`]s.
#[derive(Clone, Debug)]
pub struct Program {
    /// The kernel's name.
    pub name: String,
    /// The file it was loaded from (for messages).
    pub path: String,
    /// The file's text.
    pub source: Arc<str>,
    /// The launch file (the RON program: buffers, `expect`, `check`) and its text; the same as
    /// `path` and `source` for a kernel written in RON, the `.ron` beside a `cuda:`/`ptx:` one.
    pub launch_path: String,
    /// The launch file's text.
    pub launch_source: Arc<str>,
    /// The files a `cuda:`/`ptx:` kernel was made from: its `.cu` or `.ptx` and the headers the
    /// `.cu` includes (the CUDA toolkit's aside); files an output must not replace.
    pub kernel_files: Vec<String>,
    /// Every define with the value in force.
    pub defines: Vec<(String, i64)>,
    /// Blocks in the grid (x, y, z).
    pub grid: [u32; 3],
    /// Threads in a block (x, y, z).
    pub block: [u32; 3],
    /// Global buffers.
    pub buffers: Vec<BufferInfo>,
    /// Shared arrays.
    pub shared: Vec<SharedInfo>,
    /// Shared memory a block uses, in bytes.
    pub shared_bytes: u32,
    /// Views of local memory (PTX `.local`): what a local access moves, for its width and
    /// reports.
    pub local: Vec<LocalInfo>,
    /// Local memory per thread, in bytes (0: none).
    pub local_bytes: u32,
    /// The instructions; the last is [`Inst::Exit`].
    pub code: Vec<Inst>,
    /// Where each instruction came from (same length as `code`).
    pub info: Vec<InstInfo>,
    /// Registers a warp needs.
    pub nregs: usize,
    /// Registers filled when a warp starts.
    pub init: Vec<(Reg, RegInit)>,
    /// Deepest nesting of `If`/loops (the reconvergence stack's size).
    pub max_depth: usize,
    /// Registers per thread on the GPU (`regs_per_thread`, as ptxas reports them), for the
    /// timing model's residency; `None` = not given.
    pub regs_per_thread: Option<u32>,
    /// `cuda:`/`ptx:` kernels: which stream of shared accesses runs, `"ptxas-merged"` (the
    /// model of ptxas's merging, the default) or `"as-written"` (`--no-merge`); `None` for
    /// a kernel written in RON.
    pub shared_stream: Option<&'static str>,
    /// The formats of the program's [`Inst::Printf`]s (CUDA `printf`), parsed.
    pub formats: Vec<crate::printf::Format>,
    /// The operands of the program's [`Inst::Mma`]s (`mma.sync`).
    pub mmas: Vec<crate::ir::MmaOp>,
    /// The operands of the program's [`Inst::Wgmma`]s (`wgmma.mma_async`).
    pub wgmmas: Vec<crate::ir::WgmmaOp>,
    /// The launch file's tensor maps (TMA; `cuda:`/`ptx:` programs), which tensor copies
    /// name through a `CUtensorMap` parameter.
    pub tensor_maps: Vec<crate::tensormap::TensorMap>,
}

impl Program {
    /// What the program keeps while it loads and runs, counted against `--max-memory`: its
    /// buffers and its code ([`LOADED_BYTES_PER_INST`](crate::diag::LOADED_BYTES_PER_INST)
    /// an instruction).
    pub fn resident_bytes(&self) -> u64 {
        let buffers: u64 = self.buffers.iter().map(BufferInfo::bytes).sum();
        let code = (self.code.len() as u64).saturating_mul(crate::diag::LOADED_BYTES_PER_INST);
        buffers.saturating_add(code)
    }

    /// The element access `m` moves: its own ([`Mem::elem`]) or its array's (`None` when the
    /// array does not exist).
    pub fn access_elem(&self, m: &Mem) -> Option<Elem> {
        if let Some(e) = m.elem {
            return Some(e);
        }
        match m.space {
            Space::Shared => self.shared.get(m.array as usize).map(|s| s.elem),
            Space::Global | Space::Const => self.buffers.get(m.array as usize).map(|b| b.elem),
            Space::Local => self.local.get(m.array as usize).map(|l| l.elem),
        }
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }

    /// Warps per block.
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block().div_ceil(32)
    }

    /// Blocks in the grid.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&d| d as u64).product()
    }

    /// The lowered code, one instruction a line: its pc, the source line it came from, the
    /// instruction (arrays by name) and the source text; the registers a warp starts with
    /// come first. What `warpsim check --code` prints.
    pub fn listing(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let inits: Vec<String> = self
            .init
            .iter()
            .map(|(r, i)| match i {
                RegInit::Const(v) => format!("{r} = {}", *v as i32),
                RegInit::Special(s) => format!("{r} = {}", s.name()),
            })
            .collect();
        let _ = writeln!(o, "registers at start: {}", inits.join(", "));
        let width = self.code.len().saturating_sub(1).to_string().len();
        for (pc, inst) in self.code.iter().enumerate() {
            let mut text = inst.to_string();
            if let Some((m, _)) = inst.mem().or(inst.atomic().map(|(m, _)| (m, true))) {
                let name = match m.space {
                    crate::ir::Space::Shared => self.shared.get(m.array as usize).map(|s| &s.name),
                    crate::ir::Space::Global | crate::ir::Space::Const => {
                        self.buffers.get(m.array as usize).map(|b| &b.name)
                    }
                    crate::ir::Space::Local => self.local.get(m.array as usize).map(|l| &l.name),
                };
                if let Some(name) = name {
                    let space = m.space.name();
                    text = text.replace(&format!("{space}#{}[", m.array), &format!("{name}["));
                }
            }
            let info = self.info.get(pc);
            let line = info.map_or(0, |i| i.line);
            let src = info.map_or("", |i| &*i.text);
            let _ = writeln!(o, "{pc:>width$}  line {line:<4} {text:<40} {src}");
        }
        o
    }

    /// `file:line:col` of an instruction.
    pub fn location(&self, pc: usize) -> String {
        match self.info.get(pc) {
            Some(i) => format!("{}:{}:{}", self.path, i.line, i.col),
            None => self.path.clone(),
        }
    }
}
