//! `.func` calls, inlined: a PTX-to-PTX pass over one entry's statements before lowering.
//!
//! Each `call` (`call.uni (retval0), f, (param0, param1);`) is replaced by the body of `f`,
//! its registers, labels and `.local` names renamed for that call site (`%r5` → `%r$3$5`,
//! `$L__BB1_2` → `$L__BB1_2$i3`), so two calls of one function never share a register. The
//! `.param` state space of calls becomes registers: every `.param` declared in a call block
//! (`{ .param .b32 param0; … }`) is a fresh symbol, and each `(symbol, byte offset, width)`
//! stored or loaded through it is one register, so `st.param.b32 [param0], %r1` is a `mov` to
//! it and the callee's `ld.param.b32 %r2, [f_param_0]` a `mov` (or an extending `cvt` for a
//! 1- or 2-byte load into a wider register) from it; the callee's return values
//! (`func_retval0`) likewise. A `ret` inside `f` is a branch to the end of its inlined body; a
//! predicated call branches around it. Calls nest; recursion is refused (warpsim would have to
//! inline without end), and so are indirect calls (through a register), calls of `.extern`
//! functions and taking a parameter's address. `vprintf` (CUDA's `printf`) becomes one
//! `vprintf RET, FMT, ARGS` statement (lower/printf.rs).
//!
//! The statements keep their byte offsets and `.loc` lines: reports point at the function's
//! own lines, and errors at the PTX line of the callee.

use crate::lower::Err;
use crate::parse::{Entry, Func, Module, Stmt, StmtKind};
use std::collections::{HashMap, HashSet};

/// How deep calls may nest.
const MAX_DEPTH: usize = 64;
/// How many statements the inlined body may have.
const MAX_STMTS: usize = 500_000;

/// `entry` with every call inlined (itself when it makes no call).
pub fn expand(module: &Module, entry: &Entry) -> Result<Entry, Err> {
    let calls = entry.body.iter().any(|s| {
        matches!(&s.kind, StmtKind::Inst { op, .. } if op == "call" || op.starts_with("call."))
            || matches!(&s.kind, StmtKind::Directive(w) if w.first().is_some_and(|w| w == ".param"))
    });
    if !calls {
        return Ok(entry.clone());
    }
    let mut x = Inliner {
        module,
        out: Vec::new(),
        decls: Vec::new(),
        syms: 0,
        slots: HashMap::new(),
        instances: 0,
        shared_seen: HashSet::new(),
        types: HashMap::new(),
    };
    let mut stack = vec![entry.name.clone()];
    x.frame(&entry.body, None, HashMap::new(), &mut stack)?;
    let mut body = std::mem::take(&mut x.decls);
    body.append(&mut x.out);
    Ok(Entry {
        name: entry.name.clone(),
        off: entry.off,
        params: entry.params.clone(),
        body,
        bounds: entry.bounds.clone(),
    })
}

/// The module-level declarations `body` uses: a module's `.shared` variable that neither the
/// kernel nor a function it calls names takes no room in the kernel's shared window (as
/// ptxas allocates it); dynamic (`.extern .shared`) memory and other directives stay.
pub fn used_globals(globals: &[(usize, Vec<String>)], body: &[Stmt]) -> Vec<(usize, Vec<String>)> {
    let named = |w: &Vec<String>| {
        w.contains(&".shared".to_owned()) && !w.contains(&".extern".to_owned()) && {
            let decl = w.last().map(String::as_str).unwrap_or("");
            !decl.ends_with("[]")
        }
    };
    if !globals.iter().any(|g| named(&g.1)) {
        return globals.to_vec();
    }
    let mut used: HashSet<&str> = HashSet::new();
    for s in body {
        if let StmtKind::Inst { args, .. } = &s.kind {
            for a in args {
                used.extend(tokens(a).filter(|t| !t.starts_with('%')));
            }
        }
    }
    globals
        .iter()
        .filter(|(_, w)| {
            !named(w) || {
                let decl = w.last().map(String::as_str).unwrap_or("");
                used.contains(decl.split('[').next().unwrap_or(decl))
            }
        })
        .cloned()
        .collect()
}

/// The identifier-like words of an operand (`[%rd1+4]` → `%rd1`, `4`).
fn tokens(a: &str) -> impl Iterator<Item = &str> {
    a.split(|c: char| !(c.is_ascii_alphanumeric() || "%_$.".contains(c)))
        .filter(|t| !t.is_empty())
}

