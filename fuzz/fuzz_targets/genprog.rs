//! The `gen` fuzz target's program generator: bytes → the text of a well-typed kernel program.
//!
//! The bytes choose defines (integers and expressions of earlier defines), a launch, buffers
//! (with CPU references, permutation expects and `check` predicates), shared arrays (padded,
//! swizzled), functions, and a body of statements and typed expressions from the kernel
//! language's grammar: `Let` (shadowing outer names in nested blocks), `Set`, `Store`,
//! `LoadVec`/`StoreVec` of 2 to 16 elements, `If`/`For`/`While`, `Return`/`Break`/`Continue`
//! at the end of blocks, `Barrier`, `SyncWarp`, `Atomic` of every operation, calls, and
//! expressions with shuffles, votes, conversions and math on every value type (i32, u32, f32,
//! f64, f16, bf16; arrays also of u8, i8, u16, i16). Indices are mostly kept in bounds, vector
//! accesses aligned, divisors non-zero, barriers out of divergent code and warp masks equal to
//! the lanes present, except that in one program in four a few of those choices break the rule
//! on purpose, to reach the error paths too. A budget of statements and at most two nested
//! loops keep a program small and its run to milliseconds.
//!
//! The generator reads its choices from the bytes with [`Bytes`] (zeros once they are used up,
//! so it always ends) and depends on nothing else, so `tests/fuzz_corpus.rs` includes this file
//! and replays `fuzz/corpus/gen` through it exactly as the fuzzer ran it.

use std::fmt::Write;

#[path = "genprog_decls.rs"]
mod decls;
use decls::{buffers, defines, launch, shared, ATOMICS, E};

/// The fuzzer's bytes, read front to back; 0 once they are used up.
struct Bytes<'a> {
    data: &'a [u8],
}

impl Bytes<'_> {
    fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    /// A number in `0..n` (`n` ≥ 1).
    fn below(&mut self, n: u32) -> u32 {
        if n <= 256 {
            u32::from(self.byte()) % n
        } else {
            u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()]) % n
        }
    }

    fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.below(hi - lo + 1)
    }

    fn flip(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    /// True one time in `n`, and always once the bytes are used up.
    fn one_in(&mut self, n: u32) -> bool {
        self.below(n) == 0
    }

    fn index(&mut self, len: usize) -> usize {
        self.below(len as u32) as usize
    }

    fn pick<X: Clone>(&mut self, xs: &[X]) -> X {
        xs[self.index(xs.len())].clone()
    }
}

/// The value types of registers and expressions. Operators never mix types, so operands are
/// generated of one type, and conversions (`i32(…)`, `f16(…)`, …) convert.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    I32,
    U32,
    F32,
    F64,
    F16,
    Bf16,
    Bool,
}

/// The 32- and 64-bit value types.
const VALUES: [T; 4] = [T::I32, T::U32, T::F32, T::F64];
/// Every numeric value type.
const ALL: [T; 6] = [T::I32, T::U32, T::F32, T::F64, T::F16, T::Bf16];

impl T {
    fn cast(self) -> &'static str {
        match self {
            T::I32 | T::Bool => "i32",
            T::U32 => "u32",
            T::F32 => "f32",
            T::F64 => "f64",
            T::F16 => "f16",
            T::Bf16 => "bf16",
        }
    }
    fn int(self) -> bool {
        matches!(self, T::I32 | T::U32)
    }
    fn half(self) -> bool {
        matches!(self, T::F16 | T::Bf16)
    }
}

struct Var {
    name: String,
    t: T,
    /// Whether `Set` may assign it (loop variables are left alone).
    settable: bool,
}

struct Buf {
    name: String,
    e: E,
    len: u32,
}

struct Sh {
    name: String,
    e: E,
    dims: Vec<u32>,
    pad: u32,
    swizzle: u32,
}

struct Func {
    name: String,
    params: Vec<T>,
    returns: Option<T>,
}

