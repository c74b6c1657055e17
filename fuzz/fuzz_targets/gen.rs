//! Fuzzes load + run with *generated* programs: the input bytes choose defines, a launch,
//! buffers (with CPU references), shared arrays (padded, swizzled) and a body of statements
//! and typed expressions from the kernel language's grammar, so that most inputs get past the
//! parser and the checks and exercise lowering, the executor, the race checker, the CPU
//! reference and the report. Indices are mostly kept in bounds, vector accesses aligned,
//! divisors non-zero and barriers out of divergent code, except that in one program in four
//! a few of those choices break the rule on purpose, to reach the error paths too.
//!
//! Same limits as the `run` target (`warpsim_runner::smoke`: 64 KiB of buffers, launches of at most 64 blocks and 2048
//! threads, 20 000 warp instructions per block, race checking on, the bank geometry chosen
//! by the program text's length), so a generated program replays identically as a `run`
//! input: `GEN_DUMP=DIR` writes every program that loads to DIR (to seed `fuzz/corpus/run`,
//! which tests/fuzz_corpus.rs replays), `GEN_PRINT=1` prints each program and its outcome.
#![no_main]
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::fmt::Write;
use warpsim_interp::load_str;
use warpsim_runner::{run, smoke};

/// The value types. The language refuses operators on mixed types (`i32 + f32`,
/// `f32 + f64`), so operands are generated of one type, and casts (`i32(…)`, …) convert.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    I32,
    U32,
    F32,
    F64,
    Bool,
}

const VALUES: [T; 4] = [T::I32, T::U32, T::F32, T::F64];

impl T {
    /// The element type's name in a buffer or shared array declaration.
    fn elem(self) -> &'static str {
        match self {
            T::I32 | T::Bool => "I32",
            T::U32 => "U32",
            T::F32 => "F32",
            T::F64 => "F64",
        }
    }
    fn cast(self) -> &'static str {
        match self {
            T::I32 | T::Bool => "i32",
            T::U32 => "u32",
            T::F32 => "f32",
            T::F64 => "f64",
        }
    }
    fn bytes(self) -> u32 {
        if self == T::F64 {
            8
        } else {
            4
        }
    }
    fn int(self) -> bool {
        matches!(self, T::I32 | T::U32)
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
    t: T,
    len: u32,
}

struct Sh {
    name: String,
    t: T,
    dims: Vec<u32>,
    pad: u32,
    swizzle: u32,
}

/// Shared memory a generated block uses at most (unless it goes over on purpose); the
/// loader's limit is 227 KiB.
const SHARED_BUDGET: u32 = 48 << 10;

struct Gen<'a, 'b> {
    u: &'a mut Unstructured<'b>,
    /// Registers in scope.
    vars: Vec<Var>,
    next: usize,
    defines: Vec<(String, u32)>,
    buffers: Vec<Buf>,
    shared: Vec<Sh>,
    /// Inside code where lanes or warps may disagree (a lane-dependent `If`, loop or
    /// `While`): a `Barrier` here would deadlock or be refused, so one is rare.
    divergent: bool,
    /// Whether this program may break the rules now and then (see `rare`).
    careless: bool,
}

impl Gen<'_, '_> {
    fn pick<X: Clone>(&mut self, xs: &[X]) -> Result<X> {
        Ok(self.u.choose(xs)?.clone())
    }

    /// Whether to break a rule on purpose here: about one time in 16 in the programs chosen
    /// to be careless (one in 4), never in the others, so that most programs load and run.
    /// False once the input is used up (unlike `ratio`, which then says true).
    fn rare(&mut self) -> Result<bool> {
        Ok(self.careless && self.u.int_in_range(0..=15u8)? == 15)
    }

    fn fresh(&mut self, prefix: &str) -> String {
        let v = format!("{prefix}{}", self.next);
        self.next += 1;
        v
    }