/// A call site's renaming of a function's names.
struct Rename {
    /// Instance number.
    k: usize,
    /// `.reg %r<10>` bases.
    ranged: HashSet<String>,
    /// Registers declared one by one, and `.local` variables.
    exact: HashSet<String>,
    /// Labels.
    labels: HashSet<String>,
}

impl Rename {
    fn of(body: &[Stmt], k: usize) -> Rename {
        let mut r = Rename {
            k,
            ranged: HashSet::new(),
            exact: HashSet::new(),
            labels: HashSet::new(),
        };
        for s in body {
            match &s.kind {
                StmtKind::Label(l) => {
                    r.labels.insert(l.clone());
                }
                StmtKind::Directive(w) if w.first().is_some_and(|d| d == ".reg") => {
                    for n in w.get(2..).unwrap_or_default().join(" ").split(',') {
                        let n = n.trim();
                        match n.split_once('<') {
                            Some((b, _)) => r.ranged.insert(b.to_owned()),
                            None => r.exact.insert(n.to_owned()),
                        };
                    }
                }
                StmtKind::Directive(w) if w.first().is_some_and(|d| d == ".local") => {
                    if let Some(n) = w.last() {
                        r.exact.insert(n.split('[').next().unwrap_or(n).to_owned());
                    }
                }
                _ => {}
            }
        }
        r
    }

    fn name(&self, t: &str) -> Option<String> {
        if self.exact.contains(t) {
            return Some(format!("{t}${}", self.k));
        }
        if self.labels.contains(t) {
            return Some(format!("{t}$i{}", self.k));
        }
        let base = t.trim_end_matches(|c: char| c.is_ascii_digit());
        if base.len() < t.len() && self.ranged.contains(base) {
            return Some(format!("{base}${}${}", self.k, &t[base.len()..]));
        }
        None
    }

    /// `a` with its names renamed.
    fn text(&self, a: &str) -> String {
        let mut out = String::with_capacity(a.len() + 8);
        let mut word = String::new();
        let flush = |w: &mut String, out: &mut String| {
            match self.name(w) {
                Some(n) => out.push_str(&n),
                None => out.push_str(w),
            }
            w.clear();
        };
        for c in a.chars() {
            if c.is_ascii_alphanumeric() || "%_$.".contains(c) {
                word.push(c);
            } else {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
        flush(&mut word, &mut out);
        out
    }

    /// A `.reg`/`.local` declaration renamed.
    fn decl(&self, w: &[String]) -> Vec<String> {
        if w.first().is_some_and(|d| d == ".reg") {
            let names: Vec<String> = w
                .get(2..)
                .unwrap_or_default()
                .join(" ")
                .split(',')
                .map(|n| {
                    let n = n.trim();
                    match n.split_once('<') {
                        Some((b, rest)) => format!("{b}${}$<{rest}", self.k),
                        None => self.text(n),
                    }
                })
                .collect();
            let mut v = w[..2.min(w.len())].to_vec();
            v.push(names.join(", "));
            return v;
        }
        w.iter().map(|x| self.text(x)).collect()
    }
}

struct Inliner<'m> {
    module: &'m Module,
    out: Vec<Stmt>,
    /// `.reg` declarations of the parameter registers.
    decls: Vec<Stmt>,
    /// Parameter symbols made so far.
    syms: usize,
    /// (symbol, byte offset) → (width in bytes, register).
    slots: HashMap<(usize, i64), (u32, String)>,
    instances: usize,
    /// `.shared` variables declared inside a function body (one per kernel however many
    /// calls).
    shared_seen: HashSet<String>,
    /// Register name (or `.reg` base) → its declared type, all frames.
    types: HashMap<String, String>,
}

/// `[name+off]` → (name, off).
fn address(a: &str) -> Option<(String, i64)> {
    let inner = a.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    Some(match inner.rsplit_once('+') {
        Some((b, d)) => (b.trim().to_owned(), crate::lower::int(d.trim())?),
        None => (inner.to_owned(), 0),
    })
}

/// A `ld.param`/`st.param` type's bytes and signedness.
fn param_type(t: &str) -> Option<(u32, bool)> {
    let bits: u32 = t.get(1..)?.parse().ok()?;
    Some((bits / 8, t.starts_with('s')))
}

impl Inliner<'_> {
    fn push(&mut self, s: Stmt) -> Result<(), Err> {
        if self.out.len() >= MAX_STMTS {
            return Err((
                s.off,
                format!("inlining the calls makes the kernel longer than {MAX_STMTS} statements"),
            ));
        }
        self.out.push(s);
        Ok(())
    }