struct Gen<'a> {
    u: Bytes<'a>,
    /// Registers in scope, outermost first; a later one of the same name shadows.
    vars: Vec<Var>,
    /// Where the current block's registers start in `vars`.
    scope: usize,
    next: usize,
    defines: Vec<(String, u32)>,
    buffers: Vec<Buf>,
    shared: Vec<Sh>,
    funcs: Vec<Func>,
    /// Inside code where lanes or warps may disagree (a lane-dependent `If`, loop or
    /// `While`, a function body): a `Barrier` or a full warp mask here would deadlock or be
    /// refused, so one is rare.
    divergent: bool,
    /// After a `Break`/`Continue` in the current loop: some lanes may have left.
    jumped: bool,
    /// After a `Return`: some lanes may have left the kernel (or function).
    returned: bool,
    /// Loops around this point (in the kernel or the function being generated).
    loops: u32,
    /// Statements left to generate.
    budget: u32,
    /// Whether this program may break the rules now and then (see `rare`).
    careless: bool,
}

impl Gen<'_> {
    /// Whether to break a rule on purpose here: about one time in 16 in the programs chosen
    /// to be careless (one in 4), never in the others, so that most programs load and run.
    /// (Neither 0 nor 15: runs of 0x00 and 0xff bytes are common in fuzz inputs.)
    fn rare(&mut self) -> bool {
        self.careless && self.u.below(16) == 7
    }

    fn fresh(&mut self, prefix: &str) -> String {
        let v = format!("{prefix}{}", self.next);
        self.next += 1;
        v
    }

    fn is_div(&self) -> bool {
        self.divergent || self.jumped || self.returned
    }

    fn push_var(&mut self, name: String, t: T, settable: bool) {
        self.vars.push(Var { name, t, settable });
    }

    /// A visible register of type `t` (not one shadowed by a later one of its name).
    fn var(&mut self, t: T, settable: bool) -> Option<String> {
        let vs: Vec<String> = self
            .vars
            .iter()
            .enumerate()
            .filter(|(k, v)| {
                v.t == t
                    && (v.settable || !settable)
                    && !self.vars[k + 1..].iter().any(|w| w.name == v.name)
            })
            .map(|(_, v)| v.name.clone())
            .collect();
        if vs.is_empty() {
            return None;
        }
        Some(self.u.pick(&vs))
    }

    fn leaf(&mut self, t: T) -> String {
        if self.u.flip() {
            if let Some(v) = self.var(t, false) {
                return v;
            }
        }
        if t == T::Bool {
            return self
                .u
                .pick(&[
                    "(tid.x < 16)",
                    "(laneid == 0)",
                    "(warpid > 0)",
                    "(tid.x % 2 == 0)",
                    "(ctaid.x == 0)",
                    "(tid.y != 1)",
                ])
                .into();
        }
        let c = t.cast();
        match self.u.below(8) {
            0..=2 => {
                let sp = self.u.pick(&[
                    "tid.x", "tid.y", "tid.z", "tid", "laneid", "warpid", "ctaid.x", "ctaid.y",
                    "ntid.x", "ntid.y", "nctaid.x",
                ]);
                format!("{c}({sp})")
            }
            3 => {
                let k = self.u.pick(&[
                    "0",
                    "1",
                    "-1",
                    "0x2a",
                    "42u",
                    "2147483647",
                    "-2147483647",
                    "4294967295u",
                    "32",
                    "0.5",
                    "-0.0",
                    "1e-3",
                    "1e30",
                    "3.0",
                    "65504.0",
                    "70000.0",
                ]);
                format!("{c}({k})")
            }
            4 if !self.defines.is_empty() => {
                let k = self.u.index(self.defines.len());
                format!("{c}({})", self.defines[k].0)
            }
            _ => format!("{c}({})", self.u.range(0, 40)),
        }
    }

    /// An index into a dimension of `n` elements: in bounds, but for a rare out-of-bounds
    /// constant or unchecked expression.
    fn index(&mut self, n: u32, depth: u32) -> String {
        if self.rare() {
            return if self.u.flip() {
                n.to_string()
            } else {
                self.expr(T::I32, depth + 1)
            };
        }
        let any = self.u.pick(&VALUES);
        match self.u.below(8) {
            0 | 1 => self.u.range(0, n - 1).to_string(),
            2 => {
                let sp = self
                    .u
                    .pick(&["tid.x", "laneid", "tid", "warpid", "ctaid.x"]);
                format!("{sp} % {n}")
            }
            3 if n.is_power_of_two() => {
                format!("(i32({}) & {})", self.expr(any, depth + 1), n - 1)
            }
            4 => format!("u32({}) % {n}", self.expr(any, depth + 1)),
            5 => format!("min(max(i32({}), 0), {})", self.expr(any, depth + 1), n - 1),
            _ => format!("abs(i32({})) % {n}", self.expr(any, depth + 1)),
        }
    }

    /// A divisor of type `t`: a constant (powers of two take the shift path), or an
    /// expression made odd, so never zero; an unchecked expression now and then.
    fn divisor(&mut self, t: T, depth: u32) -> String {
        if self.rare() || !t.int() {
            return self.expr(t, depth + 1);
        }
        if self.u.flip() {
            let k = self
                .u
                .pick(&["2", "1", "4", "8", "3", "7", "32", "-4", "-1"]);
            return format!("{}({k})", t.cast());
        }
        format!("({} | {}(1))", self.expr(t, depth + 1), t.cast())
    }

    /// A warp mask: the whole warp where every lane is here, else the active lanes; now and
    /// then (careless) one that names lanes that are elsewhere or leaves active lanes out.
    fn mask(&mut self) -> String {
        if self.rare() {
            return self
                .u
                .pick(&[
                    "0xffffffff",
                    "0x0000ffff",
                    "0x55555555",
                    "ballot_sync(0xffffffff, laneid < 16)",
                    "u32(tid.x)",
                ])
                .into();
        }
        if self.is_div() {
            return "activemask()".into();
        }
        self.u
            .pick(&["0xffffffff", "0xffffffff", "activemask()", "4294967295u"])
            .into()
    }

    /// A shuffle or vote of type `t`.
    fn warp_op(&mut self, t: T, d: u32) -> String {
        let m = self.mask();
        if t.half() {
            return format!("{}({})", t.cast(), self.warp_op(T::F32, d));
        }
        match (self.u.below(6), t) {
            (0, T::U32) => {
                let p = self.expr(T::Bool, d);
                format!("ballot_sync({m}, {p})")
            }
            (1, T::U32) => "activemask()".into(),
            (0 | 1, T::I32) => {
                let f = self.u.pick(&["any_sync", "all_sync"]);
                let p = if self.u.flip() {
                    self.expr(T::Bool, d)
                } else {
                    self.expr(T::I32, d)
                };
                format!("{f}({m}, {p})")
            }
            _ => {
                let f = self.u.pick(&[
                    "shfl_sync",
                    "shfl_up_sync",
                    "shfl_down_sync",
                    "shfl_xor_sync",
                ]);
                let v = self.expr(t, d);
                let lane = match self.u.below(4) {
                    0 => self.u.range(0, 40).to_string(),
                    1 => self
                        .u
                        .pick(&["laneid ^ 1", "(laneid + 1) % 32", "31 - laneid", "16"])
                        .into(),
                    _ => self.expr(T::I32, d),
                };
                let width = if self.rare() {
                    self.u.pick(&[", 12", ", 0", ", laneid", ", 64"]).to_owned()
                } else {
                    let w = self.u.pick(&[0u32, 1, 2, 4, 8, 16, 32]);
                    match (w, self.defines.iter().find(|d| d.1 == w && w <= 32)) {
                        (0, _) => String::new(),
                        (_, Some((name, _))) if self.u.flip() => format!(", {name}"),
                        _ => format!(", {w}"),
                    }
                };
                format!("{f}({m}, {v}, {lane}{width})")
            }
        }
    }

    fn expr(&mut self, t: T, depth: u32) -> String {
        if depth >= 4 || self.u.one_in(3) {
            return self.leaf(t);
        }
        let any = self.u.pick(&ALL);
        let d = depth + 1;
        match (self.u.below(12), t) {
            (0..=2, T::Bool) => {
                let op = self.u.pick(&["==", "!=", "<", "<=", ">", ">="]);
                format!("({} {op} {})", self.expr(any, d), self.expr(any, d))
            }
            (3, T::Bool) => {
                let op = self.u.pick(&["&&", "||"]);
                format!("({} {op} {})", self.expr(t, d), self.expr(t, d))
            }
            (4, T::Bool) => format!("!({})", self.expr(t, d)),
            (5, T::Bool) => format!(
                "select({}, {}, {})",
                self.expr(t, d),
                self.expr(t, d),
                self.expr(t, d)
            ),
            (6, T::Bool) => format!("({} != 0)", self.warp_op(T::I32, d)),
            (_, T::Bool) => self.leaf(t),
            (0..=2, _) => {
                let op = if t.int() {
                    self.u
                        .pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])
                } else if t.half() && !self.rare() {
                    self.u.pick(&["+", "-", "*", "/"])
                } else {
                    self.u.pick(&["+", "-", "*", "/", "%"])
                };
                let a = self.expr(t, d);
                let b = match op {
                    "/" | "%" => self.divisor(t, depth),
                    "<<" | ">>" if !self.rare() => {
                        format!("({} & {}(31))", self.expr(t, d), t.cast())
                    }
                    _ => self.expr(t, d),
                };
                format!("({a} {op} {b})")
            }
            (3, _) => {
                let op = if t.int() {
                    self.u.pick(&["-", "~"])
                } else {
                    "-"
                };
                format!("{op}({})", self.expr(t, d))
            }
            (4 | 5, _) => format!("{}({})", t.cast(), self.expr(any, d)),
            (6, _) => {
                let f = if t.int() {
                    self.u.pick(&["min", "max"])
                } else {
                    self.u.pick(&["min", "max", "fma"])
                };
                let n = if f == "fma" { 3 } else { 2 };
                let args: Vec<String> = (0..n).map(|_| self.expr(t, d)).collect();
                format!("{f}({})", args.join(", "))
            }
            (7, T::F32 | T::F64) => {
                let f = self.u.pick(&["abs", "sqrt", "exp"]);
                format!("{f}({})", self.expr(t, d))
            }
            (7, T::I32) if self.u.flip() => format!("popc({})", self.expr(T::U32, d)),
            (7, T::U32) if self.u.flip() => format!("u32(popc({}))", self.expr(T::I32, d)),
            (7, _) => format!("abs({})", self.expr(t, d)),
            (8, _) => {
                let (c, a, b) = (self.expr(T::Bool, d), self.expr(t, d), self.expr(t, d));
                if self.u.flip() {
                    format!("({c} ? {a} : {b})")
                } else {
                    format!("select({c}, {a}, {b})")
                }
            }
            (9, _) => self.warp_op(t, d),
            _ => match self.array_ref(depth) {
                Some((a, u)) if u == t => a,
                Some((a, _)) => format!("{}({a})", t.cast()),
                None => self.leaf(t),
            },
        }
    }

    fn shared_ref(&mut self, k: usize, depth: u32) -> String {
        let dims = self.shared[k].dims.clone();
        let mut s = self.shared[k].name.clone();
        for d in dims {
            let i = self.index(d, depth);
            write!(s, "[{i}]").unwrap();
        }
        s
    }

    fn buffer_ref(&mut self, k: usize, depth: u32) -> String {
        let len = self.buffers[k].len;
        let i = self.index(len, depth);
        format!("{}[{i}]", self.buffers[k].name)
    }

    /// `name[i]` or `name[i][j]…` of an existing buffer or shared array, and its type.
    fn array_ref(&mut self, depth: u32) -> Option<(String, T)> {
        let shared = !self.shared.is_empty() && (self.buffers.is_empty() || self.u.flip());
        if shared {
            let k = self.u.index(self.shared.len());
            Some((self.shared_ref(k, depth), self.shared[k].e.val()))
        } else if !self.buffers.is_empty() {
            let k = self.u.index(self.buffers.len());
            Some((self.buffer_ref(k, depth), self.buffers[k].e.val()))
        } else {
            None
        }
    }

    /// An element of an array atomics work on (i32, u32, f32; any, now and then), and its
    /// element type.
    fn atomic_ref(&mut self) -> Option<(String, E)> {
        let careless = self.rare();
        let ok = |e: E| careless || !e.atomics().is_empty();
        let mut cands: Vec<(bool, usize)> = Vec::new();
        cands.extend(
            (0..self.buffers.len())
                .filter(|&k| ok(self.buffers[k].e))
                .map(|k| (false, k)),
        );
        cands.extend(
            (0..self.shared.len())
                .filter(|&k| ok(self.shared[k].e))
                .map(|k| (true, k)),
        );
        if cands.is_empty() {
            return None;
        }
        let (shared, k) = self.u.pick(&cands);
        Some(if shared {
            (self.shared_ref(k, 1), self.shared[k].e)
        } else {
            (self.buffer_ref(k, 1), self.buffers[k].e)
        })
    }

    /// The first element of a vector access, its element type and width (4, 8 or 16 bytes),
    /// aligned and in bounds: the last index is a multiple of the width, and a shared array
    /// qualifies when its swizzle groups hold whole vectors and its padded rows keep them
    /// aligned. A rare one ignores the alignment rules.
    fn vec_ref(&mut self) -> Option<(String, T, u32)> {
        let careless = self.rare();
        // Candidates: (shared?, index, widths).
        let mut cands: Vec<(bool, usize, Vec<u32>)> = Vec::new();
        for (k, b) in self.buffers.iter().enumerate() {
            let ws: Vec<u32> = widths(b.e)
                .into_iter()
                .filter(|&n| b.len >= n || careless)
                .collect();
            if !ws.is_empty() {
                cands.push((false, k, ws));
            }
        }
        for (k, s) in self.shared.iter().enumerate() {
            let last = s.dims[s.dims.len() - 1];
            let ws: Vec<u32> = widths(s.e)
                .into_iter()
                .filter(|&n| {
                    careless
                        || (last >= n
                            && (s.swizzle == 0 || s.swizzle >= n)
                            && (s.dims.len() == 1 || (last + s.pad).is_multiple_of(n)))
                })
                .collect();
            if !ws.is_empty() {
                cands.push((true, k, ws));
            }
        }
        if cands.is_empty() {
            return None;
        }
        let (shared, k, ws) = self.u.pick(&cands);
        let n = self.u.pick(&ws);
        let (mut s, t, last) = if shared {
            let sh = &self.shared[k];
            let (name, t, dims) = (sh.name.clone(), sh.e.val(), sh.dims.clone());
            let mut s = name;
            for &d in &dims[..dims.len() - 1] {
                let i = self.index(d, 0);
                write!(s, "[{i}]").unwrap();
            }
            (s, t, dims[dims.len() - 1])
        } else {
            let b = &self.buffers[k];
            (b.name.clone(), b.e.val(), b.len)
        };
        if careless {
            let i = self.index(last, 0);
            write!(s, "[{i}]").unwrap();
        } else {
            let i = self.index(last / n, 0);
            write!(s, "[{n} * ({i})]").unwrap();
        }
        Some((s, t, n))
    }

    /// A value of type `t`: an expression of that type, or a conversion of any other.
    fn value(&mut self, t: T) -> String {
        if self.u.flip() {
            self.expr(t, 0)
        } else {
            let any = self.u.pick(&ALL);
            format!("{}({})", t.cast(), self.expr(any, 0))
        }
    }

    /// A nested body in its own scope; `divergent` says whether lanes may disagree there.
    fn block(&mut self, out: &mut String, depth: u32, divergent: bool) {
        let (scope, was, jumped, returned) =
            (self.scope, self.divergent, self.jumped, self.returned);
        self.scope = self.vars.len();
        self.divergent |= divergent;
        self.body(out, depth + 1);
        self.vars.truncate(self.scope);
        self.scope = scope;
        // A jump inside leaves some lanes behind for the rest of the enclosing loop (Break,
        // Continue) or kernel (Return).
        let (j, r) = (self.jumped, self.returned);
        self.divergent = was;
        self.jumped = jumped || j;
        self.returned = returned || r;
    }

    /// A loop body: a block in which `Break` and `Continue` may stand.
    fn loop_body(&mut self, out: &mut String, depth: u32, divergent: bool) {
        let jumped = self.jumped;
        self.loops += 1;
        self.block(out, depth, divergent);
        self.loops -= 1;
        self.jumped = jumped;
    }

    /// `Let` of a new name, or (one time in four in a nested block) of an outer one, which
    /// it shadows until the block ends.
    fn let_name(&mut self) -> String {
        if self.scope > 0 && self.u.one_in(4) {
            let outer: Vec<String> = self.vars[..self.scope]
                .iter()
                .map(|v| v.name.clone())
                .filter(|n| !self.vars[self.scope..].iter().any(|v| &v.name == n))
                .collect();
            if !outer.is_empty() {
                return self.u.pick(&outer);
            }
        }
        self.fresh("v")
    }

    fn stmt(&mut self, out: &mut String, depth: u32) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        let nested = depth < 3 && self.loops < 2;
        match self.u.below(17) {
            0 | 1 => {
                let v = self.let_name();
                let t = if self.u.one_in(4) {
                    self.u.pick(&ALL)
                } else {
                    self.u.pick(&VALUES)
                };
                let e = self.value(t);
                write!(out, "Let(\"{v}\", \"{e}\"),").unwrap();
                self.push_var(v, t, true);
            }
            2 => {
                let t = self.u.pick(&ALL);
                if let Some(v) = self.var(t, true) {
                    let e = self.value(t);
                    write!(out, "Set(\"{v}\", \"{e}\"),").unwrap();
                }
            }
            3..=5 => {
                if let Some((a, t)) = self.array_ref(0) {
                    let e = self.value(t);
                    write!(out, "Store(\"{a}\", \"{e}\"),").unwrap();
                }
            }
            6 => self.vector(out),
            7 => {
                if !self.is_div() || self.rare() {
                    out.push_str("Barrier,");
                }
            }
            8 if depth < 3 => self.if_stmt(out, depth),
            9 if nested => self.for_stmt(out, depth),
            10 if nested => {
                let v = self.fresh("c");
                let (bound, uniform) =
                    self.u
                        .pick(&[("3", true), ("laneid % 4", false), ("ctaid.x + 1", true)]);
                // The count goes first, so that a `Continue` cannot skip it.
                write!(
                    out,
                    "Let(\"{v}\", \"0\"), While(cond: \"{v} < {bound}\", body: [Set(\"{v}\", \"{v} + 1\"),"
                )
                .unwrap();
                self.push_var(v, T::I32, false);
                self.loop_body(out, depth, !uniform);
                out.push_str("]),");
            }
            11 | 12 => self.atomic(out),
            13 => {
                let m = self.mask();
                write!(out, "SyncWarp(\"{m}\"),").unwrap();
            }
            14 if !self.funcs.is_empty() => self.call(out),
            _ => {
                if let Some((a, t)) = self.array_ref(0) {
                    let v = self.let_name();
                    write!(out, "Let(\"{v}\", \"{a}\"),").unwrap();
                    self.push_var(v, t, true);
                }
            }
        }
    }

    fn vector(&mut self, out: &mut String) {
        let Some((a, t, n)) = self.vec_ref() else {
            return;
        };
        if self.u.flip() {
            let w = self.fresh("w");
            let mut names = Vec::new();
            for k in 0..n {
                names.push(format!("\"{w}_{k}\""));
                self.push_var(format!("{w}_{k}"), t, true);
            }
            write!(out, "LoadVec([{}], \"{a}\"),", names.join(", ")).unwrap();
        } else {
            let es: Vec<String> = (0..n).map(|_| format!("\"{}\"", self.value(t))).collect();
            write!(out, "StoreVec(\"{a}\", [{}]),", es.join(", ")).unwrap();
        }
    }

    fn if_stmt(&mut self, out: &mut String, depth: u32) {
        // Conditions that every thread of the block agrees on keep barriers legal.
        let uniform = self.u.flip();
        // (Those on defines and launch sizes are constants: lowering keeps one side.)
        let c = if uniform {
            let mut cs = vec![
                "ctaid.x == 0".to_owned(),
                "nctaid.x > 1".to_owned(),
                "ntid.x >= 64".to_owned(),
                "ctaid.x % 2 == 1".to_owned(),
            ];
            for (name, _) in &self.defines {
                cs.push(format!("{name} > 2"));
                cs.push(format!("{name} == 1"));
            }
            self.u.pick(&cs)
        } else {
            self.expr(T::Bool, 1)
        };
        write!(out, "If(cond: \"{c}\", then: [").unwrap();
        self.block(out, depth, !uniform);
        out.push(']');
        if self.u.flip() {
            out.push_str(", else: [");
            self.block(out, depth, !uniform);
            out.push(']');
        }
        out.push_str("),");
    }

    fn for_stmt(&mut self, out: &mut String, depth: u32) {
        let v = self.fresh("k");
        // (from, to, step, uniform): counting up, down, by lane-dependent bounds.
        let (from, to, step, uniform) = self.u.pick(&[
            ("0", "4", "1", true),
            ("0", "33", "1", true),
            ("0", "\"tid.x % 8\"", "1", false),
            ("0", "\"warpid + 2\"", "1", false),
            ("0", "0", "1", true),
            ("8", "0", "-1", true),
            ("\"i32(laneid)\"", "32", "8", false),
            ("0", "16", "\"2\"", true),
            ("-3", "\"3\"", "2", true),
            ("1", "17", "\"s\"", true),
        ]);
        // `step: "s"` doubles the counter: the counter is named `s…`.
        let v = if step == "\"s\"" { format!("s{v}") } else { v };
        let step = if step == "\"s\"" {
            format!("\"{v}\"")
        } else {
            step.to_owned()
        };
        write!(
            out,
            "For(var: \"{v}\", from: {from}, to: {to}, step: {step}, body: ["
        )
        .unwrap();
        let scope = self.vars.len();
        self.push_var(v, T::I32, false);
        self.loop_body(out, depth, !uniform);
        self.vars.truncate(scope);
        out.push_str("]),");
    }

    fn atomic(&mut self, out: &mut String) {
        let Some((at, e)) = self.atomic_ref() else {
            return;
        };
        let careless = e.atomics().is_empty() || self.rare();
        let op = if careless {
            self.u.pick(&ATOMICS)
        } else {
            self.u.pick(e.atomics())
        };
        let t = e.val();
        let value = self.value(t);
        write!(out, "Atomic(op: \"{op}\", at: \"{at}\", value: \"{value}\"").unwrap();
        if op == "cas" || (careless && self.u.flip()) {
            let c = self.value(t);
            write!(out, ", compare: \"{c}\"").unwrap();
        }
        if self.u.flip() {
            let o = self.fresh("o");
            write!(out, ", old: \"{o}\"").unwrap();
            self.push_var(o, t, true);
        }
        out.push_str("),");
    }

    /// A call of an earlier function: as a `Let` or `Set` value, or a `Call` statement.
    fn call(&mut self, out: &mut String) {
        let k = self.u.index(self.funcs.len());
        let (name, params, returns) = {
            let f = &self.funcs[k];
            (f.name.clone(), f.params.clone(), f.returns)
        };
        let mut args: Vec<String> = params.iter().map(|&t| self.value(t)).collect();
        if self.rare() {
            args.push("1".into());
        }
        let c = format!("{name}({})", args.join(", "));
        match returns {
            Some(t) if self.u.flip() => {
                let v = self.let_name();
                write!(out, "Let(\"{v}\", \"{c}\"),").unwrap();
                self.push_var(v, t, true);
            }
            Some(t) if self.u.flip() => match self.var(t, true) {
                Some(v) => write!(out, "Set(\"{v}\", \"{c}\"),").unwrap(),
                None => write!(out, "Call(\"{c}\"),").unwrap(),
            },
            _ => write!(out, "Call(\"{c}\"),").unwrap(),
        }
    }

    fn body(&mut self, out: &mut String, depth: u32) {
        let n = self.u.range(0, if depth == 0 { 12 } else { 4 });
        for _ in 0..n {
            self.stmt(out, depth);
        }
        // A jump ends a block (a statement after it would never run).
        if depth > 0 && self.u.one_in(4) {
            match self.u.below(3) {
                0 if self.loops > 0 => {
                    out.push_str("Break,");
                    self.jumped = true;
                }
                1 if self.loops > 0 => {
                    out.push_str("Continue,");
                    self.jumped = true;
                }
                2 => {
                    out.push_str("Return,");
                    self.returned = true;
                }
                _ => {}
            }
        }
    }

    /// A function definition: parameters of chosen types, a body that may return early,
    /// maybe a value. Its body sees the parameters, the defines and the arrays, and may call
    /// the functions defined before it (so there is no recursion).
    fn function(&mut self, out: &mut String) {
        let name = self.fresh("f");
        let params: Vec<T> = (0..self.u.range(0, 3)).map(|_| self.u.pick(&ALL)).collect();
        let saved = std::mem::take(&mut self.vars);
        let state = (
            self.scope,
            self.divergent,
            self.jumped,
            self.returned,
            self.loops,
        );
        let mut names = Vec::new();
        for &t in &params {
            let p = self.fresh("p");
            names.push(format!("\"{p}\""));
            self.push_var(p, t, true);
        }
        // Callers may be divergent: the body is generated as if it were. (The parameters are
        // the body's own names: a `Let` there does not reuse them.)
        self.scope = 0;
        (self.divergent, self.jumped, self.returned, self.loops) = (true, false, false, 0);
        write!(out, "\"{name}\": (params: [{}], body: [", names.join(", ")).unwrap();
        self.body(out, 1);
        out.push(']');
        let returns = if self.u.flip() {
            let t = self.u.pick(&ALL);
            let e = self.expr(t, 1);
            write!(out, ", returns: \"{e}\"").unwrap();
            Some(t)
        } else {
            None
        };
        out.push_str("),");
        self.vars = saved;
        (
            self.scope,
            self.divergent,
            self.jumped,
            self.returned,
            self.loops,
        ) = state;
        self.funcs.push(Func {
            name,
            params,
            returns,
        });
    }
}

