//! The RON form of a warpsim program, as written by hand.
//!
//! A program file is one `Program(...)` value:
//!
//! ```ron
//! Program(
//!     name: "copy",
//!     defines: { "N": 1024 },
//!     launch: (grid: ["N / 256"], block: [256]),
//!     buffers: [
//!         (name: "src", ty: F32, len: "N", init: Random(7)),
//!         (name: "dst", ty: F32, len: "N", expect: "src[i]"),
//!     ],
//!     shared: [(name: "stage", ty: F32, dims: [256])],
//!     body: [
//!         Let("i", "ctaid.x * ntid.x + tid.x"),
//!         Store("stage[tid.x]", "src[i]"),
//!         Barrier,
//!         Store("dst[i]", "stage[tid.x]"),
//!     ],
//! )
//! ```
//!
//! Every expression is a string in the small C-like language of [`warpsim_kernel::expr`]; every string
//! keeps its place in the file (`Text::span`) so that diagnostics point at it.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::Arc;

thread_local! {
    /// The source text being deserialized, so that borrowed strings can be turned back into
    /// byte offsets and escaped ones found in it.
    static SOURCE: RefCell<Option<Arc<str>>> = const { RefCell::new(None) };
    /// Where the last string placed in the source ends: an escaped string is looked for
    /// after it.
    static AFTER: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with `src` registered as the text that [`Text`] spans point into.
pub(crate) fn with_source<T>(src: &Arc<str>, f: impl FnOnce() -> T) -> T {
    struct Reset(Option<Arc<str>>, usize);
    impl Drop for Reset {
        fn drop(&mut self) {
            SOURCE.with(|s| *s.borrow_mut() = self.0.take());
            AFTER.with(|a| a.set(self.1));
        }
    }
    let prev = SOURCE.with(|s| s.replace(Some(src.clone())));
    let _reset = Reset(prev, AFTER.with(|a| a.replace(0)));
    f()
}

/// Where a borrowed string stands in the source.
fn offset_of(s: &str) -> Option<usize> {
    let off = SOURCE.with(|c| {
        let src = c.borrow();
        let src = src.as_deref()?;
        let (start, p) = (src.as_ptr() as usize, s.as_ptr() as usize);
        (p >= start && p + s.len() <= start + src.len()).then(|| p - start)
    })?;
    AFTER.with(|a| a.set(off + s.len()));
    Some(off)
}

/// Where a string the reader unescaped stands in the source: the first literal with those
/// contents after the last string placed ([`warpsim_kernel::literal::find`]).
fn offset_of_escaped(v: &str) -> Option<usize> {
    let (start, end) = SOURCE.with(|c| {
        let src = c.borrow();
        warpsim_kernel::literal::find(src.as_deref()?, AFTER.with(Cell::get), v)
    })?;
    AFTER.with(|a| a.set(end));
    Some(start)
}

/// A string from the program file and where it stands in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Text {
    /// The string's contents.
    pub text: String,
    /// Byte offset of the contents in the file (`None` for integers written without quotes).
    /// The contents of a string with escapes are shorter than the file's text: map offsets
    /// into it with [`warpsim_kernel::literal::offset`].
    pub span: Option<usize>,
}

impl Text {
    /// A text with no place in a file (for programs built in code).
    pub fn new(s: impl Into<String>) -> Self {
        Text {
            text: s.into(),
            span: None,
        }
    }