    fn inst(
        &mut self,
        at: &Stmt,
        guard: Option<(String, bool)>,
        op: String,
        args: Vec<String>,
    ) -> Result<(), Err> {
        self.push(Stmt {
            off: at.off,
            loc: at.loc,
            kind: StmtKind::Inst { guard, op, args },
        })
    }

    /// The declared type of register `r` (`.b32`, `.f16`, …).
    fn type_of(&self, r: &str) -> Option<&str> {
        self.types
            .get(r)
            .or_else(|| {
                self.types
                    .get(r.trim_end_matches(|c: char| c.is_ascii_digit()))
            })
            .map(String::as_str)
    }

    /// The register of parameter slot (`sym`, `off`) of `bytes` bytes.
    fn slot(&mut self, sym: usize, off: i64, bytes: u32, at: &Stmt) -> Result<String, Err> {
        if let Some((b, r)) = self.slots.get(&(sym, off)) {
            if *b == bytes {
                return Ok(r.clone());
            }
            return Err((
                at.off,
                format!(
                    "a call parameter written as {b} bytes is read as {bytes} bytes at byte {off}: not supported"
                ),
            ));
        }
        let name = format!("%param${sym}${off}$w{bytes}");
        let ty = if bytes == 8 { ".b64" } else { ".b32" };
        self.decls.push(Stmt {
            off: at.off,
            loc: at.loc,
            kind: StmtKind::Directive(vec![".reg".into(), ty.into(), name.clone()]),
        });
        self.types.insert(name.clone(), ty.into());
        self.slots.insert((sym, off), (bytes, name.clone()));
        Ok(name)
    }

    /// The statements of one frame: the entry (`ren` none) or an inlined function.
    /// `env`: the `.param` names in scope → their symbols.
    fn frame(
        &mut self,
        body: &[Stmt],
        ren: Option<&Rename>,
        mut env: HashMap<String, usize>,
        stack: &mut Vec<String>,
    ) -> Result<(), Err> {
        let text = |a: &str| ren.map_or_else(|| a.to_owned(), |r| r.text(a));
        // Register types, for the extending loads.
        for s in body {
            if let StmtKind::Directive(w) = &s.kind {
                if w.first().is_some_and(|d| d == ".reg") {
                    let ty = w.get(1).cloned().unwrap_or_default();
                    for n in w.get(2..).unwrap_or_default().join(" ").split(',') {
                        let n = n.trim();
                        let n = match (ren, n.split_once('<')) {
                            // A renamed base: `%r` → `%r$3$`.
                            (Some(r), Some((b, _))) => format!("{b}${}$", r.k),
                            (None, Some((b, _))) => b.to_owned(),
                            (_, None) => text(n),
                        };
                        self.types.insert(n, ty.clone());
                    }
                }
            }
        }
        // The index of the last instruction: a `ret` there falls through.
        let last_inst = body
            .iter()
            .rposition(|s| matches!(s.kind, StmtKind::Inst { .. }));
        let ret_label = ren.map(|r| format!("$Lret$i{}", r.k));
        for (idx, s) in body.iter().enumerate() {
            match &s.kind {
                StmtKind::Label(l) => {
                    self.push(Stmt {
                        off: s.off,
                        loc: s.loc,
                        kind: StmtKind::Label(text(l)),
                    })?;
                }
                StmtKind::Directive(w) => {
                    let d = w.first().map(String::as_str).unwrap_or("");
                    if d == ".param" {
                        let name = w.last().map(String::as_str).unwrap_or("");
                        env.insert(name.split('[').next().unwrap_or(name).to_owned(), self.syms);
                        self.syms += 1;
                        continue;
                    }
                    if d == ".shared" || w.contains(&".shared".to_owned()) {
                        let name = w.last().cloned().unwrap_or_default();
                        if !self.shared_seen.insert(name) {
                            continue;
                        }
                        self.push(s.clone())?;
                        continue;
                    }
                    let w = match ren {
                        Some(r) => r.decl(w),
                        None => w.clone(),
                    };
                    self.push(Stmt {
                        off: s.off,
                        loc: s.loc,
                        kind: StmtKind::Directive(w),
                    })?;
                }
                StmtKind::Inst { guard, op, args } => {
                    let guard = guard.as_ref().map(|(g, n)| (text(g), *n));
                    let name = op.split('.').next().unwrap_or("");
                    if args
                        .first()
                        .is_some_and(|a| a.trim_start().starts_with(':'))
                    {
                        // `prototype_0 : .callprototype …` (for indirect calls).
                        continue;
                    }
                    if (name == "ret") && ren.is_some() {
                        if Some(idx) == last_inst && guard.is_none() {
                            continue;
                        }
                        let l = ret_label.clone().unwrap_or_default();
                        self.inst(s, guard, "bra.uni".into(), vec![l])?;
                        continue;
                    }
                    if name == "call" {
                        self.call(s, guard, op, args, &env, stack)?;
                        continue;
                    }
                    let parts: Vec<&str> = op.split('.').collect();
                    if matches!(name, "ld" | "st") && parts.get(1) == Some(&"param") {
                        let (a_s, d_s) = match name {
                            "st" => (args.first(), args.get(1)),
                            _ => (args.get(1), args.first()),
                        };
                        let (Some(a_s), Some(d_s)) = (a_s, d_s) else {
                            return Err((s.off, format!("`{op}`: missing operands")));
                        };
                        if let Some((base, disp)) = address(a_s) {
                            if let Some(&sym) = env.get(&base) {
                                self.param(
                                    s,
                                    &guard,
                                    name == "st",
                                    &parts,
                                    (sym, disp),
                                    &text(d_s),
                                )?;
                                continue;
                            }
                            if ren.is_some() {
                                return Err((
                                    s.off,
                                    format!("`{op}`: `{base}` is not a parameter of this function"),
                                ));
                            }
                        }
                    }
                    if ren.is_some() || !env.is_empty() {
                        // A parameter's address taken (`mov.u64 %rd1, f_param_0`).
                        if let Some(p) = args
                            .iter()
                            .skip(usize::from(name != "st"))
                            .flat_map(|a| tokens(a))
                            .find(|t| env.contains_key(*t))
                        {
                            return Err((s.off, format!("`{op}` takes the address of parameter `{p}`: not supported (only ld.param/st.param of it)")));
                        }
                    }
                    let args = args.iter().map(|a| text(a)).collect();
                    self.inst(s, guard, op.clone(), args)?;
                }
            }
        }
        if let (Some(l), Some(_)) = (ret_label, ren) {
            let at = body.last().cloned().unwrap_or(Stmt {
                off: 0,
                loc: (0, 0),
                kind: StmtKind::Label(String::new()),
            });
            self.push(Stmt {
                off: at.off,
                loc: at.loc,
                kind: StmtKind::Label(l),
            })?;
        }
        Ok(())
    }