/// Vector widths in elements: 4-, 8- and 16-byte accesses of at least 2 elements.
fn widths(e: E) -> Vec<u32> {
    [4, 8, 16]
        .into_iter()
        .map(|b| b / e.bytes())
        .filter(|&n| n >= 2)
        .collect()
}

/// The program the bytes `data` describe.
pub fn program(data: &[u8]) -> String {
    let mut g = Gen {
        u: Bytes { data },
        vars: Vec::new(),
        scope: 0,
        next: 0,
        defines: Vec::new(),
        buffers: Vec::new(),
        shared: Vec::new(),
        funcs: Vec::new(),
        divergent: false,
        jumped: false,
        returned: false,
        loops: 0,
        budget: 48,
        careless: false,
    };
    g.careless = g.u.below(4) == 2;
    let mut s = String::from("Program(name: \"gen\", ");
    defines(&mut g, &mut s);
    launch(&mut g, &mut s);
    buffers(&mut g, &mut s);
    shared(&mut g, &mut s);
    let nf = g.u.below(3);
    if nf > 0 {
        s.push_str("functions: {");
        for _ in 0..nf {
            g.function(&mut s);
        }
        s.push_str("}, ");
    }
    s.push_str("body: [");
    g.body(&mut s, 0);
    s.push_str("])");
    s
}