    fn var(&mut self, t: T, settable: bool) -> Result<Option<String>> {
        let vs: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.t == t && (v.settable || !settable))
            .map(|v| v.name.clone())
            .collect();
        if vs.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.pick(&vs)?))
    }

    fn leaf(&mut self, t: T) -> Result<String> {
        if self.u.arbitrary()? {
            if let Some(v) = self.var(t, false)? {
                return Ok(v);
            }
        }
        if t == T::Bool {
            return Ok(self
                .pick(&[
                    "(tid.x < 16)",
                    "(laneid == 0)",
                    "(warpid > 0)",
                    "(tid.x % 2 == 0)",
                    "(ctaid.x == 0)",
                    "(tid.y != 1)",
                ])?
                .into());
        }
        let c = t.cast();
        Ok(match self.u.int_in_range(0..=7)? {
            0..=2 => {
                let sp = self.pick(&[
                    "tid.x", "tid.y", "tid.z", "tid", "laneid", "warpid", "ctaid.x", "ctaid.y",
                    "ntid.x", "ntid.y", "nctaid.x",
                ])?;
                format!("{c}({sp})")
            }
            3 => {
                let k = self.pick(&[
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
                ])?;
                format!("{c}({k})")
            }
            4 if !self.defines.is_empty() => {
                let k = self.u.choose_index(self.defines.len())?;
                format!("{c}({})", self.defines[k].0)
            }
            _ => format!("{c}({})", self.u.int_in_range(0..=40u32)?),
        })
    }

    /// An index into a dimension of `n` elements: in bounds, but for a rare out-of-bounds
    /// constant or unchecked expression.
    fn index(&mut self, n: u32, depth: u32) -> Result<String> {
        if self.rare()? {
            return if self.u.arbitrary()? {
                Ok(n.to_string())
            } else {
                self.expr(T::I32, depth + 1)
            };
        }
        let any = self.pick(&VALUES)?;
        Ok(match self.u.int_in_range(0..=7)? {
            0 | 1 => self.u.int_in_range(0..=n - 1)?.to_string(),
            2 => {
                let sp = self.pick(&["tid.x", "laneid", "tid", "warpid", "ctaid.x"])?;
                format!("{sp} % {n}")
            }
            3 if n.is_power_of_two() => {
                format!("(i32({}) & {})", self.expr(any, depth + 1)?, n - 1)
            }
            4 => format!("u32({}) % {n}", self.expr(any, depth + 1)?),
            5 => format!(
                "min(max(i32({}), 0), {})",
                self.expr(any, depth + 1)?,
                n - 1
            ),
            _ => format!("abs(i32({})) % {n}", self.expr(any, depth + 1)?),
        })
    }

    /// A divisor of type `t`: a constant (powers of two take the shift path), or an
    /// expression made odd, so never zero; an unchecked expression now and then.
    fn divisor(&mut self, t: T, depth: u32) -> Result<String> {
        if self.rare()? {
            return self.expr(t, depth + 1);
        }
        if !t.int() {
            return self.expr(t, depth + 1);
        }
        if self.u.arbitrary()? {
            let k = self.pick(&["2", "1", "4", "8", "3", "7", "32", "-4", "-1"])?;
            return Ok(format!("{}({k})", t.cast()));
        }
        Ok(format!("({} | {}(1))", self.expr(t, depth + 1)?, t.cast()))
    }

    fn expr(&mut self, t: T, depth: u32) -> Result<String> {
        if depth >= 4 || self.u.ratio(1, 3)? {
            return self.leaf(t);
        }
        let any = self.pick(&VALUES)?;
        let d = depth + 1;
        Ok(match (self.u.int_in_range(0..=10)?, t) {
            (0..=2, T::Bool) => {
                let op = self.pick(&["==", "!=", "<", "<=", ">", ">="])?;
                format!("({} {op} {})", self.expr(any, d)?, self.expr(any, d)?)
            }
            (3, T::Bool) => {
                let op = self.pick(&["&&", "||"])?;
                format!("({} {op} {})", self.expr(t, d)?, self.expr(t, d)?)
            }
            (4, T::Bool) => format!("!({})", self.expr(t, d)?),
            (5, T::Bool) => format!(
                "select({}, {}, {})",
                self.expr(t, d)?,
                self.expr(t, d)?,
                self.expr(t, d)?
            ),
            (_, T::Bool) => self.leaf(t)?,
            (0..=2, _) => {
                let op = if t.int() {
                    self.pick(&["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])?
                } else {
                    self.pick(&["+", "-", "*", "/", "%"])?
                };
                let a = self.expr(t, d)?;
                let b = match op {
                    "/" | "%" => self.divisor(t, depth)?,
                    "<<" | ">>" if !self.rare()? => {
                        format!("({} & {}(31))", self.expr(t, d)?, t.cast())
                    }
                    _ => self.expr(t, d)?,
                };
                format!("({a} {op} {b})")
            }
            (3, _) => {
                let op = if t.int() {
                    self.pick(&["-", "~"])?
                } else {
                    "-"
                };
                format!("{op}({})", self.expr(t, d)?)
            }
            (4 | 5, _) => format!("{}({})", t.cast(), self.expr(any, d)?),
            (6, _) => {
                let f = if t.int() {
                    self.pick(&["min", "max"])?
                } else {
                    self.pick(&["min", "max", "fma"])?
                };
                let n = if f == "fma" { 3 } else { 2 };
                let mut args = Vec::new();
                for _ in 0..n {
                    args.push(self.expr(t, d)?);
                }
                format!("{f}({})", args.join(", "))
            }
            (7, T::F32 | T::F64) => {
                let f = self.pick(&["abs", "sqrt"])?;
                format!("{f}({})", self.expr(t, d)?)
            }
            (7, _) => format!("abs({})", self.expr(t, d)?),
            (8, _) => {
                let (c, a, b) = (self.expr(T::Bool, d)?, self.expr(t, d)?, self.expr(t, d)?);
                if self.u.arbitrary()? {
                    format!("({c} ? {a} : {b})")
                } else {
                    format!("select({c}, {a}, {b})")
                }
            }
            _ => match self.array_ref(depth)? {
                Some((a, u)) if u == t => a,
                Some((a, _)) => format!("{}({a})", t.cast()),
                None => self.leaf(t)?,
            },
        })
    }

    fn shared_ref(&mut self, k: usize, depth: u32) -> Result<String> {
        let dims = self.shared[k].dims.clone();
        let mut s = self.shared[k].name.clone();
        for d in dims {
            let i = self.index(d, depth)?;
            write!(s, "[{i}]").unwrap();
        }
        Ok(s)
    }

    /// `name[i]` or `name[i][j]…` of an existing buffer or shared array, and its type.
    fn array_ref(&mut self, depth: u32) -> Result<Option<(String, T)>> {
        let shared = !self.shared.is_empty() && (self.buffers.is_empty() || self.u.arbitrary()?);
        if shared {
            let k = self.u.choose_index(self.shared.len())?;
            Ok(Some((self.shared_ref(k, depth)?, self.shared[k].t)))
        } else if !self.buffers.is_empty() {
            let k = self.u.choose_index(self.buffers.len())?;
            let len = self.buffers[k].len;
            let i = self.index(len, depth)?;
            Ok(Some((
                format!("{}[{i}]", self.buffers[k].name),
                self.buffers[k].t,
            )))
        } else {
            Ok(None)
        }
    }

    /// The first element of a vector access, its element type and width (2 or 4 elements,
    /// 8 or 16 bytes), aligned and in bounds: the last index is a multiple of the width, and
    /// a shared array qualifies when its swizzle groups hold whole vectors and its padded
    /// rows keep them aligned. A rare one ignores the alignment rules.
    fn vec_ref(&mut self) -> Result<Option<(String, T, u32)>> {
        let careless = self.rare()?;
        // Candidates: (shared?, index, widths).
        let mut cands: Vec<(bool, usize, Vec<u32>)> = Vec::new();
        for (k, b) in self.buffers.iter().enumerate() {
            let ws: Vec<u32> = widths(b.t)
                .into_iter()
                .filter(|&n| b.len >= n || careless)
                .collect();
            if !ws.is_empty() {
                cands.push((false, k, ws));
            }
        }
        for (k, s) in self.shared.iter().enumerate() {
            let last = s.dims[s.dims.len() - 1];
            let ws: Vec<u32> = widths(s.t)
                .into_iter()
                .filter(|&n| {
                    careless
                        || (last >= n
                            && (s.swizzle == 0 || s.swizzle >= n)
                            && (s.dims.len() == 1 || (last + s.pad) % n == 0))
                })
                .collect();
            if !ws.is_empty() {
                cands.push((true, k, ws));
            }
        }
        if cands.is_empty() {
            return Ok(None);
        }
        let (shared, k, ws) = self.pick(&cands)?;
        let n = self.pick(&ws)?;
        let (mut s, t, last) = if shared {
            let sh = &self.shared[k];
            let (name, t, dims) = (sh.name.clone(), sh.t, sh.dims.clone());
            let mut s = name;
            for &d in &dims[..dims.len() - 1] {
                let i = self.index(d, 0)?;
                write!(s, "[{i}]").unwrap();
            }
            (s, t, dims[dims.len() - 1])
        } else {
            let b = &self.buffers[k];
            (b.name.clone(), b.t, b.len)
        };
        if careless {
            let i = self.index(last, 0)?;
            write!(s, "[{i}]").unwrap();
        } else {
            let i = self.index(last / n, 0)?;
            write!(s, "[{n} * ({i})]").unwrap();
        }
        Ok(Some((s, t, n)))
    }

    /// A value of type `t`: an expression of that type, or a cast of any other.
    fn value(&mut self, t: T) -> Result<String> {
        if self.u.arbitrary()? {
            self.expr(t, 0)
        } else {
            let any = self.pick(&VALUES)?;
            Ok(format!("{}({})", t.cast(), self.expr(any, 0)?))
        }
    }

    /// A nested body in its own scope; `divergent` says whether lanes may disagree there.
    fn block(&mut self, out: &mut String, depth: u32, divergent: bool) -> Result<()> {
        let (scope, was) = (self.vars.len(), self.divergent);
        self.divergent |= divergent;
        self.body(out, depth + 1)?;
        self.vars.truncate(scope);
        self.divergent = was;
        Ok(())
    }

    fn stmt(&mut self, out: &mut String, depth: u32) -> Result<()> {
        match self.u.int_in_range(0..=12)? {
            0 | 1 => {
                let v = self.fresh("v");
                let t = self.pick(&VALUES)?;
                let e = self.value(t)?;
                write!(out, "Let(\"{v}\", \"{e}\"),").unwrap();
                self.vars.push(Var {
                    name: v,
                    t,
                    settable: true,
                });
            }
            2 => {
                let t = self.pick(&VALUES)?;
                if let Some(v) = self.var(t, true)? {
                    let e = self.value(t)?;
                    write!(out, "Set(\"{v}\", \"{e}\"),").unwrap();
                }
            }
            3..=5 => {
                if let Some((a, t)) = self.array_ref(0)? {
                    let e = self.value(t)?;
                    write!(out, "Store(\"{a}\", \"{e}\"),").unwrap();
                }
            }
            6 => {
                if let Some((a, t, n)) = self.vec_ref()? {
                    if self.u.arbitrary()? {
                        let w = self.fresh("w");
                        let mut names = Vec::new();
                        for k in 0..n {
                            names.push(format!("\"{w}_{k}\""));
                            self.vars.push(Var {
                                name: format!("{w}_{k}"),
                                t,
                                settable: true,
                            });
                        }
                        write!(out, "LoadVec([{}], \"{a}\"),", names.join(", ")).unwrap();
                    } else {
                        let mut es = Vec::new();
                        for _ in 0..n {
                            es.push(format!("\"{}\"", self.value(t)?));
                        }
                        write!(out, "StoreVec(\"{a}\", [{}]),", es.join(", ")).unwrap();
                    }
                }
            }
            7 => {
                if !self.divergent || self.rare()? {
                    out.push_str("Barrier,");
                }
            }
            8 if depth < 3 => {
                // Conditions that every thread of the block agrees on keep barriers legal.
                let uniform = self.u.arbitrary()?;
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
                    self.pick(&cs)?
                } else {
                    self.expr(T::Bool, 1)?
                };
                write!(out, "If(cond: \"{c}\", then: [").unwrap();
                self.block(out, depth, !uniform)?;
                out.push(']');
                if self.u.arbitrary()? {
                    out.push_str(", else: [");
                    self.block(out, depth, !uniform)?;
                    out.push(']');
                }
                out.push_str("),");
            }
            9 if depth < 3 => {
                let v = self.fresh("k");
                // (from, to, step, uniform): counting up, down, by lane-dependent bounds.
                let (from, to, step, uniform) = self.pick(&[
                    ("0", "4", "1", true),
                    ("0", "33", "1", true),
                    ("0", "\"tid.x % 8\"", "1", false),
                    ("0", "\"warpid + 2\"", "1", false),
                    ("0", "0", "1", true),
                    ("8", "0", "-1", true),
                    ("\"i32(laneid)\"", "32", "8", false),
                    ("0", "16", "\"2\"", true),
                    ("-3", "\"3\"", "2", true),
                ])?;
                write!(
                    out,
                    "For(var: \"{v}\", from: {from}, to: {to}, step: {step}, body: ["
                )
                .unwrap();
                let (scope, was) = (self.vars.len(), self.divergent);
                self.vars.push(Var {
                    name: v,
                    t: T::I32,
                    settable: false,
                });
                self.divergent |= !uniform;
                self.body(out, depth + 1)?;
                self.vars.truncate(scope);
                self.divergent = was;
                out.push_str("]),");
            }
            10 if depth < 3 => {
                let v = self.fresh("c");
                let (bound, uniform) =
                    self.pick(&[("3", true), ("laneid % 4", false), ("ctaid.x + 1", true)])?;
                write!(
                    out,
                    "Let(\"{v}\", \"0\"), While(cond: \"{v} < {bound}\", body: ["
                )
                .unwrap();
                self.block(out, depth, !uniform)?;
                write!(out, "Set(\"{v}\", \"{v} + 1\")]),").unwrap();
                self.vars.push(Var {
                    name: v,
                    t: T::I32,
                    settable: true,
                });
            }
            _ => {
                if let Some((a, t)) = self.array_ref(0)? {
                    let v = self.fresh("v");
                    write!(out, "Let(\"{v}\", \"{a}\"),").unwrap();
                    self.vars.push(Var {
                        name: v,
                        t,
                        settable: true,
                    });
                }
            }
        }
        Ok(())
    }

    fn body(&mut self, out: &mut String, depth: u32) -> Result<()> {
        let n = self.u.int_in_range(0..=if depth == 0 { 12 } else { 4 })?;
        for _ in 0..n {
            self.stmt(out, depth)?;
        }
        Ok(())
    }
}