    /// `st.param`/`ld.param` of slot (`sym`, `disp`): moves to or from its registers.
    fn param(
        &mut self,
        s: &Stmt,
        guard: &Option<(String, bool)>,
        store: bool,
        parts: &[&str],
        (sym, disp): (usize, i64),
        data: &str,
    ) -> Result<(), Err> {
        let ty = parts.last().copied().unwrap_or("");
        let (bytes, signed) = param_type(ty).ok_or((
            s.off,
            format!(
                "`{}`: type .{ty} of a call parameter is not supported",
                parts.join(".")
            ),
        ))?;
        if bytes == 0 || bytes > 8 || !bytes.is_power_of_two() {
            return Err((
                s.off,
                format!(
                    "`{}`: type .{ty} of a call parameter is not supported",
                    parts.join(".")
                ),
            ));
        }
        let names = crate::lower::reg_list(data);
        // A predicated one: a branch around its moves.
        let mut skip = String::new();
        if let Some((g, neg)) = guard {
            self.instances += 1;
            skip = format!("$Lpskip$i{}", self.instances);
            self.inst(
                s,
                Some((g.clone(), !neg)),
                "bra.uni".into(),
                vec![skip.clone()],
            )?;
        }
        for (i, &d) in names.iter().enumerate() {
            if d == "_" {
                continue;
            }
            let d = d.to_owned();
            let r = self.slot(sym, disp + (i as i64) * bytes as i64, bytes, s)?;
            let mov = if bytes == 8 { "mov.b64" } else { "mov.b32" };
            if store {
                self.inst(s, None, mov.into(), vec![r, d])?;
                continue;
            }
            // A 1- or 2-byte load extends to the register's width.
            let dst_bits = match self.type_of(&d) {
                Some(t) if t.ends_with("16") => 16,
                _ => 32,
            };
            if bytes < 4 && bytes * 8 < dst_bits {
                let sign = if signed { 's' } else { 'u' };
                let op = format!("cvt.{sign}{dst_bits}.{sign}{}", bytes * 8);
                self.inst(s, None, op, vec![d, r])?;
            } else {
                self.inst(s, None, mov.into(), vec![d, r])?;
            }
        }
        if guard.is_some() {
            self.push(Stmt {
                off: s.off,
                loc: s.loc,
                kind: StmtKind::Label(skip),
            })?;
        }
        Ok(())
    }