    /// A string the RON reader unescaped, placed in the source if it can be found there.
    fn escaped(v: &str) -> Self {
        Text {
            text: v.to_owned(),
            span: offset_of_escaped(v),
        }
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Text, E> {
                Ok(Text {
                    text: v.to_owned(),
                    span: offset_of(v),
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
                Ok(Text::escaped(v))
            }
        }
        d.deserialize_str(V)
    }
}

/// An atomic's operand or `old` register: one string, or a pair `["lo", "hi"]` (a 64-bit
/// atomic's low and high words, or a `__half2`'s two halves).
#[derive(Clone, Debug)]
pub(crate) struct Operand {
    /// The strings: one, or two for a pair.
    pub parts: Vec<Text>,
    /// Them joined with ", " (for listings).
    pub text: String,
}

impl<'de> Deserialize<'de> for Operand {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Operand;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string, or a pair of strings [\"lo\", \"hi\"]")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Operand, E> {
                Ok(Operand::of(vec![Text {
                    text: v.to_owned(),
                    span: offset_of(v),
                }]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Operand, E> {
                Ok(Operand::of(vec![Text::escaped(v)]))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Operand, A::Error> {
                let mut parts = Vec::new();
                while let Some(t) = seq.next_element::<Text>()? {
                    parts.push(t);
                }
                Ok(Operand::of(parts))
            }
        }
        d.deserialize_any(V)
    }
}

impl Operand {
    fn of(parts: Vec<Text>) -> Self {
        let text = parts
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        Operand { parts, text }
    }
}

/// An expression: a string (`"N / 32"`) or, for constants, a bare integer (`32`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expr(pub Text);

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Expr;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an expression: a string such as \"N / 32\", or an integer")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Expr, E> {
                Ok(Expr(Text {
                    text: v.to_owned(),
                    span: offset_of(v),
                }))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Expr, E> {
                Ok(Expr(Text::escaped(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Expr, E> {
                Ok(Expr(Text::new(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Expr, E> {
                Ok(Expr(Text::new(v.to_string())))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Expr, E> {
                Ok(Expr(Text::new(v.to_string())))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Expr, E> {
                Ok(Expr(Text::new(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

/// A whole program file, as written (`Program(...)`), before any check.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, rename = "Program")]
pub(crate) struct ProgramSource {
    /// The kernel's name, used in reports.
    pub name: Text,
    /// A sentence on what the kernel does (for readers of the file; the tool does not show it).
    #[serde(default)]
    #[allow(dead_code)]
    pub description: Option<String>,
    /// Named integer constants with their defaults, in order: an integer, or a string
    /// expression of earlier defines (`"10 * BLOCK"`); `--define NAME=VALUE` overrides them.
    #[serde(default, deserialize_with = "ordered_map")]
    pub defines: Vec<(Text, DefineValue)>,
    /// Grid and block dimensions.
    pub launch: LaunchSource,
    /// Arrays in global memory.
    #[serde(default)]
    pub buffers: Vec<Buffer>,
    /// Arrays in shared memory, one set per block.
    #[serde(default)]
    pub shared: Vec<Shared>,
    /// Registers per thread the kernel takes on the GPU (what ptxas reports), for the timing
    /// model's residency (`--regs` overrides it).
    #[serde(default)]
    pub regs_per_thread: Option<u32>,
    /// What every thread runs (absent when `cuda` or `ptx` gives the kernel).
    #[serde(default)]
    pub body: Vec<Stmt>,
    /// A CUDA kernel, compiled by NVRTC, in place of `shared` and `body` (crates/ptx).
    #[serde(default)]
    pub cuda: Option<KernelSource>,
    /// A PTX kernel, in place of `shared` and `body` (crates/ptx).
    #[serde(default)]
    pub ptx: Option<KernelSource>,
    /// The defines passed to NVRTC as `-DNAME=VALUE` macros (only these).
    #[serde(default)]
    pub macros: Vec<Text>,
    /// Fills of the kernel's `__constant__` symbols before the launch, in order (what
    /// `cudaMemcpyToSymbol` calls would write; `cuda:`/`ptx:` programs only).
    #[serde(default)]
    pub constants: Vec<ConstantFill>,
    /// TMA tensor maps, passed to `CUtensorMap` parameters by name (what
    /// `cuTensorMapEncodeTiled` would encode; `cuda:`/`ptx:` programs only).
    #[serde(default)]
    pub tensor_maps: Vec<TensorMapSource>,
    /// Named helpers (`__device__ __forceinline__` functions), expanded where they are
    /// called: `functions: { "name": (params: ["a", "b"], body: [...], returns: "expr") }`.
    #[serde(default, deserialize_with = "function_map")]
    pub functions: Vec<(Text, Function)>,
}

/// A function as written: its parameters (each takes the type of its argument), its body,
/// and the expression it returns (evaluated after the body, over its parameters and names).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Function {
    /// Parameter names, in order; each is a register of the function, set from its argument.
    #[serde(default)]
    pub params: Vec<Text>,
    /// The statements it runs.
    #[serde(default)]
    pub body: Vec<Stmt>,
    /// Its value, if it has one: an expression over the function's own names.
    #[serde(default)]
    pub returns: Option<Text>,
}

fn function_map<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Text, Function)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(Text, Function)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(
                "a map of function names to functions, such as \
                 { \"sq\": (params: [\"x\"], returns: \"x * x\") }",
            )
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = m.next_entry::<Text, Function>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    d.deserialize_map(V)
}

/// `cuda: (file, kernel, args)` or `ptx: (…)`: where the kernel is and what it is passed.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KernelSource {
    /// The `.cu` or `.ptx` file, relative to the program file.
    pub file: Text,
    /// The kernel: its name, or a name expression of a template (`"reduce<256>"`).
    pub kernel: Text,
    /// The kernel's parameters in order: a buffer name, a buffer plus an element offset
    /// (`"d_in + 3"`), or an integer expression of the defines.
    #[serde(default)]
    pub args: Vec<Expr>,
    /// CUDA: folders, relative to the program file, the `.cu` may include headers from
    /// besides its own (as `--include-path` does).
    #[serde(default)]
    pub include_paths: Vec<Text>,
}

/// A define's value as written: an integer, or an expression of earlier defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DefineValue {
    /// `"N": 1024`.
    Int(i64),
    /// `"WA": "10 * BLOCK"`, folded at load time.
    Expr(Text),
}

impl<'de> Deserialize<'de> for DefineValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DefineValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "an integer, or a string expression of earlier defines such as \"10 * N\"",
                )
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DefineValue, E> {
                Ok(DefineValue::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DefineValue, E> {
                i64::try_from(v)
                    .map(DefineValue::Int)
                    .map_err(|_| E::custom(format!("the define value {v} does not fit in 64 bits")))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<DefineValue, E> {
                Ok(DefineValue::Expr(Text {
                    text: v.to_owned(),
                    span: offset_of(v),
                }))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DefineValue, E> {
                Ok(DefineValue::Expr(Text::escaped(v)))
            }
        }
        d.deserialize_any(V)
    }
}

fn ordered_map<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Text, DefineValue)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<(Text, DefineValue)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(
                "a map of define names to values, such as { \"N\": 1024, \"M\": \"2 * N\" }",
            )
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some((k, v)) = m.next_entry::<Text, DefineValue>()? {
                out.push((k, v));
            }
            Ok(out)
        }
    }
    d.deserialize_map(V)
}

/// Grid and block dimensions: one to three expressions each, `x` first.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LaunchSource {
    /// Blocks in the grid, per dimension.
    pub grid: Vec<Expr>,
    /// Threads in a block, per dimension.
    pub block: Vec<Expr>,
    /// Bytes of dynamic shared memory (`extern __shared__`), an expression; 0 when absent.
    #[serde(default)]
    pub dynamic_shared: Option<Expr>,
}

pub use warpsim_kernel::{Elem, Init};

/// A buffer in global memory.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Buffer {
    /// Its name in expressions.
    pub name: Text,
    /// Element type.
    pub ty: Elem,
    /// Number of elements.
    pub len: Expr,
    /// Initial contents.
    #[serde(default)]
    pub init: Init,
    /// The CPU reference: what element `i` must hold after the run, as an expression over
    /// `i`, the defines and the other buffers' initial contents (`sum(k, from, to, expr)`
    /// adds up a term). Checked after the run (`verified` in the report).
    #[serde(default)]
    pub expect: Option<Text>,
    /// Tolerance of the float comparison with `expect`, relative to the largest magnitude
    /// of the reference (default 1e-4).
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// A predicate that must hold (be non-zero) for every element `i` of the buffer after the
    /// run, over `i`, the defines and every buffer's *final* contents, e.g.
    /// `"i + 1 == N || out[i] <= out[i + 1]"` (sorted). Checked in O(n) after the run.
    #[serde(default)]
    pub check: Option<Text>,
}

/// One fill of a constant symbol: `(name: "c_filter", ty: F32, len: 17, init: Random(5))`,
/// `init: Values(["0.5", "-1.0"])`, or `from: "buffer"`; `offset` in bytes.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConstantFill {
    /// The `.const` symbol (as the `.cu` or the PTX names it).
    pub name: Text,
    /// Element type of the values.
    pub ty: Elem,
    /// Elements (default: the symbol's size, or the number of `Values`).
    #[serde(default)]
    pub len: Option<Expr>,
    /// The values: as a buffer's `init`, or `Values([...])`.
    #[serde(default)]
    pub init: Option<ConstInit>,
    /// A buffer whose initial contents are copied instead of `init`.
    #[serde(default)]
    pub from: Option<Text>,
    /// Byte offset in the symbol (default 0), as `cudaMemcpyToSymbol`'s.
    #[serde(default)]
    pub offset: Option<Expr>,
}

/// A tensor map as written: `(name: "tA", buffer: "A", dims: ["K", "M"], box: [64, 8],
/// strides: ["K * 2"], swizzle: B128, fill: Zeros)`. `dims` and `box` innermost first, in
/// elements; `strides` in bytes for dimensions 1.. (default: packed).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TensorMapSource {
    /// The name a kernel argument gives.
    pub name: Text,
    /// The buffer the tensor lies in (its element type is the map's).
    pub buffer: Text,
    /// Elements along each dimension (1 to 5 of them).
    pub dims: Vec<Expr>,
    /// Bytes between consecutive indices of dimensions 1.. (a multiple of 16).
    #[serde(default)]
    pub strides: Vec<Expr>,
    /// The box a copy moves, in elements along each dimension (1 to 256 each).
    #[serde(rename = "box")]
    pub boxes: Vec<Expr>,
    /// The box's layout in shared memory.
    #[serde(default)]
    pub swizzle: SwizzleSource,
    /// What elements outside the tensor read as.
    #[serde(default)]
    pub fill: FillSource,
}

/// `swizzle:` of a tensor map.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) enum SwizzleSource {
    /// Rows as they are.
    #[default]
    None,
    /// 32-byte swizzle.
    B32,
    /// 64-byte swizzle.
    B64,
    /// 128-byte swizzle.
    B128,
}

/// `fill:` of a tensor map.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) enum FillSource {
    /// Zero.
    #[default]
    Zeros,
    /// NaN (float elements only).
    Nan,
}

/// A constant fill's values.
#[derive(Clone, Debug, Deserialize)]
pub(crate) enum ConstInit {
    /// All zero.
    Zeros,
    /// Element `i` holds `i`.
    Iota,
    /// As a buffer's `Random(seed)`.
    Random(u64),
    /// Each element an expression of the defines (float literals for float types).
    Values(Vec<Text>),
}

/// An array in shared memory.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Shared {
    /// Its name in expressions.
    pub name: Text,
    /// Element type.
    pub ty: Elem,
    /// Logical dimensions, outermost first: `[32, 32]` is 32 rows of 32.
    pub dims: Vec<Expr>,
    /// Extra elements at the end of each row (padding), e.g. `"PAD"`.
    #[serde(default)]
    pub pad: Option<Expr>,
    /// XOR swizzle of the column index: 0 = none; `g` > 0 swaps groups of `g` elements, so
    /// column `c` of row `r` is stored at column `((c / g) ^ (r % (C / g))) * g + c % g`.
    #[serde(default)]
    pub swizzle: Option<Expr>,
}

/// A statement of the body.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) enum Stmt {
    /// `Let("x", "expr")`: a new register `x`, typed by its expression.
    Let(Text, Text),
    /// `Set("x", "expr")`: assigns to an existing register.
    Set(Text, Text),
    /// `Store("arr[i][j]", "expr")`: one store of one element.
    Store(Text, Text),
    /// `LoadVec(["a", "b"], "arr[i]")`: one 8- or 16-byte load of 2 or 4 consecutive elements
    /// into new registers.
    LoadVec(Vec<Text>, Text),
    /// `StoreVec("arr[i]", ["a", "b"])`: one 8- or 16-byte store of 2 or 4 consecutive
    /// elements.
    StoreVec(Text, Vec<Text>),
    /// `LoadMatrix(regs: ["a0", "a1"], at: "tile[r][c]")`: `ldmatrix.x1/.x2/.x4` (`trans:
    /// true` for `.trans`) of a shared array of 16-bit elements: lane `8 i + j` names with `at`
    /// row `j` (8 elements) of matrix `i`; each lane receives its fragment in new `u32`
    /// registers, one per matrix.
    LoadMatrix {
        /// One new register per matrix (1, 2 or 4).
        regs: Vec<Text>,
        /// The lane's row: an element of a shared array of 16-bit elements.
        at: Text,
        /// `.trans`: each matrix transposed.
        #[serde(default)]
        trans: bool,
    },
    /// `StoreMatrix(at: "tile[r][c]", regs: ["v0"])`: `stmatrix`, the reverse of `LoadMatrix`.
    StoreMatrix {
        /// The lane's row: an element of a shared array of 16-bit elements.
        at: Text,
        /// One `u32` value per matrix (1, 2 or 4).
        regs: Vec<Text>,
        /// `.trans`.
        #[serde(default)]
        trans: bool,
    },
    /// `CopyAsync(to: "tile[r][c]", from: "A[i]", bytes: 16)`: `cp.async.ca.shared.global`
    /// (`bypass: true`: `.cg`, 16 bytes only): the lane copies `bytes` (4, 8 or 16) from the
    /// global element `from` to the shared element `to`, done when a `WaitGroup` says so.
    CopyAsync {
        /// The shared destination element.
        to: Text,
        /// The global source element.
        from: Text,
        /// Bytes a lane: 4, 8 or 16.
        bytes: u8,
        /// `.cg` (not through L1; 16 bytes).
        #[serde(default)]
        bypass: bool,
    },
    /// `CommitGroup`: `cp.async.commit_group`, the warp's copies since the last one become a
    /// group.
    CommitGroup,
    /// `WaitGroup(n)`: `cp.async.wait_group n`, every group but the `n` most recent is done.
    WaitGroup(u8),
    /// `BarrierInit(at: "bar[0]", count: "64")`: `mbarrier.init` of the barrier object in the
    /// 8 shared bytes at `at` (8-aligned): `count` arrivals a phase. Each active lane inits.
    BarrierInit {
        /// The barrier: an element of a shared array (8 bytes from it).
        at: Text,
        /// Arrivals a phase (1 to 2^20 - 1).
        count: Text,
    },
    /// `BarrierArrive(at: "bar[0]")`: `mbarrier.arrive`, each active lane once (`count`: that
    /// many times; `tx`: `mbarrier.arrive.expect_tx`, the phase also waits for `tx` bytes).
    BarrierArrive {
        /// The barrier.
        at: Text,
        /// Arrivals (default 1).
        #[serde(default)]
        count: Option<Text>,
        /// Transaction bytes the phase waits for besides (arrives once).
        #[serde(default)]
        tx: Option<Text>,
    },
    /// `BarrierArriveCopies(at: "bar[0]")`: `cp.async.mbarrier.arrive.noinc`, an arrival once
    /// the lane's earlier `CopyAsync`s are complete.
    BarrierArriveCopies {
        /// The barrier.
        at: Text,
    },
    /// `BarrierWait(at: "bar[0]", parity: "t % 2")`: waits until the barrier's phase of that
    /// parity completes (`mbarrier.try_wait.parity`, retried).
    BarrierWait {
        /// The barrier.
        at: Text,
        /// The phase's parity (0 or 1; only the low bit counts).
        parity: Text,
    },
    /// `Mma(shape: "m16n8k16", types: "f32.f16.f16.f32", d: [..], a: [..], b: [..], c: [..])`:
    /// `mma.sync.aligned.{shape}.row.col.{types}`, the warp's `D = A x B + C` on the tensor
    /// cores; `d` declares new registers, `a`, `b`, `c` are expressions (16- and 8-bit
    /// elements packed in `u32`s, as `LoadMatrix` gives them).
    Mma {
        /// `m16n8k16`, `m16n8k8`, `m16n8k4`, `m16n8k32`, `m8n8k16`, `m8n8k4`.
        shape: Text,
        /// D, A, B and C's element types, dot-separated (`f32.f16.f16.f32`).
        types: Text,
        /// New registers for D.
        d: Vec<Text>,
        /// A's registers.
        a: Vec<Text>,
        /// B's registers.
        b: Vec<Text>,
        /// C's registers.
        c: Vec<Text>,
        /// `.satfinite` (integer results clamped).
        #[serde(default)]
        satfinite: bool,
    },
    /// `If(cond: "...", then: [...], else: [...])`: lanes may differ; they reconverge after.
    If {
        /// The condition.
        cond: Text,
        /// Run by the lanes where it holds.
        then: Vec<Stmt>,
        /// Run by the others.
        #[serde(default, rename = "else")]
        otherwise: Vec<Stmt>,
    },
    /// `For(var: "k", from: 0, to: "N", step: 1, body: [...])`: `var` runs from `from` while
    /// `var < to`, adding `step` (default 1); trip counts may differ between lanes.
    For {
        /// The loop register (i32 unless `from` says otherwise).
        var: Text,
        /// First value.
        from: Expr,
        /// Bound (exclusive).
        to: Expr,
        /// Increment.
        #[serde(default)]
        step: Option<Expr>,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `While(cond: "...", body: [...])`: repeats while the condition holds, per lane.
    While {
        /// The condition.
        cond: Text,
        /// The loop body.
        body: Vec<Stmt>,
    },
    /// `Barrier`: `__syncthreads()` — every thread of the block waits here.
    Barrier,
    /// `SyncWarp("mask")`: `__syncwarp(mask)` — every lane named in the mask must reach it
    /// (`SyncWarp("0xffffffff")` for `__syncwarp()`).
    SyncWarp(Text),
    /// `Break`: the lane leaves the innermost `For`/`While`; it waits at the loop's end.
    Break,
    /// `Continue`: the lane skips the rest of the innermost loop's body; it rejoins the others
    /// at the loop's step (a `For`) or test (a `While`).
    Continue,
    /// `Return`: the lane leaves the kernel (inside a function: the function); the rest of
    /// its warp goes on. Lanes that left the kernel no longer take part in barriers.
    Return,
    /// `Call("f(a, b)")`: runs function `f` (its value, if any, is dropped).
    Call(Text),
    /// `Atomic(op: "add", at: "hist[b]", value: "1", old: "o")`: one atomic read-modify-write
    /// of one `i32`/`u32`/`f32` element (CUDA's `atomicAdd` …); `old` (optional) declares a
    /// register holding the element's value before this lane's update; `compare` is `cas`'s.
    Atomic {
        /// `add sub min max and or xor exch cas inc dec`.
        op: Text,
        /// The element: `arr[i]` (shared or global).
        at: Text,
        /// The operand (`cas`: the new value); a pair `["lo", "hi"]` makes it a 64-bit atomic
        /// on a `u32` array, or a `__half2` add on an `f16` array.
        value: Operand,
        /// `cas` only: the value the element must hold for the swap.
        #[serde(default)]
        compare: Option<Operand>,
        /// A new register for the old value (a pair of them for a pair operand).
        #[serde(default)]
        old: Option<Operand>,
    },
}
