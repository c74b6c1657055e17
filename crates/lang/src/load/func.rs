//! Functions: named helpers defined once in `functions: { … }` and expanded (inlined) where
//! they are called, as nvcc does with `__device__ __forceinline__` ones.
//!
//! A call is a whole statement: `Call("f(a, b)")`, or the value of a `Let`/`Set`
//! (`Let("s", "f(a, b)")`). Its arguments are evaluated in the caller; the body runs in a
//! fresh scope that sees only the parameters (registers of their own, set from the arguments,
//! each of its argument's type), the defines, the arrays and the special registers, so no name
//! of the caller can collide with one of the function's. A `Return` in the body leaves the
//! function (the lanes that took it wait at its end); `returns` is then evaluated for all the
//! lanes of the call.
//!
//! Recursion is refused (the cycle is listed), calls nest at most [`MAX_CALL_DEPTH`] deep,
//! and all expansions together hold at most [`MAX_INLINED_STATEMENTS`] statements.

use super::jump::Kind as FrameKind;
use super::*;
use crate::file::Function;
use std::rc::Rc;

/// Most calls being expanded inside one another.
pub const MAX_CALL_DEPTH: usize = 16;
/// Most statements that all the expanded calls of a program hold together (each statement of
/// a body counts once per expansion, nested ones included).
pub const MAX_INLINED_STATEMENTS: usize = 65_536;

/// The program's functions and the calls being expanded.
#[derive(Default)]
pub(super) struct Funcs {
    list: Rc<[(Text, Function)]>,
    /// Calls being expanded, outermost first: the function's index and the call's offset.
    stack: Vec<(usize, usize)>,
    /// Statements expanded so far.
    inlined: usize,
}