    /// Inlines one `call`.
    fn call(
        &mut self,
        s: &Stmt,
        guard: Option<(String, bool)>,
        op: &str,
        args: &[String],
        env: &HashMap<String, usize>,
        stack: &mut Vec<String>,
    ) -> Result<(), Err> {
        let list = |a: &str| -> Vec<String> {
            a.trim()
                .trim_start_matches('(')
                .trim_end_matches(')')
                .split(',')
                .map(|x| x.trim().to_owned())
                .filter(|x| !x.is_empty())
                .collect()
        };
        let mut k = 0;
        let mut rets = Vec::new();
        if args
            .first()
            .is_some_and(|a| a.trim_start().starts_with('('))
        {
            rets = list(&args[0]);
            k = 1;
        }
        let callee = args.get(k).map(|a| a.trim().to_owned()).unwrap_or_default();
        let params = match args.get(k + 1) {
            Some(a) if a.trim_start().starts_with('(') => list(a),
            _ => Vec::new(),
        };
        if callee.starts_with('%') || args.len() > k + 2 {
            return Err((s.off, format!("`{op}` through the register `{callee}` (an indirect call: a function pointer or virtual function) is not supported: warpsim inlines calls of functions it can name")));
        }
        let f: &Func = match self
            .module
            .funcs
            .iter()
            .find(|f| f.name == callee && f.body.is_some())
            .or_else(|| self.module.funcs.iter().find(|f| f.name == callee))
        {
            Some(f) => f,
            None => {
                return Err((
                    s.off,
                    format!("`{op}`: no function `{callee}` in the module"),
                ))
            }
        };
        if callee == "__assertfail" && f.body.is_none() {
            // A failed device `assert` (NVRTC's `assert` calls it): a fault at the assert's
            // line, whose text the fault shows, as the GPU stops the kernel there.
            return self.inst(s, guard, "trap".into(), Vec::new());
        }
        if callee == "vprintf" && f.body.is_none() {
            // CUDA's `printf`: one `vprintf RET, FMT, ARGS` statement that lower/printf.rs
            // lowers (the format pointer and the packed arguments' pointer are the call's two
            // `.param` slots, the number of arguments its return value).
            let slot = |x: &mut Self, p: Option<&String>, bytes: u32| -> Result<String, Err> {
                let sym = match p.and_then(|p| env.get(p)) {
                    Some(&sym) => sym,
                    None => {
                        x.syms += 1;
                        x.syms - 1
                    }
                };
                x.slot(sym, 0, bytes, s)
            };
            if params.len() != 2 {
                return Err((
                    s.off,
                    format!(
                        "`{op}` of `vprintf` gives {} arguments; it has 2",
                        params.len()
                    ),
                ));
            }
            let fmt = slot(self, params.first(), 8)?;
            let args = slot(self, params.get(1), 8)?;
            let ret = slot(self, rets.first(), 4)?;
            return self.inst(s, guard, "vprintf".into(), vec![ret, fmt, args]);
        }
        let Some(body) = &f.body else {
            // (`vprintf` never gets here: it became a statement above.)
            return Err((s.off, format!("the kernel calls `{callee}`, an external function (`.extern .func`) without a body in the module: warpsim cannot run it")));
        };
        if let Some(at) = stack.iter().position(|n| *n == callee) {
            let path = stack[at..].join(" → ");
            return Err((s.off, format!("recursive call of `{callee}` ({path} → {callee}): warpsim inlines device functions and cannot inline recursion")));
        }
        if stack.len() > MAX_DEPTH {
            return Err((
                s.off,
                format!("calls nest deeper than {MAX_DEPTH} functions: not supported"),
            ));
        }
        if rets.len() != f.rets.len() || params.len() != f.params.len() {
            return Err((
                s.off,
                format!(
                    "`{op}` of `{callee}` gives {} return values and {} arguments; it has {} and {}",
                    rets.len(),
                    params.len(),
                    f.rets.len(),
                    f.params.len()
                ),
            ));
        }
        let mut inner = HashMap::new();
        for (mine, theirs) in rets.iter().zip(&f.rets).chain(params.iter().zip(&f.params)) {
            let sym = env.get(mine).copied().ok_or((
                s.off,
                format!("`{op}`: `{mine}` is not a `.param` declared before the call"),
            ))?;
            inner.insert(theirs.0.clone(), sym);
        }
        self.instances += 1;
        let ren = Rename::of(body, self.instances);
        // A predicated call: a branch around the inlined body.
        let skip = format!("$Lskip$i{}", self.instances);
        if let Some((g, neg)) = &guard {
            self.inst(
                s,
                Some((g.clone(), !neg)),
                "bra.uni".into(),
                vec![skip.clone()],
            )?;
        }
        // A label before the body (and `$Lret` after it) ends the merge model's basic block
        // there: ptxas merges no accesses across a call.
        self.push(Stmt {
            off: s.off,
            loc: s.loc,
            kind: StmtKind::Label(format!("$Lcall$i{}", ren.k)),
        })?;
        stack.push(callee);
        self.frame(body, Some(&ren), inner, stack)?;
        stack.pop();
        if guard.is_some() {
            self.push(Stmt {
                off: s.off,
                loc: s.loc,
                kind: StmtKind::Label(skip),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = r#"
.version 8.5
.target sm_90
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.func (.param .b32 func_retval0) inc(.param .b32 inc_param_0);
.weak .func nothing
{
	ret;
}
.func (.param .b32 func_retval0) inc(.param .b32 inc_param_0)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [inc_param_0];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra $L__BB0_1;
	add.s32 %r2, %r1, 1;
	st.param.b32 [func_retval0+0], %r2;
	ret;
$L__BB0_1:
	st.param.b32 [func_retval0+0], %r1;
	ret;
}
.visible .entry k(.param .u64 k_param_0)
{
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r1;
	.param .b32 retval0;
	call.uni (retval0), inc, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	{
	.param .b32 param0;
	st.param.b32 [param0+0], %r2;
	.param .b32 retval0;
	call.uni (retval0), inc, (param0);
	ld.param.b32 %r2, [retval0+0];
	}
	ret;
}
"#;

    fn text(e: &Entry) -> Vec<String> {
        e.body
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Label(l) => format!("{l}:"),
                StmtKind::Directive(w) => w.join(" "),
                StmtKind::Inst { guard, op, args } => format!(
                    "{}{op} {}",
                    guard
                        .as_ref()
                        .map(|(g, n)| format!("@{}{g} ", if *n { "!" } else { "" }))
                        .unwrap_or_default(),
                    args.join(", ")
                ),
            })
            .collect()
    }

    #[test]
    fn headers_parse_and_calls_inline_renamed_per_site() {
        let m = crate::parse::parse(SRC).unwrap();
        let names: Vec<(&str, bool, usize, usize)> = m
            .funcs
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.body.is_some(),
                    f.rets.len(),
                    f.params.len(),
                )
            })
            .collect();
        assert_eq!(
            names,
            [
                ("vprintf", false, 1, 2),
                ("inc", false, 1, 1),
                ("nothing", true, 0, 0),
                ("inc", true, 1, 1)
            ]
        );
        assert!(m.funcs[0].external);
        assert_eq!(m.entries.len(), 1);
        let e = expand(&m, &m.entries[0]).unwrap();
        let t = text(&e);
        let want = [
            ".reg .b32 %param$0$0$w4",
            ".reg .b32 %param$1$0$w4",
            ".reg .b32 %param$2$0$w4",
            ".reg .b32 %param$3$0$w4",
            ".reg .b32 %r<3>",
            "mov.u32 %r1, %tid.x",
            "mov.b32 %param$0$0$w4, %r1",
            "$Lcall$i1:",
            ".reg .pred %p$1$<2>",
            ".reg .b32 %r$1$<3>",
            "mov.b32 %r$1$1, %param$0$0$w4",
            "setp.eq.s32 %p$1$1, %r$1$1, 0",
            "@%p$1$1 bra $L__BB0_1$i1",
            "add.s32 %r$1$2, %r$1$1, 1",
            "mov.b32 %param$1$0$w4, %r$1$2",
            "bra.uni $Lret$i1",
            "$L__BB0_1$i1:",
            "mov.b32 %param$1$0$w4, %r$1$1",
            "$Lret$i1:",
            "mov.b32 %r2, %param$1$0$w4",
            "mov.b32 %param$2$0$w4, %r2",
        ];
        assert_eq!(t[..want.len()], want, "{t:#?}");
        assert!(t.contains(&"$L__BB0_1$i2:".to_owned()), "{t:#?}");
    }
}