/// Vector widths in elements for 8- and 16-byte accesses.
fn widths(t: T) -> Vec<u32> {
    if t == T::F64 {
        vec![2]
    } else {
        vec![2, 4]
    }
}

fn program(u: &mut Unstructured) -> Result<String> {
    let mut g = Gen {
        u,
        vars: Vec::new(),
        next: 0,
        defines: Vec::new(),
        buffers: Vec::new(),
        shared: Vec::new(),
        divergent: false,
        careless: false,
    };
    g.careless = g.u.int_in_range(0..=3u8)? == 3;
    let mut s = String::from("Program(name: \"gen\", defines: {");
    for name in ["N", "M"] {
        if g.u.arbitrary()? {
            let v = g.pick(&[4u32, 1, 2, 32, 64])?;
            write!(s, "\"{name}\": {v}, ").unwrap();
            g.defines.push((name.to_owned(), v));
        }
    }
    s.push_str("}, ");

    // The launch: at most 1024 threads a block, 64 blocks and 2048 threads (the `run` target
    // skips bigger ones).
    let bx = g.pick(&[32u32, 64, 128, 1, 2, 3, 16, 33, 96, 256])?;
    let by = g.pick(&[1u32, 1, 2, 3])?;
    let bz = if bx * by <= 512 {
        g.pick(&[1u32, 1, 1, 2])?
    } else {
        1
    };
    let threads = bx * by * bz;
    let gx = g.u.int_in_range(1..=4u32)?.min(2048 / threads).max(1);
    let gy = g.pick(&[1u32, 1, 2])?.min(2048 / (threads * gx)).max(1);
    let block = if bz > 1 {
        format!("[{bx}, {by}, {bz}]")
    } else if by > 1 || g.u.arbitrary()? {
        format!("[{bx}, {by}]")
    } else {
        format!("[{bx}]")
    };
    let grid = if gy > 1 {
        format!("[{gx}, {gy}]")
    } else {
        match g.defines.iter().find(|d| d.1 == gx) {
            Some((name, _)) => format!("[\"{name}\"]"),
            None => format!("[{gx}]"),
        }
    };
    write!(s, "launch: (grid: {grid}, block: {block}), buffers: [").unwrap();

    let nb = g.u.int_in_range(0..=3)?;
    for k in 0..nb {
        let t = g.pick(&VALUES)?;
        let mut len = g.pick(&[64u32, 32, 256, 1024, 1, 4, 31])?;
        let mut len_text = len.to_string();
        if g.u.arbitrary()? {
            if let Some((name, v)) = g.defines.first().cloned() {
                let f = g.pick(&[1u32, 4, 32])?;
                len = v * f;
                len_text = format!("\"{name} * {f}\"");
            }
        }
        let init = g.pick(&["Zeros", "Iota", "Random(7)"])?;
        write!(
            s,
            "(name: \"b{k}\", ty: {}, len: {len_text}, init: {init}",
            t.elem()
        )
        .unwrap();
        if g.u.ratio(1, 3)? {
            let c = t.cast();
            let l0 = g.buffers.first().map_or(len, |b| b.len);
            let e = match g.u.int_in_range(0..=5)? {
                0 => format!("{c}(0)"),
                1 => format!("{c}(i)"),
                2 => format!("{c}(f32(i) * 2.0)"),
                3 => format!("{c}(sum(k, 0, i % 8, k))"),
                4 => format!("{c}(b0[i % {l0}])"),
                _ => format!("i > 0 ? {c}(b0[(i - 1) % {l0}]) : {c}(0)"),
            };
            write!(s, ", expect: \"{e}\"").unwrap();
            if !t.int() && g.u.arbitrary()? {
                s.push_str(", tolerance: 0.01");
            }
        }
        s.push_str("),");
        g.buffers.push(Buf {
            name: format!("b{k}"),
            t,
            len,
        });
    }

    s.push_str("], shared: [");
    let ns = g.u.int_in_range(0..=2)?;
    let mut used = 0u32;
    for k in 0..ns {
        let t = g.pick(&VALUES)?;
        let rank = g.u.int_in_range(1..=3)?;
        let mut dims = Vec::new();
        for _ in 0..rank {
            dims.push(g.pick(&[32u32, 1, 2, 4, 8, 16, 33, 64])?);
        }
        let pad = g.pick(&[0u32, 0, 0, 1, 2, 3, 4])?;
        let bytes = |dims: &[u32]| {
            dims[..dims.len() - 1].iter().product::<u32>()
                * (dims[dims.len() - 1] + pad)
                * t.bytes()
        };
        // Over the budget: drop outer dimensions (but for a rare array kept too big).
        if !g.rare()? {
            while dims.len() > 1 && used + bytes(&dims) > SHARED_BUDGET {
                dims.remove(0);
            }
        }
        used += bytes(&dims).next_multiple_of(16);
        // A swizzle group must leave a power-of-two number of groups in a row.
        let last = dims[dims.len() - 1];
        let swz = g.pick(&[0u32, 0, 1, 2, 4, 8])?;
        let swz = if swz > 0 && last % swz == 0 && (last / swz).is_power_of_two() {
            swz
        } else {
            0
        };
        let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        write!(
            s,
            "(name: \"s{k}\", ty: {}, dims: [{}], pad: {pad}, swizzle: {swz}),",
            t.elem(),
            d.join(", ")
        )
        .unwrap();
        g.shared.push(Sh {
            name: format!("s{k}"),
            t,
            dims,
            pad,
            swizzle: swz,
        });
    }

    s.push_str("], body: [");
    g.body(&mut s, 0)?;
    s.push_str("])");
    Ok(s)
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(src) = program(&mut u) else {
        return;
    };
    let print = std::env::var_os("GEN_PRINT").is_some();
    if print {
        eprintln!("{src}");
    }
    let prog = match load_str("gen.ron", &src, &smoke::load_options()) {
        Ok(p) => p,
        Err(e) => {
            if print {
                eprintln!("refused: {e}");
            }
            return;
        }
    };
    if let Some(dir) = std::env::var_os("GEN_DUMP") {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        src.hash(&mut h);
        let path = std::path::Path::new(&dir).join(format!("gen_{:016x}.ron", h.finish()));
        let _ = std::fs::write(path, &src);
        return;
    }
    // The generator keeps launches within these; checked so a change to it cannot slow
    // the fuzzer down unnoticed.
    assert!(smoke::small_launch(&prog), "launch too big: {src}");
    let res = run(&prog, &smoke::run_options(src.len()));
    if print {
        match &res {
            Ok(_) => eprintln!("ran"),
            Err(e) => eprintln!("run error: {e}"),
        }
    }
    if let Ok(report) = res {
        smoke::render(&report);
    }
});