impl Loader<'_> {
    /// Whether a function is being expanded.
    pub(super) fn in_function(&self) -> bool {
        !self.funcs.stack.is_empty()
    }

    fn function(&self, name: &str) -> Option<usize> {
        self.funcs.list.iter().position(|(n, _)| n.text == name)
    }

    /// Checks the functions' names and parameters and keeps them for their calls.
    pub(super) fn functions(&mut self, fs: &[(Text, Function)]) -> R<()> {
        for (k, (name, f)) in fs.iter().enumerate() {
            let n = &name.text;
            if !is_ident(n) {
                return Err(self.err_text(
                    name,
                    format!("`{n}` is not a valid function name"),
                    Some("use letters, digits and _, starting with a letter".to_owned()),
                ));
            }
            let clash = if special(n).is_some() {
                Some("a special register")
            } else if expr::builtins::lookup(n, expr::Context::Kernel).is_some() {
                Some("a built-in function")
            } else if self.define(n).is_some() {
                Some("a define")
            } else if self.buffers.iter().any(|b| &b.name == n)
                || self.shared.iter().any(|s| &s.name == n)
            {
                Some("an array")
            } else if fs[..k].iter().any(|(m, _)| &m.text == n) {
                Some("a function defined earlier")
            } else {
                None
            };
            if let Some(what) = clash {
                return Err(self.err_text(
                    name,
                    format!("the function name `{n}` is already {what}"),
                    Some("choose another name for the function".to_owned()),
                ));
            }
            for (i, p) in f.params.iter().enumerate() {
                if f.params[..i].iter().any(|q| q.text == p.text) {
                    return Err(self.err_text(
                        p,
                        format!("function `{n}` has two parameters named `{}`", p.text),
                        Some("give each parameter its own name".to_owned()),
                    ));
                }
            }
        }
        self.funcs.list = fs.iter().cloned().collect();
        Ok(())
    }

    /// Whether `n` is a call of one of the program's functions.
    pub(super) fn is_function_call(&self, n: &Node) -> bool {
        matches!(&n.kind, Kind::Call(f, _) if self.function(f).is_some())
    }

    /// The value of a `Let`/`Set` expression: a function call expanded here, or an expression.
    pub(super) fn value(&mut self, n: &Node, site: Site) -> R<Val> {
        if !self.is_function_call(n) {
            return self.expr(n, site);
        }
        match self.expand(n, site)? {
            Some(v) => Ok(v),
            None => {
                let Kind::Call(f, _) = &n.kind else {
                    unreachable!("is_function_call")
                };
                let k = self.function(f).unwrap_or(0);
                let d = self.err_node(
                    site,
                    n,
                    format!("function `{f}` returns no value"),
                    Some(format!(
                        "give `{f}` a `returns: \"…\"`, or call it as a statement: Call(\"…\")"
                    )),
                );
                Err(self.with_definition(d, k))
            }
        }
    }

    /// `Call("f(a, b)")`: expands the call, dropping its value.
    pub(super) fn call_stmt(&mut self, t: &Text) -> R<()> {
        let (n, site) = self.parse_expr(t)?;
        if !self.is_function_call(&n) {
            let help = match &n.kind {
                Kind::Call(f, _) => {
                    let near = self
                        .funcs
                        .list
                        .iter()
                        .find(|(m, _)| similar(&m.text, f))
                        .map(|(m, _)| format!("did you mean `{}`? ", m.text));
                    format!(
                        "{}`Call` runs one of the program's `functions`{}",
                        near.unwrap_or_default(),
                        if self.funcs.list.is_empty() {
                            " (this program defines none)".to_owned()
                        } else {
                            String::new()
                        }
                    )
                }
                _ => "write a call of one of the program's functions: Call(\"f(a, b)\")".to_owned(),
            };
            let what = match &n.kind {
                Kind::Call(f, _) => format!("no function `{f}`"),
                _ => format!("`{}` is not a function call", t.text),
            };
            return Err(self.err_node(site, &n, what, Some(help)));
        }
        self.expand(&n, site).map(|_| ())
    }

    /// The error for a call of a function inside a larger expression.
    pub(super) fn nested_call(&self, f: &str, site: Site, n: &Node) -> Diag {
        self.err_node(
            site,
            n,
            format!("a call of function `{f}` must be a whole statement"),
            Some(format!(
                "call it on its own and use its value: Let(\"v\", \"{f}(…)\"), then the \
                 expression with `v`"
            )),
        )
    }

    /// Expands the call `n` (a `Kind::Call` of a function) here; its value, if it returns one.
    fn expand(&mut self, n: &Node, site: Site) -> R<Option<Val>> {
        let Kind::Call(name, args) = &n.kind else {
            unreachable!("is_function_call")
        };
        let k = self.function(name).unwrap_or(0);
        let list = self.funcs.list.clone();
        let (fname, f) = &list[k];
        let call_at = site.base.map_or(site.stmt, |b| b + n.start);
        if let Some(i) = self.funcs.stack.iter().position(|&(j, _)| j == k) {
            let mut cycle: Vec<&str> = self.funcs.stack[i..]
                .iter()
                .map(|&(j, _)| list[j].0.text.as_str())
                .collect();
            cycle.push(name);
            let d = self.err_node(
                site,
                n,
                format!(
                    "recursion: {} (functions are expanded where they are called)",
                    cycle.join(" → ")
                ),
                Some("rewrite the recursion as a loop (`For`/`While`)".to_owned()),
            );
            return Err(self.with_definition(d, k));
        }
        if self.funcs.stack.len() >= MAX_CALL_DEPTH {
            let d = self.err_node(
                site,
                n,
                format!("calls nest more than {MAX_CALL_DEPTH} deep here"),
                Some("call fewer functions from inside functions".to_owned()),
            );
            return Err(self.with_definition(d, k));
        }
        if args.len() != f.params.len() {
            let d = self.err_node(
                site,
                n,
                format!(
                    "function `{name}` takes {} argument{}, and this call gives {}",
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                Some(format!(
                    "pass one argument for each of its parameters: {}",
                    join(&f.params)
                )),
            );
            return Err(self.with_definition(d, k));
        }
        self.funcs.inlined += count_stmts(&f.body);
        if self.funcs.inlined > MAX_INLINED_STATEMENTS {
            let d = self.err_node(
                site,
                n,
                format!(
                    "expanding the function calls makes more than {MAX_INLINED_STATEMENTS} \
                     statements"
                ),
                Some("call large functions in fewer places, or put the calls in a loop".to_owned()),
            );
            return Err(self.with_definition(d, k));
        }
        // The arguments, in the caller's scope.
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.expr(a, site)?);
        }
        // The body, in a fresh scope and with no frame of the caller to jump to.
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let open = std::mem::take(&mut self.open);
        let (cursor, cur) = (self.cursor, self.cur.clone());
        self.funcs.stack.push((k, call_at));
        let r = self.expand_body(fname, f, vals, site, n);
        self.funcs.stack.pop();
        self.scopes = scopes;
        self.open = open;
        self.cursor = cursor;
        self.cur = cur;
        r.map_err(|d| {
            let mut d = d;
            let note = self.err_at(
                call_at,
                (n.end - n.start).max(1),
                format!("in this call of `{name}`"),
                None,
            );
            d.related.push(note);
            d
        })
    }

    fn expand_body(
        &mut self,
        fname: &Text,
        f: &Function,
        vals: Vec<Val>,
        site: Site,
        n: &Node,
    ) -> R<Option<Val>> {
        for (p, v) in f.params.iter().zip(vals) {
            let ty = match v {
                Val::Reg(_, t) => t,
                Val::Const(c) => default_ty(c),
            };
            let reg = self.declare(p, ty)?;
            self.write_to(reg, ty, v, site, n)?;
        }
        let framed = has_return(&f.body);
        if framed {
            self.emit(Inst::LoopStart);
            self.enter();
            self.open_loop(FrameKind::Func);
        }
        self.cursor = fname.span.unwrap_or(self.cursor);
        self.block(&f.body)?;
        if framed {
            let end = self.emit(Inst::LoopEnd);
            self.depth -= 1;
            self.close_loop(None, end);
        }
        let Some(t) = &f.returns else {
            return Ok(None);
        };
        self.temp_base = self.next_reg;
        if let Some(off) = t.span {
            let (line, col) = self.lines.line_col(&self.src, off);
            self.cur = (line, col, Arc::from(format!("return {}", t.text)));
        }
        let (rn, rsite) = self.parse_expr(t)?;
        self.expr(&rn, rsite).map(Some)
    }

    /// `d` with a note pointing at the definition of function `k`.
    fn with_definition(&self, mut d: Diag, k: usize) -> Diag {
        if let Some((name, _)) = self.funcs.list.get(k) {
            let note = self.err_text(name, format!("`{}` is defined here", name.text), None);
            d.related.push(note);
        }
        d
    }

    /// Where the kernel's own `body:` starts (after any `functions:` before it), for finding
    /// keyword statements (`Barrier`, `Break`, …), which keep no place in the file.
    pub(super) fn main_body_offset(&self) -> Option<usize> {
        let b = self.src.as_bytes();
        let (mut i, mut depth) = (0, 0usize);
        while i < b.len() {
            match b[i] {
                b'"' => {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'/') => {
                    while i < b.len() && b[i] != b'\n' {
                        i += 1;
                    }
                }
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    i += 2;
                    while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                        i += 1;
                    }
                    i += 1;
                }
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth = depth.saturating_sub(1),
                b'b' if depth == 1
                    && b[i..].starts_with(b"body")
                    && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
                    && self.src[i + 4..].trim_start().starts_with(':') =>
                {
                    return Some(i);
                }
                _ => {}
            }
            i += 1;
        }
        None
    }
}

/// Statements in `body`, nested ones included.
fn count_stmts(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| {
            1 + match s {
                Stmt::If {
                    then, otherwise, ..
                } => count_stmts(then) + count_stmts(otherwise),
                Stmt::For { body, .. } | Stmt::While { body, .. } => count_stmts(body),
                _ => 0,
            }
        })
        .sum()
}

/// Whether `body` has a `Return` (at any depth).
fn has_return(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Return => true,
        Stmt::If {
            then, otherwise, ..
        } => has_return(then) || has_return(otherwise),
        Stmt::For { body, .. } | Stmt::While { body, .. } => has_return(body),
        _ => false,
    })
}
